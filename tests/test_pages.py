"""AppTest for every page: renders without exception, and the numbers on the page are the
numbers attention_core computes for the same sentence and settings."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_core import LessonSettings, ToyEmbedder, build_lesson, explain

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
PAGES = ["pages/home.py", "pages/step_by_step.py", "pages/matrices.py"]


def _decode(value):
    """Plotly JSON arrays come base64-encoded as {"dtype", "bdata", "shape"}."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return arr.reshape([int(s) for s in str(value.get("shape", len(arr))).split(",")]) if "shape" in value else arr
    return np.array(value, dtype=float)


def charts(at) -> dict[str, dict]:
    """Plotly figures on the page by their Streamlit key suffix."""
    out = {}
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        title = spec["layout"].get("title", {}).get("text", "")
        out[title] = spec
    return out


def run_page(page: str, sentence: str | None = None, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page)
    at.run()
    if sentence is not None:
        at.text_input(key="sentence").set_value(sentence)
        at.run()
    return at


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_defaults_toy(page):
    at = run_page(page, toy="true")
    assert not at.exception, at.exception
    assert at.title, "every page has a title"


def test_default_page_uses_real_model_and_says_so():
    at = run_page("pages/matrices.py")
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "all-MiniLM-L6-v2" in captions and "seeded random" in captions


def test_matrices_numbers_equal_the_core():
    sentence = "the dog chased the cat"
    at = run_page("pages/matrices.py", sentence, toy="true")
    assert not at.exception
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    figs = charts(at)
    weights = next(v for k, v in figs.items() if k.startswith("Weights"))
    z = _decode(weights["data"][0]["z"])
    np.testing.assert_allclose(z, lesson.trace.weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-12)
    assert len(weights["layout"]["yaxis"]["ticktext"]) == 5  # the two "the" stay two rows
    assert weights["layout"]["yaxis"]["ticktext"][0] == "0: the" and weights["layout"]["yaxis"]["ticktext"][3] == "3: the"
    for prefix, expected in [("Q ", lesson.trace.q), ("K ", lesson.trace.k), ("V ", lesson.trace.v),
                             ("Scores", lesson.trace.scores), ("Outputs", lesson.trace.outputs)]:
        fig = next(v for k, v in figs.items() if k.startswith(prefix))
        np.testing.assert_allclose(_decode(fig["data"][0]["z"]), expected, atol=1e-12)


def test_step_page_walks_to_the_end_with_core_numbers():
    sentence = "attention mixes every word"
    at = run_page("pages/step_by_step.py", sentence, toy="true")
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    e = explain(lesson.trace, 0)
    for _ in range(6):
        assert not at.exception
        next_button = next(b for b in at.button if "Next" in b.label)
        next_button.click()
        at.run()
    assert not at.exception
    figs = charts(at)
    contrib = next(v for k, v in figs.items() if k.startswith("b_0"))
    bars = np.stack([_decode(trace["y"]) for trace in contrib["data"][:-1]])  # (T, d_v)
    np.testing.assert_allclose(bars, e.contributions, atol=1e-12)
    np.testing.assert_allclose(_decode(contrib["data"][-1]["y"]), e.output, atol=1e-12)


@pytest.mark.parametrize("sentence", ["", "   ", "\u200b", "<script>alert(1)</script>", "😀🎉", "!!!",
                                      "注意力机制很重要", "שלום עולם", "$$\\frac{1}{0}$$ {{x}}", "word " * 2000])
def test_bad_input_gives_a_working_page(sentence):
    at = run_page("pages/step_by_step.py", sentence[:1000], toy="true")
    assert not at.exception, at.exception


def test_long_sentence_is_cut_with_a_message():
    at = run_page("pages/matrices.py", "word " * 100, toy="true")
    assert not at.exception
    assert any("first 24" in i.value for i in at.info)


@pytest.mark.parametrize("params", [{"token": "999", "step": "77"}, {"token": "abc", "step": "-1"},
                                    {"d_k": "-3", "seed": "1e99"}, {"toy": "maybe"}])
def test_hand_typed_url_parameters_are_safe(params):
    at = run_page("pages/step_by_step.py", **{"toy": "true", **params})
    assert not at.exception, at.exception
