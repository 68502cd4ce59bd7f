"""Reading what a trained decoder learned: what each head is for (the accuracy without it,
``head_report``) and which keys its query matches, from the weights alone (``qk_circuit``:
W^QK = W^Q W^Kᵀ / √d_k over the embeddings).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..arrays import frozen
from ..masks import causal_mask
from ..seeds import check_seed
from .model import _accuracy_of, _check_task_fits, forward
from .tasks import HELD_OUT_STREAM, IGNORE, Task, _batch, get_task


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

    >>> from attention_core.learning import init_params
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

    >>> from attention_core.learning import train
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

    >>> from attention_core.learning import init_params
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
