"""Tokens to vectors: the Embedder protocol and a deterministic toy embedder.

An embedder turns a sentence into tokens and one word vector x_i per token. The lesson's
inputs are then a_i = x_i + PE_i (see ``inputs`` in ``lesson.py``). Two embedders exist:

* ``ModelEmbedder`` (in ``model.py``): the bundled all-MiniLM-L6-v2's own tokenizer and its
  word-embedding table (real, learned vectors, d = 384).
* ``ToyEmbedder`` (here): small random vectors derived from each token's text by a hash, for
  tests and for when the model cannot load. Illustrative only — it knows no meaning.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .text import simple_tokenize


@dataclass(frozen=True)
class Embedding:
    """A sentence as the model sees it.

    tokens : list of T token strings (as the tokenizer gives them)
    vectors : (T, d) word embeddings, one row per token
    unknown : indices of tokens the embedder could not represent (e.g. [UNK])
    """

    tokens: list[str]
    vectors: np.ndarray
    unknown: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or len(self.tokens) != self.vectors.shape[0]:
            raise ValueError(
                f"{len(self.tokens)} tokens but vectors of shape {self.vectors.shape}: need one row per token"
            )


class Embedder(Protocol):
    """What the lesson needs from an embedder (read-only: a frozen dataclass's fields qualify)."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def real(self) -> bool: ...  # True: learned vectors of a real model; False: illustrative

    def embed(self, text: str) -> Embedding: ...


class ToyEmbedder:
    """Deterministic pseudo-random word vectors, the same in every process and on every
    machine (seeded from a BLAKE2 hash of the lower-cased token, never Python's ``hash``).

    Same word → same vector, so "the … the" differ only by their positional encoding.

    >>> e = ToyEmbedder(dim=4).embed("the cat the")
    >>> e.tokens
    ['the', 'cat', 'the']
    >>> bool((e.vectors[0] == e.vectors[2]).all()), e.vectors.shape
    (True, (3, 4))
    """

    real = False
    cjk_modes = True  # build_lesson passes LessonSettings.cjk to embed(); the model's tokenizer has its own rules

    def __init__(self, dim: int = 8):
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        self.dim = dim
        self.name = f"toy-{dim}d"

    def vector(self, token: str) -> np.ndarray:
        """The (dim,) vector of one token, entries N(0, 1/dim) (|x| ≈ 1, like a learned table)."""
        digest = hashlib.blake2b(token.lower().encode("utf-8"), digest_size=8).digest()
        rng = np.random.default_rng(int.from_bytes(digest, "little"))
        return rng.normal(0.0, 1.0 / np.sqrt(self.dim), size=self.dim)  # (dim,)

    def embed(self, text: str, cjk: str = "chars") -> Embedding:
        """Tokens by ``simple_tokenize(text, cjk)`` and one vector per token.

        >>> ToyEmbedder(dim=2).embed("我爱猫").tokens
        ['我', '爱', '猫']
        """
        tokens = simple_tokenize(text, cjk=cjk)
        if not tokens:
            raise ValueError("the text has no tokens: type at least one word")
        vectors = np.stack([self.vector(t) for t in tokens])  # (T, dim)
        return Embedding(tokens=tokens, vectors=vectors)
