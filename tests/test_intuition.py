"""The "What is attention?" page: the budget and reading weights against scipy's softmax, the
starred reading texts of both languages, the foveated picture, and the page in en and zh."""

from __future__ import annotations

import base64
import io
import json
import re

import numpy as np
import pytest
from scipy.special import softmax as scipy_softmax
from streamlit.testing.v1 import AppTest

from attention_core.intuition import (
    BUDGET,
    SCENE_REGIONS,
    SCENE_RELEVANCE,
    allocate,
    marked_units,
    reading_weights,
)
from attention_ui.i18n import LANGS, translate
from attention_ui.intuition_figures import blur, focus_mask, focus_picture, foveate, reading_html, scene
from tests.helpers import open_link, plotly_array

# --- the budget --------------------------------------------------------------------------------


@pytest.mark.parametrize("beta", [0.0, 0.1, 1.0, 2.5, 3.0, 40.0])
def test_allocation_is_budget_times_scipy_softmax(beta):
    got = allocate(SCENE_RELEVANCE, budget=BUDGET, sharpness=beta)
    np.testing.assert_allclose(got, BUDGET * scipy_softmax(beta * np.array(SCENE_RELEVANCE)), atol=1e-12)
    assert got.sum() == pytest.approx(BUDGET, abs=1e-9)


def test_zero_sharpness_is_the_even_split_and_order_follows_importance():
    np.testing.assert_allclose(allocate(SCENE_RELEVANCE, sharpness=0.0), BUDGET / len(SCENE_REGIONS), atol=1e-12)
    shares = allocate(SCENE_RELEVANCE, sharpness=1.0)
    order = np.argsort(-np.array(SCENE_RELEVANCE), kind="stable")
    assert (np.diff(shares[order]) <= 1e-12).all()
    assert len(SCENE_REGIONS) == len(SCENE_RELEVANCE) == 6


@pytest.mark.parametrize(
    "bad",
    [
        dict(scores=[]),
        dict(scores=[[1.0]]),
        dict(scores=[1.0], sharpness=-1.0),
        dict(scores=[1.0], sharpness=float("nan")),
    ],
)
def test_allocate_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        allocate(**bad)


# --- the reading text --------------------------------------------------------------------------


@pytest.mark.parametrize("lang", list(LANGS))
def test_reading_text_keeps_every_character_and_stars_the_key_words(lang):
    text = translate(lang, "intuition.reading_text")
    units = marked_units(text)
    assert "".join(u.text for u in units) == text.replace("*", ""), "the units lose or add characters"
    starred = {u.text: u.score for u in units if u.score}
    expected = {m.group(2): float(len(m.group(1))) for m in re.finditer(r"(\*{1,3})([^*]+?)\1", text)}
    assert starred == expected and max(starred.values()) == 3.0 and len(starred) >= 4
    assert all(u.score is None for u in units if not u.text.strip() or u.text in ",.，。、")


def test_marked_units_splits_chinese_into_characters_and_words_otherwise():
    units = marked_units("老**猫**睡了 the old *cat*!")
    assert [(u.text, u.score) for u in units] == [
        ("老", 0.0),
        ("猫", 2.0),
        ("睡", 0.0),
        ("了", 0.0),
        (" ", None),
        ("the", 0.0),
        (" ", None),
        ("old", 0.0),
        (" ", None),
        ("cat", 1.0),
        ("!", None),
    ]
    assert marked_units("") == []
    assert [u.score for u in marked_units("***")] == [None, None, None]


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("beta", [0.0, 1.0, 3.0])
def test_reading_weights_are_scipy_softmax_over_the_words(lang, beta):
    units = marked_units(translate(lang, "intuition.reading_text"))
    w = reading_weights(units, sharpness=beta)
    words = [i for i, u in enumerate(units) if u.score is not None]
    expected = scipy_softmax(beta * np.array([units[i].score for i in words]))
    np.testing.assert_allclose(w[words], expected, atol=1e-12)
    assert np.isnan(np.delete(w, words)).all()


def test_reading_html_escapes_text_and_carries_the_weights():
    units = marked_units("<script>alert(1)</script> **cat**")
    w = reading_weights(units, sharpness=1.0)
    out = reading_html([(u.text, u.score) for u in units], w)
    assert "<script>" not in out and "&lt;" in out
    shown = [float(x) for x in re.findall(r'data-weight="([\d.]+)"', out)]
    np.testing.assert_allclose(shown, w[np.isfinite(w)], atol=1e-6)


# --- the picture -------------------------------------------------------------------------------


def test_scene_is_a_fixed_picture():
    img = scene()
    assert img.shape == (400, 720, 3) and img.dtype == np.uint8 and not img.flags.writeable
    assert img.std() > 30, "the scene has detail to blur"


def test_box_blur_matches_a_loop_and_keeps_flat_images_flat():
    rng = np.random.default_rng(0)
    x = rng.random((9, 11, 1))
    got = blur(x, radius=2, passes=1)
    ref = np.zeros_like(x)
    padded = np.pad(x, ((2, 2), (2, 2), (0, 0)), mode="edge")
    for i in range(9):
        for j in range(11):
            ref[i, j] = padded[i : i + 5, j : j + 5].mean(axis=(0, 1))
    np.testing.assert_allclose(got, ref, atol=1e-12)
    np.testing.assert_allclose(blur(np.full((20, 30, 3), 0.4), radius=5), 0.4, atol=1e-12)


def test_focus_is_sharp_and_the_periphery_coarse():
    img = scene()
    out = foveate(img, 0.75, 0.8, 60)
    cy, cx = round(0.8 * 399), round(0.75 * 719)
    np.testing.assert_array_equal(out[cy - 20 : cy + 20, cx - 20 : cx + 20], img[cy - 20 : cy + 20, cx - 20 : cx + 20])
    far = (slice(170, 300), slice(90, 270))  # the brick house, far from the focus
    detail = lambda a: np.abs(np.diff(a.astype(float), axis=1)).mean()  # noqa: E731
    assert detail(out[far]) < 0.5 * detail(img[far]), "the periphery keeps too much detail"
    m = focus_mask((400, 720), cx, cy, 60)
    assert m.min() == 0.0 and m.max() == 1.0 and m[cy, cx] == 1.0
    assert ((m >= 0) & (m <= 1)).all()


def test_focus_picture_shows_the_image_under_a_click_grid():
    img = foveate(scene(), 0.3, 0.4, 50)
    fig = focus_picture(img)
    from PIL import Image

    shown = np.asarray(Image.open(io.BytesIO(base64.b64decode(fig.data[0].source.split(",", 1)[1]))))
    assert shown.shape == img.shape
    assert np.abs(shown.astype(float) - img).mean() < 3, "the JPEG is the picture"
    grid = fig.data[1]
    assert grid.marker.opacity == 0 and len(grid.x) <= 600  # each target is an SVG element to draw
    assert min(grid.x) >= 0 and max(grid.x) < 720 and max(grid.y) < 400
    # a click anywhere on the picture is within Plotly's hover distance (20 px) of a target
    targets = np.column_stack([grid.x, grid.y]).astype(float)  # (n, 2)
    ys, xs = np.mgrid[0:400:3, 0:720:3]
    pixels = np.column_stack([xs.ravel(), ys.ravel()]).astype(float)  # (m, 2)
    nearest = np.sqrt(((pixels[:, None, :] - targets[None, :, :]) ** 2).sum(-1)).min(axis=1)  # (m,)
    assert nearest.max() <= 20, nearest.max()


def test_a_larger_focus_keeps_more_of_the_picture_sharp():
    img = scene()
    same = [(foveate(img, 0.5, 0.5, r) == img).all(axis=-1).mean() for r in (30, 80, 200)]
    assert same[0] < same[1] < same[2]


# --- the page ----------------------------------------------------------------------------------


def open_page(lang: str = "en", **params) -> AppTest:
    """The page opened straight from a shared link (tests.helpers.open_link)."""
    return open_link("pages/intuition.py", lang, **params)


def budget_bars(at) -> tuple[np.ndarray, np.ndarray]:
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    bars = [f for f in figs if f["data"][0].get("type") == "bar"]
    assert len(bars) == 2
    return plotly_array(bars[0]["data"][0]["y"]), plotly_array(bars[1]["data"][0]["y"])


def picture_source(at) -> str:
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    images = [f["data"][0]["source"] for f in figs if f["data"][0].get("type") == "image"]
    assert len(images) == 1 and images[0].startswith("data:image/jpeg;base64,")
    return images[0]


def reading_weights_on_page(at) -> np.ndarray:
    body = next(h.proto.body for h in at.get("html") if 'class="reading"' in h.proto.body)  # the reading text
    return np.array([float(x) for x in re.findall(r'data-weight="([\d.]+)"', body)])


@pytest.mark.parametrize("lang", list(LANGS))
def test_page_numbers_are_softmax_weights(lang):
    at = open_page(lang)
    assert at.title[0].value == translate(lang, "intuition.title")
    even, weighted = budget_bars(at)
    relevance = np.array(SCENE_RELEVANCE)
    np.testing.assert_allclose(even, BUDGET / 6, atol=1e-12)
    np.testing.assert_allclose(weighted, BUDGET * scipy_softmax(1.0 * relevance), atol=1e-12)
    units = marked_units(translate(lang, "intuition.reading_text"))
    scores = np.array([u.score for u in units if u.score is not None])
    np.testing.assert_allclose(reading_weights_on_page(at), scipy_softmax(scores), atol=1e-6)
    picture_source(at)
    assert at.get("page_link")[0].proto.page.endswith("tailor_shop.py") or "tailor_shop" in str(
        at.get("page_link")[0].proto
    )


def test_the_sliders_move_the_numbers():
    at = open_page("en")
    at.slider(key="budget_beta").set_value(2.5).run()
    at.slider(key="read_beta").set_value(0.0).run()
    assert not at.exception
    _, weighted = budget_bars(at)
    np.testing.assert_allclose(weighted, BUDGET * scipy_softmax(2.5 * np.array(SCENE_RELEVANCE)), atol=1e-12)
    w = reading_weights_on_page(at)
    np.testing.assert_allclose(w, 1 / len(w), atol=1e-6)
    before = picture_source(at)
    at.slider(key="eye_x").set_value(10).run()
    assert picture_source(at) != before, "moving the focus changes the picture"


@pytest.mark.parametrize(
    "params",
    [
        {"eye_x": "999", "eye_y": "-4", "eye_r": "abc"},
        {"read_beta": "1e99", "budget_beta": "nan"},
        {"eye_x": "<script>", "budget_beta": "😀"},
    ],
)
def test_hand_typed_url_parameters_give_a_working_page(params):
    at = open_page("zh", **params)
    even, weighted = budget_bars(at)
    assert weighted.sum() == pytest.approx(BUDGET)
