"""Attention Lab — entry point: the page list. Each page draws the shared sidebar itself
(attention_ui.shell.page_start), so a page also works when a fresh server routes a shared
link straight to its file."""

import streamlit as st

PAGES = [
    st.Page("pages/home.py", title="Home", icon="🏠", url_path="home", default=True),
    st.Page("pages/step_by_step.py", title="Step by step", icon="👣", url_path="step_by_step"),
    st.Page("pages/matrices.py", title="Attention matrices", icon="🧮", url_path="matrices"),
    st.Page("pages/why_scaling.py", title="Why √d_k", icon="📏", url_path="why_scaling"),
    st.Page("pages/real_model.py", title="Real model heads", icon="🤖", url_path="real_model"),
]

st.navigation(PAGES, position="hidden").run()
