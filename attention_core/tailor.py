"""The tailor shop: query, keys and values you can hold in your hand, computed by real attention.

A customer describes the shirt they want (the **query** q); every sample in the shop wears a
label that describes it over the same features (its **key** k_j); the sample itself — its
colour, pattern, fabric, cut — is its **value** v_j. How well each label matches the request
is the score α_j = q · k_j; the softmax turns the scores into weights α̂_j (percentages that
add up to 100 %); the made-to-measure shirt is the weighted blend b = Σ_j α̂_j v_j. That is
one row of Attention(Q, K, V) = softmax(Q Kᵀ · scale) V, and it is computed here by the same
``scaled_dot_product_attention`` as every other page.

Sharpness and scale
-------------------
The learner's *sharpness* β is the ``scale`` handed to the attention function:
α̂_j = softmax_j(β · α_j), i.e. β = 1/T for a softmax temperature T.

* β = 0: every score becomes 0, so every sample gets the same weight 1/n and the result is
  the plain average of all samples ("blend everything evenly").
* β large (e.g. 50): the best-matching sample takes almost all the weight ("take only the
  best match").
* The Transformer's own choice is β = 1/√d_k (here d_k = 10 features, 1/√10 ≈ 0.32).

Features are one-hot per group: a label is 1 on its own option of each group and 0
elsewhere; the request puts the customer's *importance* (0–3) on the chosen option of a group
(0 everywhere in a group marked "either"). So q · k_j adds up the importances of the wishes
that sample j fulfils.

    >>> r = Request(cut="mens", pattern="plaid", fabric="cotton", style="casual")
    >>> fitted = fit(r, sharpness=50.0)
    >>> SAMPLES[int(fitted.weights.argmax())].id
    'flannel'
    >>> float(fitted.weights.sum())
    1.0
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .arrays import frozen
from .attention import AttentionTrace, scaled_dot_product_attention
from .similarity import unit_rows

GROUPS: dict[str, tuple[str, ...]] = {
    "cut": ("mens", "womens"),
    "pattern": ("plaid", "solid", "striped"),
    "fabric": ("cotton", "silk", "linen"),
    "style": ("formal", "casual"),
}
"""Feature groups and their options, in the order of the key/query vector."""

FEATURES: tuple[str, ...] = tuple(option for options in GROUPS.values() for option in options)
"""The d_k = 10 components of every key and query: mens, womens, plaid, solid, striped,
cotton, silk, linen, formal, casual."""

ATTRIBUTES: tuple[str, ...] = (
    "red",
    "green",
    "blue",
    "accent_red",
    "accent_green",
    "accent_blue",
    "plaid",
    "stripes",
    "sheen",
    "texture",
    "sleeve",
    "taper",
)
"""The d_v = 12 components of every value, each in [0, 1], all visible in the drawing:
base colour (RGB), pattern colour (RGB), amount of plaid, amount of stripes, sheen (silk),
weave texture (linen), sleeve length (short 0 … long 1), waist taper (straight 0 … fitted 1)."""

IMPORTANCE_RANGE = (0.0, 3.0)
"""How much a wish may matter: 0 (not at all) … 3 (a must)."""

SHARPNESS_STEPS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0)
"""The sharpness values β the page offers, from "blend evenly" (0) to "best match only" (50)."""

DEFAULT_SHARPNESS = 0.5


def transformer_sharpness() -> tuple[float, float, float]:
    """The Transformer's own β = 1/√d_k for this shop's d_k = len(FEATURES) features, and the
    slider steps just below and above it (it is not a step itself).

    >>> beta, below, above = transformer_sharpness()
    >>> round(beta, 4), below, above
    (0.3162, 0.2, 0.35)
    """
    beta = 1.0 / float(np.sqrt(len(FEATURES)))
    below = max(step for step in SHARPNESS_STEPS if step <= beta)
    above = min(step for step in SHARPNESS_STEPS if step >= beta)
    return beta, below, above


SIMILARITY_MEASURES = ("dot", "cosine")


@dataclass(frozen=True)
class Sample:
    """One garment of the shop: its label (one option per group) and its visible attributes."""

    id: str
    label: dict[str, str]
    value: tuple[float, ...]  # (d_v,) in the order of ATTRIBUTES

    def key(self) -> np.ndarray:
        """The label as a one-hot vector over FEATURES, shape (d_k,)."""
        k = np.zeros(len(FEATURES))  # (d_k,)
        for option in self.label.values():
            k[FEATURES.index(option)] = 1.0
        return k


def _sample(id, cut, pattern, fabric, style, rgb, accent, sheen, texture, taper):
    plaid = 1.0 if pattern == "plaid" else 0.0
    stripes = 1.0 if pattern == "striped" else 0.0
    sleeve = 1.0 if style == "formal" else 0.35
    return Sample(
        id,
        {"cut": cut, "pattern": pattern, "fabric": fabric, "style": style},
        (*rgb, *accent, plaid, stripes, sheen, texture, sleeve, taper),
    )


SAMPLES: tuple[Sample, ...] = (
    _sample("flannel", "mens", "plaid", "cotton", "casual", (0.72, 0.16, 0.17), (0.10, 0.13, 0.30), 0.10, 0.30, 0.10),
    _sample("dress_white", "mens", "solid", "silk", "formal", (0.95, 0.94, 0.90), (0.80, 0.78, 0.72), 0.90, 0.05, 0.15),
    _sample(
        "oxford_stripe", "mens", "striped", "cotton", "formal", (0.72, 0.82, 0.95), (0.16, 0.30, 0.62), 0.15, 0.25, 0.15
    ),
    _sample("sand_linen", "mens", "solid", "linen", "casual", (0.85, 0.76, 0.58), (0.62, 0.52, 0.36), 0.05, 0.95, 0.05),
    _sample("breton", "womens", "striped", "linen", "casual", (0.96, 0.96, 0.94), (0.13, 0.20, 0.45), 0.05, 0.90, 0.85),
    _sample(
        "emerald_silk", "womens", "solid", "silk", "formal", (0.05, 0.45, 0.34), (0.02, 0.28, 0.20), 0.95, 0.05, 0.95
    ),
    _sample("gingham", "womens", "plaid", "cotton", "casual", (0.96, 0.80, 0.36), (0.85, 0.35, 0.12), 0.10, 0.30, 0.90),
    _sample(
        "rose_blouse", "womens", "solid", "cotton", "formal", (0.93, 0.66, 0.72), (0.76, 0.42, 0.50), 0.25, 0.20, 0.85
    ),
)
"""Eight samples: every option of every group appears, and no two labels are the same."""


def keys() -> np.ndarray:
    """All sample labels as one matrix K, shape (n_samples, d_k)."""
    return np.stack([s.key() for s in SAMPLES])  # (n, d_k)


def values() -> np.ndarray:
    """All samples' visible attributes as one matrix V, shape (n_samples, d_v)."""
    return np.array([s.value for s in SAMPLES], dtype=np.float64)  # (n, d_v)


@dataclass(frozen=True)
class Request:
    """What the customer asks for: an option per group (None = "either") and its importance.

    >>> Request(cut="womens", importance={"cut": 3.0}).query()[:2]
    array([0., 3.])
    """

    cut: str | None = None
    pattern: str | None = None
    fabric: str | None = None
    style: str | None = None
    importance: dict[str, float] = field(default_factory=dict)  # group -> 0..3, default 1

    def choices(self) -> dict[str, str | None]:
        return {"cut": self.cut, "pattern": self.pattern, "fabric": self.fabric, "style": self.style}

    def query(self) -> np.ndarray:
        """The request as a vector q over FEATURES, shape (d_k,).

        Raises ValueError for an option that is not in its group or an importance outside
        IMPORTANCE_RANGE (a page validates its widgets; this is the last line).
        """
        q = np.zeros(len(FEATURES))  # (d_k,)
        for group, option in self.choices().items():
            weight = float(self.importance.get(group, 1.0))
            if not IMPORTANCE_RANGE[0] <= weight <= IMPORTANCE_RANGE[1]:
                raise ValueError(f"importance of {group} must be in {IMPORTANCE_RANGE}, got {weight!r}")
            if option is None:
                continue
            if option not in GROUPS[group]:
                raise ValueError(f"{option!r} is not an option of {group}; choose one of {GROUPS[group]}")
            q[FEATURES.index(option)] = weight
        return q


@dataclass(frozen=True)
class TailorFit:
    """One fitting: the request, the shop, and the attention trace that blends the samples.

    ``trace`` holds q (1, d_k), k (n, d_k), v (n, d_v), scores (1, n), weights (1, n),
    outputs (1, d_v) exactly as ``scaled_dot_product_attention`` returned them. With
    ``similarity="cosine"``, q and k were scaled to unit length first, so the scores are the
    cosines of the angles between request and labels.
    """

    request: Request
    query: np.ndarray  # (d_k,) the request as the customer gave it (before any normalising)
    sharpness: float
    similarity: str
    trace: AttentionTrace

    @property
    def scores(self) -> np.ndarray:
        """α_j: how well each label matches the request, shape (n,)."""
        return self.trace.scores[0]

    @property
    def weights(self) -> np.ndarray:
        """α̂_j: each sample's share of the result, shape (n,), sums to 1."""
        return self.trace.weights[0]

    @property
    def blend(self) -> np.ndarray:
        """b = Σ_j α̂_j v_j: the made-to-measure shirt's attributes, shape (d_v,)."""
        return self.trace.outputs[0]


def fit(request: Request, *, sharpness: float = DEFAULT_SHARPNESS, similarity: str = "dot") -> TailorFit:
    """Blend the shop's samples for ``request``: softmax(β · q Kᵀ) V by scaled_dot_product_attention.

    Parameters
    ----------
    request : Request
    sharpness : float
        β ≥ 0, used as the attention ``scale`` (β = 1/temperature). 0 gives the plain average.
    similarity : "dot" or "cosine"
        How the match is measured: q · k_j, or the cosine (q and k scaled to unit length).

    Examples
    --------
    >>> even = fit(Request(cut="mens"), sharpness=0.0)
    >>> bool(np.allclose(even.blend, values().mean(axis=0)))
    True
    """
    sharpness = float(sharpness)
    if not (np.isfinite(sharpness) and sharpness >= 0):
        raise ValueError(f"sharpness must be a finite number >= 0, got {sharpness!r}")
    if similarity not in SIMILARITY_MEASURES:
        raise ValueError(f"similarity must be one of {SIMILARITY_MEASURES}, got {similarity!r}")
    q = request.query()[None, :]  # (1, d_k)
    k = keys()  # (n, d_k)
    if similarity == "cosine":
        q, k = unit_rows(q), unit_rows(k)  # (1, d_k), (n, d_k): dot = cosine
    trace = scaled_dot_product_attention(q, k, values(), scale=sharpness)  # outputs (1, d_v)
    query = frozen(request.query(), dtype=None, copy=False)  # (d_k,)
    return TailorFit(request=request, query=query, sharpness=sharpness, similarity=similarity, trace=trace)
