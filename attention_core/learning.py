"""A small decoder trained for real, in NumPy, with its backward pass written out by hand.

Every page says W^Q, W^K, W^V are "learned by backpropagation". This module does it: a tiny
decoder starts from random W, is trained by Adam on a task whose answer needs attention, and
an attention pattern appears as the loss falls. The model, for token ids x_1 … x_T:

    h⁰_i = E[x_i] + P_i                                   token + position embedding
    for each layer ℓ (one or two), each head h (one to four):
        q = h W^Q_h,  k = h W^K_h,  v = h W^V_h            (T, d_k), d_k = d_model / n_heads
        head_h = softmax(q kᵀ / √d_k + causal mask) v       (T, d_k), query i sees keys j <= i
        hˡ⁺¹ = hˡ + concat(head_1, …, head_H) W^O           residual
    logits_i = h_i U                                      unembedding, (T, V)
    loss = mean over scored positions of −log softmax(logits_i)[target_i]

The attention itself is ``attention.scaled_dot_product_attention`` with the causal mask of
``masks.causal_mask``, so the trace a page shows (q, k, scores, weights, outputs) is the one
every other page shows. The backward pass is the chain rule through those same named values
(``loss_and_grads``); ``tests/test_learning.py`` checks it against finite differences.

Randomness is seeded only: the initial W come from ``default_rng([seed, INIT_STREAM])``, the
training batch of step s from ``default_rng([seed, TRAIN_STREAM, s])``, held-out examples from
``default_rng([seed, HELD_OUT_STREAM])``. Held-out also means *never trained on*: a fixed
hash puts one example in eight in the held-out part (``HELD_OUT_EVERY``), and training batches
are drawn from the other seven only.

    >>> history = train("reverse", steps=3, seed=0)
    >>> history.loss.shape, [s.step for s in history.snapshots]
    ((3,), [0, 3])
    >>> decode("reverse", encode("reverse", "abc|"))
    'abc|'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .arrays import frozen
from .attention import AttentionTrace, scaled_dot_product_attention, softmax
from .masks import causal_mask
from .seeds import check_seed

IGNORE = -1
"""The target at a position that is not scored (its answer is not determined by what came before)."""

INIT_STREAM, TRAIN_STREAM, HELD_OUT_STREAM, EXAMPLE_STREAM = 0, 1, 2, 3
"""The second number of ``default_rng([seed, stream, …])``: each use of a seed draws from a stream of its own."""

HELD_OUT_EVERY = 8
"""One example in this many (by a fixed hash of its tokens) is held out: never in a training batch."""

SNAPSHOT_STEPS = (0, 10, 30, 100, 300, 1000, 3000, 10000)
"""Steps at which training keeps the attention weights of its fixed example (and the last step)."""

MAX_LAYERS, MAX_HEADS = 2, 4
"""The largest model ``init_params`` builds: one or two layers, one to four heads."""

INIT_QK = 0.1
"""W^Q and W^K start this much smaller than N(0, 1/d_model): the first scores are near 0, the
first weights nearly uniform, so the pattern a learner sees is learned, not luck of the draw."""

INIT_OUT = 0.1
"""The unembedding starts this much smaller: the first guess is nearly uniform, loss ≈ log V."""

ADAM_BETAS = (0.9, 0.98)
ADAM_EPS = 1e-8


# --------------------------------------------------------------------------- tasks


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


# --------------------------------------------------------------------------- the model


def init_params(
    task: Task | str,
    seed: int = 0,
    *,
    d_model: int | None = None,
    n_heads: int | None = None,
    n_layers: int | None = None,
) -> dict[str, np.ndarray]:
    """Random initial weights of a decoder for ``task``, from ``default_rng([seed, INIT_STREAM])``.

    Keys: ``token_embedding`` (V, d_model), ``position_embedding`` (T, d_model); for each layer
    ℓ, ``layer{ℓ}.w_q``, ``.w_k``, ``.w_v`` (n_heads, d_model, d_k), one W^Q_h, W^K_h, W^V_h per
    head, and ``layer{ℓ}.w_o`` (n_heads, d_k, d_model), the row blocks of W^O that take each
    head's output back to d_model (concat(head_1 … head_H) W^O = Σ_h head_h W^O_h);
    ``unembedding`` (d_model, V). d_k = d_model / n_heads. Embeddings are N(0, 1); every
    matrix is N(0, 1/fan-in), which keeps vectors about as large as they came.
    Sizes left out are the task's (``Task.d_model``, ``n_heads``, ``n_layers``).

    >>> p = init_params("reverse", seed=0)
    >>> {k: v.shape for k, v in p.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'token_embedding': (9, 32), 'position_embedding': (10, 32), 'layer0.w_q': (2, 32, 16),
     'layer0.w_k': (2, 32, 16), 'layer0.w_v': (2, 32, 16), 'layer0.w_o': (2, 16, 32), 'unembedding': (32, 9)}
    """
    task = get_task(task)
    d_model = task.d_model if d_model is None else d_model
    n_heads = task.n_heads if n_heads is None else n_heads
    n_layers = task.n_layers if n_layers is None else n_layers
    if not (isinstance(n_layers, int) and 1 <= n_layers <= MAX_LAYERS):
        raise ValueError(f"n_layers must be 1 … {MAX_LAYERS}, got {n_layers!r}")
    if not (isinstance(n_heads, int) and 1 <= n_heads <= MAX_HEADS):
        raise ValueError(f"n_heads must be 1 … {MAX_HEADS}, got {n_heads!r}")
    if not (isinstance(d_model, int) and d_model >= 1 and d_model % n_heads == 0):
        raise ValueError(f"d_model must be a positive multiple of n_heads = {n_heads}, got {d_model!r}")
    rng = np.random.default_rng([check_seed(seed), INIT_STREAM])
    d_k = d_model // n_heads
    params = {
        "token_embedding": rng.normal(0.0, 1.0, size=(task.vocab_size, d_model)),  # (V, d_model)
        "position_embedding": rng.normal(0.0, 1.0, size=(task.n_positions, d_model)),  # (T, d_model)
    }
    for layer in range(n_layers):
        for name in ("w_q", "w_k", "w_v"):
            std = (INIT_QK if name != "w_v" else 1.0) / math.sqrt(d_model)
            params[f"layer{layer}.{name}"] = rng.normal(0.0, std, size=(n_heads, d_model, d_k))  # (H, d_model, d_k)
        w_o = rng.normal(0.0, 1.0 / math.sqrt(d_model), size=(n_heads, d_k, d_model))  # (H, d_k, d_model)
        params[f"layer{layer}.w_o"] = w_o
    unembedding = rng.normal(0.0, INIT_OUT / math.sqrt(d_model), size=(d_model, task.vocab_size))  # (d_model, V)
    params["unembedding"] = unembedding
    return params


def sizes(params: dict[str, np.ndarray]) -> dict[str, int]:
    """The sizes of a model, read from the shapes of its weights.

    >>> sizes(init_params("induction"))
    {'vocab_size': 9, 'n_positions': 8, 'd_model': 32, 'n_layers': 2, 'n_heads': 2, 'd_k': 16}
    """
    vocab_size, d_model = params["token_embedding"].shape
    n_heads, _, d_k = params["layer0.w_q"].shape
    return {
        "vocab_size": int(vocab_size),
        "n_positions": int(params["position_embedding"].shape[0]),
        "d_model": int(d_model),
        "n_layers": sum(1 for key in params if key.endswith(".w_q")),
        "n_heads": int(n_heads),
        "d_k": int(d_k),
    }


def _check_ids(params: dict[str, np.ndarray], ids, name: str = "inputs") -> np.ndarray:
    size = sizes(params)
    ids = np.asarray(ids)
    if ids.ndim not in (1, 2) or ids.shape[-1] == 0:
        raise ValueError(f"{name} must have shape (T,) or (n, T) with T >= 1, got shape {ids.shape}")
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"{name} must be integer token ids, got dtype {ids.dtype}")
    if ids.shape[-1] > size["n_positions"]:
        raise ValueError(f"{name}: {ids.shape[-1]} positions, but this model has {size['n_positions']}")
    if ids.min() < 0 or ids.max() >= size["vocab_size"]:
        raise ValueError(f"{name} must be token ids 0 … {size['vocab_size'] - 1}, got {ids.min()} … {ids.max()}")
    return ids


@dataclass(frozen=True)
class LayerTrace:
    """One causal self-attention layer on the residual stream, every intermediate read-only.

    Attributes
    ----------
    inputs : (..., T, d_model)
        h, the residual stream entering the layer.
    attention : AttentionTrace
        Every head at once, head axis just before the token axes: q, k, v (..., H, T, d_k),
        scores, scaled, weights (..., H, T, T), outputs (..., H, T, d_k), i.e. head_h. For
        one example (ids of shape (T,)), ``attention.head(h)`` is head h's own trace.
    mixed : (..., T, d_model)
        Σ_h head_h W^O_h = concat(head_1, …, head_H) W^O.
    outputs : (..., T, d_model)
        inputs + mixed, the residual stream leaving the layer.
    """

    inputs: np.ndarray
    attention: AttentionTrace
    mixed: np.ndarray
    outputs: np.ndarray


@dataclass(frozen=True)
class ForwardTrace:
    """The decoder's forward pass, every named intermediate kept (the page shows them; the
    backward pass reads them).

    Attributes
    ----------
    ids : (..., T) int            the input tokens
    embeddings : (..., T, d_model)  token embedding + position embedding, h⁰
    layers : tuple of LayerTrace    one per layer
    logits : (..., T, V)            the last residual stream times the unembedding
    probs : (..., T, V)             softmax(logits): the next-token probabilities at each position
    """

    ids: np.ndarray
    embeddings: np.ndarray
    layers: tuple[LayerTrace, ...]
    logits: np.ndarray
    probs: np.ndarray

    @property
    def weights(self) -> np.ndarray:
        """Every layer's attention weights stacked: (n_layers, ..., H, T, T)."""
        return np.stack([layer.attention.weights for layer in self.layers])  # (L, ..., H, T, T)


def forward(params: dict[str, np.ndarray], ids) -> ForwardTrace:
    """Run the decoder on token ids of shape (T,) or (n, T), keeping every intermediate.

    The causal mask (``masks.causal_mask``) lets position i attend to positions j <= i only,
    so what the model predicts at i never depends on a later token.

    >>> p = init_params("reverse", seed=0)
    >>> f = forward(p, encode("reverse", "abcde|"))
    >>> f.layers[0].attention.weights.shape, f.probs.shape
    ((2, 6, 6), (6, 9))
    >>> bool((np.triu(f.layers[0].attention.weights, k=1) == 0).all())  # no weight on the future
    True
    >>> head = f.layers[0].attention.head(1)  # what a page shows: one head of one example
    >>> head.q.shape, head.k.shape, head.scores.shape, head.weights.shape, head.outputs.shape
    ((6, 16), (6, 16), (6, 6), (6, 6), (6, 16))
    """
    ids = _check_ids(params, ids)
    t = ids.shape[-1]
    h = params["token_embedding"][ids] + params["position_embedding"][:t]  # (..., T, d_model)
    embeddings = h
    mask = causal_mask(t)  # (T, T)
    layers = []
    for layer in range(sizes(params)["n_layers"]):
        w_q, w_k, w_v, w_o = (params[f"layer{layer}.{name}"] for name in ("w_q", "w_k", "w_v", "w_o"))
        a = h[..., None, :, :]  # (..., 1, T, d_model), one copy per head by broadcasting
        q = a @ w_q  # (..., H, T, d_k)
        k = a @ w_k  # (..., H, T, d_k)
        v = a @ w_v  # (..., H, T, d_k)
        trace = scaled_dot_product_attention(q, k, v, mask=mask)  # weights (..., H, T, T)
        mixed = (trace.outputs @ w_o).sum(axis=-3)  # (..., T, d_model), Σ_h head_h W^O_h
        outputs = h + mixed  # (..., T, d_model), the residual
        layers.append(
            LayerTrace(
                inputs=frozen(h, copy=False),
                attention=trace,
                mixed=frozen(mixed, copy=False),
                outputs=frozen(outputs, copy=False),
            )
        )
        h = outputs
    logits = h @ params["unembedding"]  # (..., T, V)
    return ForwardTrace(
        ids=frozen(ids, dtype=None),
        embeddings=frozen(embeddings, copy=False),
        layers=tuple(layers),
        logits=frozen(logits, copy=False),
        probs=frozen(softmax(logits, axis=-1), copy=False),  # (..., T, V)
    )


def loss_and_grads(params: dict[str, np.ndarray], inputs, targets) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over the scored positions, and its gradient for every weight.

    loss = −(1/N) Σ_{scored (b, i)} log p_{b,i}[target_{b,i}], p = softmax(logits), N = the
    number of scored positions (targets other than ``IGNORE``). The backward pass is the chain
    rule, written out one named value at a time, from the logits back to the embeddings:

    * cross-entropy and softmax together: ∂loss/∂logits = (p − onehot(target)) / N;
    * a product y = x W: ∂/∂x = ∂/∂y Wᵀ and ∂/∂W = xᵀ ∂/∂y (summed over examples, positions);
    * the residual h + mixed passes its gradient to both;
    * attention, per head: ∂/∂weights = ∂/∂outputs vᵀ, ∂/∂v = weightsᵀ ∂/∂outputs;
      the softmax of each row: ∂/∂scaled = weights ⊙ (∂/∂weights − Σ_j weights_j ∂/∂weights_j)
      (masked entries have weight 0, so they get no gradient); ∂/∂scores = ∂/∂scaled · 1/√d_k;
      ∂/∂q = ∂/∂scores k and ∂/∂k = ∂/∂scoresᵀ q;
    * an embedding row receives the sum of the gradients of the positions that used it.

    Parameters
    ----------
    params : dict of arrays, as ``init_params`` returns
    inputs : (n, T) int array
    targets : (n, T) int array, ``IGNORE`` at unscored positions

    Returns
    -------
    loss : float
    grads : dict with the keys and shapes of ``params``

    Examples
    --------
    >>> p = init_params("copy", seed=0)
    >>> loss, grads = loss_and_grads(p, *make_batch("copy", 8, seed=0))
    >>> round(loss, 2), round(float(np.log(9)), 2)  # random W: about log V, a uniform guess
    (2.19, 2.2)
    >>> grads.keys() == p.keys() and all(grads[k].shape == p[k].shape for k in p)
    True
    """
    loss, grads, _ = _backprop(params, inputs, targets)
    return loss, grads


def _backprop(params: dict[str, np.ndarray], inputs, targets) -> tuple[float, dict[str, np.ndarray], ForwardTrace]:
    """``loss_and_grads`` and the forward pass it ran (training reads the batch's accuracy off it)."""
    inputs = _check_ids(params, np.atleast_2d(inputs))
    targets = np.atleast_2d(np.asarray(targets))
    if targets.shape != inputs.shape or not np.issubdtype(targets.dtype, np.integer):
        raise ValueError(f"targets must be integer ids of the inputs' shape {inputs.shape}, got {targets.shape}")
    vocab_size = params["unembedding"].shape[1]
    if targets.min() < IGNORE or targets.max() >= vocab_size:
        raise ValueError(f"targets must be token ids 0 … {vocab_size - 1} or IGNORE ({IGNORE})")
    scored = targets != IGNORE  # (n, T)
    n_scored = int(scored.sum())
    if n_scored == 0:
        raise ValueError("no position is scored: every target is IGNORE")

    fwd = forward(params, inputs)
    n, t = inputs.shape
    d_model = params["token_embedding"].shape[1]
    rows, cols = np.nonzero(scored)  # (N,), (N,)
    answers = targets[rows, cols]  # (N,)
    p_answer = fwd.probs[rows, cols, answers]  # (N,)
    loss = float(-np.log(np.maximum(p_answer, np.finfo(np.float64).tiny)).mean())  # tiny: never log(0)

    # g_x is ∂loss/∂x, of the shape of x
    grads: dict[str, np.ndarray] = {}
    g_logits = np.array(fwd.probs)  # (n, T, V)
    g_logits[rows, cols, answers] -= 1.0
    g_logits *= scored[..., None] / n_scored  # (n, T, V), zero at unscored positions
    h = fwd.layers[-1].outputs  # (n, T, d_model)
    grads["unembedding"] = h.reshape(-1, d_model).T @ g_logits.reshape(n * t, -1)  # (d_model, V)
    g_h = g_logits @ params["unembedding"].T  # (n, T, d_model)

    for layer in reversed(range(len(fwd.layers))):
        cache = fwd.layers[layer]
        trace = cache.attention
        w_q, w_k, w_v, w_o = (params[f"layer{layer}.{name}"] for name in ("w_q", "w_k", "w_v", "w_o"))
        n_heads, d_k = w_q.shape[0], w_q.shape[2]
        # mixed = Σ_h outputs_h W^O_h; the residual passes g_h on unchanged as well
        per_head = trace.outputs.transpose(1, 3, 0, 2).reshape(n_heads, d_k, n * t)  # (H, d_k, n·T)
        grads[f"layer{layer}.w_o"] = per_head @ g_h.reshape(n * t, d_model)  # (H, d_k, d_model)
        g_outputs = g_h[:, None] @ w_o.swapaxes(-1, -2)  # (n, H, T, d_k)
        # outputs = weights v
        g_weights = g_outputs @ trace.v.swapaxes(-1, -2)  # (n, H, T, T)
        g_v = trace.weights.swapaxes(-1, -2) @ g_outputs  # (n, H, T, d_k)
        # weights = softmax(scaled) along each row; scaled = scores · scale
        row_dot = (g_weights * trace.weights).sum(axis=-1, keepdims=True)  # (n, H, T, 1)
        g_scores = trace.weights * (g_weights - row_dot) * trace.scale  # (n, H, T, T)
        # scores = q kᵀ
        g_q = g_scores @ trace.k  # (n, H, T, d_k)
        g_k = g_scores.swapaxes(-1, -2) @ trace.q  # (n, H, T, d_k)
        # q = h W^Q_h, k = h W^K_h, v = h W^V_h
        h_in = cache.inputs.reshape(n * t, d_model)  # (n·T, d_model)
        for name, g_x, w in (("w_q", g_q, w_q), ("w_k", g_k, w_k), ("w_v", g_v, w_v)):
            g_flat = g_x.transpose(1, 0, 2, 3).reshape(n_heads, n * t, d_k)  # (H, n·T, d_k)
            grads[f"layer{layer}.{name}"] = h_in.T @ g_flat  # (H, d_model, d_k)
            g_h = g_h + (g_x @ w.swapaxes(-1, -2)).sum(axis=1)  # (n, T, d_model)

    # h⁰ = E[ids] + P[:T]
    grads["position_embedding"] = np.zeros_like(params["position_embedding"])  # (T_max, d_model)
    grads["position_embedding"][:t] = g_h.sum(axis=0)
    one_hot = np.eye(params["token_embedding"].shape[0])[inputs.reshape(-1)]  # (n·T, V)
    grads["token_embedding"] = one_hot.T @ g_h.reshape(n * t, d_model)  # (V, d_model)
    return loss, {key: grads[key] for key in params}, fwd


# --------------------------------------------------------------------------- training


def _accuracy_of(fwd: ForwardTrace, targets: np.ndarray) -> float:
    """Fraction of scored positions whose most probable next token is the target."""
    scored = targets != IGNORE  # (n, T)
    right = fwd.logits.argmax(axis=-1) == targets  # (n, T)
    return float(right[scored].mean())


def _check_task_fits(params: dict[str, np.ndarray], task: Task) -> None:
    size = sizes(params)
    if (size["vocab_size"], size["n_positions"]) != (task.vocab_size, task.n_positions):
        raise ValueError(
            f"these weights are for {size['vocab_size']} tokens and {size['n_positions']} positions; "
            f"the {task.id} task has {task.vocab_size} tokens and {task.n_positions} positions"
        )


def accuracy(params: dict[str, np.ndarray], task: Task | str, n: int = 1000, seed: int = 0) -> float:
    """Held-out accuracy: the fraction of scored positions where the most probable next token
    is the right one, on ``n`` held-out examples (never in a training batch; drawn from
    ``default_rng([seed, HELD_OUT_STREAM])``). Each position sees the true tokens before it.

    >>> acc = accuracy(init_params("reverse", seed=0), "reverse", n=200)
    >>> 0.0 <= acc < 0.5  # random W: about one in eight letters right by chance
    True
    """
    task = get_task(task)
    _check_task_fits(params, task)
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a whole number of examples >= 1, got {n!r}")
    inputs, targets = _batch(task, int(n), [check_seed(seed), HELD_OUT_STREAM], held_out=True)
    return _accuracy_of(forward(params, inputs), targets)


@dataclass(frozen=True)
class Snapshot:
    """The model at one step of training, seen on the fixed example.

    step : int                    Adam updates done so far (0: the random initial W)
    params : dict of arrays       the weights at that step (read-only)
    weights : (n_layers, H, T, T) attention weights of every layer and head on the example
    probs : (T, V)                next-token probabilities on the example
    """

    step: int
    params: dict[str, np.ndarray]
    weights: np.ndarray
    probs: np.ndarray


@dataclass(frozen=True)
class History:
    """A training run.

    Attributes
    ----------
    task : Task
    seed : int
    lr : float
    batch_size : int
    loss : (steps,)      the training batch's loss at each step, before that step's update
    accuracy : (steps,)  the training batch's accuracy (scored positions right) at each step
    params : dict        the final weights (read-only)
    example : (T,) int   the fixed held-out example the snapshots are taken on
    snapshots : tuple of Snapshot
        At the steps of ``SNAPSHOT_STEPS`` reached, and at the last step.
    """

    task: Task
    seed: int
    lr: float
    batch_size: int
    loss: np.ndarray
    accuracy: np.ndarray
    params: dict[str, np.ndarray]
    example: np.ndarray
    snapshots: tuple[Snapshot, ...]

    @property
    def steps(self) -> int:
        """The number of Adam updates done."""
        return int(self.loss.shape[0])


class Trainer:
    """Adam on one task, resumable in slices: ``Trainer("reverse").run(50)`` and later ``.run(50)``
    again gives the same weights as one ``.run(100)``, so a page can train a few steps per rerun.

    The state is the weights, Adam's first and second moments (``adam_m``, ``adam_v``) and the step
    count; the batch of step s comes from ``default_rng([seed, TRAIN_STREAM, s])`` whatever the
    slicing. Adam (β₁, β₂ = ``ADAM_BETAS``): m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g²,
    W ← W − lr · m̂ / (√v̂ + ε), with m̂, v̂ the bias-corrected moments.

    >>> trainer = Trainer("copy", seed=0).run(2)
    >>> trainer.step, len(trainer.run(3).history().loss)
    (2, 5)
    """

    def __init__(
        self,
        task: Task | str = DEFAULT_TASK,
        seed: int = 0,
        *,
        lr: float | None = None,
        batch_size: int | None = None,
        **model_sizes: int,
    ) -> None:
        self.task = get_task(task)
        self.seed = check_seed(seed)
        self.lr = float(self.task.lr if lr is None else lr)
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"the learning rate must be a positive number, got {lr!r}")
        self.batch_size = self.task.batch_size if batch_size is None else batch_size
        if not (isinstance(self.batch_size, int) and self.batch_size >= 1):
            raise ValueError(f"batch_size must be a whole number >= 1, got {batch_size!r}")
        self.params = init_params(self.task, self.seed, **model_sizes)
        self.adam_m = {key: np.zeros_like(w) for key, w in self.params.items()}
        self.adam_v = {key: np.zeros_like(w) for key, w in self.params.items()}
        self.step = 0
        self.example = _batch(self.task, 1, [self.seed, EXAMPLE_STREAM], held_out=True)[0][0]  # (T,)
        self.losses: list[float] = []
        self.accuracies: list[float] = []
        self.snapshots: list[Snapshot] = [self._snapshot()]

    def _snapshot(self) -> Snapshot:
        fwd = forward(self.params, self.example)
        return Snapshot(
            step=self.step,
            params={key: frozen(w) for key, w in self.params.items()},
            weights=frozen(fwd.weights, copy=False),  # (L, H, T, T)
            probs=fwd.probs,  # (T, V)
        )

    def run(self, n: int) -> Trainer:
        """Do ``n`` more Adam updates; returns the trainer itself."""
        if int(n) != n or n < 0:
            raise ValueError(f"the number of steps must be a whole number >= 0, got {n!r}")
        beta1, beta2 = ADAM_BETAS
        for _ in range(int(n)):
            t = self.step + 1
            inputs, targets = _batch(self.task, self.batch_size, [self.seed, TRAIN_STREAM, self.step], held_out=False)
            try:
                with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, once
                    loss, grads, fwd = _backprop(self.params, inputs, targets)
            except ValueError as error:  # the weights have grown past float64: NaN or inf in q, k, v
                raise ValueError(
                    f"training diverged at step {t} (lr = {self.lr:g}): try a smaller learning rate"
                ) from error
            updated = {}
            for key, g in grads.items():
                m = beta1 * self.adam_m[key] + (1 - beta1) * g  # first moment: the gradient's running mean
                v = beta2 * self.adam_v[key] + (1 - beta2) * g * g  # second moment: its running mean square
                m_hat = m / (1 - beta1**t)  # bias-corrected (both moments start at 0)
                v_hat = v / (1 - beta2**t)
                updated[key] = (self.params[key] - self.lr * m_hat / (np.sqrt(v_hat) + ADAM_EPS), m, v)
            if not all(np.isfinite(w).all() for w, _, _ in updated.values()):
                raise ValueError(f"training diverged at step {t} (lr = {self.lr:g}): try a smaller learning rate")
            for key, (w, m, v) in updated.items():
                self.params[key], self.adam_m[key], self.adam_v[key] = w, m, v
            self.step = t
            self.losses.append(loss)
            # the batch's accuracy before the update, from the forward pass that gave the loss
            self.accuracies.append(_accuracy_of(fwd, targets))
            if self.step in SNAPSHOT_STEPS:
                self.snapshots.append(self._snapshot())
        return self

    def history(self) -> History:
        """The run so far, read-only, with a snapshot of the current step last."""
        snapshots = list(self.snapshots)
        if snapshots[-1].step != self.step:
            snapshots.append(self._snapshot())
        return History(
            task=self.task,
            seed=self.seed,
            lr=self.lr,
            batch_size=self.batch_size,
            loss=frozen(self.losses),
            accuracy=frozen(self.accuracies),
            params={key: frozen(w) for key, w in self.params.items()},
            example=frozen(self.example, dtype=None),
            snapshots=tuple(snapshots),
        )


def train(
    task: Task | str = DEFAULT_TASK,
    steps: int | None = None,
    seed: int = 0,
    *,
    lr: float | None = None,
    batch_size: int | None = None,
    **model_sizes: int,
) -> History:
    """Train a decoder on ``task`` for ``steps`` Adam updates (default: the task's recipe).

    ``Trainer(task, seed, ...).run(steps).history()``.

    >>> h = train("copy", steps=20, seed=0)
    >>> h.steps, [s.step for s in h.snapshots], h.snapshots[-1].weights.shape
    (20, [0, 10, 20], (1, 2, 10, 10))
    """
    task = get_task(task)
    steps = task.steps if steps is None else steps
    return Trainer(task, seed, lr=lr, batch_size=batch_size, **model_sizes).run(steps).history()


# --------------------------------------------------------------------------- generation


@dataclass(frozen=True)
class GenerationStep:
    """One generated token and what led to it.

    Attributes
    ----------
    position : int
        The position (0-based) whose output predicted the token: the last one read.
    probs : (V,)
        The model's next-token probabilities there, softmax(logits).
    sampling_probs : (V,)
        The distribution the token was drawn from, softmax(logits / temperature); all on the
        most probable token at temperature 0.
    token : int
        The token chosen.
    weights : (n_layers, H, t, t)
        Every layer's and head's attention weights on the t = position + 1 tokens read;
        ``weights[..., -1, :]`` is the row of the predicting position.
    """

    position: int
    probs: np.ndarray
    sampling_probs: np.ndarray
    token: int
    weights: np.ndarray


@dataclass(frozen=True)
class Generation:
    """The prompt, the tokens generated after it, and each step (see ``GenerationStep``).

    ``text`` is the generated tokens as characters when ``generate`` was given the task."""

    prompt: np.ndarray
    tokens: np.ndarray
    steps: tuple[GenerationStep, ...]
    temperature: float
    text: str | None = None

    @property
    def sequence(self) -> np.ndarray:
        """The prompt followed by the generated tokens."""
        return np.concatenate([self.prompt, self.tokens])  # (P + n,)


def _check_temperature(temperature) -> float:
    try:
        value = float(temperature)
    except (TypeError, ValueError):
        raise ValueError(f"temperature must be a number >= 0, got {temperature!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(
            f"temperature must be a finite number >= 0 (0 = always the most probable), got {temperature!r}"
        )
    return value


def tempered(logits, temperature: float) -> np.ndarray:
    """softmax(logits / temperature): > 1 flattens the distribution, < 1 sharpens it, 0 puts
    everything on the largest logit (the limit of temperature → 0, ties shared).

    >>> tempered([2.0, 1.0, 0.0], 1.0).round(3)
    array([0.665, 0.245, 0.09 ])
    >>> tempered([2.0, 1.0, 0.0], 0.0)
    array([1., 0., 0.])
    """
    temperature = _check_temperature(temperature)
    logits = np.asarray(logits, dtype=np.float64)
    shifted = logits - logits.max(axis=-1, keepdims=True)  # (..., V), <= 0, the largest is 0
    if temperature == 0:
        return softmax(np.where(shifted == 0, 0.0, -np.inf), axis=-1)  # (..., V)
    with np.errstate(over="ignore"):
        scaled = shifted / temperature  # (..., V); a tiny temperature sends the rest to -inf
    return softmax(scaled, axis=-1)  # (..., V)


def generate(
    params: dict[str, np.ndarray],
    prompt,
    n: int,
    temperature: float = 1.0,
    seed: int = 0,
    *,
    task: Task | str | None = None,
) -> Generation:
    """Continue ``prompt`` by ``n`` tokens, one at a time, each read back as input (causal mask).

    Parameters
    ----------
    params : dict of arrays
        A trained (or random) decoder, as ``init_params`` or ``History.params``.
    prompt : str or sequence of int
        Token ids, or text in ``task``'s alphabet (then ``task`` is required). At least one token.
    n : int
        Tokens to generate, >= 1; the prompt plus all but the last must fit the model's positions.
    temperature : float
        >= 0. 0 takes the most probable token every time (greedy, no randomness); otherwise
        the token is drawn from softmax(logits / temperature) with ``np.random.default_rng(seed)``.
    seed : int
    task : Task or str, optional
        Reads a text prompt and fills ``Generation.text``.

    Examples
    --------
    >>> p = init_params("copy", seed=0)
    >>> g = generate(p, "abc", 2, temperature=0.0, task="copy")
    >>> len(g.text), g.steps[0].position, g.steps[1].weights.shape
    (2, 2, (1, 2, 4, 4))
    >>> generate(p, "", 2, task="copy")
    Traceback (most recent call last):
    ...
    ValueError: the prompt is empty: give at least one token
    """
    if task is not None:
        task = get_task(task)
        _check_task_fits(params, task)
    if isinstance(prompt, str):
        if task is None:
            raise ValueError("a text prompt needs its task (task=...) to be read as tokens")
        prompt = encode(task, prompt)
    prompt = np.asarray(prompt)
    if prompt.size == 0:
        raise ValueError("the prompt is empty: give at least one token")
    if prompt.ndim != 1:
        raise ValueError(f"the prompt must be one sequence of token ids, got shape {prompt.shape}")
    prompt = _check_ids(params, prompt, name="the prompt")
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a whole number of tokens >= 1, got {n!r}")
    n = int(n)
    n_positions = sizes(params)["n_positions"]
    if len(prompt) + n - 1 > n_positions:
        raise ValueError(
            f"a prompt of {len(prompt)} tokens and {n} new ones need {len(prompt) + n - 1} positions; "
            f"this model has {n_positions}: at most {n_positions - len(prompt) + 1} new tokens"
        )
    temperature = _check_temperature(temperature)
    rng = np.random.default_rng(check_seed(seed))

    sequence = list(prompt)
    steps = []
    for _ in range(n):
        fwd = forward(params, np.array(sequence))
        logits = fwd.logits[-1]  # (V,), the last position predicts the next token
        sampling_probs = tempered(logits, temperature)  # (V,)
        if temperature == 0:
            token = int(np.argmax(logits))
        else:
            token = int(rng.choice(len(sampling_probs), p=sampling_probs))
        steps.append(
            GenerationStep(
                position=len(sequence) - 1,
                probs=fwd.probs[-1],
                sampling_probs=frozen(sampling_probs, copy=False),
                token=token,
                weights=frozen(fwd.weights, copy=False),  # (L, H, t, t)
            )
        )
        sequence.append(token)
    tokens = np.array(sequence[len(prompt) :], dtype=np.int64)  # (n,)
    return Generation(
        prompt=frozen(prompt, dtype=np.int64),
        tokens=frozen(tokens, dtype=None, copy=False),
        steps=tuple(steps),
        temperature=temperature,
        text=None if task is None else decode(task, tokens),
    )


# --------------------------------------------------------------------------- what the heads learned


@dataclass(frozen=True)
class HeadReport:
    """What each head of a trained decoder does, measured on held-out examples (never trained on).

    Attributes
    ----------
    accuracy : float
        The whole model's held-out accuracy (as ``accuracy``).
    on_answer : (n_layers, H)
        The mean weight a head puts, at each position whose next token is scored, on the
        positions that hold that next token (the answer, already written earlier in the
        example): 1 for a head that reads only where the answer is.
    on_previous : (n_layers, H)
        The mean weight each position from the second on puts on the position just before it:
        1 for a "previous token" head.
    without : (n_layers, H)
        The held-out accuracy with that head taken out (its block W^O_h set to 0, so it adds
        nothing to the residual stream): far below ``accuracy`` when the model needs it.
    n : int
        Held-out examples measured.
    """

    accuracy: float
    on_answer: np.ndarray
    on_previous: np.ndarray
    without: np.ndarray
    n: int


def without_head(params: dict[str, np.ndarray], layer: int, head: int) -> dict[str, np.ndarray]:
    """A copy of ``params`` with head ``head`` of layer ``layer`` (0-based) taken out: W^O_h = 0.

    >>> p = without_head(init_params("copy", seed=0), 0, 1)
    >>> float(abs(p["layer0.w_o"][1]).max()), float(abs(p["layer0.w_o"][0]).max()) > 0
    (0.0, True)
    """
    key = f"layer{layer}.w_o"
    if key not in params or not 0 <= head < params[key].shape[0]:
        raise ValueError(f"there is no head {head} in layer {layer} of this model")
    w_o = np.array(params[key])  # (H, d_k, d_model), a copy
    w_o[head] = 0.0
    return {**params, key: w_o}


def head_report(params: dict[str, np.ndarray], task: Task | str, n: int = 500, seed: int = 0) -> HeadReport:
    """Measure every head of a trained decoder on ``n`` held-out examples of ``task`` (the
    examples of ``accuracy(params, task, n, seed)``).

    >>> r = head_report(train("reverse", seed=0).params, "reverse", n=200)
    >>> r.on_answer.shape, r.accuracy > 0.95, bool((r.on_answer > 0.9).all())
    ((1, 2), True, True)
    """
    task = get_task(task)
    _check_task_fits(params, task)
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a whole number of examples >= 1, got {n!r}")
    inputs, targets = _batch(task, int(n), [check_seed(seed), HELD_OUT_STREAM], held_out=True)  # (n, T) each
    fwd = forward(params, inputs)
    weights = fwd.weights  # (L, n, H, T, T)
    scored = targets != IGNORE  # (n, T)
    holds = inputs[:, None, :] == targets[:, :, None]  # (n, T, T): key j holds the next token of position i
    on_key = (weights * holds[None, :, None]).sum(axis=-1)  # (L, n, H, T), weight on the answer's positions
    on_answer = on_key.transpose(0, 2, 1, 3)[..., scored].mean(axis=-1)  # (L, H)
    t = inputs.shape[1]
    previous = weights[..., np.arange(1, t), np.arange(t - 1)]  # (L, n, H, T-1), weight of i on i - 1
    on_previous = previous.mean(axis=(1, 3))  # (L, H)
    n_layers, _, n_heads = weights.shape[:3]
    without = np.array(
        [
            [_accuracy_of(forward(without_head(params, layer, h), inputs), targets) for h in range(n_heads)]
            for layer in range(n_layers)
        ]
    )  # (L, H)
    return HeadReport(
        accuracy=_accuracy_of(fwd, targets),
        on_answer=frozen(on_answer),
        on_previous=frozen(on_previous),
        without=frozen(without),
        n=int(n),
    )


@dataclass(frozen=True)
class QKCircuit:
    """W^QK = W^Q_h W^K_hᵀ / √d_k of one head, read through the embeddings.

    The scaled score of a query vector a_i and a key vector a_j is a_i W^Q_h (a_j W^K_h)ᵀ / √d_k
    = a_i W^QK a_jᵀ. In the first layer a_i = e_a + p_i (the token embedding of the token a at
    position i plus the position embedding), so the score splits exactly into four parts:

        e_a W^QK e_bᵀ  (tokens)  +  p_i W^QK p_jᵀ  (positions)
        + e_a W^QK p_jᵀ  +  p_i W^QK e_bᵀ  (the two mixed parts: a token with a position)

    Attributes
    ----------
    matrix : (d_model, d_model)  W^QK
    positions : (T, T)           p_i W^QK p_jᵀ, query position i (row), key position j (column);
                                 -inf where j > i, the pairs the causal mask never lets count
    tokens : (V, V)              e_a W^QK e_bᵀ, query token a (row), key token b (column)
    token_position : (V, T)      e_a W^QK p_jᵀ, query token a, key position j
    position_token : (T, V)      p_i W^QK e_bᵀ, query position i, key token b
    """

    matrix: np.ndarray
    positions: np.ndarray
    tokens: np.ndarray
    token_position: np.ndarray
    position_token: np.ndarray

    @property
    def position_span(self) -> float:
        """Largest minus smallest entry of ``positions`` that counts (j <= i): how far the positions
        alone can move a score."""
        counted = self.positions[np.isfinite(self.positions)]
        return float(counted.max() - counted.min())

    @property
    def token_span(self) -> float:
        """Largest minus smallest entry of ``tokens``: how much the tokens alone can move a score."""
        return float(self.tokens.max() - self.tokens.min())

    @property
    def mixed_spans(self) -> tuple[float, float]:
        """Largest minus smallest entry of ``token_position`` and of ``position_token``."""
        return (
            float(self.token_position.max() - self.token_position.min()),
            float(self.position_token.max() - self.position_token.min()),
        )


def qk_circuit(params: dict[str, np.ndarray], layer: int = 0, head: int = 0) -> QKCircuit:
    """W^QK = W^Q_h W^K_hᵀ / √d_k of head ``head`` in layer ``layer`` (0-based), and W^QK between
    the position embeddings, between the token embeddings and between the two (the four exact
    parts of the first layer's scores; for a later layer, whose input also carries what earlier
    layers wrote, only a part).

    >>> c = qk_circuit(init_params("reverse", seed=0))
    >>> c.matrix.shape, c.positions.shape, c.tokens.shape, bool(np.isneginf(c.positions[0, 1]))
    ((32, 32), (10, 10), (9, 9), True)
    >>> c.token_position.shape, c.position_token.shape
    ((9, 10), (10, 9))
    """
    key = f"layer{layer}.w_q"
    if key not in params or not 0 <= head < params[key].shape[0]:
        raise ValueError(f"there is no head {head} in layer {layer} of this model")
    w_q, w_k = params[key][head], params[f"layer{layer}.w_k"][head]  # (d_model, d_k) each
    matrix = w_q @ w_k.T / math.sqrt(w_q.shape[1])  # (d_model, d_model)
    p, e = params["position_embedding"], params["token_embedding"]  # (T, d_model), (V, d_model)
    positions = np.where(causal_mask(p.shape[0]), p @ matrix @ p.T, -np.inf)  # (T, T)
    return QKCircuit(
        matrix=frozen(matrix),
        positions=frozen(positions),
        tokens=frozen(e @ matrix @ e.T),  # (V, V)
        token_position=frozen(e @ matrix @ p.T),  # (V, T)
        position_token=frozen(p @ matrix @ e.T),  # (T, V)
    )


# --------------------------------------------------------------------------- sampling many times


@dataclass(frozen=True)
class Samples:
    """``n`` continuations of one prompt drawn at one temperature (``sample_many``).

    tokens : (n, n_new) the drawn tokens       greedy : (n_new,) what temperature 0 writes
    """

    tokens: np.ndarray
    greedy: np.ndarray
    temperature: float

    @property
    def n_greedy(self) -> int:
        """How many of the draws write exactly the greedy continuation."""
        return int((self.tokens == self.greedy).all(axis=1).sum())

    @property
    def n_distinct(self) -> int:
        """How many different continuations the draws wrote."""
        return len({row.tobytes() for row in self.tokens})


def sample_many(
    params: dict[str, np.ndarray],
    prompt,
    n_new: int,
    temperature: float,
    n: int = 200,
    seed: int = 0,
    *,
    task: Task | str | None = None,
) -> Samples:
    """Continue ``prompt`` ``n`` times by ``n_new`` tokens at ``temperature``, all draws at once
    (one forward pass per new token for the whole batch), each token drawn from
    softmax(logits / temperature) as ``generate`` draws it. What a learner needs to see that the
    temperature changes what is written: how often the greedy text comes back, how many texts.

    >>> p = init_params("copy", seed=0)  # random W: nearly uniform, every draw differs
    >>> s = sample_many(p, "abc", 3, 1.0, n=50, task="copy")
    >>> s.tokens.shape, s.n_distinct > 30, sample_many(p, "abc", 3, 0.0, n=5, task="copy").n_greedy
    ((50, 3), True, 5)
    """
    if task is not None:
        task = get_task(task)
        _check_task_fits(params, task)
        if isinstance(prompt, str):
            prompt = encode(task, prompt)
    greedy = generate(params, prompt, n_new, 0.0).tokens  # checks the prompt, n_new and the positions
    temperature = _check_temperature(temperature)
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a whole number of draws >= 1, got {n!r}")
    rng = np.random.default_rng(check_seed(seed))
    sequences = np.tile(np.asarray(prompt, dtype=np.int64), (int(n), 1))  # (n, P)
    for _ in range(n_new):
        probs = tempered(forward(params, sequences).logits[:, -1], temperature)  # (n, V)
        cumulative = np.cumsum(probs, axis=-1)  # (n, V)
        drawn = (rng.random((len(sequences), 1)) < cumulative).argmax(axis=-1)  # (n,) inverse CDF
        sequences = np.concatenate([sequences, drawn[:, None]], axis=1)  # (n, t + 1)
    return Samples(
        tokens=frozen(sequences[:, -n_new:], dtype=np.int64), greedy=frozen(greedy, dtype=None), temperature=temperature
    )
