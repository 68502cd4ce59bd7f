"""After attention: the rest of an encoder layer, the six layers, and the sentence vector.

The lesson's other pages stop at b_i, the output of one head. In the model (``encoder``),
layer l (counted from 1, as the page shows it) reads h⁽ˡ⁻¹⁾ and writes h⁽ˡ⁾; h⁽⁰⁾ are the
embeddings (T tokens, d_model = 384, d_ff = 1536). In the page's notation, where b is only the
output of attention, c a learned bias and δ LayerNorm's shift (β is a softmax's sharpness):

    o       = Concat(head_1 … head_H) W^O + c^O          (T, d_model)   the heads, mixed
    u       = LayerNorm(h⁽ˡ⁻¹⁾ + o)                      (T, d_model)   residual, then norm (Post-LN)
    f       = GELU(u W_1 + c_1) W_2 + c_2                (T, d_model)   feed-forward, via d_ff
    h⁽ˡ⁾    = LayerNorm(u + f)                           (T, d_model)   residual, then norm
    h̄       = (1/T) Σ_i h⁽ᴸ⁾_i,   e = h̄ / ‖h̄‖             (d_model,)     the sentence vector

``encoder.encode`` computes all of it (``EncoderTrace.layer(l)`` keeps every step). This module
recomputes none of the model: it reads traces and adds the few numbers the "After attention"
page shows beside them: a worked LayerNorm, how much each layer turns each token, the
token-by-token cosines of each layer, the heads' mean attention per layer, GELU's effect, and
the cosine similarity of sentence vectors (with ``similarity``'s cosine, as
sentence-transformers' ``util.cos_sim`` computes it).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import numpy as np

from .arrays import frozen
from .encoder import EncoderTrace, LayerTrace, NormTrace, encode, load_encoder
from .encoder_files import check_index
from .model_choice import resolve_model_name
from .similarity import cosine_similarity, unit_rows
from .unreadable import Unreadable

MAX_ROWS = 5
"""Most sentences the similarity table compares (a 5 × 5 matrix still prints every number)."""


# --------------------------------------------------------------------------- one layer


@dataclass(frozen=True)
class LayerNorms:
    """The learned parameters of a layer's two LayerNorms: (γ, β), each (d_model,), and ε.

    norm_1 : after attention (u = LayerNorm(h + o))   norm_2 : after the feed-forward network
    """

    norm_1: tuple[np.ndarray, np.ndarray]
    norm_2: tuple[np.ndarray, np.ndarray]
    eps: float


def layer_norms(trace: EncoderTrace, layer: int) -> LayerNorms:
    """γ, β and ε of layer ``layer``'s LayerNorms, from the model that made ``trace``.

    >>> n = layer_norms(encode("the cat sat"), 5)
    >>> n.norm_1[0].shape, n.eps
    ((384,), 1e-12)
    """
    encoder = load_encoder(trace.model)
    weights = encoder.layers[check_index(layer, encoder.config.n_layers, "layer", "layers")]
    return LayerNorms(norm_1=weights.norm_1, norm_2=weights.norm_2, eps=encoder.config.eps)


@dataclass(frozen=True)
class NormExample:
    """One number through LayerNorm: y_ic = (x_ic − μ_i) / √(σ²_i + ε) · γ_c + β_c.

    x : x_ic   mean : μ_i   var : σ²_i   eps : ε   std : √(σ²_i + ε)
    standardized : (x_ic − μ_i) / √(σ²_i + ε)   gamma : γ_c   beta : β_c
    output : y_ic, the number the model computed (from the trace, not recomputed here)
    """

    x: float
    mean: float
    var: float
    eps: float
    std: float
    standardized: float
    gamma: float
    beta: float
    output: float


def norm_example(norm: NormTrace, params: tuple[np.ndarray, np.ndarray], eps: float, i: int, c: int) -> NormExample:
    """LayerNorm of token ``i``'s component ``c``, step by step, for a worked example.

    >>> from attention_core.encoder import layer_norm
    >>> n = layer_norm(np.array([[1.0, 3.0]]), (np.array([2.0, 2.0]), np.array([0.5, 0.5])), eps=0.0)
    >>> e = norm_example(n, (np.array([2.0, 2.0]), np.array([0.5, 0.5])), 0.0, 0, 1)
    >>> e.mean, e.var, e.standardized, e.output
    (2.0, 1.0, 1.0, 2.5)
    """
    gamma, beta = params
    x, mean, var = float(norm.inputs[i, c]), float(norm.mean[i]), float(norm.var[i])
    std = float(np.sqrt(var + eps))
    return NormExample(
        x=x,
        mean=mean,
        var=var,
        eps=float(eps),
        std=std,
        standardized=(x - mean) / std,
        gamma=float(gamma[c]),
        beta=float(beta[c]),
        output=float(norm.outputs[i, c]),
    )


@dataclass(frozen=True)
class GeluEffect:
    """What GELU did to the feed-forward network's T × d_ff numbers z.

    negative_share : the share of z < 0 (GELU maps them into [−0.17, 0))
    lowest : the smallest GELU(z); GELU(z) ≥ −0.17 for every z
    """

    negative_share: float
    lowest: float


def gelu_effect(layer: LayerTrace) -> GeluEffect:
    """The share of negative inputs of GELU, and its smallest output, in one layer.

    >>> g = gelu_effect(encode("the cat sat").layer(0))
    >>> 0 < g.negative_share < 1, -0.17 <= g.lowest < 0
    (True, True)
    """
    return GeluEffect(
        negative_share=float(np.mean(layer.ffn_hidden < 0)),
        lowest=float(layer.ffn_activation.min()),
    )


# --------------------------------------------------------------------------- six layers


def layer_change(trace: EncoderTrace) -> np.ndarray:
    """cos(h⁽ˡ⁾_i, h⁽ˡ⁺¹⁾_i): how far layer l turns each token's vector, shape (L, T).

    1 means the layer kept token i's direction; lower means it turned it further.

    >>> layer_change(encode("the cat sat")).shape
    (6, 5)
    """
    h = unit_rows(trace.hidden)  # (L+1, T, d_model), every vector of length 1
    return frozen(np.clip(np.sum(h[:-1] * h[1:], axis=-1), -1.0, 1.0), copy=False)  # (L, T)


def token_cosines(trace: EncoderTrace) -> np.ndarray:
    """cos(h⁽ˡ⁾_i, h⁽ˡ⁾_j) for every pair of tokens in every hidden state, shape (L+1, T, T).

    Slice 0 is the embeddings h⁽⁰⁾, slice L the last layer's output.

    >>> c = token_cosines(encode("the cat sat"))
    >>> c.shape, bool(np.allclose(np.diagonal(c, axis1=1, axis2=2), 1.0))
    ((7, 5, 5), True)
    """
    return frozen(np.stack([cosine_similarity(h, h) for h in trace.hidden]), copy=False)  # (L+1, T, T)


def mean_pair_cosine(cosines) -> np.ndarray:
    """The mean of each map's cosines over the pairs of different tokens i ≠ j, shape (n,).

    ``cosines`` is (n, T, T), e.g. ``token_cosines(trace)``; with a single token there are no
    pairs and the mean is 0.

    >>> mean_pair_cosine(np.array([[[1.0, 0.5], [0.5, 1.0]]]))
    array([0.5])
    """
    c = np.asarray(cosines, dtype=np.float64)  # (n, T, T)
    t = c.shape[-1]
    if t < 2:
        return np.zeros(c.shape[0])  # (n,)
    off = ~np.eye(t, dtype=bool)  # (T, T), True off the diagonal
    return c[:, off].mean(axis=-1)  # (n,)


def mean_attention(trace: EncoderTrace) -> np.ndarray:
    """The heads' average weights (1/H) Σ_h α̂ʰ_ij in each layer, shape (L, T, T); rows sum to 1.

    >>> w = mean_attention(encode("the cat sat"))
    >>> w.shape, bool(np.allclose(w.sum(axis=-1), 1.0))
    ((6, 5, 5), True)
    """
    return frozen(trace.weights.mean(axis=1), copy=False)  # (L, T, T)


# --------------------------------------------------------------------------- the sentence vector


@dataclass(frozen=True)
class SentenceVector:
    """One text's sentence embedding and the pooling that makes it.

    text : the text read        tokens : the word pieces read, [CLS] first and [SEP] last
    n_pieces : word pieces of the whole text (more than len(tokens) − 2 when it was cut)
    unknown : how many pieces are [UNK]
    last_hidden : (T, d_model)  h⁽ᴸ⁾, the last layer's output
    mean : (d_model,)           m = (1/T) Σ_i h⁽ᴸ⁾_i, over every token, [CLS] and [SEP] included
    norm : ‖m‖
    embedding : (d_model,)      e = m / ‖m‖, what SentenceTransformer.encode returns
    """

    text: str
    tokens: tuple[str, ...]
    n_pieces: int
    unknown: int
    last_hidden: np.ndarray
    mean: np.ndarray
    norm: float
    embedding: np.ndarray

    @property
    def truncated(self) -> bool:
        """True when the text had more word pieces than the model reads (254 + 2 special)."""
        return self.n_pieces > len(self.tokens) - 2

    @property
    def n_read(self) -> int:
        """The word pieces read, [CLS] and [SEP] not counted."""
        return len(self.tokens) - 2


def sentence_vector(text: str, *, name: str | os.PathLike | None = None) -> SentenceVector:
    """The sentence embedding of ``text`` as sentence-transformers computes it: every word piece
    up to the model's limit, mean pooling over all tokens, then length 1.

    Cached per text (a few kB each); the trace it comes from, with its attention weights, is not.

    Raises
    ------
    ValueError
        Empty text, or text the tokenizer keeps nothing of.
    ModelUnavailable
        The model cannot be read.

    Examples
    --------
    >>> v = sentence_vector("The cat sat on the mat")
    >>> v.tokens[0], v.last_hidden.shape, bool(np.allclose(v.embedding, v.mean / v.norm))
    ('[CLS]', (8, 384), True)
    """
    resolved = resolve_model_name(name)
    load_encoder(resolved)  # ModelUnavailable here: a failure is never cached below
    return _vector_cached(text, resolved)


@functools.lru_cache(maxsize=64)
def _vector_cached(text: str, resolved: str) -> SentenceVector:
    try:
        trace = encode(text, name=resolved, cache=False)
    except TypeError as err:  # the tokenizer takes valid Unicode only (a lone surrogate)
        raise Unreadable("not_unicode", f"the tokenizer cannot read {text[:40]!r}: {err}") from err
    return SentenceVector(
        text=text,
        tokens=trace.tokens,
        n_pieces=trace.n_pieces,
        unknown=len(trace.unknown),
        last_hidden=frozen(trace.hidden[-1]),  # (T, d_model), a copy: the rest of the trace is let go
        mean=trace.pooled,  # (d_model,)
        norm=float(np.linalg.norm(trace.pooled)),
        embedding=trace.sentence_embedding,  # (d_model,)
    )


def clear_cache() -> None:
    """Forget the cached sentence vectors (tests)."""
    _vector_cached.cache_clear()


@dataclass(frozen=True)
class SentencePair:
    """Two sentence vectors and their cosine similarity, term by term.

    a, b : (d_model,) e_A and e_B, each of length 1
    products : (d_model,) e_A[c] · e_B[c]; their sum is the cosine
    cosine : cos(e_A, e_B) = e_A · e_B / (‖e_A‖ ‖e_B‖) = e_A · e_B
    """

    a: np.ndarray
    b: np.ndarray
    products: np.ndarray
    cosine: float


def compare_sentences(a: SentenceVector, b: SentenceVector) -> SentencePair:
    """The cosine similarity of two sentence vectors and the 384 products it adds up.

    >>> p = compare_sentences(sentence_vector("a cat sat"), sentence_vector("a cat sat"))
    >>> round(p.cosine, 6), round(float(p.products.sum()), 6)
    (1.0, 1.0)
    """
    products = a.embedding * b.embedding  # (d_model,)
    return SentencePair(
        a=a.embedding,
        b=b.embedding,
        products=frozen(products, copy=False),
        cosine=float(cosine_similarity(a.embedding, b.embedding)[0, 0]),
    )


@dataclass(frozen=True)
class SentenceTable:
    """The learner's sentences, one per line, and the cosine similarity of every pair.

    lines : the 1-based line number of each sentence used     vectors : their SentenceVectors
    empty : lines left empty (skipped)     unreadable : lines the tokenizer keeps nothing of (skipped)
    dropped : lines with a sentence beyond the first ``MAX_ROWS`` (not used)
    matrix : (n, n) cos(e_r, e_s) for the n sentences used
    """

    lines: tuple[int, ...]
    vectors: tuple[SentenceVector, ...]
    empty: tuple[int, ...]
    unreadable: tuple[int, ...]
    dropped: tuple[int, ...]
    matrix: np.ndarray


def closest_pair(matrix) -> tuple[int, int, float] | None:
    """The two different rows r < s with the largest cosine, and that cosine; None for fewer
    than two rows.

    >>> closest_pair(np.array([[1.0, 0.2, 0.7], [0.2, 1.0, 0.1], [0.7, 0.1, 1.0]]))
    (0, 2, 0.7)
    """
    m = np.asarray(matrix, dtype=np.float64)  # (n, n)
    n = m.shape[0]
    if n < 2:
        return None
    rows, cols = np.triu_indices(n, k=1)  # every pair r < s once
    best = int(np.argmax(m[rows, cols]))
    return int(rows[best]), int(cols[best]), float(m[rows[best], cols[best]])


def sentence_table(text: str, *, max_rows: int = MAX_ROWS, name: str | os.PathLike | None = None) -> SentenceTable:
    """Read ``text`` as one sentence per line and compare every pair of sentence vectors.

    Empty lines between sentences are skipped (trailing ones silently), so are lines the
    tokenizer keeps nothing of; after ``max_rows`` sentences the rest is left out. Each line
    is read as typed (no trimming): the tokenizer ignores spaces as sentence-transformers does.

    >>> table = sentence_table("A cat sat.\\n\\nA dog ran.\\nStocks fell.")
    >>> table.lines, table.empty, table.matrix.shape
    ((1, 3, 4), (2,), (3, 3))
    """
    if max_rows < 1:
        raise ValueError(f"max_rows must be at least 1, got {max_rows}")
    lines = str(text).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()  # the newline after the last sentence is not an empty row
    kept: list[int] = []
    vectors: list[SentenceVector] = []
    empty: list[int] = []
    unreadable: list[int] = []
    dropped: list[int] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            empty.append(number)
        elif len(vectors) >= max_rows:
            dropped.append(number)
        else:
            try:
                vectors.append(sentence_vector(line, name=name))
                kept.append(number)
            except ValueError:
                unreadable.append(number)
    d = load_encoder(name).config.d_model
    embeddings = np.array([v.embedding for v in vectors]).reshape(len(vectors), d)  # (n, d_model)
    return SentenceTable(
        lines=tuple(kept),
        vectors=tuple(vectors),
        empty=tuple(empty),
        unreadable=tuple(unreadable),
        dropped=tuple(dropped),
        matrix=frozen(cosine_similarity(embeddings, embeddings), copy=False),  # (n, n)
    )
