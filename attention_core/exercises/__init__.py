"""Exercises that check themselves: the exercise, its answer and the checking, no UI.

Four kinds (``KINDS``):

* ``attend``     — which key token does query i attend to most? (a generated sentence of toy
  tokens, or the learner's own lesson). The answer is the arg-max of the trace's weights. On a
  trained head the seed draws the head as well as the query row (``attend_from_encoder``), so
  that the answer is a word piece and varies from seed to seed.
* ``by_hand``    — compute α̂_1j = softmax_j(q·k_j / √2) for a tiny 2-d example with small
  integers; answers are accepted within ``BY_HAND_TOLERANCE``. Every slip of ``SLIPS`` is
  recognised and named, and no exercise is drawn on which a slip would pass as right.
* ``order``      — put the seven steps of attention in order (``lesson.STEPS``).
* ``no_scaling`` — what changes without the division by √d_k? (multiple choice, explained
  with a computed experiment from ``scaling.scaling_experiment``).

Everything is seeded: an exercise is a pure function of ``(seed, kind)`` through
``np.random.default_rng([seed, kind number])``, so the same link gives the whole class the
same exercise on every machine. Checking returns a result that says what is right, what the
expected answer is and, when it is wrong, the numbers that explain why; pages only lay it out.

One module a kind (``attend``, ``by_hand``, ``order``, ``no_scaling``), on what they share
(``common``: the kinds, the seeded streams, the score). Every public name is importable from
``attention_core.exercises`` itself, as the pages use it (``ex.check_by_hand``).

>>> ex = by_hand_exercise(3)
>>> check_by_hand(ex, ex.weights).correct
True
>>> check_order(list(STEPS)).correct, check_order(list(reversed(STEPS))).correct
(True, False)
"""

from __future__ import annotations

from ..lesson import STEPS
from ..seeds import MAX_SEED
from .attend import (
    GENERATED_TOKENS,
    VOCAB,
    AttendExercise,
    AttendResult,
    attend_candidates,
    attend_exercise,
    attend_from_encoder,
    attend_from_lesson,
    attend_from_trace,
    check_attend,
    generated_sentence,
)
from .by_hand import (
    BY_HAND_D_K,
    BY_HAND_KEYS,
    BY_HAND_RANGE,
    BY_HAND_TOLERANCE,
    SLIP_MARGIN,
    SLIPS,
    ByHandExercise,
    ByHandResult,
    by_hand_exercise,
    check_by_hand,
    slip_answers,
    slips_are_distinct,
)
from .common import (
    KINDS,
    exercise_id,
    exercise_rng,
    record_answer,
    score,
)
from .no_scaling import (
    CHOICES,
    CORRECT_CHOICE,
    NO_SCALING_D_KS,
    NO_SCALING_KEYS,
    NO_SCALING_SAMPLES,
    ChoiceResult,
    NoScalingExercise,
    check_no_scaling,
    no_scaling_exercise,
    no_scaling_options,
)
from .order import (
    OrderExercise,
    OrderResult,
    check_order,
    order_exercise,
)

__all__ = [
    "MAX_SEED",
    "STEPS",
    "KINDS",
    "exercise_rng",
    "exercise_id",
    "record_answer",
    "score",
    "VOCAB",
    "GENERATED_TOKENS",
    "AttendExercise",
    "AttendResult",
    "attend_from_trace",
    "attend_candidates",
    "attend_from_encoder",
    "attend_from_lesson",
    "generated_sentence",
    "attend_exercise",
    "check_attend",
    "BY_HAND_D_K",
    "BY_HAND_KEYS",
    "BY_HAND_RANGE",
    "BY_HAND_TOLERANCE",
    "SLIPS",
    "SLIP_MARGIN",
    "ByHandExercise",
    "ByHandResult",
    "slip_answers",
    "slips_are_distinct",
    "by_hand_exercise",
    "check_by_hand",
    "OrderExercise",
    "OrderResult",
    "order_exercise",
    "check_order",
    "CHOICES",
    "CORRECT_CHOICE",
    "NO_SCALING_D_KS",
    "NO_SCALING_KEYS",
    "NO_SCALING_SAMPLES",
    "NoScalingExercise",
    "ChoiceResult",
    "no_scaling_options",
    "no_scaling_exercise",
    "check_no_scaling",
]
