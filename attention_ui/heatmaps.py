"""Heatmaps: a matrix of numbers as coloured cells, alone (``heatmap``), as panels of one chart
(``heatmap_row``), as rows each on its own scale (``strips``), or as the HTML table a page draws
instead of the chart (``Matrix``, ``token_matrix``). They draw; they never compute attention.

Heatmaps use integer positions with tick labels (Plotly would merge repeated category labels such
as "the … the"), the first row at the top, and the colour-blind-safe Cividis scale. The positions
are the numbers a learner sees (``axes.positions``: 1 … n). A cell prints its number where the
chart is wide enough for it (``cell_numbers_width``, measured with ``text_width.text_px``); the
figure is built in one call (``figures.figure``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import plotly.graph_objects as go

from attention_core import MAX_TOKENS

from .axes import FLAT_LABELS_PX, MAX_TICKED_COLS, phone_step_for, positions, tick_labels, ticked
from .figures import (
    ENGLISH,
    MARGIN,
    PANEL_TITLE_FONT_PX,
    PANEL_TITLE_PX,
    Chart,
    Translate,
    axis_suffix,
    figure,
    panel_axes,
    panel_titles_px,
    plain_title,
    wrap_title,
)
from .notation import shown
from .safe import escape_label, numbered_labels
from .text_width import text_px

COLORSCALE = "Cividis"
DIVERGING = "RdBu_r"  # blue-red diverging, readable for red-green colour blindness
MAX_CELL_ROWS = 24  # print values in cells up to this many rows ...
MAX_CELL_COLS = 24  # ... and columns; the browser hides them where the chart is too narrow (cell_numbers_width)
MAX_TABLE_ROWS = MAX_TOKENS + 2
"""A matrix drawn as a table (``Cells``) prints its numbers up to this many rows and columns: every
window a lesson reads (24 word pieces and the model's two markers, 26 tokens, printed no number in a
chart); a table too wide for its frame scrolls sideways, its type never under 11 px."""
CELL_CHROME_PX = 200  # what a heatmap's width spends outside its cells: tick labels, colour bar, margins
CELL_SPARE_EM = 1.0  # room left in a cell beside its number, in ems of the cell font: numbers read apart
VECTOR_TICKED_COLS = 16  # vectors' components are labelled every 8th beyond this (vector_figures.vectors_matrix)
BOUNDARY = "#ffffff"
"""The line between blocks of columns (heads) drawn over a heatmap."""


@dataclass(frozen=True)
class Cells:
    """A matrix as the page draws it without Plotly: one HTML table cell per number, coloured as
    the heatmap colours it (``tables.matrix_html``), every number printed, where a hover cannot
    help (presentation mode, print, the pages that ask). ``matrix_cells`` makes one.

    ``z`` (rows, cols): the numbers, as given (read-only); ``texts``: each cell's text, exactly
    as the heatmap prints it; labels are raw text (the table escapes them); ``colorscale``,
    ``zmin``, ``zmax``: the heatmap's colours; ``title``: plain text (no markup).
    """

    z: np.ndarray
    texts: tuple[tuple[str, ...], ...]
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    colorscale: str
    zmin: float
    zmax: float
    title: str
    row_title: str = ""
    col_title: str = ""


@dataclass(frozen=True)
class Matrix:
    """A matrix the page draws one of two ways, built only as the one it draws: ``cells``, an HTML
    table that prints every number (``Cells``; None for a matrix larger than ``MAX_TABLE_ROWS``),
    or ``chart()``, its Plotly heatmap. A table builds no Plotly figure. ``token_matrix`` gives one;
    the chart pipeline (``charts.draw``) chooses.

    >>> matrix = token_matrix([[0.25, 0.75], [1.0, 0.0]], ["a", "b"], ["a", "b"], title="w")
    >>> matrix.cells.texts, type(matrix.chart()).__name__
    ((('0.25', '0.75'), ('1.00', '0.00')), 'Chart')
    """

    cells: Cells | None
    chart: Callable[[], Chart]


def _finite_text(z: np.ndarray, digits: int) -> list[list[str]]:
    return [["−∞" if np.isneginf(x) else f"{x:.{digits}f}" for x in row] for row in z]


def cell_font_size(n_cols: int) -> int:
    """The font (px) of the numbers in a heatmap's cells: smaller as the columns get more.

    >>> [cell_font_size(n) for n in (4, 10, 13, 24)]
    [13, 12, 11, 10]
    """
    return 13 if n_cols <= 6 else 12 if n_cols <= 10 else 11 if n_cols <= 16 else 10


def cell_numbers_width(n_cols: int, numbers, font_px: float) -> int:
    """How wide (px) a heatmap must be drawn for its cell ``numbers`` (their texts) in
    ``font_px`` to fit in each of its ``n_cols`` cells, with ``CELL_SPARE_EM`` to spare, beside
    its tick labels and colour bar (``CELL_CHROME_PX``).

    The browser shows the numbers only in a chart at least this wide (``attention_ui.style``):
    13 columns of "0.25" need 594 px, which a 1400 px window has beside the sidebar and a
    1024 px one has not.

    >>> cell_numbers_width(13, ["0.25", "1.00"], 11), cell_numbers_width(24, ["0.25"], 10)
    (594, 861)
    """
    widest = max((text_px(number, font_px) for number in set(numbers)), default=0.0)
    return round(CELL_CHROME_PX + n_cols * (widest + CELL_SPARE_EM * font_px))


def heatmap(
    z,
    row_labels,
    col_labels,
    *,
    title: str,
    tr: Translate = ENGLISH,
    x_title: str = "",
    y_title: str = "",
    stack_cjk: bool = False,
    diverging: bool = False,
    zmin=None,
    zmax=None,
    digits: int = 2,
    height: int | None = None,
    max_ticked: int = MAX_TICKED_COLS,
    labels_room: float | None = None,
    overlay=(),
    **layout,
) -> go.Figure:
    """A labelled heatmap of the 2-D array ``z`` (rows top to bottom).

    Labels are escaped here; pass raw text. Cell values are printed up to 24 rows and
    columns, in a font that shrinks with the columns; the chart's ``numbers_px`` says how wide
    it must be for them to fit (0: none printed), and the page hides them, with a note, in a
    narrower chart (``charts.draw``). -inf (masked)
    cells show "−∞" and are left blank in colour.
    ``stack_cjk``: long rows of Chinese column labels become "index over token" (see
    ``axes.tick_labels``) instead of tilted; ``token_matrix`` turns it on. ``labels_room``: the px the
    column labels may fill lying flat (``axes.tick_labels``; by default a heatmap's in a narrow
    column, ``axes.FLAT_LABELS_PX``). More than ``max_ticked`` columns: only
    the first and every 8th/16th/… column is labelled (the hover names each).
    ``overlay``: more traces drawn over the heatmap (e.g. ``figures.click_targets``); ``layout``: more
    layout settings, in the same single call.
    """
    trace, width = _heatmap_trace(z, tr=tr, diverging=diverging, zmin=zmin, zmax=zmax, digits=digits)
    n_rows = len(trace["y"])
    xaxis = _x_axis(col_labels, x_title, max_ticked=max_ticked, stack_cjk=stack_cjk, room=labels_room)
    return figure(
        [trace, *overlay],
        title=title,
        height=height or max(260, 48 + 34 * n_rows),
        numbers_px=width,
        phone_step=phone_step_for(len(xaxis["tickvals"]), xaxis["tickangle"]),
        xaxis=xaxis,
        yaxis=_y_axis(row_labels, y_title),
        **layout,
    )


STRIP_QUANTILE = 0.95
"""A long strip's colour scale ends at this quantile of its |values| (``strips``)."""


def strip_bound(row) -> float:
    """Where a strip's symmetric colour scale ends (``strips``): its largest |value| when it has
    up to ``VECTOR_TICKED_COLS`` entries (each cell prints its number), else the ``STRIP_QUANTILE``
    quantile of its |values|, so that a few outliers (a trained model's LayerNorm keeps some huge
    components) do not leave every other cell white: the larger 5 % take the end colours.

    >>> strip_bound([0.1, -0.2]), round(strip_bound(list(range(99)) + [1000.0]), 2)  # 1000 would whiten the rest
    (0.2, 94.05)
    """
    drawn = np.abs(np.asarray(row, dtype=np.float64))
    drawn = drawn[np.isfinite(drawn)]
    if drawn.size <= VECTOR_TICKED_COLS:
        return _bound(drawn)
    bound = float(np.quantile(drawn, STRIP_QUANTILE))
    return bound if bound > 0 else _bound(drawn)


def strips(
    rows,
    row_labels,
    col_labels,
    *,
    title: str,
    tr: Translate = ENGLISH,
    digits: int = 2,
    height: int | None = None,
    max_ticked: int = MAX_TICKED_COLS,
) -> go.Figure:
    """Rows of numbers of very different sizes (a word vector, its position, their sum…) as colour
    strips, each on its own diverging scale, symmetric about 0 up to its own ``strip_bound``, which
    its label names ("word (±0.12)"). On one shared scale the small rows were nearly white. Numbers
    are printed in the cells as ``heatmap`` prints them; the hover gives each value. More than
    ``VECTOR_TICKED_COLS`` columns: a phone shows no column labels (``Chart.phone_ticks``).

    >>> fig = strips([[0.1, -0.2], [10.0, 5.0]], ["x", "PE"], ["[1]", "[2]"], title="t")
    >>> [(trace.zmin, trace.zmax, trace.y) for trace in fig.data], fig.layout.yaxis.ticktext
    ([(-0.2, 0.2, (1,)), (-10.0, 10.0, (2,))], ('x (±0.2)', 'PE (±10)'))
    """
    z = np.asarray(rows, dtype=np.float64)  # (rows, cols)
    traces, widths, labels = [], [], []
    for r, row in enumerate(z):
        bound = strip_bound(row)
        trace, width = _heatmap_trace(row[None, :], tr=tr, diverging=True, zmin=-bound, zmax=bound, digits=digits)
        trace.update(y=[shown(r)], showscale=False)
        traces.append(trace)
        widths.append(width)
        labels.append(f"{row_labels[r]} (±{bound:.3g})")
    return figure(
        traces,
        title=title,
        height=height or max(200, 90 + 34 * len(z)),
        numbers_px=max(widths) if all(widths) else 0,
        phone_ticks=z.shape[1] <= VECTOR_TICKED_COLS,
        xaxis=_x_axis(col_labels, "", max_ticked=max_ticked),
        yaxis=_y_axis(labels, ""),
    )


ROW_GAP = 0.08
"""The space between the panels of ``heatmap_row`` on one colour scale, as a share of its width:
on a phone, one panel's last column number and the next one's first need ~20 px between them."""
ROW_GAP_BARS = 0.1
"""... and between panels that each carry their own colour bar."""
ROW_TICKS = 24
"""``heatmap_row`` numbers every column while its panels have this many in all, else each
panel's first and last: three panels share a phone's 330 px."""
PHONE_ROW_TICKS = 12
"""The most column labels a row of panels keeps on a phone (~330 px for all its panels)."""
ROW_LABELS = 32
"""... and names the columns by their tokens, tilted where needed, while they have this many:
the tokens of the other sentence are what a cross-attention map is about. Each tilted label
costs Chromium a text measurement on every redraw."""
MAX_CELLS_PX = 1300
"""``heatmap_row`` prints no cell numbers that would need a wider chart than this (about the
widest a 1920 px screen gives): hidden, they would still cost Chromium one text element each."""


def heatmap_row(
    panels,
    row_labels,
    *,
    title: str,
    tr: Translate = ENGLISH,
    y_title: str = "",
    x_title: str = "",
    col_labels=None,
    scale: tuple[float, float] | None = None,
    scales=None,
    digits: int = 2,
    height: int | None = None,
) -> go.Figure:
    """Several heatmaps of the same rows side by side in one chart: q | k | v of every token,
    W^Q | W^K | W^V, a sentence's weights with and without ÷√d_k, or scores | weights.

    ``panels``: a list of (panel title, z (rows, cols_k)); labels are raw text, escaped here.
    Colours: by default one scale and one colour bar for the row, ``scale`` = (zmin, zmax)
    (the weights' Cividis on that range) or None (diverging, symmetric about 0). ``scales``,
    one (zmin, zmax) or None per panel, gives each panel its own scale and colour bar instead
    (scores beside weights).

    The rows are labelled once, on the left. The columns by ``col_labels`` (tokens, when the
    panels share them; the hover then names the row's and the column's token) while
    ``ROW_LABELS`` fit in the row, or by their number while ``ROW_TICKS`` fit; beyond, each
    panel labels its first and last column only. On a phone, more than ``PHONE_ROW_TICKS``
    labels in the row run into each other: the chart's ``phone_ticks`` is then False and the
    page hides them there (the hover still names every cell). ``x_title`` goes once, under the
    middle panel (the second of two).
    One chart draws in about half the time of three charts of the same traces
    (docs/benchmarks.md, ``bench_draw``), and every click on a page redraws its charts. Cell
    numbers are those of ``heatmap``.

    >>> fig = heatmap_row([("q", np.ones((2, 3))), ("k", -np.ones((2, 32)))], ["x", "y"], title="t")
    >>> [trace.xaxis for trace in fig.data], fig.layout.xaxis2.anchor, fig.layout.coloraxis.cmin
    (['x', 'x2'], 'y', -1.0)
    >>> fig.layout.xaxis.ticktext, fig.layout.xaxis2.ticktext
    (('1', '2', '3'), ('1', '32'))
    >>> fig = heatmap_row([("s", 3 * np.eye(2)), ("w", np.eye(2))], ["x", "y"], title="t", scales=[None, (0, 1)])
    >>> [(trace.zmin, trace.zmax, trace.colorscale[0][1]) for trace in fig.data]
    [(-3.0, 3.0, 'rgb(5,48,97)'), (0, 1, '#00224e')]
    """
    n = len(panels)
    own_bars = scales is not None
    titles = [wrap_title(escape_label(name), PANEL_TITLE_PX / n, PANEL_TITLE_FONT_PX) for name, _ in panels]
    layout = panel_axes(n, across=True, gap=ROW_GAP_BARS if own_bars else ROW_GAP, titles=titles, shared_y=True)
    if not own_bars:  # the row's one colour axis: on ``scale``, or symmetric about 0
        if scale is None:
            bound = max(_bound(z) for _, z in panels)
            scale = (-bound, bound)
        layout["coloraxis"] = {
            "colorscale": DIVERGING if scale[0] < 0 else COLORSCALE,
            "cmin": scale[0],
            "cmax": scale[1],
            "colorbar": {"thickness": 12},
        }
    traces, widths, labelled = [], [], 0
    if col_labels is not None:
        cells = [[[escape_label(r), escape_label(c)] for c in col_labels] for r in row_labels]  # (rows, cols, 2)
    for k, (_, z) in enumerate(panels, start=1):
        suffix = axis_suffix(k)
        if own_bars:
            zmin, zmax = scales[k - 1] or (None, None)  # None: symmetric about 0, as heatmap draws it
            diverging = zmin is None or zmin < 0
            trace, width = _heatmap_trace(z, tr=tr, diverging=diverging, zmin=zmin, zmax=zmax, digits=digits)
            high = layout[f"xaxis{suffix}"]["domain"][1]
            trace["colorbar"] = {"x": high + 0.005, "xanchor": "left", "thickness": 8, "xpad": 0, "nticks": 4}
        else:
            trace, width = _heatmap_trace(z, tr=tr, diverging=False, digits=digits)
            for own in ("colorscale", "zmin", "zmax"):  # the row's one colour axis instead
                trace.pop(own)
            trace["coloraxis"] = "coloraxis"
        trace.update(xaxis=f"x{suffix}", yaxis="y")
        if col_labels is not None:  # the hover names both tokens, whatever the ticks show
            trace["customdata"] = cells
            names = tr("figures.hover_cell", row="%{customdata[0]}", column="%{customdata[1]}")
            trace["hovertemplate"] = names + ": %{z:.4f}<extra></extra>"
        traces.append(trace)
        widths.append(width)
        n_cols = np.shape(z)[1]
        if col_labels is not None and n_cols * n <= ROW_LABELS:
            axis = _x_axis(col_labels, "")
        else:
            columns = positions(n_cols) if n_cols * n <= ROW_TICKS else [shown(0), n_cols]
            axis = {"tickvals": columns, "ticktext": [str(c) for c in columns], "tickangle": 0}
        axis["title"] = {"text": x_title if k == (n + 2) // 2 else ""}  # once: under the middle or the 2nd of 2
        labelled += len(axis["tickvals"])
        layout[f"xaxis{suffix}"].update(axis)
    layout["yaxis"].update(_y_axis(row_labels, y_title))
    share = layout["xaxis"]["domain"][1] - layout["xaxis"]["domain"][0]  # of the chart's width, per panel
    needed = max(widths) if all(widths) else 0  # what the widest panel's cells need in a chart of their own
    width = round(CELL_CHROME_PX + (needed - CELL_CHROME_PX) / share) if needed else 0
    if width > MAX_CELLS_PX:  # never shown: not drawn either (hidden, they still cost Chromium a redraw)
        width = 0
        for trace in traces:
            for key in ("text", "texttemplate", "textfont"):
                trace.pop(key, None)
    n_rows = len(traces[0]["y"])
    more = panel_titles_px(layout)  # wrapped panel titles
    return figure(
        traces,
        title=title,
        title_above=24 + more,  # just above the panels' own titles: centred in the margin, it ran into them
        height=(height or max(280, 78 + 30 * n_rows)) + more,
        margin={**MARGIN, "t": MARGIN["t"] + 24 + more},  # the panel titles sit under the chart's
        numbers_px=width,
        phone_ticks=labelled <= PHONE_ROW_TICKS,
        **layout,
    )


def _bound(z) -> float:
    """The largest |value| of the finite cells of z (1 when there is none): a symmetric scale's end."""
    drawn = np.abs(np.asarray(z, dtype=np.float64))
    drawn = drawn[np.isfinite(drawn)]
    return float(drawn.max()) if drawn.size and drawn.max() > 0 else 1.0


def _heatmap_trace(z, *, tr: Translate, diverging: bool, zmin=None, zmax=None, digits: int = 2) -> tuple[dict, int]:
    """The trace of ``heatmap`` and of each panel of ``heatmap_row``, and how wide (px) a chart
    of it alone must be for its cell numbers (0: it prints none)."""
    z = np.asarray(z, dtype=np.float64)  # (rows, cols)
    n_rows, n_cols = z.shape
    drawn = np.where(np.isfinite(z), z, np.nan)  # (rows, cols)  -inf drawn as empty
    finite = drawn[np.isfinite(drawn)]  # (n,)
    if diverging and zmin is None and zmax is None and finite.size:
        bound = _bound(finite)
        zmin, zmax = -bound, bound
    elif (zmin is None or zmax is None) and finite.size:  # Plotly's own range, said: margins.fit_margins reads it
        zmin, zmax = float(finite.min()) if zmin is None else zmin, float(finite.max()) if zmax is None else zmax
    trace = {  # a dict, not go.Heatmap: the Figure validates each trace once, not twice
        "type": "heatmap",
        "z": drawn,
        "x": positions(n_cols),
        "y": positions(n_rows),
        "colorscale": DIVERGING if diverging else COLORSCALE,
        "zmin": zmin,
        "zmax": zmax,
        "hovertemplate": tr("figures.hover_cell", row="%{y}", column="%{x}") + ": %{z:.4f}<extra></extra>",
    }
    if n_rows > MAX_CELL_ROWS or n_cols > MAX_CELL_COLS:
        return trace, 0  # no numbers in the cells, the hover has them
    text, size = _finite_text(z, digits), cell_font_size(n_cols)
    trace.update(text=text, texttemplate="%{text}", textfont={"size": size})
    return trace, cell_numbers_width(n_cols, [cell for row in text for cell in row], size)


def _x_axis(
    col_labels, x_title: str, *, max_ticked: int = MAX_TICKED_COLS, stack_cjk: bool = False, room: float | None = None
) -> dict:
    """The column axis of a heatmap: every column labelled, or beyond ``max_ticked`` the first
    and every 8th/16th/… (a label on each of 384 columns is a grey smear), flat or tilted by
    ``axes.tick_labels`` in ``room`` px."""
    n_cols = len(col_labels)
    columns = positions(n_cols)
    if n_cols > max_ticked:
        step = next(s for s in (8, 16, 32, 64, 128, 256, 512) if n_cols / s <= 12 or s == 512)
        columns = ticked(n_cols, step)
    labels = [escape_label(col_labels[c - shown(0)]) for c in columns]
    ticks, angle = tick_labels(labels, room or FLAT_LABELS_PX, stack_cjk=stack_cjk)
    return {"tickvals": columns, "ticktext": ticks, "title": {"text": x_title}, "side": "bottom", "tickangle": angle}


def _y_axis(row_labels, y_title: str) -> dict:
    """The row axis of a heatmap: every row labelled, the first at the top."""
    return {
        "tickvals": positions(len(row_labels)),
        "ticktext": [escape_label(r) for r in row_labels],
        "title": {"text": y_title},
        "autorange": "reversed",
    }


def matrix_cells(
    z,
    row_labels,
    col_labels,
    *,
    title: str,
    x_title: str = "",
    y_title: str = "",
    diverging: bool = False,
    zmin=None,
    zmax=None,
    digits: int = 2,
    **_chart_only,
) -> Cells:
    """``z`` as the HTML table draws it (``Cells``), with the colours and texts ``heatmap`` gives
    the same arguments, and no Plotly figure; what only a chart uses (``height``, ``layout``) is
    ignored. The colour scale spans ``zmin`` to ``zmax``, or as ``heatmap`` does without them:
    symmetric about 0 when ``diverging``, else the finite numbers' range.

    >>> cells = matrix_cells([[-2.0, float("-inf")]], ["a"], ["b", "c"], title="<b>s</b>", diverging=True)
    >>> cells.texts, (cells.zmin, cells.zmax), cells.colorscale, cells.title
    ((('-2.00', '−∞'),), (-2.0, 2.0), 'RdBu_r', 's')
    """
    values = np.asarray(z, dtype=np.float64)  # (rows, cols)
    finite = values[np.isfinite(values)]  # (n,)
    if diverging and zmin is None and zmax is None and finite.size:
        zmax = _bound(finite)
        zmin = -zmax
    if zmin is None or zmax is None:  # Plotly's own range: the finite cells'
        zmin, zmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    return Cells(
        z=values,
        texts=tuple(tuple(row) for row in _finite_text(values, digits)),
        row_labels=tuple(str(r) for r in row_labels),
        col_labels=tuple(str(c) for c in col_labels),
        colorscale=DIVERGING if diverging else COLORSCALE,
        zmin=float(zmin),
        zmax=float(zmax),
        title=plain_title(title),
        row_title=plain_title(y_title),
        col_title=plain_title(x_title),
    )


def token_matrix(z, tokens_q, tokens_k, *, title: str, tr: Translate = ENGLISH, **kw) -> Matrix:
    """A (T_q, T_k) attention matrix: rows = query token i, columns = key token j, as a ``Matrix``:
    its table (up to ``MAX_TABLE_ROWS`` rows and columns, every window a lesson reads) and its
    heatmap (``heatmap``), built only when the page draws it. ``kw`` goes to both."""
    rows, columns = numbered_labels(tokens_q), numbered_labels(tokens_k)
    y_title, x_title = tr("figures.query_axis"), tr("figures.key_axis")
    small = max(len(rows), len(columns)) <= MAX_TABLE_ROWS
    return Matrix(
        matrix_cells(z, rows, columns, title=title, x_title=x_title, y_title=y_title, **kw) if small else None,
        partial(heatmap, z, rows, columns, title=title, tr=tr, stack_cjk=True, x_title=x_title, y_title=y_title, **kw),
    )
