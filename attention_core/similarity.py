"""Three ways to say how alike a query and a key are, on the same vectors.

cosine(a, b) = a·b / (|a| |b|)   in [-1, 1]; ignores length, only direction counts
dot(a, b)    = a·b               grows with length and with the dimension d
scaled dot   = a·b / √d          the dot product, kept at the same spread for any d

Attention uses the (scaled) dot product: it is cheap, and the length of a query acts as a
confidence — a longer query gives sharper weights.
"""

from __future__ import annotations

import numpy as np


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))  # (T_a, d)
    b = np.atleast_2d(np.asarray(b, dtype=np.float64))  # (T_b, d)
    if a.ndim != 2 or b.ndim != 2 or a.shape[-1] != b.shape[-1]:
        raise ValueError(f"similarity needs (T_a, d) and (T_b, d) with the same d, got {a.shape} and {b.shape}")
    return a, b


def dot_similarity(a, b) -> np.ndarray:
    """All pairwise dot products a_i · b_j, shape (T_a, T_b).

    >>> dot_similarity([[1.0, 2.0]], [[3.0, 4.0], [0.0, 1.0]])
    array([[11.,  2.]])
    """
    a, b = _pair(a, b)
    return a @ b.T  # (T_a, T_b)


def scaled_dot_similarity(a, b) -> np.ndarray:
    """Dot products divided by √d, shape (T_a, T_b).

    >>> scaled_dot_similarity([[1.0, 1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0, 1.0]])
    array([[2.]])
    """
    a, b = _pair(a, b)
    return (a @ b.T) / np.sqrt(a.shape[-1])  # (T_a, T_b)


def cosine_similarity(a, b) -> np.ndarray:
    """Cosine of the angle between each a_i and b_j, shape (T_a, T_b), in [-1, 1].

    A zero vector has no direction: its cosine with anything is defined here as 0.

    >>> cosine_similarity([[1.0, 0.0]], [[2.0, 0.0], [0.0, 3.0], [0.0, 0.0]])
    array([[1., 0., 0.]])
    """
    a, b = _pair(a, b)
    na = np.linalg.norm(a, axis=-1, keepdims=True)  # (T_a, 1)
    nb = np.linalg.norm(b, axis=-1, keepdims=True)  # (T_b, 1)
    unit_a = np.divide(a, na, out=np.zeros_like(a), where=na > 0)  # (T_a, d)
    unit_b = np.divide(b, nb, out=np.zeros_like(b), where=nb > 0)  # (T_b, d)
    return np.clip(unit_a @ unit_b.T, -1.0, 1.0)  # (T_a, T_b)


SIMILARITIES = {
    "dot": dot_similarity,
    "scaled_dot": scaled_dot_similarity,
    "cosine": cosine_similarity,
}
