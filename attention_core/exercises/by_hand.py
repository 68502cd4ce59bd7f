"""Exercise (b), by hand: α̂_1j = softmax_j(q·k_j / √2) for a tiny 2-d example with small integers.

Answers are accepted within ``BY_HAND_TOLERANCE``; every slip of ``SLIPS`` is recognised and
named, and no exercise is drawn on which a slip would pass as right (``slips_are_distinct``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays import frozen
from ..attention import scaled_dot_product_attention, softmax
from ..explain import explain
from ..seeds import check_seed
from .common import exercise_rng

BY_HAND_D_K = 2
BY_HAND_KEYS = 3
BY_HAND_RANGE = (-2, 2)
"""The by-hand example: q and three keys k_j in 2-d, integer components in -2 … 2."""
BY_HAND_TOLERANCE = 0.02
"""A hand-computed weight counts as right within ±0.02 of the exact value (two decimals and
a rounded e^x are enough)."""
SLIPS = ("forgot_scale", "scaled_by_d_k", "times_sqrt_d_k", "no_exp", "no_normalise")
"""The slips the by-hand check recognises, each a wrong method applied with care:
forgot_scale: softmax(q·k), the division by √d_k forgotten; scaled_by_d_k: softmax(q·k / d_k),
divided by d_k instead of √d_k; times_sqrt_d_k: softmax(q·k · √d_k), multiplied by √d_k instead
of divided; no_exp: the scores divided by their sum, no exponential; no_normalise: e^(q·k/√d_k)
without dividing by the sum."""
SLIP_MARGIN = 2 * BY_HAND_TOLERANCE
"""An exercise is drawn only if every slip's answer differs from the right one, and from every
other slip's, by more than this in some weight: a slip then never passes as right (not even
rounded to two decimals), and the check can tell which slip it was."""


# --------------------------------------------------------------------------- (b) by hand


@dataclass(frozen=True)
class ByHandExercise:
    """Compute α̂_1j for one query q and keys k_j (d_k = 2) by hand.

    q : (2,) integers        k : (n, 2) integers
    scores : (n,)  q·k_j       scaled : (n,)  q·k_j / √2
    exps : (n,)    e^(scaled_j), the hand method (no max subtracted)
    total : Σ_j exps_j         weights : (n,) α̂_1j, from ``scaled_dot_product_attention``
    """

    seed: int
    q: np.ndarray
    k: np.ndarray
    scale: float
    scores: np.ndarray
    scaled: np.ndarray
    exps: np.ndarray
    total: float
    weights: np.ndarray


@dataclass(frozen=True)
class ByHandResult:
    """The check of hand-computed weights.

    correct : every weight within ``tolerance`` of the exact one
    per_key : (n,) bool, which weights are within tolerance
    answer : (n,) what was entered (NaN where nothing usable was entered)
    expected : (n,) the exact weights
    answer_sum : Σ of the entered weights
    mistakes : what went wrong, in order: "missing" (not n finite numbers), then the slip of
        ``SLIPS`` the answer matches within the tolerance, if any; else "negative" (a weight
        below 0) and "sum_not_one" (the weights do not add up to 1)
    """

    correct: bool
    per_key: tuple[bool, ...]
    answer: np.ndarray
    expected: np.ndarray
    answer_sum: float
    tolerance: float
    mistakes: tuple[str, ...]


def slip_answers(scores) -> dict[str, np.ndarray]:
    """What each slip of ``SLIPS`` gives for the scores q·k_j (d_k = ``BY_HAND_D_K``): the
    answer of a learner who computed everything right except that one step. ``no_exp`` is
    missing when the scores add up to 0 (there is no such answer to give).

    >>> answers = slip_answers([2.0, 0.0, -1.0])
    >>> [round(float(x), 3) for x in answers["no_exp"]], round(float(answers["no_normalise"][1]), 3)
    ([2.0, 0.0, -1.0], 1.0)
    """
    scores = np.asarray(scores, dtype=np.float64)  # (n,)
    answers = {
        "forgot_scale": softmax(scores),
        "scaled_by_d_k": softmax(scores / BY_HAND_D_K),
        "times_sqrt_d_k": softmax(scores * np.sqrt(BY_HAND_D_K)),
        "no_normalise": np.exp(scores / np.sqrt(BY_HAND_D_K)),
    }
    if scores.sum() != 0:
        answers["no_exp"] = scores / scores.sum()
    return {name: answers[name] for name in SLIPS if name in answers}


def slips_are_distinct(scores, weights, margin: float = SLIP_MARGIN) -> bool:
    """True when every slip's answer is more than ``margin`` away (in its farthest weight) from
    the right ``weights`` and from every other slip's answer.

    >>> slips_are_distinct([3.0, -1.0, 0.0], softmax(np.array([3.0, -1.0, 0.0]) / np.sqrt(2)))
    True
    """
    answers = [np.asarray(weights, dtype=np.float64), *slip_answers(scores).values()]
    return all(
        np.abs(answers[a] - answers[b]).max() > margin for a in range(len(answers)) for b in range(a + 1, len(answers))
    )


def by_hand_exercise(seed: int) -> ByHandExercise:
    """A tiny example with small integers, seeded; the keys are distinct, the weights are not
    all equal (something to compute), and no slip gives nearly the right weights
    (``slips_are_distinct``), so a slip cannot pass as right.

    >>> ex = by_hand_exercise(0)
    >>> ex.q.shape, ex.k.shape, round(ex.scale, 4)
    ((2,), (3, 2), 0.7071)
    >>> bool(np.isclose(ex.weights.sum(), 1.0)), slips_are_distinct(ex.scores, ex.weights)
    (True, True)
    """
    rng = exercise_rng(seed, "by_hand")
    low, high = BY_HAND_RANGE
    while True:  # rejects q = 0, repeated keys, all-equal scores and slips that look right
        q = rng.integers(low, high + 1, size=BY_HAND_D_K)  # (2,)
        k = rng.integers(low, high + 1, size=(BY_HAND_KEYS, BY_HAND_D_K))  # (n, 2)
        scores = (k @ q).astype(np.float64)  # (n,)
        if not (q.any() and len({tuple(r) for r in k}) == BY_HAND_KEYS and len(set(scores.tolist())) > 1):
            continue
        if slips_are_distinct(scores, softmax(scores / np.sqrt(BY_HAND_D_K))):
            break
    q = q.astype(np.float64)  # (2,)
    k = k.astype(np.float64)  # (n, 2)
    trace = scaled_dot_product_attention(q[None, :], k, k)  # v = k: only the weights are asked
    e = explain(trace, 0)
    exps = np.exp(e.scaled)  # (n,)   e^(α_1j/√2) as computed by hand, no max subtracted
    return ByHandExercise(
        seed=check_seed(seed),
        q=frozen(q),
        k=frozen(k),
        scale=float(trace.scale),
        scores=frozen(e.scores),
        scaled=frozen(e.scaled),
        exps=frozen(exps),
        total=float(exps.sum()),
        weights=frozen(e.weights),
    )


def check_by_hand(ex: ByHandExercise, answer, tolerance: float = BY_HAND_TOLERANCE) -> ByHandResult:
    """Check hand-computed weights against the exact ones; name the slip when wrong.

    >>> ex = by_hand_exercise(0)
    >>> check_by_hand(ex, np.round(ex.weights, 2)).correct
    True
    >>> check_by_hand(ex, np.round(softmax(ex.scores), 2)).mistakes
    ('forgot_scale',)
    >>> r = check_by_hand(ex, [1.0, 0.0])
    >>> r.correct, r.mistakes
    (False, ('missing',))
    """
    n = len(ex.weights)
    try:
        values = [float(a) if a is not None else np.nan for a in answer]
    except (TypeError, ValueError):
        values = []
    got = np.full(n, np.nan)  # (n,)
    got[: min(n, len(values))] = values[:n]
    mistakes = []
    if len(values) != n or not np.isfinite(got).all():
        mistakes.append("missing")
    finite = np.where(np.isfinite(got), got, np.nan)  # (n,)
    per_key = tuple(bool(x) for x in np.abs(finite - ex.weights) <= tolerance)
    answer_sum = float(np.nansum(finite))
    if "missing" not in mistakes and not all(per_key):
        slips = [name for name, slip in slip_answers(ex.scores).items() if (np.abs(got - slip) <= tolerance).all()]
        mistakes += slips
        if not slips and (got < 0).any():
            mistakes.append("negative")
        if not slips and abs(answer_sum - 1.0) > tolerance:
            mistakes.append("sum_not_one")
    correct = all(per_key) and "missing" not in mistakes
    return ByHandResult(
        correct=correct,
        per_key=per_key,
        answer=frozen(got),
        expected=ex.weights,
        answer_sum=answer_sum,
        tolerance=float(tolerance),
        mistakes=tuple(mistakes),
    )
