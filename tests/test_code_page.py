""" "The code" page: it prints our functions' real source (exactly inspect.getsource), the
arrays next to it equal an independent computation written here, and PyTorch — run here,
independently of the page — agrees with the page's numbers within 1e-12 in float64.
Without torch the page still works and says so."""

from __future__ import annotations

import dataclasses
import inspect
import math
import sys

import numpy as np
import pytest

from attention_core import (
    LessonSettings,
    ToyEmbedder,
    build_lesson,
    cosine_similarity,
    dot_similarity,
    explain,
    project,
    scaled_dot_product_attention,
    scaled_dot_similarity,
    self_attention,
    softmax,
)
from attention_core.attention import attention
from attention_core.reference import compare_with_torch, source_of, torch_attention
from attention_ui.i18n import translate
from attention_ui.registry import PAGES
from tests.helpers import ROOT, open_link
from tests.helpers import tables as page_tables

PAGE = "pages/code.py"
SENTENCE = "the customer wants a plaid shirt"
SHOWN = [
    project,
    self_attention,
    attention,
    scaled_dot_product_attention,
    softmax,
    explain,
    dot_similarity,
    scaled_dot_similarity,
    cosine_similarity,
    torch_attention,
]


def tables(at, lang: str = "en") -> dict:
    """The page's tables, named by what their columns say they are (AppTest does not
    expose a table's key)."""
    tr = lambda key: translate(lang, f"code.{key}")  # noqa: E731
    out = {}
    for frame in page_tables(at):
        cols = [str(c) for c in frame.columns]
        if cols == [tr("col_array"), tr("col_shape")]:
            out["shapes_attention" if "scores" in set(frame.iloc[:, 0]) else "shapes_project"] = frame
        elif cols and all(c.startswith("q[") for c in cols):
            out["table_q"] = frame
        elif cols and all(c.startswith("b[") for c in cols):  # the formula's outputs come first
            if len(frame) == 1:
                out["table_explain_output"] = frame
            else:
                out["table_outputs" if "table_formula" in out else "table_formula"] = frame
        elif cols == [tr("col_row_sum")]:
            out["table_row_sums"] = frame
        elif cols == [tr("col_scaled"), tr("col_weight")]:
            out["table_softmax"] = frame
        elif cols and cols[0] == "e.scores":
            out["table_explain"] = frame
        elif cols == ["dot", "scaled_dot", "cosine"]:
            out["table_similarity"] = frame
        elif cols == [tr("col_compared"), tr("col_difference")]:
            out["table_torch"] = frame
        elif cols == [str(i) for i in frame.index]:
            out["table_weights"] = frame
    return out


def open_runs(at):
    """The learner opens "What the app runs": closed, its source and tables are not built."""
    at.session_state["code_runs_open"] = True
    at.run()
    assert not at.exception, at.exception
    return at


def metric(at, label_key: str, lang: str = "en") -> str:
    label = translate(lang, label_key)
    return next(m.value for m in at.metric if m.label == label)


def reference_attention(sentence: str, settings: LessonSettings = LessonSettings()):
    """q, k, v and the weights and outputs, computed here with loops from the lesson's inputs and W."""
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), settings)
    a, p = lesson.inputs, lesson.projections  # (T, d_model)
    q = a @ p.w_q + p.b_q  # (T, d_k)
    k = a @ p.w_k + p.b_k  # (T, d_k)
    v = a @ p.w_v + p.b_v  # (T, d_v)
    scale = 1 / math.sqrt(q.shape[1]) if settings.scaled else 1.0
    weights = []
    for qi in q.tolist():
        scores = [math.fsum(x * y for x, y in zip(qi, kj)) * scale for kj in k.tolist()]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = math.fsum(exps)
        weights.append([e / total for e in exps])
    weights = np.array(weights)  # (T, T)
    outputs = np.array(
        [
            [math.fsum(w * vj[c] for w, vj in zip(row, v.tolist())) for c in range(v.shape[1])]
            for row in weights.tolist()
        ]
    )  # (T, d_v)
    return lesson, q, k, v, weights, outputs


def test_page_is_registered_last():
    assert PAGES[-1].id == "code"
    assert (ROOT / PAGE).is_file()
    for lang in ("en", "zh"):
        assert translate(lang, "shell.nav_code").strip()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_renders_in_each_language(lang):
    at = open_link(PAGE, sentence=SENTENCE, lang=lang)
    assert at.title[0].value == translate(lang, "code.title")
    headers = [h.value for h in at.subheader]
    for name in ("project", "attention", "softmax", "explain", "similarity", "torch"):
        assert translate(lang, f"code.header_{name}") in headers


def test_page_shows_the_real_source():
    at = open_runs(open_link(PAGE, sentence=SENTENCE))
    blocks = [c.value for c in at.code]
    for fn in SHOWN:
        # st.code strips the final newline (streamlit.string_util.clean_text); nothing else differs
        assert inspect.getsource(fn).strip() in blocks, f"{fn.__name__}: its source is not on the page"
        src = source_of(fn)
        assert src.text == inspect.getsource(fn)
        lines = (ROOT / src.file).read_text(encoding="utf-8").splitlines(keepends=True)
        assert "".join(lines[src.first_line - 1 : src.first_line - 1 + src.text.count("\n")]) == src.text
    captions = " ".join(c.value for c in at.caption)
    assert "attention_core/attention.py" in captions and "attention_core/reference.py" in captions


@pytest.mark.parametrize("scaled", [True, False])
def test_arrays_next_to_the_code_equal_an_independent_computation(scaled):
    settings = LessonSettings(scaled=scaled)
    at = open_link(PAGE, sentence=SENTENCE, scaled=str(scaled).lower())
    closed = tables(at)
    assert "table_weights" not in closed and "table_row_sums" not in closed and len(page_tables(at)) == 7
    lesson, q, k, v, weights, outputs = reference_attention(SENTENCE, settings)
    shown = tables(open_runs(at))
    assert len(shown) == len(page_tables(at)) == 11, sorted(shown)  # the PyTorch table only on request
    # the five-line attention always divides by √d_k, whatever the sidebar says
    _, _, _, _, _, formula_outputs = reference_attention(SENTENCE)
    np.testing.assert_allclose(shown["table_formula"].to_numpy(), formula_outputs, rtol=1e-12, atol=1e-14)
    assert float(metric(at, "code.formula_difference")) < 1e-12
    np.testing.assert_allclose(shown["table_q"].to_numpy(), q, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(shown["table_weights"].to_numpy(), weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(shown["table_outputs"].to_numpy(), outputs, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(shown["table_row_sums"].to_numpy().ravel(), 1.0, atol=1e-12)
    assert list(shown["table_weights"].index) == [f"{n}: {tok}" for n, tok in enumerate(lesson.tokens, start=1)]
    shapes = dict(zip(*shown["shapes_attention"].to_numpy().T))
    T = len(lesson.tokens)
    assert shapes["scores"] == f"({T}, {T})" and shapes["outputs"] == f"({T}, {v.shape[1]})"
    # token 0's softmax and explain(): the row's weights, and the similarity rows for q_0
    np.testing.assert_allclose(shown["table_softmax"].to_numpy()[:, 1], weights[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(shown["table_explain"]["e.weights"].to_numpy(), weights[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(shown["table_explain_output"].to_numpy()[0], outputs[0], rtol=1e-12, atol=1e-14)
    dots = np.array([math.fsum(x * y for x, y in zip(q[0], kj)) for kj in k])
    np.testing.assert_allclose(shown["table_similarity"]["dot"].to_numpy(), dots, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        shown["table_similarity"]["scaled_dot"].to_numpy(), dots / math.sqrt(q.shape[1]), rtol=1e-12, atol=1e-14
    )


def test_choosing_a_token_changes_the_one_row_functions():
    i = 3
    at = open_link(PAGE, sentence=SENTENCE)
    at.button_group(key="code_token_picker").set_value(i).run()
    assert not at.exception, at.exception
    _, _, _, _, weights, outputs = reference_attention(SENTENCE)
    shown = tables(at)
    np.testing.assert_allclose(shown["table_softmax"].to_numpy()[:, 1], weights[i], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(shown["table_explain_output"].to_numpy()[0], outputs[i], rtol=1e-12, atol=1e-14)
    assert f"softmax(trace.scaled[{i}])" in [c.value for c in at.code]


def test_torch_agrees_within_1e_12():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    at = open_link(PAGE, sentence=SENTENCE)
    assert translate("en", "code.torch_largest") not in [m.label for m in at.metric]  # only on request
    at.button(key="code_torch_button").click().run()
    assert not at.exception, at.exception
    shown_difference = float(metric(at, "code.torch_largest"))
    assert 0 <= shown_difference < 1e-12
    # PyTorch run here, on our own q, k, v: its weights and outputs equal the page's tables
    _, q, k, v, _, _ = reference_attention(SENTENCE)
    Q, K, V = (torch.tensor(x, dtype=torch.float64) for x in (q, k, v))
    torch_weights = torch.softmax(Q @ K.T / math.sqrt(q.shape[1]), dim=-1).numpy()
    torch_outputs = F.scaled_dot_product_attention(Q, K, V).numpy()
    shown = tables(open_runs(at))
    assert np.abs(shown["table_weights"].to_numpy() - torch_weights).max() < 1e-12
    assert np.abs(shown["table_outputs"].to_numpy() - torch_outputs).max() < 1e-12


def test_compare_with_torch_sees_a_difference():
    """The comparison is not vacuous: a trace whose weights are off by 1e-6 is reported so."""
    pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    trace = scaled_dot_product_attention(*(rng.normal(size=(5, 4)) for _ in range(3)))
    assert compare_with_torch(trace).largest < 1e-12
    off = dataclasses.replace(trace, weights=trace.weights + 1e-6)
    got = compare_with_torch(off)
    assert got.weights == pytest.approx(1e-6, rel=1e-3) and got.outputs < 1e-12
    unscaled = scaled_dot_product_attention(trace.q, trace.k, trace.v, scale=1.0)
    assert compare_with_torch(unscaled).largest < 1e-12


def test_page_without_torch_says_so(monkeypatch):
    import streamlit as st

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    monkeypatch.setitem(sys.modules, "torch.nn", None)
    monkeypatch.setitem(sys.modules, "torch.nn.functional", None)
    st.cache_data.clear()
    try:
        at = open_link(PAGE, sentence=SENTENCE)
        at.button(key="code_torch_button").click().run()
        assert not at.exception, at.exception
        assert any(i.value == translate("en", "code.no_torch") for i in at.info)
        assert translate("en", "code.torch_largest") not in [m.label for m in at.metric]
        assert inspect.getsource(torch_attention).strip() in [c.value for c in at.code]  # still shown
    finally:
        st.cache_data.clear()


@pytest.mark.parametrize("sentence", ["", "<script>alert(1)</script>", "注意力机制很重要"])
def test_bad_input_gives_a_working_page(sentence):
    at = open_link(PAGE, sentence=sentence)
    if not sentence:
        assert any(i.value == translate("en", "code.no_sentence") for i in at.info)


def test_with_the_real_model_torch_still_agrees():
    pytest.importorskip("torch")
    at = open_link(PAGE, sentence=SENTENCE, toy=False)
    at.button(key="code_torch_button").click().run()
    assert not at.exception, at.exception
    assert float(metric(at, "code.torch_largest")) < 1e-12
    assert "all-MiniLM-L6-v2" in " ".join(c.value for c in at.caption)
