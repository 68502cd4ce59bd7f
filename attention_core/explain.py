"""One query token's walk through attention: every term of one row, ready to display.

The matrix form computes all rows at once; a learner follows one row. ``explain(trace, i)``
unpacks row i of a trace into the arithmetic the lesson shows:

    q_i ⊙ k_j  →  α_ij = Σ_d (q_i ⊙ k_j)_d  →  α_ij · scale  →  exp(· − m)  →  α̂_ij  →  α̂_ij v_j  →  b_i
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import AttentionTrace


@dataclass(frozen=True)
class TokenExplanation:
    """The terms of row ``i`` of an attention trace.

    ``scores``, ``scaled``, ``weights`` and ``output`` are taken from the trace itself, so
    they are exactly the numbers of the matrix view. ``products``, ``exps`` and ``row_sum``
    are the intermediate arithmetic; ``products.sum(-1)`` equals ``scores`` and
    ``exps / row_sum`` equals ``weights`` up to floating-point rounding (~1e-15).

    Attributes
    ----------
    i : int                 the query token
    q_i : (d_k,)            its query vector
    k : (T_k, d_k)          every key k_j
    products : (T_k, d_k)   q_i ⊙ k_j, element by element
    scores : (T_k,)         α_ij = q_i · k_j
    scale : float           1/√d_k by default
    scaled : (T_k,)         α_ij · scale (-inf where masked)
    row_max : float         m, the largest allowed scaled score (subtracted for stability)
    exps : (T_k,)           exp(scaled_j − m); 0 where masked
    row_sum : float         Σ_j exps_j
    weights : (T_k,)        α̂_ij
    v : (T_k, d_v)          every value v_j
    contributions : (T_k, d_v)   α̂_ij · v_j
    output : (d_v,)         b_i = Σ_j α̂_ij v_j
    """

    i: int
    q_i: np.ndarray
    k: np.ndarray
    products: np.ndarray
    scores: np.ndarray
    scale: float
    scaled: np.ndarray
    row_max: float
    exps: np.ndarray
    row_sum: float
    weights: np.ndarray
    v: np.ndarray
    contributions: np.ndarray
    output: np.ndarray

    @property
    def top_key(self) -> int:
        """The key token j this query attends to most."""
        return int(np.argmax(self.weights))


def explain(trace: AttentionTrace, i: int) -> TokenExplanation:
    """Unpack query row ``i`` of a single-head trace into its arithmetic.

    Parameters
    ----------
    trace : AttentionTrace with 2-D matrices (select a head first with ``trace.head(h)``)
    i : int, 0 <= i < T_q

    Examples
    --------
    >>> from attention_core import scaled_dot_product_attention
    >>> q = k = v = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> e = explain(scaled_dot_product_attention(q, k, v, scale=1.0), 0)
    >>> e.products
    array([[1., 0.],
           [0., 0.]])
    >>> e.scores, e.weights.round(4), e.output.round(4)
    (array([1., 0.]), array([0.7311, 0.2689]), array([0.7311, 0.2689]))
    """
    if trace.weights.ndim != 2:
        raise ValueError(
            f"explain() needs a single-head trace with 2-D weights, got weights of shape {trace.weights.shape}; "
            "use trace.head(h) first"
        )
    t_q = trace.weights.shape[0]
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < t_q:
        raise ValueError(f"query token i must be an integer in 0..{t_q - 1}, got {i!r}")
    i = int(i)
    q_i = trace.q[i]  # (d_k,)
    products = q_i[None, :] * trace.k  # (T_k, d_k)   q_i ⊙ k_j
    scaled = trace.scaled[i]  # (T_k,)
    allowed = np.isfinite(scaled)  # (T_k,)
    row_max = float(scaled[allowed].max()) if allowed.any() else 0.0
    exps = np.where(allowed, np.exp(np.where(allowed, scaled, 0.0) - row_max), 0.0)  # (T_k,)
    weights = trace.weights[i]  # (T_k,)
    contributions = weights[:, None] * trace.v  # (T_k, d_v)   α̂_ij v_j
    return TokenExplanation(
        i=i,
        q_i=q_i,
        k=trace.k,
        products=products,
        scores=trace.scores[i],
        scale=trace.scale,
        scaled=scaled,
        row_max=row_max,
        exps=exps,
        row_sum=float(exps.sum()),
        weights=weights,
        v=trace.v,
        contributions=contributions,
        output=trace.outputs[i],
    )
