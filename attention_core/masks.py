"""Masks: which keys each query may see. True = may attend (the convention of
``scaled_dot_product_attention``)."""

from __future__ import annotations

import numpy as np


def causal_mask(t_q: int, t_k: int | None = None) -> np.ndarray:
    """A decoder's mask: query i may attend to keys j <= i only, shape (T_q, T_k).

    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    t_k = t_q if t_k is None else t_k
    if t_q < 1 or t_k < 1:
        raise ValueError(f"a mask needs at least one query and one key, got T_q={t_q}, T_k={t_k}")
    return np.tril(np.ones((t_q, t_k), dtype=bool))  # (T_q, T_k)
