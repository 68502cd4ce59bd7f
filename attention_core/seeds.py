"""Seeds a learner types or a link carries: whole numbers 0 … MAX_SEED − 1.

A seed picks an exercise (``exercises``), a class's question (``class_questions``) or the
random start of a small model being trained (``learning``): the same seed gives the same
numbers on every machine, so a teacher can read one out to a class. Every module that takes a
seed checks it here, so each says the same thing about a bad one; this module imports nothing
of the core, so the trainer does not pull in the lessons to check a number.

>>> check_seed(123456)
123456
"""

from __future__ import annotations

MAX_SEED = 1_000_000
"""Seeds are integers 0 … MAX_SEED − 1 (short enough to read out to a class)."""


def check_seed(seed) -> int:
    """``seed`` as an int in 0 … MAX_SEED − 1, or a ValueError that says what is wrong.

    >>> check_seed(7), check_seed(7.0)
    (7, 7)
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an integer from 0 to 999999, got -1
    """
    try:
        ok = int(seed) == seed and 0 <= int(seed) < MAX_SEED
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ValueError(f"seed must be an integer from 0 to {MAX_SEED - 1}, got {seed!r}")
    return int(seed)
