"""Figures of the "Self vs cross attention" and "Multi-head and masks" pages: arrays and
(already translated) titles in, go.Figure out. They draw; they never compute attention.
Like
``heatmaps.heatmap`` they take ``tr`` (pages pass ``attention_ui.i18n.t``) for the words
drawn inside a chart (the hover text).

Every builder reuses ``heatmaps.heatmap`` (integer positions, escaped labels, "−∞" for masked
cells, values printed while the matrix is small) and only adds what these pages need: axis
titles passed in by the page (so they can be translated), head boundaries on a
concatenated matrix, and a two-colour mask.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .axes import HALF_WIDTH_LABELS_PX
from .figures import Translate
from .heatmaps import BOUNDARY, heatmap
from .i18n import translate as _translate
from .notation import FIRST, component_labels, shown
from .safe import escape_label, numbered_labels


def _en(key: str, **fields) -> str:  # for the doctests
    return _translate("en", key, **fields)


MASK_COLORS = [[0.0, "#e6e6e6"], [1.0, "#2a6fb0"]]  # 0 = blocked (light grey), 1 = allowed (blue)


def attention_map(z, tokens_q, tokens_k, *, title: str, y_title: str, x_title: str, tr: Translate, **kw) -> go.Figure:
    """A (T_q, T_k) attention matrix: rows = query tokens (top to bottom), columns = key tokens.

    Rectangular when the queries and the keys come from different sentences.

    >>> fig = attention_map(np.zeros((2, 3)), ["a", "b"], ["x", "y", "z"], title="t", y_title="q", x_title="k", tr=_en)
    >>> len(fig.layout.yaxis.ticktext), len(fig.layout.xaxis.ticktext)
    (2, 3)
    """
    z = np.asarray(z, dtype=np.float64)  # (T_q, T_k)
    if z.shape != (len(tokens_q), len(tokens_k)):
        raise ValueError(f"matrix of shape {z.shape} for {len(tokens_q)} query and {len(tokens_k)} key tokens")
    return heatmap(
        z,
        numbered_labels(tokens_q),
        numbered_labels(tokens_k),
        title=title,
        y_title=y_title,
        x_title=x_title,
        tr=tr,
        labels_room=HALF_WIDTH_LABELS_PX,  # a half-width column
        **kw,
    )


def vectors_map(z, tokens, *, title: str, y_title: str, tr: Translate, symbol: str = "b", **kw) -> go.Figure:
    """A (T, d) matrix of one vector per token (e.g. the outputs b_i), columns b[1] … b[d]."""
    z = np.asarray(z, dtype=np.float64)  # (T, d)
    return heatmap(
        z,
        numbered_labels(tokens),
        component_labels(symbol, z.shape[1]),
        title=title,
        y_title=y_title,
        tr=tr,
        diverging=True,
        **kw,
    )


def concatenated_heads(
    outputs, tokens, n_heads: int, *, title: str, y_title: str, head_labels, tr: Translate, **kw
) -> go.Figure:
    """The heads' outputs side by side, (T, H·d_v), with a white line between heads and the
    head's name above its block of columns.

    ``head_labels`` holds one name per head (e.g. "head 1", "head 2"). Column c (0-based)
    belongs to head c // d_v and is that head's component c % d_v; heads and components are
    named as shown, from 1 ("1·b[1]", "1·b[2]" …, "2·b[1]" …).

    >>> fig = concatenated_heads(np.zeros((2, 6)), ["a", "b"], 3, title="t", y_title="", head_labels=["h1", "h2", "h3"],
    ...                          tr=_en)
    >>> [a.text for a in fig.layout.annotations], len(fig.layout.shapes)
    (['h1', 'h2', 'h3'], 2)
    """
    z = np.asarray(outputs, dtype=np.float64)  # (T, H·d_v)
    t, width = z.shape
    if n_heads < 1 or width % n_heads or len(head_labels) != n_heads:
        raise ValueError(f"{width} columns cannot be {n_heads} equal heads named {list(head_labels)}")
    d_v = width // n_heads
    columns = [f"{shown(h)}·{label}" for h in range(n_heads) for label in component_labels("b", d_v)]
    fig = heatmap(z, numbered_labels(tokens), columns, title=title, y_title=y_title, tr=tr, diverging=True, **kw)
    # Set on the built figure in one assignment each: add_vline / add_annotation per head
    # re-validate the whole layout every call (several times the heatmap's own cost).
    fig.layout.shapes = [
        {
            "type": "line",
            "x0": FIRST + h * d_v - 0.5,  # the columns sit at FIRST, FIRST + 1, … (axes.positions)
            "x1": FIRST + h * d_v - 0.5,
            "xref": "x",
            "y0": 0,
            "y1": 1,
            "yref": "y domain",
            "line": {"color": BOUNDARY, "width": 4},
        }
        for h in range(1, n_heads)
    ]
    fig.layout.annotations = [
        {
            "x": FIRST + h * d_v + (d_v - 1) / 2,
            "y": 1.0,
            "yref": "paper",
            "yanchor": "bottom",
            "showarrow": False,
            "text": escape_label(head_labels[h]),
            "font": {"size": 14},
        }
        for h in range(n_heads)
    ]
    fig.layout.margin.t = 80
    return fig


def mask_map(mask, tokens, *, title: str, y_title: str, x_title: str, tr: Translate, **kw) -> go.Figure:
    """A boolean (T_q, T_k) mask as 1 (may attend, blue) and 0 (blocked, grey), no colour bar.

    >>> fig = mask_map(np.tril(np.ones((2, 2), dtype=bool)), ["a", "b"], title="m", y_title="", x_title="",
    ...                tr=_en)
    >>> fig.data[0].text
    (['1', '0'], ['1', '1'])
    """
    m = np.asarray(mask, dtype=bool)  # (T_q, T_k)
    fig = attention_map(
        m.astype(np.float64),
        tokens,
        tokens,
        title=title,
        y_title=y_title,
        x_title=x_title,
        tr=tr,
        zmin=0.0,
        zmax=1.0,
        digits=0,
        **kw,
    )
    fig.data[0].update(colorscale=MASK_COLORS, showscale=False, xgap=1, ygap=1)
    return fig
