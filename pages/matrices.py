"""Attention matrices: Q, K, V, the scores, the scaled scores, the weights and the outputs."""

import streamlit as st

from attention_ui.figures import token_matrix, vectors_matrix
from attention_ui.shell import honesty_banner, page_start

lesson, _ = page_start("matrices")
st.title("🧮 Attention matrices")
if lesson is not None:
    honesty_banner(lesson)
    t = lesson.trace
    tokens = lesson.tokens
    st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
             rf"\qquad T = {len(tokens)},\ d_k = {t.d_k},\ d_v = {t.v.shape[1]}")
    st.caption("In every attention matrix: **rows = query token i, columns = key token j.**")
    c1, c2, c3 = st.columns(3)
    c1.plotly_chart(vectors_matrix(t.q, tokens, title="Q (queries)", symbol="q"), key="fig_q")
    c2.plotly_chart(vectors_matrix(t.k, tokens, title="K (keys)", symbol="k"), key="fig_k")
    c3.plotly_chart(vectors_matrix(t.v, tokens, title="V (values)", symbol="v"), key="fig_v")
    c1, c2 = st.columns(2)
    c1.plotly_chart(token_matrix(t.scores, tokens, tokens, title="Scores α = QKᵀ", diverging=True), key="fig_scores")
    scaled_title = f"Scaled α / √d_k (× {t.scale:.3f})" if lesson.settings.scaled else "Scaled: off (× 1)"
    c2.plotly_chart(token_matrix(t.scaled, tokens, tokens, title=scaled_title, diverging=True), key="fig_scaled")
    c1, c2 = st.columns(2)
    c1.plotly_chart(token_matrix(t.weights, tokens, tokens, title="Weights α̂ = softmax (each row sums to 1)",
                                 zmin=0.0, zmax=1.0), key="fig_weights")
    c2.plotly_chart(vectors_matrix(t.outputs, tokens, title="Outputs B = α̂ V", symbol="b"), key="fig_outputs")
    st.markdown("Every row of **B** mixes the values of *all* tokens: after attention, each word's vector "
                "carries information from the whole sentence.")
