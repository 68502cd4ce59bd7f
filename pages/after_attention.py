"""After attention: the rest of one encoder layer in the model's own numbers (W^O, residual
connections, LayerNorm, the feed-forward network), all six layers at a glance, and the sentence
vector (mean pooling, normalisation, cosine similarity).

Every number comes from attention_core (``encoder.encode`` and ``after_attention``); the page
reads state, calls the core and the figure builders, and lays out. The two sets of views
(``url_state.url_tabs``, as on the matrices page) run only the chosen view: only its figures are
built and sent. Their choice, sentence B and the table are kept in the URL. The views are drawn
by attention_ui.after_views; this page reads the model's encoding and lays them out.
"""

import streamlit as st

from attention_core.after_attention import sentence_vector
from attention_core.encoder import load_encoder
from attention_core.lesson import unknown_words
from attention_core.model import ModelEmbedder
from attention_ui.after_views import (
    VECTOR_VIEWS,
    all_layers,
    layer_steps,
    show_comparison,
    show_pooling,
    show_table,
    vector_notes,
)
from attention_ui.formulas import layer_equations
from attention_ui.i18n import t
from attention_ui.lesson_notes import listed_tokens, unknown_tokens_help
from attention_ui.model_access import lesson_encoding, model_label_now, model_name
from attention_ui.notation import shown
from attention_ui.problems import problem_text
from attention_ui.route import page_start, run_app
from attention_ui.settings import DEFAULTS
from attention_ui.sidebar import pickers_in_sidebar
from attention_ui.url_state import url_notes, url_picker, url_tabs

PAGE = "after_attention"


def render() -> None:
    # ---------------------------------------------------------------- the model on the sidebar's sentence
    lesson, _ = page_start(PAGE)  # without the model: says why, links to the toy pages, stops
    if lesson is None:
        st.stop()
    try:
        with st.spinner(t("shell.loading_model")):
            config = load_encoder(model_name()).config
            encoded = lesson_encoding(lesson)  # sections ① and ②: at most 24 pieces
            vector_a = sentence_vector(lesson.text, name=model_name())  # section ③: every piece the model reads
    except ValueError as exc:
        st.info(t("after_attention.unreadable", reason=problem_text(exc)))
        st.stop()

    tokens = list(encoded.tokens)
    T, d_model, d_ff = len(tokens), config.d_model, config.d_ff
    n_layers, n_heads, limit = config.n_layers, config.n_heads, config.max_tokens - 2
    st.markdown(t("after_attention.intro", n_heads=n_heads, d_model=d_model, d_ff=d_ff, n_layers=n_layers))
    st.caption(t("after_attention.honest", model=model_label_now()))
    if encoded.truncated and lesson.truncated and lesson.trained:  # the shell has just said how many are shown
        st.caption(t("after_attention.cut_vector", limit=limit))
    elif encoded.truncated:
        st.info(t("after_attention.cut", total=encoded.n_pieces, shown=T - 2, limit=limit))
    if encoded.unknown:
        words = unknown_words(lesson.text, ModelEmbedder(model_name()))
        unknown_tokens_help(lesson.text, words, len(encoded.unknown), T - 2, offer_toy=False)

    # ---------------------------------------------------------------- ① one layer
    if pickers_in_sidebar(st.session_state.get("w"), PAGE):
        layer = lesson.settings.layer  # the sidebar's picker
        st.subheader(t("after_attention.h_layer", layer=shown(layer)))
    else:  # random or identity W: the sidebar shows no layer picker, so the page does
        heading = st.empty()
        layer = url_picker(t("shell.layer"), "layer", n_layers, key="after_layer_picker", default=DEFAULTS["layer"])
        heading.subheader(t("after_attention.h_layer", layer=shown(layer)))
    url_notes()
    # ``layer`` is the 0-based index; the page shows layer ``number`` (from 1), which reads h^(layer),
    # the output of the layers before it (h^(0): the embeddings), and writes h^(number).
    number = shown(layer)
    last = layer == n_layers - 1
    source = t("after_attention.source_embeddings") if layer == 0 else t("after_attention.source_layer", layer=layer)
    target = t("after_attention.target_pooling") if last else t("after_attention.target_layer", layer=number + 1)
    st.markdown(
        t(
            "after_attention.layer_text",
            layer=number,
            state=layer,
            source=source,
            target=target,
            T=T,
            d_model=d_model,
            d_ff=d_ff,
        )
    )
    st.caption(t("after_attention.chain"))
    st.latex(layer_equations(layer, n_heads, T, d_model))
    st.caption(t("after_attention.tabs_help"))
    layer_steps(encoded, config, layer, listed_tokens(lesson, encoded))  # "[UNK] 他" in the pickers

    # ---------------------------------------------------------------- ② all layers
    all_layers(encoded, config)

    # ---------------------------------------------------------------- ③ the sentence vector
    st.subheader(t("after_attention.h_vector"))
    T_a = len(vector_a.tokens)
    st.markdown(t("after_attention.vector_text", T=T_a))
    vector_notes(t("after_attention.name_a"), vector_a)
    vector_views = url_tabs("vector_view", VECTOR_VIEWS, lambda v: t(f"after_attention.tab_{v}"))
    if vector_views["pooling"].open:
        with vector_views["pooling"]:
            show_pooling(vector_a, n_layers, d_model)
    if vector_views["compare"].open:
        with vector_views["compare"]:
            show_comparison(vector_a, d_model, limit)
    if vector_views["table"].open:
        with vector_views["table"]:
            show_table(d_model, limit)


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
