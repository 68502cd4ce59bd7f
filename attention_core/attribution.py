"""Can you trust an attention map? Two readings of the model that go beyond the weights α̂.

An attention weight says how much of key j's value a query i takes, not how much that value
changes i's output. Two ways to read a model more honestly:

* **Value-weighted norms** (Kobayashi et al., 2020, "Attention is not only a weight"): what key j
  really adds to token i through head h of a layer is the vector α̂_ij · f_h(x_j), with
  f_h(x) = (x W^V_h + b^V_h) W^O_h, where W^O_h is the head's d_k rows of W^O. Its length
  ‖α̂_ij · v_j W^O_h‖ is small when v_j W^O_h is short — and the [CLS], [SEP] and punctuation
  columns, where many heads park their weight, often shrink.
* **Attention rollout** (Abnar & Zuidema, 2020): a token's output mixes its own input (the
  residual) with what attention brought, layer after layer. Rollout models each layer as
  Â = ½·(the mean of its heads' weights) + ½·I, rows re-normalised, and multiplies the layers:
  R⁽ˡ⁾ = Â⁽ˡ⁾ R⁽ˡ⁻¹⁾. Row i of R⁽ᴸ⁾ is one estimate of how much each input token reaches
  token i at the top — an estimate, since it ignores the feed-forward networks and LayerNorms.

Both are views, not ground truth (Jain & Wallace, 2019; Wiegreffe & Pinter, 2019).
"""

from __future__ import annotations

import numpy as np

from .arrays import frozen
from .encoder import EncoderTrace, load_encoder
from .encoder_files import check_index


def value_norms(trace: EncoderTrace, layer: int, head: int) -> np.ndarray:
    """‖α̂_ij · v_j W^O_h‖ for one head of one layer: the size of what key j adds to token i.

    Parameters
    ----------
    trace : EncoderTrace
        A sentence through the model (``encoder.encode``).
    layer, head : int
        0-based.

    Returns
    -------
    numpy.ndarray, shape (T, T)
        Row i, column j: the length of key j's contribution to token i's output, in the units
        of the hidden state (before the residual and LayerNorm).

    Examples
    --------
    >>> from attention_core.encoder import encode
    >>> norms = value_norms(encode("the cat sat"), 5, 11)
    >>> norms.shape, bool((norms >= 0).all())
    ((5, 5), True)
    """
    encoder = load_encoder(trace.model)
    c = encoder.config
    layer = check_index(layer, c.n_layers, "layer", "layers")
    head = check_index(head, c.n_heads, "head", "heads")
    attention = trace.head(layer, head)
    w_o = encoder.layers[layer].w_o[head * c.d_head : (head + 1) * c.d_head]  # (d_v, d_model): W^O_h
    transformed = attention.v @ w_o.astype(np.float64)  # (T, d_model): f_h(x_j) = v_j W^O_h
    sizes = np.linalg.norm(transformed, axis=-1)  # (T,): ‖f_h(x_j)‖
    return frozen(attention.weights * sizes[None, :], copy=False)  # (T, T): α̂_ij ‖f_h(x_j)‖


def row_shares(x) -> np.ndarray:
    """Each row divided by its sum, so value norms read on the same 0 … 1 scale as α̂.

    >>> row_shares(np.array([[1.0, 3.0], [0.0, 0.0]]))
    array([[0.25, 0.75],
           [0.  , 0.  ]])
    """
    x = np.asarray(x, dtype=np.float64)  # (..., T, T)
    total = x.sum(axis=-1, keepdims=True)  # (..., T, 1)
    return frozen(np.divide(x, total, out=np.zeros_like(x), where=total > 0), copy=False)


def share_on(matrix, keys) -> float:
    """The mean over rows i of Σ_{j in keys} matrix[i, j]: how much of a row goes to those keys.

    >>> share_on(np.array([[0.5, 0.5], [0.9, 0.1]]), [0])
    0.7
    """
    matrix = np.asarray(matrix, dtype=np.float64)  # (T_q, T_k)
    return float(matrix[:, list(keys)].sum(axis=1).mean()) if len(keys) else 0.0


def rollout(weights) -> np.ndarray:
    """Attention rollout through the layers (Abnar & Zuidema, 2020).

    Parameters
    ----------
    weights : array, shape (L, H, T, T)
        Every head's weights (``EncoderTrace.weights``).

    Returns
    -------
    numpy.ndarray, shape (L, T, T)
        R[l]: the rollout from the inputs to the output of layer l (0-based); rows sum to 1.

    Examples
    --------
    One layer of one head that looks only at the previous token: half stays, half moves.

    >>> w = np.array([[[[1.0, 0.0], [1.0, 0.0]]]])  # (1, 1, 2, 2)
    >>> rollout(w)[0]
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    weights = np.asarray(weights, dtype=np.float64)  # (L, H, T, T)
    T = weights.shape[-1]
    mixed = 0.5 * weights.mean(axis=1) + 0.5 * np.eye(T)  # (L, T, T): Â⁽ˡ⁾ with the residual
    mixed = mixed / mixed.sum(axis=-1, keepdims=True)  # (L, T, T) rows re-normalised
    rolled = []
    total = np.eye(T)  # (T, T)
    for layer in mixed:
        total = layer @ total  # (T, T): R⁽ˡ⁾ = Â⁽ˡ⁾ R⁽ˡ⁻¹⁾
        rolled.append(total)
    return frozen(np.stack(rolled), copy=False)  # (L, T, T)
