"""Home: what the app teaches, the formula, and the way in."""

import streamlit as st

from attention_ui.shell import honesty_banner, page_start

lesson, _ = page_start("home")
st.title("🔎 Attention Lab")
st.markdown(
    "Attention lets every word of a sentence look at every other word and decide how much of each to "
    "take in. Type a sentence in the sidebar and follow each step of that decision with real numbers."
)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")
st.markdown(
    "Per token: $\\alpha_{ij} = q_i \\cdot k_j$ (any real number), "
    "$\\hat\\alpha_{ij} = \\mathrm{softmax}_j(\\alpha_{ij}/\\sqrt{d_k})$ (between 0 and 1, summing to 1 over $j$), "
    "and $b_i = \\sum_j \\hat\\alpha_{ij} v_j$. Row $i$ of the matrix form is token $i$'s walk."
)
with st.expander("Common mistakes, taught right"):
    st.markdown(
        "- The formula ends with **× V**: softmax gives the weights; the output is the weighted sum of the values.\n"
        "- The scores of token 1 are $\\alpha_{11}, \\alpha_{12}, \\alpha_{13}, \\dots, \\alpha_{1T}$ — one per key token.\n"
        "- $d_k$ is the size of the **query/key vectors**, not the size of the input embeddings."
    )
c1, c2 = st.columns(2)
with c1:
    st.page_link("pages/step_by_step.py", label="Walk through one token, step by step", icon="👣")
with c2:
    st.page_link("pages/matrices.py", label="See every matrix for the whole sentence", icon="🧮")
if lesson is not None:
    honesty_banner(lesson)
