"""Where q, k and v come from: the inputs times learned matrices W^Q, W^K, W^V.

With inputs a_i as rows of a (T, d_model) matrix, this package uses the row convention

    q_i = a_i W^Q + b^Q,   k_i = a_i W^K + b^K,   v_i = a_i W^V + b^V

(the same as the column form q_i = W^Q a_i of the lesson, with W transposed). Three kinds:
seeded random (illustrative, the same on every machine), identity (the inputs themselves
serve as q, k and v) and a real model's (see ``model.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import AttentionTrace, scaled_dot_product_attention


@dataclass(frozen=True)
class Projections:
    """The three linear maps of one attention head.

    Attributes
    ----------
    w_q : (d_model, d_k)
    w_k : (d_model, d_k)
    w_v : (d_model, d_v)
    b_q, b_k : (d_k,)    biases (zero unless taken from a model)
    b_v : (d_v,)
    kind : "random", "identity" or "model"
    """

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    b_q: np.ndarray
    b_k: np.ndarray
    b_v: np.ndarray
    kind: str = "random"

    @property
    def d_model(self) -> int:
        return int(self.w_q.shape[0])

    @property
    def d_k(self) -> int:
        return int(self.w_q.shape[1])

    @property
    def d_v(self) -> int:
        return int(self.w_v.shape[1])


def make_projections(w_q, w_k, w_v, b_q=None, b_k=None, b_v=None, kind: str = "model") -> Projections:
    """Build and check a Projections from explicit matrices (and optional biases)."""
    w_q, w_k, w_v = (np.asarray(w, dtype=np.float64) for w in (w_q, w_k, w_v))
    if w_q.ndim != 2 or w_q.shape != w_k.shape or w_v.ndim != 2 or w_v.shape[0] != w_q.shape[0]:
        raise ValueError(
            f"need W^Q and W^K of one shape (d_model, d_k) and W^V of shape (d_model, d_v); "
            f"got {w_q.shape}, {w_k.shape}, {w_v.shape}"
        )
    b_q = np.zeros(w_q.shape[1]) if b_q is None else np.asarray(b_q, dtype=np.float64)  # (d_k,)
    b_k = np.zeros(w_k.shape[1]) if b_k is None else np.asarray(b_k, dtype=np.float64)  # (d_k,)
    b_v = np.zeros(w_v.shape[1]) if b_v is None else np.asarray(b_v, dtype=np.float64)  # (d_v,)
    if b_q.shape != (w_q.shape[1],) or b_k.shape != (w_k.shape[1],) or b_v.shape != (w_v.shape[1],):
        raise ValueError(f"bias shapes {b_q.shape}, {b_k.shape}, {b_v.shape} do not match the matrices")
    return Projections(w_q, w_k, w_v, b_q, b_k, b_v, kind)


def random_projections(d_model: int, d_k: int, d_v: int | None = None, seed: int = 0) -> Projections:
    """Seeded random W^Q, W^K, W^V with entries N(0, 1/d_model): the same seed gives the
    same matrices on every machine and in every process.

    The 1/d_model variance keeps q, k, v about as large as the inputs, as a trained
    layer's initialisation would.

    >>> p = random_projections(8, 4, seed=1)
    >>> p.w_q.shape, p.w_v.shape
    ((8, 4), (8, 4))
    >>> bool((p.w_q == random_projections(8, 4, seed=1).w_q).all())
    True
    """
    d_v = d_k if d_v is None else d_v
    if d_model < 1 or d_k < 1 or d_v < 1:
        raise ValueError(f"dimensions must be >= 1, got d_model={d_model}, d_k={d_k}, d_v={d_v}")
    rng = np.random.default_rng(seed)
    std = 1.0 / np.sqrt(d_model)
    w_q = rng.normal(0.0, std, size=(d_model, d_k))  # (d_model, d_k)
    w_k = rng.normal(0.0, std, size=(d_model, d_k))  # (d_model, d_k)
    w_v = rng.normal(0.0, std, size=(d_model, d_v))  # (d_model, d_v)
    return make_projections(w_q, w_k, w_v, kind="random")


def identity_projections(d_model: int) -> Projections:
    """W^Q = W^K = W^V = I: the inputs themselves serve as q, k and v (d_k = d_model).

    >>> identity_projections(3).w_k
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    eye = np.eye(d_model)  # (d_model, d_model)
    return make_projections(eye, eye, eye, kind="identity")


def project(a, proj: Projections) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q, k, v for inputs ``a`` of shape (T, d_model): (T, d_k), (T, d_k), (T, d_v).

    >>> q, k, v = project(np.ones((2, 3)), identity_projections(3))
    >>> q.shape, bool((q == 1).all())
    ((2, 3), True)
    """
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[-1] != proj.d_model:
        raise ValueError(f"inputs must have shape (T, {proj.d_model}) to match W^Q, got {a.shape}")
    q = a @ proj.w_q + proj.b_q  # (T, d_k)
    k = a @ proj.w_k + proj.b_k  # (T, d_k)
    v = a @ proj.w_v + proj.b_v  # (T, d_v)
    return q, k, v


def self_attention(a, proj: Projections, *, mask=None, scale=None) -> AttentionTrace:
    """Queries, keys and values all from the same sequence ``a`` (T, d_model).

    >>> t = self_attention(np.eye(3), identity_projections(3))
    >>> t.weights.shape
    (3, 3)
    """
    q, k, v = project(a, proj)
    return scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)


def cross_attention(a_query, a_memory, proj: Projections, *, mask=None, scale=None) -> AttentionTrace:
    """Queries from one sequence (T_q, d_model), keys and values from another (T_k, d_model):
    weights of shape (T_q, T_k), as a decoder reading an encoder's output.

    >>> t = cross_attention(np.ones((2, 3)), np.eye(3), identity_projections(3))
    >>> t.weights.shape
    (2, 3)
    """
    q, _, _ = project(a_query, proj)
    _, k, v = project(a_memory, proj)
    return scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
