"""Multi-head attention: several heads, each with its own W^Q, W^K, W^V, side by side.

Each head h projects the same inputs into its own small space (d_k = d_model / n_heads in a
Transformer), attends there, and the heads' outputs are concatenated:

    head_h = Attention(a W^Q_h, a W^K_h, a W^V_h)
    MultiHead(a) = concat(head_1, …, head_H)       (a model then applies W^O)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arrays import frozen
from .attention import AttentionTrace, scaled_dot_product_attention
from .projections import Projections, project, random_projections


def split_heads(x, n_heads: int) -> np.ndarray:
    """(T, n_heads·d) → (n_heads, T, d): cut the feature axis into equal heads.

    >>> split_heads(np.arange(8.0).reshape(2, 4), 2)[1]
    array([[2., 3.],
           [6., 7.]])
    """
    x = np.asarray(x)
    t, width = x.shape
    if n_heads < 1 or width % n_heads:
        raise ValueError(f"cannot split {width} features into {n_heads} equal heads")
    return x.reshape(t, n_heads, width // n_heads).swapaxes(0, 1)  # (H, T, d)


def merge_heads(x) -> np.ndarray:
    """(n_heads, T, d) → (T, n_heads·d): the inverse of ``split_heads`` (concatenation).

    >>> x = np.arange(8.0).reshape(2, 4)
    >>> bool((merge_heads(split_heads(x, 2)) == x).all())
    True
    """
    x = np.asarray(x)
    h, t, d = x.shape
    return x.swapaxes(0, 1).reshape(t, h * d)  # (T, H·d)


@dataclass(frozen=True)
class MultiHeadResult:
    """heads: one trace with a leading head axis, weights (H, T_q, T_k);
    projections: each head's W^Q/W^K/W^V; outputs: the concatenation (T_q, H·d_v)."""

    heads: AttentionTrace
    projections: tuple[Projections, ...]
    outputs: np.ndarray


def multi_head_attention(a, n_heads: int, d_k: int, *, seed: int = 0, mask=None, scale=None) -> MultiHeadResult:
    """Run ``n_heads`` seeded-random self-attention heads on ``a`` (T, d_model); head h uses seed + h.

    >>> r = multi_head_attention(np.eye(4), n_heads=2, d_k=3)
    >>> r.heads.weights.shape, r.outputs.shape
    ((2, 4, 4), (4, 6))
    """
    a = np.asarray(a, dtype=np.float64)
    if n_heads < 1:
        raise ValueError(f"need at least one head, got {n_heads}")
    projections = tuple(random_projections(a.shape[-1], d_k, seed=seed + h) for h in range(n_heads))
    qkv = [project(a, p) for p in projections]
    q = np.stack([x[0] for x in qkv])  # (H, T, d_k)
    k = np.stack([x[1] for x in qkv])  # (H, T, d_k)
    v = np.stack([x[2] for x in qkv])  # (H, T, d_v)
    heads = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    return MultiHeadResult(heads=heads, projections=projections, outputs=frozen(merge_heads(heads.outputs), copy=False))
