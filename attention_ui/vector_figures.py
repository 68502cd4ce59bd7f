"""Figures of vectors: one vector per token (Q, K, V, inputs, outputs) as heatmaps, one query's
row of weights or scores as bars (``key_bars``), and an output b_i as the stacked parts α̂_ij v_j
(``contributions_bar``). They draw; they never compute attention.
"""

from __future__ import annotations

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from .axes import FULL_WIDTH_LABELS_PX, phone_step_for, positions, tick_labels
from .chart_theme import BLUE, ORANGE
from .figures import ENGLISH, Translate, figure
from .heatmaps import VECTOR_TICKED_COLS, heatmap, heatmap_row
from .notation import component_labels
from .safe import numbered_labels, token_labels
from .text_width import text_px

TOKEN_COLORS = tuple(pc.qualitative.Safe)
"""One colour per key token in stacked bars: CARTO's "Safe" palette, chosen for colour-blind
readers; its last colour is a grey, kept for "others"."""
MAX_COLOURED = len(TOKEN_COLORS) - 2
"""Stacked bars of more key tokens than ``MAX_COLOURED + 1`` colour the largest ``MAX_COLOURED``
and add the rest up in one grey bar (``contributions_bar``)."""
MIN_TEXT_PX = 11
"""No value printed on a bar is smaller than this: where a bar is too narrow for it, the value is
hidden (the hover and the formula have it) rather than shrunk to a few pixels (a phone)."""
BAR_TEXT_PX = 12
"""The size of the values printed over bars (``key_bars``): never shrunk to the bar's width."""
PHONE_PLOT_PX = 260
"""The plot width (px) of a full-width bar chart on a 390 px phone, inside its margins: the
room ``labelled_bars`` spaces the values a phone prints for, so that they never meet there."""
WIDE_PLOT_PX = 460
"""... on a 1024 px projector with the sidebar open (about 500 px): the room for the values
every wider screen prints (a phone hides those it has no room for: ``Chart.phone_values``)."""


def labelled_bars(
    values, texts: list[str], room: float = PHONE_PLOT_PX, size: float = BAR_TEXT_PX, among=None
) -> list[int]:
    """Which bars print their value, largest first (by size, either sign), each as far from the
    others already chosen as its text needs in ``room`` px shared by all the bars: the values
    that matter are always printed, at any width, and the small ones only where there is room.
    ``among``: the bars that may print theirs (all by default; a phone's among a projector's).
    A Plotly bar chart alone prints the narrow texts and hides the wide ones ("42.6%" but not
    "0.8%"), the opposite of what a reader needs.

    >>> labelled_bars([0.05, 0.426, 0.233, 0.01, 0.128], ["5.0%", "42.6%", "23.3%", "1.0%", "12.8%"], room=100)
    [1, 4]
    >>> labelled_bars([0.5, 0.5], ["50.0%", "50.0%"])  # room for both
    [0, 1]
    """
    v = np.abs(np.asarray(values, dtype=np.float64))  # (n,)
    pitch = room / max(len(v), 1)  # px from one bar's centre to the next
    chosen: list[int] = []
    allowed = set(range(len(v)) if among is None else among)
    for j in (j for j in np.argsort(-v, kind="stable") if j in allowed):
        half = text_px(texts[j], size) / 2 + 2  # a little air between two values (4 px)
        if all(abs(int(j) - k) * pitch >= half + text_px(texts[k], size) / 2 + 2 for k in chosen):
            chosen.append(int(j))
    return sorted(chosen)


def vectors_matrix(z, tokens, *, title: str, symbol: str, tr: Translate = ENGLISH, **kw) -> go.Figure:
    """A (T, d) matrix of one vector per token (Q, K, V, inputs, outputs). Beyond 16 components
    only every 8th is labelled (q[1], q[8], q[16], …): 32 labels tilted on three charts side by
    side cost Chromium about twice the drawing time (docs/benchmarks.md, ``bench_draw``), and
    the hover names every component.
    """
    d = np.asarray(z).shape[1]
    return heatmap(
        z,
        numbered_labels(tokens),
        component_labels(symbol, d),
        title=title,
        tr=tr,
        y_title=tr("figures.token_axis"),
        diverging=True,
        max_ticked=VECTOR_TICKED_COLS,
        **kw,
    )


def qkv_row(q, k, v, tokens, *, title: str, names=("q_j", "k_j", "v_j"), tr: Translate = ENGLISH) -> go.Figure:
    """The queries, keys and values of every token in one chart: three panels (``heatmaps.heatmap_row``),
    one row per token, each panel with its own colour scale. ``names``: the panels' titles.

    >>> import numpy as np
    >>> fig = qkv_row(np.ones((2, 4)), np.zeros((2, 4)), np.ones((2, 3)), ["a", "b"], title="q, k, v")
    >>> [a.text for a in fig.layout.annotations], len(fig.data)
    (['q_j', 'k_j', 'v_j'], 3)
    """
    return heatmap_row(
        list(zip(names, (q, k, v))), numbered_labels(tokens), title=title, tr=tr, y_title=tr("figures.token_axis")
    )


def qkv_columns(d_k: int, d_v: int) -> list[str]:
    """The column names of q | k | v side by side, as ``qkv_row`` exports them to CSV.

    >>> qkv_columns(2, 1)
    ['q[1]', 'q[2]', 'k[1]', 'k[2]', 'v[1]']
    """
    return component_labels("q", d_k) + component_labels("k", d_k) + component_labels("v", d_v)


def key_bars(
    weights, tokens, *, title: str, tr: Translate = ENGLISH, highlight: int | None = None, percent: bool = True
) -> go.Figure:
    """Vertical bars, one per key token j, for one query's row: the weights α̂_ij as
    percentages, or (``percent=False``) the raw or scaled scores; ``highlight`` draws key j in orange.
    The largest values are printed at ``BAR_TEXT_PX``, never shrunk, the smaller ones where they
    do not meet them (``labelled_bars``: the room of a projector; a phone hides those it has no
    room for, ``Chart.phone_values``); every value is in the hover. More than
    ``axes.PHONE_TILTED_LABELS`` tilted labels: a phone shows some of them (``axes.phone_step_for``).

    >>> fig = key_bars([0.25, 0.75], ["the", "cat"], title="α̂ of row 1")
    >>> fig.data[0].text, fig.data[0].x
    (('25.0%', '75.0%'), (1, 2))
    """
    w = np.asarray(weights, dtype=np.float64)  # (T_k,)
    colors = [BLUE if j != highlight else ORANGE for j in range(len(w))]
    text = [f"{x:.1%}" for x in w] if percent else [f"{x:.3f}" for x in w]
    printed = set(labelled_bars(w, text, WIDE_PLOT_PX))
    phone = set(labelled_bars(w, text, PHONE_PLOT_PX, among=printed))  # a phone's: some of those
    bar = {
        "type": "bar",
        "x": positions(len(w)),
        "y": w,
        "text": [value if j in printed else "" for j, value in enumerate(text)],
        "textposition": "outside",
        "textfont": {"size": BAR_TEXT_PX},
        "constraintext": "none",  # a value wider than its bar stays whole (they are spaced apart)
        "marker": {"color": colors},
        "cliponaxis": False,  # a value over the tallest bar stays whole
        "hovertemplate": tr("figures.hover_key", j="%{x}") + ": %{y:.4f}<extra></extra>",
    }
    yaxis = (
        {"range": [0, max(1.0, float(w.max()) * 1.15)], "title": {"text": tr("figures.weight_axis")}}
        if percent
        else {"title": {"text": tr("figures.score_axis")}}
    )
    ticks, angle = tick_labels(token_labels(tokens), FULL_WIDTH_LABELS_PX)
    return figure(
        [bar],
        title=title,
        height=340,
        phone_step=phone_step_for(len(w), angle),
        phone_values=tuple(sorted(printed - phone)),
        yaxis=yaxis,
        xaxis={
            "tickvals": positions(len(w)),
            "ticktext": ticks,
            "title": {"text": tr("figures.key_axis_short")},
            "tickangle": angle,
        },
    )


def contributions_bar(contributions, tokens, output, *, title: str, tr: Translate = ENGLISH) -> go.Figure:
    """Stacked bars: each component of b_i as the sum of α̂_ij v_j over key tokens j.

    Each key token has its own colour while there are at most ``len(TOKEN_COLORS) - 1`` of
    them (the palette's last colour is its grey); with more, the ``MAX_COLOURED`` tokens that
    contribute most (summed over the components) keep theirs and the rest are added up in one
    grey "others" bar, so that no two tokens share a colour. Bars carry no text: the values are
    in the hover and, for b_i, in the formula above the chart; black diamonds mark b_i.

    >>> fig = contributions_bar(np.eye(12), [f"t{j}" for j in range(12)], np.ones(12), title="b")
    >>> [bar.name for bar in fig.data][-2:], len({bar.marker.color for bar in fig.data[:-1]})
    (['3 others', 'b_i (the sum)'], 10)
    """
    c = np.asarray(contributions, dtype=np.float64)  # (T_k, d_v)
    t_k, d_v = c.shape
    labels = token_labels(tokens)
    x = positions(d_v)  # component c as shown, from 1
    if t_k <= MAX_COLOURED + 1:
        coloured, rest = list(range(t_k)), []
    else:
        largest = np.argsort(-np.abs(c).sum(axis=1), kind="stable")[:MAX_COLOURED]  # (MAX_COLOURED,)
        coloured = sorted(int(j) for j in largest)
        rest = [j for j in range(t_k) if j not in coloured]
    bars = [
        {
            "type": "bar",
            "x": x,
            "y": c[j],
            "name": labels[j],
            "marker": {"color": TOKEN_COLORS[k]},
            "hovertemplate": "%{fullData.name}: %{y:.4f}<extra></extra>",
        }
        for k, j in enumerate(coloured)
    ]
    if rest:
        bars.append(
            {
                "type": "bar",
                "x": x,
                "y": c[rest].sum(axis=0),  # (d_v,)
                "name": tr("figures.others", n=len(rest)),
                "marker": {"color": TOKEN_COLORS[-1]},
                "hovertemplate": "%{fullData.name}: %{y:.4f}<extra></extra>",
            }
        )
    marks = {
        "type": "scatter",
        "x": x,
        "y": np.asarray(output),
        "mode": "markers",
        "name": tr("figures.output_marker"),
        "marker": {"symbol": "diamond", "size": 10, "color": "black"},
        "hovertemplate": "b[%{x}] = %{y:.4f}<extra></extra>",
    }
    return figure(
        [*bars, marks],
        title=title,
        height=400,
        barmode="relative",
        legend={"orientation": "h", "y": -0.25, "yanchor": "top"},
        xaxis={
            "tickvals": positions(d_v),
            "ticktext": component_labels("b", d_v),
            "title": {"text": tr("figures.output_axis")},
        },
    )
