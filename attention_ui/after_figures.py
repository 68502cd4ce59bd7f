"""Figures of the "After attention" page: arrays and (already translated) titles in, go.Figure
out. They draw; they never compute the model (every number comes from attention_core).

Wide vectors (384 or 1536 numbers per token) are drawn as one colour strip per token: a
heatmap without printed numbers whose hover gives every value (the page's CSV export has them
all). Strips carry float32, which is more than a colour or a 4-digit hover needs and halves what
the browser receives; their colours stop at the 99th percentile of |z| (a few outlier components
of BERT's hidden states are ten times larger than the rest and would wash every other colour
out), and the colour bar says where.

Like ``figures``, every builder makes its figure in one ``figure()`` call with dict layouts, and
takes ``tr`` for the words drawn inside a chart (pages pass ``attention_ui.i18n.t``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from .axes import positions, ticked
from .chart_theme import BLUE, ORANGE
from .figures import ENGLISH, Translate, axis_suffix, domains, figure, panel_axes
from .heatmaps import BOUNDARY, COLORSCALE, DIVERGING, heatmap
from .notation import FIRST, shown
from .safe import escape_label, numbered_labels

STRIP_CLIP_PERCENTILE = 99.0
"""Strips colour |z| up to this percentile; larger numbers get the end colour (hover shows them)."""
MAX_LABELLED_ROWS = 40
"""Rows of a strip beyond this have no tick labels (the hover names each row)."""


def colour_bound(z) -> float:
    """The colour scale's end for the strips: the 99th percentile of |z| (1.0 for all zeros).

    >>> colour_bound(np.array([[0.5, -1.0], [0.25, 100.0]])) < 100
    True
    """
    z = np.abs(np.asarray(z, dtype=np.float64))
    bound = float(np.percentile(z, STRIP_CLIP_PERCENTILE)) if z.size else 0.0
    return bound if bound > 0 else (float(z.max()) if z.size and z.max() > 0 else 1.0)


def _tick_step(d: int) -> int:
    """Component ticks every 64 for 384 numbers, every 256 for 1536, every 1 for a few.

    >>> _tick_step(384), _tick_step(1536), _tick_step(8)
    (64, 256, 1)
    """
    for step in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
        if d / step <= 8:
            return step
    return 1024


def component_ticks(d: int) -> list[int]:
    """The components ticked on a strip's axis, as shown (from 1): every one of a few, else the
    first and every ``_tick_step``-th, up to the last.

    >>> component_ticks(384), component_ticks(3)
    ([1, 64, 128, 192, 256, 320, 384], [1, 2, 3])
    """
    return ticked(d, _tick_step(d))


def vector_strips(
    z,
    row_labels,
    *,
    title: str,
    symbol: str,
    tr: Translate = ENGLISH,
    groups: list[str] | None = None,
    rule_before: int | None = None,
    bound: float | None = None,
) -> go.Figure:
    """One colour strip per row of ``z`` (rows, d): row r is the vector of ``row_labels[r]``.

    Parameters
    ----------
    z : array_like (rows, d)
    row_labels : raw text per row (escaped here), e.g. ``numbered_labels(tokens)``
    symbol : the vector's name in the hover and on the x axis, e.g. "u" for u_i[c]
    groups : names of equal blocks of columns (the heads of a concatenation): a white line
        between blocks and each name above its block
    rule_before : draw a line above this row (the mean under the tokens it averages)
    bound : the colour scale's end (±bound); by default ``colour_bound(z)``

    >>> fig = vector_strips(np.ones((2, 384)), ["1: a", "2: b"], title="t", symbol="u")
    >>> fig.data[0].z.dtype, list(fig.layout.xaxis.tickvals)[:3]
    (dtype('float32'), [1, 64, 128])
    """
    z = np.asarray(z, dtype=np.float64)  # (rows, d)
    n_rows, d = z.shape
    if len(row_labels) != n_rows:
        raise ValueError(f"{n_rows} rows but {len(row_labels)} labels")
    bound = colour_bound(z) if bound is None else bound
    ticks = component_ticks(d)
    labelled = n_rows <= MAX_LABELLED_ROWS
    row_px = max(4, min(26, 560 // max(n_rows, 1)))
    trace = {
        "type": "heatmap",
        "z": z.astype(np.float32),  # (rows, d)
        "x": positions(d),  # component c and row r as shown, from 1: the hover names them so
        "y": positions(n_rows),
        "colorscale": DIVERGING,
        "zmin": -bound,
        "zmax": bound,
        "colorbar": {"title": {"text": tr("figures.strip_scale", bound=bound)}, "thickness": 12},
        "hovertemplate": tr("figures.strip_hover", row="%{y}", symbol=symbol, column="%{x}")
        + ": %{z:.4f}<extra></extra>",
    }
    shapes, notes, top = [], [], 40
    if groups:
        width = d // len(groups)
        shapes += [
            {
                "type": "line",
                "x0": FIRST + g * width - 0.5,
                "x1": FIRST + g * width - 0.5,
                "xref": "x",
                "y0": 0,
                "y1": 1,
                "yref": "y domain",
                "line": {"color": BOUNDARY, "width": 3},
            }
            for g in range(1, len(groups))
        ]
        notes = [
            {
                "x": FIRST + g * width + (width - 1) / 2,
                "y": 1.0,
                "xref": "x",
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "text": escape_label(name),
                "font": {"size": 11},
            }
            for g, name in enumerate(groups)
        ]
        top = 64
    if rule_before is not None:
        shapes.append(
            {
                "type": "line",
                "x0": 0,
                "x1": 1,
                "xref": "x domain",
                "y0": FIRST + rule_before - 0.5,
                "y1": FIRST + rule_before - 0.5,
                "yref": "y",
                "line": {"color": "#222222", "width": 3},
            }
        )
    return figure(
        [trace],
        title=title,
        height=top + 60 + max(row_px * n_rows, 120),  # a colour bar needs ~120 px to stay legible
        margin={"l": 10, "r": 10, "t": top, "b": 10},
        xaxis={
            "tickvals": ticks,
            "ticktext": [str(c) for c in ticks],
            "title": {"text": tr("figures.component_axis", symbol=symbol, d=d)},
            "showgrid": False,
        },
        yaxis={
            "tickvals": positions(n_rows) if labelled else [],
            "ticktext": [escape_label(label) for label in row_labels] if labelled else [],
            "autorange": "reversed",
            "showgrid": False,
        },
        shapes=shapes,
        annotations=notes,
    )


def token_strips(z, tokens, *, title: str, symbol: str, tr: Translate = ENGLISH, **kw) -> go.Figure:
    """``vector_strips`` with the rows labelled "i: token"."""
    return vector_strips(z, numbered_labels(tokens), title=title, symbol=symbol, tr=tr, **kw)


def pooling_strips(last_hidden, mean, tokens, *, title: str, tr: Translate = ENGLISH) -> go.Figure:
    """The last hidden states h⁽ᴸ⁾_i (one strip per token) and, under a line, their mean m.

    One colour scale for all rows, so the mean's colours compare with the rows it averages.

    >>> fig = pooling_strips(np.ones((3, 4)), np.ones(4), ["a", "b", "c"], title="t")
    >>> fig.data[0].z.shape, fig.layout.yaxis.ticktext[-1]
    ((4, 4), 'h̄')
    """
    h = np.asarray(last_hidden, dtype=np.float64)  # (T, d)
    rows = np.vstack([h, np.asarray(mean, dtype=np.float64)[None, :]])  # (T+1, d)
    labels = numbered_labels(tokens) + ["h̄"]
    return vector_strips(rows, labels, title=title, symbol="h", tr=tr, rule_before=len(tokens))


def norm_bars(mean, var, tokens, *, title: str, tr: Translate = ENGLISH) -> go.Figure:
    """Each token's mean μ_i and variance σ²_i over its d numbers, as two panels of bars.

    >>> fig = norm_bars(np.array([0.1, -0.2]), np.array([1.0, 2.0]), ["a", "b"], title="t")
    >>> [bar.text for bar in fig.data]
    [('0.1000', '-0.2000'), ('1.000', '2.000')]
    """
    mean = np.asarray(mean, dtype=np.float64)  # (T,)
    var = np.asarray(var, dtype=np.float64)  # (T,)
    labels = [escape_label(label) for label in numbered_labels(tokens)]
    rows = positions(len(labels))  # token i as shown: the hover's "token %{y}"
    bars = []
    for n, (values, colour, digits, hover) in enumerate(
        [(mean, BLUE, 4, "figures.mean_hover"), (var, ORANGE, 3, "figures.var_hover")]
    ):
        suffix = axis_suffix(n + 1)
        bars.append(
            {
                "type": "bar",
                "orientation": "h",
                "x": values,
                "y": rows,
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "marker": {"color": colour},
                "text": [f"{v:.{digits}f}" for v in values],
                "textposition": "outside",
                "cliponaxis": False,
                "showlegend": False,
                "hovertemplate": tr(hover, i="%{y}") + ": %{x:.6f}<extra></extra>",
            }
        )
    layout = panel_axes(2, across=True, gap=0.22, titles=[tr("figures.mean_title"), tr("figures.var_title")])
    for n, values in enumerate((mean, var)):
        suffix = axis_suffix(n + 1)
        low, high = float(min(values.min(), 0.0)), float(max(values.max(), 0.0))
        pad = 0.35 * (high - low or 1.0)  # room for the printed numbers
        layout[f"xaxis{suffix}"].update(range=[low - (pad if low < 0 else 0), high + pad], zeroline=True)
        layout[f"yaxis{suffix}"].update(
            tickvals=rows, ticktext=labels if n == 0 else [], showticklabels=n == 0, autorange="reversed"
        )
    return figure(bars, title=title, height=110 + 24 * len(rows), margin={"l": 10, "r": 30, "t": 80, "b": 10}, **layout)


def layer_change_map(change, tokens, *, title: str, tr: Translate = ENGLISH) -> go.Figure:
    """cos(h⁽ˡ⁾_i, h⁽ˡ⁺¹⁾_i) as a (L, T) heatmap: rows = layer l, columns = token i (short row
    labels, so that the cells keep their width on a phone; the title gives the formula).

    >>> fig = layer_change_map(np.ones((6, 3)), ["a", "b", "c"], title="t")
    >>> fig.layout.yaxis.ticktext[0], fig.data[0].y[0], fig.data[0].hovertemplate
    ('layer 1', 1, 'layer %{y}, token %{x}: cos = %{z:.4f}<extra></extra>')
    """
    z = np.asarray(change, dtype=np.float64)  # (L, T)
    rows = [tr("figures.grid_layer", layer=shown(layer)) for layer in range(len(z))]
    fig = heatmap(
        z,
        rows,
        numbered_labels(tokens),
        title=title,
        tr=tr,
        x_title=tr("figures.token_axis"),
        stack_cjk=True,
        digits=2,
        height=120 + 40 * len(z),
    )
    fig.data[0].hovertemplate = (
        tr("figures.change_hover", layer="%{y}", token="%{x}") + ": cos = %{z:.4f}<extra></extra>"
    )
    return fig


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(n: int) -> str:
    """The layer index of h⁽ⁿ⁾ in plain text, for titles and labels.

    >>> superscript(12)
    '⁽¹²⁾'
    """
    return "⁽" + str(n).translate(_SUPERSCRIPT) + "⁾"


def layers_grid(
    maps,
    tokens,
    *,
    panel_titles: list[str],
    title: str,
    tr: Translate = ENGLISH,
    columns: int = 4,
    zmin: float | None = None,
    zmax: float | None = None,
    hover_value: str = "%{z:.3f}",
) -> go.Figure:
    """One (T, T) matrix per layer as small heatmaps on one colour scale: rows = token i,
    columns = token j, in the same order; ``columns`` panels a row.

    Token labels are written on the left column's rows; the hover names the panel, i, j and
    the value. Without ``zmin``/``zmax`` the scale spans the smallest to the largest number.

    >>> fig = layers_grid(np.zeros((7, 2, 2)), ["a", "b"], panel_titles=list("abcdefg"), title="t")
    >>> len(fig.data), fig.layout.yaxis5.ticktext
    (7, ('1: a', '2: b'))
    """
    m = np.asarray(maps, dtype=np.float64)  # (n, T, T)
    n, t = m.shape[0], m.shape[1]
    if m.ndim != 3 or m.shape[2] != t or len(panel_titles) != n:
        raise ValueError(f"need (n, T, T) maps and n panel titles, got {m.shape} and {len(panel_titles)}")
    zmin = float(m.min()) if zmin is None else zmin
    zmax = float(m.max()) if zmax is None else zmax
    n_rows = -(-n // columns)
    across = domains(columns, 0.03)
    down = domains(n_rows, 0.12)
    labels = [escape_label(label) for label in numbered_labels(tokens)]
    traces: list[dict] = []
    layout: dict[str, Any] = {}
    notes: list[dict] = []
    for k in range(n):
        row, col = divmod(k, columns)
        suffix = axis_suffix(k + 1)
        y_low, y_high = 1.0 - down[row][1], 1.0 - down[row][0]
        traces.append(
            {
                "type": "heatmap",
                "z": m[k],  # (T, T)
                "x0": FIRST,  # the hover's i and j count from 1
                "y0": FIRST,
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "colorscale": COLORSCALE,
                "zmin": zmin,
                "zmax": zmax,
                "showscale": k == 0,
                "hovertemplate": escape_label(panel_titles[k])
                + "<br>"
                + tr("figures.grid_pair", i="%{y}", j="%{x}")
                + ": "
                + hover_value
                + "<extra></extra>",
            }
        )
        axis = {"showgrid": False, "zeroline": False, "ticks": ""}
        layout[f"xaxis{suffix}"] = {
            **axis,
            "domain": list(across[col]),
            "anchor": f"y{suffix}",
            "showticklabels": False,
        }
        layout[f"yaxis{suffix}"] = {
            **axis,
            "domain": [y_low, y_high],
            "anchor": f"x{suffix}",
            "autorange": "reversed",
            "tickvals": positions(t),
            "ticktext": labels if col == 0 else [],
            "showticklabels": col == 0 and t <= MAX_LABELLED_ROWS,
            "tickfont": {"size": 10},
        }
        notes.append(
            {
                "text": escape_label(panel_titles[k]),
                "x": (across[col][0] + across[col][1]) / 2,
                "y": y_high,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 13},
            }
        )
    traces[0]["colorbar"] = {"thickness": 12, "len": 0.6, "x": 1.01}
    return figure(
        traces,
        title=title,
        height=110 + 270 * n_rows,
        margin={"l": 10, "r": 40, "t": 110, "b": 10},
        annotations=notes,
        **layout,
    )


def similarity_map(matrix, numbers, *, title: str, tr: Translate = ENGLISH) -> go.Figure:
    """The cosine similarity of every pair of sentences, on the scale −1 (blue) … 1 (red),
    every value printed with 3 decimals. Rows and columns carry the sentences' line
    ``numbers``: the sentences themselves are listed beside the chart (whole sentences as
    labels would squeeze the cells to nothing on a phone).

    >>> fig = similarity_map(np.eye(2), [1, 3], title="t")
    >>> fig.data[0].text[0], (fig.data[0].zmin, fig.data[0].zmax), fig.layout.xaxis.ticktext
    (['1.000', '0.000'], (-1.0, 1.0), ('1', '3'))
    """
    z = np.asarray(matrix, dtype=np.float64)  # (n, n)
    labels = [str(n) for n in numbers]
    return heatmap(
        z,
        labels,
        labels,
        title=title,
        tr=tr,
        x_title=tr("figures.sentence_axis"),
        y_title=tr("figures.sentence_axis"),
        diverging=True,
        zmin=-1.0,
        zmax=1.0,
        digits=3,
        height=160 + 56 * len(z),
    )
