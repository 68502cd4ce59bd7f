"""The bundled model, all-MiniLM-L6-v2, run by our own NumPy code: a BERT encoder, step by step.

BERT (Devlin et al., 2019) turns a sentence into one vector per word piece, then
sentence-transformers averages them into one sentence vector. With x the T word pieces:

    h⁰ = LayerNorm(E_word[x] + E_position[0..T-1] + E_segment[0])        embeddings   (T, d_model)
    for each layer l = 0 … L-1:
        head_h = softmax(q_h k_hᵀ / √d_k) v_h,  q_h = hˡ W^Q_h + b^Q_h …   attention    (H, T, d_k)
        u      = LayerNorm(hˡ + Concat(head_1 … head_H) W^O + b^O)         add & norm   (T, d_model)
        hˡ⁺¹   = LayerNorm(u + GELU(u W_1 + b_1) W_2 + b_2)                 feed-forward (T, d_model)
    sentence = mean_i(hᴸ_i) / ‖mean_i(hᴸ_i)‖                                 pooling      (d_model,)

Everything is read from the model's own files (``model_files``) and driven by its config.json
(layers, heads, sizes, layer_norm_eps), so another BERT-family model directory works the same
way. Each head's attention goes through our ``scaled_dot_product_attention``: the numbers a
lesson shows for a trained head are the numbers this forward pass used.

Precision: the weights stay float32, as stored (87 MB for the bundled model: 43 MB read into
memory, the 47 MB word table mapped).
Every product with a weight matrix runs in float32, like the model's own; the attention itself,
the LayerNorms and GELU run in float64. The tests hold the result to transformers' hidden states
(1e-4), its attention weights (1e-5) and ``SentenceTransformer.encode`` (1e-5).

Memory: the word table stays in the weights file, memory-mapped (``model_files.read_tensors``):
a sentence reads only its own rows, so a 250 000-word vocabulary costs RAM only for the rows
used. The other weights (every sentence uses all of them) are read into memory. A weights file
changed on disk after it was read (``model_files.file_stamp``) is checked and read again at the
next ``load_encoder``. ``encode`` keeps the hidden states and the attention weights (about 1 MB for 26 tokens);
the intermediate values of one layer (W^O, the residuals, the feed-forward network) are
recomputed from its input by ``EncoderTrace.layer(l)``, with the same function as the forward pass.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .arrays import frozen
from .attention import AttentionTrace, scaled_dot_product_attention
from .model_files import (
    CONFIG_FILE,
    SENTENCE_CONFIG_FILE,
    WEIGHTS_FILE,
    ModelUnavailable,
    file_stamp,
    forget_hashes,
    marker_tokens,
    model_directory,
    read_json,
    read_tensors,
    read_tokenizer,
    resolve_model_name,
    unknown_token,
)
from .multihead import merge_heads, split_heads
from .unreadable import Unreadable

if TYPE_CHECKING:  # the type alone: tokenizers is imported where a model is read
    from tokenizers import Tokenizer

MARKERS = ("[CLS]", "[SEP]", "<s>", "</s>")
"""The special tokens that open and close a sentence: BERT's, and a SentencePiece model's
(``Encoder.markers`` names the loaded model's own). Code that has only the tokens (no encoder)
skips these: the markers are no word to ask about or to answer with."""

MODEL_TYPES = ("bert",)
"""The config.json ``model_type`` values this encoder computes exactly. Others are refused even
when their tensors have BERT's names: XLM-RoBERTa ("xlm-roberta") and RoBERTa number positions
from ``pad_token_id + 1``, so read as BERT every hidden state would be off
(``tests/test_encoder.py`` shows it against transformers' XLMRobertaModel)."""


@dataclass(frozen=True)
class EncoderConfig:
    """The shape of a BERT encoder, from its config.json and sentence_bert_config.json.

    n_layers : L, encoder layers (6)           n_heads : H, heads per layer (12)
    d_model : width of every hidden state (384) d_ff : width of the feed-forward network (1536)
    max_positions : rows of the position table (512)
    max_tokens : most tokens read at once, [CLS] and [SEP] included (256, sentence-transformers')
    eps : the LayerNorms' ε (1e-12)

    >>> c = load_encoder().config
    >>> c.n_layers, c.n_heads, c.d_model, c.d_head, c.d_ff, c.max_tokens
    (6, 12, 384, 32, 1536, 256)
    """

    n_layers: int
    n_heads: int
    d_model: int
    d_ff: int
    max_positions: int
    max_tokens: int
    eps: float

    @property
    def d_head(self) -> int:
        """d_k = d_v of one head: d_model / n_heads (32)."""
        return self.d_model // self.n_heads

    @classmethod
    def from_files(cls, config: dict, sentence_config: dict) -> EncoderConfig:
        """Read the sizes; refuse what this encoder does not compute exactly.

        Refused with ``ModelUnavailable``: reason "unsupported" for a model this encoder would
        compute wrongly (a ``model_type`` not in ``MODEL_TYPES``; an activation other than exact
        GELU; positions other than absolute ones; a decoder, whose attention is causal), reason
        "load" for a config that is not one (no ``model_type``, sizes missing or not fitting).

        >>> EncoderConfig.from_files({"model_type": "bert", "hidden_size": 8, "num_attention_heads": 2,
        ...     "max_position_embeddings": 16, "num_hidden_layers": 1, "intermediate_size": 12}, {}).d_head
        4
        >>> try:
        ...     EncoderConfig.from_files({"model_type": "xlm-roberta"}, {})
        ... except ModelUnavailable as err:
        ...     print(err.reason, str(err).split(":")[0])
        unsupported config.json says model_type 'xlm-roberta'
        """
        kind = config.get("model_type")
        if kind not in MODEL_TYPES:
            said = f"says model_type {kind!r}" if kind is not None else "names no model_type"
            raise ModelUnavailable(
                f"{CONFIG_FILE} {said}: this encoder computes BERT only (model_type 'bert'), so it would "
                "show wrong numbers for this model (XLM-RoBERTa and RoBERTa count positions differently)",
                reason="unsupported" if kind is not None else "load",  # no model_type: not a model config
            )
        if config.get("is_decoder") or config.get("add_cross_attention"):
            raise ModelUnavailable(
                f"{CONFIG_FILE} asks for a decoder (is_decoder / add_cross_attention): this encoder lets every "
                "token attend to every other one, as a BERT encoder does",
                reason="unsupported",
            )
        try:
            d_model, n_heads = int(config["hidden_size"]), int(config["num_attention_heads"])
            max_positions = int(config["max_position_embeddings"])
            made = cls(
                n_layers=int(config["num_hidden_layers"]),
                n_heads=n_heads,
                d_model=d_model,
                d_ff=int(config["intermediate_size"]),
                max_positions=max_positions,
                max_tokens=min(int(sentence_config.get("max_seq_length") or max_positions), max_positions),
                eps=float(config.get("layer_norm_eps", 1e-12)),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise ModelUnavailable(f"{CONFIG_FILE} is not a BERT config: {err!r}", reason="load") from err
        if (
            config.get("hidden_act", "gelu") != "gelu"
            or config.get("position_embedding_type", "absolute") != "absolute"
        ):
            raise ModelUnavailable(
                f"this encoder implements BERT with exact GELU and absolute positions; {CONFIG_FILE} asks for "
                f"hidden_act={config.get('hidden_act')!r}, "
                f"position_embedding_type={config.get('position_embedding_type')!r}",
                reason="unsupported",
            )
        if d_model % n_heads or made.n_layers < 1 or made.max_tokens < 3:
            raise ModelUnavailable(
                f"{CONFIG_FILE}: hidden_size {d_model} is not split evenly into {n_heads} heads", reason="load"
            )
        return made


@dataclass(frozen=True, eq=False)
class LayerWeights:
    """One encoder layer's learned parameters, float32, in the row convention y = x W + b.

    The files store each linear layer as (out, in) (torch's y = x Wᵀ + b); these are the
    transposed matrices, so w_q[:, h·d_k:(h+1)·d_k] is W^Q of head h.

    w_q, w_k, w_v, w_o : (d_model, d_model)    b_q, b_k, b_v, b_o : (d_model,)
    norm_1, norm_2 : (γ, β), each (d_model,)   after attention, after the feed-forward network
    w_1 : (d_model, d_ff), b_1 : (d_ff,)       w_2 : (d_ff, d_model), b_2 : (d_model,)
    """

    w_q: np.ndarray
    b_q: np.ndarray
    w_k: np.ndarray
    b_k: np.ndarray
    w_v: np.ndarray
    b_v: np.ndarray
    w_o: np.ndarray
    b_o: np.ndarray
    norm_1: tuple[np.ndarray, np.ndarray]
    w_1: np.ndarray
    b_1: np.ndarray
    w_2: np.ndarray
    b_2: np.ndarray
    norm_2: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True, eq=False)
class Encoder:
    """A BERT encoder read from a model directory: config, tokenizer and float32 weights.

    word : (vocab_size, d_model)   position : (max_positions, d_model)   segment : (types, d_model)
    norm : (γ, β) of the embeddings' LayerNorm       layers : L × ``LayerWeights``
    """

    directory: Path
    config: EncoderConfig
    tokenizer: Tokenizer
    word: np.ndarray
    position: np.ndarray
    segment: np.ndarray
    norm: tuple[np.ndarray, np.ndarray]
    layers: tuple[LayerWeights, ...]
    weights_stamp: tuple[int, ...] = ()
    """``file_stamp`` of model.safetensors when it was read: ``load_encoder`` reads it again once this changes."""

    @functools.cached_property
    def unk_token(self) -> str | None:
        """The piece for anything the vocabulary lacks, as the tokenizer itself declares it:
        "[UNK]" for a WordPiece vocabulary like the bundled one, "<unk>" for a SentencePiece
        one; None if it has none (``model_files.unknown_token``).

        >>> load_encoder().unk_token
        '[UNK]'
        """
        return unknown_token(self.tokenizer)

    @property
    def unk_id(self) -> int | None:
        """The id of ``unk_token``: a piece with this id stands for something the model cannot read.

        >>> load_encoder().unk_id
        100
        """
        token = self.unk_token
        return None if token is None else self.tokenizer.token_to_id(token)

    @functools.cached_property
    def markers(self) -> tuple[str, ...]:
        """The pieces the tokenizer puts around every sentence, from its own post-processor:
        ("[CLS]", "[SEP]") here, ("<s>", "</s>") for a SentencePiece model (``model_files.marker_tokens``).

        >>> load_encoder().markers
        ('[CLS]', '[SEP]')
        """
        return marker_tokens(self.tokenizer)


WORD_TABLE = "embeddings.word_embeddings.weight"
"""The one tensor left memory-mapped: (vocab_size, d_model), 47 MB here, 384 MB for a 250 000-word vocabulary."""


def _tensor_prefix(names) -> str:
    """ "" for the bundled file, "bert." for a checkpoint saved with its task head."""
    for name in names:
        if name.endswith(WORD_TABLE):
            return name[: -len(WORD_TABLE)]
    raise ModelUnavailable("the weights hold no embeddings.word_embeddings.weight: not a BERT model", reason="load")


def _read_encoder(directory: Path) -> Encoder:
    """Read config, tokenizer and weights of one (already checked) model directory."""
    config = EncoderConfig.from_files(read_json(directory, CONFIG_FILE), read_json(directory, SENTENCE_CONFIG_FILE))
    tokenizer = read_tokenizer(directory)
    stamp = file_stamp(Path(directory) / WEIGHTS_FILE)  # before reading: a change while reading is seen next time
    tensors = read_tensors(
        directory,
        keep=lambda n: "pooler" not in n and not n.endswith("position_ids"),
        in_memory=lambda n: not n.endswith(WORD_TABLE),  # the word table stays mapped: a sentence reads a few rows
    )
    prefix = _tensor_prefix(tensors)

    def get(name: str) -> np.ndarray:
        try:
            return tensors[prefix + name]
        except KeyError:
            raise ModelUnavailable(f"the weights lack {prefix + name}: not a BERT model", reason="load") from None

    def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
        w = frozen(np.ascontiguousarray(get(f"{name}.weight").T), dtype=None, copy=False)  # (in, out), contiguous rows
        return w, get(f"{name}.bias")  # (in, out), (out,)

    def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
        return get(f"{name}.weight"), get(f"{name}.bias")  # γ, β: (d_model,)

    layers = []
    for layer in range(config.n_layers):
        at = f"encoder.layer.{layer}."
        w_q, b_q = linear(at + "attention.self.query")  # (d_model, d_model), (d_model,)
        w_k, b_k = linear(at + "attention.self.key")  # (d_model, d_model), (d_model,)
        w_v, b_v = linear(at + "attention.self.value")  # (d_model, d_model), (d_model,)
        w_o, b_o = linear(at + "attention.output.dense")  # (d_model, d_model), (d_model,)
        w_1, b_1 = linear(at + "intermediate.dense")  # (d_model, d_ff), (d_ff,)
        w_2, b_2 = linear(at + "output.dense")  # (d_ff, d_model), (d_model,)
        layers.append(
            LayerWeights(
                w_q,
                b_q,
                w_k,
                b_k,
                w_v,
                b_v,
                w_o,
                b_o,
                norm(at + "attention.output.LayerNorm"),
                w_1,
                b_1,
                w_2,
                b_2,
                norm(at + "output.LayerNorm"),
            )
        )
    word = get(WORD_TABLE)  # (vocab_size, d_model), a read-only view of the mapped file
    position = get("embeddings.position_embeddings.weight")  # (max_positions, d_model)
    segment = get("embeddings.token_type_embeddings.weight")  # (types, d_model)
    if (
        word.shape[1] != config.d_model
        or w_1.shape != (config.d_model, config.d_ff)
        or position.shape != (config.max_positions, config.d_model)
        or segment.ndim != 2
        or segment.shape[0] < 1
        or segment.shape[1] != config.d_model
    ):
        raise ModelUnavailable(f"the weights' shapes do not match {CONFIG_FILE}", reason="load")
    return Encoder(
        directory=directory,
        config=config,
        tokenizer=tokenizer,
        word=word,
        position=position,
        segment=segment,
        norm=norm("embeddings.LayerNorm"),
        layers=tuple(layers),
        weights_stamp=stamp,
    )


_LOCK = threading.Lock()

LAYERS_KEPT = 16
"""Layer traces kept (``EncoderTrace.layer``), most recently used first: a page and the lesson
behind it ask for the same layer in one rerun, and the next click asks again. One layer of a
26-token sentence holds about 1.8 MB, so the memo stays under 30 MB."""
_LAYERS: OrderedDict = OrderedDict()


@functools.lru_cache(maxsize=4)
def _encoder_cached(resolved: str) -> Encoder:
    return _read_encoder(model_directory(resolved))  # checks the weights' SHA-256 once, then reads


def load_encoder(name: str | os.PathLike | None = None) -> Encoder:
    """The encoder of model ``name`` (default: $ATTENTION_LAB_MODEL, else the bundled model),
    read once per process. No torch: tokenizers, safetensors and NumPy only, about 0.3 s.

    Raises
    ------
    ModelUnavailable
        "missing", "checksum", "load" or "memory" (see ``model_files``). Failures are not
        cached: a later call tries again, and a damaged weights file costs it a ``stat``, not a
        second SHA-256 (``model_files.weights_sha256``).

    Examples
    --------
    >>> enc = load_encoder()
    >>> len(enc.layers), enc.layers[0].w_q.shape, enc.word.dtype
    (6, (384, 384), dtype('float32'))
    """
    resolved = resolve_model_name(name)
    with _LOCK:  # two sessions starting together read the files once
        try:
            encoder = _encoder_cached(resolved)
            if _changed_on_disk(encoder):  # rewritten in place: the mapped word table shows the new bytes
                _encoder_cached.cache_clear()
                _encode_cached.cache_clear()
                _LAYERS.clear()
                encoder = _encoder_cached(resolved)  # checked (SHA-256) and read again, or ModelUnavailable
            return encoder
        except MemoryError as err:
            raise ModelUnavailable(f"not enough memory to read the model {resolved}", reason="memory") from err


def _changed_on_disk(encoder: Encoder) -> bool:
    """True when the encoder's weights file is not the one it read (another ``file_stamp``). A
    file that is gone (unlinked while in use: its mapping stays valid) counts as unchanged."""
    if not getattr(encoder, "weights_stamp", None):  # not read from a file here (a stand-in in a test)
        return False
    try:
        return file_stamp(encoder.directory / WEIGHTS_FILE) != encoder.weights_stamp
    except OSError:
        return False


def clear_cache() -> None:
    """Forget the read encoders, the cached traces and the weights' remembered hashes (tests, or
    to free memory)."""
    _encoder_cached.cache_clear()
    _encode_cached.cache_clear()
    forget_hashes()
    with _LOCK:
        _LAYERS.clear()


# --------------------------------------------------------------------------- the pieces of a layer


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x W + b with the product in float32 (the weights' own precision), returned as float64.

    >>> linear(np.ones((2, 3)), np.ones((3, 4), np.float32), np.zeros(4, np.float32))
    array([[3., 3., 3., 3.],
           [3., 3., 3., 3.]])
    """
    product = np.asarray(x, dtype=np.float32) @ w  # (T, d_out), float32
    return product.astype(np.float64) + b  # (T, d_out)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU in its exact form, x·Φ(x) = x/2·(1 + erf(x/√2)), as BERT's "gelu" (not the tanh one).

    >>> gelu(np.array([-1.0, 0.0, 1.0])).round(4)
    array([-0.1587,  0.    ,  0.8413])
    """
    from scipy.special import erf  # NumPy has no erf; SciPy's is exact to double precision

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


@dataclass(frozen=True)
class NormTrace:
    """A LayerNorm of each row: y_i = (x_i − μ_i) / √(σ²_i + ε) · γ + β.

    inputs : (T, d) x     mean : (T,) μ_i     var : (T,) σ²_i (the biased variance, over d)
    outputs : (T, d) y
    """

    inputs: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    outputs: np.ndarray


def layer_norm(x: np.ndarray, norm: tuple[np.ndarray, np.ndarray], eps: float) -> NormTrace:
    """LayerNorm over the last axis, keeping each row's mean and variance.

    >>> n = layer_norm(np.array([[1.0, 3.0]]), (np.ones(2), np.zeros(2)), eps=0.0)
    >>> n.mean, n.var, n.outputs
    (array([2.]), array([1.]), array([[-1.,  1.]]))
    """
    gamma, beta = norm
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1)  # (T,)
    var = x.var(axis=-1)  # (T,)
    outputs = (x - mean[:, None]) / np.sqrt(var[:, None] + eps) * gamma + beta  # (T, d)
    return NormTrace(
        inputs=frozen(x),
        mean=frozen(mean, copy=False),
        var=frozen(var, copy=False),
        outputs=frozen(outputs, copy=False),
    )


@dataclass(frozen=True)
class EmbeddingTrace:
    """h⁰ = LayerNorm(word + position + segment), every part (T, d_model).

    word : E_word[x_i]   position : E_position[i]   segment : E_segment[0] (one sentence)
    norm : the LayerNorm of their sum; norm.outputs is h⁰, the input of layer 0
    """

    word: np.ndarray
    position: np.ndarray
    segment: np.ndarray
    norm: NormTrace


def embed(encoder: Encoder, ids) -> EmbeddingTrace:
    """The embeddings of token ids (T,): word + learned position + segment, then LayerNorm.

    >>> e = embed(load_encoder(), [101, 1996, 4937, 102])
    >>> e.norm.outputs.shape
    (4, 384)
    """
    ids = np.asarray(ids)
    word = encoder.word[ids].astype(np.float64)  # (T, d_model)
    position = encoder.position[: len(ids)].astype(np.float64)  # (T, d_model)
    segment = np.broadcast_to(encoder.segment[0].astype(np.float64), word.shape)  # (T, d_model)
    return EmbeddingTrace(
        word=frozen(word, copy=False),
        position=frozen(position, copy=False),
        segment=frozen(segment),
        norm=layer_norm(word + position + segment, encoder.norm, encoder.config.eps),
    )


@dataclass(frozen=True)
class LayerTrace:
    """Every value of one encoder layer, in order (T tokens, H heads).

    inputs : (T, d_model)           hˡ, the layer's input
    attention : AttentionTrace      the H heads at once: q, k, v (H, T, d_k), weights (H, T, T),
                                    outputs (H, T, d_k); ``attention.head(h)`` is one head
    concat : (T, d_model)           Concat(head_1 … head_H)
    attention_output : (T, d_model) concat W^O + b^O
    norm_1 : NormTrace              LayerNorm(inputs + attention_output): the residual, then the norm
    ffn_hidden : (T, d_ff)          u W_1 + b_1, with u = norm_1.outputs
    ffn_activation : (T, d_ff)      GELU(ffn_hidden)
    ffn_output : (T, d_model)       ffn_activation W_2 + b_2
    norm_2 : NormTrace              LayerNorm(u + ffn_output); norm_2.outputs is hˡ⁺¹
    """

    inputs: np.ndarray
    attention: AttentionTrace
    concat: np.ndarray
    attention_output: np.ndarray
    norm_1: NormTrace
    ffn_hidden: np.ndarray
    ffn_activation: np.ndarray
    ffn_output: np.ndarray
    norm_2: NormTrace

    @property
    def outputs(self) -> np.ndarray:
        """hˡ⁺¹ (T, d_model): the input of the next layer."""
        return self.norm_2.outputs


def encoder_layer(h: np.ndarray, w: LayerWeights, config: EncoderConfig) -> LayerTrace:
    """One BERT layer on hidden states h (T, d_model): attention, add & norm, FFN, add & norm.

    >>> enc = load_encoder()
    >>> h0 = embed(enc, [101, 1996, 4937, 102]).norm.outputs
    >>> lt = encoder_layer(h0, enc.layers[0], enc.config)
    >>> lt.attention.weights.shape, lt.ffn_hidden.shape, lt.outputs.shape
    ((12, 4, 4), (4, 1536), (4, 384))
    """
    H = config.n_heads
    q = split_heads(linear(h, w.w_q, w.b_q), H)  # (H, T, d_k)
    k = split_heads(linear(h, w.w_k, w.b_k), H)  # (H, T, d_k)
    v = split_heads(linear(h, w.w_v, w.b_v), H)  # (H, T, d_v)
    attention = scaled_dot_product_attention(q, k, v)  # weights (H, T, T), outputs (H, T, d_v)
    concat = merge_heads(attention.outputs)  # (T, d_model)
    attention_output = linear(concat, w.w_o, w.b_o)  # (T, d_model)
    norm_1 = layer_norm(h + attention_output, w.norm_1, config.eps)  # (T, d_model)
    ffn_hidden = linear(norm_1.outputs, w.w_1, w.b_1)  # (T, d_ff)
    ffn_activation = gelu(ffn_hidden)  # (T, d_ff)
    ffn_output = linear(ffn_activation, w.w_2, w.b_2)  # (T, d_model)
    norm_2 = layer_norm(norm_1.outputs + ffn_output, w.norm_2, config.eps)  # (T, d_model)
    return LayerTrace(
        inputs=frozen(h),
        attention=attention,
        concat=frozen(concat, copy=False),
        attention_output=frozen(attention_output, copy=False),
        norm_1=norm_1,
        ffn_hidden=frozen(ffn_hidden, copy=False),
        ffn_activation=frozen(ffn_activation, copy=False),
        ffn_output=frozen(ffn_output, copy=False),
        norm_2=norm_2,
    )


# --------------------------------------------------------------------------- the whole sentence


@dataclass(frozen=True)
class EncoderTrace:
    """One sentence through the encoder.

    model : the resolved model name (``model_files.resolve_model_name``)
    tokens : T word pieces between the tokenizer's markers ([CLS] first and [SEP] last here;
             <s> and </s> for a SentencePiece model: ``Encoder.markers``)    ids : (T,) their ids
    unknown : indices of pieces the vocabulary lacks (``Encoder.unk_id``: [UNK] here, <unk> for
              a SentencePiece model, whose token shows the original text)
    n_pieces : word pieces of the whole text                n_markers : markers the tokenizer added (2)
    embeddings : EmbeddingTrace (h⁰ and its parts)
    hidden : (L+1, T, d_model)   hidden[0] = h⁰; hidden[l+1] = the output of layer l
    weights : (L, H, T, T)       weights[l, h, i, j]: how much token i attends to token j
    pooled : (d_model,)          the mean of hidden[-1] over the T tokens
    sentence_embedding : (d_model,)   pooled / ‖pooled‖, what SentenceTransformer.encode returns
    """

    model: str
    tokens: tuple[str, ...]
    ids: np.ndarray
    unknown: tuple[int, ...]
    n_pieces: int
    embeddings: EmbeddingTrace
    hidden: np.ndarray
    weights: np.ndarray
    pooled: np.ndarray
    sentence_embedding: np.ndarray
    n_markers: int = 2

    @property
    def truncated(self) -> bool:
        """True when the text had more word pieces than were read."""
        return self.n_pieces > len(self.tokens) - self.n_markers

    def layer(self, layer: int) -> LayerTrace:
        """Every value of layer ``layer``, recomputed from its input hidden[layer] by the same
        ``encoder_layer`` the forward pass ran (so ``layer(l).outputs`` is ``hidden[l + 1]``).

        >>> encode("the cat sat").layer(5).attention.head(11).weights.shape
        (5, 5)
        """
        encoder = load_encoder(self.model)
        layer = check_index(layer, encoder.config.n_layers, "layer", "layers")
        key = (self.model, self.ids.tobytes(), layer)  # the word pieces read decide every number
        with _LOCK:
            found = _LAYERS.get(key)
            if found is not None:
                _LAYERS.move_to_end(key)
                return found
        found = encoder_layer(self.hidden[layer], encoder.layers[layer], encoder.config)
        with _LOCK:
            _LAYERS[key] = found
            while len(_LAYERS) > LAYERS_KEPT:
                _LAYERS.popitem(last=False)
        return found

    def head(self, layer: int, head: int) -> AttentionTrace:
        """The attention of one head: q, k (T, d_k), v (T, d_v), scores … weights (T, T), outputs.

        >>> encode("the cat sat").head(0, 2).d_k
        32
        """
        encoder = load_encoder(self.model)
        head = check_index(head, encoder.config.n_heads, "head", "heads")
        return self.layer(layer).attention.head(head)


def tokenize(encoder: Encoder, text: str, max_pieces: int | None = None, first_piece: int = 0):
    """The model's word pieces of ``text`` between its markers ([CLS] and [SEP] here, as the
    tokenizer's post-processor adds them), cut to ``max_pieces`` pieces from piece
    ``first_piece`` on (0-based): a window over a long sentence.

    Returns (tokens, ids, n_pieces): n_pieces counts the whole text's pieces, before the cut.
    The default cut is the model's (max_tokens minus the markers: 254 pieces here), as
    sentence-transformers cuts. A
    window that would run past the end is moved back so that it ends with the last piece.

    >>> tokenize(load_encoder(), "The tailoring of shirts", max_pieces=3)[0]
    ['[CLS]', 'the', 'tailor', '##ing', '[SEP]']
    >>> tokenize(load_encoder(), "The tailoring of shirts", max_pieces=3, first_piece=2)[0]
    ['[CLS]', '##ing', 'of', 'shirts', '[SEP]']
    """
    check_text(text)
    limit = encoder.config.max_tokens - encoder.tokenizer.num_special_tokens_to_add(False)  # [CLS], [SEP]: 2
    limit = limit if max_pieces is None else min(int(max_pieces), limit)
    if limit < 1:
        raise ValueError(f"max_pieces must be at least 1, got {max_pieces}")
    if first_piece < 0:
        raise ValueError(f"first_piece must be 0 or more, got {first_piece}")
    encoding = encoder.tokenizer.encode(text, add_special_tokens=False)
    n_pieces = len(encoding.ids)
    if n_pieces == 0:
        raise Unreadable("no_pieces", f"the tokenizer found no word pieces in {text!r}: expected at least one word")
    if n_pieces > limit:
        end = min(first_piece, n_pieces - limit) + limit  # the window's end, at most the text's
        encoding.truncate(end)
        encoding.truncate(limit, direction="left")  # keep its last ``limit`` pieces
    encoding = encoder.tokenizer.post_process(encoding)  # [CLS] … [SEP] (<s> … </s>), as the model was trained
    return list(encoding.tokens), np.asarray(encoding.ids), n_pieces


def first_piece_shown(n_pieces: int, max_pieces: int, first_piece: int) -> int:
    """Where a window of ``max_pieces`` over ``n_pieces`` pieces really starts (``tokenize``'s rule).

    >>> first_piece_shown(60, 24, 50), first_piece_shown(10, 24, 5), first_piece_shown(60, 24, 24)
    (36, 0, 24)
    """
    return max(0, min(int(first_piece), n_pieces - int(max_pieces)))


def encode(
    text: str,
    *,
    name: str | os.PathLike | None = None,
    max_pieces: int | None = None,
    first_piece: int = 0,
    cache: bool = True,
) -> EncoderTrace:
    """Run the encoder on one sentence and keep what the lessons show.

    Parameters
    ----------
    text : str
        One sentence (no padding, so no attention mask is needed).
    name : str or path, optional
        The model (see ``model_files.resolve_model_name``); the bundled one by default.
    max_pieces : int, optional
        Read at most this many word pieces (the markers, [CLS] and [SEP], come on top). By default the
        model's own limit, 254 for the bundled model, as sentence-transformers reads.
    first_piece : int
        The first word piece read (0-based), for a window over a long text (``tokenize``).
    cache : bool
        Keep the trace for the next call with the same arguments (the default). A trace holds
        every attention weight, about 40 MB for 256 tokens: callers that keep only a small
        part of it (``after_attention.sentence_vector``) pass False.

    Returns
    -------
    EncoderTrace
        Read-only; with ``cache`` the same object for the same arguments.

    Raises
    ------
    ValueError
        Empty text, or text the tokenizer keeps nothing of.
    ModelUnavailable
        The model cannot be read.

    Examples
    --------
    >>> trace = encode("The cat sat on the mat because it was tired")
    >>> trace.tokens[:4], trace.hidden.shape, trace.weights.shape
    (('[CLS]', 'the', 'cat', 'sat'), (7, 12, 384), (6, 12, 12, 12))
    >>> trace.tokens[int(trace.weights[0, 2, 3].argmax())]  # layer 0, head 2: "sat" looks at the token before
    'cat'
    >>> round(float(np.linalg.norm(trace.sentence_embedding)), 6)
    1.0
    """
    check_text(text)
    resolved = resolve_model_name(name)
    load_encoder(resolved)  # raise ModelUnavailable here, never cached below
    run = _encode_cached if cache else _forward
    return run(text, resolved, None if max_pieces is None else int(max_pieces), int(first_piece))


def _forward(text: str, resolved: str, max_pieces: int | None, first_piece: int = 0) -> EncoderTrace:
    """The forward pass of ``encode``: tokens, embeddings, every layer, mean pooling."""
    encoder = load_encoder(resolved)
    tokens, ids, n_pieces = tokenize(encoder, text, max_pieces, first_piece)
    embeddings = embed(encoder, ids)
    hidden = [embeddings.norm.outputs]  # (T, d_model) per entry
    weights = []
    for w in encoder.layers:
        layer = encoder_layer(hidden[-1], w, encoder.config)
        hidden.append(layer.outputs)
        weights.append(layer.attention.weights)  # (H, T, T)
    pooled = hidden[-1].mean(axis=0)  # (d_model,)
    unk_id = encoder.unk_id  # the tokenizer's own unknown piece: [UNK], <unk>, or None
    return EncoderTrace(
        model=resolved,
        tokens=tuple(tokens),
        ids=frozen(ids, dtype=np.int64, copy=False),
        unknown=tuple(i for i, token_id in enumerate(ids) if token_id == unk_id),
        n_pieces=n_pieces,
        embeddings=embeddings,
        hidden=frozen(np.stack(hidden), copy=False),  # (L+1, T, d_model)
        weights=frozen(np.stack(weights), copy=False),  # (L, H, T, T)
        pooled=frozen(pooled, copy=False),
        sentence_embedding=frozen(pooled / np.linalg.norm(pooled), copy=False),  # (d_model,)
        n_markers=encoder.tokenizer.num_special_tokens_to_add(False),  # [CLS] and [SEP]: 2
    )


_encode_cached = functools.lru_cache(maxsize=32)(_forward)


# --------------------------------------------------------------------------- checks


def check_text(text) -> str:
    """``text`` if it is a string with something in it, else ValueError.

    >>> check_text("hi")
    'hi'
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    if not text.strip():
        raise Unreadable("empty", f"text is empty: expected at least one word, got {text!r}")
    return text


def check_index(value, count: int, what: str, plural: str) -> int:
    """``value`` as an int if it is in 0..count-1, else a ValueError that says the range.

    >>> check_index(5, 6, "layer", "layers")
    5
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an integer in 0..{count - 1}, got {value!r}")
    if not 0 <= value < count:
        raise ValueError(f"{what} must be in 0..{count - 1} (the model has {count} {plural}), got {int(value)}")
    return int(value)
