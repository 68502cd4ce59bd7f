"""The real model's attention for the lessons: its heads, their W^Q/W^K/W^V, its word vectors.

The bundled model is sentence-transformers/all-MiniLM-L6-v2: a BERT encoder with 6 layers ×
12 heads, d_model = 384, so each head works in d_k = d_v = 32 dimensions. Layer l reads the
hidden states ``hidden[l]`` (T, 384) and, for head h, computes

    q = hidden[l] W^Q_h + b^Q_h,  k = hidden[l] W^K_h + b^K_h,  v = hidden[l] W^V_h + b^V_h
    weights = softmax(q kᵀ / √32),  outputs = weights v

Everything here comes from our own NumPy forward pass (``encoder.encode``), which runs each head
through ``scaled_dot_product_attention``; no torch is imported. ``model_reference`` runs the same
sentence through transformers, so a page and the tests can show that the numbers agree.

Errors: ``ValueError`` for bad arguments (empty text, layer or head out of range);
``ModelUnavailable`` when the model's files cannot be used (its ``reason`` says why).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .attention import AttentionTrace
from .embeddings import Embedding
from .encoder import encode, load_encoder
from .encoder_files import MARKERS, check_index, check_text
from .model_choice import resolve_model_name
from .model_files import MODEL_ENV, ModelUnavailable, read_rows
from .projections import Projections, make_projections
from .unreadable import Unreadable

__all__ = [
    "MODEL_ENV",
    "ModelEmbedder",
    "ModelInfo",
    "ModelUnavailable",
    "HeadPick",
    "head_looking_most",
    "head_projections",
    "model_all_weights",
    "model_attention",
    "model_info",
    "model_layer_attention",
    "model_tokens_and_states",
]


@dataclass(frozen=True)
class ModelInfo:
    """The shape of a model's attention.

    Attributes
    ----------
    name : str        the resolved model name (a directory or a hub id)
    n_layers : int    encoder layers (6 for all-MiniLM-L6-v2)
    n_heads : int     heads per layer (12)
    d_model : int     width of the hidden states and word embeddings (384)
    d_head : int      d_k = d_v of one head, d_model / n_heads (32)
    max_tokens : int  most tokens of one forward pass, [CLS] and [SEP] included (256)
    vocab_size : int  rows of the word-embedding table (30522)
    """

    name: str
    n_layers: int
    n_heads: int
    d_model: int
    d_head: int
    max_tokens: int
    vocab_size: int


def model_info(name: str | os.PathLike | None = None) -> ModelInfo:
    """Layers, heads and dimensions of the model (reads its files once per process).

    >>> info = model_info()
    >>> info.n_layers, info.n_heads, info.d_model, info.d_head, info.max_tokens
    (6, 12, 384, 32, 256)
    """
    resolved = resolve_model_name(name)
    encoder = load_encoder(resolved)
    c = encoder.config
    return ModelInfo(
        name=resolved,
        n_layers=c.n_layers,
        n_heads=c.n_heads,
        d_model=c.d_model,
        d_head=c.d_head,
        max_tokens=c.max_tokens,
        vocab_size=int(encoder.word.shape[0]),
    )


# --------------------------------------------------------------------------- the word embeddings


class ModelEmbedder:
    """The model's own tokenizer and word-embedding table, as an ``Embedder``.

    Tokens are the tokenizer's word pieces ("##ing" continues a word) without [CLS] and
    [SEP]; vectors are the rows of the learned table ``embeddings.word_embeddings`` for those
    tokens — static, before position embeddings and before any layer. Tokens the vocabulary
    lacks become [UNK] (most Chinese characters, for the bundled English model); their
    indices are in ``Embedding.unknown``.

    Parameters
    ----------
    name : str or path, optional
        See ``model_choice.resolve_model_name``. The files are read on ``load`` or the first ``embed``.

    Examples
    --------
    >>> e = ModelEmbedder().embed("The tailoring of shirts")
    >>> e.tokens
    ['the', 'tailor', '##ing', 'of', 'shirts']
    >>> e.vectors.shape, e.unknown
    ((5, 384), ())
    >>> ModelEmbedder().embed("注意力").unknown
    (0, 1)
    """

    real = True

    def __init__(self, name: str | os.PathLike | None = None):
        self.name = resolve_model_name(name)

    def load(self) -> ModelEmbedder:
        """Read the model now (so a failure shows at start-up); raises ModelUnavailable."""
        load_encoder(self.name)
        return self

    @property
    def dim(self) -> int:
        """d_model of the word vectors (384 for the bundled model)."""
        return load_encoder(self.name).config.d_model

    def __repr__(self) -> str:
        return f"ModelEmbedder(name={self.name!r})"

    def embed(self, text: str) -> Embedding:
        """Tokens (no [CLS]/[SEP]) and their word-embedding rows, shape (T, d_model), float64."""
        check_text(text)
        encoder = load_encoder(self.name)
        encoding = encoder.tokenizer.encode(text, add_special_tokens=False)
        ids = list(encoding.ids)
        if not ids:
            raise Unreadable("no_pieces", f"the tokenizer found no tokens in {text!r}: expected at least one word")
        vectors = read_rows(encoder.word, ids).astype(np.float64)  # (T, d_model), from the file: never SIGBUS
        unknown = tuple(i for i, token_id in enumerate(ids) if token_id == encoder.unk_id)
        return Embedding(tokens=list(encoding.tokens), vectors=vectors, unknown=unknown)


# --------------------------------------------------------------------------- hidden states and heads


def model_tokens_and_states(text: str, name: str | os.PathLike | None = None) -> tuple[list[str], np.ndarray]:
    """The model's tokens and the input of every layer.

    Parameters
    ----------
    text : str
        One sentence; beyond the model's 254 word pieces it is cut, as sentence-transformers cuts.
    name : str or path, optional
        See ``model_choice.resolve_model_name``.

    Returns
    -------
    tokens : list of T str
        As the tokenizer gives them, [CLS] first and [SEP] last.
    hidden : numpy.ndarray, shape (n_layers + 1, T, d_model), float64, read-only
        hidden[0] is the embedding output (word + position + segment, layer-normed), the
        input of layer 0; hidden[l] is the output of layer l - 1 and the input of layer l;
        hidden[-1] is the model's final token embeddings.

    Examples
    --------
    >>> tokens, hidden = model_tokens_and_states("the cat sat")
    >>> tokens
    ['[CLS]', 'the', 'cat', 'sat', '[SEP]']
    >>> hidden.shape
    (7, 5, 384)
    """
    trace = encode(text, name=name)
    return list(trace.tokens), trace.hidden


def head_projections(layer: int, head: int, name: str | os.PathLike | None = None) -> Projections:
    """W^Q, W^K, W^V and biases of one head of the model, in our row convention.

    The model's query layer maps d_model → d_model; head h owns its output features
    h·d_k … (h+1)·d_k − 1, so W^Q_h = w_q[:, h·d_k:(h+1)·d_k] and b^Q_h likewise; the same
    for keys and values. Then q = a @ W^Q_h + b^Q_h as in ``projections.project``.

    Parameters
    ----------
    layer : int
        0 … n_layers - 1.
    head : int
        0 … n_heads - 1.
    name : str or path, optional
        See ``model_choice.resolve_model_name``.

    Returns
    -------
    Projections
        kind "model"; w_q, w_k, w_v of shape (d_model, d_k), biases (d_k,), float64 copies
        (changing them does not change the model).

    Raises
    ------
    ValueError
        layer or head out of range.

    Examples
    --------
    >>> p = head_projections(0, 3)
    >>> p.kind, p.w_q.shape, p.b_v.shape
    ('model', (384, 32), (32,))
    """
    encoder = load_encoder(name)
    c = encoder.config
    w = encoder.layers[check_index(layer, c.n_layers, "layer", "layers")]
    head = check_index(head, c.n_heads, "head", "heads")
    features = slice(head * c.d_head, (head + 1) * c.d_head)
    return make_projections(
        w.w_q[:, features],  # (d_model, d_k)
        w.w_k[:, features],  # (d_model, d_k)
        w.w_v[:, features],  # (d_model, d_v)
        w.b_q[features],
        w.b_k[features],
        w.b_v[features],
        kind="model",
    )


def model_attention(
    text: str, layer: int, head: int, *, name: str | os.PathLike | None = None
) -> tuple[list[str], AttentionTrace]:
    """One head of the real model, as our ``scaled_dot_product_attention`` computed it.

    q, k, v = hidden[layer] W^{Q,K,V}_head + b;  weights = softmax(q kᵀ / √d_k);
    outputs = weights v, with d_k = 32 (the model's own scaling). One sentence has no
    padding, so there is no mask.

    Parameters
    ----------
    text : str
    layer : int
        0 … n_layers - 1 (0 … 5).
    head : int
        0 … n_heads - 1 (0 … 11).
    name : str or path, optional
        See ``model_choice.resolve_model_name``.

    Returns
    -------
    tokens : list of T str
        With [CLS] and [SEP].
    trace : AttentionTrace
        q, k (T, 32), v (T, 32), scores, scaled, weights (T, T), outputs (T, 32).

    Raises
    ------
    ValueError
        Empty text, or layer or head out of range.

    Examples
    --------
    >>> tokens, trace = model_attention("the cat sat", layer=0, head=0)
    >>> trace.weights.shape, trace.d_k
    ((5, 5), 32)
    >>> bool(np.allclose(trace.weights.sum(axis=-1), 1.0))
    True
    """
    trace = encode(text, name=name)
    return list(trace.tokens), trace.head(layer, head)


def model_layer_attention(
    text: str, layer: int, *, name: str | os.PathLike | None = None
) -> tuple[list[str], AttentionTrace]:
    """All heads of one layer at once: a trace with a leading head axis.

    ``trace.head(h)`` equals ``model_attention(text, layer, h)[1]``.

    Returns
    -------
    tokens : list of T str
    trace : AttentionTrace
        q, k, v (n_heads, T, d_head), weights (n_heads, T, T), outputs (n_heads, T, d_head).

    Examples
    --------
    >>> tokens, trace = model_layer_attention("the cat sat", 5)
    >>> trace.weights.shape
    (12, 5, 5)
    """
    trace = encode(text, name=name)
    return list(trace.tokens), trace.layer(layer).attention


def model_all_weights(text: str, name: str | os.PathLike | None = None) -> tuple[list[str], np.ndarray]:
    """Our attention weights for every layer and head.

    Returns
    -------
    tokens : list of T str
    weights : numpy.ndarray, shape (n_layers, n_heads, T, T)
        weights[l, h, i, j]: how much query token i attends to key token j in head h of
        layer l. Rows sum to 1.

    Examples
    --------
    >>> tokens, weights = model_all_weights("the cat sat")
    >>> weights.shape
    (6, 12, 5, 5)
    """
    trace = encode(text, name=name)
    return list(trace.tokens), trace.weights


@dataclass(frozen=True)
class HeadPick:
    """The head in which query token ``i`` puts most weight on one other word.

    layer, head : where (from 0)     key : the token j it looks at     weight : α̂_ij
    """

    layer: int
    head: int
    key: int
    weight: float


def head_looking_most(weights, tokens, i: int, ignore=MARKERS) -> HeadPick | None:
    """Of all layers and heads, the one where token ``i`` looks most at another word: the
    largest α̂_ij over j ≠ i and over keys not in ``ignore`` (the markers many heads rest on).

    Parameters
    ----------
    weights : (L, H, T, T) every head's attention weights (``encode(text).weights``)
    tokens : the T tokens
    i : the query token

    Returns None when the sentence has no other word to look at.

    >>> w = np.zeros((2, 2, 3, 3)); w[1, 0, 2, 0] = 0.9; w[0, 1, 2, 1] = 0.6
    >>> head_looking_most(w, ["the", "cat", "it"], 2)
    HeadPick(layer=1, head=0, key=0, weight=0.9)
    """
    weights = np.asarray(weights)  # (L, H, T, T)
    keys = [j for j, token in enumerate(tokens) if j != i and token not in ignore]
    if not keys:
        return None
    row = weights[:, :, i, keys]  # (L, H, K)
    layer, head, k = np.unravel_index(int(np.argmax(row)), row.shape)
    return HeadPick(layer=int(layer), head=int(head), key=keys[int(k)], weight=float(row[layer, head, k]))


def clear_caches() -> None:
    """Forget the read model files and the cached forward passes (tests, or to free memory)."""
    from . import encoder

    encoder.clear_cache()
