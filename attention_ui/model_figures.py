"""Figures of the "Real model heads" page: arrays in, go.Figure out. They draw; they never
compute attention (the weights come from attention_core.model).

The single-head matrices reuse ``heatmaps.token_matrix`` / ``vector_figures.key_bars``; this
module only adds the overview of every head of every layer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from .chart_theme import ORANGE
from .figures import ENGLISH, Translate, click_targets, figure
from .heatmaps import COLORSCALE
from .notation import shown

SELECTED = ORANGE  # the same orange that vector_figures.key_bars uses for its highlight
THUMB_PX = 72  # height of one thumbnail row, in pixels
WRAPPED_THUMB_PX = 150
"""... and of a row of a wrapped grid (``heads_grid(per_row=)``): six heads of a 1024 px projector are
about 130 px wide; the head numbers take the rest."""
HEAD_MIN_PX = 60
"""The narrowest a thumbnail is drawn (px): a 15-word sentence's weights still show their pattern.
Where the page is narrower than ``grid_min_width`` the grid scrolls sideways (its ``min_width``):
at 1400 px with the sidebar open twelve heads had about 50 px each, on a phone slivers."""
GRID_MARGIN_PX = 140
"""The grid's margins left and right once drawn: the layer names, and the colour bar that
``margins.fit_margins`` makes room for."""
FRAME_HIDDEN = "rgba(0,0,0,0)"  # the frames of heads_grid, until a style colours one SELECTED


def frame_index(layer: int, head: int, n_heads: int, first_layer: int = 0) -> int:
    """Which of ``heads_grid``'s frames surrounds head ``head`` of ``layer`` (0-based, the layer
    in the model's numbering): its shape's index, layer by layer, then head by head.

    >>> frame_index(5, 11, 12), frame_index(5, 11, 12, first_layer=5)
    (71, 11)
    """
    return (layer - first_layer) * n_heads + head


def grid_min_width(n_heads: int) -> int:
    """The width (px) below which ``heads_grid``'s ``n_heads`` columns scroll sideways rather than
    shrink: ``HEAD_MIN_PX`` per thumbnail and the margins (the chart's ``min_width``).

    >>> grid_min_width(12), grid_min_width(3)
    (860, 320)
    """
    return n_heads * HEAD_MIN_PX + GRID_MARGIN_PX


def grid_gap(t: int) -> int:
    """Empty cells between two thumbnails of ``heads_grid``: about an eighth of a thumbnail.

    >>> grid_gap(8), grid_gap(40)
    (1, 5)
    """
    return max(1, t // 8)


def heads_grid(
    weights,
    *,
    title: str,
    tr: Translate = ENGLISH,
    first_layer: int = 0,
    per_row: int | None = None,
) -> go.Figure:
    """Every head's (T, T) weight matrix as a thumbnail: one row per layer, one column per head.

    Parameters
    ----------
    weights : array_like, shape (n_layers, n_heads, T, T)
        weights[l, h, i, j]: query token i (row, top to bottom) attends to key token j (column).
    title : str
    tr : ``tr("figures.<name>", **fields) -> str``, the words of the labels and hover text
    first_layer : int
        The model layer (0-based index) of row 0, for the labels: ``weights[l:l + 1]`` with ``first_layer=l``
        draws the heads of layer l alone.
    per_row : int, optional
        At most this many heads side by side: a layer's heads wrap into ``ceil(H / per_row)``
        rows, each head numbered above its own thumbnail (a projector shows the 12 heads of one
        layer as two rows of 6, each about twice as wide as in one row). By default all H in one row.

    The thumbnails are blocks of ONE heatmap, ``grid_gap(T)`` empty (NaN) cells apart: head h
    of layer l fills rows ``l·(T+gap) … +T`` and columns ``h·(T+gap) … +T``. Chromium draws
    one heatmap several times faster than 72 subplots (docs/benchmarks.md, ``bench_draw``).
    An invisible click target sits on every thumbnail (``figures.click_targets``, ``customdata``
    = (layer, head) in the model's numbering, 0-based), so a click on a head can choose it.
    Every thumbnail has a frame, drawn transparent: the page colours the selected head's one
    with a style (``frame_index``, ``style.show_selected_frame``), so that picking another head
    changes a style and not the figure, and Streamlit does not draw the grid again.
    One Cividis scale from 0 to 1, so colours compare across heads. Heads are numbered along
    the top edge (the word "head" sits above the layer names: numbers alone fit a phone) and
    layers along the left edge; the hover names the layer, head, query i, key j and the weight. The thumbnails carry
    float32 (a colour needs no more); the single-head matrices carry full precision.
    """
    w = np.asarray(weights, dtype=np.float64)  # (L, H, T, T)
    if w.ndim != 4 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"weights must have shape (n_layers, n_heads, T, T), got {w.shape}")
    n_layers, n_heads, t, _ = w.shape
    per_row = min(per_row or n_heads, n_heads)
    bands = -(-n_heads // per_row)  # rows of thumbnails per layer
    wrapped = bands > 1
    gap = grid_gap(t)
    step = t + gap  # one thumbnail and the gap after it
    band_gap = 2 * gap + 2 if wrapped else 0  # a wrapped row's head numbers sit in the space above it
    band_step = step + band_gap

    def place(layer: int, h: int) -> tuple[int, int]:
        """The first row and column of head h of ``layer``'s thumbnail in z."""
        return (layer * bands + h // per_row) * band_step + band_gap, (h % per_row) * step

    order = [(layer, h) for layer in range(n_layers) for h in range(n_heads)]  # frame_index order
    corners = [place(layer, h) for layer, h in order]
    z = np.full((n_layers * bands * band_step - gap, per_row * step - gap), np.nan, dtype=np.float32)  # (rows, cols)
    for (layer, h), (r, c) in zip(order, corners):
        z[r : r + t, c : c + t] = w[layer, h]  # (T, T)

    # Category names say in the hover which cell it is; gaps get distinct blanks. One row of heads a
    # layer: the row's name gives the layer and i, the column's the head and j. Wrapped, a column
    # holds several heads: the head goes into each cell's hover text.
    def names(count: int, block, index: str, offset: int, period: int) -> list[str]:
        return [
            f"{block(n // period)} · {index} = {shown((n - offset) % period)}"
            if 0 <= (n - offset) % period < t
            else " " * (n + 1)
            for n in range(count)
        ]  # query i and key j counted from 1, as on every page

    rows = names(
        z.shape[0], lambda band: tr("figures.grid_layer", layer=shown(first_layer + band // bands)), "i", band_gap,
        band_step,
    )  # fmt: skip
    cols = names(z.shape[1], lambda h: "" if wrapped else tr("figures.grid_head", head=shown(h)), "j", 0, step)
    if wrapped:  # "j = 3" in every column of heads, "layer 2 · i = 3" in every row: a category axis
        # needs each name once (zero-width spaces tell them apart)
        cols = [name.removeprefix(" · ") + "\u200b" * (n // step) for n, name in enumerate(cols)]
        rows = [name + "\u200b" * (n // band_step) for n, name in enumerate(rows)]
    trace = {
        "type": "heatmap",
        "z": z,
        "x": cols,
        "y": rows,
        "colorscale": COLORSCALE,
        "zmin": 0.0,
        "zmax": 1.0,
        "hoverongaps": False,
        "hovertemplate": "%{y}<br>%{x}<br>α̂ = %{z:.3f}<extra></extra>",
        "colorbar": {"title": {"text": "α̂"}, "thickness": 12, "len": 0.5 if n_layers > 2 else 1.0, "x": 1.01},
    }
    if wrapped:
        heads = np.full(z.shape, "", dtype=object)  # (rows, cols): each thumbnail's cells name its head
        for (_, h), (r, c) in zip(order, corners):
            heads[r : r + t, c : c + t] = tr("figures.grid_head", head=shown(h))
        trace["text"] = heads.tolist()
        trace["hovertemplate"] = "%{y}<br>%{text} · %{x}<br>α̂ = %{z:.3f}<extra></extra>"
    middle = (t - 1) / 2  # a thumbnail's centre, in cells from its first one
    centre = t // 2  # the cell nearest to it, whose category names place a click target
    targets = click_targets(
        x=[cols[c + centre] for _, c in corners],
        y=[rows[r + centre] for r, _ in corners],
        size=max(12, int(0.8 * THUMB_PX)),
        customdata=[[first_layer + layer, h] for layer, h in order],
    )
    heads_word = {  # "head" above the layer names; the heads' numbers alone above their columns (a phone fits them)
        "text": tr("figures.grid_heads_word"),
        "xref": "paper",
        "x": 0.0,
        "xanchor": "right",
        "yref": "paper",
        "y": 1.0,
        "yanchor": "bottom",
    }
    labels = []
    if wrapped:  # each thumbnail's number in the space above it (the title says they are heads)
        labels += [
            {"text": str(shown(h)), "xref": "x", "x": c + middle, "yref": "y", "y": r - 0.5, "yanchor": "bottom"}
            for (r, c), (_, h) in zip(corners, order)
        ]
    else:
        labels += [heads_word] + [
            {"text": str(shown(h)), "xref": "x", "x": h * step + middle, "yref": "paper", "y": 1.0, "yanchor": "bottom"}
            for h in range(n_heads)
        ]
    labels += [
        {
            "text": tr("figures.grid_layer", layer=shown(first_layer + layer)),
            "xref": "paper",
            "x": 0.0,
            "xanchor": "right",
            "yref": "y",
            "y": place(layer, 0)[0] + middle,
        }
        for layer in range(n_layers)
    ]
    axis = {"showticklabels": False, "ticks": "", "showgrid": False, "zeroline": False, "type": "category"}
    layout: dict[str, Any] = {
        "xaxis": axis,
        "yaxis": {**axis, "autorange": "reversed"},
        "annotations": [{"showarrow": False, "font": {"size": 12}, **label} for label in labels],
    }
    pad = 0.5 + gap / 2  # a frame runs through the middle of the gap around its thumbnail
    layout["shapes"] = [  # in frame_index order: layer by layer, head by head
        {
            "type": "rect",
            "xref": "x",
            "yref": "y",
            "x0": c - pad,
            "x1": c + t - 1 + pad,
            "y0": r - pad,
            "y1": r + t - 1 + pad,
            "line": {"color": FRAME_HIDDEN, "width": 3},
        }
        for r, c in corners
    ]
    return figure(
        [trace, targets],
        title=title,
        height=90 + (WRAPPED_THUMB_PX if wrapped else THUMB_PX) * n_layers * bands,
        clickmode="event+select",
        dragmode=False,
        hovermode="closest",
        margin={"l": 60, "r": 40, "t": 80, "b": 10},
        min_width=grid_min_width(per_row),  # narrower, it scrolls sideways
        **layout,
    )
