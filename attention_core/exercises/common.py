"""What every kind of exercise shares: the kinds, each one's seeded random stream and name, and
the score (the first answer to an exercise counts, once).
"""

from __future__ import annotations

import numpy as np

from ..seeds import check_seed

KINDS = ("attend", "by_hand", "order", "no_scaling")
"""The exercise kinds, in the order the page offers them."""


def exercise_rng(seed: int, kind: str) -> np.random.Generator:
    """The random stream of exercise ``kind`` with ``seed``: the same on every machine.

    >>> int(exercise_rng(1, "order").integers(1000)) == int(exercise_rng(1, "order").integers(1000))
    True
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return np.random.default_rng([check_seed(seed), KINDS.index(kind)])


def exercise_id(kind: str, seed: int, source: str = "") -> str:
    """A stable name for one exercise, used to count its first answer once.

    >>> exercise_id("attend", 4, "generated")
    'attend:4:generated'
    """
    return f"{kind}:{check_seed(seed)}:{source}" if source else f"{kind}:{check_seed(seed)}"


# --------------------------------------------------------------------------- score


def record_answer(attempts: dict, exercise: str, correct: bool) -> dict:
    """Store the first answer to ``exercise``; later answers to it change nothing, so the
    score cannot be raised by answering the same exercise again.

    >>> a = record_answer({}, "order:1", False)
    >>> a = record_answer(a, "order:1", True)
    >>> score(a)
    (0, 1)
    """
    if exercise in attempts:
        return attempts
    return {**attempts, exercise: bool(correct)}


def score(attempts: dict) -> tuple[int, int]:
    """(right first time, exercises answered).

    >>> score({"a:1": True, "b:1": False, "c:2": True})
    (2, 3)
    """
    return sum(1 for ok in attempts.values() if ok), len(attempts)
