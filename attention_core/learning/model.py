"""The decoder itself: its parameters, the forward pass, and the backward pass written out by hand.

The forward pass keeps every intermediate (``ForwardTrace``: per layer and head the
``AttentionTrace`` of ``attention.scaled_dot_product_attention`` under the causal mask), and
``loss_and_grads`` runs the chain rule back through those same named values;
``tests/test_learning.py`` checks it against finite differences.

    >>> from attention_core.learning import encode
    >>> params = init_params("reverse", seed=0)
    >>> forward(params, encode("reverse", "abc|")).logits.shape
    (4, 9)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..arrays import frozen
from ..attention import AttentionTrace, scaled_dot_product_attention, softmax
from ..masks import causal_mask
from ..seeds import check_seed
from .tasks import IGNORE, INIT_STREAM, Task, get_task

MAX_LAYERS, MAX_HEADS = 2, 4
"""The largest model ``init_params`` builds: one or two layers, one to four heads."""

INIT_QK = 0.1
"""W^Q and W^K start this much smaller than N(0, 1/d_model): the first scores are near 0, the
first weights nearly uniform, so the pattern a learner sees is learned, not luck of the draw."""

INIT_OUT = 0.1
"""The unembedding starts this much smaller: the first guess is nearly uniform, loss ≈ log V."""


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

    >>> from attention_core.learning import encode
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
    >>> from attention_core.learning import make_batch
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
