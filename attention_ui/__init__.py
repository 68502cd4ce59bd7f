"""The app's presentation layer: Plotly figure builders (pure), safe text helpers and the
Streamlit shell (sidebar, cached model, banners). No attention maths lives here.

Importing it installs ``internals.rescue_lost_fragment_reruns``: a page that Streamlit runs first
in a fresh server process (after a restart) imports this package in its first lines, well before
``route.run_app`` runs, so a click inside a part of the page that reaches the new session during
that first run is not dropped (``launch`` installs it before the server starts).
"""

from attention_ui.internals import rescue_lost_fragment_reruns

rescue_lost_fragment_reruns()
