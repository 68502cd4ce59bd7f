"""Class: a teacher starts a class, the room joins by link or QR code, the projector shows the
answers as they come (attention_ui/class_views.py; the answers live in classroom/)."""

from attention_ui.class_views import class_page
from attention_ui.shell import page_start

page_start("class")
class_page()
