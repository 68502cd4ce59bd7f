"""Attention Lab — entry point: the page list (attention_ui.shell.NAV). Each page draws the
shared sidebar itself (attention_ui.shell.page_start), so a page also works when a fresh
server routes a shared link straight to its file."""

import streamlit as st

from attention_ui.shell import navigation_pages

st.navigation(navigation_pages(), position="hidden").run()
