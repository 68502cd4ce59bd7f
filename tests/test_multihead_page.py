"""AppTest for the "Multi-head and masks" page (pages/multi_head.py), in English and Chinese.

References written here, independent of attention_core's attention code:
* the heads: each head's W^Q, W^K, W^V redrawn from its documented seed (seed + h, entries
  N(0, 1/d_model), drawn W^Q, W^K, W^V in that order), then the maths of
  torch.nn.MultiheadAttention per head — softmax(q kᵀ / √d_k) v with
  F.scaled_dot_product_attention in float64 — and torch.cat of the heads;
* the causal mask: a plain Python loop over i and j.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from streamlit.testing.v1 import AppTest

from attention_core import LessonSettings, ToyEmbedder, build_lesson
from attention_core.multihead import random_output_projection
from attention_ui.i18n import translate
from tests.helpers import (
    CJK,
    chart_words,
    english_prose,
    figures_by_key,
    grid_thumbnails,
    open_link,
    page_texts,
    plotly_array,
    title_text,
    z_of,
)

PAGE = "pages/multi_head.py"
SENTENCE = "the dog chased the cat home"  # 6 tokens


def open_page(sentence: str = SENTENCE, lang: str = "en", *, toy: bool = False, **params) -> AppTest:
    """The page from a shared link with ``sentence``, on the real model unless ``toy``."""
    return open_link(PAGE, lang, toy=toy, sentence=sentence, **params)


def inputs(sentence: str = SENTENCE, **settings):
    return build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings(**settings)).inputs  # (T, d_model)


def reference_heads(x: np.ndarray, n_heads: int, d_k: int, seed: int, scale: float | None = None):
    """(weights (H, T, T), concatenated outputs (T, H·d_k)) in torch float64."""
    d_model = x.shape[1]
    a = torch.tensor(x, dtype=torch.float64)
    weights, outputs = [], []
    for h in range(n_heads):
        rng = np.random.default_rng(seed + h)
        w_q, w_k, w_v = (torch.tensor(rng.normal(0.0, 1 / math.sqrt(d_model), size=(d_model, d_k))) for _ in range(3))
        q, k, v = a @ w_q, a @ w_k, a @ w_v  # (T, d_k) each
        s = 1 / math.sqrt(d_k) if scale is None else scale
        weights.append(torch.softmax(q @ k.T * s, dim=-1))  # (T, T)
        outputs.append(F.scaled_dot_product_attention(q[None], k[None], v[None], scale=s)[0])  # (T, d_k)
    return torch.stack(weights).numpy(), torch.cat(outputs, dim=-1).numpy()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("n_heads", [1, 3, 4])
def test_heads_and_concatenation_equal_torch(lang, n_heads):
    at = open_page(lang=lang, toy=True, heads=str(n_heads))
    figs = figures_by_key(at)
    weights, outputs = reference_heads(inputs(), n_heads, d_k=4, seed=0)
    assert sorted(k for k in figs if k.startswith("fig_head_")) == [f"fig_head_{h}" for h in range(n_heads)]
    for h in range(n_heads):
        z = z_of(figs[f"fig_head_{h}"])
        np.testing.assert_allclose(z, weights[h], rtol=0, atol=1e-12, err_msg=f"head {h}")
        np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-12)
        assert title_text(figs[f"fig_head_{h}"]) == translate(lang, "multi_head.head_title", h=h + 1, seed=h)
    concat = figs["fig_concat"]
    np.testing.assert_allclose(z_of(concat), outputs, rtol=0, atol=1e-12)
    assert z_of(concat).shape == (6, 4 * n_heads)
    layout = concat["layout"]
    assert [a["text"] for a in layout.get("annotations", [])] == [
        translate(lang, "multi_head.head_label", h=h + 1) for h in range(n_heads)
    ]
    boundaries = sorted(shape["x0"] for shape in layout.get("shapes", []))
    assert boundaries == [4 * h + 0.5 for h in range(1, n_heads)]  # between neighbouring heads; columns count from 1
    # MultiHead(X) = Concat · W^O: the torch heads' concatenation times the seeded W^O
    w_o = random_output_projection(4 * n_heads, 8, seed=0)  # (H·d_v, d_model)
    np.testing.assert_allclose(z_of(figs["fig_w_o"]), outputs @ w_o, rtol=0, atol=1e-12)
    assert at.title[0].value == translate(lang, "multi_head.title")


def test_heads_differ_and_head_1_is_the_lessons_head():
    at = open_page(toy=True, heads="2")
    figs = figures_by_key(at)
    lesson = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings())
    np.testing.assert_allclose(z_of(figs["fig_head_0"]), lesson.trace.weights, atol=1e-12)
    assert np.abs(z_of(figs["fig_head_0"]) - z_of(figs["fig_head_1"])).max() > 1e-3


def test_sidebar_settings_reach_the_heads():
    at = open_page(toy=True, heads="3", seed="5", d_k="3", scaled="false")
    weights, outputs = reference_heads(inputs(seed=5, d_k=3, scaled=False), 3, d_k=3, seed=5, scale=1.0)
    figs = figures_by_key(at)
    for h in range(3):
        np.testing.assert_allclose(z_of(figs[f"fig_head_{h}"]), weights[h], atol=1e-12)
    np.testing.assert_allclose(z_of(figs["fig_concat"]), outputs, atol=1e-12)


def test_identity_in_the_sidebar_keeps_random_heads_and_says_so():
    at = open_page(toy=True, identity="true", heads="2")
    assert any(i.value == translate("en", "multi_head.identity_note", seed=0, d_k=4) for i in at.info)
    weights, _ = reference_heads(inputs(projection="identity"), 2, d_k=4, seed=0)
    np.testing.assert_allclose(z_of(figures_by_key(at)["fig_head_1"]), weights[1], atol=1e-12)


def loop_causal(x: np.ndarray, w_q, w_k, scale: float):
    """Masked scaled scores and weights, one query i and one key j at a time."""
    t = x.shape[0]
    q, k = x @ w_q, x @ w_k
    scaled = [[float(q[i] @ k[j]) * scale if j <= i else -math.inf for j in range(t)] for i in range(t)]
    weights = []
    for i in range(t):
        exps = [math.exp(scaled[i][j] - max(scaled[i][: i + 1])) if j <= i else 0.0 for j in range(t)]
        weights.append([e / sum(exps) for e in exps])
    return np.array(scaled), np.array(weights)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_causal_mask_step_equals_a_loop(lang):
    at = open_page(lang=lang, toy=True)
    figs = figures_by_key(at)
    lesson = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings())
    t = len(lesson.tokens)
    scaled, weights = loop_causal(lesson.inputs, lesson.projections.w_q, lesson.projections.w_k, 1 / math.sqrt(4))

    mask = z_of(figs["fig_mask"])
    assert mask.tolist() == [[1.0 if j <= i else 0.0 for j in range(t)] for i in range(t)]

    shown = figs["fig_masked"]["data"][0]  # one chart: the masked scaled scores, then the weights
    z = plotly_array(shown["z"])
    for i in range(t):
        for j in range(t):
            if j > i:  # masked: drawn blank, printed as −∞
                assert np.isnan(z[i, j]) and shown["text"][i][j] == "−∞"
            else:
                assert z[i, j] == pytest.approx(scaled[i][j], abs=1e-12) and shown["text"][i][j] != "−∞"

    w = plotly_array(figs["fig_masked"]["data"][1]["z"])
    assert (w[np.triu_indices(t, k=1)] == 0.0).all()  # exactly zero, not just small
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(w, weights, rtol=0, atol=1e-12)
    assert w[0, 0] == 1.0
    assert title_text(figs["fig_masked"]) == translate(lang, "multi_head.masked_title")


def test_causal_weights_equal_torch_is_causal():
    at = open_page(toy=True, d_k="5", seed="3")
    lesson = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings(d_k=5, seed=3))
    p = lesson.projections
    a = torch.tensor(lesson.inputs)
    q, k = a @ torch.tensor(p.w_q), a @ torch.tensor(p.w_k)
    scaled = (q @ k.T / math.sqrt(5)).masked_fill(~torch.ones(6, 6, dtype=torch.bool).tril(), -math.inf)
    np.testing.assert_allclose(
        plotly_array(figures_by_key(at)["fig_masked"]["data"][1]["z"]),
        torch.softmax(scaled, dim=-1).numpy(),
        atol=1e-12,
    )


def test_mask_off_shows_the_plain_matrices():
    at = open_page(toy=True)
    mask_on = figures_by_key(at)["fig_mask"]
    at.toggle(key="causal").set_value(False)
    at.run()
    assert not at.exception, at.exception
    figs = figures_by_key(at)
    assert figs["fig_mask"] == mask_on  # the mask M itself, unchanged: the browser does not draw it again
    lesson = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings())
    scaled, weights = (plotly_array(panel["z"]) for panel in figs["fig_masked"]["data"])
    np.testing.assert_allclose(scaled, lesson.trace.scaled, atol=1e-12)
    np.testing.assert_allclose(weights, lesson.trace.weights, atol=1e-12)
    assert (weights[np.triu_indices(6, k=1)] > 0).all()
    assert any(i.value == translate("en", "multi_head.mask_off") for i in at.info)


def test_trained_heads_are_the_models_own_in_chinese():
    """The default (trained W): all 12 heads of the sidebar's layer, their concatenation and
    W^O's output, each equal to the NumPy encoder's trace; the heads picker is not shown."""
    from attention_core.encoder import encode
    from attention_core.lesson import TRAINED_HEAD

    at = open_page(sentence="The cat sat on the mat", lang="zh", heads="2")
    figs = figures_by_key(at)
    layer = encode("The cat sat on the mat").layer(TRAINED_HEAD[0])  # the sidebar's default layer
    thumbnails = grid_thumbnails(figs["fig_trained_heads"], 1, 12)  # (1, 12, T, T)
    np.testing.assert_allclose(thumbnails[0], layer.attention.weights, atol=1e-6)  # float32 thumbnails
    np.testing.assert_allclose(z_of(figs["fig_concat"]), layer.concat, atol=1e-12)
    assert z_of(figs["fig_concat"]).shape == (8, 384)
    assert "fig_w_o" not in figs  # its expander is closed: not built, not sent
    at.session_state["mh_w_o_open"] = True  # the learner opens it
    at.run()
    assert not at.exception, at.exception
    np.testing.assert_allclose(z_of(figures_by_key(at)["fig_w_o"]), layer.attention_output, atol=1e-12)
    assert not at.get("button_group") or all(g.key != "heads" for g in at.get("button_group"))
    assert title_text(figs["fig_mask"], breaks=True) == translate("zh", "multi_head.mask_title")  # its own <br>: kept


def _blocks(z: np.ndarray) -> list[np.ndarray]:
    """The thumbnails of a heads grid in reading order, found from its empty (NaN) rows and
    columns alone: each run of rows and of columns that hold numbers bounds one block."""

    def runs(filled: np.ndarray) -> list[tuple[int, int]]:
        edges = np.flatnonzero(np.diff(np.concatenate([[0], filled.astype(int), [0]])))
        return list(zip(edges[::2], edges[1::2]))

    finite = np.isfinite(z)
    return [z[r0:r1, c0:c1] for r0, r1 in runs(finite.any(axis=1)) for c0, c1 in runs(finite.any(axis=0))]


def test_on_a_projector_the_twelve_heads_are_two_rows_of_six_that_name_and_frame_each_head():
    """Presentation mode: the trained layer's 12 heads as 2 rows of 6 thumbnails, each the
    encoder's own weights; each cell's hover names its head; the click target on each thumbnail
    chooses that head; the frames surround the thumbnails in head order."""
    from attention_core.encoder import encode
    from attention_core.lesson import TRAINED_HEAD

    at = open_page(sentence="The cat sat on the mat", present="true")
    (fig,) = [spec for key, spec in figures_by_key(at).items() if key.startswith("fig_trained_heads")]
    weights = encode("The cat sat on the mat").layer(TRAINED_HEAD[0]).attention.weights  # (12, T, T)
    t = weights.shape[-1]
    z = z_of(fig)
    blocks = _blocks(z)
    assert len(blocks) == 12 and all(block.shape == (t, t) for block in blocks)
    np.testing.assert_allclose(np.stack(blocks), weights, atol=1e-6)  # float32 thumbnails
    filled_rows, filled_cols = np.isfinite(z).any(axis=1), np.isfinite(z).any(axis=0)
    rows = [r for r in range(z.shape[0]) if filled_rows[r] and (r == 0 or not filled_rows[r - 1])]  # first rows
    cols = [c for c in range(z.shape[1]) if filled_cols[c] and (c == 0 or not filled_cols[c - 1])]
    assert len(rows) == 2 and len(cols) == 6
    heatmap, targets = fig["data"][:2]
    text = heatmap["text"]
    frames = fig["layout"]["shapes"]
    for h in range(12):
        r0, c0 = rows[h // 6], cols[h % 6]
        assert {text[r][c] for r in range(r0, r0 + t) for c in range(c0, c0 + t)} == {
            translate("en", "figures.grid_head", head=h + 1)
        }
        x, y = targets["x"][h], targets["y"][h]
        assert heatmap["x"].index(x) in range(c0, c0 + t) and heatmap["y"].index(y) in range(r0, r0 + t)
        assert targets["customdata"][h] == [TRAINED_HEAD[0], h]
        assert (
            frames[h]["x0"] < c0 < c0 + t - 1 < frames[h]["x1"] and frames[h]["y0"] < r0 < r0 + t - 1 < frames[h]["y1"]
        )
    assert len(set(heatmap["x"])) == len(heatmap["x"]) and len(set(heatmap["y"])) == len(heatmap["y"])
    styles = [el.proto.body for el in at.get("html") if ".shape-group" in el.proto.body]
    assert styles and f'data-index="{TRAINED_HEAD[1]}"' in styles[0]  # the sidebar's head is framed


@pytest.mark.parametrize("params", [{"heads": "99"}, {"heads": "abc"}, {"heads": "0"}, {"causal": "maybe"}])
def test_hand_typed_url_parameters_are_safe(params):
    at = open_page(toy=True, **params)
    assert "fig_concat" in figures_by_key(at)


@pytest.mark.parametrize("sentence", ["", "<script>alert(1)</script>", "注意力机制很重要", "😀", "word " * 60])
def test_bad_input_gives_a_working_page(sentence):
    at = open_page(sentence, toy=True)
    for fig in figures_by_key(at).values():
        assert all("<" not in tick for tick in fig["layout"]["yaxis"].get("ticktext", []))


@pytest.mark.parametrize("params", [{}, {"causal": "false", "identity": "true", "heads": "4"}])
def test_the_chinese_page_is_chinese_throughout(params):
    at = open_page(lang="zh", toy=True, **params)
    texts = page_texts(at) + chart_words(at) + [p.label for p in at.get("button_group")]
    assert sum(bool(CJK.search(text)) for text in texts) >= 10
    left = english_prose(texts, allowed_words=SENTENCE.split())
    assert not left, f"English prose on the Chinese page: {left}"


def _chart_places(node, path=()) -> dict:
    """Where each chart sits in the page's element tree: key -> path of child indices."""
    places = {}
    for index, child in getattr(node, "children", {}).items():
        here = path + (index,)
        if getattr(child, "type", "") == "plotly_chart":
            places[child.proto.id.rsplit("-", 1)[-1]] = here
        places.update(_chart_places(child, here))
    return places


def test_the_mask_toggle_moves_no_chart():
    """On a trained head a note appears with the mask: it has a slot either way, so the mask
    chart (unchanged) keeps its place and its element, and the browser does not draw it again."""
    at = open_page()  # the model's trained head: the note is shown while the mask is on
    assert translate("en", "multi_head.trained_mask_note") in [c.value for c in at.caption]
    before, mask = _chart_places(at.main), figures_by_key(at)["fig_mask"]
    at.toggle(key="causal").set_value(False).run()
    assert not at.exception, at.exception
    assert translate("en", "multi_head.trained_mask_note") not in [c.value for c in at.caption]
    assert _chart_places(at.main) == before
    assert figures_by_key(at)["fig_mask"] == mask
