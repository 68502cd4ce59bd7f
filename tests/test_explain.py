"""explain(trace, i) and AttentionTrace.head(h): the one-row view must be the matrix view.

The row quantities (scores, scaled, weights, output) must be *exactly* the trace's numbers
(np.array_equal: the UI shows both and they must never differ in the last digit); the
intermediate arithmetic (products, exps, row_sum, contributions) must reproduce them to
rounding, and is also checked against math.exp written out here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core import AttentionTrace, causal_mask, explain, scaled_dot_product_attention
from attention_core.explain import TokenExplanation

TOL = dict(rtol=1e-12, atol=1e-13)


def _trace(seed, t_q=5, t_k=5, d_k=4, d_v=4, mask=None, scale=None, lead=()):
    rng = np.random.default_rng(seed)
    q = rng.normal(0.0, 1.5, size=lead + (t_q, d_k))
    k = rng.normal(0.0, 1.5, size=lead + (t_k, d_k))
    v = rng.normal(0.0, 1.0, size=lead + (t_k, d_v))
    return scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)


CASES = [
    dict(seed=0),
    dict(seed=1, t_q=1, t_k=1, d_k=1, d_v=1),
    dict(seed=2, t_q=3, t_k=8, d_k=6, d_v=2),  # cross-attention shapes
    dict(seed=3, t_q=7, t_k=7, d_k=16, d_v=16, scale=1.0),
    dict(seed=4, t_q=6, t_k=6, d_k=3, d_v=5, mask=causal_mask(6)),
    dict(seed=5, t_q=4, t_k=9, d_k=2, d_v=3, mask=causal_mask(4, 9), scale=0.2),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_explain_reproduces_every_row(case):
    t = _trace(**case)
    t_q, t_k = t.weights.shape
    for i in range(t_q):
        e = explain(t, i)
        assert isinstance(e, TokenExplanation)
        assert e.i == i
        # exactly the trace's numbers
        assert np.array_equal(e.scores, t.scores[i])
        assert np.array_equal(e.scaled, t.scaled[i])
        assert np.array_equal(e.weights, t.weights[i])
        assert np.array_equal(e.output, t.outputs[i])
        assert np.array_equal(e.q_i, t.q[i])
        assert np.array_equal(e.k, t.k) and np.array_equal(e.v, t.v)
        assert e.scale == t.scale
        # the arithmetic reproduces them
        assert e.products.shape == (t_k, t.d_k)
        np.testing.assert_allclose(e.products.sum(-1), t.scores[i], **TOL)
        np.testing.assert_allclose(e.exps / e.row_sum, t.weights[i], **TOL)
        assert e.contributions.shape == (t_k, t.v.shape[-1])
        np.testing.assert_allclose(e.contributions.sum(0), t.outputs[i], **TOL)
        # products are elementwise q_i[d] * k_j[d]
        for j in range(t_k):
            for d in range(t.d_k):
                assert e.products[j, d] == t.q[i, d] * t.k[j, d]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_exps_and_row_max_against_math_exp(case):
    t = _trace(**case)
    for i in range(t.weights.shape[0]):
        e = explain(t, i)
        allowed = [float(s) for s in t.scaled[i] if s != -math.inf]
        m = max(allowed)
        assert e.row_max == m
        want = [0.0 if s == -math.inf else math.exp(s - m) for s in t.scaled[i].tolist()]
        np.testing.assert_allclose(e.exps, want, rtol=1e-14, atol=0)
        assert e.row_sum == pytest.approx(math.fsum(want), rel=1e-14)
        assert e.exps.max() == 1.0  # the largest allowed score gives exp(0)
        assert np.all((e.exps >= 0) & (e.exps <= 1))
        assert e.top_key == int(np.argmax(t.weights[i]))


def test_masked_entries():
    mask = np.array([[True, False, True, False], [False, True, False, False], [True, True, True, True]])
    t = _trace(11, t_q=3, t_k=4, d_k=3, d_v=2, mask=mask)
    for i in range(3):
        e = explain(t, i)
        off = ~mask[i]
        assert np.all(np.isneginf(e.scaled[off]))
        assert np.all(e.exps[off] == 0.0)
        assert np.all(e.weights[off] == 0.0)
        assert np.all(e.contributions[off] == 0.0)
        assert np.all(e.exps[mask[i]] > 0.0)
        # the raw scores are still shown for masked keys (masking acts after scoring)
        np.testing.assert_allclose(e.scores[off], e.products[off].sum(-1), **TOL)
        assert e.row_max == max(e.scaled[mask[i]])
        assert mask[i, e.top_key]
    # a row with a single allowed key puts all its weight there
    e1 = explain(t, 1)
    np.testing.assert_array_equal(e1.weights, [0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(e1.output, t.v[1])


def test_fully_masked_row():
    mask = np.array([[True, True], [False, False]])
    t = _trace(12, t_q=2, t_k=2, d_k=2, d_v=3, mask=mask)
    e = explain(t, 1)
    np.testing.assert_array_equal(e.exps, [0.0, 0.0])
    assert e.row_sum == 0.0
    np.testing.assert_array_equal(e.weights, [0.0, 0.0])
    np.testing.assert_array_equal(e.output, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(e.contributions, np.zeros((2, 3)))
    assert np.isfinite(e.row_max)


def test_golden_row_by_hand():
    """q_0 = (2, 0), k = [(1, 0), (0, 1)], scale = 1 → products [(2, 0), (0, 0)], scores (2, 0),
    exps (e⁰, e⁻²) = (1, e⁻²), row_sum 1 + e⁻², weights (1, e⁻²)/(1 + e⁻²)."""
    t = scaled_dot_product_attention([[2.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[10.0], [20.0]], scale=1.0)
    e = explain(t, 0)
    np.testing.assert_array_equal(e.products, [[2.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(e.scores, [2.0, 0.0])
    assert e.row_max == 2.0
    np.testing.assert_allclose(e.exps, [1.0, math.exp(-2.0)], rtol=1e-15)
    assert e.row_sum == pytest.approx(1.0 + math.exp(-2.0), rel=1e-15)
    w0 = 1.0 / (1.0 + math.exp(-2.0))
    np.testing.assert_allclose(e.contributions, [[10.0 * w0], [20.0 * (1 - w0)]], rtol=1e-14)
    np.testing.assert_allclose(e.output, [10.0 * w0 + 20.0 * (1 - w0)], rtol=1e-14)


@pytest.mark.parametrize("i", [-1, 5, 100, 1.0, 1.5, True, False, "0", None])
def test_bad_i_raises(i):
    t = _trace(13)  # T_q = 5
    with pytest.raises(ValueError, match=r"0\.\.4"):
        explain(t, i)


def test_numpy_integer_i_is_accepted():
    t = _trace(14)
    for i in (np.int64(2), np.int32(2), np.uint8(2)):
        assert np.array_equal(explain(t, i).weights, t.weights[2])
        assert explain(t, i).i == 2 and type(explain(t, i).i) is int


@pytest.mark.parametrize("lead", [(3,), (2, 3)], ids=str)
def test_multi_head_trace_is_refused(lead):
    t = _trace(15, lead=lead)
    with pytest.raises(ValueError, match=r"head") as info:
        explain(t, 0)
    assert str(t.weights.shape) in str(info.value)


# --------------------------------------------------------------------------- head(h)


def _assert_head_is_slice(t: AttentionTrace, h: int):
    th = t.head(h)
    lead = t.scores.shape[:-2]
    for name in ("q", "k", "v"):
        full = np.broadcast_to(getattr(t, name), lead + getattr(t, name).shape[-2:])
        assert np.array_equal(getattr(th, name), full[h]), name
    for name in ("scores", "scaled", "weights", "outputs"):
        assert np.array_equal(getattr(th, name), getattr(t, name)[h]), name
    assert th.scale == t.scale
    if t.mask is None:
        assert th.mask is None
    else:
        assert np.array_equal(th.mask, np.broadcast_to(t.mask, t.scores.shape)[h])
    for name in ("q", "k", "v", "scores", "scaled", "weights", "outputs"):
        assert not getattr(th, name).flags.writeable
    return th


@pytest.mark.parametrize("mask", [None, causal_mask(5)], ids=["nomask", "causal"])
def test_head_equals_slicing(mask):
    t = _trace(16, lead=(4,), mask=mask)
    for h in range(4):
        th = _assert_head_is_slice(t, h)
        assert th.weights.ndim == 2
        # and it is what attention on that head alone computes
        alone = scaled_dot_product_attention(th.q, th.k, th.v, mask=mask, scale=t.scale)
        np.testing.assert_allclose(alone.weights, th.weights, **TOL)
        np.testing.assert_allclose(alone.outputs, th.outputs, **TOL)
        # explain works on it and agrees with the full trace
        e = explain(th, 2)
        assert np.array_equal(e.weights, t.weights[h, 2])
        assert np.array_equal(e.output, t.outputs[h, 2])


def test_head_with_keys_shared_across_heads():
    rng = np.random.default_rng(17)
    q = rng.normal(size=(3, 4, 2))  # per-head queries
    k = rng.normal(size=(6, 2))  # shared keys/values broadcast over heads
    v = rng.normal(size=(6, 5))
    t = scaled_dot_product_attention(q, k, v)
    for h in range(3):
        th = _assert_head_is_slice(t, h)
        assert np.array_equal(th.k, k) and np.array_equal(th.v, v)
        assert th.q.shape == (4, 2)


def test_head_of_batch_heads_trace_keeps_inner_axis():
    t = _trace(18, lead=(2, 3), t_q=4, t_k=4)
    tb = _assert_head_is_slice(t, 1)
    assert tb.weights.shape == (3, 4, 4)
    inner = _assert_head_is_slice(tb, 2)
    assert np.array_equal(inner.weights, t.weights[1, 2])


@pytest.mark.parametrize("h", [-1, 4, 99])
def test_head_out_of_range(h):
    t = _trace(19, lead=(4,))
    with pytest.raises(ValueError, match=r"0\.\.3"):
        t.head(h)


def test_head_on_single_head_trace():
    t = _trace(20)
    with pytest.raises(ValueError, match=r"\(5, 5\)"):
        t.head(0)
