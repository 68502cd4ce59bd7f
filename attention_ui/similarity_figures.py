"""Figures of the "Similarity measures" page: arrays in, go.Figure out. They draw; they never
compute a similarity or a softmax (the numbers come from attention_core.similarity / softmax).

Every word they draw arrives from the page, already translated. One colour per measure on
every chart (Okabe–Ito, ``figures.OKABE_ITO``, safe for colour-blind readers): green = cosine, orange = dot
product (the same orange as "without ÷√d_k" on the Why √d_k page), blue = scaled dot.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .axes import positions, ticked
from .figures import OKABE_ITO, axis_suffix, figure, panel_axes
from .safe import escape_label

COLORS = {"cosine": OKABE_ITO["green"], "dot": OKABE_ITO["orange"], "scaled_dot": OKABE_ITO["blue"]}
"""The colour of each measure, by its name in attention_core.SIMILARITIES."""
QUERY_COLOR, KEY_COLOR = OKABE_ITO["vermillion"], OKABE_ITO["blue"]
MAX_LABELLED_BARS = 6  # beyond this, a third of a phone (~110 px) has no room for token names and bar values


def _tick_step(n: int) -> int:
    """Tick every column while they fit in a third of the page, else every 3rd or 5th."""
    return 1 if n <= 12 else 3 if n <= 16 else 5


_MARGIN = {"l": 10, "r": 10, "t": 56, "b": 10}
_LEGEND = {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0}


def row_bars(rows, key_labels, *, title: str, x_title: str) -> go.Figure:
    """One query's row under each measure, side by side: one panel per measure, its own y scale.

    rows : list of (measure name, panel title, values (T_k,)); the name picks the colour.
    """
    layout = panel_axes(len(rows), across=True, gap=0.06, titles=[panel for _, panel, _ in rows])
    keys = positions(len(key_labels))  # key j as shown, from 1
    labels = [escape_label(label) for label in key_labels]
    few = len(keys) <= MAX_LABELLED_BARS  # else: ticks by number j, token names in the hover
    ticks = keys if few else ticked(len(keys), _tick_step(len(keys)))
    bars = []
    for col, (name, panel, values) in enumerate(rows, start=1):
        values = np.asarray(values, dtype=np.float64)  # (T_k,)
        suffix = axis_suffix(col)
        bars.append(
            {
                "type": "bar",
                "x": keys,
                "y": values,
                "name": panel,
                "marker": {"color": COLORS[name]},
                "customdata": labels,
                "text": [f"{x:.2f}" for x in values] if few else None,
                "textposition": "outside",
                "cliponaxis": False,
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "hovertemplate": "%{customdata}: %{y:.4f}<extra>%{fullData.name}</extra>",
            }
        )
        top = float(np.abs(values).max()) or 1.0
        layout[f"yaxis{suffix}"].update(
            range=[min(0.0, float(values.min())) - 0.18 * top, max(0.0, float(values.max())) + 0.18 * top],
            zeroline=True,
            zerolinecolor="#888",
        )
        layout[f"xaxis{suffix}"].update(
            tickvals=ticks,
            ticktext=[labels[keys.index(j)] if few else str(j) for j in ticks],
            tickangle=-45 if few and len(keys) > 3 else None,
        )
    middle = (len(rows) + 1) // 2
    layout[f"xaxis{axis_suffix(middle)}"]["title"] = {"text": x_title}
    return figure(bars, title=title, height=400, showlegend=False, margin={**_MARGIN, "t": 84}, **layout)


MAX_PRINTED_BARS = 24
"""Grouped bars print their values up to this many bars; beyond, the hover keeps them."""


def grouped_bars(weights, key_labels, *, title: str, x_title: str, y_title: str) -> go.Figure:
    """Grouped vertical bars on one [0, 1] axis: for each key, one bar per similarity measure
    (one query's softmax weights under cosine, dot and scaled dot, side by side).

    weights : list of (measure name, legend name, weights (T_k,)).

    >>> len(grouped_bars([("dot", "dot", [0.5, 0.5]), ("cosine", "cos", [0.9, 0.1])], ["a", "b"],
    ...                  title="row 0", x_title="key", y_title="weight").data)
    2
    """
    keys = positions(len(key_labels))
    labels = [escape_label(label) for label in key_labels]
    printed = len(keys) * len(weights) <= MAX_PRINTED_BARS  # values on the bars while they fit
    bars = [
        {
            "type": "bar",
            "x": keys,
            "y": np.asarray(values, dtype=np.float64),
            "name": legend,  # (T_k,)
            "marker": {"color": COLORS[name]},
            "customdata": labels,
            "texttemplate": "%{y:.2f}" if printed else None,
            "textposition": "outside",
            "textfont": {"size": 10},
            "cliponaxis": False,
            "hovertemplate": "%{customdata}: %{y:.4f}<extra>%{fullData.name}</extra>",
        }
        for name, legend, values in weights
    ]
    return figure(
        bars,
        title=title,
        barmode="group",
        height=400,
        margin={**_MARGIN, "t": 90},
        legend={**_LEGEND, "y": 1.02},
        xaxis={
            "title": {"text": x_title},
            "tickvals": keys,
            "ticktext": labels,
            "tickangle": -45 if len(keys) > 6 else None,
        },
        yaxis={"title": {"text": y_title}, "range": [0, 1.05]},
    )


def vectors_2d(q, k, *, title: str, q_name: str, k_name: str, limit: float = 3.2) -> go.Figure:
    """Two 2-D vectors drawn as arrows from the origin on square, equal axes.

    The arrow tips are also a scatter trace (``data[0]``: x, y of q then k), so a test can
    read what is drawn.
    """
    q = np.asarray(q, dtype=np.float64)  # (2,)
    k = np.asarray(k, dtype=np.float64)  # (2,)
    tips = {
        "type": "scatter",
        "x": [q[0], k[0]],
        "y": [q[1], k[1]],
        "mode": "markers+text",
        "text": [q_name, k_name],
        "textposition": "top center",
        "textfont": {"size": 18},
        "marker": {"color": [QUERY_COLOR, KEY_COLOR], "size": 10},
        "hovertemplate": "(%{x:.2f}, %{y:.2f})<extra>%{text}</extra>",
    }
    arrows = [
        {
            "x": vec[0],
            "y": vec[1],
            "ax": 0,
            "ay": 0,
            "xref": "x",
            "yref": "y",
            "axref": "x",
            "ayref": "y",
            "text": "",
            "showarrow": True,
            "arrowhead": 3,
            "arrowsize": 1.4,
            "arrowwidth": 3,
            "arrowcolor": color,
        }
        for vec, color in ((q, QUERY_COLOR), (k, KEY_COLOR))
    ]
    axis = {"range": [-limit, limit], "zeroline": True, "zerolinecolor": "#999", "dtick": 1, "fixedrange": True}
    return figure(
        [tips],
        title=title,
        height=440,
        showlegend=False,
        margin=_MARGIN,
        annotations=arrows,
        xaxis=axis,
        yaxis={**axis, "scaleanchor": "x", "scaleratio": 1},
    )
