"""softmax and scaled_dot_product_attention against independent references.

References used here, none of them our own code:
* torch.nn.functional.scaled_dot_product_attention (float64) for the outputs, and
  torch.softmax of the scaled, masked scores for the weights;
* scipy.special.softmax;
* a plain Python implementation written below with nested loops and math.exp;
* golden cases small enough to derive by hand (the derivations are in the comments).
"""

from __future__ import annotations

import math
import re
import zlib

import numpy as np
import pytest
import scipy.special
import torch

from attention_core import LessonSettings, ToyEmbedder, build_lesson, causal_mask, scaled_dot_product_attention, softmax

F = torch.nn.functional
RTOL, ATOL = 1e-10, 1e-12


# --------------------------------------------------------------------------- references


def torch_reference(q, k, v, mask=None, scale=None, is_causal=False):
    """(outputs, weights) from PyTorch in float64.

    outputs: torch's own fused scaled_dot_product_attention.
    weights: torch.softmax of torch's scaled scores with disallowed entries set to -inf,
    the same recipe as torch's documented reference implementation.
    """
    qt, kt, vt = (torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64)) for x in (q, k, v))
    mt = None if mask is None else torch.from_numpy(np.ascontiguousarray(mask, dtype=bool))
    with torch.no_grad():
        out = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mt, scale=scale, is_causal=is_causal)
        s = 1.0 / math.sqrt(qt.shape[-1]) if scale is None else scale
        scaled = (qt @ kt.transpose(-1, -2)) * s
        if is_causal:
            t_q, t_k = scaled.shape[-2:]
            mt = torch.ones(t_q, t_k, dtype=torch.bool).tril(diagonal=0)
        if mt is not None:
            scaled = scaled.masked_fill(~mt, float("-inf"))
        weights = torch.softmax(scaled, dim=-1)
    return out.numpy(), weights.numpy()


def loop_attention(q, k, v, mask=None, scale=None):
    """Attention written out with Python lists, nested loops and math.exp (2-D only)."""
    t_q, d_k = len(q), len(q[0])
    t_k, d_v = len(k), len(v[0])
    s = 1.0 / math.sqrt(d_k) if scale is None else scale
    weights, outputs = [], []
    for i in range(t_q):
        row = []
        for j in range(t_k):
            if mask is not None and not mask[i][j]:
                row.append(None)
                continue
            dot = 0.0
            for d in range(d_k):
                dot += q[i][d] * k[j][d]
            row.append(dot * s)
        allowed = [x for x in row if x is not None]
        m = max(allowed)
        exps = [0.0 if x is None else math.exp(x - m) for x in row]
        total = sum(exps)
        w = [e / total for e in exps]
        weights.append(w)
        outputs.append([sum(w[j] * v[j][c] for j in range(t_k)) for c in range(d_v)])
    return np.array(weights), np.array(outputs)


def random_mask(rng, shape):
    """A random boolean mask in which every query row allows at least one key."""
    mask = rng.random(shape) < 0.6
    first_allowed = rng.integers(0, shape[-1], size=shape[:-1])
    np.put_along_axis(mask, first_allowed[..., None], True, axis=-1)
    return mask


# (lead, T_q, T_k, d_k, d_v): self- and cross-attention, with heads / batch leading dims
SHAPES = [
    ((), 1, 1, 1, 1),
    ((), 4, 4, 8, 8),
    ((), 5, 7, 3, 6),  # cross-attention: T_q != T_k and d_v != d_k
    ((), 9, 2, 16, 1),
    ((12,), 16, 16, 64, 64),  # 12 heads, as in BERT-base
    ((3,), 6, 11, 4, 7),
    ((2, 4), 8, 8, 32, 32),  # (batch, heads, T, d)
    ((2, 3), 3, 10, 5, 2),
]
SCALES = [None, 1.0, 0.5, 2.5, 0.01]


def _qkv(rng, lead, t_q, t_k, d_k, d_v, spread=1.0):
    q = rng.normal(0.0, spread, size=lead + (t_q, d_k))
    k = rng.normal(0.0, spread, size=lead + (t_k, d_k))
    v = rng.normal(0.0, 1.0, size=lead + (t_k, d_v))
    return q, k, v


# --------------------------------------------------------------------------- against torch


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("scale", SCALES, ids=lambda s: f"scale={s}")
def test_matches_torch_sdpa(shape, scale):
    rng = np.random.default_rng(zlib.crc32(repr((shape, scale)).encode()))
    lead, t_q, t_k, d_k, d_v = shape
    q, k, v = _qkv(rng, lead, t_q, t_k, d_k, d_v, spread=2.0)
    ref_out, ref_w = torch_reference(q, k, v, scale=scale)
    t = scaled_dot_product_attention(q, k, v, scale=scale)
    assert t.outputs.shape == lead + (t_q, d_v)
    assert t.weights.shape == lead + (t_q, t_k)
    np.testing.assert_allclose(t.weights, ref_w, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(t.outputs, ref_out, rtol=RTOL, atol=ATOL)
    expected_scale = 1.0 / math.sqrt(d_k) if scale is None else scale
    assert t.scale == pytest.approx(expected_scale, rel=1e-15)
    assert t.d_k == d_k


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_matches_torch_with_boolean_mask(shape):
    rng = np.random.default_rng(zlib.crc32(repr(shape).encode()))
    lead, t_q, t_k, d_k, d_v = shape
    q, k, v = _qkv(rng, lead, t_q, t_k, d_k, d_v)
    mask = random_mask(rng, lead + (t_q, t_k))
    ref_out, ref_w = torch_reference(q, k, v, mask=mask)
    t = scaled_dot_product_attention(q, k, v, mask=mask)
    np.testing.assert_allclose(t.weights, ref_w, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(t.outputs, ref_out, rtol=RTOL, atol=ATOL)
    # disallowed keys get weight exactly 0 and a -inf scaled score
    assert np.all(t.weights[~mask] == 0.0)
    assert np.all(np.isneginf(t.scaled[~mask]))
    assert np.all(np.isfinite(t.scaled[mask]))
    np.testing.assert_array_equal(t.mask, mask)


def test_mask_broadcasts_over_heads_like_torch():
    rng = np.random.default_rng(3)
    q, k, v = _qkv(rng, (4,), 6, 5, 8, 3)
    mask = random_mask(rng, (6, 5))  # one (T_q, T_k) mask shared by all heads
    ref_out, ref_w = torch_reference(q, k, v, mask=mask)
    t = scaled_dot_product_attention(q, k, v, mask=mask)
    np.testing.assert_allclose(t.weights, ref_w, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(t.outputs, ref_out, rtol=RTOL, atol=ATOL)
    assert t.mask.shape == (4, 6, 5)


def test_keys_shared_across_heads_broadcast_like_torch():
    rng = np.random.default_rng(4)
    q = rng.normal(size=(3, 5, 4))  # 3 heads of queries
    k = rng.normal(size=(7, 4))  # one set of keys and values for all heads
    v = rng.normal(size=(7, 2))
    ref_out, ref_w = torch_reference(q, np.broadcast_to(k, (3, 7, 4)), np.broadcast_to(v, (3, 7, 2)))
    t = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(t.weights, ref_w, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(t.outputs, ref_out, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("t_q,t_k", [(1, 1), (6, 6), (4, 9), (12, 12)])
@pytest.mark.parametrize("lead", [(), (3,)], ids=str)
def test_causal_mask_matches_torch_is_causal(t_q, t_k, lead):
    rng = np.random.default_rng(t_q * 100 + t_k)
    q, k, v = _qkv(rng, lead, t_q, t_k, 8, 5)
    ref_out, ref_w = torch_reference(q, k, v, is_causal=True)
    t = scaled_dot_product_attention(q, k, v, mask=causal_mask(t_q, t_k))
    np.testing.assert_allclose(t.weights, ref_w, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(t.outputs, ref_out, rtol=RTOL, atol=ATOL)
    # nothing above the diagonal: query i never sees a later key
    rows, cols = np.indices((t_q, t_k))
    assert np.all(t.weights[..., cols > rows] == 0.0)


def test_fully_masked_row_gives_zeros_where_torch_softmax_gives_nan():
    """Documents a deliberate difference: a query row with no allowed key.

    Ours: all-zero weights and an all-zero output (never NaN), as the docstring says.
    torch.softmax over a row of -inf: NaN weights. (torch 2.13's fused
    scaled_dot_product_attention itself returns a zero output row there, as ours does;
    older PyTorch releases returned NaN outputs too.)
    """
    rng = np.random.default_rng(5)
    q, k, v = _qkv(rng, (), 3, 4, 2, 3)
    mask = np.array(
        [
            [True, False, True, False],
            [False, False, False, False],  # query 1 may attend to nothing
            [True, True, True, True],
        ]
    )
    t = scaled_dot_product_attention(q, k, v, mask=mask)
    assert np.all(np.isfinite(t.weights)) and np.all(np.isfinite(t.outputs))
    np.testing.assert_array_equal(t.weights[1], np.zeros(4))
    np.testing.assert_array_equal(t.outputs[1], np.zeros(3))
    np.testing.assert_allclose(t.weights[[0, 2]].sum(-1), 1.0, rtol=1e-14)

    ref_out, ref_w = torch_reference(q, k, v, mask=mask)
    assert np.all(np.isnan(ref_w[1])), "torch.softmax of an all -inf row is NaN"
    np.testing.assert_allclose(t.weights[[0, 2]], ref_w[[0, 2]], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(t.outputs[[0, 2]], ref_out[[0, 2]], rtol=RTOL, atol=ATOL)
    # the fused kernel: finite rows agree; the empty row is zero (torch >= 2.5) or NaN (older)
    assert np.all(ref_out[1] == 0.0) or np.all(np.isnan(ref_out[1]))


# --------------------------------------------------------------------------- against a plain loop


@pytest.mark.parametrize("t_q,t_k,d_k,d_v", [(1, 1, 1, 1), (3, 3, 2, 2), (4, 6, 5, 3), (7, 2, 3, 4)])
@pytest.mark.parametrize("scale", [None, 1.0, 0.3])
@pytest.mark.parametrize("masked", [False, True])
def test_matches_python_loop(t_q, t_k, d_k, d_v, scale, masked):
    rng = np.random.default_rng(t_q + 10 * t_k + 100 * d_k + 1000 * d_v)
    q, k, v = _qkv(rng, (), t_q, t_k, d_k, d_v, spread=1.5)
    mask = random_mask(rng, (t_q, t_k)) if masked else None
    ref_w, ref_out = loop_attention(q.tolist(), k.tolist(), v.tolist(), None if mask is None else mask.tolist(), scale)
    t = scaled_dot_product_attention(q.tolist(), k.tolist(), v.tolist(), mask=mask, scale=scale)
    np.testing.assert_allclose(t.weights, ref_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(t.outputs, ref_out, rtol=1e-12, atol=1e-14)
    # the raw scores are plain dot products
    ref_scores = [[sum(a * b for a, b in zip(qi, kj)) for kj in k.tolist()] for qi in q.tolist()]
    np.testing.assert_allclose(t.scores, ref_scores, rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------- golden cases


def test_golden_two_tokens_default_scale():
    """Two tokens, d_k = 2, default scale 1/√2. Derivation:

    q_0 = (√2·ln 3, 0), q_1 = (0, 0); k_0 = (1, 0), k_1 = (0, 1); v_0 = (4, 0), v_1 = (0, 8).
    scores  α_0 = (q_0·k_0, q_0·k_1) = (√2 ln 3, 0);  α_1 = (0, 0)
    scaled  α_0/√2 = (ln 3, 0);                       (0, 0)
    weights α̂_0 = (e^{ln 3}, e^0)/(3 + 1) = (3/4, 1/4);  α̂_1 = (1/2, 1/2)
    outputs b_0 = 3/4·(4, 0) + 1/4·(0, 8) = (3, 2);     b_1 = 1/2·(4, 0) + 1/2·(0, 8) = (2, 4)
    """
    r2, ln3 = math.sqrt(2.0), math.log(3.0)
    q = [[r2 * ln3, 0.0], [0.0, 0.0]]
    k = [[1.0, 0.0], [0.0, 1.0]]
    v = [[4.0, 0.0], [0.0, 8.0]]
    t = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(t.scores, [[r2 * ln3, 0.0], [0.0, 0.0]], rtol=1e-15, atol=0)
    np.testing.assert_allclose(t.scaled, [[ln3, 0.0], [0.0, 0.0]], rtol=1e-14, atol=0)
    np.testing.assert_allclose(t.weights, [[0.75, 0.25], [0.5, 0.5]], rtol=1e-14, atol=0)
    np.testing.assert_allclose(t.outputs, [[3.0, 2.0], [2.0, 4.0]], rtol=1e-14, atol=0)
    assert t.scale == pytest.approx(1 / r2, rel=1e-15)


def test_golden_d_k_4_scale_is_one_half():
    """d_k = 4, so the default scale is 1/√4 = 1/2 exactly. Derivation:

    q = k = [(1, 1, 1, 1), (1, 1, -1, -1)]: q_0·k_0 = 4, q_0·k_1 = 1 + 1 - 1 - 1 = 0, q_1·k_1 = 4.
    scaled = [[2, 0], [0, 2]]; α̂_00 = e²/(e² + 1) = 1/(1 + e⁻²) ≈ 0.880797, α̂_01 ≈ 0.119203.
    v = [(1, 0), (0, 1)] gives outputs equal to the weights.
    """
    q = k = [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, -1.0, -1.0]]
    v = [[1.0, 0.0], [0.0, 1.0]]
    t = scaled_dot_product_attention(q, k, v)
    assert t.scale == 0.5
    np.testing.assert_array_equal(t.scores, [[4.0, 0.0], [0.0, 4.0]])
    np.testing.assert_array_equal(t.scaled, [[2.0, 0.0], [0.0, 2.0]])
    hi = 1.0 / (1.0 + math.exp(-2.0))
    lo = math.exp(-2.0) / (1.0 + math.exp(-2.0))
    np.testing.assert_allclose(t.weights, [[hi, lo], [lo, hi]], rtol=1e-14)
    assert round(hi, 6) == 0.880797 and round(lo, 6) == 0.119203
    np.testing.assert_allclose(t.outputs, t.weights, rtol=1e-15)


def test_scale_one_is_plain_dot_product_attention():
    rng = np.random.default_rng(8)
    q, k, v = _qkv(rng, (), 4, 4, 9, 2)
    t = scaled_dot_product_attention(q, k, v, scale=1.0)
    np.testing.assert_array_equal(t.scaled, t.scores)
    np.testing.assert_allclose(t.weights, scipy.special.softmax(q @ k.T, axis=-1), rtol=1e-12)


# --------------------------------------------------------------------------- softmax


@pytest.mark.parametrize("shape", [(1,), (5,), (3, 4), (2, 3, 7)], ids=str)
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("spread", [1.0, 0.5, 3.0, 20.0])
def test_softmax_matches_scipy(shape, axis, spread):
    rng = np.random.default_rng(len(shape) * 31 + shape[-1])
    x = rng.normal(0.0, 4.0 * spread, size=shape)
    got = softmax(x, axis=axis)
    want = scipy.special.softmax(x, axis=axis)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(got.sum(axis=axis), 1.0, rtol=1e-14)


def test_softmax_accepts_lists_and_returns_float64():
    got = softmax([1, 2, 3])
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, scipy.special.softmax([1.0, 2.0, 3.0]), rtol=1e-14)


def test_softmax_huge_scores_do_not_overflow():
    # exp(1e4) overflows float64; a stable softmax subtracts the max first.
    got = softmax([1e4, -1e4, 1e4 - 1.0])
    assert np.all(np.isfinite(got))
    e = math.exp(-1.0)
    np.testing.assert_allclose(got, [1 / (1 + e), 0.0, e / (1 + e)], rtol=1e-14, atol=0)
    np.testing.assert_array_equal(softmax([1e4, 1e4]), [0.5, 0.5])
    np.testing.assert_array_equal(softmax([-1e4, -1e4, -1e4]), [1 / 3, 1 / 3, 1 / 3])


def test_softmax_of_widely_spread_scores_is_one_hot_without_overflow():
    got = softmax([1e6, -1e6])  # exponents up to 2e6 without the shift
    np.testing.assert_array_equal(got, [1.0, 0.0])
    got = softmax([100.0, 200.0, 300.0])  # gaps of 100 in the exponent
    np.testing.assert_allclose(got, [math.exp(-200), math.exp(-100), 1.0], rtol=1e-12, atol=0)
    # a tie at the top splits evenly
    np.testing.assert_allclose(softmax([500.0, 500.0, -500.0]), [0.5, 0.5, 0.0], atol=1e-300)


def test_softmax_of_nearly_equal_scores_tends_to_uniform():
    got = softmax([0.0, 1e-6, 2e-6, 3e-6])
    np.testing.assert_allclose(got, 0.25, rtol=1e-5)


def test_softmax_minus_inf_entries_get_zero_weight():
    got = softmax([0.0, -np.inf, math.log(3.0), -np.inf])
    np.testing.assert_allclose(got, [0.25, 0.0, 0.75, 0.0], rtol=1e-15)
    assert got[1] == 0.0 and got[3] == 0.0
    got = softmax([-np.inf, 7.0])
    np.testing.assert_array_equal(got, [0.0, 1.0])


def test_softmax_all_minus_inf_row_is_zeros_not_nan():
    x = np.array([[1.0, 2.0, 3.0], [-np.inf, -np.inf, -np.inf]])
    with np.errstate(all="raise"):  # not even a hidden 0/0 or inf - inf
        got = softmax(x, axis=-1)
    assert np.all(np.isfinite(got))
    np.testing.assert_array_equal(got[1], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(got[0], scipy.special.softmax([1.0, 2.0, 3.0]), rtol=1e-14)
    np.testing.assert_array_equal(softmax([-np.inf, -np.inf]), [0.0, 0.0])


@pytest.mark.parametrize("bad", [[1.0, np.nan], [np.inf, 0.0], [[0.0], [np.nan]]], ids=str)
def test_softmax_rejects_nan_and_plus_inf(bad):
    with pytest.raises(ValueError, match=r"NaN|\+inf"):
        softmax(bad)


def test_softmax_has_no_temperature():
    """A sharper softmax is a scale on the scores (scaled_dot_product_attention's scale), not a
    second parameter that the app never set."""
    with pytest.raises(TypeError):
        softmax([1.0, 2.0], temperature=0.5)


# --------------------------------------------------------------------------- the trace


def test_trace_is_read_only_and_a_copy_of_the_inputs():
    rng = np.random.default_rng(9)
    q, k, v = _qkv(rng, (), 3, 3, 4, 4)
    mask = random_mask(rng, (3, 3))
    t = scaled_dot_product_attention(q, k, v, mask=mask)
    for name in ("q", "k", "v", "scores", "scaled", "weights", "outputs"):
        arr = getattr(t, name)
        assert arr.dtype == np.float64
        assert not arr.flags.writeable, f"trace.{name} is writeable"
        with pytest.raises(ValueError):
            arr[...] = 0.0
    before = t.outputs.copy()
    q[...] = 0.0  # changing the caller's arrays afterwards leaves the trace alone
    v[...] = 0.0
    mask[...] = False
    np.testing.assert_array_equal(t.outputs, before)
    assert t.mask.any()


def test_trace_mask_is_read_only_too():
    """AttentionTrace promises 'Every quantity ... read-only'; the mask is one of them."""
    t = scaled_dot_product_attention(np.eye(3), np.eye(3), np.eye(3), mask=causal_mask(3))
    assert not t.mask.flags.writeable, "trace.mask can be changed under a page"
    t3 = scaled_dot_product_attention(np.ones((2, 3, 3)), np.ones((2, 3, 3)), np.ones((2, 3, 3)), mask=causal_mask(3))
    assert not t3.head(1).mask.flags.writeable, "trace.head(h).mask can be changed under a page"


def test_no_mask_means_mask_none():
    t = scaled_dot_product_attention(np.eye(2), np.eye(2), np.eye(2))
    assert t.mask is None


def test_all_true_mask_changes_nothing():
    rng = np.random.default_rng(10)
    q, k, v = _qkv(rng, (2,), 4, 5, 3, 3)
    a = scaled_dot_product_attention(q, k, v)
    b = scaled_dot_product_attention(q, k, v, mask=np.ones((4, 5), dtype=bool))
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.outputs, b.outputs)


def test_finite_inputs_whose_scores_overflow_are_not_silently_wrong():
    """q·k beyond float64 (|q|, |k| ~ 1e200): either a clear error that names the overflow,
    or weights that are still a distribution. Never an unmasked row that sums to 0."""
    q = [[1e200]]
    for k in ([[-1e200], [-1e200]], [[1e200], [1.0]]):
        try:
            with np.errstate(over="ignore"):
                t = scaled_dot_product_attention(q, k, [[1.0], [2.0]])
        except ValueError as err:
            assert re.search(r"overflow|too large", str(err), re.I), (
                f"the error for finite inputs does not say that q·k overflowed: {err}"
            )
        else:
            np.testing.assert_allclose(t.weights.sum(-1), 1.0, err_msg=f"k={k}: weights {t.weights}")


# --------------------------------------------------------------------------- clear errors


def _raises_naming(call, *parts):
    """call() raises ValueError whose message contains every one of ``parts``."""
    with pytest.raises(ValueError, match=re.escape(parts[0])) as info:
        call()
    for p in parts[1:]:
        assert p in str(info.value), f"{p!r} not in {str(info.value)!r}"
    return str(info.value)


def test_error_one_dimensional_input():
    _raises_naming(lambda: scaled_dot_product_attention(np.ones(3), np.ones((2, 3)), np.ones((2, 3))), "(3,)")
    _raises_naming(lambda: scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), 1.0), "()")


@pytest.mark.parametrize("empty", [(0, 4), (3, 0), (2, 0, 4)], ids=str)
def test_error_empty_inputs(empty):
    ok = np.ones((3, 4))
    _raises_naming(lambda: scaled_dot_product_attention(np.ones(empty), ok, ok), str(empty))
    _raises_naming(lambda: scaled_dot_product_attention(ok, np.ones(empty), np.ones(empty)), str(empty))


def test_error_mismatched_d_k():
    _raises_naming(
        lambda: scaled_dot_product_attention(np.ones((3, 4)), np.ones((5, 6)), np.ones((5, 2))),
        "(3, 4)",
        "(5, 6)",
        "d_k",
    )


def test_error_mismatched_t_k():
    _raises_naming(
        lambda: scaled_dot_product_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((6, 2))),
        "(5, 4)",
        "(6, 2)",
    )


def test_error_leading_dims_do_not_broadcast():
    _raises_naming(
        lambda: scaled_dot_product_attention(np.ones((2, 3, 4)), np.ones((3, 3, 4)), np.ones((3, 3, 4))),
        "(2, 3, 4)",
        "(3, 3, 4)",
    )


@pytest.mark.parametrize("which", [0, 1, 2])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_error_non_finite_inputs(which, bad):
    arrays = [np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 4))]
    arrays[which][1, 2] = bad
    with pytest.raises(ValueError, match=r"NaN|inf"):
        scaled_dot_product_attention(*arrays)


@pytest.mark.parametrize("mask", [np.ones((3, 3), dtype=int), np.ones((3, 3)), [[1, 0, 1]] * 3], ids=str)
def test_error_non_boolean_mask(mask):
    with pytest.raises(ValueError, match="bool"):
        scaled_dot_product_attention(np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 4)), mask=mask)


@pytest.mark.parametrize("mask_shape", [(2, 2), (3, 4), (4, 3, 3)], ids=str)
def test_error_bad_mask_shape(mask_shape):
    mask = np.ones(mask_shape, dtype=bool)
    _raises_naming(
        lambda: scaled_dot_product_attention(np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 4)), mask=mask),
        str(mask_shape),
        "(3, 3)",
    )


@pytest.mark.parametrize("scale", [np.nan, np.inf, -np.inf])
def test_error_non_finite_scale(scale):
    with pytest.raises(ValueError, match="scale"):
        scaled_dot_product_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), scale=scale)


# --------------------------------------------------------------------------- the five-line formula


@pytest.mark.parametrize(("t_q", "t_k", "d_k", "d_v"), [(1, 1, 1, 1), (5, 5, 4, 4), (3, 7, 8, 2), (24, 24, 384, 384)])
def test_five_line_attention_equals_the_validated_function(t_q, t_k, d_k, d_v):
    """attention.attention (the formula as the code page shows it) gives the outputs of
    scaled_dot_product_attention (what the app runs) on random inputs, large scores included."""
    from attention_core.attention import attention

    rng = np.random.default_rng(t_q * 1000 + d_k)
    q, k, v = rng.normal(0, 3, (t_q, d_k)), rng.normal(0, 3, (t_k, d_k)), rng.normal(size=(t_k, d_v))
    np.testing.assert_allclose(
        attention(q, k, v), scaled_dot_product_attention(q, k, v).outputs, rtol=1e-12, atol=1e-13
    )


@pytest.mark.parametrize("projection", ["random", "identity", "trained"])
def test_five_line_attention_equals_the_lesson(projection):
    """On a lesson's own q, k and v the five lines give the lesson's outputs b."""
    from attention_core.attention import attention
    from attention_core.model import ModelEmbedder

    embedder = ModelEmbedder() if projection == "trained" else ToyEmbedder(dim=8)
    lesson = build_lesson(
        "The cat sat on the mat because it was tired", embedder, LessonSettings(projection=projection)
    )
    trace = lesson.trace
    np.testing.assert_allclose(attention(trace.q, trace.k, trace.v), trace.outputs, rtol=1e-10, atol=1e-12)


def test_a_trained_head_without_scaling_keeps_the_models_q_k_v():
    """Switching ÷√d_k off on a trained head is an experiment on the model's own q, k and v: the
    same numbers bit for bit (a chart of q, k, v that does not change is not sent again), and the
    weights are a softmax of q_i·k_j, written here as a loop, with no division."""
    from attention_core.model import ModelEmbedder

    sentence = "The cat sat on the mat because it was tired"
    scaled, unscaled = (
        build_lesson(sentence, ModelEmbedder(), LessonSettings(projection="trained", scaled=s)) for s in (True, False)
    )
    for name in ("q", "k", "v"):
        np.testing.assert_array_equal(getattr(unscaled.trace, name), getattr(scaled.trace, name))
    q, k, v = unscaled.trace.q, unscaled.trace.k, unscaled.trace.v
    for i in range(len(q)):
        scores = [math.fsum(x * y for x, y in zip(q[i], k[j])) for j in range(len(k))]
        exps = [math.exp(s - max(scores)) for s in scores]
        weights = [e / math.fsum(exps) for e in exps]
        np.testing.assert_allclose(unscaled.trace.weights[i], weights, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(unscaled.trace.outputs[i], np.array(weights) @ v, rtol=1e-9, atol=1e-12)
    assert not np.allclose(unscaled.trace.weights, scaled.trace.weights)  # the experiment changes something
