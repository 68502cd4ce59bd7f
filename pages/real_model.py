"""Real model heads: every head of all-MiniLM-L6-v2, as our NumPy encoder computes it, one of
them step by step (its scores and weights as tables that print every number, or with
"Interactive chart" as Plotly heatmaps: ``charts.tables_chosen``), and on request a check against
the model run by PyTorch."""

from typing import Any

import numpy as np
import streamlit as st

from attention_core import explain
from attention_core.lesson import default_query, unknown_words
from attention_core.model import ModelEmbedder, head_looking_most, head_projections, model_info
from attention_core.model_files import ModelUnavailable
from attention_ui.charts import tables_chosen
from attention_ui.checks import checked, pytorch_check
from attention_ui.exports import show_figure
from attention_ui.formulas import attention_with_scale, biased_projections, head_shapes, kept_terms, output_vector
from attention_ui.head_claims import head_summary, measured_census, parking_fields
from attention_ui.heads_views import click_head, pick_head
from attention_ui.heatmaps import token_matrix
from attention_ui.i18n import t
from attention_ui.lesson_notes import listed_tokens, unknown_tokens_help
from attention_ui.model_access import lesson_encoding, model_label_now, model_name
from attention_ui.model_figures import frame_index, heads_grid
from attention_ui.notation import component_labels, output_row, scaled_row, scores_row, shown, softmax_row
from attention_ui.presentation import screen_only
from attention_ui.problems import problem_text
from attention_ui.route import page_start, run_app
from attention_ui.safe import escape_label
from attention_ui.sidebar import choose_head
from attention_ui.style import show_selected_frame
from attention_ui.tables import number_table
from attention_ui.url_state import token_picker, url_tabs
from attention_ui.vector_figures import key_bars, vectors_matrix

MATRICES = ("scores", "scaled", "weights", "outputs")  # the tabs of one head, by id


def run_check(encoded, while_waiting):
    """Load the model through sentence-transformers (torch) in a child process and compare it
    with our numbers; None, after saying why, when it cannot run here."""
    from attention_core.model_reference import compare

    try:
        return compare(encoded, while_waiting=while_waiting)
    except (ModelUnavailable, MemoryError) as exc:
        st.warning(t("real_model.check_unavailable", reason=t(f"shell.problem_{getattr(exc, 'reason', 'memory')}")))
        return None


def render() -> None:
    lesson, _ = page_start("real_model")  # without the model: says why, links to the toy pages
    if lesson is None:
        st.stop()

    try:
        with st.spinner(t("shell.loading_model")):
            info = model_info(model_name())
            encoded = lesson_encoding(lesson)  # our NumPy forward pass, no torch
    except ValueError as exc:
        st.info(t("real_model.unreadable", reason=problem_text(exc)))
        st.stop()

    tokens, weights = list(encoded.tokens), encoded.weights  # weights (L, H, T, T)
    T = len(tokens)
    st.markdown(
        t(
            "real_model.intro",
            model=model_label_now(),
            n_layers=info.n_layers,
            n_heads=info.n_heads,
            d_model=info.d_model,
            d_head=info.d_head,
        )
    )
    measured = measured_census(model_name())  # every head over the probe set
    if measured is not None:
        said = (
            "real_model.special_tokens_bert" if tokens[0] == "[CLS]" else "real_model.special_tokens"
        )  # BERT's own names
        st.caption(t(said, **parking_fields(measured, tokens)))
    if encoded.truncated and not (lesson.truncated and lesson.trained):  # else the shell has just said the same
        st.info(t("real_model.cut", total=encoded.n_pieces, shown=T - 2))
    if encoded.unknown:
        words = unknown_words(lesson.text, ModelEmbedder(model_name()))
        unknown_tokens_help(lesson.text, words, len(encoded.unknown), T - 2, offer_toy=False)

    checking = (encoded.model, encoded.ids.tobytes())  # what is checked: this model on these word pieces
    # on paper only a check that has run: its heading and intro would describe a button alone
    with st.container() if checked("torch_check", checking) is not None else screen_only("torch_check"):
        st.subheader(t("real_model.h_check"))
        st.markdown(
            t("real_model.check_intro", model=model_label_now(), n_layers=info.n_layers, n_heads=info.n_heads, T=T)
        )
        found = pytorch_check(
            "torch_check",
            checking,
            lambda while_waiting: run_check(encoded, while_waiting),
            button=t("real_model.check_button"),
            cost=t("real_model.check_cost"),
            running=t("real_model.check_loading"),
        )
    if found is not None:
        c_weights, c_hidden, c_embedding = st.columns(3)
        c_weights.metric(t("real_model.difference"), f"{found.weights:.1e}", help=t("real_model.difference_help"))
        c_hidden.metric(t("real_model.difference_hidden"), f"{found.hidden:.1e}")
        c_embedding.metric(t("real_model.difference_embedding"), f"{found.sentence_embedding:.1e}")
        st.markdown(
            t("real_model.check_text", difference=found.weights, n_layers=info.n_layers, n_heads=info.n_heads, T=T)
            + " "
            + (t("real_model.check_ok") if found.weights < 1e-5 else t("real_model.check_bad"))
        )

    st.subheader(t("real_model.h_grid", n=info.n_layers * info.n_heads))
    show_figure(  # the same figure for every pick; narrower than it needs, it scrolls sideways
        heads_grid(weights, title=t("real_model.grid_title"), tr=t), "fig_grid", on_click=click_head
    )
    st.caption(t("real_model.grid_caption"))

    st.subheader(t("real_model.h_head"))
    layer, head = pick_head(info.n_layers, info.n_heads)
    show_selected_frame("fig_grid", frame_index(layer, head, weights.shape[1]))  # a style: the grid is not redrawn

    trace = encoded.head(layer, head)  # weights (T, T), outputs (T, d_head)
    p = head_projections(layer, head, model_name())
    d_model, d_k = p.w_q.shape
    d_v = p.w_v.shape[1]
    source = t("real_model.source_embeddings") if layer == 0 else t("real_model.source_layer", layer=shown(layer - 1))
    where = t("real_model.where", layer=shown(layer), head=shown(head))
    named = f"layer{shown(layer)}_head{shown(head)}"  # in the download's file names

    c_tokens, c_formulas = st.columns([1, 2])
    with c_tokens, screen_only("token_list"):  # on paper the matrix's rows and columns name the tokens
        number_table({"i": [shown(n) for n in range(T)], t("real_model.col_token"): tokens}, height=420)
    with c_formulas:
        st.markdown(
            t("real_model.inputs_text", layer=shown(layer), head=shown(head), source=source, T=T, d_model=d_model)
        )
        st.latex(kept_terms(biased_projections()))
        st.latex(kept_terms(head_shapes(d_model, d_k, d_v)))
        st.latex(kept_terms(attention_with_scale(d_k, trace.scale)))
        st.markdown(t("real_model.heads_joined", n_heads=info.n_heads, d_v=d_v, d_model=info.d_model))

    qkv = st.expander(t("real_model.qkv_expander", T=T, d_k=d_k), key="model_qkv_open", on_change="rerun")
    if qkv.open:  # closed, its three matrices are neither built nor sent
        with qkv:
            qkv_tabs = url_tabs("model_qkv", "qkv", lambda symbol: t(f"matrices.{symbol}_title"))
            for symbol, matrix in zip("qkv", (trace.q, trace.k, trace.v)):
                if qkv_tabs[symbol].open:
                    with qkv_tabs[symbol]:
                        show_figure(
                            vectors_matrix(
                                matrix, tokens, title=f"{t(f'matrices.{symbol}_title')}, {where}", symbol=symbol, tr=t
                            ),
                            f"fig_{symbol}",
                            matrix=matrix,
                            row_labels=tokens,
                            col_labels=component_labels(symbol, matrix.shape[1]),
                            filename=f"{symbol.upper()}_{named}",
                        )

    screen_only("tabs_caption").caption(t("real_model.tabs_caption"))  # on paper the matrix says rows and columns
    tabs = url_tabs("model_matrix", MATRICES, lambda name: t(f"real_model.tab_{name}", d_k=d_k), "weights")
    corner = t("matrices.csv_corner")
    # name: (the matrix, how token_matrix colours it, its title)
    token_matrices: dict[str, tuple[np.ndarray, dict[str, Any], str]] = {
        "scores": (trace.scores, {"diverging": True}, t("real_model.scores_title", where=where)),
        "scaled": (
            trace.scaled,
            {"diverging": True},
            t("real_model.scaled_title", d_k=d_k, scale=trace.scale, where=where),
        ),
        "weights": (trace.weights, {"zmin": 0.0, "zmax": 1.0}, t("real_model.weights_title", where=where)),
    }
    table = tables_chosen() if any(tabs[name].open for name in token_matrices) else True  # "Interactive chart" off
    for name, (matrix, colours, chart_title) in token_matrices.items():
        if tabs[name].open:  # only the open tab is built
            with tabs[name]:
                show_figure(
                    token_matrix(matrix, tokens, tokens, tr=t, title=chart_title, **colours),
                    f"fig_{name}",
                    table=table,
                    matrix=matrix,
                    row_labels=tokens,
                    col_labels=tokens,
                    corner=corner,
                    filename=f"{name}_{named}",
                )
    if tabs["outputs"].open:
        with tabs["outputs"]:
            show_figure(
                vectors_matrix(
                    trace.outputs,
                    tokens,
                    symbol="b",
                    tr=t,
                    title=t("real_model.outputs_title", T=T, d_v=d_v, where=where),
                ),
                "fig_outputs",
                matrix=trace.outputs,
                row_labels=tokens,
                col_labels=component_labels("b", d_v),
                filename=f"outputs_{named}",
            )

    st.subheader(t("real_model.h_row"))
    listed = listed_tokens(lesson, encoded)  # "[UNK] 他": the word behind each unknown token
    i = token_picker(t("real_model.query_picker"), listed, param="model_token", default=default_query(tokens))
    e = explain(trace, i)
    pick = head_looking_most(weights, tokens, i)
    jump = screen_only("jump_head")  # a button, and what its head does: nothing to press on paper
    if pick is not None and (pick.layer, pick.head) != (layer, head):
        jump.button(
            t(
                "real_model.jump",
                i=shown(i),
                layer=shown(pick.layer),
                head=shown(pick.head),
                j=shown(pick.key),
                share=pick.weight,
            ),
            icon=":material/my_location:",
            key="jump_head",
            on_click=choose_head,
            args=(pick.layer, pick.head),
        )
        if measured is not None:
            jump.caption(head_summary(measured, pick.layer, pick.head))
    elif pick is not None:
        st.caption(t("real_model.jump_here", i=shown(i), j=shown(pick.key), share=pick.weight))
    st.latex(kept_terms(scores_row(i, e.scores, digits=2)))
    st.latex(kept_terms(scaled_row(i, e.scaled, d_k, symbolic=False)))
    st.latex(kept_terms(softmax_row(i, e.weights, e.row_max, e.row_sum)))
    st.latex(kept_terms(output_row(i, e.weights)))
    st.latex(kept_terms(output_vector(i, e.output, d_v)))
    st.markdown(
        t("real_model.row_text", i=shown(i), share=float(e.weights[e.top_key]), top=shown(e.top_key), d_v=d_v, T=T)
    )
    show_figure(
        key_bars(
            e.weights,
            tokens,
            highlight=e.top_key,
            tr=t,
            title=t("real_model.row_title", i=shown(i), token=escape_label(tokens[i]), where=where),
        ),
        "fig_weights_row",
    )


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
