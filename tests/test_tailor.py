"""The tailor shop: its numbers against independent references (loops, scipy), its
properties (exact match + sharp = that sample, zero sharpness = the plain average), the
drawn shirt against Σ_j α̂_j v_j, and the page in English and Chinese."""

from __future__ import annotations

import base64
import itertools
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from scipy.special import softmax as scipy_softmax
from streamlit.testing.v1 import AppTest

from attention_core.similarity import cosine_similarity, dot_similarity
from attention_core.tailor import (
    ATTRIBUTES,
    FEATURES,
    GROUPS,
    SAMPLES,
    SHARPNESS_STEPS,
    Request,
    fit,
    keys,
    values,
)
from attention_ui.i18n import translate
from attention_ui.tailor_figures import PLAID_MAX, SHEEN_MAX, STRIPES_MAX, TEXTURE_MAX, shirt_outline, shirt_svg
from tests.helpers import open_link, plotly_array
from tests.helpers import tables as page_tables

SVG_NS = {"s": "http://www.w3.org/2000/svg"}


# --- references written here, independent of attention_core ---------------------------------


def reference_key(label: dict[str, str]) -> np.ndarray:
    """The label as a 0/1 vector over the 10 features, written out by hand."""
    order = ["mens", "womens", "plaid", "solid", "striped", "cotton", "silk", "linen", "formal", "casual"]
    return np.array([1.0 if name in label.values() else 0.0 for name in order])


def reference_query(request: Request) -> np.ndarray:
    order = ["mens", "womens", "plaid", "solid", "striped", "cotton", "silk", "linen", "formal", "casual"]
    q = np.zeros(10)
    for group, option in request.choices().items():
        if option is not None:
            q[order.index(option)] = request.importance.get(group, 1.0)
    return q


def reference_fit(request: Request, sharpness: float, similarity: str = "dot"):
    """Scores by loops, weights by scipy, the blend by an explicit Σ over the samples."""
    q = reference_query(request)
    scores = []
    for s in SAMPLES:
        k = reference_key(s.label)
        dot = sum(q[f] * k[f] for f in range(10))
        if similarity == "cosine":
            nq, nk = np.sqrt(sum(x * x for x in q)), np.sqrt(sum(x * x for x in k))
            dot = dot / (nq * nk) if nq > 0 and nk > 0 else 0.0
        scores.append(dot)
    weights = scipy_softmax(sharpness * np.array(scores))
    blend = np.zeros(len(ATTRIBUTES))
    for w, s in zip(weights, SAMPLES):
        blend = blend + w * np.array(s.value)
    return np.array(scores), weights, blend


def random_requests(n: int, seed: int = 0) -> list[Request]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        choice = {g: (None if rng.random() < 0.2 else str(rng.choice(opts))) for g, opts in GROUPS.items()}
        importance = {g: float(rng.choice(np.arange(0, 3.5, 0.5))) for g in GROUPS}
        out.append(Request(**choice, importance=importance))
    return out


def drawn_attributes(svg: str) -> np.ndarray:
    """Read back what the SVG draws, in the order of ATTRIBUTES (sleeve and taper from the
    outline's geometry, inverted through shirt_outline's two end points)."""
    root = ET.fromstring(svg)

    def by_id(name):
        el = root.find(f".//*[@id='{name}']")
        assert el is not None, f"no element {name!r} in the SVG"
        return el

    def rgb(text):
        m = re.fullmatch(r"rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)", text)
        assert m, text
        return [float(x) / 100 for x in m.groups()]

    base = rgb(by_id("body").get("fill"))
    accent = rgb(root.find(".//s:pattern[@id='stripe-tile']/s:rect", SVG_NS).get("fill"))
    plaid = float(by_id("plaid").get("opacity")) / PLAID_MAX
    stripes = float(by_id("stripes").get("opacity")) / STRIPES_MAX
    sheen = float(by_id("sheen").get("opacity")) / SHEEN_MAX
    texture = float(by_id("texture").get("opacity")) / TEXTURE_MAX
    left = [tuple(map(float, p.split(","))) for p in by_id("sleeve-left").get("points").split()]
    short_y, long_y = shirt_outline(0.0, 0.0)[1][1][1], shirt_outline(1.0, 0.0)[1][1][1]
    sleeve = (left[1][1] - short_y) / (long_y - short_y)
    body = [tuple(map(float, p.split(","))) for p in by_id("body").get("points").split()]
    straight_x, fitted_x = shirt_outline(0.0, 0.0)[0][4][0], shirt_outline(0.0, 1.0)[0][4][0]
    taper = (body[4][0] - straight_x) / (fitted_x - straight_x)
    return np.array([*base, *accent, plaid, stripes, sheen, texture, sleeve, taper])


# --- the shop's data -------------------------------------------------------------------------


def test_the_shop_has_distinct_samples_covering_every_option():
    assert len(SAMPLES) >= 6
    labels = [tuple(sorted(s.label.items())) for s in SAMPLES]
    assert len(set(labels)) == len(labels), "two samples share a label"
    for group, options in GROUPS.items():
        assert {s.label[group] for s in SAMPLES} == set(options), f"not every {group} option is in the shop"
    v = values()
    assert v.shape == (len(SAMPLES), len(ATTRIBUTES)) and ((v >= 0) & (v <= 1)).all()
    for s in SAMPLES:
        np.testing.assert_array_equal(s.key(), reference_key(s.label))
    assert keys().shape == (len(SAMPLES), len(FEATURES)) == (len(SAMPLES), 10)


def test_query_is_importance_at_the_chosen_options():
    r = Request(
        cut="womens",
        pattern=None,
        fabric="linen",
        style="formal",
        importance={"cut": 3.0, "pattern": 2.0, "fabric": 0.5, "style": 1.5},
    )
    np.testing.assert_array_equal(r.query(), [0, 3, 0, 0, 0, 0, 0, 0.5, 1.5, 0])


@pytest.mark.parametrize(
    "bad",
    [
        dict(cut="kids"),
        dict(pattern="<script>"),
        dict(importance={"cut": 4.0}),
        dict(importance={"style": -1.0}),
        dict(importance={"fabric": float("nan")}),
    ],
)
def test_bad_requests_raise_a_clear_error(bad):
    with pytest.raises(ValueError):
        Request(**bad).query()


@pytest.mark.parametrize("kwargs", [dict(sharpness=-1.0), dict(sharpness=float("inf")), dict(similarity="euclid")])
def test_bad_fit_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        fit(Request(cut="mens"), **kwargs)


# --- numbers against the references ------------------------------------------------------------


@pytest.mark.parametrize("similarity", ["dot", "cosine"])
@pytest.mark.parametrize("sharpness", [0.0, 0.35, 1.0, 5.0, 50.0])
def test_scores_weights_and_blend_equal_the_references(similarity, sharpness):
    for request in random_requests(25, seed=int(sharpness * 10)):
        fitted = fit(request, sharpness=sharpness, similarity=similarity)
        scores, weights, blend = reference_fit(request, sharpness, similarity)
        np.testing.assert_allclose(fitted.scores, scores, atol=1e-12)
        np.testing.assert_allclose(fitted.weights, weights, atol=1e-12)
        np.testing.assert_allclose(fitted.blend, blend, atol=1e-12)
        np.testing.assert_allclose(fitted.weights.sum(), 1.0, atol=1e-12)
        assert fitted.trace.scale == sharpness  # the sharpness is the attention's scale


def test_scores_agree_with_attention_core_similarity():
    for request in random_requests(20, seed=3):
        q = request.query()[None, :]
        np.testing.assert_allclose(fit(request, similarity="dot").scores, dot_similarity(q, keys())[0], atol=1e-12)
        np.testing.assert_allclose(
            fit(request, similarity="cosine").scores, cosine_similarity(q, keys())[0], atol=1e-12
        )


# --- properties --------------------------------------------------------------------------------


@pytest.mark.parametrize("j", range(len(SAMPLES)))
def test_exact_match_and_sharp_gives_that_sample(j):
    sample = SAMPLES[j]
    request = Request(**sample.label, importance={g: 1.0 for g in GROUPS})
    np.testing.assert_allclose(fit(request, sharpness=50.0).blend, sample.value, atol=1e-12)
    np.testing.assert_allclose(fit(request, sharpness=50.0, similarity="cosine").blend, sample.value, atol=1e-3)
    assert int(fit(request, sharpness=1.0).weights.argmax()) == j


@pytest.mark.parametrize("similarity", ["dot", "cosine"])
def test_zero_sharpness_gives_the_plain_average(similarity):
    average = np.mean([s.value for s in SAMPLES], axis=0)
    for request in random_requests(10, seed=5):
        fitted = fit(request, sharpness=0.0, similarity=similarity)
        np.testing.assert_allclose(fitted.weights, 1 / len(SAMPLES), atol=1e-15)
        np.testing.assert_allclose(fitted.blend, average, atol=1e-12)


def test_no_wish_gives_the_plain_average_at_any_sharpness():
    average = np.mean([s.value for s in SAMPLES], axis=0)
    np.testing.assert_allclose(fit(Request(), sharpness=50.0).blend, average, atol=1e-12)
    np.testing.assert_allclose(fit(Request(), sharpness=50.0, similarity="cosine").blend, average, atol=1e-12)


def test_sharper_means_more_weight_on_the_best_match():
    request = Request("mens", "plaid", "cotton", "casual", {"cut": 2, "pattern": 3, "fabric": 2, "style": 1})
    top = [float(fit(request, sharpness=b).weights.max()) for b in SHARPNESS_STEPS]
    assert all(a < b or a > 1 - 1e-12 for a, b in zip(top, top[1:])), top  # rises until it reaches 1
    assert top[0] == pytest.approx(1 / len(SAMPLES)) and top[-1] > 0.999


def test_the_blend_stays_a_valid_garment():
    for request in random_requests(30, seed=9):
        for beta in (0.0, 0.5, 50.0):
            b = fit(request, sharpness=beta).blend
            assert ((b >= 0) & (b <= 1)).all()


# --- the drawing -------------------------------------------------------------------------------


def test_drawn_shirt_equals_the_weighted_sum_of_the_values():
    for request, beta in itertools.product(random_requests(10, seed=11), (0.0, 0.5, 2.0, 50.0)):
        fitted = fit(request, sharpness=beta)
        expected = sum(w * np.array(s.value) for w, s in zip(fitted.weights, SAMPLES))  # Σ_j α̂_j v_j
        np.testing.assert_allclose(drawn_attributes(shirt_svg(fitted.blend)), expected, atol=2e-6)


def test_every_sample_is_drawn_from_its_own_value():
    for s in SAMPLES:
        np.testing.assert_allclose(drawn_attributes(shirt_svg(s.value)), s.value, atol=2e-6)


def test_the_svg_is_pure_drawing():
    svg = shirt_svg(values()[0])
    root = ET.fromstring(svg)
    tags = {el.tag.split("}")[1] for el in root.iter()}
    assert not tags & {"text", "script", "foreignObject", "a", "image"}, tags
    with pytest.raises(ValueError):
        shirt_svg([0.5] * 5)
    clipped = drawn_attributes(shirt_svg([2.0] * 12))
    np.testing.assert_allclose(clipped, 1.0, atol=2e-6)


def test_longer_sleeves_reach_lower_and_fitted_waists_are_narrower():
    cuffs = [shirt_outline(s, 0.0)[1][1][1] for s in np.linspace(0, 1, 6)]
    waists = [shirt_outline(0.0, t)[0][4][0] for t in np.linspace(0, 1, 6)]
    assert all(a < b for a, b in zip(cuffs, cuffs[1:])) and all(a < b for a, b in zip(waists, waists[1:]))


# --- the page ----------------------------------------------------------------------------------


def open_page(lang: str = "en", **params) -> AppTest:
    """The page opened straight from a shared link (tests.helpers.open_link)."""
    return open_link("pages/tailor_shop.py", lang, **params)


def page_numbers(at: AppTest) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores, weights) from the two bar charts and the attributes of the drawn result."""
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    scores, weights = (plotly_array(f["data"][0]["x"]) for f in figs[:2])
    lang = at.session_state["lang"]
    result = [img for el in at.get("image") for img in el.proto.imgs if img.alt == translate(lang, "tailor.result_alt")]
    assert len(result) == 1, "one made-to-measure shirt on the page"
    svg = base64.b64decode(result[0].url.split(",", 1)[1]).decode()
    return scores, weights, drawn_attributes(svg)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_shows_the_cores_numbers_and_draws_the_blend(lang):
    at = open_page(lang)
    assert at.title[0].value == translate(lang, "tailor.title")
    request = Request("mens", "plaid", "cotton", "casual", {"cut": 2.0, "pattern": 3.0, "fabric": 2.0, "style": 1.0})
    scores, weights, drawn = page_numbers(at)
    ref_scores, ref_weights, ref_blend = reference_fit(request, 0.5)
    np.testing.assert_allclose(scores, ref_scores, atol=1e-12)
    np.testing.assert_allclose(weights, ref_weights, atol=1e-12)
    np.testing.assert_allclose(drawn, ref_blend, atol=2e-6)
    assert len(page_tables(at)) == 1  # closed, the expander's two tables are not built
    at.session_state["tailor_vectors_open"] = True  # the learner opens it
    at.run()
    keys, values = page_tables(at)[1:3]  # the expander's tables: request and keys, then α̂ and values
    np.testing.assert_array_equal(
        keys.to_numpy(), [reference_query(request)] + [reference_key(s.label) for s in SAMPLES]
    )
    np.testing.assert_allclose(values.iloc[:, 0], [*ref_weights, 1.0], atol=1e-12)  # α̂, then its sum
    np.testing.assert_allclose(values.iloc[:, 1:], [s.value for s in SAMPLES] + [ref_blend], atol=1e-12)
    captions = [m.value for m in at.markdown if "%" in m.value and m.value.startswith("**")]
    assert captions[: len(SAMPLES)] == [f"**{j + 1}** · **{100 * w:.1f} %**" for j, w in enumerate(ref_weights)]
    assert at.get("page_link")[0].proto.page.endswith("step_by_step.py") or "step_by_step" in str(
        at.get("page_link")[0].proto
    )
    if lang == "zh":
        text = " ".join(m.value for m in at.markdown) + " ".join(s.value for s in at.subheader)
        assert "查询" in text and "键" in text and "值" in text


def test_changing_the_request_changes_weights_and_garment():
    at = open_page("en")
    _, before_w, before = page_numbers(at)
    at.button_group(key="want_cut").set_value("womens").run()
    at.button_group(key="want_pattern").set_value("striped").run()
    assert not at.exception
    _, after_w, after = page_numbers(at)
    request = Request(
        "womens", "striped", "cotton", "casual", {"cut": 2.0, "pattern": 3.0, "fabric": 2.0, "style": 1.0}
    )
    _, ref_w, ref_blend = reference_fit(request, 0.5)
    np.testing.assert_allclose(after_w, ref_w, atol=1e-12)
    np.testing.assert_allclose(after, ref_blend, atol=2e-6)
    assert not np.allclose(before, after) and not np.allclose(before_w, after_w)


def test_sharpness_and_cosine_controls():
    at = open_page("en")
    at.select_slider(key="sharpness").set_value(0.0).run()
    _, w, drawn = page_numbers(at)
    np.testing.assert_allclose(w, 1 / len(SAMPLES), atol=1e-15)
    np.testing.assert_allclose(drawn, np.mean([s.value for s in SAMPLES], axis=0), atol=2e-6)
    at.select_slider(key="sharpness").set_value(5.0).run()
    at.button_group(key="match").set_value("cosine").run()
    scores, w, _ = page_numbers(at)
    request = Request("mens", "plaid", "cotton", "casual", {"cut": 2.0, "pattern": 3.0, "fabric": 2.0, "style": 1.0})
    ref_scores, ref_w, _ = reference_fit(request, 5.0, "cosine")
    np.testing.assert_allclose(scores, ref_scores, atol=1e-12)
    np.testing.assert_allclose(w, ref_w, atol=1e-12)


def test_a_shared_link_reopens_the_same_fitting():
    at = open_page("en", want_cut="womens", want_style="formal", sharpness="5", match="cosine", imp_pattern="0.5")
    request = Request("womens", "plaid", "cotton", "formal", {"cut": 2.0, "pattern": 0.5, "fabric": 2.0, "style": 1.0})
    scores, w, drawn = page_numbers(at)
    ref_scores, ref_w, ref_blend = reference_fit(request, 5.0, "cosine")
    np.testing.assert_allclose(w, ref_w, atol=1e-12)
    np.testing.assert_allclose(drawn, ref_blend, atol=2e-6)
    assert at.query_params["want_cut"] in ("womens", ["womens"]) and at.query_params["match"] in ("cosine", ["cosine"])


def test_no_wishes_says_so_and_averages():
    at = open_page("en", want_cut="any", want_pattern="any", want_fabric="any", want_style="any")
    assert any(i.value == translate("en", "tailor.no_wish") for i in at.info)
    _, w, _ = page_numbers(at)
    np.testing.assert_allclose(w, 1 / len(SAMPLES), atol=1e-15)


@pytest.mark.parametrize(
    "params",
    [
        {"want_cut": "<script>alert(1)</script>", "imp_cut": "99"},
        {"want_pattern": "tartan", "imp_pattern": "-5", "sharpness": "abc"},
        {"match": "euclid", "sharpness": "1e99", "imp_style": "nan"},
        {"want_fabric": "😀", "imp_fabric": "", "sharpness": "-1"},
    ],
)
def test_hand_typed_url_parameters_give_a_working_page(params):
    at = open_page("zh", **params)
    _, w, drawn = page_numbers(at)
    np.testing.assert_allclose(w.sum(), 1.0, atol=1e-12)
    assert ((drawn >= -1e-6) & (drawn <= 1 + 1e-6)).all()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_says_the_values_have_their_own_size_and_the_customer_is_no_sample(lang):
    """d_v ≠ d_k is allowed (10 features, 12 attributes), and the shop is cross-attention in shape."""
    at = open_page(lang)
    assert (len(FEATURES), len(ATTRIBUTES)) == (10, 12)
    note = translate(lang, "tailor.mapping_note", d_k=len(FEATURES), d_v=len(ATTRIBUTES))
    assert note in [m.value for m in at.markdown]
