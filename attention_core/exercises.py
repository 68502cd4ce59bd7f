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

>>> ex = by_hand_exercise(3)
>>> check_by_hand(ex, ex.weights).correct
True
>>> check_order(list(STEPS)).correct, check_order(list(reversed(STEPS))).correct
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .arrays import frozen
from .attention import AttentionTrace, scaled_dot_product_attention, softmax
from .embeddings import ToyEmbedder
from .encoder_files import MARKERS
from .explain import explain
from .lesson import STEPS, LessonSettings, build_lesson
from .scaling import scaling_experiment
from .seeds import MAX_SEED as MAX_SEED  # the pages read ex.MAX_SEED
from .seeds import check_seed

KINDS = ("attend", "by_hand", "order", "no_scaling")
"""The exercise kinds, in the order the page offers them."""

VOCAB = (
    "cat",
    "dog",
    "sat",
    "mat",
    "bird",
    "sang",
    "tree",
    "sun",
    "ran",
    "home",
    "fish",
    "swam",
    "red",
    "big",
    "small",
    "on",
    "the",
    "park",
    "ball",
    "blue",
)
"""Canonical words of generated sentences. Their vectors come from ``ToyEmbedder`` applied to
these (English) words, so an exercise has the same numbers in every language; the page shows
word ``VOCAB[w]`` as the w-th word of its catalog's word list."""

GENERATED_TOKENS = (4, 7)
"""A generated sentence has 4 … 6 tokens (``rng.integers`` upper bound excluded)."""

"""The steps of attention for one sentence, in order: split into tokens → embeddings (+ PE)
→ q, k, v = W^Q a, W^K a, W^V a → scores α = q·k → divide by √d_k → softmax → b = Σ α̂ v."""

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

CHOICES = ("saturate", "uniform", "nothing", "sum_changes", "negative")
"""Answers to "what changes without √d_k?"; ``"saturate"`` is the right one."""
CORRECT_CHOICE = "saturate"
NO_SCALING_D_KS = (16, 64, 256)
NO_SCALING_KEYS = 8
NO_SCALING_SAMPLES = 400


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


# --------------------------------------------------------------------------- (a) attend


@dataclass(frozen=True)
class AttendExercise:
    """Which key token does query ``query`` attend to most?

    tokens : the T tokens (for a generated sentence: words of ``VOCAB``)
    word_ids : indices into ``VOCAB`` for a generated sentence, None for the learner's own
    query : i, the query token
    scores : (T,)  α_ij = q_i·k_j, shown to the learner
    weights : (T,) α̂_ij, hidden until the answer
    answers : every j with the largest weight (more than one only on an exact tie)
    layer, head : the trained model's head the exercise was drawn on (0-based), None when the
        exercise is on a single trace (a generated sentence, the lesson's own head)
    """

    seed: int
    tokens: tuple[str, ...]
    word_ids: tuple[int, ...] | None
    query: int
    scores: np.ndarray
    weights: np.ndarray
    answers: tuple[int, ...]
    layer: int | None = None
    head: int | None = None


@dataclass(frozen=True)
class AttendResult:
    """The check of an ``attend`` answer.

    correct : the chosen key has the largest weight
    answer : the chosen key j (None if none was chosen or it is out of range)
    expected : the key with the largest weight (the first on a tie)
    chosen_score, chosen_weight : α and α̂ of the chosen key (None without an answer)
    best_score, best_weight : α and α̂ of the expected key
    """

    correct: bool
    answer: int | None
    expected: int
    chosen_score: float | None
    chosen_weight: float | None
    best_score: float
    best_weight: float


def attend_from_trace(
    trace: AttentionTrace,
    tokens: Sequence[str],
    seed: int,
    word_ids: Sequence[int] | None = None,
    skip: Sequence[str] = MARKERS,
) -> AttendExercise:
    """An ``attend`` exercise on a single-head trace: the query row is chosen by ``seed`` among
    the tokens not in ``skip`` (a trained model's [CLS] and [SEP] markers are no words to ask about).

    >>> from attention_core import ToyEmbedder, build_lesson
    >>> lesson = build_lesson("the cat sat on the mat", ToyEmbedder(dim=8))
    >>> ex = attend_from_trace(lesson.trace, lesson.tokens, seed=5)
    >>> ex.answers[0] == int(np.argmax(lesson.trace.weights[ex.query]))
    True
    """
    _check_trace(trace, tokens)
    rng = exercise_rng(seed, "attend")
    queries = [n for n, token in enumerate(tokens) if token not in skip] or list(range(len(tokens)))
    i = queries[int(rng.integers(len(queries)))]
    return _attend_row(trace, tokens, seed, i, word_ids=word_ids)


def _check_trace(trace: AttentionTrace, tokens: Sequence[str]) -> None:
    weights = np.asarray(trace.weights)
    if weights.ndim != 2 or weights.shape[0] != weights.shape[1] or weights.shape[0] != len(tokens):
        raise ValueError(
            f"need a self-attention trace with one row per token: weights {weights.shape}, {len(tokens)} tokens"
        )


def _attend_row(
    trace: AttentionTrace,
    tokens: Sequence[str],
    seed: int,
    i: int,
    word_ids: Sequence[int] | None = None,
    layer: int | None = None,
    head: int | None = None,
) -> AttendExercise:
    """The exercise on row ``i`` of ``trace``: its scores, weights and every key of largest weight."""
    row = np.asarray(trace.weights)[i]  # (T,)
    best = float(row.max())
    answers = tuple(int(j) for j in np.flatnonzero(row == best))
    return AttendExercise(
        seed=check_seed(seed),
        tokens=tuple(tokens),
        word_ids=None if word_ids is None else tuple(int(w) for w in word_ids),
        query=int(i),
        scores=frozen(trace.scores[i]),
        weights=frozen(row),
        answers=answers,
        layer=None if layer is None else int(layer),
        head=None if head is None else int(head),
    )


def attend_candidates(weights, tokens: Sequence[str], skip: Sequence[str] = MARKERS) -> np.ndarray:
    """The rows a trained-model ``attend`` exercise may ask about: every (layer, head, i) whose
    query token i is a word piece (not in ``skip``) and whose largest weight goes to a word
    piece (every tied maximum of the row outside ``skip``).

    weights : (L, H, T, T) the model's weights of one sentence; returns (n, 3) integer rows.

    >>> w = np.zeros((1, 2, 3, 3)); w[..., 0] = 1.0  # every row of both heads on [CLS] …
    >>> w[0, 1, 1] = [0.1, 0.2, 0.7]  # … but row 1 of head 1, which looks at its last token
    >>> attend_candidates(w, ["[CLS]", "hi", "there"]).tolist()
    [[0, 1, 1]]
    """
    weights = np.asarray(weights)  # (L, H, T, T)
    word = np.array([token not in skip for token in tokens])  # (T,)
    top = weights == weights.max(axis=-1, keepdims=True)  # (L, H, T, T) the maxima of each row
    on_words = ~(top & ~word).any(axis=-1) & word  # (L, H, T)
    return np.argwhere(on_words)  # (n, 3)


def attend_from_encoder(encoded, seed: int, *, scaled: bool = True, skip: Sequence[str] = MARKERS) -> AttendExercise:
    """An ``attend`` exercise on a sentence through the trained model, on a head drawn by ``seed``.

    On one trained head the answer hardly changes with the query row: many rows park their
    weight on [CLS], or all peak on the head's favourite word (measured over seeds 0 … 199 with
    the lesson's head alone: on "The boy thanked the girl because she had helped him" through
    layer 2, head 4 (from 1), 108 answers were [CLS]; on "The cat sat on the mat because it was
    tired" through layer 6, head 12, all 200 were "cat"). So the seed draws the head too:

    1. the candidates are ``attend_candidates``: rows (layer, head, i) of a word piece whose
       largest weight goes to a word piece;
    2. the answer key j is drawn first, uniformly among the keys some candidate peaks on, then
       a candidate that peaks on j: every such key is as likely to be the answer as another,
       however many heads share a favourite word;
    3. without any candidate, any word-piece row of any head.

    encoded : the sentence through the model (``encoder.EncoderTrace``): ``tokens``,
        ``weights`` (L, H, T, T) and ``head(layer, head)``, the head's ``AttentionTrace``
    scaled : False gives the weights of the unscaled scores, as the lesson's ÷√d_k switch does
        on a trained head (the same answer: softmax keeps the order of the scores)

    >>> from attention_core.encoder import encode
    >>> enc = encode("The boy thanked the girl because she had helped him")
    >>> ex = attend_from_encoder(enc, seed=3)
    >>> row = enc.weights[ex.layer, ex.head, ex.query]  # (T,)
    >>> enc.tokens[ex.answers[0]] not in MARKERS, ex.answers[0] == int(row.argmax())
    (True, True)
    """
    tokens = tuple(encoded.tokens)
    weights = np.asarray(encoded.weights)  # (L, H, T, T)
    if weights.ndim != 4 or weights.shape[-2:] != (len(tokens), len(tokens)):
        raise ValueError(f"need weights of shape (L, H, T, T) for {len(tokens)} tokens, got {weights.shape}")
    rng = exercise_rng(seed, "attend")
    candidates = attend_candidates(weights, tokens, skip)  # (n, 3)
    if len(candidates):
        peaks = weights[tuple(candidates.T)].argmax(axis=-1)  # (n,) the key each candidate row peaks on
        keys = np.unique(peaks)
        candidates = candidates[peaks == keys[int(rng.integers(len(keys)))]]
    else:  # every word-piece row of every head peaks on a marker: any word-piece row
        word = np.array([token not in skip for token in tokens])  # (T,)
        candidates = np.argwhere(np.broadcast_to(word if word.any() else ~word, weights.shape[:3]))  # (n, 3)
    layer, head, i = (int(x) for x in candidates[int(rng.integers(len(candidates)))])
    trace = encoded.head(layer, head)
    if not scaled:  # the model's own q, k, v without ÷√d_k, as lesson.build_lesson does
        trace = scaled_dot_product_attention(trace.q, trace.k, trace.v, scale=1.0)
    return _attend_row(trace, tokens, seed, i, layer=layer, head=head)


def attend_from_lesson(lesson, seed: int) -> AttendExercise:
    """The ``attend`` exercise on the learner's own lesson: on a trained head, a head and row
    drawn by ``seed`` (``attend_from_encoder``); otherwise a row of the lesson's trace
    (``attend_from_trace``).

    >>> from attention_core import ToyEmbedder, build_lesson
    >>> lesson = build_lesson("the cat sat on the mat", ToyEmbedder(dim=8))
    >>> a, b = attend_from_lesson(lesson, 5), attend_from_trace(lesson.trace, lesson.tokens, 5)
    >>> (a.query, a.answers, a.layer) == (b.query, b.answers, None)
    True
    """
    if lesson.trained and lesson.encoded is not None:
        return attend_from_encoder(lesson.encoded, seed, scaled=lesson.settings.scaled)
    return attend_from_trace(lesson.trace, lesson.tokens, seed)


def generated_sentence(seed: int) -> tuple[int, ...]:
    """The word ids (into ``VOCAB``) of the generated sentence for ``seed``; no word twice.

    >>> generated_sentence(0) == generated_sentence(0)
    True
    """
    rng = exercise_rng(seed, "attend")
    n = int(rng.integers(*GENERATED_TOKENS))
    return tuple(int(w) for w in rng.choice(len(VOCAB), size=n, replace=False))


def attend_exercise(seed: int) -> AttendExercise:
    """An ``attend`` exercise on a generated sentence of toy tokens.

    The sentence goes through the whole lesson pipeline (``build_lesson``: ToyEmbedder 8-d,
    positional encoding, seeded random W^Q, W^K, W^V with d_k = 4, scaled).

    >>> ex = attend_exercise(1)
    >>> check_attend(ex, ex.answers[0]).correct
    True
    """
    word_ids = generated_sentence(seed)
    text = " ".join(VOCAB[w] for w in word_ids)
    settings = LessonSettings(d_k=4, projection="random", seed=check_seed(seed) % 10_000)
    lesson = build_lesson(text, ToyEmbedder(dim=8), settings)
    return attend_from_trace(lesson.trace, lesson.tokens, seed, word_ids=word_ids)


def check_attend(ex: AttendExercise, answer) -> AttendResult:
    """Is ``answer`` (a key index j) the key with the largest weight?

    >>> ex = attend_exercise(2)
    >>> wrong = next(j for j in range(len(ex.tokens)) if j not in ex.answers)
    >>> r = check_attend(ex, wrong)
    >>> r.correct, r.chosen_weight < r.best_weight, r.chosen_score < r.best_score
    (False, True, True)
    """
    expected = ex.answers[0]
    best_score, best_weight = float(ex.scores[expected]), float(ex.weights[expected])
    try:
        j = int(answer)
        valid = j == answer and 0 <= j < len(ex.tokens)
    except (TypeError, ValueError, OverflowError):
        valid = False
    if not valid:
        return AttendResult(False, None, expected, None, None, best_score, best_weight)
    return AttendResult(
        j in ex.answers, j, expected, float(ex.scores[j]), float(ex.weights[j]), best_score, best_weight
    )


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


# --------------------------------------------------------------------------- (d) no scaling


@dataclass(frozen=True)
class NoScalingExercise:
    """ "What changes without √d_k?", with the numbers of a seeded experiment.

    d_k : the dimension asked about
    options : four answer ids from ``CHOICES`` (always including the right one), shuffled
    The experiment (``scaling_experiment(d_k, NO_SCALING_KEYS, NO_SCALING_SAMPLES, seed)``):
    raw_std, scaled_std : spread (standard deviation) of q·k and of q·k/√d_k
    raw_max_weight, scaled_max_weight : mean largest weight of a row, without / with √d_k
    raw_jacobian, scaled_jacobian : mean size of softmax's Jacobian (the gradient path)
    raw_sum_error : largest |Σ_j α̂_j − 1| without √d_k (softmax still sums to 1)
    raw_min_weight : smallest weight without √d_k (still ≥ 0)
    example_raw, example_scaled : (n_keys,) the weights of the first query, without / with
    """

    seed: int
    d_k: int
    options: tuple[str, ...]
    n_keys: int
    n_samples: int
    raw_std: float
    scaled_std: float
    raw_max_weight: float
    scaled_max_weight: float
    raw_jacobian: float
    scaled_jacobian: float
    raw_sum_error: float
    raw_min_weight: float
    example_raw: np.ndarray
    example_scaled: np.ndarray


@dataclass(frozen=True)
class ChoiceResult:
    correct: bool
    choice: str | None
    expected: str = CORRECT_CHOICE


def no_scaling_options(seed: int) -> tuple[int, tuple[str, ...]]:
    """The d_k and the four shuffled answer ids (the right one and three of the others) of the
    question for ``seed``, without its experiment.

    >>> d_k, options = no_scaling_options(0)
    >>> d_k in NO_SCALING_D_KS, CORRECT_CHOICE in options, len(set(options))
    (True, True, 4)
    """
    rng = exercise_rng(seed, "no_scaling")
    d_k = int(NO_SCALING_D_KS[int(rng.integers(len(NO_SCALING_D_KS)))])
    wrong = [c for c in CHOICES if c != CORRECT_CHOICE]
    picked = [wrong[i] for i in rng.choice(len(wrong), size=3, replace=False)]
    options = tuple(picked[i] if i < 3 else CORRECT_CHOICE for i in range(4))
    return d_k, tuple(options[i] for i in rng.permutation(4))


def no_scaling_exercise(seed: int) -> NoScalingExercise:
    """The question for ``seed``: a d_k from ``NO_SCALING_D_KS`` and four shuffled options.

    >>> ex = no_scaling_exercise(0)
    >>> CORRECT_CHOICE in ex.options, ex.raw_max_weight > ex.scaled_max_weight
    (True, True)
    """
    d_k, options = no_scaling_options(seed)
    run = scaling_experiment(d_k, n_keys=NO_SCALING_KEYS, n_samples=NO_SCALING_SAMPLES, seed=check_seed(seed))
    return NoScalingExercise(
        seed=check_seed(seed),
        d_k=d_k,
        options=options,
        n_keys=NO_SCALING_KEYS,
        n_samples=NO_SCALING_SAMPLES,
        raw_std=float(np.sqrt(run.raw_variance)),
        scaled_std=float(np.sqrt(run.scaled_variance)),
        raw_max_weight=run.raw_stats.max_weight,
        scaled_max_weight=run.scaled_stats.max_weight,
        raw_jacobian=run.raw_stats.jacobian_norm,
        scaled_jacobian=run.scaled_stats.jacobian_norm,
        raw_sum_error=float(np.abs(run.raw_weights.sum(axis=1) - 1.0).max()),
        raw_min_weight=float(run.raw_weights.min()),
        example_raw=frozen(run.raw_weights[0]),
        example_scaled=frozen(run.scaled_weights[0]),
    )


def check_no_scaling(ex: NoScalingExercise, choice) -> ChoiceResult:
    """Is ``choice`` the right option?

    >>> check_no_scaling(no_scaling_exercise(0), "saturate").correct
    True
    """
    valid = choice in ex.options
    return ChoiceResult(correct=valid and choice == CORRECT_CHOICE, choice=choice if valid else None)


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
