"""The lesson text and formulas of each step of the step-by-step page.

Formulas carry only numbers and indices (never token text), so nothing a learner types can
reach LaTeX or Markdown.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core import Lesson, TokenExplanation

from .figures import heatmap

STEPS = ["Tokens", "Embedding + position", "q, k, v", "Scores α = q·k", "Scale ÷ √d_k", "Softmax α̂", "Output b"]
MAX_PRINTED = 8  # print vectors with up to this many components in formulas


def fmt_vec(x, digits: int = 3) -> str:
    """A vector as a LaTeX row, shortened in the middle when long."""
    x = np.asarray(x, dtype=np.float64)
    cells = ["-\\infty" if np.isneginf(v) else f"{v:.{digits}f}" for v in x]
    if len(cells) > MAX_PRINTED:
        cells = cells[:3] + ["\\dots"] + cells[-2:]
    return "[" + ",\\ ".join(cells) + "]"


def _terms(values, fmt: str, sep: str = ",\\ ", n_max: int = 6) -> str:
    """Join one formatted term per key j (a list with commas, or a sum with sep=" + ")."""
    items = [fmt.format(j=j, v=v) for j, v in enumerate(values)]
    return sep.join(items if len(items) <= n_max else items[:3] + ["\\dots"] + items[-2:])


def show_step_formula(step: int, lesson: Lesson, e: TokenExplanation) -> None:
    """The formula with the real numbers, and one or two sentences on what happened."""
    i, t = e.i, lesson.trace
    if step == 0:
        st.markdown(f"The sentence is cut into **{len(lesson.tokens)} tokens** (x₁ … x_T). "
                    "Attention works on tokens, not letters: each becomes one vector in the next step.")
    elif step == 1:
        pe = ("and the positional encoding PE_i is added" if lesson.settings.positional
              else "(positional encoding is off in the sidebar)")
        st.latex(rf"a_{{{i}}} = \sqrt{{d_{{model}}}}\,x_{{{i}}} + PE_{{{i}}},\quad d_{{model}} = {lesson.inputs.shape[1]}"
                 if lesson.settings.positional else
                 rf"a_{{{i}}} = \sqrt{{d_{{model}}}}\,x_{{{i}}},\quad d_{{model}} = {lesson.inputs.shape[1]}")
        st.markdown(f"Each token's word vector x_i is multiplied by √d_model = {lesson.embed_scale:.2f} {pe}. "
                    "Attention alone ignores word order; the positional encoding gives each place its own pattern, "
                    "so the same word at two places gets two different inputs a_i.")
    elif step == 2:
        st.latex(rf"q_{{{i}}} = a_{{{i}}} W^Q = {fmt_vec(t.q[i])},\quad k_{{{i}}} = a_{{{i}}} W^K = {fmt_vec(t.k[i])},"
                 rf"\quad v_{{{i}}} = a_{{{i}}} W^V = {fmt_vec(t.v[i])}")
        st.markdown("Three learned matrices turn every input into a **query** (what this token looks for), a **key** "
                    "(what it offers to be found by) and a **value** (what it hands over). "
                    f"Here d_k = {t.d_k}.")
    elif step == 3:
        st.latex(rf"\alpha_{{{i},j}} = q_{{{i}}} \cdot k_j:\quad " + _terms(e.scores, r"\alpha_{{%d,{j}}} = {v:.3f}" % i))
        st.markdown("The dot product of the query with every key: large when the two point the same way. "
                    "These raw scores can be any real number.")
    elif step == 4:
        if lesson.settings.scaled:
            st.latex(rf"\frac{{\alpha_{{{i},j}}}}{{\sqrt{{d_k}}}} = \frac{{\alpha_{{{i},j}}}}{{\sqrt{{{t.d_k}}}}}:\quad "
                     + _terms(e.scaled, "{v:.3f}"))
            st.markdown(f"Dividing by √d_k = {np.sqrt(t.d_k):.3f} keeps the scores' spread the same for any d_k, so "
                        "softmax does not saturate and gradients stay useful.")
        else:
            st.markdown("Scaling is **off** (sidebar): the scores go to softmax as they are. Turn it on and watch the "
                        "weights in the next step become less extreme.")
    elif step == 5:
        st.latex(rf"\hat\alpha_{{{i},j}} = \frac{{e^{{s_j - m}}}}{{\sum_{{j'}} e^{{s_{{j'}} - m}}}},\quad m = {e.row_max:.3f},"
                 rf"\ \sum_j e^{{s_j - m}} = {e.row_sum:.4f}:\quad " + _terms(e.weights, "{v:.3f}"))
        st.markdown(f"Softmax turns the scores into weights between 0 and 1 that sum to 1. Token {i} gives "
                    f"{e.weights.max():.1%} of its attention to token {e.top_key}. "
                    "(Subtracting the largest score m changes nothing but avoids overflow.)")
    elif step == 6:
        st.latex(rf"b_{{{i}}} = \sum_j \hat\alpha_{{{i},j}} v_j = "
                 + _terms(e.weights, r"{v:.2f}\,v_{{{j}}}", sep=" + ") + rf" = {fmt_vec(e.output)}")
        st.markdown(f"The output is a blend of every token's value, mixed by the weights: b_{i} now carries "
                    "information from the whole sentence. One row of the matrix α̂V is exactly this sum.")


def show_embedding(lesson: Lesson, i: int) -> None:
    """x_i, PE_i and a_i as numbers (small d_model) or as colour strips (large)."""
    d = lesson.inputs.shape[1]
    rows = np.stack([lesson.embed_scale * lesson.word_vectors[i], lesson.positional[i], lesson.inputs[i]])  # (3, d)
    labels = ["√d·x_i (word)", "PE_i (position)", "a_i = sum"]
    if d <= 16:
        fig = heatmap(rows, labels, [f"[{c}]" for c in range(d)], title=f"Token {i}: {d} dimensions",
                      diverging=True, height=240)
    else:
        fig = heatmap(rows, labels, [str(c) if c % 32 == 0 else "" for c in range(d)],
                      title=f"Token {i}: a colour strip of all {d} dimensions (hover for values)",
                      diverging=True, height=240)
    st.plotly_chart(fig, key="fig_embedding")
    st.plotly_chart(heatmap(lesson.inputs if d <= 16 else lesson.inputs, [f"{n}: {t}" for n, t in enumerate(lesson.tokens)],
                            [f"[{c}]" if d <= 16 else (str(c) if c % 32 == 0 else "") for c in range(d)],
                            title="a_j for every token (rows)", diverging=True), key="fig_inputs")
