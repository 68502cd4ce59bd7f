"""Home: what the app teaches, the formula, and the way in."""

import streamlit as st

from attention_ui.i18n import t
from attention_ui.shell import honesty_banner, page_start

lesson, _ = page_start("home")
st.title(t("home.title"))
st.markdown(t("home.intro"))
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")
st.markdown(t("home.per_token"))
with st.expander(t("home.mistakes")):
    st.markdown(t("home.mistakes_list"))
c1, c2 = st.columns(2)
with c1:
    st.page_link("pages/step_by_step.py", label=t("home.link_step"), icon="👣")
with c2:
    st.page_link("pages/matrices.py", label=t("home.link_matrices"), icon="🧮")
if lesson is not None:
    honesty_banner(lesson)
