"""Multi-head attention: several heads, each with its own W^Q, W^K, W^V, side by side.

Each head h projects the same inputs into its own small space (d_k = d_model / n_heads in a
Transformer), attends there, and the heads' outputs are concatenated and mixed by W^O:

    head_h = Attention(a W^Q_h, a W^K_h, a W^V_h)
    MultiHead(a) = concat(head_1, …, head_H) W^O
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


OUTPUT_STREAM = 1
"""W^O's random numbers come from ``default_rng([seed, OUTPUT_STREAM])``, a stream of its own:
head h draws from ``default_rng(seed + h)``."""


def random_output_projection(width: int, d_model: int, seed: int = 0) -> np.ndarray:
    """A seeded random W^O of shape (width, d_model), entries N(0, 1/width), which keeps the
    mixed vectors about as large as the heads' outputs (as W^Q, W^K, W^V keep theirs).

    >>> w = random_output_projection(6, 4, seed=3)
    >>> w.shape, bool((w == random_output_projection(6, 4, seed=3)).all())
    ((6, 4), True)
    """
    if width < 1 or d_model < 1:
        raise ValueError(f"W^O needs width >= 1 and d_model >= 1, got {width} and {d_model}")
    rng = np.random.default_rng([seed, OUTPUT_STREAM])
    return rng.normal(0.0, 1.0 / np.sqrt(width), size=(width, d_model))  # (H·d_v, d_model)


@dataclass(frozen=True)
class MultiHeadResult:
    """heads: one trace with a leading head axis, weights (H, T_q, T_k);
    projections: each head's W^Q/W^K/W^V; outputs: the concatenation (T_q, H·d_v);
    w_o: the output matrix W^O (H·d_v, d_model); attention_output: outputs · W^O (T_q, d_model),
    MultiHead(a), the heads mixed and brought back to d_model."""

    heads: AttentionTrace
    projections: tuple[Projections, ...]
    outputs: np.ndarray
    w_o: np.ndarray
    attention_output: np.ndarray


def multi_head_attention(a, n_heads: int, d_k: int, *, seed: int = 0, mask=None, scale=None) -> MultiHeadResult:
    """Run ``n_heads`` seeded-random self-attention heads on ``a`` (T, d_model); the h-th head
    (from 0) uses seed + h; their concatenation is mixed by a seeded random W^O.

    >>> r = multi_head_attention(np.eye(4), n_heads=2, d_k=3)
    >>> r.heads.weights.shape, r.outputs.shape, r.w_o.shape, r.attention_output.shape
    ((2, 4, 4), (4, 6), (6, 4), (4, 4))
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
    concat = merge_heads(heads.outputs)  # (T, H·d_v)
    w_o = random_output_projection(concat.shape[1], a.shape[-1], seed=seed)  # (H·d_v, d_model)
    return MultiHeadResult(
        heads=heads,
        projections=projections,
        outputs=frozen(concat, copy=False),
        w_o=frozen(w_o, copy=False),
        attention_output=frozen(concat @ w_o, copy=False),  # (T, d_model)
    )
