"""The whole lesson for one sentence, in the order it is taught.

sentence → tokens → word vectors x (T, d_model) → inputs a = √d_model·x + PE (T, d_model)
→ q, k (T, d_k), v (T, d_v) → scores (T, T) → scaled → weights → outputs (T, d_v)

Pages call ``build_lesson`` once and show its fields; they never compute anything.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import AttentionTrace
from .embeddings import Embedder
from .positional import sinusoidal_encoding
from .projections import Projections, identity_projections, random_projections, self_attention
from .text import CJK_MODES, MAX_TOKENS, clean_text, simple_tokenize


@dataclass(frozen=True)
class LessonSettings:
    """What the learner can change in the sidebar.

    d_k : size of queries and keys (ignored with identity projections, where d_k = d_model)
    projection : "random" (seeded W^Q/W^K/W^V) or "identity" (q = k = v = a)
    seed : seed of the random W^Q/W^K/W^V
    scaled : divide the scores by √d_k (True) or not
    positional : add the sinusoidal positional encoding (True) or not
    max_tokens : longest sentence shown
    cjk : how the toy embedder cuts Chinese text: "chars" (one token per character) or
        "words" (rjieba's words); the real model always uses its own tokenizer
    """

    d_k: int = 4
    projection: str = "random"
    seed: int = 0
    scaled: bool = True
    positional: bool = True
    max_tokens: int = MAX_TOKENS
    cjk: str = "chars"


@dataclass(frozen=True)
class Lesson:
    """Every quantity of the lesson for one sentence.

    tokens : the T tokens shown (after truncation)
    n_tokens : how many tokens the whole sentence had
    unknown : indices of tokens the embedder could not represent
    word_vectors : (T, d_model) x_i, the embedder's vectors
    embed_scale : √d_model, the factor on x_i before adding PE (as in the Transformer paper)
    positional : (T, d_model) PE_i (zeros when switched off)
    inputs : (T, d_model) a_i = embed_scale·x_i + PE_i
    projections : W^Q, W^K, W^V
    trace : the attention computation on ``inputs``
    unknown_words : the learner's words (single characters for Chinese) that the embedder
        turned into unknown tokens, in order of first appearance — what "[UNK]" stands for
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

    @property
    def truncated(self) -> bool:
        return self.n_tokens > len(self.tokens)


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
    """
    if settings.projection not in ("random", "identity"):
        raise ValueError(f"projection must be 'random' or 'identity', got {settings.projection!r}")
    if settings.cjk not in CJK_MODES:
        raise ValueError(f"cjk must be one of {CJK_MODES}, got {settings.cjk!r}")
    if settings.max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {settings.max_tokens}")
    cleaned = clean_text(text)
    if not cleaned:
        raise ValueError("the sentence is empty: type at least one word")
    # Only embedders that tokenize with simple_tokenize take the CJK mode (the model has its own tokenizer).
    embedding = (
        embedder.embed(cleaned, cjk=settings.cjk) if getattr(embedder, "cjk_modes", False) else embedder.embed(cleaned)
    )
    t = min(len(embedding.tokens), settings.max_tokens)
    x = np.asarray(embedding.vectors[:t], dtype=np.float64)  # (T, d_model)
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
        tokens=list(embedding.tokens[:t]),
        n_tokens=len(embedding.tokens),
        unknown=tuple(i for i in embedding.unknown if i < t),
        embedder_name=embedder.name,
        real_embeddings=bool(embedder.real),
        settings=settings,
        word_vectors=x,
        embed_scale=embed_scale,
        positional=pe,
        inputs=a,
        projections=proj,
        trace=trace,
        unknown_words=unknown_words(cleaned, embedder) if embedding.unknown else (),
    )


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
