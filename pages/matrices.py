"""Attention matrices: Q, K, V, the scores, the scaled scores, the weights and the outputs,
one stage of the formula per view (``url_state.url_tabs``).

Only the chosen view's figures are built and sent, so a new sentence redraws one matrix, not
seven (bench/bench_app.py). The chosen view is kept in the URL as ``?matrix=<id>``
(an id, not the translated label, so a link works in both languages).

The token × token views (scores, scaled, weights) are tables that print every number in its
cell (``charts.drawn_as_table``): a learner reads them without a hover, they print and copy,
and Chromium draws a new sentence's table in about half the time of a Plotly heatmap printing
the same numbers (docs/benchmarks.md). "Interactive chart" (``?chart=true``) shows the Plotly
chart instead: hover, zoom, PNG/SVG.
"""

import numpy as np
import streamlit as st

from attention_ui.charts import tables_chosen
from attention_ui.exports import show_figure
from attention_ui.formulas import attention_with_sizes
from attention_ui.fragments import page_part
from attention_ui.heatmaps import token_matrix
from attention_ui.i18n import t
from attention_ui.lesson_notes import honesty_banner
from attention_ui.notation import component_labels
from attention_ui.presentation import explained_around, handout, is_presenting
from attention_ui.route import page_start, run_app
from attention_ui.url_state import url_tabs
from attention_ui.vector_figures import qkv_columns, qkv_row, vectors_matrix

TABS = ("qkv", "scores", "scaled", "weights", "outputs")
DEFAULT_TAB = "weights"
TOKEN_TABS = ("scores", "scaled", "weights")  # the token × token views: a table of numbers, or a chart (?chart=true)


def render() -> None:
    lesson, _ = page_start("matrices")
    if lesson is None:
        return
    handout(lesson, "matrices")  # the sentence and settings on top of a printed page
    honesty_banner(lesson)
    tokens = lesson.tokens
    formula = attention_with_sizes(len(tokens), lesson.trace.d_k, lesson.trace.v.shape[1])
    guide = t("matrices.rows_columns") + " " + t("matrices.tabs_help")
    if not is_presenting():  # on a projector they follow the matrix (explained), which starts on the first screen
        st.latex(formula)
        st.caption(guide)
    views(lesson, formula, guide)


@page_part("matrix_views")
def views(lesson, formula: str, guide: str) -> None:
    """The row of views and the chosen view's matrix: a part of the page that reruns alone
    (``fragments.page_part``) when the learner switches the view or "Interactive chart", which
    change nothing else on the page (only ``?matrix=`` and ``?chart=`` in the URL)."""
    trace = lesson.trace
    tokens = lesson.tokens
    presenting = is_presenting()

    def explained(view: str):
        """A view's paragraph around its matrix (``explained_around``); on a projector, under it, with
        the formula and the guide."""

        def explain() -> None:
            st.markdown(t(f"matrices.{view}_text"))
            if presenting:
                st.latex(formula)
                st.caption(guide)

        return explained_around(explain)

    tabs = url_tabs("matrix", TABS, lambda tab_id: t(f"matrices.tab_{tab_id}"), DEFAULT_TAB)
    corner = t("matrices.csv_corner")
    # the token × token views as tables that print every number, unless "Interactive chart" is on
    table = tables_chosen() if any(tabs[tab_id].open for tab_id in TOKEN_TABS) else True
    if tabs["qkv"].open:
        with tabs["qkv"], explained("qkv"):
            show_figure(  # panels named Q, K, V alone: "Q (queries)" ran into "K (keys)" in a third of a phone
                qkv_row(trace.q, trace.k, trace.v, tokens, title=t("matrices.qkv_title"), names="QKV", tr=t),
                "fig_qkv",
                matrix=np.hstack([trace.q, trace.k, trace.v]),  # (T, 2 d_k + d_v)
                row_labels=tokens,
                col_labels=qkv_columns(trace.d_k, trace.v.shape[1]),
                filename="Q_K_V",
            )
    if tabs["scores"].open:
        with tabs["scores"], explained("scores"):
            show_figure(
                token_matrix(trace.scores, tokens, tokens, title=t("matrices.scores_title"), diverging=True, tr=t),
                "fig_scores",
                table=table,
                matrix=trace.scores,
                row_labels=tokens,
                col_labels=tokens,
                filename="scores",
                corner=corner,
            )
    if tabs["scaled"].open:
        with tabs["scaled"], explained("scaled"):
            scaled_title = (
                t("matrices.scaled_title", scale=trace.scale)
                if lesson.settings.scaled
                else t("matrices.scaled_off_title")
            )
            show_figure(
                token_matrix(trace.scaled, tokens, tokens, title=scaled_title, diverging=True, tr=t),
                "fig_scaled",
                table=table,
                matrix=trace.scaled,
                row_labels=tokens,
                col_labels=tokens,
                filename="scaled",
                corner=corner,
            )
    if tabs["weights"].open:
        with tabs["weights"], explained("weights"):
            show_figure(
                token_matrix(
                    trace.weights, tokens, tokens, title=t("matrices.weights_title"), zmin=0.0, zmax=1.0, tr=t
                ),
                "fig_weights",
                table=table,
                matrix=trace.weights,
                row_labels=tokens,
                col_labels=tokens,
                filename="weights",
                corner=corner,
            )
    if tabs["outputs"].open:
        with tabs["outputs"], explained("outputs"):
            show_figure(
                vectors_matrix(trace.outputs, tokens, title=t("matrices.outputs_title"), symbol="b", tr=t),
                "fig_outputs",
                matrix=trace.outputs,
                row_labels=tokens,
                col_labels=component_labels("b", trace.outputs.shape[1]),
                filename="outputs",
            )


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
