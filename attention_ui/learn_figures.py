"""Figures of "Watch a head learn": arrays in, go.Figure out. They draw; they never train or
compute attention (the numbers come from attention_core.learning).

The attention maps, the query–key matrices and one row's bars of this page are the shared
builders of ``figures`` (``heatmap_row``, ``heatmap``, ``key_bars``); what is drawn only here is
the training curves (loss and accuracy against the Adam updates) and a next-token distribution.

Like ``figures``, every builder takes ``tr`` (``tr("learn.<name>", **fields) -> str``) for the
words it draws, so the charts speak the learner's language.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .chart_theme import BLUE, ORANGE
from .figures import ENGLISH, MARGIN, OKABE_ITO, Translate, figure, panel_axes, panel_titles_px
from .safe import escape_label

LOSS = OKABE_ITO["blue"]
TRAIN_ACCURACY = OKABE_ITO["orange"]
HELD_OUT = OKABE_ITO["green"]
REFERENCE = "#666666"  # grey dashes: the loss of a uniform guess
MODEL_MARK = "#000000"  # the model's own probabilities (temperature 1) as black dashes
LEGEND_IN_LOSS_PANEL = {"x": 0.99, "xanchor": "right", "y": 0.95, "yanchor": "top"}
"""The loss panel's legend (the loss, the uniform guess), inside it at its top right, under the
uniform guess's line: where the loss is near 0 once learned and not drawn yet while training."""
LEGEND_IN_ACCURACY_PANEL = {"x": 0.99, "xanchor": "right", "y": 0.02, "yanchor": "bottom"}
"""The accuracy panel's legend (training batch, held-out examples), inside it at its bottom right:
where the accuracy is near 100 % once learned and not drawn yet while training. One legend per
panel, two entries each: the four entries in one legend filled a projector's short loss panel down
to the end of the finished loss curve. A legend outside the plot would make Plotly widen a margin
and draw the chart a second time (``margins`` leaves no room for legends)."""
SHOWN_FROM = 0.0005
"""A bar of a next-token distribution prints its value from this probability on ("0.1%"); the
many smaller ones would all print "0.0%" (the hover has every value)."""


def training_curves(
    loss,
    accuracy,
    *,
    total_steps: int,
    vocab_size: int,
    title: str,
    held_out_steps=(),
    held_out=(),
    plot_height: int = 440,
    tr: Translate = ENGLISH,
) -> go.Figure:
    """The training batch's loss (top panel) and accuracy (bottom) at each Adam update so far,
    on an x axis that already spans all ``total_steps`` updates (so a run in progress grows to
    the right), with the held-out accuracy after ``held_out_steps`` updates as diamonds and the
    loss of a uniform guess over ``vocab_size`` tokens, ln V, as grey dashes. The two panels
    take ``plot_height`` px with the axis title under them; the chart title adds its own room.

    ``loss[k]`` and ``accuracy[k]`` belong to update k + 1 (the batch's numbers before it).

    >>> fig = training_curves([2.2, 1.0], [0.1, 0.5], total_steps=10, vocab_size=9, title="t",
    ...                       held_out_steps=[0, 2], held_out=[0.12, 0.6])
    >>> list(fig.data[0].x), fig.layout.xaxis2.range, [trace.name for trace in fig.data]
    ([1, 2], (0, 10), ['loss', 'ln V: a uniform guess', 'training batch', 'held-out examples'])
    """
    loss = np.asarray(loss, dtype=np.float64)  # (steps,)
    accuracy = np.asarray(accuracy, dtype=np.float64)  # (steps,)
    steps = list(range(1, len(loss) + 1))  # update k + 1 for loss[k]
    layout = panel_axes(2, across=False, gap=0.14, titles=(tr("learn.fig_loss_panel"), tr("learn.fig_accuracy_panel")))
    uniform = math.log(vocab_size)
    hover = tr("learn.fig_hover_step", step="%{x}")
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": steps,
            "y": loss,
            "name": tr("learn.fig_loss_name"),
            "line": {"color": LOSS, "width": 2},
            "hovertemplate": hover + ": %{y:.4f}<extra>%{fullData.name}</extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": [0, total_steps],
            "y": [uniform, uniform],
            "name": tr("learn.fig_uniform_name"),
            "line": {"color": REFERENCE, "dash": "dash", "width": 1.5},
            "hovertemplate": f"ln {vocab_size} = {uniform:.4f}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": steps,
            "y": accuracy,
            "xaxis": "x2",
            "yaxis": "y2",
            "name": tr("learn.fig_train_name"),
            "legend": "legend2",
            "line": {"color": TRAIN_ACCURACY, "width": 2},
            "hovertemplate": hover + ": %{y:.1%}<extra>%{fullData.name}</extra>",
        },
    ]
    if len(held_out_steps):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": list(held_out_steps),
                "y": np.asarray(held_out, dtype=np.float64),
                "xaxis": "x2",
                "yaxis": "y2",
                "name": tr("learn.fig_held_out_name"),
                "legend": "legend2",
                "marker": {"color": HELD_OUT, "symbol": "diamond", "size": 10, "line": {"width": 1, "color": "white"}},
                "cliponaxis": False,  # the first and the last sit on the axis' ends
                "hovertemplate": hover + ": %{y:.1%}<extra>%{fullData.name}</extra>",
            }
        )
    top = max(uniform, float(loss.max()) if loss.size else uniform) * 1.08
    layout["xaxis"]["range"] = [0, total_steps]
    layout["xaxis2"] |= {"range": [0, total_steps], "title": {"text": tr("learn.fig_steps_axis")}}
    layout["yaxis"] |= {"range": [0, top], "title": {"text": tr("learn.fig_loss_axis")}}
    layout["yaxis2"] |= {"range": [0, 1.05], "tickformat": ".0%", "title": {"text": tr("learn.fig_accuracy_axis")}}
    above = 30 + panel_titles_px(layout)
    return figure(
        traces,
        title=title,
        title_above=above,
        height=plot_height + above,
        margin={**MARGIN, "t": MARGIN["t"] + above, "b": 20},
        legend=LEGEND_IN_LOSS_PANEL,
        legend2=LEGEND_IN_ACCURACY_PANEL,
        hovermode="x",
        **layout,
    )


def next_token_bars(
    sampling_probs, alphabet: str, *, chosen: int, title: str, probs=None, tr: Translate = ENGLISH
) -> go.Figure:
    """One next-token distribution: a bar per token of ``alphabet`` with the probability the
    token is drawn with (``sampling_probs``, the tempered softmax; the ``chosen`` token in
    orange; values under ``SHOWN_FROM`` left unprinted) and, given ``probs``, the model's own
    probabilities (temperature 1) as a black dash across each bar. No legend: the page says what
    the bars and the dashes are (a legend outside the plot would make Plotly draw it twice).

    >>> fig = next_token_bars([0.0, 1.0], "ab", chosen=1, title="t", probs=[0.3, 0.7])
    >>> fig.data[0].text, fig.data[0].marker.color, fig.data[1].y.tolist()
    (('', '100.0%'), ('#1f77b4', '#ff7f0e'), [0.3, 0.7])
    """
    sampling_probs = np.asarray(sampling_probs, dtype=np.float64)  # (V,)
    x = list(range(1, len(alphabet) + 1))
    labels = [escape_label(token) for token in alphabet]
    traces = [
        {
            "type": "bar",
            "x": x,
            "y": sampling_probs,
            "text": [f"{p:.1%}" if p >= SHOWN_FROM else "" for p in sampling_probs],
            "textposition": "outside",
            "cliponaxis": False,
            "name": tr("learn.fig_sampled_name"),
            "marker": {"color": [ORANGE if j == chosen else BLUE for j in range(len(alphabet))]},
            "customdata": labels,
            "hovertemplate": "%{customdata}: %{y:.4f}<extra>%{fullData.name}</extra>",
        }
    ]
    if probs is not None:
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": x,
                "y": np.asarray(probs, dtype=np.float64),  # (V,)
                "name": tr("learn.fig_model_name"),
                "marker": {"symbol": "line-ew", "size": 22, "line": {"color": MODEL_MARK, "width": 3}},
                "customdata": labels,
                "hovertemplate": "%{customdata}: %{y:.4f}<extra>%{fullData.name}</extra>",
            }
        )
    return figure(
        traces,
        title=title,
        height=340,
        showlegend=False,
        xaxis={"tickvals": x, "ticktext": labels, "title": {"text": tr("learn.fig_token_axis")}, "tickangle": 0},
        yaxis={"range": [0, 1.18], "tickformat": ".0%", "title": {"text": tr("learn.fig_probability_axis")}},
    )
