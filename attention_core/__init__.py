"""attention_core: the NumPy maths of Attention Lab, every intermediate a named value.

    >>> import numpy as np
    >>> from attention_core import scaled_dot_product_attention, softmax
    >>> t = scaled_dot_product_attention(np.eye(2), np.eye(2), np.eye(2))
    >>> t.weights.sum(axis=-1)
    array([1., 1.])

Importing this package loads neither torch, sentence_transformers, streamlit nor plotly;
the real model's functions import torch only when called.
"""

from .attention import AttentionTrace, scaled_dot_product_attention, softmax
from .embeddings import Embedder, Embedding, ToyEmbedder
from .explain import TokenExplanation, explain
from .lesson import Lesson, LessonSettings, build_lesson
from .masks import causal_mask
from .multihead import MultiHeadResult, merge_heads, multi_head_attention, split_heads
from .positional import sinusoidal_encoding
from .projections import (
    Projections,
    cross_attention,
    identity_projections,
    make_projections,
    project,
    random_projections,
    self_attention,
)
from .similarity import SIMILARITIES, cosine_similarity, dot_similarity, scaled_dot_similarity
from .text import MAX_CHARS, MAX_TOKENS, clean_text, simple_tokenize


def model_attention(text: str, layer: int, head: int, **kwargs):
    """A real model's head recomputed by our own attention code; see ``model.model_attention``."""
    from .model import model_attention as _model_attention

    return _model_attention(text, layer, head, **kwargs)


__all__ = [
    "AttentionTrace",
    "scaled_dot_product_attention",
    "softmax",
    "Embedder",
    "Embedding",
    "ToyEmbedder",
    "TokenExplanation",
    "explain",
    "Lesson",
    "LessonSettings",
    "build_lesson",
    "causal_mask",
    "MultiHeadResult",
    "merge_heads",
    "multi_head_attention",
    "split_heads",
    "sinusoidal_encoding",
    "Projections",
    "cross_attention",
    "identity_projections",
    "make_projections",
    "project",
    "random_projections",
    "self_attention",
    "SIMILARITIES",
    "cosine_similarity",
    "dot_similarity",
    "scaled_dot_similarity",
    "MAX_CHARS",
    "MAX_TOKENS",
    "clean_text",
    "simple_tokenize",
    "model_attention",
]
