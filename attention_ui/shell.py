"""The names pages took from the shell before it was split by concern, where they live now.

The shell is ``route`` (the one route of a run, ``page_start``), ``sidebar``, ``model_access``
(which model, loaded how, what a page does without it), ``settings`` (the shared settings, the
language, links that carry them), ``lesson_notes`` (the honesty banner, unknown words, the window
over a long sentence) and ``registry`` (the pages). New code imports from those. This module
only keeps the five script pages (``registry.Page.script``) and code written against the old
shell importable until they import from there; then it goes.
"""

from __future__ import annotations

from attention_ui.lesson_notes import MAX_LISTED, honesty_banner, unknown_tokens_help
from attention_ui.model_access import (
    get_embedder,
    lesson_encoding,
    model_label_now,
    model_name,
    model_or_problem,
    model_unavailable,
)
from attention_ui.registry import PAGES
from attention_ui.route import page_start, run_app
from attention_ui.settings import DEFAULT_SENTENCE, DEFAULTS, link_params
from attention_ui.sidebar import choose_head, pickers_in_sidebar

NAV = [(entry.id, entry.icon) for entry in PAGES]
"""(page id, icon) of ``registry.PAGES``, as the old shell listed them."""

__all__ = [
    "DEFAULTS",
    "DEFAULT_SENTENCE",
    "MAX_LISTED",
    "NAV",
    "choose_head",
    "get_embedder",
    "honesty_banner",
    "lesson_encoding",
    "link_params",
    "model_label_now",
    "model_name",
    "model_or_problem",
    "model_unavailable",
    "page_start",
    "pickers_in_sidebar",
    "run_app",
    "unknown_tokens_help",
]
