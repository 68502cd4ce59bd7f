"""Properties of softmax and attention that hold for every input (Hypothesis).

Each property is a mathematical fact about softmax(QKᵀ·s)V, independent of how it is coded:
weights form a distribution; softmax ignores a constant added to a row; an output is a
convex combination of the values; permuting tokens permutes the results; identical keys
tie; masked attention equals attention over the allowed keys only; extreme magnitudes
never produce NaN.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention_core import scaled_dot_product_attention, softmax

FAST = settings(max_examples=60, deadline=None)
FASTER = settings(max_examples=40, deadline=None)


def floats(bound):
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False)


@st.composite
def qkv(draw, bound=10.0, max_t=6, max_d=5, lead=False):
    """Random q (…, T_q, d_k), k (…, T_k, d_k), v (…, T_k, d_v)."""
    lead_shape = (draw(st.integers(1, 3)),) if lead else ()
    t_q, t_k = draw(st.integers(1, max_t)), draw(st.integers(1, max_t))
    d_k, d_v = draw(st.integers(1, max_d)), draw(st.integers(1, max_d))
    el = floats(bound)
    q = draw(hnp.arrays(np.float64, lead_shape + (t_q, d_k), elements=el))
    k = draw(hnp.arrays(np.float64, lead_shape + (t_k, d_k), elements=el))
    v = draw(hnp.arrays(np.float64, lead_shape + (t_k, d_v), elements=el))
    return q, k, v


scales = st.one_of(st.none(), st.floats(0.0, 4.0), st.floats(-4.0, 0.0))


def score_rows(bound=50.0, max_rows=4, max_n=8):
    return hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=max_n).filter(lambda s: s[0] <= max_rows),
        elements=floats(bound),
    )


# --------------------------------------------------------------------------- softmax


@FAST
@given(x=score_rows(), beta=st.floats(0.05, 20.0))
def test_softmax_rows_are_distributions(x, beta):
    w = softmax(beta * x, axis=-1)
    assert w.shape == x.shape
    assert np.all((w >= 0.0) & (w <= 1.0))
    np.testing.assert_allclose(w.sum(-1), 1.0, rtol=1e-12)
    # the largest score gets the largest weight
    assert np.all(w[np.arange(len(x)), x.argmax(-1)] == w.max(-1))


@FAST
@given(x=score_rows(), c=hnp.arrays(np.float64, st.just((4, 1)), elements=floats(100.0)))
def test_softmax_shift_invariance(x, c):
    c = c[: len(x)]  # one constant per row
    np.testing.assert_allclose(softmax(x + c, axis=-1), softmax(x, axis=-1), rtol=1e-9, atol=1e-12)


@FAST
@given(x=score_rows(bound=1e300))
def test_softmax_extreme_magnitudes_no_nan(x):
    w = softmax(x, axis=-1)
    assert np.all(np.isfinite(w))
    assert np.all((w >= 0.0) & (w <= 1.0))
    np.testing.assert_allclose(w.sum(-1), 1.0, rtol=1e-12)


@FAST
@given(x=score_rows(), drop=st.data())
def test_softmax_minus_inf_is_like_removing_the_entry(x, drop):
    keep = drop.draw(hnp.arrays(bool, x.shape))
    keep[:, 0] = True  # every row keeps one entry
    w = softmax(np.where(keep, x, -np.inf), axis=-1)
    assert np.all(w[~keep] == 0.0)
    for r in range(len(x)):
        np.testing.assert_allclose(w[r, keep[r]], softmax(x[r, keep[r]]), rtol=1e-12, atol=1e-300)


# --------------------------------------------------------------------------- attention


@FAST
@given(data=qkv(lead=True), scale=scales)
def test_weights_rows_sum_to_one_and_lie_in_unit_interval(data, scale):
    t = scaled_dot_product_attention(*data, scale=scale)
    assert np.all((t.weights >= 0.0) & (t.weights <= 1.0))
    np.testing.assert_allclose(t.weights.sum(-1), 1.0, rtol=1e-12)


@FAST
@given(data=qkv(lead=True), scale=scales)
def test_outputs_lie_in_the_convex_hull_of_the_values(data, scale):
    q, k, v = data
    t = scaled_dot_product_attention(q, k, v, scale=scale)
    lo = v.min(axis=-2, keepdims=True)  # (..., 1, d_v)
    hi = v.max(axis=-2, keepdims=True)
    slack = 1e-12 * (1.0 + np.abs(v).max())
    assert np.all(t.outputs >= lo - slack)
    assert np.all(t.outputs <= hi + slack)


@FAST
@given(data=qkv(), scale=scales, perm_seed=st.integers(0, 2**32 - 1))
def test_permuting_tokens_permutes_weights_and_outputs(data, scale, perm_seed):
    q, k, v = data
    rng = np.random.default_rng(perm_seed)
    pq = rng.permutation(q.shape[0])  # a permutation of the queries
    pk = rng.permutation(k.shape[0])  # one permutation of keys and values together
    t = scaled_dot_product_attention(q, k, v, scale=scale)
    tp = scaled_dot_product_attention(q[pq], k[pk], v[pk], scale=scale)
    np.testing.assert_allclose(tp.weights, t.weights[np.ix_(pq, pk)], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tp.outputs, t.outputs[pq], rtol=1e-10, atol=1e-10)


@FAST
@given(data=qkv(), perm_seed=st.integers(0, 2**32 - 1))
def test_self_attention_is_permutation_equivariant(data, perm_seed):
    """Without positional encoding attention ignores order: permuting the sequence (the same
    permutation for q, k and v) permutes the output rows and both weight axes."""
    x = data[0]
    p = np.random.default_rng(perm_seed).permutation(x.shape[0])
    t = scaled_dot_product_attention(x, x, x)
    tp = scaled_dot_product_attention(x[p], x[p], x[p])
    np.testing.assert_allclose(tp.weights, t.weights[np.ix_(p, p)], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tp.outputs, t.outputs[p], rtol=1e-10, atol=1e-10)


@FAST
@given(data=qkv(bound=5.0), shift=hnp.arrays(np.float64, st.integers(1, 5), elements=floats(5.0)))
def test_adding_a_vector_to_every_key_changes_no_weight(data, shift):
    """q_i·(k_j + c) = q_i·k_j + q_i·c: the same constant is added to the whole row i."""
    q, k, v = data
    c = np.resize(shift, k.shape[-1])
    a = scaled_dot_product_attention(q, k, v)
    b = scaled_dot_product_attention(q, k + c, v)
    np.testing.assert_allclose(b.weights, a.weights, rtol=1e-8, atol=1e-10)


@FAST
@given(data=qkv(), scale=scales)
def test_identical_keys_give_uniform_weights(data, scale):
    q, k, v = data
    k_same = np.broadcast_to(k[:1], k.shape)  # every key equals key 0
    t = scaled_dot_product_attention(q, k_same, v, scale=scale)
    n = k.shape[0]
    np.testing.assert_allclose(t.weights, 1.0 / n, rtol=1e-12)
    np.testing.assert_allclose(t.outputs, np.broadcast_to(v.mean(0), t.outputs.shape), rtol=1e-9, atol=1e-9)


@FAST
@given(data=qkv(), c=st.floats(0.1, 10.0), s=st.floats(0.1, 2.0))
def test_scale_can_move_into_the_queries(data, c, s):
    q, k, v = data
    a = scaled_dot_product_attention(q * c, k, v, scale=s)
    b = scaled_dot_product_attention(q, k, v, scale=s * c)
    np.testing.assert_allclose(a.weights, b.weights, rtol=1e-8, atol=1e-10)


@FAST
@given(data=qkv(), mask_data=st.data())
def test_masked_attention_equals_attention_over_allowed_keys(data, mask_data):
    q, k, v = data
    mask = mask_data.draw(hnp.arrays(bool, (q.shape[0], k.shape[0])))
    mask[:, 0] = True
    t = scaled_dot_product_attention(q, k, v, mask=mask)
    assert np.all(t.weights[~mask] == 0.0)
    for i in range(q.shape[0]):
        sub = scaled_dot_product_attention(q[i : i + 1], k[mask[i]], v[mask[i]])
        np.testing.assert_allclose(t.weights[i, mask[i]], sub.weights[0], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(t.outputs[i], sub.outputs[0], rtol=1e-10, atol=1e-12)


@FASTER
@given(data=qkv(bound=1e100, max_t=5, max_d=4, lead=True), scale=st.one_of(st.none(), st.floats(1e-3, 1e3)))
def test_extreme_magnitudes_give_no_nan(data, scale):
    """|q|, |k|, |v| up to 1e100 (scores up to ~1e200 · d): still a distribution, no NaN."""
    t = scaled_dot_product_attention(*data, scale=scale)
    for name in ("scores", "scaled", "weights", "outputs"):
        assert np.all(np.isfinite(getattr(t, name))), name
    np.testing.assert_allclose(t.weights.sum(-1), 1.0, rtol=1e-12)


@FASTER
@given(data=qkv(bound=1e-150, max_t=5, max_d=4))
def test_tiny_magnitudes_give_near_uniform_weights(data):
    t = scaled_dot_product_attention(*data)
    np.testing.assert_allclose(t.weights, 1.0 / data[1].shape[0], rtol=1e-12)
