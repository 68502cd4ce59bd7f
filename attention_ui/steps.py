"""The lesson text and formulas of each step of the step-by-step page.

Formulas carry only numbers and indices (never token text), so nothing a learner types can
reach LaTeX or Markdown.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core import Lesson, TokenExplanation
from attention_core.lesson import STEPS, input_scales, mean_self_weight
from attention_core.model_choice import is_bundled

from .exports import show_figure
from .formulas import kept_terms
from .head_claims import measured_census, parking_fields
from .heatmaps import STRIP_QUANTILE, VECTOR_TICKED_COLS, heatmap, strips
from .i18n import t
from .notation import (
    POSITIONAL_ENCODING,
    bias,
    component_labels,
    fmt_vec,
    output_row,
    scaled_row,
    scores_row,
    shown,
    softmax_row,
)
from .safe import numbered_labels


def step_name(step: int) -> str:
    """The name of step n of ``lesson.STEPS`` in the current language (catalog key
    ``steps.name_<id>``), e.g. "Scores α = q·k"."""
    return t(f"steps.name_{STEPS[step]}")


def show_step_formula(step: int, lesson: Lesson, e: TokenExplanation) -> None:
    """The formula with the real numbers, and one or two sentences on what happened."""
    i, trace = e.i, lesson.trace
    n = shown(i)  # token i as the learner sees it, from 1
    if step == 0:
        st.markdown(t("steps.tokens_text", n=len(lesson.tokens)))
        found = measured_census(lesson.embedder_name) if lesson.trained else None
        if found is not None:
            st.markdown(t("steps.tokens_trained", **parking_fields(found, lesson.tokens)))
    elif step == 1 and lesson.trained:
        layer, d = lesson.settings.layer, lesson.inputs.shape[1]  # layer: 0-based, h^(layer) is its input
        st.latex(
            rf"h^{{(0)}}_{{{n}}} = \mathrm{{LayerNorm}}\left(x_{{{n}}} + p_{{{n}}} + e_{{seg}}\right),\quad "
            rf"a_{{{n}}} = h^{{({layer})}}_{{{n}}},\quad d_{{model}} = {d}"
        )
        st.markdown(
            t("steps.embedding_trained_text")
            + " "
            + (
                t("steps.first_layer_input")
                if layer == 0
                else t("steps.later_layer_input", layer=shown(layer), state=layer)
            )
        )
    elif step == 1:
        d = lesson.inputs.shape[1]
        positional = lesson.settings.positional
        pe = rf" + \mathrm{{PE}}_{{{n}}}" if positional else ""
        st.latex(rf"a_{{{n}}} = \sqrt{{d_{{model}}}}\,x_{{{n}}}{pe},\quad d_{{model}} = {d}")
        sizes = input_scales(lesson)
        if positional:
            st.markdown(t("steps.embedding_text"))
            st.latex(POSITIONAL_ENCODING)
            st.markdown(t("steps.pe_text"))
        else:
            st.markdown(t("steps.pe_off"))
        st.markdown(
            t(
                "steps.sqrt_d_model_text" if positional else "steps.sqrt_d_model_off",
                scale=lesson.embed_scale,
                word=f"{sizes.word:.3f}",
                scaled=f"{sizes.scaled_word:.2f}",
                position=f"{sizes.position:.2f}",
            )
        )
    elif step == 2:
        plus = {x: f" + {bias(x)}" if lesson.trained else "" for x in "QKV"}  # a trained head has biases
        st.latex(
            rf"q_{{{n}}} = a_{{{n}}} W^Q{plus['Q']} = {fmt_vec(trace.q[i])},\quad\allowbreak "  # a phone breaks here
            rf"k_{{{n}}} = a_{{{n}}} W^K{plus['K']} = {fmt_vec(trace.k[i])},\quad\allowbreak "
            rf"v_{{{n}}} = a_{{{n}}} W^V{plus['V']} = {fmt_vec(trace.v[i])}"
        )
        kind = lesson.projections.kind
        text = t(
            f"steps.qkv_text_{kind}",
            d_k=trace.d_k,
            d_v=trace.v.shape[-1],
            self_share=mean_self_weight(trace.weights) if kind == "identity" else 0.0,
        )
        if lesson.trained and is_bundled(lesson.embedder_name):  # how the bundled model's weights were learned
            text += " " + t("steps.qkv_model_history")
        st.markdown(text)
    elif step == 3:
        st.latex(kept_terms(scores_row(i, e.scores)))  # a line breaks between terms, never after an =
        st.markdown(t("steps.scores_text"))
    elif step == 4:
        if lesson.settings.scaled:
            st.latex(kept_terms(scaled_row(i, e.scaled, trace.d_k)))
            st.markdown(t("steps.scale_text", sqrt_d_k=float(np.sqrt(trace.d_k))))
            if lesson.trained:  # the variance argument is about random weights: say what learned ones give
                scores = np.asarray(trace.scores)  # (T, T), the head's raw scores
                st.markdown(
                    t(
                        "steps.scale_trained",
                        low=f"{scores.min():.1f}",
                        high=f"{scores.max():.1f}",
                        variance=float(scores.var()),
                        d_k=trace.d_k,
                    )
                )
        else:
            st.markdown(t("steps.scale_off"))
    elif step == 5:
        st.latex(kept_terms(softmax_row(i, e.weights, e.row_max, e.row_sum, scaled=lesson.settings.scaled)))
        st.markdown(t("steps.softmax_text", i=n, share=float(e.weights.max()), top=shown(e.top_key)))
    elif step == 6:
        st.latex(kept_terms(output_row(i, e.weights) + rf" = {fmt_vec(e.output)}"))
        st.markdown(t("steps.output_text", i=n))


def show_embedding(lesson: Lesson, i: int) -> None:
    """x_i, PE_i and a_i as numbers (small d_model) or as colour strips (large); for a trained
    head, the model's word, position and segment embeddings, their LayerNorm and a_i."""
    d = lesson.inputs.shape[1]
    if lesson.trained and lesson.encoded is not None:  # a trained lesson always carries its trace
        parts = lesson.encoded.embeddings
        layer = lesson.settings.layer
        rows = np.stack(
            [parts.word[i], parts.position[i], parts.segment[i], parts.norm.inputs[i], parts.norm.outputs[i]]
            + ([lesson.inputs[i]] if layer > 0 else [])
        )  # (5 or 6, d)
        names = ("word_trained", "position_trained", "segment", "sum_trained", "norm")
        labels = [t(f"steps.row_{name}") for name in names]
        labels += [t("steps.row_input", layer=shown(layer), state=layer)] if layer > 0 else []
    else:
        rows = np.stack([lesson.embed_scale * lesson.word_vectors[i], lesson.positional[i], lesson.inputs[i]])  # (3, d)
        labels = [t("steps.row_word"), t("steps.row_position"), t("steps.row_sum")]
    columns = component_labels("", d)  # "[1]" … "[d]"
    title = t("steps.embedding_title" if d <= VECTOR_TICKED_COLS else "steps.embedding_strip_title", i=shown(i), d=d)
    fig = strips(  # each row on its own colour scale: on one shared scale the small rows were nearly white
        rows,
        labels,
        columns if d <= VECTOR_TICKED_COLS else [str(shown(c)) for c in range(d)],  # the heatmap ticks a few of them
        title=title,
        height=240 if d <= VECTOR_TICKED_COLS else 160 + 28 * len(rows),
        tr=t,
    )
    show_figure(fig, "fig_embedding")
    st.caption(
        t("steps.own_scales")
        if d <= VECTOR_TICKED_COLS
        else t("steps.own_scales_long", share=round(100 * STRIP_QUANTILE))
    )
    show_figure(
        heatmap(
            lesson.inputs,
            numbered_labels(lesson.tokens),
            columns if d <= 16 else [str(shown(c)) for c in range(d)],
            title=t("steps.inputs_title_trained", layer=shown(lesson.settings.layer), state=lesson.settings.layer)
            if lesson.trained
            else t("steps.inputs_title"),
            diverging=True,
            tr=t,
        ),
        "fig_inputs",
    )
