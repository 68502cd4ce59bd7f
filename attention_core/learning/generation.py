"""Letting a trained decoder write: one token at a time, greedy or sampled at a temperature,
each step's attention kept (``generate``); and sampling the same prompt many times to count
what comes out (``sample_many``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..arrays import frozen
from ..attention import softmax
from ..seeds import check_seed
from .model import _check_ids, _check_task_fits, forward, sizes
from .tasks import Task, decode, encode, get_task


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
    >>> from attention_core.learning import init_params
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

    >>> from attention_core.learning import init_params
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
