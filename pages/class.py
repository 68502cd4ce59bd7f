"""Class: a teacher starts a class, the room joins by link or QR code, the projector shows the
answers as they come (attention_ui/class_views.py; the answers live in classroom/)."""

from attention_ui.class_views import class_page
from attention_ui.route import page_start, run_app


def render() -> None:
    page_start("class")
    class_page()


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
