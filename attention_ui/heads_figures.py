"""Figures of the "What do heads do?" page: arrays in, go.Figure out. They draw the numbers
``attention_core.heads`` and ``attention_core.attribution`` measured; they compute nothing.

``census_grid`` colours all L × H heads by one measure, prints each head's score in its cell
and lays an invisible click target over every cell, so that a click on a head picks it
(``st.plotly_chart(on_select=...)``: a heatmap alone reports no clicks). A measure with a chance
level (he/she: 50 %) is coloured by its distance from chance, so that a head far below it reads
as a job done backwards, not as "the worst". ``outcome_grid`` shows the contrast test of one
pair: in how many of its two sentences each head prefers the meant noun (0, 1, 2).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .figures import ENGLISH, Translate, click_targets
from .heatmaps import heatmap
from .notation import shown
from .vector_figures import key_bars

CELL_TARGET_PX = 30
"""Size of a head's click target: about a cell of the grid on a phone, larger than Plotly's hover reach."""


def _grid(z, *, title: str, tr: Translate, digits: int, **colours) -> go.Figure:
    """One cell per head (rows layers, columns heads, from 1) with a click target over each,
    never drawn narrower than its printed scores need: a phone scrolls it sideways, every number
    readable, rather than shrinking it to a 135 px picture without numbers (``Chart.min_width``)."""
    n_layers, n_heads = z.shape
    layers, heads = np.meshgrid(np.arange(n_layers), np.arange(n_heads), indexing="ij")  # (L, H) each
    target = click_targets(
        x=[shown(h) for h in heads.ravel()],
        y=[shown(layer) for layer in layers.ravel()],
        size=CELL_TARGET_PX,
        customdata=np.stack([layers.ravel(), heads.ravel()], axis=1),  # (L·H, 2)
    )
    fig = heatmap(
        z,
        [tr("figures.grid_layer", layer=shown(layer)) for layer in range(n_layers)],
        [str(shown(head)) for head in range(n_heads)],
        title=title,
        tr=tr,
        x_title=tr("figures.grid_heads_word"),
        digits=digits,
        height=110 + 44 * n_layers,
        **colours,
        overlay=[target],
        clickmode="event+select",
        dragmode=False,
        hovermode="closest",
    )
    fig.min_width = fig.numbers_px
    return fig


def census_grid(scores, *, title: str, chance: float | None = None, tr: Translate = ENGLISH) -> go.Figure:
    """Every head's score as one cell, in percent: rows are layers (1 at the top), columns heads,
    from 1. Whole percents ("98") need half the width of "0.98", so a 1024 px screen with the
    sidebar open still prints all 72.

    Parameters
    ----------
    scores : array_like, shape (n_layers, n_heads), values in [0, 1]
    title : str
    chance : the score of a head blind to the job, 0.5 or None: given, the colours diverge from
        it (white at chance, red above, blue below: a head far below chance does the job
        reversed); None, one colour scale from 0 to 100
    tr : the translator of the axis words

    Clicking a cell selects the invisible marker on it; ``customdata`` holds its (layer, head),
    0-based, for the page's callback.

    >>> fig = census_grid(np.full((2, 3), 0.5), title="previous token")
    >>> fig.data[0].type, fig.data[0].text[0][0], fig.data[1].type, list(fig.data[1].customdata[-1])
    ('heatmap', '50', 'scatter', [1, 2])
    >>> census_grid(np.zeros((2, 3)), title="he/she", chance=0.5).data[0].colorscale[0][1]
    'rgb(5,48,97)'
    """
    z = 100 * np.asarray(scores, dtype=np.float64)  # (L, H) in percent
    if chance is not None and chance != 0.5:
        raise ValueError(f"a chance level other than 0.5 cannot be the middle of 0 … 100, got {chance}")
    return _grid(z, title=title, tr=tr, digits=0, zmin=0.0, zmax=100.0, diverging=chance is not None)


def outcome_grid(n_right, *, title: str, tr: Translate = ENGLISH) -> go.Figure:
    """The contrast test of one pair, every head: in how many of the two sentences (0, 1, 2) it
    prefers the meant noun, printed in its cell; 2 (red) resolves the pair, 0 (blue) is reversed.

    >>> fig = outcome_grid(np.array([[0, 1, 2]]), title="t")
    >>> list(fig.data[0].text[0]), (fig.data[0].zmin, fig.data[0].zmax)
    (['0', '1', '2'], (0.0, 2.0))
    """
    z = np.asarray(n_right, dtype=np.float64)  # (L, H) in 0, 1, 2
    fig = _grid(z, title=title, tr=tr, digits=0, zmin=0.0, zmax=2.0, diverging=True)
    return fig.update_traces(colorbar={"tickvals": [0, 1, 2]}, selector={"type": "heatmap"})  # no 0.5 or 1.5


WORD_KEYS = {"figures.key_axis_short": "heads.word_axis", "figures.hover_key": "heads.hover_word"}
"""The words of ``key_bars`` that name a key token, and the ones that name a word instead."""


def word_bars(weights, words, *, title: str, highlight: int | None = None, tr: Translate = ENGLISH) -> go.Figure:
    """One word's row of the contrast test: a bar per word of the sentence (word pieces summed),
    its weight in percent; ``key_bars`` with the axis and hover naming words, not tokens.

    >>> fig = word_bars([0.2, 0.8], ["the", "widower"], title="t")
    >>> fig.layout.xaxis.title.text, fig.data[0].text
    ('word of the sentence', ('20.0%', '80.0%'))
    """
    return key_bars(
        weights, words, title=title, highlight=highlight, tr=lambda key, **f: tr(WORD_KEYS.get(key, key), **f)
    )
