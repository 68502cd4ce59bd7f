"""Three ways to say how alike a query and a key are, on the same vectors.

cosine(a, b) = a·b / (|a| |b|)   in [-1, 1]; ignores length, only direction counts
dot(a, b)    = a·b               grows with length and with the dimension d
scaled dot   = a·b / √d          the dot product, kept at the same spread for any d

Attention uses the (scaled) dot product: it is cheap, and the length of a query acts as a
confidence — a longer query gives sharper weights.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def unit_rows(x) -> np.ndarray:
    """Each row scaled to length 1; a zero row (no direction) stays zero.

    The dot product of unit rows is the cosine: ``cosine_similarity`` and the tailor
    shop's cosine match both use it.

    >>> unit_rows([[3.0, 4.0], [0.0, 0.0]])
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    x = np.asarray(x, dtype=np.float64)  # (rows, d)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)  # (rows, 1)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)  # (rows, d)


def cosine_similarity(a, b) -> np.ndarray:
    """Cosine of the angle between each a_i and b_j, shape (T_a, T_b), in [-1, 1].

    A zero vector has no direction: its cosine with anything is defined here as 0.

    >>> cosine_similarity([[1.0, 0.0]], [[2.0, 0.0], [0.0, 3.0], [0.0, 0.0]])
    array([[1., 0., 0.]])
    """
    a, b = _pair(a, b)
    return np.clip(unit_rows(a) @ unit_rows(b).T, -1.0, 1.0)  # (T_a, T_b)


SIMILARITIES = {
    "dot": dot_similarity,
    "scaled_dot": scaled_dot_similarity,
    "cosine": cosine_similarity,
}


@dataclass(frozen=True)
class SimilarityComparison:
    """The three measures on the same pairs a_i, b_j, and the lengths that tell them apart.

    dot = |a_i| |b_j| cosine, and scaled_dot = dot / √d: the dot products carry the lengths,
    the cosine does not. Dividing by √d > 0 keeps the order of every row, so dot and scaled
    dot always rank the keys the same way; the cosine can rank them differently.

    Attributes
    ----------
    cosine, dot, scaled_dot : (T_a, T_b)
    norms_a : (T_a,)   |a_i|
    norms_b : (T_b,)   |b_j|
    d : int            the dimension (d_k for queries and keys)
    """

    cosine: np.ndarray
    dot: np.ndarray
    scaled_dot: np.ndarray
    norms_a: np.ndarray
    norms_b: np.ndarray
    d: int

    def measure(self, name: str) -> np.ndarray:
        """The matrix of one measure by its name in ``SIMILARITIES``."""
        if name not in SIMILARITIES:
            raise ValueError(f"unknown similarity {name!r}; choose one of {sorted(SIMILARITIES)}")
        return getattr(self, name)

    def best_key(self, name: str, i: int) -> int:
        """The j with the largest similarity to a_i under measure ``name``."""
        return int(np.argmax(self.measure(name)[i]))


def compare_similarities(a, b) -> SimilarityComparison:
    """Cosine, dot and scaled dot of every a_i with every b_j, plus the lengths |a_i|, |b_j|.

    >>> c = compare_similarities([[1.0, 0.0]], [[2.0, 0.0], [0.0, 1.0]])
    >>> c.cosine, c.dot, c.scaled_dot.round(4), c.norms_b
    (array([[1., 0.]]), array([[2., 0.]]), array([[1.4142, 0.    ]]), array([2., 1.]))
    """
    a, b = _pair(a, b)
    return SimilarityComparison(
        cosine=cosine_similarity(a, b),  # (T_a, T_b)
        dot=dot_similarity(a, b),  # (T_a, T_b)
        scaled_dot=scaled_dot_similarity(a, b),  # (T_a, T_b)
        norms_a=np.linalg.norm(a, axis=-1),  # (T_a,)
        norms_b=np.linalg.norm(b, axis=-1),  # (T_b,)
        d=int(a.shape[-1]),
    )


def polar_vector(angle_degrees: float, length: float) -> np.ndarray:
    """The 2-D vector with this direction (degrees, counter-clockwise from the x axis) and length.

    >>> polar_vector(90.0, 2.0).round(12)
    array([0., 2.])
    """
    if not (np.isfinite(angle_degrees) and np.isfinite(length)) or length < 0:
        raise ValueError(f"need a finite angle and a finite length >= 0, got {angle_degrees!r}, {length!r}")
    theta = np.deg2rad(angle_degrees)
    return length * np.array([np.cos(theta), np.sin(theta)])  # (2,)
