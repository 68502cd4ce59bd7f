"""Figures of the "What do heads do?" page: arrays in, go.Figure out. They draw the numbers
``attention_core.heads`` and ``attention_core.attribution`` measured; they compute nothing.

``census_grid`` colours all L × H heads by one measure, prints each head's score in its cell
and lays an invisible click target over every cell, so that a click on a head picks it
(``st.plotly_chart(on_select=...)``: a heatmap alone reports no clicks).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .figures import ENGLISH, Translate, click_targets, heatmap
from .notation import shown

CELL_TARGET_PX = 30
"""Size of a head's click target: about a cell of the grid on a phone, larger than Plotly's hover reach."""


def census_grid(scores, *, title: str, tr: Translate = ENGLISH) -> go.Figure:
    """Every head's score as one cell, in percent: rows are layers (1 at the top), columns heads,
    from 1. Whole percents ("98") need half the width of "0.98", so a 1024 px screen with the
    sidebar open still prints all 72.

    Parameters
    ----------
    scores : array_like, shape (n_layers, n_heads), values in [0, 1]
    title : str
    tr : the translator of the axis words

    Clicking a cell selects the invisible marker on it; ``customdata`` holds its (layer, head),
    0-based, for the page's callback.

    >>> fig = census_grid(np.full((2, 3), 0.5), title="previous token")
    >>> fig.data[0].type, fig.data[0].text[0][0], fig.data[1].type, list(fig.data[1].customdata[-1])
    ('heatmap', '50', 'scatter', [1, 2])
    """
    z = 100 * np.asarray(scores, dtype=np.float64)  # (L, H) in percent
    n_layers, n_heads = z.shape
    layers, heads = np.meshgrid(np.arange(n_layers), np.arange(n_heads), indexing="ij")  # (L, H) each
    target = click_targets(
        x=[shown(h) for h in heads.ravel()],
        y=[shown(layer) for layer in layers.ravel()],
        size=CELL_TARGET_PX,
        customdata=np.stack([layers.ravel(), heads.ravel()], axis=1),  # (L·H, 2)
    )
    return heatmap(
        z,
        [tr("figures.grid_layer", layer=shown(layer)) for layer in range(n_layers)],
        [str(shown(head)) for head in range(n_heads)],
        title=title,
        tr=tr,
        x_title=tr("figures.grid_heads_word"),
        zmin=0.0,
        zmax=100.0,
        digits=0,
        height=110 + 44 * n_layers,
        overlay=[target],
        clickmode="event+select",
        dragmode=False,
        hovermode="closest",
    )
