"""The three views of "What do heads do?" (``?heads_view=``): the census of every head over
the probe sentences, the contrast tests (the pronoun swap, the learner's own pair, what the
held-out pairs show) and what an attention map does and does not show.

Every number comes from ``attention_core.heads`` (the census, ``Census``), ``contrast`` (the pair
test) and ``attribution`` (value-weighted norms, rollout); the words about a head from
``head_claims`` and the catalog. The page reads the census and the lesson's encoding once and
hands each view what it draws. Example: ``census_view(found, info, sets, parking)``.
"""

from __future__ import annotations

import zlib

import streamlit as st

from attention_core.attribution import rollout, row_shares, share_on, value_norms
from attention_core.contrast import CHANGES, SMALL, one_word_apart, pair_test, proposed_nouns, sentence_words
from attention_core.heads import (
    CHANCE,
    COUNTED,
    MEASURES,
    REVERSIBLE,
    TRAP,
    agreement_misses,
    best_of_72,
    choose,
    estimate,
    measure_counts,
    measure_scores,
    quiet_keys,
    where_word_looks,
)
from attention_core.lesson import TRAINED_HEAD
from attention_core.probes import HELD_OUT_FILE, load_probes, swap_pronoun
from attention_ui.exports import show_figure
from attention_ui.figures import clicked_data
from attention_ui.head_claims import count_fields, interval
from attention_ui.heads_figures import census_grid, outcome_grid, word_bars
from attention_ui.heatmaps import heatmap_row, token_matrix
from attention_ui.i18n import t
from attention_ui.model_access import model_name
from attention_ui.notation import shown
from attention_ui.presentation import screen_only
from attention_ui.problems import problem_text
from attention_ui.registry import page_link
from attention_ui.safe import escape_markdown, numbered_labels
from attention_ui.settings import link_params
from attention_ui.sidebar import choose_head
from attention_ui.style import SIDE_BY_SIDE_KEY
from attention_ui.tables import number_table
from attention_ui.url_state import url_choice, url_notes, url_picker

# The contrast test's default pair (our own): "it" is the dog in the first, the river in the second.
DEFAULT_PAIR = (
    "The dog did not cross the river because it was too tired.",
    "The dog did not cross the river because it was too wide.",
)
BEST_SHOWN = 5
WEAK_SHOWN = 3  # heads of the weak signal reported on the held-out pairs


def pick_head(n_layers: int, n_heads: int) -> tuple[int, int]:
    """The layer and head pickers of a page that draws its own, beside its grid of heads
    (``registry.Page.head_pickers``: Real model heads, What do heads do?), kept in the URL as
    ``?layer=`` and ``?head=`` and clamped there; then the notes on URL values out of range.
    Returns (layer, head), from 0; the trained head (``TRAINED_HEAD``) by default."""
    with screen_only("head_pickers"):  # a row of controls: on paper, not even its gap
        c_layer, c_head = st.columns([1, 2])
        with c_layer:
            layer = url_picker(t("real_model.layer"), "layer", n_layers, default=TRAINED_HEAD[0], clamp=True)
        with c_head:
            head = url_picker(t("real_model.head"), "head", n_heads, default=TRAINED_HEAD[1], clamp=True)
    url_notes()
    return layer, head


def click_head(point) -> None:
    """A click on a cell of a grid of heads (its customdata: layer, head): that head becomes the
    chosen one, on this page and the next."""
    layer, head = clicked_data(point)
    choose_head(int(layer), int(head))


def head_links(layer: int, head: int) -> None:
    """Open this head on the lesson's pages (the session's other settings kept)."""
    params = link_params(w="trained", layer=layer, head=head)
    with screen_only("head_links"), st.container(horizontal=True):  # links: nothing to follow on paper
        for page in ("step_by_step", "matrices", "real_model"):
            page_link(page, params, label=t(f"heads.open_{page}"), icon=":material/arrow_forward:")


def name(layer: int, head: int, start: bool = False) -> str:
    """ "layer 2, head 4" (``start``: "Layer 2, head 4"), positions from 1."""
    return t("heads.head_name_start" if start else "heads.head_name", layer=shown(layer), head=shown(head))


def try_pair(text_a: str, text_b: str, word: str) -> None:
    """A button's callback: put a pair in the contrast test's boxes (the nouns go back to the proposals)."""
    state = st.session_state
    state["pair_a"], state["pair_b"], state["pair_word"] = text_a, text_b, word


def word_box(label, options, *, format_func, key, default, **kwargs):
    """A select box that starts on ``default`` (``url_choice`` hands its widget a default)."""
    return st.selectbox(label, options, index=options.index(default), format_func=format_func, key=key, **kwargs)


def marked(text: str, k: int | None) -> str:
    """``text`` for Markdown, its whitespace-separated word ``k`` marked (None: nothing marked)."""
    words = [escape_markdown(w) for w in text.split()]
    if k is not None:
        words[k] = f":orange-background[**{words[k]}**]"
    return " ".join(words)


# ---------------------------------------------------------------- the census


def census_view(found, info, sets: dict, parking: dict) -> None:
    """Every head scored on one measure (a grid a click picks a head on), the best heads chosen on
    one probe set and reported on the held-out one, and what chance would give."""
    st.markdown(t("heads.census_text", n_layers=info.n_layers, n_heads=info.n_heads))
    measure = url_choice(t("heads.measure"), "measure", MEASURES, "agreement", lambda m: t(f"heads.role_{m}"))
    scores = measure_scores(found, measure)  # (L, H), on the set heads are chosen on
    st.markdown(t(f"heads.means_{measure}", **(parking | sets)))
    show_figure(
        census_grid(
            scores,
            title=t("heads.grid_title", measure=t(f"heads.role_{measure}")),
            chance=CHANCE[measure] if measure in REVERSIBLE else None,
            tr=t,
        ),
        "fig_census",
        matrix=scores,
        row_labels=[t("figures.grid_layer", layer=shown(n)) for n in range(info.n_layers)],
        col_labels=[t("figures.grid_head", head=shown(n)) for n in range(info.n_heads)],
        filename=f"heads_{measure}",
        on_click=click_head,
    )
    caption = t("heads.grid_caption")
    st.caption(caption + (" " + t("heads.grid_caption_chance") if measure in REVERSIBLE else ""))
    st.markdown(t("heads.census_sets", **sets))
    tables = [("heads.best", choose(found, measure, BEST_SHOWN))]
    if measure in REVERSIBLE:  # the far end: heads chosen for doing the job backwards
        tables.append(("heads.reversed", choose(found, measure, BEST_SHOWN, lowest=True)))
    with st.container(key=SIDE_BY_SIDE_KEY):  # one under the other on screen, side by side on paper
        for title, chosen in tables:
            with st.container():
                st.markdown(f"**{t(title, measure=t(f'heads.role_{measure}'))}**")
                number_table(
                    {
                        t("heads.col_head"): [name(c.layer, c.head) for c in chosen],
                        t("heads.col_chosen_on"): [100 * c.chosen_on for c in chosen],
                        t("heads.col_held_out"): [100 * c.held_out.value for c in chosen],
                        t("heads.col_interval"): [interval(c.held_out) for c in chosen],
                    },
                    index=[str(shown(n)) for n in range(len(chosen))],
                    number="{:.0f}" if measure in COUNTED else "{:.1f}",
                )
    if measure in COUNTED:
        counts, n = measure_counts(found, measure)
        coins = best_of_72(found, measure)
        st.caption(
            t(
                "heads.coins",
                best=int(counts.max()),
                n=n,
                chance=CHANCE[measure],
                typical=coins.typical,
                top=coins.top,
            )
        )


# ---------------------------------------------------------------- the contrast tests


def contrast_view(lesson, found, layer: int, head: int) -> None:
    """The pronoun swap, the misses, the trap, the learner's own pair and the held-out pairs."""
    held = found.held_out
    swap_section(lesson, held, layer, head)
    misses_section(held, layer, head)
    st.divider()
    trap_section(held, layer, head)
    pair_section(layer, head)
    pairs_summary(found, layer, head)


def swap_section(lesson, held, layer: int, head: int) -> None:
    """The pronoun swap: how often the head follows it on the held-out sentences, and on the
    learner's sentence with its pronoun swapped."""
    st.markdown(t("heads.contrast_text"))
    st.subheader(t("heads.swap_header"))
    swap = estimate(held, "swap", layer, head)
    st.markdown(t("heads.swap_measured", head=name(layer, head), **count_fields(swap)))
    yours = swap_pronoun(lesson.text)
    if yours is None:
        st.info(t("heads.swap_none", example=load_probes().agreement[0].text))  # one of our probe sentences
    else:
        try:
            s = pair_test(lesson.text, yours.text, yours.old, name=model_name())
        except ValueError as exc:
            st.info(t("heads.swap_unreadable", reason=problem_text(exc)))
        else:
            top_a, top_b = int(s.top_a[layer, head]), int(s.top_b[layer, head])
            moved = CHANGES[s.change[layer, head]] != "same"
            st.markdown(
                t(
                    "heads.swap_yours",
                    old=escape_markdown(yours.old),
                    new=escape_markdown(yours.new),
                    swapped=escape_markdown(yours.text),
                    top_a=escape_markdown(s.words_a[top_a]),
                    top_b=escape_markdown(s.words_b[top_b]),
                    weight_a=float(s.rows_a[layer, head, top_a]),
                    weight_b=float(s.rows_b[layer, head, top_b]),
                    head=name(layer, head),
                    verdict=t("heads.swap_moved" if moved else "heads.swap_kept"),
                )
            )
            st.button(
                t("heads.swap_button"),
                key="swap_pair",
                on_click=try_pair,
                args=(lesson.text, yours.text, yours.old),
                icon=":material/arrow_downward:",
            )


def misses_section(held, layer: int, head: int) -> None:
    """The held-out agreement sentences the head gets wrong, in an expander built when opened."""
    misses_box = st.expander(
        t("heads.misses_expander", head=name(layer, head)), key="heads_misses_open", on_change="rerun"
    )
    if misses_box.open:
        with misses_box:
            misses = agreement_misses(held, layer, head)
            if not misses:
                st.markdown(t("heads.misses_none"))
            else:
                sentences = load_probes(HELD_OUT_FILE).agreement
                wrong = {(True, False): "as_written", (False, True): "swapped", (True, True): "both"}
                number_table(
                    {
                        t("heads.col_text"): [sentences[m.index].text for m in misses],
                        t("heads.col_wrong"): [t(f"heads.wrong_{wrong[m.as_written, m.swapped]}") for m in misses],
                        t("heads.col_on_referent"): [m.on_referent for m in misses],
                        t("heads.col_on_other"): [m.on_other for m in misses],
                    },
                    number="{:.3f}",
                )


def trap_section(held, layer: int, head: int) -> None:
    """A head that looks like it resolves "it" in one sentence, and what the pairs say of it."""
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
            n_pairs=held.n_pairs,
            resolved=int(held.pairs_resolved[trap_layer, trap_head]),
            same=int(held.pairs_same[trap_layer, trap_head]),
        )
    )
    if (layer, head) != (trap_layer, trap_head):
        st.button(
            t("heads.trap_button", layer=shown(trap_layer), head=shown(trap_head)),
            key="trap_head",
            on_click=choose_head,
            args=(trap_layer, trap_head),
        )


def pair_boxes() -> tuple[str, str, str, tuple[str, str] | None]:
    """The learner's pair, the word to follow and the two nouns (proposed anew for a new pair):
    (sentence A, sentence B, word, (noun A, noun B) or None when the pair cannot be read)."""
    st.subheader(t("heads.pair_header"))
    st.markdown(t("heads.pair_text"))
    c_a, c_b = st.columns(2)
    with c_a:
        text_a = st.text_area(
            t("heads.sentence_a"), DEFAULT_PAIR[0], max_chars=300, key="pair_a", bind="query-params", height=68
        )
    with c_b:
        text_b = st.text_area(
            t("heads.sentence_b"), DEFAULT_PAIR[1], max_chars=300, key="pair_b", bind="query-params", height=68
        )
    text_a, text_b = text_a or "", text_b or ""
    try:
        differs = one_word_apart(text_a, text_b)
    except ValueError:
        differs = None
    st.markdown(t("heads.pair_shown", a=marked(text_a, differs), b=marked(text_b, differs)))
    c_word, c_noun_a, c_noun_b = st.columns(3)
    with c_word:
        word = st.text_input(t("heads.word"), "it", max_chars=40, key="pair_word", bind="query-params")
    nouns = None
    try:
        choices = []
        for text in (text_a, text_b):
            _, words = sentence_words(text, name=model_name())
            options = list(dict.fromkeys(w.text.lower() for w in words if not w.is_punctuation))
            options = [o for o in options if o != (word or "").strip().lower()] or options
            proposed = [words[k].text.lower() for k in proposed_nouns(words)]
            choices.append((options, [p for p in proposed if p in options] or options))
    except ValueError:
        choices = None
    if choices is not None:
        (options_a, proposed_a), (options_b, proposed_b) = choices
        digest = zlib.crc32(f"{text_a}\n{text_b}\n{word}".encode())  # a new pair starts from its own proposals
        with c_noun_a:
            noun_a = url_choice(
                t("heads.noun_a"),
                "noun_a",
                options_a,
                proposed_a[0],
                str,
                widget=word_box,
                key=f"noun_a_{digest}",
                help=t("heads.nouns_help"),
            )
        with c_noun_b:
            noun_b = url_choice(
                t("heads.noun_b"),
                "noun_b",
                options_b,
                proposed_b[min(1, len(proposed_b) - 1)],
                str,
                widget=word_box,
                key=f"noun_b_{digest}",
                help=t("heads.nouns_help"),
            )
        nouns = (noun_a, noun_b)
    return text_a, text_b, word, nouns


def pair_section(layer: int, head: int) -> None:
    """The contrast test on the learner's pair: where the word looks in each sentence, for the
    chosen head and, as a grid, for every head."""
    text_a, text_b, word, nouns = pair_boxes()
    try:
        c = pair_test(text_a, text_b, word or "", nouns, name=model_name())
    except ValueError as exc:
        st.info(t("heads.contrast_unreadable", reason=problem_text(exc)))
        return
    if c.nouns_a is None or c.nouns_b is None or c.right_a is None or c.right_b is None:
        return  # without two nouns there is nothing to weigh (the boxes could not read the pair)
    (meant_a, other_a), (meant_b, other_b) = c.nouns_a, c.nouns_b
    row_a, row_b = c.rows_a[layer, head], c.rows_b[layer, head]  # (W_a,), (W_b,)
    right_a, right_b = bool(c.right_a[layer, head]), bool(c.right_b[layer, head])
    if right_a and right_b:
        result = t("heads.result_resolves")
    elif right_a or right_b:
        prefers = c.words_a[meant_a] if right_a else c.words_a[other_a]
        result = t("heads.result_one_a" if right_a else "heads.result_one_b", noun=escape_markdown(prefers))
    else:
        result = t("heads.result_reversed")
    follow = escape_markdown(c.words_a[c.i_a])
    st.markdown(
        t(
            "heads.verdict",
            head_start=name(layer, head, start=True),
            word=follow,
            meant_a=float(row_a[meant_a]),
            other_a=float(row_a[other_a]),
            noun_a=escape_markdown(c.words_a[meant_a]),
            other_noun_a=escape_markdown(c.words_a[other_a]),
            meant_b=float(row_b[meant_b]),
            other_b=float(row_b[other_b]),
            noun_b=escape_markdown(c.words_b[meant_b]),
            other_noun_b=escape_markdown(c.words_b[other_b]),
            result=result,
        )
    )
    top_a, top_b = int(c.top_a[layer, head]), int(c.top_b[layer, head])
    st.markdown(
        t(
            "heads.top_line",
            word=follow,
            top_a=escape_markdown(c.words_a[top_a]),
            top_b=escape_markdown(c.words_b[top_b]),
            weight_a=float(row_a[top_a]),
            weight_b=float(row_b[top_b]),
            change=t(f"heads.change_{CHANGES[c.change[layer, head]]}", points=100 * SMALL, word=follow),
        )
    )
    left, right = st.columns(2)
    for box, words, row, top, sentence, fig_key in (
        (left, c.words_a, row_a, top_a, "A", "fig_pair_a"),
        (right, c.words_b, row_b, top_b, "B", "fig_pair_b"),
    ):
        with box:
            show_figure(
                word_bars(
                    row,
                    words,
                    highlight=top,
                    tr=t,
                    title=t("heads.bars_title", sentence=sentence, word=follow, head=name(layer, head)),
                ),
                fig_key,
            )
    st.markdown(
        t(
            "heads.outcome_summary",
            resolves=c.count("resolves"),
            one=c.count("one"),
            reversed=c.count("reversed"),
            total=c.outcome.size,
            moved=c.n_moved,
            points=100 * SMALL,
            **{kind: c.changed(kind) for kind in CHANGES[1:]},
        )
    )
    show_figure(
        outcome_grid(c.n_right, title=t("heads.outcome_title"), tr=t),
        "fig_outcome",
        on_click=click_head,
    )
    st.caption(t("heads.outcome_caption"))


def pairs_summary(found, layer: int, head: int) -> None:
    """What the held-out pairs show: the best head at resolving them, the weak signal, the pairs."""
    held = found.held_out
    best_pairs = choose(found, "pairs", 1)[0]
    st.markdown(
        t(
            "heads.pairs_result",
            **count_fields(best_pairs.held_out),
            best_head=name(best_pairs.layer, best_pairs.head),
            best_chosen=int(found.pairs_resolved[best_pairs.layer, best_pairs.head]),
            n_chosen=found.n_pairs,
            coin=CHANCE["pairs"] * held.n_pairs,
            coins=best_of_72(found, "pairs").typical,
            head_start=name(layer, head, start=True),
            resolved=int(held.pairs_resolved[layer, head]),
            same=int(held.pairs_same[layer, head]),
        )
    )
    weak = choose(found, "shift", WEAK_SHOWN)
    coins = best_of_72(found, "shift")
    items = [
        t(
            "heads.weak_item",
            head=name(w.layer, w.head),
            **count_fields(w.held_out),
            changed=held.n_pairs - int(held.pairs_same[w.layer, w.head]),
        )
        for w in weak
    ]
    st.markdown(
        t(
            "heads.weak_signal",
            best_head=name(weak[0].layer, weak[0].head),
            best_chosen=int(found.pairs_shifted[weak[0].layer, weak[0].head]),
            n_chosen=found.n_pairs,
            typical=coins.typical,
            top=coins.top,
            n=held.n_pairs,
            heads=t("heads.list_sep").join(items),
        )
    )
    probes_box = st.expander(t("heads.pairs_expander", n=held.n_pairs), key="heads_pairs_open", on_change="rerun")
    if probes_box.open:
        with probes_box:
            picks = held.pair_picks[:, :, layer, head]  # (P, 2): 0 = referent_a, 1 = referent_b
            pairs = load_probes(HELD_OUT_FILE).pairs
            nouns_of = [(p.referent_a, p.referent_b) for p in pairs]
            number_table(
                {
                    t("heads.col_sentence"): [p.a for p in pairs],
                    t("heads.col_switch"): [" → ".join(p.switch) for p in pairs],
                    t("heads.col_intended"): [f"{a} / {b}" for a, b in nouns_of],
                    t("heads.col_chosen"): [f"{n[pk[0]]} / {n[pk[1]]}" for n, pk in zip(nouns_of, picks)],
                    t("heads.col_resolved"): [
                        t("heads.yes") if (pk[0], pk[1]) == (0, 1) else t("heads.no") for pk in picks
                    ],
                },
                index=[str(shown(n)) for n in range(len(pairs))],
                height=420,
            )


# ---------------------------------------------------------------- what a map shows


def trust_view(encoded, info, parking: dict, layer: int, head: int) -> None:
    """The chosen head's weights beside its value-weighted norms, and the rollout over every layer."""
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
    if quiet and len(tokens) > 2:
        on_weights, on_norms = share_on(weights[1:-1], quiet), share_on(norms[1:-1], quiet)  # word-piece rows
        st.markdown(
            t(
                "heads.trust_columns" if on_norms < on_weights else "heads.trust_columns_more",
                tokens=t("heads.list_sep").join(escape_markdown(tokens[j]) for j in quiet),
                weights=on_weights,
                norms=on_norms,
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
    st.markdown(t("heads.trust_reading", **parking))
