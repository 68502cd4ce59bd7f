"""The views of After attention: one encoder layer step by step (W^O, the first residual and
LayerNorm, the feed-forward network, the second residual and LayerNorm), the six layers at a
glance (how much each changes a token, the tokens' cosines, the heads' mean attention) and the
sentence vector (mean pooling, a second sentence, a table of sentences).

Every number comes from ``attention_core`` (``encoder.encode``'s trace and ``after_attention``);
the figures from ``after_figures``. Each set of views is ``url_state.url_tabs``: only the chosen
view is built and sent. Example: ``layer_steps(encoded, config, layer, listed)`` under the page's layer
heading, ``all_layers(encoded, config)``, ``show_pooling(vector_a, n_layers, d_model)``.
"""

from __future__ import annotations

import streamlit as st

from attention_core.after_attention import (
    MAX_ROWS,
    closest_pair,
    compare_sentences,
    gelu_effect,
    layer_change,
    layer_norms,
    mean_attention,
    mean_pair_cosine,
    norm_example,
    sentence_table,
    sentence_vector,
    token_cosines,
)
from attention_core.lesson import default_query
from attention_ui.after_figures import (
    layer_change_map,
    layers_grid,
    norm_bars,
    pooling_strips,
    similarity_map,
    superscript,
    token_strips,
    vector_strips,
)
from attention_ui.exports import show_figure
from attention_ui.formulas import (
    feed_forward,
    first_layer_norm,
    layer_norm_example,
    mean_pooling,
    output_projection,
    second_layer_norm,
    sentence_cosine,
)
from attention_ui.i18n import t
from attention_ui.model_access import model_name
from attention_ui.notation import component_labels, hidden, shown
from attention_ui.safe import escape_markdown
from attention_ui.tables import number_table
from attention_ui.url_state import token_picker, url_tabs

# Sentence B's default: the sidebar's default sentence in other words. The table's default: it,
# its paraphrase, two unrelated sentences and its Chinese translation.
DEFAULT_COMPARE = "A tired cat rested on the rug"
DEFAULT_SENTENCES = "\n".join(
    [
        "The cat sat on the mat because it was tired",
        "A tired cat rested on the rug",
        "The tailor cut the cloth for a plaid shirt",
        "Stock prices fell sharply this morning",
        "猫坐在垫子上，因为它累了",
    ]
)
STEPS = ("heads", "norm_1", "ffn", "norm_2")
VIEWS = ("change", "cosines", "attention")
VECTOR_VIEWS = ("pooling", "compare", "table")
COMPONENT = 0  # the component m of the worked LayerNorm examples


def show_norm_example(norm, params, eps: float, tokens: list[str], symbol: str, out: str, listed: list[str]) -> None:
    """The LayerNorm of one number, with the sidebar's-style token picker above it; ``listed``:
    the picker's words ("[UNK] 他", ``lesson_notes.listed_tokens``)."""
    i = token_picker(t("after_attention.token_picker"), listed, param="after_token", default=default_query(tokens))
    e = norm_example(norm, params, eps, i, COMPONENT)
    n, m = shown(i), shown(COMPONENT)  # token and component as the learner sees them, from 1
    st.markdown(t("after_attention.example_text", i=n, token=escape_markdown(tokens[i]), m=m))
    st.latex(layer_norm_example(e, n, m, norm.inputs.shape[1], symbol, out))


def strip(matrix, tokens, title: str, symbol: str, key: str, filename: str, **kw) -> None:
    """A (T, d) matrix as colour strips, with its CSV (every digit)."""
    show_figure(
        token_strips(matrix, tokens, title=title, symbol=symbol, tr=t, **kw),
        key,
        matrix=matrix,
        row_labels=tokens,
        col_labels=component_labels(symbol, matrix.shape[1]),
        filename=filename,
        defer_csv=True,  # 384 or 1536 numbers a token: written on click, not on every rerun
    )


def stats(norm, tokens: list[str], title: str, key: str, filename: str) -> None:
    """Each token's μ_i and σ²_i, with their CSV."""
    show_figure(
        norm_bars(norm.mean, norm.var, tokens, title=title, tr=t),
        key,
        matrix=[list(norm.mean), list(norm.var)],
        row_labels=["mu", "sigma^2"],
        col_labels=tokens,
        filename=filename,
    )


def vector_notes(name: str, vector) -> None:
    """Say when a sentence was cut at the model's limit, or is partly [UNK]."""
    if vector.truncated:
        st.info(t("after_attention.vector_cut", name=name, total=vector.n_pieces, read=vector.n_read))
    if vector.unknown:
        st.warning(t("after_attention.vector_unknown", name=name, unknown=vector.unknown, total=vector.n_read))


def show_pooling(vector_a, n_layers: int, d_model: int) -> None:
    """③ 1: mean pooling and normalisation of sentence A, as formulas and as strips."""
    T_a = len(vector_a.tokens)
    st.latex(mean_pooling(T_a, n_layers, d_model, vector_a.mean, vector_a.norm, vector_a.embedding))
    show_figure(
        pooling_strips(
            vector_a.last_hidden,
            vector_a.mean,
            list(vector_a.tokens),
            title=t("after_attention.pooling_title", n_layers=n_layers, T=T_a),
            tr=t,
        ),
        "fig_pooling",
        matrix=[*vector_a.last_hidden, vector_a.mean, vector_a.embedding],
        row_labels=[*vector_a.tokens, t("after_attention.csv_mean"), t("after_attention.csv_unit")],
        col_labels=component_labels("h", d_model),
        filename="sentence_vector_a",
        defer_csv=True,
    )


def show_comparison(vector_a, d_model: int, limit: int) -> None:
    """③ 2: sentence B typed by the learner, its cosine with A, term by term and as strips."""
    sentence_b = st.text_input(
        t("after_attention.compare"),
        key="compare",
        bind="query-params",
        value=DEFAULT_COMPARE,
        max_chars=4000,
        help=t("after_attention.compare_help", limit=limit),
    )
    if not (sentence_b or "").strip():
        st.info(t("after_attention.no_compare"))
        return
    try:
        vector_b = sentence_vector(sentence_b, name=model_name())
    except ValueError:
        st.info(t("after_attention.compare_unreadable"))
        return
    vector_notes(t("after_attention.name_b"), vector_b)
    pair = compare_sentences(vector_a, vector_b)
    c_metric, c_text = st.columns([1, 3], vertical_alignment="center")
    c_metric.metric(t("after_attention.cosine_metric"), f"{pair.cosine:.4f}", help=t("after_attention.cosine_help"))
    c_text.markdown(t("after_attention.cosine_text", d_model=d_model))
    st.latex(sentence_cosine(pair.a, pair.b, d_model, pair.cosine))
    show_figure(
        vector_strips(
            [pair.a, pair.b],
            ["A", "B"],
            title=t("after_attention.pair_title", d_model=d_model),
            symbol="e",
            tr=t,
        ),
        "fig_pair",
        matrix=[pair.a, pair.b, pair.products],
        row_labels=["e_A", "e_B", "e_A*e_B"],
        col_labels=component_labels("e", d_model),
        filename="sentence_vectors_a_b",
        defer_csv=True,
    )


def show_table(d_model: int, limit: int) -> None:
    """③ 3: the cosine of every pair of the learner's sentences, with each one's notes."""
    st.markdown(t("after_attention.table_text", d_model=d_model, max_rows=MAX_ROWS))
    text = st.text_area(
        t("after_attention.table_input", max_rows=MAX_ROWS),
        key="sentences",
        bind="query-params",
        value=DEFAULT_SENTENCES,
        max_chars=5 * 1000,
        height=160,
        help=t("after_attention.table_help", max_rows=MAX_ROWS, limit=limit),
    )
    table = sentence_table(text or "", name=model_name())
    if table.empty:
        st.caption(t("after_attention.table_empty", lines=", ".join(map(str, table.empty))))
    if table.unreadable:
        st.caption(t("after_attention.table_unreadable", lines=", ".join(map(str, table.unreadable))))
    if table.dropped:
        st.info(t("after_attention.table_dropped", max_rows=MAX_ROWS, lines=", ".join(map(str, table.dropped))))
    if len(table.vectors) < 2:
        st.info(t("after_attention.table_too_few"))
        return
    notes = [
        "; ".join(
            ([t("after_attention.note_cut", read=v.n_read, total=v.n_pieces)] if v.truncated else [])
            + ([t("after_attention.note_unknown", unknown=v.unknown, read=v.n_read)] if v.unknown else [])
        )
        for v in table.vectors
    ]
    columns = {
        t("after_attention.col_line"): list(table.lines),
        t("after_attention.col_sentence"): [v.text for v in table.vectors],
        t("after_attention.col_pieces"): [v.n_read for v in table.vectors],
    }
    if any(notes):
        columns[t("after_attention.col_note")] = notes
    number_table(columns)  # static HTML: a data grid's canvas took Chromium ~0.3 s more on every visit
    c_map, c_read = st.columns([3, 2], vertical_alignment="center")
    with c_map:
        show_figure(
            similarity_map(table.matrix, table.lines, title=t("after_attention.table_title"), tr=t),
            "fig_table",
            matrix=table.matrix,
            row_labels=[v.text for v in table.vectors],
            col_labels=[v.text for v in table.vectors],
            filename="sentence_similarities",
        )
    closest = closest_pair(table.matrix)  # None only for fewer than two sentences, said above
    if closest is not None:
        r, s, best = closest
        c_read.markdown(t("after_attention.table_read", r=table.lines[r], s=table.lines[s], cosine=best))


def layer_steps(encoded, config, layer: int, listed: list[str]) -> None:
    """Layer ``layer`` (0-based) of the encoding, one step a view: the heads joined and W^O, the
    first residual and LayerNorm, the feed-forward network, the second residual and LayerNorm.
    ``listed``: the token pickers' words ("[UNK] 他", ``lesson_notes.listed_tokens``)."""
    tokens = list(encoded.tokens)
    T, d_model, d_ff = len(tokens), config.d_model, config.d_ff
    n_layers, n_heads = config.n_layers, config.n_heads
    number = shown(layer)  # the layer as the page shows it, from 1
    last = layer == n_layers - 1
    step_tabs = url_tabs("layer_step", STEPS, lambda s: t(f"after_attention.tab_{s}"))
    trace = encoded.layer(layer)  # every value of the layer, recomputed by the forward pass's own code
    d_v = trace.attention.d_k
    norms = layer_norms(encoded, layer)

    if step_tabs["heads"].open:
        with step_tabs["heads"]:
            st.latex(output_projection(n_heads, d_v, T, d_model))
            st.markdown(t("after_attention.heads_text", n_heads=n_heads, d_v=d_v, T=T, d_model=d_model))
            show_figure(
                token_strips(
                    trace.concat,
                    tokens,
                    title=t("after_attention.concat_title", last=n_heads, layer=number, T=T, d_model=d_model),
                    symbol="C",
                    tr=t,
                    groups=[str(shown(h)) for h in range(n_heads)],  # the title names them: Concat(head 1 … head 12)
                ),
                "fig_concat",
                matrix=trace.concat,
                row_labels=tokens,
                col_labels=[c for h in range(n_heads) for c in component_labels(f"head{shown(h)}", d_v)],
                filename=f"concat_layer{number}",
                defer_csv=True,
            )
            strip(
                trace.attention_output,
                tokens,
                t("after_attention.wo_title", layer=number, T=T, d_model=d_model),
                "o",
                "fig_wo",
                f"w_o_output_layer{number}",
            )

    if step_tabs["norm_1"].open:
        with step_tabs["norm_1"]:
            st.latex(first_layer_norm(layer, T, d_model, norms.eps))
            st.markdown(t("after_attention.norm_1_text", state=layer, n_layers=n_layers, d_model=d_model))
            strip(
                trace.inputs,
                tokens,
                t("after_attention.input_title", state=layer, T=T, d_model=d_model),
                "h",
                "fig_input",
                f"input_layer{number}",
            )
            strip(
                trace.norm_1.inputs,
                tokens,
                t("after_attention.sum_1_title", state=layer, T=T, d_model=d_model),
                "x",
                "fig_sum_1",
                f"residual_1_layer{number}",
            )
            stats(
                trace.norm_1, tokens, t("after_attention.stats_1_title", d_model=d_model), "fig_stats_1", "norm_1_stats"
            )
            strip(
                trace.norm_1.outputs,
                tokens,
                t("after_attention.norm_1_title", layer=number, T=T, d_model=d_model),
                "u",
                "fig_norm_1",
                f"layernorm_1_layer{number}",
            )
            st.markdown(t("after_attention.norm_after"))
            show_norm_example(trace.norm_1, norms.norm_1, norms.eps, tokens, "x", "u", listed)

    if step_tabs["ffn"].open:
        with step_tabs["ffn"]:
            st.latex(feed_forward(T, d_model, d_ff))
            st.markdown(t("after_attention.ffn_text", d_model=d_model, d_ff=d_ff))
            effect = gelu_effect(trace)
            strip(
                trace.ffn_hidden,
                tokens,
                t("after_attention.hidden_title", layer=number, T=T, d_ff=d_ff),
                "z",
                "fig_ffn_hidden",
                f"ffn_hidden_layer{number}",
            )
            strip(
                trace.ffn_activation,
                tokens,
                t("after_attention.activation_title", T=T, d_ff=d_ff),
                "g",
                "fig_ffn_gelu",
                f"ffn_gelu_layer{number}",
            )
            st.markdown(
                t("after_attention.gelu_text", share=effect.negative_share, T=T, d_ff=d_ff, lowest=effect.lowest)
            )
            strip(
                trace.ffn_output,
                tokens,
                t("after_attention.ffn_title", layer=number, T=T, d_model=d_model),
                "f",
                "fig_ffn_output",
                f"ffn_output_layer{number}",
            )

    if step_tabs["norm_2"].open:
        with step_tabs["norm_2"]:
            st.latex(second_layer_norm(layer, T, d_model))
            st.markdown(
                t("after_attention.norm_2_text", layer=number, T=T, d_model=d_model)
                + " "
                + (t("after_attention.next_pooling") if last else t("after_attention.next_layer", next=number + 1))
            )
            strip(
                trace.norm_2.inputs,
                tokens,
                t("after_attention.sum_2_title", T=T, d_model=d_model),
                "y",
                "fig_sum_2",
                f"residual_2_layer{number}",
            )
            stats(
                trace.norm_2, tokens, t("after_attention.stats_2_title", d_model=d_model), "fig_stats_2", "norm_2_stats"
            )
            strip(
                trace.outputs,
                tokens,
                t("after_attention.norm_2_title", layer=number, T=T, d_model=d_model),
                "h",
                "fig_output",
                f"output_layer{number}",
            )
            show_norm_example(trace.norm_2, norms.norm_2, norms.eps, tokens, "y", hidden(layer + 1), listed)


def all_layers(encoded, config) -> None:
    """Every layer at a glance: how much each changes a token, the tokens' cosines after each,
    and each layer's attention averaged over its heads."""
    tokens = list(encoded.tokens)
    T, n_layers, n_heads = len(tokens), config.n_layers, config.n_heads
    st.subheader(t("after_attention.h_layers", n_layers=n_layers))
    st.markdown(t("after_attention.layers_text", n_layers=n_layers))
    view_tabs = url_tabs("layers_view", VIEWS, lambda v: t(f"after_attention.tab_{v}"))
    if view_tabs["change"].open:
        with view_tabs["change"]:
            change = layer_change(encoded)  # (L, T)
            st.markdown(t("after_attention.change_text"))
            show_figure(
                layer_change_map(change, tokens, title=t("after_attention.change_title"), tr=t),
                "fig_change",
                matrix=change,
                row_labels=[t("figures.grid_layer", layer=shown(n)) for n in range(n_layers)],
                col_labels=tokens,
                filename="layer_change",
            )
    if view_tabs["cosines"].open:
        with view_tabs["cosines"]:
            cosines = token_cosines(encoded)  # (L+1, T, T)
            means = mean_pair_cosine(cosines)  # (L+1,)
            falls = [shown(n) for n in range(n_layers) if means[n + 1] < means[n]]  # layers after which it fell
            st.markdown(
                t("after_attention.cosines_text", first=means[0], last=means[-1], n_layers=n_layers)
                + " "
                + (
                    t("after_attention.cosines_falls", layers=t("shell.list_sep").join(map(str, falls)))
                    if falls
                    else t("after_attention.cosines_rises")
                )
            )
            show_figure(
                layers_grid(
                    cosines,
                    tokens,
                    panel_titles=[
                        t("after_attention.cosines_panel", layer=superscript(n), mean=means[n])
                        for n in range(n_layers + 1)
                    ],
                    title=t("after_attention.cosines_title", n_layers=n_layers),
                    tr=t,
                    columns=4,
                ),
                "fig_cosines",
                matrix=cosines.reshape(-1, T),
                row_labels=[f"h({n}): {tok}" for n in range(n_layers + 1) for tok in tokens],
                col_labels=tokens,
                filename="token_cosines_per_layer",
                defer_csv=True,
            )
    if view_tabs["attention"].open:
        with view_tabs["attention"]:
            averaged = mean_attention(encoded)  # (L, T, T)
            st.markdown(t("after_attention.attention_text", n_heads=n_heads))
            show_figure(
                layers_grid(
                    averaged,
                    tokens,
                    panel_titles=[t("after_attention.attention_panel", layer=shown(n)) for n in range(n_layers)],
                    title=t("after_attention.attention_title"),
                    tr=t,
                    columns=3,
                    zmin=0.0,
                    zmax=1.0,
                ),
                "fig_mean_attention",
                matrix=averaged.reshape(-1, T),
                row_labels=[
                    f"{t('figures.grid_layer', layer=shown(n))}: {tok}" for n in range(n_layers) for tok in tokens
                ],
                col_labels=tokens,
                filename="mean_attention_per_layer",
                defer_csv=True,
            )
