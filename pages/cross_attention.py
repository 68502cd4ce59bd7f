"""Self vs cross attention: queries from one sentence, keys and values from another.

Sentence A is the sidebar's lesson; sentence B is built by the same pipeline
(attention_core.build_lesson with the same embedder and settings, hence the same
positional encoding and the same seeded W^Q/W^K/W^V), so the two can meet in
attention_core.cross_attention. With a trained head in the sidebar both keep the model's hidden
states, [CLS] and [SEP] included, and get seeded random W (attention_core.cross.with_projections).
"""

import streamlit as st

from attention_core import MAX_CHARS, MAX_TOKENS, build_lesson, cross_attention
from attention_core.cross import with_projections
from attention_core.projections import random_projections
from attention_ui.exports import panels_csv, show_figure
from attention_ui.formulas import cross_attention_shapes, cross_projections
from attention_ui.heatmaps import heatmap_row
from attention_ui.i18n import t
from attention_ui.lesson_notes import MAX_LISTED, honesty_banner
from attention_ui.model_access import get_embedder
from attention_ui.multihead_figures import attention_map, vectors_map
from attention_ui.notation import component_labels, shown
from attention_ui.route import page_start, run_app
from attention_ui.safe import escape_markdown, numbered_labels
from attention_ui.url_state import url_tabs

# Sentence B's default: the French translation of the sidebar's default sentence. (Comments, not
# docstrings: Streamlit's "magic" would print a bare string on the page.)
DEFAULT_B = "Le chat s'est assis sur le tapis car il était fatigué"
# One-click sentences B: the default sentence in French, in Chinese, and in other English words.
EXAMPLES = {"fr": DEFAULT_B, "zh": "猫坐在垫子上，因为它累了", "en": "A tired cat rested on the rug"}


def _use_example() -> None:
    choice = st.session_state.get("b_example")
    if choice in EXAMPLES:
        st.session_state["sentence_b"] = EXAMPLES[choice]
    st.session_state["b_example"] = None  # a pill is a button here, not a lasting choice


def _name(which: str) -> str:
    return t(f"cross_attention.name_{which}")


def render() -> None:
    lesson, source = page_start("cross_attention")
    st.markdown(t("cross_attention.intro"))

    if lesson is not None:
        st.markdown(t("cross_attention.sentence_a", text=escape_markdown(lesson.text)))
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    sentence_b = c1.text_input(
        t("cross_attention.sentence_b"),
        max_chars=MAX_CHARS,
        key="sentence_b",
        bind="query-params",
        value=DEFAULT_B,
        help=t("cross_attention.sentence_b_help", max_tokens=MAX_TOKENS),
    )
    c2.pills(
        t("cross_attention.examples"),
        list(EXAMPLES),
        format_func=lambda k: t(f"cross_attention.example_{k}"),
        key="b_example",
        on_change=_use_example,
    )
    swap = st.toggle(
        t("cross_attention.swap"), value=False, key="swap", bind="query-params", help=t("cross_attention.swap_help")
    )
    asks = "b" if swap else "a"

    if lesson is None:
        st.stop()
    embedder, _ = get_embedder(source)
    # A trained sidebar: the model is an encoder, with self-attention heads only, none that reads another
    # sentence. Both sentences keep what the head reads, the hidden states entering its layer, [CLS] and
    # [SEP] included (so a token has the number it has on every other page), with seeded random W.
    hidden = lesson.trained
    if hidden:
        st.info(t("cross_attention.no_trained_heads", layer=shown(lesson.settings.layer)))
    try:
        lesson_b = build_lesson(sentence_b or "", embedder, lesson.settings)
    except ValueError:
        st.info(t("cross_attention.no_sentence_b"))
        st.stop()
    if hidden:
        random_w = random_projections(lesson.inputs.shape[1], lesson.settings.d_k, seed=lesson.settings.seed)
        lesson, lesson_b = with_projections(lesson, random_w), with_projections(lesson_b, random_w)
    specials = 2 if hidden else 0  # [CLS] and [SEP] are no word pieces of sentence B

    honesty_banner(lesson)
    if lesson_b.truncated:
        st.info(
            t("cross_attention.b_truncated", total=lesson_b.n_tokens - specials, shown=len(lesson_b.tokens) - specials)
        )
    if lesson_b.unknown:
        words = t("shell.list_sep").join(escape_markdown(w) for w in lesson_b.unknown_words[:MAX_LISTED])
        st.warning(
            t(
                "cross_attention.b_unknown_hidden" if hidden else "cross_attention.b_unknown",
                unknown=len(lesson_b.unknown),
                total=len(lesson_b.tokens) - specials,
            )
            + (" " + t("shell.unknown_words", words=words) if words else "")
        )
    if lesson.projections.kind == "random":
        st.caption(t("cross_attention.not_trained"))

    asker, answerer = ("a", "b") if asks == "a" else ("b", "a")
    queries, memory = (lesson, lesson_b) if asks == "a" else (lesson_b, lesson)
    trace = cross_attention(queries.inputs, memory.inputs, lesson.projections, scale=lesson.trace.scale)
    t_q, t_k = trace.weights.shape
    d_k, d_v = trace.d_k, trace.v.shape[-1]
    d_model = lesson.inputs.shape[1]
    qa, kb = asker.upper(), answerer.upper()

    st.subheader(t("cross_attention.step1", asker=_name(asker), answerer=_name(answerer)))
    st.latex(cross_projections(qa, kb, t_q, t_k, d_k, d_v))
    st.latex(cross_attention_shapes(t_q, t_k, d_v, scaled=lesson.settings.scaled))
    caption = "inputs_caption_hidden" if hidden else "inputs_caption"
    st.caption(
        t(
            f"cross_attention.{caption}",
            d_model=d_model,
            seed=lesson.settings.seed,
            d_k=d_k,
            layer=shown(lesson.settings.layer),
        )
    )
    st.markdown(t("cross_attention.shapes", t_q=t_q, t_k=t_k, asker=_name(asker), answerer=_name(answerer)))

    y_title = t("cross_attention.query_axis", name=_name(asker))
    x_title = t("cross_attention.key_axis", name=_name(answerer))
    scale = f"{trace.scale:.3f}"
    panels = [
        (t("cross_attention.panel_scores"), trace.scores),
        (t("cross_attention.panel_weights"), trace.weights),
    ]
    csv_matrix, csv_columns = panels_csv(panels, numbered_labels(memory.tokens))  # one CSV of both panels
    show_figure(
        heatmap_row(
            panels,
            numbered_labels(queries.tokens),
            col_labels=numbered_labels(memory.tokens),
            scales=[None, (0.0, 1.0)],
            y_title=y_title,
            x_title=x_title,
            title=t(
                "cross_attention.maps_title",
                asker=_name(asker),
                answerer=_name(answerer),
                t_q=t_q,
                t_k=t_k,
                scale=scale,
            ),
            tr=t,
        ),
        "fig_cross",
        matrix=csv_matrix,
        row_labels=queries.tokens,
        col_labels=csv_columns,
        filename="cross_scores_and_weights",
        corner=t("matrices.csv_corner"),
    )

    c1, c2 = st.columns(2, vertical_alignment="center")
    with c1:
        show_figure(
            vectors_map(
                trace.outputs,
                queries.tokens,
                tr=t,
                y_title=t("cross_attention.token_axis", name=_name(asker)),
                title=t("cross_attention.outputs_title", t_q=t_q, d_v=d_v),
            ),
            "fig_cross_outputs",
            matrix=trace.outputs,
            row_labels=queries.tokens,
            col_labels=component_labels("b", d_v),
            filename="cross_outputs",
        )
    c2.markdown(t("cross_attention.outputs_text", asker=_name(asker), answerer=_name(answerer), t_q=t_q, d_v=d_v))

    st.subheader(t("cross_attention.step2"))
    st.markdown(t("cross_attention.self_text", t_q=t_q, t_k=t_k))
    tabs = url_tabs("self_of", ("a", "b"), _name)  # one sentence at a time: only the open tab is drawn
    for which, variant in (("a", lesson), ("b", lesson_b)):
        if not tabs[which].open:
            continue
        n = len(variant.tokens)
        with tabs[which]:
            show_figure(
                attention_map(
                    variant.trace.weights,
                    variant.tokens,
                    variant.tokens,
                    tr=t,
                    title=t("cross_attention.self_title", name=_name(which), t=n),
                    y_title=t("cross_attention.query_axis", name=_name(which)),
                    x_title=t("cross_attention.key_axis", name=_name(which)),
                    zmin=0.0,
                    zmax=1.0,
                ),
                f"fig_self_{which}",
            )


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
