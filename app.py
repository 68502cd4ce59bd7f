"""Attention Lab — entry point: the page list (attention_ui.shell.NAV) and the shared sidebar,
drawn here before the page so its settings survive page changes; after the page, the link to
this exact view. A page run without app.py (the first request of a fresh server for a shared
link) routes itself back through here (attention_ui.shell.page_start)."""

import streamlit as st

from attention_ui.shell import NAV, app_sidebar, navigation_pages, share_link

page = st.navigation(navigation_pages(), position="hidden")
app_sidebar(page.url_path or NAV[0][0])
page.run()
share_link()
