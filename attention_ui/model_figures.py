"""Figures of the "Real model heads" page: arrays in, go.Figure out. They draw; they never
compute attention (the weights come from attention_core.model).

The single-head matrices reuse ``figures.token_matrix`` / ``figures.key_bars``; this
module only adds the overview of every head of every layer.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .figures import COLORSCALE, ENGLISH, Translate, axis_suffix, domains
from .notation import FIRST, shown

SELECTED = "#ff7f0e"  # the same orange that figures.key_bars uses for its highlight
THUMB_PX = 66  # height of one thumbnail row, in pixels


def heads_grid(
    weights,
    *,
    title: str,
    tr: Translate = ENGLISH,
    selected: tuple[int, int] | None = None,
    first_layer: int = 0,
) -> go.Figure:
    """Every head's (T, T) weight matrix as a small heatmap: one row per layer, one column per head.

    Parameters
    ----------
    weights : array_like, shape (n_layers, n_heads, T, T)
        weights[l, h, i, j]: query token i (row, top to bottom) attends to key token j (column).
    title : str
    tr : ``tr("figures.<name>", **fields) -> str``, the words of the labels and hover text
    selected : (layer, head), optional
        Framed in orange; 0-based indices, the layer in the model's numbering (so at least
        ``first_layer``).
    first_layer : int
        The model layer (0-based index) of row 0, for the labels: ``weights[l:l + 1]`` with
        ``first_layer=l`` draws the heads of layer l alone.

    Every thumbnail shares one Cividis scale from 0 to 1, so colours compare across heads;
    the hover names the layer, head, query i, key j (each counted from 1, as on every page)
    and the weight. Trace ``n`` is layer
    ``n // n_heads``, head ``n % n_heads``. Thumbnails carry float32 (a colour needs no more;
    it halves what the browser receives); the single-head matrices carry full precision.

    The axes are laid out by hand rather than with plotly.subplots.make_subplots, which
    takes about a second for 72 subplots — on every rerun of the page.
    """
    w = np.asarray(weights, dtype=np.float64)  # (L, H, T, T)
    if w.ndim != 4 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"weights must have shape (n_layers, n_heads, T, T), got {w.shape}")
    n_layers, n_heads, t, _ = w.shape
    columns = domains(n_heads, 0.008)  # x domain of each head
    rows = domains(n_layers, 0.03)  # y domain of each layer, from the top
    traces, layout = [], {}
    hover = (
        tr("figures.grid_hover_head", layer="{layer}", head="{head}")
        + "<br>"
        + tr("figures.grid_hover_cell", i="%{{y}}", j="%{{x}}")
        + "<br>α̂ = %{{z:.3f}}<extra></extra>"
    )
    for layer in range(n_layers):
        y1, y0 = 1.0 - rows[layer][0], max(0.0, 1.0 - rows[layer][1])
        for h in range(n_heads):
            n = layer * n_heads + h + 1
            suffix = axis_suffix(n)
            traces.append(
                {  # a dict, not go.Heatmap: the Figure validates each trace once, not twice
                    "type": "heatmap",
                    "z": w[layer, h].astype(np.float32),  # (T, T)
                    "x0": FIRST,  # the hover's query i and key j count from 1
                    "y0": FIRST,
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                    "colorscale": COLORSCALE,
                    "zmin": 0.0,
                    "zmax": 1.0,
                    "showscale": n == 1,
                    "hovertemplate": hover.format(layer=shown(first_layer + layer), head=shown(h)),
                }
            )
            axis = {"showticklabels": False, "ticks": "", "showgrid": False, "zeroline": False}
            layout[f"xaxis{suffix}"] = {**axis, "domain": list(columns[h]), "anchor": f"y{suffix}"}
            layout[f"yaxis{suffix}"] = {**axis, "domain": [y0, y1], "anchor": f"x{suffix}", "autorange": "reversed"}
    labels = [
        {"text": tr("figures.grid_head", head=shown(h)), "x": (x0 + x1) / 2, "y": 1.0, "yanchor": "bottom"}
        for h, (x0, x1) in enumerate(columns)
    ]
    labels += [
        {
            "text": tr("figures.grid_layer", layer=shown(first_layer + layer)),
            "x": 0.0,
            "xanchor": "right",
            "y": 1.0 - (top + bottom) / 2,
        }
        for layer, (top, bottom) in enumerate(rows)
    ]
    layout["annotations"] = [
        {"xref": "paper", "yref": "paper", "showarrow": False, "font": {"size": 12}, **label} for label in labels
    ]
    if selected is not None:
        layer, h = selected
        n = (layer - first_layer) * n_heads + h + 1
        suffix = axis_suffix(n)
        layout["shapes"] = [
            {
                "type": "rect",
                "xref": f"x{suffix} domain",
                "yref": f"y{suffix} domain",
                "x0": -0.07,
                "x1": 1.07,
                "y0": -0.07,
                "y1": 1.07,
                "line": {"color": SELECTED, "width": 3},
            }
        ]
    traces[0]["colorbar"] = {"title": {"text": "α̂"}, "thickness": 12, "len": 0.5, "x": 1.01}
    layout.update(title=title, height=90 + THUMB_PX * n_layers, margin={"l": 60, "r": 40, "t": 80, "b": 10})
    return go.Figure(data=traces, layout=layout)
