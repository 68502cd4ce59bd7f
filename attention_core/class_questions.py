"""A class answers one exercise together: what a student may send, and which bar it counts for.

The four kinds of ``exercises.KINDS`` are asked to a whole class with one shared seed. Every
answer a student sends is validated here against the question's own options (``judge``) and
sorted into one *outcome*, a bar of the teacher's view; the bars of a question come from its
exercise alone (``outcomes``), so a class's tally never holds a bar nobody could have chosen.

* ``attend``     (the generated sentence of the seed): the key j chosen, ``"key:<j>"`` (0-based);
* ``no_scaling`` : the option chosen, its id (``"saturate"`` …);
* ``by_hand``    : three weights, sorted into ``"right"``, the slip the check names
  (``exercises.SLIPS``: ``"forgot_scale"`` is "forgot ÷√d_k"), ``"negative"``,
  ``"sum_not_one"`` or ``"other"``;
* ``order``      : the seven steps, sorted into ``"right"``, ``"wrong_at:<p>"`` (the first
  wrong position p, from 1) or ``"incomplete"``.

``tally`` turns the counts a store keeps into the bars' shares. Nothing here knows a database,
a student or Streamlit.

>>> judge("no_scaling", 3, "saturate").outcome
'saturate'
>>> judge("order", 3, list(STEPS)).outcome
'right'
>>> [bar.share for bar in tally("order", 3, {"right": 3, "wrong_at:2": 1}).bars if bar.count]
[0.75, 0.25]
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from . import exercises as ex
from .lesson import STEPS
from .seeds import check_seed

KINDS = ex.KINDS
"""The kinds a class can be asked: every kind of the Exercises page."""

HAND_OUTCOMES = ("right", *ex.SLIPS, "negative", "sum_not_one", "other")
"""The bars of a by-hand question, in order (a slip the exercise cannot produce is left out)."""
HAND_LIMIT = 1000.0
"""A hand-computed weight is a finite number within ±HAND_LIMIT (a weight lies in 0 … 1; the
margin leaves room for a slip such as e^x without the division, never for 1e308)."""
MAX_ANSWER_CHARS = 400
"""The longest answer stored, as canonical JSON (seven step names take about 70)."""


class InvalidAnswer(ValueError):
    """An answer that is not one of the question's options (a tampered or stale client)."""


@dataclass(frozen=True)
class Judged:
    """An answer made canonical and sorted: ``value`` the JSON text stored, ``outcome`` its bar."""

    value: str
    outcome: str


@dataclass(frozen=True)
class Bar:
    """One bar of the teacher's view: ``outcome`` id, its ``count`` and ``share`` of the answers
    (0 … 1; 0 when nobody answered), and whether it is a ``right`` answer."""

    outcome: str
    count: int
    share: float
    right: bool


@dataclass(frozen=True)
class Tally:
    """The bars of one question, in the question's order, and the number of answers."""

    kind: str
    seed: int
    bars: tuple[Bar, ...]
    total: int


def check_kind(kind) -> str:
    """``kind`` if it is one of ``KINDS``, else InvalidAnswer.

    >>> check_kind("order")
    'order'
    """
    if kind not in KINDS:
        raise InvalidAnswer(f"kind must be one of {KINDS}, got {kind!r}")
    return kind


@lru_cache(maxsize=256)
def attend_question(seed: int) -> ex.AttendExercise:
    """The ``attend`` exercise a class is asked: the generated sentence of ``seed`` (the same on
    every phone; a learner's own sentence would need the model on every phone). Cached: a class of
    80 sends 80 answers to the same question."""
    return ex.attend_exercise(seed)


@lru_cache(maxsize=256)
def by_hand_question(seed: int) -> ex.ByHandExercise:
    """The ``by_hand`` exercise of ``seed``, cached as ``attend_question``."""
    return ex.by_hand_exercise(seed)


def outcomes(kind: str, seed: int) -> tuple[str, ...]:
    """Every outcome (bar) of the question, in the order the teacher's view shows them.

    >>> outcomes("attend", 1)[:2]
    ('key:0', 'key:1')
    >>> outcomes("order", 1)[:3]
    ('right', 'wrong_at:1', 'wrong_at:2')
    """
    seed = check_seed(seed)
    kind = check_kind(kind)
    if kind == "attend":
        return tuple(f"key:{j}" for j in range(len(attend_question(seed).tokens)))
    if kind == "no_scaling":
        return ex.no_scaling_options(seed)[1]
    if kind == "by_hand":
        possible = ex.slip_answers(by_hand_question(seed).scores)
        return tuple(o for o in HAND_OUTCOMES if o not in ex.SLIPS or o in possible)
    return ("right", *(f"wrong_at:{p}" for p in range(1, len(STEPS))), "incomplete")


def right_outcomes(kind: str, seed: int) -> frozenset[str]:
    """The outcomes that are right answers (more than one only on an exact tie of weights).

    >>> sorted(right_outcomes("no_scaling", 0))
    ['saturate']
    """
    if check_kind(kind) == "attend":
        return frozenset(f"key:{j}" for j in attend_question(check_seed(seed)).answers)
    if kind == "no_scaling":
        return frozenset({ex.CORRECT_CHOICE})
    return frozenset({"right"})


def _canonical(value) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    if len(text) > MAX_ANSWER_CHARS:
        raise InvalidAnswer(f"answer longer than {MAX_ANSWER_CHARS} characters")
    return text


def _index(answer, n: int) -> int:
    if isinstance(answer, bool) or not isinstance(answer, int | float) or answer != int(answer):
        raise InvalidAnswer(f"a key is a whole number from 0 to {n - 1}, got {answer!r}")
    j = int(answer)
    if not 0 <= j < n:
        raise InvalidAnswer(f"a key is a whole number from 0 to {n - 1}, got {answer!r}")
    return j


def judge(kind: str, seed: int, answer) -> Judged:
    """Validate ``answer`` against the question (``kind``, ``seed``) and sort it into its bar.

    An answer is a Python value as the student's page sends it: an int key index (``attend``),
    an option id (``no_scaling``), three numbers (``by_hand``), a list of step ids (``order``).
    Anything else raises InvalidAnswer: a key out of range, an option the question does not
    offer, NaN, a step twice, an unknown step, a string where a number belongs.

    >>> judge("attend", 1, attend_question(1).answers[0]).outcome in right_outcomes("attend", 1)
    True
    >>> w = by_hand_question(0).weights
    >>> judge("by_hand", 0, [round(float(x), 2) for x in w]).outcome
    'right'
    >>> judge("no_scaling", 0, "<script>")
    Traceback (most recent call last):
    ...
    attention_core.class_questions.InvalidAnswer: option '<script>' is not offered by this question
    """
    try:
        seed = check_seed(seed)
    except ValueError as err:
        raise InvalidAnswer(str(err)) from None
    kind = check_kind(kind)
    if kind == "attend":
        j = _index(answer, len(attend_question(seed).tokens))
        return Judged(_canonical(j), f"key:{j}")
    if kind == "no_scaling":
        options = ex.no_scaling_options(seed)[1]
        if not isinstance(answer, str) or answer not in options:
            raise InvalidAnswer(f"option {str(answer)[:40]!r} is not offered by this question")
        return Judged(_canonical(answer), answer)
    if kind == "by_hand":
        return _judge_by_hand(seed, answer)
    return _judge_order(answer)


def _judge_by_hand(seed: int, answer) -> Judged:
    exercise = by_hand_question(seed)
    n = len(exercise.weights)
    if not isinstance(answer, list | tuple) or len(answer) != n:
        raise InvalidAnswer(f"need {n} weights")
    values = []
    for x in answer:
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x) or abs(x) > HAND_LIMIT:
            raise InvalidAnswer(f"a weight is a finite number within ±{HAND_LIMIT:g}, got {str(x)[:40]!r}")
        values.append(round(float(x), 6))
    result = ex.check_by_hand(exercise, values)
    if result.correct:
        outcome = "right"
    else:
        named = [m for m in result.mistakes if m in HAND_OUTCOMES]
        outcome = named[0] if named else "other"
    return Judged(_canonical(values), outcome)


def _judge_order(answer) -> Judged:
    if not isinstance(answer, list | tuple) or not answer or len(answer) > len(STEPS):
        raise InvalidAnswer(f"need 1 to {len(STEPS)} steps")
    if any(not isinstance(step, str) or step not in STEPS for step in answer):
        raise InvalidAnswer("an unknown step")
    if len(set(answer)) != len(answer):
        raise InvalidAnswer("a step given twice")
    result = ex.check_order(answer)
    if result.correct:
        outcome = "right"
    elif result.problem == "incomplete" and all(result.per_position):
        outcome = "incomplete"
    else:
        assert result.first_wrong is not None  # not right and not a right beginning: some step is wrong
        outcome = f"wrong_at:{result.first_wrong + 1}"
    return Judged(_canonical(list(answer)), outcome)


def answer_value(value: str):
    """The answer a stored canonical JSON text holds (what ``judge`` made of it).

    >>> answer_value(judge("order", 2, list(STEPS)).value) == list(STEPS)
    True
    """
    return json.loads(value)


def tally(kind: str, seed: int, counts: Mapping[str, int]) -> Tally:
    """The bars of the question with the store's ``counts`` (outcome → answers): each bar's
    count and share of all answers, in the question's order. An outcome the question cannot
    have (none is ever stored: ``judge`` validates) is refused.

    >>> t = tally("order", 1, {"right": 2, "wrong_at:5": 2})
    >>> t.total, [(b.outcome, b.share) for b in t.bars if b.count]
    (4, [('right', 0.5), ('wrong_at:5', 0.5)])
    """
    bars = outcomes(kind, seed)
    unknown = set(counts) - set(bars)
    if unknown:
        raise ValueError(f"outcomes {sorted(unknown)} are not bars of {kind} {seed}")
    total = int(sum(int(counts.get(o, 0)) for o in bars))
    right = right_outcomes(kind, seed)
    return Tally(
        kind=kind,
        seed=int(seed),
        bars=tuple(
            Bar(o, int(counts.get(o, 0)), int(counts.get(o, 0)) / total if total else 0.0, o in right) for o in bars
        ),
        total=total,
    )
