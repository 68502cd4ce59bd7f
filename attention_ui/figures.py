"""Plotly figure builders: arrays in, go.Figure out. They draw; they never compute attention.

Heatmaps use integer positions with tick labels (Plotly would merge repeated category
labels such as "the … the"), row 0 at the top, and the colour-blind-safe Cividis scale.

Every builder takes ``tr``, a function ``tr("figures.<name>", **fields) -> str`` that gives
the words it draws (axis titles, hover text) in the learner's language: pages pass
``attention_ui.i18n.t``, tests ``functools.partial(translate, "zh")``; without it they speak
English (``ENGLISH``). The builders stay pure (no Streamlit); titles arrive ready-made.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from .i18n import DEFAULT_LANG, translate
from .safe import escape_label, numbered_labels, token_labels

COLORSCALE = "Cividis"
TOKEN_COLORS = tuple(pc.qualitative.Safe)
"""One colour per key token in stacked bars: CARTO's "Safe" palette, chosen for colour-blind readers."""
DIVERGING = "RdBu_r"  # blue-red diverging, readable for red-green colour blindness
MAX_CELL_ROWS = 16  # print values in cells up to this many rows ...
MAX_CELL_COLS = 10  # ... and columns (more would run into each other in a half-width chart)
Translate = Callable[..., str]  # tr("figures.name", **fields) -> the text in the current language
ENGLISH: Translate = partial(translate, DEFAULT_LANG)  # the default tr, for callers outside a page


def _finite_text(z: np.ndarray, digits: int) -> list[list[str]]:
    return [["−∞" if np.isneginf(x) else f"{x:.{digits}f}" for x in row] for row in z]


def heatmap(z, row_labels, col_labels, *, title: str, tr: Translate = ENGLISH, x_title: str = "", y_title: str = "",
            stack_cjk: bool = False,
            diverging: bool = False, zmin=None, zmax=None, digits: int = 2, height: int | None = None) -> go.Figure:
    """A labelled heatmap of the 2-D array ``z`` (rows top to bottom).

    Labels are escaped here; pass raw text. Cell values are printed while the matrix is
    small enough to read; -inf (masked) cells show "−∞" and are left blank in colour.
    ``stack_cjk``: long rows of Chinese column labels become "index over token" (see _x_ticks)
    instead of tilted; ``token_matrix`` turns it on.
    """
    z = np.asarray(z, dtype=np.float64)  # (rows, cols)
    n_rows, n_cols = z.shape
    shown = np.where(np.isfinite(z), z, np.nan)  # (rows, cols)  -inf drawn as empty
    if diverging and zmin is None and zmax is None and np.isfinite(shown).any():
        bound = float(np.nanmax(np.abs(shown))) or 1.0
        zmin, zmax = -bound, bound
    trace = go.Heatmap(
        z=shown,
        x=list(range(n_cols)),
        y=list(range(n_rows)),
        colorscale=DIVERGING if diverging else COLORSCALE,
        zmin=zmin,
        zmax=zmax,
        hovertemplate=tr("figures.hover_cell", row="%{y}", column="%{x}")
        + ": %{z:.4f}<extra></extra>",
    )
    if n_rows <= MAX_CELL_ROWS and n_cols <= MAX_CELL_COLS:
        trace.text = _finite_text(z, digits)
        trace.texttemplate = "%{text}"
        trace.textfont = {"size": 13 if n_cols <= 6 else 10}
    fig = go.Figure(trace)
    fig.update_layout(
        title=title,
        height=height or max(260, 48 + 34 * n_rows),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    ticks, angle = _x_ticks([escape_label(c) for c in col_labels], stack_cjk=stack_cjk)
    fig.update_xaxes(tickvals=list(range(n_cols)), ticktext=ticks, title=x_title, side="bottom", tickangle=angle)
    fig.update_yaxes(tickvals=list(range(n_rows)), ticktext=[escape_label(r) for r in row_labels],
                     title=y_title, autorange="reversed")
    return fig


def _width(line: str) -> int:
    """Rough printed width of a label line: a CJK character counts as two Latin ones."""
    return sum(2 if ord(ch) > 0x2e7f else 1 for ch in line)


def _x_ticks(labels: list[str], budget: int = 60, stack_cjk: bool = True) -> tuple[list[str], int]:
    """Tick labels for a row of columns and their angle. Horizontal when they fit; else
    labels with CJK characters become two lines ("i: token" -> index over token), which keeps
    Chinese characters and words horizontal and readable; other long labels are tilted.

    >>> _x_ticks(["0: 我", "1: 爱"])
    (['0: 我', '1: 爱'], 0)
    >>> _x_ticks([f"{i}: 字" for i in range(14)])[0][10], _x_ticks([f"{i}: 字" for i in range(14)])[1]
    ('10<br>字', 0)
    """
    if len(labels) <= 8 or sum(_width(label) + 2 for label in labels) <= budget:
        return labels, 0
    if not stack_cjk or not any(ord(ch) > 0x2e7f for label in labels for ch in label):
        return labels, -45  # Latin labels read well tilted; CJK tilted is hard to read
    stacked = [label.replace(": ", "<br>", 1) for label in labels]
    if sum(max(_width(line) for line in label.split("<br>")) + 1 for label in stacked) <= budget * 1.2:
        return stacked, 0
    return labels, -45


def token_matrix(z, tokens_q, tokens_k, *, title: str, tr: Translate = ENGLISH, **kw) -> go.Figure:
    """A (T_q, T_k) attention matrix: rows = query token i, columns = key token j."""
    return heatmap(z, numbered_labels(tokens_q), numbered_labels(tokens_k), title=title, tr=tr,
                   y_title=tr("figures.query_axis"), x_title=tr("figures.key_axis"), stack_cjk=True, **kw)


def vectors_matrix(z, tokens, *, title: str, symbol: str, tr: Translate = ENGLISH, **kw) -> go.Figure:
    """A (T, d) matrix of one vector per token (Q, K, V, inputs, outputs)."""
    d = np.asarray(z).shape[1]
    return heatmap(z, numbered_labels(tokens), [f"{symbol}[{c}]" for c in range(d)], title=title, tr=tr,
                   y_title=tr("figures.token_axis"), diverging=True, **kw)


def weights_bar(weights, tokens, *, title: str, tr: Translate = ENGLISH, highlight: int | None = None,
                percent: bool = True) -> go.Figure:
    """One value per key token j as a bar: α̂_ij as percentages, or raw/scaled scores."""
    w = np.asarray(weights, dtype=np.float64)  # (T_k,)
    colors = ["#1f77b4" if j != highlight else "#ff7f0e" for j in range(len(w))]
    text = [f"{x:.1%}" for x in w] if percent else [f"{x:.3f}" for x in w]
    fig = go.Figure(go.Bar(x=list(range(len(w))), y=w, text=text, textposition="outside",
                           marker_color=colors,
                           hovertemplate=tr("figures.hover_key", j="%{x}") + ": %{y:.4f}<extra></extra>"))
    yaxis = ({"range": [0, max(1.0, float(w.max()) * 1.15)], "title": tr("figures.weight_axis")} if percent
             else {"title": tr("figures.score_axis")})
    fig.update_layout(title=title, height=340, yaxis=yaxis, margin={"l": 10, "r": 10, "t": 50, "b": 10})
    ticks, angle = _x_ticks(token_labels(tokens), budget=130)  # a full-width chart
    fig.update_xaxes(tickvals=list(range(len(w))), ticktext=ticks, title=tr("figures.key_axis_short"),
                     tickangle=angle)
    return fig


def contributions_bar(contributions, tokens, output, *, title: str, tr: Translate = ENGLISH) -> go.Figure:
    """Stacked bars: each component of b_i as the sum of α̂_ij v_j over key tokens j."""
    c = np.asarray(contributions, dtype=np.float64)  # (T_k, d_v)
    d_v = c.shape[1]
    fig = go.Figure()
    for j, label in enumerate(token_labels(tokens)):
        fig.add_trace(go.Bar(x=list(range(d_v)), y=c[j], name=label, marker_color=TOKEN_COLORS[j % len(TOKEN_COLORS)],
                             hovertemplate="%{fullData.name}: %{y:.4f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=list(range(d_v)), y=np.asarray(output), mode="markers+text",
                             name=tr("figures.output_marker"),
                             text=[f"{x:.3f}" for x in output], textposition="top center",
                             marker={"symbol": "diamond", "size": 12, "color": "black"}))
    fig.update_layout(barmode="relative", title=title, height=380, margin={"l": 10, "r": 10, "t": 50, "b": 10},
                      legend={"orientation": "h", "y": -0.2})
    fig.update_xaxes(tickvals=list(range(d_v)), ticktext=[f"b[{c_}]" for c_ in range(d_v)],
                     title=tr("figures.output_axis"))
    return fig
