"""The tasks a small decoder learns, their tokens, and the examples it trains and is tested on.

Each task's answer needs attention (copy, reverse and sort look back by position or by content;
induction needs two layers). Examples are drawn from seeded streams only
(``default_rng([seed, stream, …])``), and one example in ``HELD_OUT_EVERY`` (a fixed hash of its
tokens) is held out: never in a training batch, so an accuracy on held-out examples is one on
sequences the model has not seen.

    >>> decode("reverse", encode("reverse", "abc|"))
    'abc|'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..arrays import frozen
from ..seeds import check_seed

IGNORE = -1
"""The target at a position that is not scored (its answer is not determined by what came before)."""

INIT_STREAM, TRAIN_STREAM, HELD_OUT_STREAM, EXAMPLE_STREAM = 0, 1, 2, 3
"""The second number of ``default_rng([seed, stream, …])``: each use of a seed draws from a stream of its own."""

HELD_OUT_EVERY = 8
"""One example in this many (by a fixed hash of its tokens) is held out: never in a training batch."""


@dataclass(frozen=True)
class Task:
    """One task: its tokens, the layout of an example, which positions are scored, and a recipe.

    Attributes
    ----------
    id : str
        Short machine id ("copy", "reverse", "sort", "induction").
    alphabet : str
        Every token, one printable character each; a token's id is its index here.
    length : int
        Tokens in one example. The model reads the first ``length - 1`` and predicts, at each
        position, the next token, so it has ``length - 1`` positions.
    scored : tuple of int
        Positions (0-based, in the example) whose token is determined by the tokens before it.
        Only these count in the loss and in the accuracy.
    layout : str
        The layout in words, e.g. ``"x1 x2 x3 x4 x5 | x5 x4 x3 x2 x1"``.
    sample : callable
        ``sample(rng, n) -> (n, length)`` int array of examples.
    n_layers, n_heads, d_model : int
        The model size that learns this task quickly (the defaults of ``init_params``).
    steps, lr, batch_size :
        The training recipe that reaches 95 % held-out accuracy (the defaults of ``train``).
    """

    id: str
    alphabet: str
    length: int
    scored: tuple[int, ...]
    layout: str
    sample: Callable[[np.random.Generator, int], np.ndarray]
    n_layers: int = 1
    n_heads: int = 2
    d_model: int = 32
    steps: int = 100
    lr: float = 0.003
    batch_size: int = 64

    @property
    def vocab_size(self) -> int:
        """V, the number of tokens."""
        return len(self.alphabet)

    @property
    def n_positions(self) -> int:
        """T, the positions the model reads: one example minus its last token."""
        return self.length - 1

    @property
    def n_answers(self) -> int:
        """How many tokens an answer can be: every token but the separator, which is never scored.
        A blind guess among them is right with chance 1 / ``n_answers``.

        >>> get_task("reverse").vocab_size, get_task("reverse").n_answers
        (9, 8)
        """
        return self.vocab_size - 1


LETTERS = "abcdefgh"
DIGITS = "0123456789"
SEP = "|"
N_ITEMS = 5  # tokens before the separator in copy, reverse and sort
N_CONTEXT = 6  # letters before the separator in induction


def _sample_copy(rng: np.random.Generator, n: int) -> np.ndarray:
    xs = rng.integers(0, len(LETTERS), size=(n, N_ITEMS))  # (n, L)
    sep = np.full((n, 1), len(LETTERS))  # (n, 1)
    return np.concatenate([xs, sep, xs], axis=1)  # (n, 2L+1)


def _sample_reverse(rng: np.random.Generator, n: int) -> np.ndarray:
    xs = rng.integers(0, len(LETTERS), size=(n, N_ITEMS))  # (n, L)
    sep = np.full((n, 1), len(LETTERS))  # (n, 1)
    return np.concatenate([xs, sep, xs[:, ::-1]], axis=1)  # (n, 2L+1)


def _sample_sort(rng: np.random.Generator, n: int) -> np.ndarray:
    xs = rng.permuted(np.tile(np.arange(len(DIGITS)), (n, 1)), axis=1)[:, :N_ITEMS]  # (n, L), distinct digits
    sep = np.full((n, 1), len(DIGITS))  # (n, 1)
    return np.concatenate([xs, sep, np.sort(xs, axis=1)], axis=1)  # (n, 2L+1)


def _sample_induction(rng: np.random.Generator, n: int) -> np.ndarray:
    xs = rng.permuted(np.tile(np.arange(len(LETTERS)), (n, 1)), axis=1)[:, :N_CONTEXT]  # (n, C), distinct letters
    sep = np.full((n, 1), len(LETTERS))  # (n, 1)
    where = rng.integers(0, N_CONTEXT - 1, size=n)  # (n,), the query is any letter but the last
    rows = np.arange(n)
    query = xs[rows, where][:, None]  # (n, 1)
    answer = xs[rows, where + 1][:, None]  # (n, 1), the letter that followed the query
    return np.concatenate([xs, sep, query, answer], axis=1)  # (n, C+3)


COPY = Task(
    id="copy",
    alphabet=LETTERS + SEP,
    length=2 * N_ITEMS + 1,
    scored=tuple(range(N_ITEMS + 1, 2 * N_ITEMS + 1)),
    layout="x1 x2 x3 x4 x5 | x1 x2 x3 x4 x5",
    sample=_sample_copy,
)
"""Copy: five letters a–h (repeats allowed), the separator ``|``, then the same five letters.

Example ``cabhe|cabhe``. Scored: the five letters after ``|``. Position ``5 + i`` (``|``
for i = 0) predicts letter ``i``, five positions back: the heads learn to look a fixed
distance back, a stripe parallel to the diagonal in the weights."""

REVERSE = Task(
    id="reverse",
    alphabet=LETTERS + SEP,
    length=2 * N_ITEMS + 1,
    scored=tuple(range(N_ITEMS + 1, 2 * N_ITEMS + 1)),
    layout="x1 x2 x3 x4 x5 | x5 x4 x3 x2 x1",
    sample=_sample_reverse,
)
"""Reverse: five letters a–h (repeats allowed), ``|``, then the five letters backwards.

Example ``cabhe|ehbac``. Scored: the five letters after ``|``. The token after ``|`` is the
last letter, the next one the letter before it, and so on: the weights form an
anti-diagonal, each later position looking further back."""

SORT = Task(
    id="sort",
    alphabet=DIGITS + SEP,
    length=2 * N_ITEMS + 1,
    scored=tuple(range(N_ITEMS + 1, 2 * N_ITEMS + 1)),
    layout="x1 x2 x3 x4 x5 | sorted(x1 … x5)",
    sample=_sample_sort,
    steps=300,
)
"""Sort: five different digits 0–9, ``|``, then the same digits in increasing order.

Example ``40718|01478``. Scored: the five digits after ``|``. Where to look depends on the
digits, not on positions: after digit d the answer is the smallest input digit above d, so
the query of d must match the keys of the digits just above it."""

INDUCTION = Task(
    id="induction",
    alphabet=LETTERS + SEP,
    length=N_CONTEXT + 3,
    scored=(N_CONTEXT + 2,),
    layout="x1 … x6 | q a, with q = x_i and a = x_(i+1)",
    sample=_sample_induction,
    n_layers=2,
    steps=400,
)
"""Induction: six different letters a–h, ``|``, a query letter q from the first five, then the
letter that followed q.

Example ``cafbed|b`` → ``e``. Scored: only that last letter. No single attention layer can
do it: a first-layer head copies each letter's predecessor into its position ("previous
token" head), and a second-layer head at q finds the position whose predecessor is q and
reads its letter (the "induction head" of language models). Two layers by default."""

TASKS: dict[str, Task] = {t.id: t for t in (REVERSE, COPY, SORT, INDUCTION)}
"""Every task by id; the first is the default."""

DEFAULT_TASK = "reverse"


def get_task(task: Task | str) -> Task:
    """``task`` itself, or the task of that id.

    >>> get_task("copy").layout
    'x1 x2 x3 x4 x5 | x1 x2 x3 x4 x5'
    """
    if isinstance(task, Task):
        return task
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; the tasks are {', '.join(TASKS)}")
    return TASKS[task]


def encode(task: Task | str, text: str) -> np.ndarray:
    """The token ids of ``text``, one character per token, in ``task``'s alphabet.

    >>> encode("sort", "301|")
    array([ 3,  0,  1, 10])
    >>> encode("copy", "abz")
    Traceback (most recent call last):
    ...
    ValueError: 'z' is not a token of the copy task; its tokens are: abcdefgh|
    """
    task = get_task(task)
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    unknown = sorted({c for c in text if c not in task.alphabet}, key=text.index)
    if unknown:
        listed = ", ".join(repr(c) for c in unknown)
        verb = "is not a token" if len(unknown) == 1 else "are not tokens"
        raise ValueError(f"{listed} {verb} of the {task.id} task; its tokens are: {task.alphabet}")
    return np.array([task.alphabet.index(c) for c in text], dtype=np.int64)  # (len(text),)


def decode(task: Task | str, ids) -> str:
    """The text of token ids ``ids`` in ``task``'s alphabet (the inverse of ``encode``).

    >>> decode("sort", [3, 0, 1, 10])
    '301|'
    """
    task = get_task(task)
    ids = np.asarray(ids)
    if ids.ndim != 1 or (ids.size and not np.issubdtype(ids.dtype, np.integer)):
        raise ValueError(f"ids must be a 1-D sequence of integers, got shape {ids.shape} and dtype {ids.dtype}")
    bad = ids[(ids < 0) | (ids >= task.vocab_size)]
    if bad.size:
        raise ValueError(f"token id {int(bad[0])} is outside the {task.id} task's ids 0 … {task.vocab_size - 1}")
    return "".join(task.alphabet[i] for i in ids)


_HASH_PRIME = 65521
_HASH_MULTIPLIERS = frozen(np.random.default_rng(HELD_OUT_EVERY).integers(1, _HASH_PRIME, size=64), dtype=None)


def _held_out(examples: np.ndarray) -> np.ndarray:
    """True for the examples (rows) in the held-out part: a fixed linear hash of the tokens."""
    hashes = examples @ _HASH_MULTIPLIERS[: examples.shape[1]] % _HASH_PRIME  # (n,)
    return hashes % HELD_OUT_EVERY == 0  # (n,)


def _examples(task: Task, n: int, rng: np.random.Generator, held_out: bool) -> np.ndarray:
    """``n`` examples (n, length) of the training or the held-out part, by rejection."""
    kept = []
    count = 0
    while count < n:
        batch = task.sample(rng, (n - count) * (HELD_OUT_EVERY if held_out else 2) + 8)  # (m, length)
        batch = batch[_held_out(batch) == held_out]
        kept.append(batch)
        count += len(batch)
    return np.concatenate(kept)[:n]  # (n, length)


def _split_examples(task: Task, examples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    inputs = examples[:, :-1]  # (n, T)
    targets = examples[:, 1:].copy()  # (n, T), the next token of each position
    scored = np.zeros(task.length, dtype=bool)
    scored[list(task.scored)] = True
    targets[:, ~scored[1:]] = IGNORE
    return inputs, targets


def _batch(task: Task, n: int, seed, held_out: bool) -> tuple[np.ndarray, np.ndarray]:
    return _split_examples(task, _examples(task, n, np.random.default_rng(seed), held_out))


def make_batch(task: Task | str, n: int, seed: int = 0, *, held_out: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``n`` examples of ``task`` as model inputs and targets.

    Parameters
    ----------
    task : Task or str
    n : int
        Number of examples, >= 1.
    seed : int
        Seed of ``np.random.default_rng``: the same arguments give the same batch.
    held_out : bool
        Draw from the held-out part (one example in ``HELD_OUT_EVERY``) instead of the
        training part. The two parts never share an example.

    Returns
    -------
    inputs : (n, T) int array
        Every token of an example but the last.
    targets : (n, T) int array
        The next token at each position, ``IGNORE`` (-1) where it is not scored.

    Examples
    --------
    >>> inputs, targets = make_batch("reverse", 1, seed=4)
    >>> decode("reverse", inputs[0]), targets[0]
    ('fhheh|hehh', array([-1, -1, -1, -1, -1,  7,  4,  7,  7,  5]))
    """
    task = get_task(task)
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a whole number of examples >= 1, got {n!r}")
    return _batch(task, int(n), check_seed(seed), held_out)
