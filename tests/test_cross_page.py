"""AppTest for the "Self vs cross attention" page (pages/cross_attention.py), in English and
Chinese: the rectangular (T_q × T_k) matrices and the square self-attention ones on the page
equal PyTorch's attention (float64) on the same inputs, with the right axes and shapes;
the swap control, the examples and bad input work."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from streamlit.testing.v1 import AppTest

from attention_core import LessonSettings, ToyEmbedder, build_lesson
from attention_ui.i18n import translate
from tests.helpers import CJK, chart_words, english_prose, figures_by_key, open_link, page_texts, plotly_array, z_of

PAGE = "pages/cross_attention.py"
DEFAULT_B = "Le chat s'est assis sur le tapis car il était fatigué"
SENTENCE_A = "the dog chased the cat"  # 5 toy tokens; the French default has 11: a 5 × 11 matrix


def open_page(
    sentence: str = SENTENCE_A, sentence_b: str | None = None, lang: str = "en", *, toy: bool = False, **params
) -> AppTest:
    """The page from a shared link with ``sentence`` (and sentence B, when given; else the page's
    default), on the real model unless ``toy``; ``params`` are the link's other parameters."""
    if sentence_b is not None:
        params["sentence_b"] = sentence_b
    return open_link(PAGE, lang, toy=toy, sentence=sentence, **params)


def torch_attention(x_q: np.ndarray, x_kv: np.ndarray, w_q, w_k, w_v, scale: float):
    """The reference: PyTorch in float64. Scores, weights and outputs, the outputs from
    F.scaled_dot_product_attention itself."""
    xq, xkv = torch.tensor(x_q, dtype=torch.float64), torch.tensor(x_kv, dtype=torch.float64)
    q = xq @ torch.tensor(w_q, dtype=torch.float64)  # (T_q, d_k)
    k = xkv @ torch.tensor(w_k, dtype=torch.float64)  # (T_k, d_k)
    v = xkv @ torch.tensor(w_v, dtype=torch.float64)  # (T_k, d_v)
    scores = q @ k.T  # (T_q, T_k)
    weights = torch.softmax(scores * scale, dim=-1)  # (T_q, T_k)
    outputs = F.scaled_dot_product_attention(q[None], k[None], v[None], scale=scale)[0]  # (T_q, d_v)
    return scores.numpy(), weights.numpy(), outputs.numpy()


def lessons(sentence_a: str, sentence_b: str, settings: LessonSettings = LessonSettings()):
    embedder = ToyEmbedder(dim=8)
    return build_lesson(sentence_a, embedder, settings), build_lesson(sentence_b, embedder, settings)


def labels(tokens) -> list[str]:
    """The axis labels, written here: tokens counted from 1."""
    return [f"{i}: {tok}" for i, tok in enumerate(tokens, start=1)]


def cross_maps(figs) -> tuple[np.ndarray, np.ndarray]:
    """The scores and the weights: the two panels of the page's one cross-attention chart."""
    scores, weights = (plotly_array(panel["z"]) for panel in figs["fig_cross"]["data"])
    return scores, weights


def key_ticks(figs) -> list[str]:
    """The column labels under the weights panel: sentence B's key tokens."""
    return figs["fig_cross"]["layout"]["xaxis2"]["ticktext"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cross_attention_numbers_equal_torch(lang):
    at = open_page(lang=lang, toy=True)
    a, b = lessons(SENTENCE_A, DEFAULT_B)
    assert (len(a.tokens), len(b.tokens)) == (5, 11)
    p = a.projections
    scores, weights, outputs = torch_attention(a.inputs, b.inputs, p.w_q, p.w_k, p.w_v, 1 / np.sqrt(p.d_k))
    figs = figures_by_key(at)
    for got, expected in zip((*cross_maps(figs), z_of(figs["fig_cross_outputs"])), (scores, weights, outputs)):
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cross_maps(figs)[1].sum(axis=1), 1.0, atol=1e-12)
    assert cross_maps(figs)[1].shape == (5, 11)  # T_q × T_k, not square
    assert z_of(figs["fig_cross_outputs"]).shape == (5, p.d_v)  # T_q × d_v
    layout = figs["fig_cross"]["layout"]
    assert layout["yaxis"]["ticktext"] == labels(a.tokens)  # rows: A's query tokens
    assert key_ticks(figs) == labels(b.tokens) == layout["xaxis"]["ticktext"]  # columns: B's key tokens
    assert "5 × 11" in layout["title"]["text"].replace("<br>", "")
    assert layout["yaxis"]["title"]["text"] == translate(lang, "cross_attention.query_axis", name="A")
    assert layout["xaxis2"]["title"]["text"] == translate(lang, "cross_attention.key_axis", name="B")
    assert figs["fig_cross"]["data"][1]["customdata"][0][2] == ["1: " + a.tokens[0], "3: " + b.tokens[2]]  # hover
    assert at.title[0].value == translate(lang, "cross_attention.title")
    shapes = translate(lang, "cross_attention.shapes", t_q=5, t_k=11, asker="A", answerer="B")
    assert any(m.value == shapes for m in at.markdown)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_self_attention_squares_equal_torch(lang):
    for which, lesson in zip("ab", lessons(SENTENCE_A, DEFAULT_B)):  # a tab each: only the open one is drawn
        at = open_page(lang=lang, toy=True, self_of=which)
        figs = figures_by_key(at)
        key = f"fig_self_{which}"
        assert not {"fig_self_a", "fig_self_b"} - {key} & set(figs), "the closed tab is not drawn"
        p = lesson.projections
        _, weights, _ = torch_attention(lesson.inputs, lesson.inputs, p.w_q, p.w_k, p.w_v, 1 / np.sqrt(p.d_k))
        z = z_of(figs[key])
        assert z.shape == (len(lesson.tokens), len(lesson.tokens))
        np.testing.assert_allclose(z, weights, rtol=0, atol=1e-12, err_msg=key)
        assert figs[key]["layout"]["xaxis"]["ticktext"] == labels(lesson.tokens)


def test_swap_lets_sentence_b_ask():
    at = open_page(toy=True)
    at.toggle(key="swap").set_value(True)
    at.run()
    assert not at.exception, at.exception
    a, b = lessons(SENTENCE_A, DEFAULT_B)
    p = a.projections
    scores, weights, outputs = torch_attention(b.inputs, a.inputs, p.w_q, p.w_k, p.w_v, 1 / np.sqrt(p.d_k))
    figs = figures_by_key(at)
    np.testing.assert_allclose(cross_maps(figs)[0], scores, atol=1e-12)
    np.testing.assert_allclose(cross_maps(figs)[1], weights, atol=1e-12)
    np.testing.assert_allclose(z_of(figs["fig_cross_outputs"]), outputs, atol=1e-12)
    assert cross_maps(figs)[1].shape == (11, 5)
    assert figs["fig_cross"]["layout"]["yaxis"]["ticktext"] == labels(b.tokens) and key_ticks(figs) == labels(a.tokens)


def test_settings_of_the_sidebar_apply_to_both_sentences():
    """Unscaled, another seed and d_k: sentence B gets the same W and the same scale as A."""
    at = open_page(toy=True, scaled="false", seed="7", d_k="6")
    a, b = lessons(SENTENCE_A, DEFAULT_B, LessonSettings(d_k=6, seed=7, scaled=False))
    p = a.projections
    assert p.d_k == 6 and np.array_equal(p.w_q, b.projections.w_q)
    scores, weights, outputs = torch_attention(a.inputs, b.inputs, p.w_q, p.w_k, p.w_v, 1.0)
    figs = figures_by_key(at)
    np.testing.assert_allclose(cross_maps(figs)[1], weights, atol=1e-12)
    np.testing.assert_allclose(z_of(figs["fig_cross_outputs"]), outputs, atol=1e-12)
    assert z_of(figs["fig_cross_outputs"]).shape == (5, 6)


def test_rectangular_both_ways_with_identity_projections():
    """Identity W: q = k = v = the inputs, so the scores are X_A X_Bᵀ and swapping transposes them."""
    at = open_page(toy=True, identity="true", sentence_b="un deux")
    a, b = lessons(SENTENCE_A, "un deux", LessonSettings(projection="identity"))
    expected = a.inputs @ b.inputs.T  # (5, 2)
    np.testing.assert_allclose(cross_maps(figures_by_key(at))[0], expected, atol=1e-12)
    at.toggle(key="swap").set_value(True)
    at.run()
    np.testing.assert_allclose(cross_maps(figures_by_key(at))[0], expected.T, atol=1e-12)


def test_chinese_sentence_b_with_the_toy_embedder_is_one_token_per_character():
    at = open_page(toy=True, sentence_b="猫坐在垫子上")
    assert key_ticks(figures_by_key(at)) == labels("猫坐在垫子上")
    assert not at.warning


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chinese_sentence_b_with_the_real_model_says_unk(lang):
    at = open_page(sentence="The cat sat on the mat", sentence_b="猫坐在垫子上", lang=lang)
    n_b = cross_maps(figures_by_key(at))[1].shape[1]  # [CLS], 6 pieces, [SEP]: the trained sidebar's numbering
    expected = translate(lang, "cross_attention.b_unknown_hidden", unknown=n_b - 4, total=n_b - 2)  # 子, 上 known
    words = translate(lang, "shell.list_sep").join(["猫", "坐", "在", "垫"])
    assert [w.value for w in at.warning] == [expected + " " + translate(lang, "shell.unknown_words", words=words)]


def test_example_pills_fill_sentence_b():
    at = open_page(toy=True)
    at.pills(key="b_example").set_value("zh")
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="sentence_b").value == "猫坐在垫子上，因为它累了"
    assert key_ticks(figures_by_key(at))[0] == "1: 猫"
    assert at.pills(key="b_example").value is None  # a one-shot button, ready for the next click


@pytest.mark.parametrize("sentence_b", ["", "   ", "\u200b", "!!!"])
def test_empty_sentence_b_asks_for_one(sentence_b):
    at = open_page(toy=True, sentence_b=sentence_b)
    if not sentence_b.strip("\u200b "):
        assert any(i.value == translate("en", "cross_attention.no_sentence_b") for i in at.info)
        assert not at.get("plotly_chart")


def test_html_in_sentence_b_is_escaped_in_the_chart():
    at = open_page(toy=True, sentence_b="<b>bold</b> <script>")
    figs = figures_by_key(at)
    ticks = key_ticks(figs)
    assert all("<" not in tick for tick in ticks) and any("&lt;" in tick for tick in ticks)
    hover = [name for row in figs["fig_cross"]["data"][1]["customdata"] for cell in row for name in cell]
    assert all("<" not in name for name in hover) and any("&lt;" in name for name in hover)


def test_long_sentence_b_is_cut_with_a_message():
    at = open_page(toy=True, sentence_b="word " * 100)
    assert any(i.value == translate("en", "cross_attention.b_truncated", total=100, shown=24) for i in at.info)
    assert cross_maps(figures_by_key(at))[1].shape == (5, 24)


def test_empty_sentence_a_still_shows_the_page():
    at = open_page(sentence="", toy=True)
    assert at.title and not at.get("plotly_chart")


@pytest.mark.parametrize("params", [{"swap": "zzz"}, {"swap": ""}, {"sentence_b": "x" * 5000}, {"b_example": "xx"}])
def test_hand_typed_url_parameters_are_safe(params):
    at = open_page(toy=True, **params)
    assert at.get("plotly_chart")


def test_sentence_b_comes_from_the_url():
    at = open_page(toy=True, sentence_b="hello world", swap="true")
    layout = figures_by_key(at)["fig_cross"]["layout"]
    assert layout["yaxis"]["ticktext"] == ["1: hello", "2: world"]  # B asks: B's tokens are the rows


def test_the_chinese_page_is_chinese_throughout():
    at = open_page(lang="zh", toy=True)
    texts = page_texts(at) + chart_words(at) + [p.label for p in at.get("button_group")]
    assert sum(bool(CJK.search(text)) for text in texts) >= 10
    left = english_prose(texts, allowed_words=SENTENCE_A.split() + DEFAULT_B.split())
    assert not left, f"English prose on the Chinese page: {left}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_trained_sidebar_keeps_the_hidden_states_and_the_numbering_of_the_other_pages(lang):
    """The model has no cross-attention head: with W = Trained (the default) both sentences keep the
    hidden states the sidebar's head reads, [CLS] and [SEP] included, so "she" has the number it
    has on Step by step; W^Q, W^K, W^V are the sidebar's seeded random ones. Numbers against PyTorch."""
    from attention_core.model import ModelEmbedder
    from attention_core.projections import random_projections

    sentence_a, sentence_b = "The boy thanked the girl because she had helped him", "A tired cat rested on the rug"
    at = open_page(sentence=sentence_a, sentence_b=sentence_b, lang=lang)
    settings = LessonSettings(projection="trained")
    a, b = (build_lesson(text, ModelEmbedder(), settings) for text in (sentence_a, sentence_b))
    w = random_projections(a.inputs.shape[1], settings.d_k, seed=settings.seed)
    scores, weights, outputs = torch_attention(a.inputs, b.inputs, w.w_q, w.w_k, w.w_v, 1 / np.sqrt(w.d_k))
    figs = figures_by_key(at)
    for got, expected in zip((*cross_maps(figs), z_of(figs["fig_cross_outputs"])), (scores, weights, outputs)):
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    rows = figs["fig_cross"]["layout"]["yaxis"]["ticktext"]
    assert rows == labels(a.tokens) and rows[0] == "1: [CLS]" and "8: she" in rows  # as on Step by step
    assert key_ticks(figs) == labels(b.tokens) and key_ticks(figs)[-1].endswith("[SEP]")
    layer = settings.layer + 1
    assert any(i.value == translate(lang, "cross_attention.no_trained_heads", layer=layer) for i in at.info)
    caption = translate(lang, "cross_attention.inputs_caption_hidden", d_model=384, seed=0, d_k=4, layer=layer)
    assert caption in [c.value for c in at.caption]
