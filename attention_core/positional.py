"""Sinusoidal positional encoding (Vaswani et al., 2017).

Attention itself ignores order: permute the tokens and the outputs permute with them. Adding
a position-dependent vector to each word embedding, a_i = x_i + PE_i, lets the same word at
two places differ.

    PE[pos, 2m]   = sin(pos / 10000^(2m / d))
    PE[pos, 2m+1] = cos(pos / 10000^(2m / d))
"""

from __future__ import annotations

import numpy as np


def sinusoidal_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The (n_positions, d_model) table of sinusoidal position vectors.

    >>> pe = sinusoidal_encoding(3, 4)
    >>> pe.shape
    (3, 4)
    >>> pe[0]
    array([0., 1., 0., 1.])
    >>> float(pe[1, 0].round(4))  # sin(1)
    0.8415
    """
    if n_positions < 0 or d_model < 1:
        raise ValueError(f"need n_positions >= 0 and d_model >= 1, got {n_positions} and {d_model}")
    pos = np.arange(n_positions, dtype=np.float64)[:, None]  # (T, 1)
    pair = np.arange(d_model, dtype=np.float64)[None, :] // 2  # (1, d)  m for columns 2m, 2m+1
    angle = pos / base ** (2 * pair / d_model)  # (T, d)
    even = (np.arange(d_model) % 2 == 0)[None, :]  # (1, d)
    return np.where(even, np.sin(angle), np.cos(angle))  # (T, d)
