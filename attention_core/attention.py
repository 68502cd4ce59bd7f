"""Scaled dot-product attention, with every intermediate kept.

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V

In the per-token notation of the lesson, for query token i and key token j:

    α_ij  = q_i · k_j                      (``scores``, any real number)
    α_ij / √d_k                            (``scaled``)
    α̂_ij  = exp(α_ij/√d_k) / Σ_j' exp(...)  (``weights``, in [0, 1], rows sum to 1)
    b_i   = Σ_j α̂_ij v_j                   (``outputs``)

Row i of each matrix is query token i; column j is key token j.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arrays import frozen


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    softmax(x)_j = exp(x_j - m) / Σ_j' exp(x_j' - m), with m the row maximum.
    Subtracting m changes nothing mathematically but keeps every exponent ≤ 0, so no
    overflow and never NaN or inf for finite input, even for x = ±1e4. Entries of -inf
    (masked) get weight 0. A row that is -inf everywhere (nothing allowed) gets all-zero
    weights rather than NaN. (A sharper or flatter softmax, β·x, is a scale on the scores:
    ``scaled_dot_product_attention(..., scale=β)``, as the tailor shop does.)

    Parameters
    ----------
    x : array_like, shape (..., n)
        Scores. May contain -inf; must not contain NaN or +inf.
    axis : int
        The axis that sums to 1.

    Returns
    -------
    numpy.ndarray, same shape as ``x``, entries in [0, 1].

    Examples
    --------
    >>> softmax([1.0, 2.0, 3.0]).round(4)
    array([0.09  , 0.2447, 0.6652])
    >>> softmax([0.0, -np.inf])
    array([1., 0.])
    >>> softmax([1e4, -1e4])
    array([1., 0.])
    """
    x = np.asarray(x, dtype=np.float64)
    if not (x < np.inf).all():  # one pass catches NaN and +inf
        raise ValueError("softmax input contains NaN or +inf; scores must be finite or -inf (masked)")
    m = np.max(x, axis=axis, keepdims=True)  # (..., 1)
    m[~np.isfinite(m)] = 0.0  # a fully masked row has max -inf
    exps = np.subtract(x, m)  # (..., n), every entry <= 0
    np.exp(exps, out=exps)
    total = exps.sum(axis=axis, keepdims=True)  # (..., 1), >= 1 unless fully masked
    total[total == 0] = 1.0  # fully masked row: all weights stay 0
    exps /= total
    return exps


# The function to read: the formula in five lines. The app runs scaled_dot_product_attention
# below, which gives the same outputs (tests/test_attention.py checks them equal) and is longer
# because it keeps every intermediate for the pages, checks its inputs, applies masks, takes the
# scale as an argument and runs many heads at once. Not exported from attention_core, where the
# name attention is this module's.
def attention(q, k, v):
    """softmax(Q Kᵀ / √d_k) V, the formula as code in plain NumPy.

    >>> attention(np.eye(2), np.eye(2), np.eye(2)).round(4)
    array([[0.6698, 0.3302],
           [0.3302, 0.6698]])
    """
    scores = q @ k.T / np.sqrt(k.shape[-1])  # α_ij / √d_k
    scores = scores - scores.max(axis=-1, keepdims=True)  # keeps e^x from overflowing
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)  # α̂_ij: each row sums to 1
    return weights @ v  # b_i = Σ_j α̂_ij v_j


@dataclass(frozen=True)
class AttentionTrace:
    """Every quantity of one attention computation, read-only.

    Attributes
    ----------
    q : (..., T_q, d_k)   queries
    k : (..., T_k, d_k)   keys
    v : (..., T_k, d_v)   values
    scores : (..., T_q, T_k)   α = q·k, raw
    scaled : (..., T_q, T_k)   α × scale; masked entries are -inf
    weights : (..., T_q, T_k)  α̂ = softmax(scaled) over keys; rows sum to 1
                               (a row with no allowed key is all zeros)
    outputs : (..., T_q, d_v)  b = weights @ v
    scale : float              the factor applied to the scores (1/√d_k by default)
    mask : (..., T_q, T_k) bool or None   True where query i may attend to key j
    """

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    scores: np.ndarray
    scaled: np.ndarray
    weights: np.ndarray
    outputs: np.ndarray
    scale: float
    mask: np.ndarray | None = None

    @property
    def d_k(self) -> int:
        """Dimension of queries and keys (what √d_k refers to)."""
        return int(self.q.shape[-1])

    def head(self, h: int) -> AttentionTrace:
        """The trace of head ``h`` of a multi-head trace (leading axis = heads).

        >>> rng = np.random.default_rng(0)
        >>> t = scaled_dot_product_attention(*(rng.normal(size=(2, 3, 4)) for _ in range(3)))
        >>> t.head(1).weights.shape
        (3, 3)
        """
        if self.scores.ndim < 3:
            raise ValueError(f"head() needs a trace with a head axis; weights have shape {self.weights.shape}")
        n = self.scores.shape[0]
        if not 0 <= h < n:
            raise ValueError(f"head must be in 0..{n - 1}, got {h}")

        mask = None
        if self.mask is not None:
            mask = np.broadcast_to(self.mask, self.scores.shape)[h]
        lead = self.scores.shape[:-2]
        return AttentionTrace(
            q=frozen(np.broadcast_to(self.q, lead + self.q.shape[-2:])[h]),
            k=frozen(np.broadcast_to(self.k, lead + self.k.shape[-2:])[h]),
            v=frozen(np.broadcast_to(self.v, lead + self.v.shape[-2:])[h]),
            scores=frozen(self.scores[h]),
            scaled=frozen(self.scaled[h]),
            weights=frozen(self.weights[h]),
            outputs=frozen(self.outputs[h]),
            scale=self.scale,
            mask=None if mask is None else frozen(mask, dtype=bool),
        )


def _check_qkv(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    for name, x in (("q", q), ("k", k), ("v", v)):
        if x.ndim < 2:
            raise ValueError(f"{name} must have shape (..., T, d) with at least 2 dimensions, got shape {x.shape}")
        if x.shape[-2] == 0 or x.shape[-1] == 0:
            raise ValueError(f"{name} is empty (shape {x.shape}): attention needs at least one token and one dimension")
        if not np.isfinite(x).all():
            raise ValueError(f"{name} contains NaN or inf")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share d_k: q has d_k={q.shape[-1]} (shape {q.shape}), "
            f"k has d_k={k.shape[-1]} (shape {k.shape})"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of tokens T_k: k has {k.shape[-2]} (shape {k.shape}), "
            f"v has {v.shape[-2]} (shape {v.shape})"
        )
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"leading dimensions (heads, batch) do not broadcast: q {q.shape}, k {k.shape}, v {v.shape}"
        ) from None


def scaled_dot_product_attention(q, k, v, *, mask=None, scale: float | None = None) -> AttentionTrace:
    """Attention(Q, K, V) = softmax(Q Kᵀ · scale) V, keeping every intermediate.

    Parameters
    ----------
    q : array_like, shape (..., T_q, d_k)
    k : array_like, shape (..., T_k, d_k)
    v : array_like, shape (..., T_k, d_v)
        Leading dimensions (heads, batch) broadcast against each other.
    mask : array_like of bool, broadcastable to (..., T_q, T_k), optional
        True where query i may attend to key j. Disallowed scores become -inf before the
        softmax, so their weights are exactly 0. A query row with no allowed key gets
        all-zero weights and a zero output — unlike PyTorch, which returns NaN there.
    scale : float, optional
        Factor on the raw scores. None means 1/√d_k (the Transformer's choice);
        1.0 gives plain, unscaled dot-product attention.

    Returns
    -------
    AttentionTrace
        q, k, v, scores, scaled, weights, outputs (see the class), all read-only.

    Examples
    --------
    Two tokens, d_k = 2: token 0 matches key 0 more strongly than key 1.

    >>> q = k = v = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> t = scaled_dot_product_attention(q, k, v, scale=1.0)
    >>> t.scores
    array([[1., 0.],
           [0., 1.]])
    >>> t.weights.round(4)
    array([[0.7311, 0.2689],
           [0.2689, 0.7311]])
    >>> t.outputs.round(4)
    array([[0.7311, 0.2689],
           [0.2689, 0.7311]])
    """
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    _check_qkv(q, k, v)
    d_k = q.shape[-1]
    if scale is None:
        scale = 1.0 / np.sqrt(d_k)
    scale = float(scale)
    if not np.isfinite(scale):
        raise ValueError(f"scale must be finite, got {scale!r}")

    with np.errstate(over="ignore", invalid="ignore"):
        scores = q @ k.swapaxes(-1, -2)  # (..., T_q, T_k)   α_ij = q_i · k_j
        scaled = scores * scale  # (..., T_q, T_k)   α_ij / √d_k
    if not np.isfinite(scaled).all():
        raise ValueError(
            f"q·k overflowed float64 (largest |q| = {np.abs(q).max():.3g}, |k| = {np.abs(k).max():.3g}, "
            f"scale = {scale:.3g}): rescale the inputs"
        )
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != bool:
            raise ValueError(f"mask must be boolean (True = may attend), got dtype {mask.dtype}")
        try:
            mask = np.broadcast_to(mask, scores.shape)  # (..., T_q, T_k)
        except ValueError:
            raise ValueError(
                f"mask of shape {mask.shape} does not broadcast to the scores' shape {scores.shape}"
            ) from None
        scaled = np.where(mask, scaled, -np.inf)  # (..., T_q, T_k)
        mask = frozen(mask, dtype=bool)
    weights = softmax(scaled, axis=-1)  # (..., T_q, T_k)   α̂_ij, rows sum to 1
    outputs = weights @ v  # (..., T_q, d_v)   b_i = Σ_j α̂_ij v_j
    return AttentionTrace(
        q=frozen(q),
        k=frozen(k),
        v=frozen(v),
        scores=frozen(scores, copy=scaled is scores),
        scaled=frozen(scaled, copy=False),
        weights=frozen(weights, copy=False),
        outputs=frozen(outputs, copy=False),
        scale=scale,
        mask=mask,
    )
