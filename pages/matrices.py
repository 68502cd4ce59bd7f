"""Attention matrices: Q, K, V, the scores, the scaled scores, the weights and the outputs."""

import streamlit as st

from attention_ui.figures import token_matrix, vectors_matrix
from attention_ui.i18n import t
from attention_ui.shell import honesty_banner, page_start

lesson, _ = page_start("matrices")
st.title(t("matrices.title"))
if lesson is not None:
    honesty_banner(lesson)
    tr = lesson.trace
    tokens = lesson.tokens
    st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
             rf"\qquad T = {len(tokens)},\ d_k = {tr.d_k},\ d_v = {tr.v.shape[1]}")
    st.caption(t("matrices.rows_columns"))
    c1, c2, c3 = st.columns(3)
    c1.plotly_chart(vectors_matrix(tr.q, tokens, title=t("matrices.q_title"), symbol="q", tr=t), key="fig_q")
    c2.plotly_chart(vectors_matrix(tr.k, tokens, title=t("matrices.k_title"), symbol="k", tr=t), key="fig_k")
    c3.plotly_chart(vectors_matrix(tr.v, tokens, title=t("matrices.v_title"), symbol="v", tr=t), key="fig_v")
    c1, c2 = st.columns(2)
    c1.plotly_chart(token_matrix(tr.scores, tokens, tokens, title=t("matrices.scores_title"), diverging=True, tr=t),
                    key="fig_scores")
    scaled_title = (t("matrices.scaled_title", scale=tr.scale) if lesson.settings.scaled
                    else t("matrices.scaled_off_title"))
    c2.plotly_chart(token_matrix(tr.scaled, tokens, tokens, title=scaled_title, diverging=True, tr=t),
                    key="fig_scaled")
    c1, c2 = st.columns(2)
    c1.plotly_chart(token_matrix(tr.weights, tokens, tokens, title=t("matrices.weights_title"),
                                 zmin=0.0, zmax=1.0, tr=t), key="fig_weights")
    c2.plotly_chart(vectors_matrix(tr.outputs, tokens, title=t("matrices.outputs_title"), symbol="b", tr=t),
                    key="fig_outputs")
    st.markdown(t("matrices.outputs_text"))
