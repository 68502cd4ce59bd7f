"""Exercise (a), attend: which key token does query i attend to most?

On a generated sentence of toy tokens (``attend_exercise``), on the learner's own lesson
(``attend_from_lesson``) or on a trained head of the real model (``attend_from_encoder``, where
the seed draws the head as well as the query row). The answer is the arg-max of the weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..arrays import frozen
from ..attention import AttentionTrace, scaled_dot_product_attention
from ..embeddings import ToyEmbedder
from ..encoder_files import MARKERS
from ..lesson import LessonSettings, build_lesson
from ..seeds import check_seed
from .common import exercise_rng

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
