"""A BERT encoder as its files hold it: the config, the tokenizer and the float32 weights.

The one module that turns a model directory into an ``Encoder``, read by the forward pass
(``encoder``: ``load_encoder`` keeps one per model, checked) and by the fetcher
(``fetch.check_readable`` and ``describe``, on a directory being fetched or copied). The bytes
come through ``model_files`` (JSON, ``tokenizers``, memory-mapped safetensors); here they get
their names and shapes, and a config this encoder would compute wrongly is refused
(``EncoderConfig.from_files``). Cutting a sentence into the model's word pieces (``tokenize``)
needs only the tokenizer, so it is here too: no NumPy maths in this module.

The files store each linear layer as (out, in) (torch's y = x Wᵀ + b); ``LayerWeights`` holds
them transposed, in the row convention y = x W + b the lessons write. The word table, the one
large tensor, stays memory-mapped: a sentence reads only its own rows.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .arrays import frozen
from .model_files import (
    CONFIG_FILE,
    SENTENCE_CONFIG_FILE,
    WEIGHTS_FILE,
    ModelUnavailable,
    file_stamp,
    marker_tokens,
    read_json,
    read_tensors,
    read_tokenizer,
    unknown_token,
)
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

    >>> from attention_core.encoder import load_encoder
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

        >>> from attention_core.encoder import load_encoder
        >>> load_encoder().unk_token
        '[UNK]'
        """
        return unknown_token(self.tokenizer)

    @property
    def unk_id(self) -> int | None:
        """The id of ``unk_token``: a piece with this id stands for something the model cannot read.

        >>> from attention_core.encoder import load_encoder
        >>> load_encoder().unk_id
        100
        """
        token = self.unk_token
        return None if token is None else self.tokenizer.token_to_id(token)

    @functools.cached_property
    def markers(self) -> tuple[str, ...]:
        """The pieces the tokenizer puts around every sentence, from its own post-processor:
        ("[CLS]", "[SEP]") here, ("<s>", "</s>") for a SentencePiece model (``model_files.marker_tokens``).

        >>> from attention_core.encoder import load_encoder
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


def read_encoder(directory: Path) -> Encoder:
    """Read config, tokenizer and weights of one model directory, already checked
    (``model_choice.model_directory``, or ``model_files.check_weights``): no cache here, that is
    ``encoder.load_encoder``'s.

    >>> from attention_core.model_files import bundled_path
    >>> read_encoder(bundled_path()).word.shape
    (30522, 384)
    """
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


# --------------------------------------------------------------------------- word pieces


def tokenize(encoder: Encoder, text: str, max_pieces: int | None = None, first_piece: int = 0):
    """The model's word pieces of ``text`` between its markers ([CLS] and [SEP] here, as the
    tokenizer's post-processor adds them), cut to ``max_pieces`` pieces from piece
    ``first_piece`` on (0-based): a window over a long sentence.

    Returns (tokens, ids, n_pieces): n_pieces counts the whole text's pieces, before the cut.
    The default cut is the model's (max_tokens minus the markers: 254 pieces here), as
    sentence-transformers cuts. A
    window that would run past the end is moved back so that it ends with the last piece.

    >>> from attention_core.encoder import load_encoder
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
