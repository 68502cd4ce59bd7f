"""Why Attention divides by √d_k: a measured experiment.

Take a query q and a key k whose d_k components are independent, mean 0, variance 1.
Each product q_i k_i then has mean 0 and variance Var(q_i) Var(k_i) = 1, and the products
are independent, so the variance of their sum adds up:

    Var(q · k) = Σ_{i=1}^{d_k} Var(q_i k_i) = d_k        Var(q · k / √d_k) = d_k / d_k = 1

Unscaled, the typical score grows like √d_k. Softmax of widely spread scores saturates: the
largest score takes almost all the weight (α̂ → 0 or 1) and the entropy of the row falls
towards 0. The softmax Jacobian ∂α̂/∂α = diag(α̂) − α̂ α̂ᵀ then tends to the zero matrix, so
hardly any gradient flows back to the scores, q, k, W^Q and W^K: learning stalls. Dividing
by √d_k keeps the scores at unit variance for every d_k, and the weights stay soft.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .arrays import frozen
from .attention import softmax

D_KS = tuple(2**i for i in range(1, 10))
"""The default sweep: d_k = 2, 4, 8, …, 512."""

_CHUNK = 250  # samples drawn at a time: keeps memory small even for d_k = 512


def softmax_jacobian(p) -> np.ndarray:
    """Jacobian of softmax at the point whose weights are ``p``: J = diag(p) − p pᵀ.

    J_ij = ∂p_i/∂x_j = p_i (δ_ij − p_j). Every row and column sums to 0 (the weights always
    sum to 1, whatever the scores). When p is one-hot (a saturated softmax), J = 0: a small
    change of any score changes no weight, so no gradient flows back through the softmax.

    Parameters
    ----------
    p : array_like, shape (n,) or (..., n)
        Softmax weights: entries in [0, 1], summing to 1 along the last axis. A stack of
        weight vectors gives a stack of Jacobians.

    Returns
    -------
    numpy.ndarray, shape (n, n) or (..., n, n), symmetric.

    Examples
    --------
    >>> softmax_jacobian([0.5, 0.5])
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    >>> softmax_jacobian([1.0, 0.0])
    array([[0., 0.],
           [0., 0.]])
    """
    p = np.asarray(p, dtype=np.float64)  # (..., n)
    if p.ndim < 1 or p.shape[-1] == 0:
        raise ValueError(f"p must be a non-empty weight vector of shape (..., n), got shape {p.shape}")
    if not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
        raise ValueError("p must hold softmax weights: finite, each between 0 and 1")
    if not np.allclose(p.sum(axis=-1), 1.0, atol=1e-9):
        raise ValueError("p must hold softmax weights: each vector must sum to 1")
    diag = p[..., :, None] * np.eye(p.shape[-1])  # (..., n, n)   diag(p)
    outer = p[..., :, None] * p[..., None, :]  # (..., n, n)   p pᵀ
    return diag - outer  # (..., n, n)


@dataclass(frozen=True)
class RowStatistics:
    """How saturated a stack of softmax rows is, averaged over the rows.

    max_weight : mean largest weight per row, from 1/n (uniform) to 1 (one-hot)
    peak_weight : the largest weight of any row
    entropy : mean entropy −Σ_j α̂_j ln α̂_j per row, in nats, from 0 (one-hot) to ln n (uniform)
    max_entropy : ln n, the entropy of the uniform row, for reference
    jacobian_norm : mean Frobenius norm of the softmax Jacobian diag(α̂) − α̂ α̂ᵀ per row,
                    √(n−1)/n for a uniform row, 0 for a one-hot row
    """

    max_weight: float
    peak_weight: float
    entropy: float
    max_entropy: float
    jacobian_norm: float


def row_statistics(weights) -> RowStatistics:
    """Largest weight, entropy and softmax-Jacobian size of softmax rows, averaged over rows.

    Parameters
    ----------
    weights : array_like, shape (n,) or (..., n)
        Softmax rows (each sums to 1 along the last axis), e.g. a lesson's α̂ matrix.

    Returns
    -------
    RowStatistics

    Examples
    --------
    >>> s = row_statistics([[0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]])
    >>> s.max_weight, round(s.entropy, 4), round(s.max_entropy, 4)
    (0.625, 0.6931, 1.3863)
    >>> round(s.jacobian_norm, 4)  # (√3/4 + 0) / 2
    0.2165
    """
    p = np.atleast_2d(np.asarray(weights, dtype=np.float64))  # (rows, n)
    p = p.reshape(-1, p.shape[-1])  # (rows, n)
    n = p.shape[-1]
    log_p = np.log(np.where(p > 0, p, 1.0))  # (rows, n)   0 · ln 0 counts as 0
    entropy = -(p * log_p).sum(axis=-1)  # (rows,)
    jac = softmax_jacobian(p)  # (rows, n, n)
    jac_norm = np.linalg.norm(jac, axis=(-2, -1))  # (rows,)   Frobenius norm
    return RowStatistics(
        max_weight=float(p.max(axis=-1).mean()),
        peak_weight=float(p.max()),
        entropy=float(entropy.mean()),
        max_entropy=float(np.log(n)),
        jacobian_norm=float(jac_norm.mean()),
    )


@dataclass(frozen=True)
class ScalingResult:
    """One run of the experiment at one d_k; arrays are read-only.

    d_k, n_keys, n_samples, seed : the settings
    raw : (n_samples, n_keys)     α = q·k for one random query against n_keys random keys per row
    scaled : (n_samples, n_keys)  α / √d_k
    raw_weights : (n_samples, n_keys)     softmax(raw) per row
    scaled_weights : (n_samples, n_keys)  softmax(scaled) per row
    raw_variance, scaled_variance : measured variance of all entries of raw / scaled (≈ d_k, ≈ 1)
    raw_stats, scaled_stats : RowStatistics of raw_weights / scaled_weights
    """

    d_k: int
    n_keys: int
    n_samples: int
    seed: int
    raw: np.ndarray
    scaled: np.ndarray
    raw_weights: np.ndarray
    scaled_weights: np.ndarray
    raw_variance: float
    scaled_variance: float
    raw_stats: RowStatistics
    scaled_stats: RowStatistics


def _check(d_k: int, n_keys: int, n_samples: int) -> None:
    for name, value, low in (("d_k", d_k, 1), ("n_keys", n_keys, 2), ("n_samples", n_samples, 2)):
        if int(value) != value or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")


def _dot_products(d_k: int, n_keys: int, n_samples: int, seed: int) -> np.ndarray:
    """q·k for n_samples fresh queries, each against its own n_keys fresh keys.

    Components are drawn in float32 (three times faster to draw than float64, and these
    statistics need no more digits); the scores are returned as float64.
    """
    rng = np.random.default_rng([seed, d_k])  # one independent stream per (seed, d_k)
    chunks = []
    for start in range(0, n_samples, _CHUNK):
        m = min(_CHUNK, n_samples - start)
        q = rng.standard_normal((m, d_k, 1), dtype=np.float32)  # (m, d_k, 1)        components ~ N(0, 1)
        k = rng.standard_normal((m, n_keys, d_k), dtype=np.float32)  # (m, n_keys, d_k)   components ~ N(0, 1)
        chunks.append((k @ q)[..., 0])  # (m, n_keys)   α_j = Σ_i q_i k_ji
    return np.concatenate(chunks, axis=0).astype(np.float64)  # (n_samples, n_keys)


@lru_cache(maxsize=8)  # 0.1 s a run, read-only result: the page's slider and reruns ask again
def scaling_experiment(d_k: int, n_keys: int = 16, n_samples: int = 2000, seed: int = 0) -> ScalingResult:
    """Measure what dividing by √d_k does to random dot products and their softmax.

    Each of the n_samples rows is one query q against n_keys keys k_j, all with d_k
    independent N(0, 1) components. Since Var(q_i k_i) = 1 and the d_k products are
    independent, Var(q·k) = d_k: unscaled scores spread out like √d_k, their softmax
    saturates (largest weight → 1, entropy → 0) and its Jacobian, the gradient path back
    to the scores, vanishes. Divided by √d_k, the variance is 1 for every d_k.

    Parameters
    ----------
    d_k : int
        Dimension of queries and keys, >= 1.
    n_keys : int
        Keys per query (the length of one softmax row), >= 2.
    n_samples : int
        Independent rows (queries), >= 2.
    seed : int
        Seed of ``np.random.default_rng([seed, d_k])``: the same arguments give the same numbers.

    Returns
    -------
    ScalingResult
        raw and scaled scores (n_samples, n_keys), their softmax rows, measured variances
        and row statistics.

    Examples
    --------
    >>> r = scaling_experiment(64, seed=0)
    >>> r.raw.shape, r.scaled.shape
    ((2000, 16), (2000, 16))
    >>> bool(abs(r.raw_variance / 64 - 1) < 0.05), bool(abs(r.scaled_variance - 1) < 0.05)
    (True, True)
    >>> r.raw_stats.max_weight > 0.8 > 0.4 > r.scaled_stats.max_weight  # unscaled: near one-hot
    True
    >>> r.raw_stats.jacobian_norm < r.scaled_stats.jacobian_norm  # and hardly any gradient
    True
    """
    _check(d_k, n_keys, n_samples)
    d_k, n_keys, n_samples, seed = int(d_k), int(n_keys), int(n_samples), int(seed)
    raw = _dot_products(d_k, n_keys, n_samples, seed)  # (n_samples, n_keys)   Var ≈ d_k
    scaled = raw / np.sqrt(d_k)  # (n_samples, n_keys)   Var ≈ 1
    raw_weights = softmax(raw, axis=-1)  # (n_samples, n_keys)
    scaled_weights = softmax(scaled, axis=-1)  # (n_samples, n_keys)
    return ScalingResult(
        d_k=d_k,
        n_keys=n_keys,
        n_samples=n_samples,
        seed=seed,
        raw=frozen(raw),
        scaled=frozen(scaled),
        raw_weights=frozen(raw_weights),
        scaled_weights=frozen(scaled_weights),
        raw_variance=float(raw.var()),
        scaled_variance=float(scaled.var()),
        raw_stats=row_statistics(raw_weights),
        scaled_stats=row_statistics(scaled_weights),
    )


@dataclass(frozen=True)
class ScalingSweep:
    """The experiment's statistics over several d_k, for line charts; arrays are read-only.

    d_ks : (m,) the dimensions
    raw_variance, scaled_variance : (m,)   measured Var(q·k) ≈ d_k and Var(q·k/√d_k) ≈ 1
    raw_max_weight, scaled_max_weight : (m,)   mean largest softmax weight per row
    raw_entropy, scaled_entropy : (m,)   mean row entropy, nats
    raw_jacobian_norm, scaled_jacobian_norm : (m,)   mean Frobenius norm of the softmax Jacobian
    max_entropy : ln n_keys (uniform weights)
    uniform_weight : 1 / n_keys (uniform weights)
    """

    d_ks: np.ndarray
    n_keys: int
    n_samples: int
    seed: int
    raw_variance: np.ndarray
    scaled_variance: np.ndarray
    raw_max_weight: np.ndarray
    scaled_max_weight: np.ndarray
    raw_entropy: np.ndarray
    scaled_entropy: np.ndarray
    raw_jacobian_norm: np.ndarray
    scaled_jacobian_norm: np.ndarray
    max_entropy: float
    uniform_weight: float


def scaling_sweep(d_ks=D_KS, n_keys: int = 16, n_samples: int = 2000, seed: int = 0) -> ScalingSweep:
    """Run ``scaling_experiment`` at each d_k and collect its statistics.

    The entry at a given d_k equals ``scaling_experiment(d_k, n_keys, n_samples, seed)``'s
    numbers exactly; a sweep is cached per arguments (its result is read-only). Unscaled,
    the variance grows like d_k, the largest weight climbs towards 1 and the entropy and
    Jacobian norm fall towards 0; scaled, all stay roughly flat — that is the whole reason
    for the √d_k.

    Parameters
    ----------
    d_ks : sequence of int, shape (m,)
        Dimensions to try, each >= 1.
    n_keys, n_samples, seed : int
        As in ``scaling_experiment``.

    Returns
    -------
    ScalingSweep

    Examples
    --------
    >>> s = scaling_sweep((4, 256), n_samples=500)
    >>> s.d_ks
    array([  4, 256])
    >>> bool(np.all(np.abs(s.raw_variance / s.d_ks - 1) < 0.15)), bool(np.all(np.abs(s.scaled_variance - 1) < 0.15))
    (True, True)
    >>> bool(s.raw_max_weight[1] > s.raw_max_weight[0]), bool(s.raw_entropy[1] < s.raw_entropy[0])
    (True, True)
    """
    d_ks = tuple(int(d) for d in d_ks)
    if not d_ks:
        raise ValueError("d_ks must name at least one dimension")
    return _sweep(d_ks, int(n_keys), int(n_samples), int(seed))


@lru_cache(maxsize=8)
def _sweep(d_ks: tuple[int, ...], n_keys: int, n_samples: int, seed: int) -> ScalingSweep:
    # Cached: a sweep takes about half a second, does not change with the page's slider,
    # and its result is read-only and a few hundred bytes, so one copy serves every caller.
    results = [scaling_experiment(d, n_keys, n_samples, seed) for d in d_ks]

    def column(get) -> np.ndarray:
        return frozen([get(r) for r in results])  # (m,)

    return ScalingSweep(
        d_ks=frozen(d_ks, dtype=np.int64),
        n_keys=n_keys,
        n_samples=n_samples,
        seed=seed,
        raw_variance=column(lambda r: r.raw_variance),
        scaled_variance=column(lambda r: r.scaled_variance),
        raw_max_weight=column(lambda r: r.raw_stats.max_weight),
        scaled_max_weight=column(lambda r: r.scaled_stats.max_weight),
        raw_entropy=column(lambda r: r.raw_stats.entropy),
        scaled_entropy=column(lambda r: r.scaled_stats.entropy),
        raw_jacobian_norm=column(lambda r: r.raw_stats.jacobian_norm),
        scaled_jacobian_norm=column(lambda r: r.scaled_stats.jacobian_norm),
        max_entropy=float(np.log(n_keys)),
        uniform_weight=1.0 / n_keys,
    )
