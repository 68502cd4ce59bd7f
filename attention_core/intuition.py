"""The numbers of the "What is attention?" page: reading weights and an attention budget.

Both are softmax weights from ``attention.softmax``, the same function the real attention
uses. Their inputs are *hand-given* relevance scores (not learned, not computed from word
vectors): the page says so. The picture of human vision (sharp focus, coarse periphery) is
image processing, not attention maths, and lives with the figures in attention_ui.

Sharpness β multiplies the scores before the softmax (β = 1/temperature): β = 0 spreads the
weight evenly, a large β gives almost everything to the highest score.

    >>> allocate([2.0, 1.0, 0.0], budget=100, sharpness=0.0).round(2)
    array([33.33, 33.33, 33.33])
    >>> allocate([2.0, 1.0, 0.0], budget=100, sharpness=1.0).round(1)
    array([66.5, 24.5,  9. ])
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .attention import softmax

SCENE_REGIONS: tuple[str, ...] = ("cat", "house", "tree", "sun", "sky", "grass")
"""The parts of the picture on the page, in the order of SCENE_RELEVANCE."""

SCENE_RELEVANCE: tuple[float, ...] = (3.0, 2.0, 1.0, 1.0, 0.0, 0.0)
"""Hand-given importance (0–3) of each region for someone looking for the cat."""

BUDGET = 100.0
"""Units of attention to share out (e.g. 100 % of one glance)."""


def allocate(scores, *, budget: float = BUDGET, sharpness: float = 1.0) -> np.ndarray:
    """Share ``budget`` out over the items: budget × softmax(sharpness × scores).

    Parameters
    ----------
    scores : array_like, shape (n,)   how much each item matters (any real numbers)
    budget : float                    the total to share out; the result sums to it
    sharpness : float                 β ≥ 0; 0 = even split, large = all to the top item

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    scores = np.asarray(scores, dtype=np.float64)  # (n,)
    if scores.ndim != 1 or scores.size == 0:
        raise ValueError(f"allocate needs a non-empty 1-D list of scores, got shape {scores.shape}")
    if not (np.isfinite(sharpness) and sharpness >= 0):
        raise ValueError(f"sharpness must be a finite number >= 0, got {sharpness!r}")
    return budget * softmax(sharpness * scores)  # (n,)


@dataclass(frozen=True)
class Unit:
    """One piece of the reading text: a word (with a relevance score) or spacing/punctuation."""

    text: str
    score: float | None  # None: not a word (space, punctuation), takes no part in the softmax


_MARKED = re.compile(r"(\*{1,3})([^*]+?)\1")
_WORDS = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_]+(?:['’-][^\W_]+)*|\s+|.", re.UNICODE)
"""A CJK character, a word of letters/digits, a run of spaces, or any other single character."""


def marked_units(text: str) -> list[Unit]:
    """Split a reading text whose key words are starred by relevance into units.

    ``*word*`` has relevance 1, ``**word**`` 2, ``***word***`` 3; every other word 0. A word is
    a run of letters or a single CJK character (Chinese has no spaces between words).

    >>> [(u.text, u.score) for u in marked_units("the **cat**, 睡")]
    [('the', 0.0), (' ', None), ('cat', 2.0), (',', None), (' ', None), ('睡', 0.0)]
    """
    units: list[Unit] = []

    def plain(chunk: str) -> None:
        for m in _WORDS.finditer(chunk):
            piece = m.group(0)
            is_word = piece[0].isalnum() or "\u3400" <= piece[0] <= "\u9fff"
            units.append(Unit(piece, 0.0 if is_word else None))

    pos = 0
    for m in _MARKED.finditer(text):
        plain(text[pos : m.start()])
        units.append(Unit(m.group(2), float(len(m.group(1)))))
        pos = m.end()
    plain(text[pos:])
    return units


def reading_weights(units: list[Unit], *, sharpness: float = 1.0) -> np.ndarray:
    """Softmax weights over the words of ``units`` (NaN for spaces and punctuation).

    >>> w = reading_weights(marked_units("a ***b*** c"), sharpness=1.0)
    >>> bool(np.isnan(w[1])), round(float(np.nansum(w)), 6)
    (True, 1.0)
    """
    words = [i for i, u in enumerate(units) if u.score is not None]
    out = np.full(len(units), np.nan)  # (n_units,)
    if words:
        out[words] = allocate([units[i].score for i in words], budget=1.0, sharpness=sharpness)
    return out
