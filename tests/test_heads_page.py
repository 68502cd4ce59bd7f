"""AppTest for "What do heads do?": it renders in both languages, and every number it shows is
the core's (attention_core.heads, attention_core.attribution), for the head and the sentences
a link names. The core's numbers are held to transformers in tests/test_heads.py."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from attention_core.attribution import rollout, row_shares, share_on, value_norms
from attention_core.encoder import encode
from attention_core.heads import TRAP, best_heads, census, contrast, measure_scores, quiet_keys
from attention_core.lesson import TRAINED_HEAD
from attention_ui.head_claims import head_summary
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
    best = tables(at)[0]
    expected = best_heads(measure_scores(found, "agreement"), 5)
    assert best.iloc[:, 1].tolist() == pytest.approx([100 * score for _, _, score in expected])  # in percent
    assert best.iloc[0, 0] == translate(lang, "heads.head_name", layer=TRAINED_HEAD[0] + 1, head=TRAINED_HEAD[1] + 1)


@pytest.mark.parametrize("measure", ["previous", "pairs", "favourite"])
def test_a_link_opens_a_measure_and_a_head(measure):
    at = open_heads(measure=measure, layer="1", head="3")  # as shown: index 0 and 2
    np.testing.assert_allclose(z_of(figure(at, "fig_census")), 100 * measure_scores(census(), measure), atol=1e-9)
    assert head_summary(census(), 0, 2, tr=partial(translate, "en")) in page_texts(at)
    assert at.query_params["measure"] == measure and at.query_params["layer"] == "1"


def test_the_contrast_view_says_what_the_core_measured():
    a = "The cup fell off the table because it was round."
    b = "The cup fell off the table because it was wobbly."
    at = open_heads(heads_view="contrast", pair_a=a, pair_b=b, pair_word="it", layer="6", head="12")
    c = contrast(a, b, "it")
    key_a, key_b = c.tokens_a[c.key_a[5, 11]], c.tokens_b[c.key_b[5, 11]]
    verdict = "heads.changed" if c.changed[5, 11] else "heads.unchanged"
    expected = translate(
        "en",
        verdict,
        word="it",
        layer=6,
        head=12,
        key_a=key_a,
        key_b=key_b,
        weight_a=float(c.weight_a[5, 11]),
        weight_b=float(c.weight_b[5, 11]),
    )
    texts = page_texts(at)
    assert expected in texts
    assert translate("en", "heads.n_changed", changed=c.n_changed, total=72) in texts
    np.testing.assert_allclose(z_of(figure(at, "fig_changed")), 100 * c.changed.astype(float))
    bars = figure(at, "fig_pair_a")
    np.testing.assert_allclose(plotly_array(bars["data"][0]["y"]), c.weights_a[5, 11, c.i_a], atol=1e-12)
    found = census()
    assert any(f"resolves {int(found.pairs_resolved[5, 11])} and keeps" in text for text in texts)
    # The trap: the old default head's numbers, told with its own example.
    assert any(TRAP[0] in text and f"{found.n_pairs} minimal pairs" in text for text in texts)


def test_a_word_missing_from_a_sentence_gets_a_message_not_an_error():
    at = open_heads(heads_view="contrast", pair_a="The cat slept.", pair_b="The dog barked.", pair_word="it")
    assert any("is not one of the tokens" in box.value for box in at.info)


def test_the_trust_view_shows_weights_norms_and_rollout():
    at = open_heads(heads_view="trust", layer="2", head="4")
    trace = encode(SENTENCE)
    trust = figure(at, "fig_trust")
    weights, norms = (plotly_array(panel["z"]) for panel in trust["data"][:2])
    np.testing.assert_allclose(weights, trace.weights[1, 3], atol=1e-12)
    np.testing.assert_allclose(norms, row_shares(value_norms(trace, 1, 3)), atol=1e-12)
    np.testing.assert_allclose(z_of(figure(at, "fig_rollout")), rollout(trace.weights)[-1], atol=1e-12)
    quiet = quiet_keys(list(trace.tokens))
    expected = translate(
        "en",
        "heads.trust_columns",
        tokens=", ".join(trace.tokens[j].replace("[", "\\[").replace("]", "\\]") for j in quiet),
        weights=share_on(trace.weights[1, 3], quiet),
        norms=share_on(row_shares(value_norms(trace, 1, 3)), quiet),
    )
    assert expected in page_texts(at)


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("view", ["census", "contrast", "trust"])
def test_every_view_renders_in_presentation_mode(lang, view):
    at = open_heads(lang, heads_view=view, present="true")
    assert at.get("plotly_chart")


@pytest.mark.parametrize(
    "params",
    [{"measure": "nonsense"}, {"heads_view": "<b>x</b>"}, {"layer": "99", "head": "-4"}, {"pair_word": "🙂" * 30}],
)
def test_bad_links_open_a_working_page(params):
    at = open_heads(heads_view=params.pop("heads_view", "contrast"), **params)
    assert at.get("plotly_chart") or at.info
