"""The lesson text and formulas of each step of the step-by-step page.

Formulas carry only numbers and indices (never token text), so nothing a learner types can
reach LaTeX or Markdown.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core import Lesson, TokenExplanation
from attention_core.lesson import STEPS

from .exports import show_figure
from .figures import heatmap
from .i18n import t
from .notation import fmt_vec, output_row, scaled_row, scores_row, softmax_row
from .safe import numbered_labels


def step_name(step: int) -> str:
    """The name of step n of ``lesson.STEPS`` in the current language (catalog key
    ``steps.name_<id>``), e.g. "Scores α = q·k"."""
    return t(f"steps.name_{STEPS[step]}")


def show_step_formula(step: int, lesson: Lesson, e: TokenExplanation) -> None:
    """The formula with the real numbers, and one or two sentences on what happened."""
    i, trace = e.i, lesson.trace
    if step == 0:
        st.markdown(t("steps.tokens_text", n=len(lesson.tokens)))
        if lesson.trained:
            st.markdown(t("steps.tokens_trained"))
    elif step == 1 and lesson.trained:
        layer, d = lesson.settings.layer, lesson.inputs.shape[1]
        st.latex(
            rf"h^{{(0)}}_{{{i}}} = \mathrm{{LayerNorm}}\left(x_{{{i}}} + p_{{{i}}} + s\right),\quad "
            + (rf"a_{{{i}}} = h^{{(0)}}_{{{i}}}" if layer == 0 else rf"a_{{{i}}} = h^{{({layer})}}_{{{i}}}")
            + rf",\quad d_{{model}} = {d}"
        )
        st.markdown(t("steps.embedding_trained_text", layer=layer))
    elif step == 1:
        pe = t("steps.pe_on") if lesson.settings.positional else t("steps.pe_off")
        st.latex(
            rf"a_{{{i}}} = \sqrt{{d_{{model}}}}\,x_{{{i}}} + PE_{{{i}}},\quad d_{{model}} = {lesson.inputs.shape[1]}"
            if lesson.settings.positional
            else rf"a_{{{i}}} = \sqrt{{d_{{model}}}}\,x_{{{i}}},\quad d_{{model}} = {lesson.inputs.shape[1]}"
        )
        st.markdown(t("steps.embedding_text", scale=lesson.embed_scale, pe=pe))
    elif step == 2:
        bias = {x: rf" + b^{x}" if lesson.trained else "" for x in "QKV"}  # a trained head has biases
        st.latex(
            rf"q_{{{i}}} = a_{{{i}}} W^Q{bias['Q']} = {fmt_vec(trace.q[i])},\quad\allowbreak "  # a narrow screen
            rf"k_{{{i}}} = a_{{{i}}} W^K{bias['K']} = {fmt_vec(trace.k[i])},\quad\allowbreak "  # breaks here
            rf"v_{{{i}}} = a_{{{i}}} W^V{bias['V']} = {fmt_vec(trace.v[i])}"
        )
        st.markdown(t(f"steps.qkv_text_{lesson.projections.kind}", d_k=trace.d_k, d_v=trace.v.shape[-1]))
    elif step == 3:
        st.latex(scores_row(i, e.scores))
        st.markdown(t("steps.scores_text"))
    elif step == 4:
        if lesson.settings.scaled:
            st.latex(scaled_row(i, e.scaled, trace.d_k))
            st.markdown(t("steps.scale_text", sqrt_d_k=float(np.sqrt(trace.d_k))))
        else:
            st.markdown(t("steps.scale_off"))
    elif step == 5:
        st.latex(softmax_row(i, e.weights, e.row_max, e.row_sum))
        st.markdown(t("steps.softmax_text", i=i, share=float(e.weights.max()), top=e.top_key))
    elif step == 6:
        st.latex(output_row(i, e.weights) + rf" = {fmt_vec(e.output)}")
        st.markdown(t("steps.output_text", i=i))


def show_embedding(lesson: Lesson, i: int) -> None:
    """x_i, PE_i and a_i as numbers (small d_model) or as colour strips (large); for a trained
    head, the model's word, position and segment embeddings, their LayerNorm and a_i."""
    d = lesson.inputs.shape[1]
    if lesson.trained:
        parts = lesson.encoded.embeddings
        layer = lesson.settings.layer
        rows = np.stack(
            [parts.word[i], parts.position[i], parts.segment[i], parts.norm.inputs[i], parts.norm.outputs[i]]
            + ([lesson.inputs[i]] if layer > 0 else [])
        )  # (5 or 6, d)
        names = ("word_trained", "position_trained", "segment", "sum_trained", "norm")
        labels = [t(f"steps.row_{name}") for name in names]
        labels += [t("steps.row_input", layer=layer)] if layer > 0 else []
    else:
        rows = np.stack([lesson.embed_scale * lesson.word_vectors[i], lesson.positional[i], lesson.inputs[i]])  # (3, d)
        labels = [t("steps.row_word"), t("steps.row_position"), t("steps.row_sum")]
    if d <= 16:
        fig = heatmap(
            rows,
            labels,
            [f"[{c}]" for c in range(d)],
            title=t("steps.embedding_title", i=i, d=d),
            diverging=True,
            height=240,
            tr=t,
        )
    else:
        fig = heatmap(
            rows,
            labels,
            [str(c) if c % 32 == 0 else "" for c in range(d)],
            title=t("steps.embedding_strip_title", i=i, d=d),
            diverging=True,
            height=160 + 28 * len(rows),
            tr=t,
        )
    show_figure(fig, "fig_embedding")
    show_figure(
        heatmap(
            lesson.inputs,
            numbered_labels(lesson.tokens),
            [f"[{c}]" if d <= 16 else (str(c) if c % 32 == 0 else "") for c in range(d)],
            title=t("steps.inputs_title_trained", layer=lesson.settings.layer)
            if lesson.trained
            else t("steps.inputs_title"),
            diverging=True,
            tr=t,
        ),
        "fig_inputs",
    )
