"""Cross attention on a trained lesson: the model's hidden states with other W^Q, W^K, W^V.

The bundled model is an encoder: each of its heads reads one sentence, so it has no
cross-attention head. The "Self vs cross attention" page therefore keeps what a trained lesson
reads, the hidden states entering the chosen layer with [CLS] and [SEP] in place (token i is
token i on every other page), and gives both sentences the same seeded random W^Q, W^K, W^V.
``with_projections`` swaps the projections of one lesson; ``projections.cross_attention`` then
lets the two sentences meet.
"""

from __future__ import annotations

from dataclasses import replace

from .lesson import Lesson
from .projections import Projections, self_attention

SETTING = {"model": "trained", "random": "random", "identity": "identity"}
"""``Projections.kind`` → the ``LessonSettings.projection`` that names it."""


def with_projections(lesson: Lesson, projections: Projections) -> Lesson:
    """``lesson`` with its tokens and inputs kept and ``projections`` in place of its W^Q, W^K,
    W^V: its self-attention recomputed on the same inputs, divided by √d_k or not as before.

    >>> import numpy as np
    >>> from attention_core import ToyEmbedder, build_lesson
    >>> from attention_core.projections import identity_projections
    >>> lesson = build_lesson("the cat sat", ToyEmbedder(dim=8))
    >>> other = with_projections(lesson, identity_projections(8))
    >>> other.tokens == lesson.tokens, other.settings.projection, other.trace.weights.shape
    (True, 'identity', (3, 3))
    >>> bool(np.array_equal(other.trace.q, lesson.inputs))
    True
    """
    if projections.d_model != lesson.inputs.shape[1]:
        raise ValueError(f"W^Q has {projections.d_model} rows but the inputs have {lesson.inputs.shape[1]} columns")
    trace = self_attention(lesson.inputs, projections, scale=None if lesson.settings.scaled else 1.0)
    settings = replace(lesson.settings, projection=SETTING[projections.kind])
    return replace(lesson, projections=projections, trace=trace, settings=settings)
