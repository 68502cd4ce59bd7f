"""The whole lesson for one sentence, in the order it is taught.

sentence → tokens → inputs a (T, d_model) → q, k (T, d_k), v (T, d_v) → scores (T, T)
→ scaled → weights → outputs (T, d_v)

Where a, W^Q, W^K and W^V come from is the learner's choice (``LessonSettings.projection``):

* "trained" (the default): a head of the bundled model. The tokens are its word pieces with
  [CLS] and [SEP]; a is the hidden state entering the chosen layer (for layer 0, the model's
  embeddings: LayerNorm(word + position + segment)); W^Q, W^K, W^V and their biases are the
  head's learned ones; every number is the one our NumPy forward pass (``encoder.encode``)
  computed.
* "random": seeded random W (illustrative, small enough to follow by hand) on a = √d_model·x + PE,
  with x the word embeddings and PE the sinusoidal positional encoding.
* "identity": W^Q = W^K = W^V = I on the same a, so q = k = v = a.

Pages call ``build_lesson`` once and show its fields; they never compute anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .arrays import frozen
from .attention import AttentionTrace, scaled_dot_product_attention
from .embeddings import Embedder
from .encoder import EncoderTrace, encode
from .encoder_files import MARKERS, first_piece_shown
from .model import ModelEmbedder, head_projections
from .positional import sinusoidal_encoding
from .projections import Projections, identity_projections, random_projections, self_attention
from .text import CJK_MODES, MAX_TOKENS, clean_text, simple_tokenize

STEPS = ("tokens", "embedding", "qkv", "scores", "scale", "softmax", "output")
"""The steps of attention for one query token, in the order they are computed and taught: cut
the sentence into tokens, turn each into a vector a (embedding and position), project it to q, k
and v, score q against every k, divide by √d_k, take the softmax, sum the values. The step-by-step
page walks them (its ``?step=`` is an index into this list) and the ordering exercise asks for them.

>>> STEPS.index("softmax") > STEPS.index("scale") > STEPS.index("scores")
True
"""

PROJECTIONS = ("trained", "random", "identity")
"""Where W^Q, W^K, W^V come from: a trained head of the model, seeded random, or the identity."""

TRAINED_HEAD = (1, 3)
"""(layer, head) as 0-based indices (the pages, counting from 1, call it layer 2, head 4) of
the head the lessons open on. Chosen for a job that can be measured and could have failed: on
the probe set heads are chosen on (``heads.census``) it sends he or she to the noun of the same
gender more than to the other noun in 47 of 48 sentences, the most of any head; on the held-out
set, in 46 of 48 sentences, while most of its other rows rest on [CLS]. ``tests/test_heads.py``
checks that it is still the best head for that job and these numbers."""


@dataclass(frozen=True)
class LessonSettings:
    """What the learner can change in the sidebar.

    projection : "trained" (a head of the model; the app's default), "random" (seeded
        W^Q/W^K/W^V; the default here, as it works with any embedder) or "identity"
        (q = k = v = a); see ``PROJECTIONS``
    layer, head : the trained head (from 0), used with projection "trained"
    d_k : size of queries and keys with random projections (a trained head has the model's
        d_k = 32; identity has d_k = d_model)
    seed : seed of the random W^Q/W^K/W^V
    scaled : divide the scores by √d_k (True) or not; switched off on a trained head it is an
        experiment on the model's own q, k, v (the same numbers), no longer the model's computation
    positional : add the sinusoidal positional encoding (True) or not (random and identity;
        the trained model always adds its learned position embeddings)
    max_tokens : longest sentence shown (word pieces, without [CLS] and [SEP])
    first_piece : where that window starts in a longer sentence (0-based, in tokens or word
        pieces; moved back when it would run past the end): the model reads the window as its text
    cjk : how the toy embedder cuts Chinese text: "chars" (one token per character) or
        "words" (rjieba's words); the real model always uses its own tokenizer
    """

    projection: str = "random"
    layer: int = TRAINED_HEAD[0]
    head: int = TRAINED_HEAD[1]
    d_k: int = 4
    seed: int = 0
    scaled: bool = True
    positional: bool = True
    max_tokens: int = MAX_TOKENS
    first_piece: int = 0
    cjk: str = "chars"


@dataclass(frozen=True)
class Lesson:
    """Every quantity of the lesson for one sentence.

    tokens : the T tokens shown (after truncation)
    n_tokens : how many tokens the whole sentence had
    unknown : indices of tokens the embedder could not represent
    word_vectors : (T, d_model) x_i, the embedder's vectors
    embed_scale : √d_model, the factor on x_i before adding PE (as in the Transformer paper);
        1 for a trained head (BERT adds its embeddings unscaled)
    positional : (T, d_model) PE_i (zeros when switched off); the learned position
        embeddings for a trained head
    inputs : (T, d_model) a_i = embed_scale·x_i + PE_i; for a trained head, the hidden state
        entering the chosen layer
    projections : W^Q, W^K, W^V
    trace : the attention computation on ``inputs``
    encoded : the whole sentence through the model (trained heads only), else None
    unknown_words : the learner's words (single characters for Chinese) that the embedder
        turned into unknown tokens, in order of first appearance — what "[UNK]" stands for
    first : where the shown tokens start among all of the sentence's (0-based; word pieces,
        without [CLS], for a trained head): 0 unless the sentence is longer than ``max_tokens``
    """

    text: str
    tokens: list[str]
    n_tokens: int
    unknown: tuple[int, ...]
    embedder_name: str
    real_embeddings: bool
    settings: LessonSettings
    word_vectors: np.ndarray
    embed_scale: float
    positional: np.ndarray
    inputs: np.ndarray
    projections: Projections
    trace: AttentionTrace
    unknown_words: tuple[str, ...] = ()
    encoded: EncoderTrace | None = None
    first: int = 0

    @property
    def truncated(self) -> bool:
        """True when the sentence has more tokens than are shown (a window of ``max_tokens``)."""
        return self.n_tokens > len(self.tokens)

    @property
    def trained(self) -> bool:
        """True when the lesson runs on a trained head of the model."""
        return self.projections.kind == "model"


def build_lesson(text: str, embedder: Embedder, settings: LessonSettings = LessonSettings()) -> Lesson:
    """Run the lesson pipeline on ``text``.

    Raises ValueError with a learner-readable message when the text has no tokens.

    >>> from attention_core import ToyEmbedder
    >>> lesson = build_lesson("the cat sat on the mat", ToyEmbedder(dim=8))
    >>> lesson.tokens
    ['the', 'cat', 'sat', 'on', 'the', 'mat']
    >>> lesson.trace.weights.shape, lesson.trace.q.shape
    ((6, 6), (6, 4))
    >>> bool(np.allclose(lesson.trace.weights.sum(axis=1), 1.0))
    True

    A long sentence is read through a window of ``max_tokens`` that the learner can move:

    >>> window = build_lesson("a b c d e f g", ToyEmbedder(dim=4), LessonSettings(max_tokens=3, first_piece=2))
    >>> window.tokens, window.first, window.n_tokens
    (['c', 'd', 'e'], 2, 7)

    On the default trained head (indices 1, 3: layer 2, head 4 on the pages), "she" looks at "girl":

    >>> from attention_core.model import ModelEmbedder
    >>> lesson = build_lesson("The boy thanked the girl because she had helped him", ModelEmbedder(),
    ...                       LessonSettings(projection="trained"))
    >>> lesson.tokens[:3], lesson.trace.d_k
    (['[CLS]', 'the', 'boy'], 32)
    >>> she = lesson.tokens.index("she")
    >>> lesson.tokens[int(lesson.trace.weights[she].argmax())]
    'girl'
    """
    if settings.projection not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}, got {settings.projection!r}")
    if settings.cjk not in CJK_MODES:
        raise ValueError(f"cjk must be one of {CJK_MODES}, got {settings.cjk!r}")
    if settings.max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {settings.max_tokens}")
    cleaned = clean_text(text)
    if not cleaned:
        raise ValueError("the sentence is empty: type at least one word")
    if settings.projection == "trained":
        return _trained_lesson(cleaned, embedder, settings)
    # Only embedders that tokenize with simple_tokenize take the CJK mode (the model has its own tokenizer).
    takes_cjk: Any = embedder  # an Embedder whose embed() also takes ``cjk`` (it says so with ``cjk_modes``)
    if getattr(embedder, "cjk_modes", False):
        embedding = takes_cjk.embed(cleaned, cjk=settings.cjk)
    else:
        embedding = embedder.embed(cleaned)
    t = min(len(embedding.tokens), settings.max_tokens)
    start = first_piece_shown(len(embedding.tokens), t, settings.first_piece)  # the window over a long text
    x = np.asarray(embedding.vectors[start : start + t], dtype=np.float64)  # (T, d_model)
    d_model = x.shape[1]
    embed_scale = float(np.sqrt(d_model))
    pe = sinusoidal_encoding(t, d_model) if settings.positional else np.zeros_like(x)  # (T, d_model)
    a = embed_scale * x + pe  # (T, d_model)
    if settings.projection == "identity":
        proj = identity_projections(d_model)
    else:
        proj = random_projections(d_model, settings.d_k, seed=settings.seed)
    trace = self_attention(a, proj, scale=None if settings.scaled else 1.0)
    return Lesson(
        text=cleaned,
        tokens=list(embedding.tokens[start : start + t]),
        n_tokens=len(embedding.tokens),
        unknown=tuple(i - start for i in embedding.unknown if start <= i < start + t),
        embedder_name=embedder.name,
        real_embeddings=bool(embedder.real),
        settings=settings,
        word_vectors=frozen(x),
        embed_scale=embed_scale,
        positional=frozen(pe, copy=False),
        inputs=frozen(a, copy=False),
        projections=proj,
        trace=trace,
        unknown_words=unknown_words(cleaned, embedder) if embedding.unknown else (),
        first=start,
    )


def _trained_lesson(text: str, embedder: Embedder, settings: LessonSettings) -> Lesson:
    """The lesson on head (settings.layer, settings.head) of the model behind ``embedder``."""
    if not isinstance(embedder, ModelEmbedder):
        raise ValueError("a trained head needs the model (ModelEmbedder), not an illustrative embedder")
    encoded = encode(text, name=embedder.name, max_pieces=settings.max_tokens, first_piece=settings.first_piece)
    projections = head_projections(settings.layer, settings.head, embedder.name)  # checks layer and head
    a = encoded.hidden[settings.layer]  # (T, d_model), the input of that layer
    trace = encoded.head(settings.layer, settings.head)  # the model's own computation
    if not settings.scaled:  # an experiment: the model's own q, k, v (the same bits), without ÷√d_k
        trace = scaled_dot_product_attention(trace.q, trace.k, trace.v, scale=1.0)
    embeddings = encoded.embeddings
    return Lesson(
        text=text,
        tokens=list(encoded.tokens),
        n_tokens=encoded.n_pieces + 2,
        unknown=encoded.unknown,
        embedder_name=embedder.name,
        real_embeddings=True,
        settings=settings,
        word_vectors=embeddings.word,
        embed_scale=1.0,
        positional=embeddings.position,
        inputs=a,
        projections=projections,
        trace=trace,
        unknown_words=unknown_words(text, embedder) if encoded.unknown else (),
        encoded=encoded,
        first=first_piece_shown(encoded.n_pieces, settings.max_tokens, settings.first_piece),
    )


MARKERS_LOWER = tuple(marker.lower() for marker in MARKERS)
"""``encoder_files.MARKERS`` as ``default_query`` compares them (tokens in lower case)."""

PRONOUNS = ("she", "he", "it", "her", "him", "they", "them")
"""Pronouns a lesson may open on: where a trained head has something to find."""


def default_query(tokens) -> int:
    """The query token a lesson opens on: the first pronoun (``PRONOUNS``), else the first
    token that is not a marker ([CLS], [SEP]; <s>, </s>: ``encoder_files.MARKERS``).

    >>> default_query(["[CLS]", "the", "girl", "was", "glad", "because", "she", "had", "helped", "him", "[SEP]"])
    6
    >>> default_query(["[CLS]", "hello", "[SEP]"]), default_query(["<s>", "hello", "</s>"])
    (1, 1)
    >>> default_query(["我", "爱", "猫"])
    0
    """
    tokens = [str(token).lower() for token in tokens]
    found = next((i for i, token in enumerate(tokens) if token in PRONOUNS), None)
    if found is not None:
        return found
    return next((i for i, token in enumerate(tokens) if token not in MARKERS_LOWER), 0)


def unknown_words(text: str, embedder: Embedder, limit: int = 200) -> tuple[str, ...]:
    """The words of ``text`` (``simple_tokenize`` pieces: words, single CJK characters,
    symbols) that ``embedder`` cannot represent, each once, in order of first appearance.

    An embedder like the real model's shows such a word only as "[UNK]"; this says which
    word it was. Each distinct piece is embedded on its own (at most ``limit`` of them).

    >>> from attention_core import ToyEmbedder
    >>> unknown_words("我爱猫", ToyEmbedder(dim=2))  # the toy embedder knows every token
    ()
    """
    found: list[str] = []
    seen: set[str] = set()
    for word in simple_tokenize(text)[:limit]:
        if word in seen:
            continue
        seen.add(word)
        try:
            if embedder.embed(word).unknown:
                found.append(word)
        except ValueError:  # nothing the tokenizer keeps (e.g. a lone control symbol)
            continue
    return tuple(found)


def unknown_texts(lesson: Lesson) -> dict[int, str]:
    """What each unknown token of ``lesson`` stands for: {index in ``lesson.tokens``: the
    learner's text it replaced}, from the model tokenizer's offsets, so that a list of tokens can
    read "2: [UNK] 他" where the model itself reads only "[UNK]". Empty for an embedder that knows
    every token (the toy one).

    >>> from attention_core.model import ModelEmbedder
    >>> lesson = build_lesson("他 is here", ModelEmbedder(), LessonSettings(projection="trained"))
    >>> lesson.tokens[:3], unknown_texts(lesson)
    (['[CLS]', '[UNK]', 'is'], {1: '他'})
    """
    if not lesson.unknown or not lesson.real_embeddings:
        return {}
    from .encoder import load_encoder

    encoding = load_encoder(lesson.embedder_name).tokenizer.encode(lesson.text, add_special_tokens=False)
    before = 1 if lesson.encoded is not None else 0  # a trained head's tokens begin with [CLS]
    found = {}
    for i in lesson.unknown:
        piece = lesson.first + i - before  # (0-based) among the whole text's word pieces
        if 0 <= piece < len(encoding.offsets):
            start, end = encoding.offsets[piece]
            found[i] = lesson.text[start:end]
    return found


def rms(x) -> float:
    """The root mean square of the numbers in ``x``: the typical size of one component.

    >>> rms([3.0, -4.0, 0.0, 0.0])
    2.5
    """
    x = np.asarray(x, dtype=np.float64)
    return float(np.sqrt(np.mean(x**2))) if x.size else 0.0


@dataclass(frozen=True)
class InputScales:
    """How large the parts of a_i = √d_model·x_i + PE_i are, as the root mean square of their
    components over the sentence (why the Transformer multiplies x_i by √d_model).

    word : rms of x_i, the embedder's word vectors
    scaled_word : rms of √d_model·x_i
    position : rms of PE_i (0 when the positional encoding is off)
    """

    word: float
    scaled_word: float
    position: float


def input_scales(lesson: Lesson) -> InputScales:
    """The sizes of x_i, √d_model·x_i and PE_i in ``lesson`` (a random or identity lesson).

    >>> from attention_core import ToyEmbedder
    >>> s = input_scales(build_lesson("the cat sat", ToyEmbedder(dim=8)))
    >>> round(s.scaled_word / s.word, 4), round(s.position, 4)  # √8 and √(1/2): sin² + cos² = 1
    (2.8284, 0.7071)
    """
    x = lesson.word_vectors
    return InputScales(word=rms(x), scaled_word=rms(lesson.embed_scale * x), position=rms(lesson.positional))


def mean_self_weight(weights) -> float:
    """The weight a token gives itself, α̂_ii, averaged over the T tokens: 1/T when attention
    is spread evenly, 1 when every token looks only at itself.

    >>> mean_self_weight([[0.9, 0.1], [0.3, 0.7]])
    0.8
    """
    w = np.asarray(weights, dtype=np.float64)  # (T, T)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or not w.size:
        raise ValueError(f"need a square (T, T) weight matrix, got shape {w.shape}")
    return float(np.trace(w) / w.shape[0])
