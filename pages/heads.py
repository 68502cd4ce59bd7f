"""What do heads do? Every head of the model measured over our probe sentences, the contrast
test on the learner's own pair, and what an attention map does and does not show.

The numbers come from attention_core.heads (the census and the contrast test) and
attention_core.attribution (value-weighted norms, rollout); the words from head_claims and the
catalog. Three views (``?heads_view=``), of which only the chosen one is built."""

import streamlit as st

from attention_core.attribution import rollout, row_shares, share_on, value_norms
from attention_core.heads import MEASURES, TRAP, best_heads, contrast, measure_scores, quiet_keys, where_word_looks
from attention_core.lesson import TRAINED_HEAD
from attention_core.model import model_info
from attention_core.model_choice import is_bundled, model_label
from attention_core.probes import load_probes
from attention_ui.exports import show_figure
from attention_ui.figures import clicked_data, heatmap_row, key_bars, token_matrix
from attention_ui.head_claims import head_summary, measured_census
from attention_ui.heads_figures import census_grid
from attention_ui.i18n import t
from attention_ui.notation import shown
from attention_ui.registry import page_link
from attention_ui.safe import escape_markdown, numbered_labels
from attention_ui.shell import choose_head, lesson_encoding, link_params, model_name, model_unavailable, page_start
from attention_ui.tables import number_table
from attention_ui.url_state import url_choice, url_notes, url_picker, url_tabs

VIEWS = ("census", "contrast", "trust")
# The contrast test's default pair (our own): "it" is the dog in the first, the river in the second.
DEFAULT_PAIR = (
    "The dog did not cross the river because it was too tired.",
    "The dog did not cross the river because it was too wide.",
)
BEST_SHOWN = 5


def click_head(point) -> None:
    """A click on a cell of the census grid: that head becomes the one on the bench."""
    layer, head = clicked_data(point)
    choose_head(int(layer), int(head))


def head_links(layer: int, head: int) -> None:
    """Open this head on the lesson's pages (the session's other settings kept)."""
    params = link_params(w="trained", layer=layer, head=head)
    with st.container(horizontal=True):
        for page in ("step_by_step", "matrices", "real_model"):
            page_link(page, params, label=t(f"heads.open_{page}"), icon=":material/arrow_forward:")


lesson, _ = page_start("heads", needs_model=True)  # without the model: says why, links to the toy pages, stops
if lesson is None:
    st.stop()
try:
    with st.spinner(t("shell.loading_model")):
        info = model_info(model_name())
        found = measured_census(model_name())
        encoded = lesson_encoding(lesson)  # the learner's sentence, every head
except ValueError as exc:
    st.info(t("real_model.unreadable", reason=escape_markdown(str(exc))))
    st.stop()
if found is None:  # the census could not be read or measured: nothing to claim about a head
    model_unavailable("heads", "missing")

st.markdown(t("heads.intro", n_plain=found.n_plain, n_agreement=found.n_agreement, n_pairs=found.n_pairs))
if is_bundled(info.name):
    st.caption(t("heads.english_only"))
else:  # another model: its census was measured on this server, not read from the file
    st.caption(t("heads.english_probes", model=model_label(info.name)))

st.subheader(t("heads.h_bench"))
c_layer, c_head = st.columns([1, 2])
with c_layer:
    layer = url_picker(t("real_model.layer"), "layer", info.n_layers, default=TRAINED_HEAD[0], clamp=True)
with c_head:
    head = url_picker(t("real_model.head"), "head", info.n_heads, default=TRAINED_HEAD[1], clamp=True)
url_notes()
st.markdown(head_summary(found, layer, head))
head_links(layer, head)

view = url_tabs("heads_view", VIEWS, lambda v: t(f"heads.view_{v}"), VIEWS[0])

if view["census"].open:
    with view["census"]:
        st.markdown(t("heads.census_text", n_layers=info.n_layers, n_heads=info.n_heads))
        measure = url_choice(t("heads.measure"), "measure", MEASURES, "agreement", lambda m: t(f"heads.role_{m}"))
        scores = measure_scores(found, measure)  # (L, H)
        st.markdown(
            t(f"heads.means_{measure}", n_plain=found.n_plain, n_agreement=found.n_agreement, n_pairs=found.n_pairs)
        )
        show_figure(
            census_grid(scores, title=t("heads.grid_title", measure=t(f"heads.role_{measure}")), tr=t),
            "fig_census",
            matrix=scores,
            row_labels=[t("figures.grid_layer", layer=shown(n)) for n in range(info.n_layers)],
            col_labels=[t("figures.grid_head", head=shown(n)) for n in range(info.n_heads)],
            filename=f"heads_{measure}",
            on_click=click_head,
        )
        st.caption(t("heads.grid_caption"))
        best = best_heads(scores, BEST_SHOWN)
        st.markdown(f"**{t('heads.best', measure=t(f'heads.role_{measure}'))}**")
        number_table(
            {
                t("heads.col_head"): [t("heads.head_name", layer=shown(lay), head=shown(hd)) for lay, hd, _ in best],
                t("heads.col_score"): [100 * score for _, _, score in best],
            },
            index=[str(shown(n)) for n in range(len(best))],
            number="{:.0f}",
        )

if view["contrast"].open:
    with view["contrast"]:
        st.markdown(t("heads.contrast_text"))
        trap_text, trap_word, trap_layer, trap_head = TRAP
        trap_key, trap_weight = where_word_looks(*TRAP, name=model_name())
        st.markdown(
            t(
                "heads.trap",
                sentence=trap_text,
                layer=shown(trap_layer),
                head=shown(trap_head),
                noun=trap_key,
                weight=trap_weight,
                n_pairs=found.n_pairs,
                resolved=int(found.pairs_resolved[trap_layer, trap_head]),
                same=int(found.pairs_same[trap_layer, trap_head]),
            )
        )
        if (layer, head) != (trap_layer, trap_head):
            st.button(
                t("heads.trap_button", layer=shown(trap_layer), head=shown(trap_head)),
                key="trap_head",
                on_click=choose_head,
                args=(trap_layer, trap_head),
            )
        c_a, c_b = st.columns(2)
        with c_a:
            text_a = st.text_input(
                t("heads.sentence_a"), DEFAULT_PAIR[0], max_chars=300, key="pair_a", bind="query-params"
            )
        with c_b:
            text_b = st.text_input(
                t("heads.sentence_b"), DEFAULT_PAIR[1], max_chars=300, key="pair_b", bind="query-params"
            )
        word = st.text_input(t("heads.word"), "it", max_chars=40, key="pair_word", bind="query-params")
        try:
            c = contrast(text_a, text_b, word, name=model_name())
        except ValueError as exc:
            st.info(t("heads.contrast_unreadable", reason=escape_markdown(str(exc))))
        else:
            key_a, key_b = int(c.key_a[layer, head]), int(c.key_b[layer, head])
            verdict = "heads.changed" if c.changed[layer, head] else "heads.unchanged"
            st.markdown(
                t(
                    verdict,
                    word=escape_markdown(word),
                    layer=shown(layer),
                    head=shown(head),
                    key_a=escape_markdown(c.tokens_a[key_a]),
                    key_b=escape_markdown(c.tokens_b[key_b]),
                    weight_a=float(c.weight_a[layer, head]),
                    weight_b=float(c.weight_b[layer, head]),
                )
            )
            left, right = st.columns(2)
            for box, tokens, weights, i, key, name, fig_key in (
                (left, c.tokens_a, c.weights_a, c.i_a, key_a, "A", "fig_pair_a"),
                (right, c.tokens_b, c.weights_b, c.i_b, key_b, "B", "fig_pair_b"),
            ):
                with box:
                    show_figure(
                        key_bars(
                            weights[layer, head, i],
                            tokens,
                            highlight=key,
                            tr=t,
                            title=t(
                                "heads.pair_row_title", sentence=name, i=shown(i), layer=shown(layer), head=shown(head)
                            ),
                        ),
                        fig_key,
                    )
            st.markdown(t("heads.n_changed", changed=c.n_changed, total=c.changed.size))
            show_figure(
                census_grid(c.changed.astype(float), title=t("heads.changed_title"), tr=t),
                "fig_changed",
                on_click=click_head,
            )
            st.caption(t("heads.changed_caption"))
        st.markdown(
            t(
                "heads.pairs_result",
                n_pairs=found.n_pairs,
                best=int(found.pairs_resolved.max()),
                coin=found.n_pairs / 4,
                resolved=int(found.pairs_resolved[layer, head]),
                same=int(found.pairs_same[layer, head]),
                layer=shown(layer),
                head=shown(head),
            )
        )
        probes_box = st.expander(t("heads.pairs_expander", n=found.n_pairs), key="heads_pairs_open", on_change="rerun")
        if probes_box.open:
            with probes_box:
                picks = found.pair_picks[:, :, layer, head]  # (P, 2): 0 = referent_a, 1 = referent_b
                pairs = load_probes().pairs
                nouns = [(p.referent_a, p.referent_b) for p in pairs]
                number_table(
                    {
                        t("heads.col_sentence"): [p.a for p in pairs],
                        t("heads.col_switch"): [" → ".join(p.switch) for p in pairs],
                        t("heads.col_intended"): [f"{a} / {b}" for a, b in nouns],
                        t("heads.col_chosen"): [f"{n[pk[0]]} / {n[pk[1]]}" for n, pk in zip(nouns, picks)],
                        t("heads.col_resolved"): [
                            t("heads.yes") if (pk[0], pk[1]) == (0, 1) else t("heads.no") for pk in picks
                        ],
                    },
                    index=[str(shown(n)) for n in range(len(pairs))],
                    height=420,
                )

if view["trust"].open:
    with view["trust"]:
        tokens = list(encoded.tokens)
        weights = encoded.weights[layer, head]  # (T, T)
        norms = row_shares(value_norms(encoded, layer, head))  # (T, T), rows sum to 1
        st.markdown(t("heads.trust_text"))
        show_figure(
            heatmap_row(
                [(t("heads.panel_weights"), weights), (t("heads.panel_norms"), norms)],
                numbered_labels(tokens),
                col_labels=numbered_labels(tokens),
                title=t("heads.trust_title", layer=shown(layer), head=shown(head)),
                tr=t,
                y_title=t("figures.query_axis"),
                scale=(0.0, 1.0),
            ),
            "fig_trust",
        )
        quiet = quiet_keys(tokens)
        if quiet:
            st.markdown(
                t(
                    "heads.trust_columns",
                    tokens=t("heads.list_sep").join(escape_markdown(tokens[j]) for j in quiet),
                    weights=share_on(weights, quiet),
                    norms=share_on(norms, quiet),
                )
            )
        st.markdown(t("heads.rollout_text"))
        rolled = rollout(encoded.weights)  # (L, T, T)
        show_figure(
            token_matrix(
                rolled[-1],
                tokens,
                tokens,
                title=t("heads.rollout_title", n_layers=info.n_layers),
                zmin=0.0,
                zmax=1.0,
                tr=t,
            ),
            "fig_rollout",
            matrix=rolled[-1],
            row_labels=tokens,
            col_labels=tokens,
            corner=t("matrices.csv_corner"),
            filename="rollout",
        )
        st.markdown(t("heads.trust_reading"))
