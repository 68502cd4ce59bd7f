"""Exercise (c), order: put the seven steps of attention in order (``lesson.STEPS``, the same
list the step-by-step page walks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..lesson import STEPS
from ..seeds import check_seed
from .common import exercise_rng

# --------------------------------------------------------------------------- (c) order


@dataclass(frozen=True)
class OrderExercise:
    """The steps in a seeded shuffled order (never already in order)."""

    seed: int
    shuffled: tuple[str, ...]


@dataclass(frozen=True)
class OrderResult:
    """The check of an ordering.

    correct : the answer is exactly ``STEPS``
    per_position : one bool per position of the answer (right step at that place)
    first_wrong : the first wrong position (0-based), None if all are right
    problem : None, "incomplete" (fewer than all steps), "unknown" (a name not in STEPS)
        or "repeated" (a step twice)
    """

    correct: bool
    per_position: tuple[bool, ...]
    first_wrong: int | None
    problem: str | None
    expected: tuple[str, ...] = STEPS


def order_exercise(seed: int) -> OrderExercise:
    """The seven steps, shuffled by ``seed``.

    >>> sorted(order_exercise(4).shuffled) == sorted(STEPS), order_exercise(4).shuffled != STEPS
    (True, True)
    """
    rng = exercise_rng(seed, "order")
    while True:
        order = tuple(STEPS[i] for i in rng.permutation(len(STEPS)))
        if order != STEPS:
            return OrderExercise(seed=check_seed(seed), shuffled=order)


def check_order(answer: Sequence[str]) -> OrderResult:
    """Compare an ordering of step names with ``STEPS``.

    >>> r = check_order(["tokens", "embedding", "qkv", "scores", "softmax", "scale", "output"])
    >>> r.correct, r.first_wrong, r.per_position[4]
    (False, 4, False)
    """
    answer = list(answer or [])
    per_position = tuple(i < len(STEPS) and step == STEPS[i] for i, step in enumerate(answer))
    problem = None
    if any(step not in STEPS for step in answer):
        problem = "unknown"
    elif len(set(answer)) != len(answer):
        problem = "repeated"
    elif len(answer) < len(STEPS):
        problem = "incomplete"
    wrong = [i for i, ok in enumerate(per_position) if not ok]
    first_wrong = wrong[0] if wrong else (len(answer) if len(answer) < len(STEPS) else None)
    correct = problem is None and tuple(answer) == STEPS
    return OrderResult(correct=correct, per_position=per_position, first_wrong=first_wrong, problem=problem)
