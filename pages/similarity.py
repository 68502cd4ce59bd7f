"""Similarity measures: cosine, dot and scaled dot on the same vectors, in 2-D and on the sentence."""

from typing import Any

import streamlit as st

from attention_core import softmax
from attention_core.similarity import SIMILARITIES, compare_similarities, polar_vector
from attention_ui.exports import show_figure
from attention_ui.formulas import dot_product_2d, similarity_measures
from attention_ui.heatmaps import heatmap_row
from attention_ui.i18n import t
from attention_ui.lesson_notes import honesty_banner, listed_tokens
from attention_ui.notation import shown
from attention_ui.presentation import handout
from attention_ui.route import page_start, run_app
from attention_ui.safe import escape_label, escape_markdown, numbered_labels
from attention_ui.similarity_figures import grouped_bars, row_bars, vectors_2d
from attention_ui.url_state import token_picker, url_choice

ORDER = sorted(SIMILARITIES, key=["cosine", "dot", "scaled_dot"].index)  # direction only, + length, ÷√d
VECTORS = ["qk", "inputs"]  # what section 2 compares: queries with keys, or the inputs with each other
DEMO = {"q_angle": 20, "q_length": 1.0, "k_angle": 60, "k_length": 1.5}  # the 2-D demo's start


@st.fragment
def demo() -> None:
    """The 2-D demo. Its sliders rerun only this function, not the sentence's charts below."""
    controls, plot, numbers = st.columns([1.1, 1.5, 1.0], gap="large")
    with controls:
        q_angle = st.slider(
            t("similarity.q_angle"), 0, 355, DEMO["q_angle"], step=5, key="q_angle", bind="query-params", format="%d°"
        )
        q_length = st.slider(
            t("similarity.q_length"),
            0.1,
            3.0,
            DEMO["q_length"],
            step=0.1,
            key="q_length",
            bind="query-params",
            format="%.1f",
        )
        k_angle = st.slider(
            t("similarity.k_angle"), 0, 355, DEMO["k_angle"], step=5, key="k_angle", bind="query-params", format="%d°"
        )
        k_length = st.slider(
            t("similarity.k_length"),
            0.1,
            3.0,
            DEMO["k_length"],
            step=0.1,
            key="k_length",
            bind="query-params",
            format="%.1f",
        )
    q2 = polar_vector(q_angle, q_length)  # (2,)
    k2 = polar_vector(k_angle, k_length)  # (2,)
    pair = compare_similarities(q2, k2)  # every matrix (1, 1)
    with plot:
        show_figure(vectors_2d(q2, k2, title=t("similarity.demo_plot_title"), q_name="q", k_name="k"), "fig_vectors_2d")
    with numbers:
        for name in ORDER:
            st.metric(t(f"similarity.name_{name}"), f"{pair.measure(name)[0, 0]:.3f}")
    st.latex(dot_product_2d(pair.norms_a[0], pair.norms_b[0], pair.cosine[0, 0], pair.dot[0, 0], pair.scaled_dot[0, 0]))
    st.info(t("similarity.demo_try"))


@st.fragment
def one_query(tokens, labels, comp, weights, vectors: str, listed: list[str]) -> None:
    """One query token's row under the three measures. Picking a token reruns only this part.
    ``listed``: the picker's words ("[UNK] 他", ``listed_tokens``)."""
    i = token_picker(t("similarity.token_picker"), listed, key="sim_token_picker")
    token_i = escape_markdown(tokens[i])
    show_figure(
        row_bars(
            [(name, t(f"similarity.name_{name}"), comp.measure(name)[i]) for name in ORDER],
            labels,
            title=t("similarity.rows_title", i=shown(i), token=escape_label(tokens[i])),
            x_title=t("similarity.key_axis"),
        ),
        "fig_rows",
    )
    best = {name: comp.best_key(name, i) for name in ORDER}
    st.markdown(
        t(
            "similarity.best_keys",
            i=shown(i),
            token=token_i,
            norm=f"{comp.norms_a[i]:.3f}",
            vec="a" if vectors == "inputs" else "q",
            **{name: f"{shown(best[name])}: {escape_markdown(tokens[best[name]])}" for name in ORDER},
        )
    )
    st.markdown(t("similarity.best_same") if best["cosine"] == best["dot"] else t("similarity.best_differ"))
    show_figure(
        grouped_bars(
            [(name, t(f"similarity.name_{name}"), weights[name][i]) for name in ORDER],
            labels,
            title=t("similarity.softmax_row_title", i=shown(i), token=escape_label(tokens[i])),
            x_title=t("similarity.key_axis"),
            y_title=t("similarity.weight_axis"),
        ),
        "fig_softmax_rows",
    )
    table = st.expander(t("similarity.table_header", i=shown(i)), key="sim_table_open", on_change="rerun")
    if table.open:  # closed, the table is not sent (a data grid costs the browser more than a chart)
        table.dataframe(
            {
                t("similarity.col_key"): labels,
                t("similarity.col_norm"): comp.norms_b,
                **{t(f"similarity.name_{name}"): comp.measure(name)[i] for name in ORDER},
                **{
                    t("similarity.col_weight", measure=t(f"similarity.name_{name}")): weights[name][i] for name in ORDER
                },
            },
            hide_index=True,
            key="sim_table",
        )


def render() -> None:
    lesson, _ = page_start("similarity")
    st.markdown(t("similarity.intro"))
    st.latex(similarity_measures())
    for column, name in zip(st.columns(3), ORDER):
        with column.container(border=True):
            st.markdown(f"**{t(f'similarity.name_{name}')}** — {t(f'similarity.what_{name}')}")

    # --------------------------------------------------------------------------- 2-D demo
    st.subheader(t("similarity.demo_header"))
    st.markdown(t("similarity.demo_intro"))
    demo()

    # --------------------------------------------------------------------------- the sentence
    st.subheader(t("similarity.sentence_header"))
    if lesson is None:
        st.info(t("similarity.no_sentence"))
        st.stop()
    handout(lesson, "similarity")  # the sentence and settings on top of a printed page
    honesty_banner(lesson)
    tokens = lesson.tokens
    labels = numbered_labels(tokens)
    vectors = url_choice(
        t("similarity.vectors"),
        "vectors",
        VECTORS,
        VECTORS[0],
        lambda v: t(f"similarity.vectors_{v}"),
        key="sim_vectors",
    )
    if vectors == "inputs":
        a, b, d_name = lesson.inputs, lesson.inputs, "d_model"
    else:
        a, b, d_name = lesson.trace.q, lesson.trace.k, "d_k"
    comp = compare_similarities(a, b)  # (T, T) each
    intro = "hidden" if vectors == "inputs" and lesson.trained else vectors  # a trained head reads a hidden state
    st.markdown(t(f"similarity.sentence_intro_{intro}", d=comp.d, t=len(tokens), layer=shown(lesson.settings.layer)))

    axis: dict[str, Any] = {
        "x_title": t("similarity.key_axis"),
        "y_title": t("similarity.query_axis"),
        "col_labels": labels,
        "tr": t,
    }
    show_figure(
        heatmap_row(
            [(t(f"similarity.heatmap_{name}", d=comp.d), comp.measure(name)) for name in ORDER],
            labels,
            **axis,
            scales=[(-1.0, 1.0) if name == "cosine" else None for name in ORDER],  # each measure its own colour bar
            title=t("similarity.heatmaps_title", d=comp.d, d_name=d_name),
        ),
        "fig_measures",
    )
    st.caption(t("similarity.same_picture", d=comp.d, d_name=d_name, sqrt=f"{comp.d**0.5:.3f}"))

    st.subheader(t("similarity.weights_header"))
    st.markdown(t("similarity.weights_intro"))
    weights = {name: softmax(comp.measure(name), axis=-1) for name in ORDER}  # (T, T) each, rows sum to 1
    show_figure(
        heatmap_row(
            [(t(f"similarity.name_{name}"), weights[name]) for name in ORDER],
            labels,
            **axis,
            scale=(0.0, 1.0),
            title=t("similarity.weights_row_title"),
        ),
        "fig_weights",
    )
    st.caption(t("similarity.weights_caption"))

    # --------------------------------------------------------------------------- one query token
    st.subheader(t("similarity.token_header"))
    one_query(tokens, labels, comp, weights, vectors, listed_tokens(lesson))  # "[UNK] 他" in the picker


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
