"""Showing learner-typed text safely: never as HTML, never as Markdown or LaTeX."""

from __future__ import annotations

import html
import re

from .notation import shown

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$:])")


def escape_markdown(text: str) -> str:
    """Backslash-escape every Markdown/LaTeX-active character so text shows literally.

    >>> escape_markdown("**hi** $x$")
    '\\\\*\\\\*hi\\\\*\\\\* \\\\$x\\\\$'
    """
    return _MD_SPECIAL.sub(r"\\\1", text)


def escape_label(text: str) -> str:
    """Escape text for a Plotly label (Plotly renders a subset of HTML).

    >>> escape_label("<b>x</b>")
    '&lt;b&gt;x&lt;/b&gt;'
    """
    return html.escape(text, quote=False)


def numbered_labels(tokens: list[str]) -> list[str]:
    """Raw labels "i: token", counted from 1 (``notation.shown``), so repeated words stay
    distinguishable; for builders that escape their labels themselves (heatmaps.heatmap), and
    for selectboxes.

    >>> numbered_labels(["the", "<cat>", "the"])
    ['1: the', '2: <cat>', '3: the']
    """
    return [f"{shown(i)}: {t}" for i, t in enumerate(tokens)]


def token_labels(tokens: list[str]) -> list[str]:
    """``numbered_labels`` escaped for Plotly.

    >>> token_labels(["the", "<cat>", "the"])
    ['1: the', '2: &lt;cat&gt;', '3: the']
    """
    return numbered_labels([escape_label(t) for t in tokens])
