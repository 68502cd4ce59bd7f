"""AppTest for "What do heads do?": it renders in both languages, and every number it shows is
the core's (attention_core.heads, attention_core.attribution), for the head and the sentences
a link names. The core's numbers are held to transformers in tests/test_heads.py."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from attention_core.attribution import rollout, row_shares, share_on, value_norms
from attention_core.contrast import CHANGES, SMALL, pair_test
from attention_core.encoder import encode
from attention_core.heads import TRAP, census, choose, estimate, measure_scores, quiet_keys
from attention_core.lesson import TRAINED_HEAD
from attention_core.probes import swap_pronoun
from attention_ui.head_claims import count_fields, head_summary, interval
from attention_ui.i18n import LANGS, translate
from attention_ui.registry import PAGES
from tests.helpers import ROOT, figures_by_key, open_link, page_texts, plotly_array, tables, z_of

PAGE = "pages/heads.py"
SENTENCE = "The boy thanked the girl because she had helped him"


def test_page_is_registered():
    assert "heads" in [entry.id for entry in PAGES]
    assert (ROOT / PAGE).is_file()


def open_heads(lang="en", **params):
    return open_link(PAGE, lang=lang, toy=False, sentence=SENTENCE, **params)


def figure(at, key: str) -> dict:
    found = {k: v for k, v in figures_by_key(at).items() if k.startswith(key)}
    assert found, f"no figure {key} among {list(figures_by_key(at))}"
    return next(iter(found.values()))


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_census_view_shows_every_head_measured(lang):
    at = open_heads(lang)
    found = census()
    texts = page_texts(at)
    assert translate(lang, "heads.title") in texts
    tr = partial(translate, lang)
    assert head_summary(found, *TRAINED_HEAD, tr=tr) in texts  # the default head, with its numbers
    grid = figure(at, "fig_census")
    np.testing.assert_allclose(z_of(grid), 100 * measure_scores(found, "agreement"), atol=1e-9)  # in percent
    targets = grid["data"][1]  # one click target per head, carrying (layer, head)
    assert np.asarray(plotly_array(targets["customdata"])).reshape(-1, 2).tolist()[13] == [1, 1]
    best, reversed_ = tables(at)[:2]  # the best heads and the most reversed, chosen on the first set
    for table, lowest in ((best, False), (reversed_, True)):
        expected = choose(found, "agreement", 5, lowest=lowest)
        assert table.iloc[:, 1].tolist() == pytest.approx([100 * c.chosen_on for c in expected])  # in percent
        assert table.iloc[:, 2].tolist() == pytest.approx([100 * c.held_out.value for c in expected])
        assert table.iloc[:, 3].tolist() == [interval(c.held_out, tr) for c in expected]
    assert best.iloc[0, 0] == translate(lang, "heads.head_name", layer=TRAINED_HEAD[0] + 1, head=TRAINED_HEAD[1] + 1)
    held = choose(found, "agreement", 1)[0].held_out
    assert held.count == found.held_out.agreement_correct[TRAINED_HEAD]  # the default head, reported held-out
    assert translate(lang, "heads.census_sets", **SETS(found)) in texts


def SETS(found) -> dict:
    h = found.held_out
    return {
        "n_plain": found.n_plain,
        "n_agreement": found.n_agreement,
        "n_pairs": found.n_pairs,
        "h_plain": h.n_plain,
        "h_agreement": h.n_agreement,
        "h_pairs": h.n_pairs,
    }


@pytest.mark.parametrize("measure", ["previous", "pairs", "favourite"])
def test_a_link_opens_a_measure_and_a_head(measure):
    at = open_heads(measure=measure, layer="1", head="3")  # as shown: index 0 and 2
    np.testing.assert_allclose(z_of(figure(at, "fig_census")), 100 * measure_scores(census(), measure), atol=1e-9)
    assert head_summary(census(), 0, 2, tr=partial(translate, "en")) in page_texts(at)
    assert at.query_params["measure"] == measure and at.query_params["layer"] == "1"


STONE = (  # a teacher's pair: "it" is the stone in A, the window in B
    "The stone broke the window because it was heavy.",
    "The stone broke the window because it was fragile.",
)


def test_the_contrast_view_says_what_the_core_measured():
    at = open_heads(
        heads_view="contrast", pair_a=STONE[0], pair_b=STONE[1], pair_word="it", noun_a="stone", noun_b="window"
    )
    c = pair_test(*STONE, "it", ("stone", "window"))
    texts = page_texts(at)
    summary = translate(
        "en",
        "heads.outcome_summary",
        resolves=0,  # the teacher's pair: no head resolves it
        one=c.count("one"),
        reversed=c.count("reversed"),
        total=72,
        moved=c.n_moved,
        points=100 * SMALL,
        **{kind: c.changed(kind) for kind in CHANGES[1:]},
    )
    assert c.count("resolves") == 0 and summary in texts
    np.testing.assert_allclose(z_of(figure(at, "fig_outcome")), c.n_right)
    bars = figure(at, "fig_pair_a")
    np.testing.assert_allclose(plotly_array(bars["data"][0]["y"]), c.rows_a[TRAINED_HEAD], atol=1e-12)
    # the default head: right in A only, its top word moved from a verb to a noun by less than 3 points
    row_a, row_b = c.rows_a[TRAINED_HEAD], c.rows_b[TRAINED_HEAD]
    verdict = translate(
        "en",
        "heads.verdict",
        head_start="Layer 2, head 4",
        word="it",
        meant_a=float(row_a[1]),
        other_a=float(row_a[4]),
        noun_a="stone",
        other_noun_a="window",
        meant_b=float(row_b[4]),
        other_b=float(row_b[1]),
        noun_b="window",
        other_noun_b="stone",
        result=translate("en", "heads.result_one_b", noun="window"),
    )
    assert verdict in texts
    assert any("**broke** in A" in text and "less than 3 points" in text for text in texts)
    # both sentences whole, the word that differs marked
    assert any("A:** The stone broke the window because it was :orange-background[**heavy\\.**]" in x for x in texts)
    found = census()
    assert any(f"resolves {int(found.held_out.pairs_resolved[5, 11])} and prefers" in text for text in texts)
    # The trap: the old default head's numbers, told with its own example.
    assert any(TRAP[0] in text and f"{found.held_out.n_pairs} held-out minimal pairs" in text for text in texts)


def test_a_split_word_and_any_one_word_pair_are_tested():
    """A pair that swaps a noun: "widow" (one piece) for "widower" (widow + ##er), so "she" means
    the widow in A and the nurse in B; the widower's weight is the sum over its two pieces."""
    a, b = "The widow thanked the nurse because she was kind.", "The widower thanked the nurse because she was kind."
    at = open_heads(heads_view="contrast", pair_a=a, pair_b=b, pair_word="she", noun_a="widow", noun_b="nurse")
    assert not [box.value for box in at.info if "contrast pair" in box.value or "not a word" in box.value]
    c = pair_test(a, b, "she", ("widow", "nurse"))
    assert c.words_a[c.nouns_a[1]] == "nurse" and c.words_b[c.nouns_b[1]] == "widower"  # the other noun in each
    np.testing.assert_allclose(
        plotly_array(figure(at, "fig_pair_b")["data"][0]["y"]), c.rows_b[TRAINED_HEAD], atol=1e-12
    )
    np.testing.assert_allclose(z_of(figure(at, "fig_outcome")), c.n_right)


def test_the_pronoun_swap_runs_on_the_learners_sentence():
    at = open_heads(heads_view="contrast")
    swap = swap_pronoun(SENTENCE)
    s = pair_test(SENTENCE, swap.text, swap.old)
    top_a, top_b = int(s.top_a[TRAINED_HEAD]), int(s.top_b[TRAINED_HEAD])
    moved = CHANGES[s.change[TRAINED_HEAD]] != "same"
    expected = translate(
        "en",
        "heads.swap_yours",
        old=swap.old,
        new=swap.new,
        swapped=swap.text,
        top_a=s.words_a[top_a],
        top_b=s.words_b[top_b],
        weight_a=float(s.rows_a[TRAINED_HEAD][top_a]),
        weight_b=float(s.rows_b[TRAINED_HEAD][top_b]),
        head="layer 2, head 4",
        verdict=translate("en", "heads.swap_moved" if moved else "heads.swap_kept"),
    )
    texts = page_texts(at)
    assert expected in texts
    held = census().held_out
    measured = translate(
        "en",
        "heads.swap_measured",
        head="layer 2, head 4",
        **count_fields(estimate(held, "swap", *TRAINED_HEAD), partial(translate, "en")),
    )
    assert measured in texts
    at.button(key="swap_pair").click().run()  # the swapped pair goes into the contrast test
    assert at.text_area(key="pair_a").value == SENTENCE and at.text_area(key="pair_b").value == swap.text
    assert at.text_input(key="pair_word").value == swap.old


def test_a_pair_that_differs_in_two_words_gets_a_message_not_an_error():
    at = open_heads(heads_view="contrast", pair_a="The cat slept.", pair_b="The dog barked.", pair_word="it")
    assert not at.exception
    assert any("differ in 2 words" in box.value for box in at.info)


def test_the_trust_view_shows_weights_norms_and_rollout():
    at = open_heads(heads_view="trust", layer="2", head="4")
    trace = encode(SENTENCE)
    trust = figure(at, "fig_trust")
    weights, norms = (np.asarray(plotly_array(panel["z"]), dtype=float) for panel in trust["data"][:2])
    np.testing.assert_allclose(weights, trace.weights[1, 3], atol=1e-12)
    np.testing.assert_allclose(norms, row_shares(value_norms(trace, 1, 3)), atol=1e-12)
    np.testing.assert_allclose(z_of(figure(at, "fig_rollout")), rollout(trace.weights)[-1], atol=1e-12)
    quiet = quiet_keys(list(trace.tokens))
    expected = translate(
        "en",
        "heads.trust_columns",
        tokens=", ".join(trace.tokens[j].replace("[", "\\[").replace("]", "\\]") for j in quiet),
        weights=share_on(trace.weights[1, 3][1:-1], quiet),  # the word-piece rows
        norms=share_on(row_shares(value_norms(trace, 1, 3))[1:-1], quiet),
    )
    assert expected in page_texts(at)


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("view", ["census", "contrast", "trust"])
def test_every_view_renders_in_presentation_mode(lang, view):
    at = open_heads(lang, heads_view=view, present="true")
    assert not at.exception, at.exception
    assert at.get("plotly_chart")


@pytest.mark.parametrize(
    "params",
    [{"measure": "nonsense"}, {"heads_view": "<b>x</b>"}, {"layer": "99", "head": "-4"}, {"pair_word": "🙂" * 30}],
)
def test_bad_links_open_a_working_page(params):
    at = open_heads(heads_view=params.pop("heads_view", "contrast"), **params)
    assert not at.exception, at.exception
    assert at.get("plotly_chart") or at.info
