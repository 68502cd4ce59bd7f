"""Plotly figure builders: arrays in, go.Figure out. They draw; they never compute attention.

Heatmaps use integer positions with tick labels (Plotly would merge repeated category
labels such as "the … the"), the first row at the top, and the colour-blind-safe Cividis scale.
The positions are the numbers a learner sees (``positions``: 1 … n, ``notation.shown``), so a
hover's "row %{y}" names token 1 for Python's row 0.

Every builder takes ``tr``, a function ``tr("figures.<name>", **fields) -> str`` that gives
the words it draws (axis titles, hover text) in the learner's language: pages pass
``attention_ui.i18n.t``, tests ``functools.partial(translate, "zh")``; without it they speak
English (``ENGLISH``). The builders stay pure (no Streamlit); titles arrive ready-made.

Every builder here and in the other ``*_figures`` modules makes its figure in one call,
``figure(traces, title=..., height=..., xaxis={...})``, with traces as dicts and panels from
``panel_axes``: Plotly's ``update_layout`` / ``update_xaxes`` / ``add_vline`` and
``make_subplots`` cost several times more per chart, on every rerun of every learner's page
(docs/benchmarks.md, ``python -m bench.bench_figures``). ``figure`` returns a ``Chart``: a
``go.Figure`` that also says what the page needs to lay it out (how wide it must be drawn for
its cell numbers, whether a phone keeps its column labels), read by the chart pipeline
(``attention_ui.charts``).

Every width of text (where a title breaks, whether labels lie flat, how wide cells must be for
their numbers) is measured with the app's one model, ``text_width.text_px``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from attention_core import MAX_TOKENS

from .chart_theme import BLUE, ORANGE, PHONE_TITLE_PX
from .i18n import DEFAULT_LANG, translate
from .internals import TICK_FONT_PX
from .notation import component_labels, shown
from .safe import escape_label, numbered_labels, token_labels
from .text_width import TAG, has_wide, plain, row_px, text_px

COLORSCALE = "Cividis"
TOKEN_COLORS = tuple(pc.qualitative.Safe)
"""One colour per key token in stacked bars: CARTO's "Safe" palette, chosen for colour-blind
readers; its last colour is a grey, kept for "others"."""
MAX_COLOURED = len(TOKEN_COLORS) - 2
"""Stacked bars of more key tokens than ``MAX_COLOURED + 1`` colour the largest ``MAX_COLOURED``
and add the rest up in one grey bar (``contributions_bar``)."""
DIVERGING = "RdBu_r"  # blue-red diverging, readable for red-green colour blindness
MAX_CELL_ROWS = 24  # print values in cells up to this many rows ...
MAX_CELL_COLS = 24  # ... and columns; the browser hides them where the chart is too narrow (cell_numbers_width)
MAX_TABLE_ROWS = MAX_TOKENS + 2
"""A matrix drawn as a table (``Cells``) prints its numbers up to this many rows and columns: every
window a lesson reads (24 word pieces and the model's two markers, 26 tokens, printed no number in a
chart); a table too wide for its frame scrolls sideways, its type never under 11 px."""
CELL_CHROME_PX = 200  # what a heatmap's width spends outside its cells: tick labels, colour bar, margins
CELL_SPARE_EM = 1.0  # room left in a cell beside its number, in ems of the cell font: numbers read apart
VECTOR_TICKED_COLS = 16  # vectors' components are labelled every 8th beyond this (vectors_matrix)
MIN_TEXT_PX = 11
"""No value printed on a bar is smaller than this: where a bar is too narrow for it, the value is
hidden (the hover and the formula have it) rather than shrunk to a few pixels (a phone)."""
PHONE_TILTED_LABELS = 8
"""How many tilted column labels a phone's narrow plot (about 160 to 300 px) holds apart: with more,
it shows every ``phone_step``-th label only (``Chart.phone_step``; the hover names every column)."""
MAX_TICKED_COLS = 48  # wider matrices (384 or 1536 components) label every 8th/16th/32nd/... column only
Translate = Callable[..., str]  # tr("figures.name", **fields) -> the text in the current language
ENGLISH: Translate = partial(translate, DEFAULT_LANG)  # the default tr, for callers outside a page

OKABE_ITO = {
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}
"""Okabe and Ito's palette, safe for colour-blind readers: the colours of lines and bars that
stand for a named thing across a page (similarity measures, scaled or not, query and key)."""
BOUNDARY = "#ffffff"
"""The line between blocks of columns (heads) drawn over a heatmap."""


MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}
"""The charts' margins: room for the title above, little elsewhere (axis labels bring their own)."""
TITLE_PX = 300
"""Titles wider than this (px, in ``PHONE_TITLE_PX``) are broken into lines: on a 390 px phone
the chart is ~358 px wide, and the camera of the toolbar sits at its top right."""
PANEL_TITLE_PX = 265
"""Panel titles (``panel_axes``) wider than this (px, in their own font) are broken into lines,
or a share of it for panels side by side: a panel's title is centred on its plot, which a
phone's axis labels leave narrower than the chart."""
PANEL_TITLE_FONT_PX = 16
"""The font of panel titles."""
TITLE_LINE_PX = 20
"""What each further title line adds to the top margin and the height."""

_CLOSING = frozenset("，。；：、）》」』,.;:)")
"""Marks that never begin a line of a title."""
_BREAKS = re.compile(rf"{TAG.pattern}|[\u2e80-\uffff]|[^\s<\u2e80-\uffff]+|\s+")


def wrap_title(text: str, width: float = TITLE_PX, size: float = PHONE_TITLE_PX) -> str:
    """``text`` with ``<br>`` where it passes ``width`` px at ``size`` px: between words, or
    between two CJK characters (not before CJK punctuation); tags such as ``<b>`` take no room
    and are never cut. Each line keeps its trailing space, so the text without ``<br>`` is ``text``.

    >>> wrap_title("Weights α̂ of every head (rows = query token i, columns = key token j)")
    'Weights α̂ of every head (rows = query token i, <br>columns = key token j)'
    >>> wrap_title("每个头的权重 α̂（行 = 查询词元 i，列 = 键词元 j；深色 = 0，黄色 = 1）")
    '每个头的权重 α̂（行 = 查询词元 i，列 = 键词元 <br>j；深色 = 0，黄色 = 1）'
    >>> wrap_title("每层原始分数 α = q·k：方差 63.92（共 32,000 个值）")  # "）" does not begin a line
    '每层原始分数 α = q·k：方差 63.92（共 32,000 个<br>值）'
    >>> wrap_title("short"), wrap_title("a<br>b")
    ('short', 'a<br>b')
    """
    if "<br>" in text or text_px(text, size) <= width:
        return text
    lines, line = [], []  # line: its pieces
    for piece in _BREAKS.findall(text):
        line.append(piece)
        if piece.isspace() or text_px("".join(p for p in line if not p.startswith("<")), size) <= width:
            continue
        if piece in _CLOSING and len(line) > 2:  # a closing mark stays with the character before it
            line.pop()
            piece = line.pop() + piece
        else:
            line.pop()
        if "".join(line).strip():
            lines.append("".join(line))  # with its trailing space: without the <br> the text is as it was
            line = [piece]
        else:
            line.append(piece)
    lines.append("".join(line))
    return "<br>".join(lines)


def positions(n: int) -> list[int]:
    """The coordinates of n rows, columns or bars: the numbers a learner sees, from 1.

    >>> positions(3)
    [1, 2, 3]
    """
    return [shown(k) for k in range(n)]


def ticked(n: int, step: int) -> list[int]:
    """The positions (from 1) to tick among n when there is room for every ``step``-th: the
    first, then the multiples of ``step``.

    >>> ticked(384, 64), ticked(3, 1)
    ([1, 64, 128, 192, 256, 320, 384], [1, 2, 3])
    """
    return positions(n) if step <= 1 else [shown(0), *range(step, n + 1, step)]


def phone_step_for(n_labels: int, angle) -> int:
    """Every how many column labels a phone shows: 1 (all) unless they are tilted and more than
    ``PHONE_TILTED_LABELS``, then as few as keep them apart.

    >>> phone_step_for(17, -45), phone_step_for(17, None), phone_step_for(8, -45), phone_step_for(24, -45)
    (3, 1, 1, 3)
    """
    return 1 if angle is None or n_labels <= PHONE_TILTED_LABELS else -(-n_labels // PHONE_TILTED_LABELS)


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


def plain_title(title: str | None) -> str:
    """A chart title as plain text: ``<br>`` and tags dropped, entities (``&lt;``) read back.

    >>> plain_title("Weights of <b>&lt;cat&gt;</b><br>row 2")
    'Weights of <cat>row 2'
    """
    return html.unescape(plain(str(title or "").replace("<br>", "")))


class Chart(go.Figure):
    """A ``go.Figure`` that also says what the page needs to lay it out, which Plotly has no
    property for: given by its builder (``figure(numbers_px=, phone_ticks=, phone_step=,
    min_width=)``), read by the chart pipeline (``attention_ui.charts``), never sent to the browser.

    ``numbers_px``: how wide (px) the chart must be drawn for the numbers in its cells (the
    page hides them, and says "hover for the values", where it is narrower); 0: its cells print
    none (the note is always there); None: it has no cells of numbers (no note).
    ``phone_ticks``: False when a phone should not show its column labels (too many for its
    narrow panels; the hover names every cell). ``phone_step``: a phone shows every ``phone_step``-th
    column label only (1: all; tilted labels too close together on its narrow plot, ``phone_step_for``).
    ``min_width``: the narrowest (px) the chart is drawn; a narrower page scrolls it sideways
    (the heads grid: ``model_figures.grid_min_width``), or None.

    >>> chart = Chart({"type": "bar", "y": [1]}, numbers_px=595)
    >>> chart.numbers_px, chart.phone_ticks, chart.min_width, "meta" in chart.to_dict()["layout"]
    (595, True, None, False)
    """

    numbers_px: int | None = None
    phone_ticks: bool = True
    phone_step: int = 1
    min_width: int | None = None

    def __init__(
        self,
        data=None,
        layout=None,
        *,
        numbers_px: int | None = None,
        phone_ticks: bool = True,
        phone_step: int = 1,
        min_width: int | None = None,
    ):
        super().__init__(data=data, layout=layout)
        # plain attributes (Plotly lets through the names the class has): the pipeline reads them without a call
        self.numbers_px, self.phone_ticks, self.phone_step = numbers_px, phone_ticks, phone_step
        self.min_width = min_width


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


def figure(
    data,
    *,
    title: str | None,
    height: int,
    margin: dict | None = None,
    title_above: int | None = None,
    numbers_px: int | None = None,
    phone_ticks: bool = True,
    phone_step: int = 1,
    min_width: int | None = None,
    **layout,
) -> Chart:
    """One figure from its traces and a nested ``layout``, built in a single call.

    Builders pass nested dicts (``xaxis={"title": {"text": ...}}``), never Plotly's
    ``update_layout(xaxis_title=...)``: every update call parses its underscore paths and
    validates again, which was the largest part of a page's script time (docs/benchmarks.md).
    The figure is the same. ``title=None``: no title. A long title is broken into lines
    (``wrap_title``), and the chart grows by the room they take. ``title_above``: the title
    sits that many px above the plot area (over the panels' own titles, ``heatmap_row``)
    instead of in the middle of the top margin. ``numbers_px``, ``phone_ticks``, ``phone_step``,
    ``min_width``: see ``Chart``.

    >>> figure([{"type": "bar", "y": [1, 2]}], title="Weights", height=300).layout.title.text
    'Weights'
    """
    margin = dict(MARGIN if margin is None else margin)
    if title is not None:
        title = wrap_title(title)
        layout["title"] = {"text": title}
        more = TITLE_LINE_PX * title.count("<br>")  # a longer title takes room from above the plot, not from it
        margin["t"] = margin.get("t", MARGIN["t"]) + more
        height += more
        if title_above is not None:  # Plotly anchors a title's first line: the lines below it need room too
            layout["title"] |= {"y": 1.0, "yref": "paper", "yanchor": "bottom", "pad": {"b": title_above + more}}
    layout = {"height": height, "margin": margin, **layout}
    return Chart(
        data, layout, numbers_px=numbers_px, phone_ticks=phone_ticks, phone_step=phone_step, min_width=min_width
    )


def domains(n: int, gap: float) -> list[tuple[float, float]]:
    """n equal intervals of [0, 1] with ``gap`` between neighbours, left (or top) first.

    >>> domains(2, 0.5)
    [(0.0, 0.25), (0.75, 1.0)]
    """
    size = (1.0 - gap * (n - 1)) / n
    return [(k * (size + gap), min(1.0, k * (size + gap) + size)) for k in range(n)]


def axis_suffix(n: int) -> str:
    """How Plotly numbers its n-th axis pair (1-based): ``xaxis``/``x`` for the first, then
    ``xaxis2``/``x2`` and on.

    >>> axis_suffix(1), axis_suffix(3)
    ('', '3')
    """
    return "" if n == 1 else str(n)


def panel_titles_px(layout: dict) -> int:
    """How much higher (px) than one line the titles of the top panels of ``panel_axes`` reach,
    once wrapped: the room a chart title placed above them (``figure(title_above=)``) must add.

    >>> panel_titles_px(panel_axes(2, across=True, gap=0.1, titles=["a", "b<br>c"]))
    20
    """
    return TITLE_LINE_PX * max(
        (note["text"].count("<br>") for note in layout.get("annotations", []) if note["y"] == 1.0), default=0
    )


def panel_axes(
    n: int, *, across: bool, gap: float, titles=(), title_size: int = PANEL_TITLE_FONT_PX, shared_y: bool = False
) -> dict:
    """Layout entries for ``n`` panels in one row (``across``) or one column, like
    ``plotly.subplots.make_subplots`` draws them: axis k+1 is ``xaxis{k+1}``/``yaxis{k+1}``
    (the first without a number), each panel's ``titles[k]`` centred above it.

    make_subplots costs more than the figure itself (docs/benchmarks.md); this is a few dict
    entries. Panels of a column share the x axis (the upper ones hide their tick labels);
    panels in a row share the y axis with ``shared_y`` (labelled once, on the left).

    >>> sorted(panel_axes(2, across=False, gap=0.1))
    ['annotations', 'xaxis', 'xaxis2', 'yaxis', 'yaxis2']
    """
    layout, notes = {}, []
    for k, (low, high) in enumerate(domains(n, gap)):
        suffix = axis_suffix(k + 1)
        x, y = (f"x{suffix}", f"y{suffix}")
        if across and shared_y:
            layout[f"xaxis{suffix}"] = {"anchor": "y", "domain": [low, high]}
            if k == 0:
                layout["yaxis"] = {"anchor": "x", "domain": [0.0, 1.0]}
            centre, top = (low + high) / 2, 1.0
        elif across:
            layout[f"xaxis{suffix}"] = {"anchor": y, "domain": [low, high]}
            layout[f"yaxis{suffix}"] = {"anchor": x, "domain": [0.0, 1.0]}
            centre, top = (low + high) / 2, 1.0
        else:  # the first panel on top
            y_low, y_high = 1.0 - high, 1.0 - low
            layout[f"xaxis{suffix}"] = {
                "anchor": y,
                "domain": [0.0, 1.0],
                **({"matches": f"x{n}", "showticklabels": False} if k < n - 1 else {}),
            }
            layout[f"yaxis{suffix}"] = {"anchor": x, "domain": [y_low, y_high]}
            centre, top = 0.5, y_high
        if k < len(titles):
            notes.append(
                {
                    "font": {"size": title_size},
                    "showarrow": False,
                    "text": wrap_title(titles[k], PANEL_TITLE_PX / (n if across else 1), title_size),
                    "x": centre,
                    "xanchor": "center",
                    "xref": "paper",
                    "y": top,
                    "yanchor": "bottom",
                    "yref": "paper",
                }
            )
    layout["annotations"] = notes
    return layout


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
    ``tick_labels``) instead of tilted; ``token_matrix`` turns it on. ``labels_room``: the px the
    column labels may fill lying flat (``tick_labels``; by default a heatmap's in a narrow
    column, ``FLAT_LABELS_PX``). More than ``max_ticked`` columns: only
    the first and every 8th/16th/… column is labelled (the hover names each).
    ``overlay``: more traces drawn over the heatmap (e.g. ``click_targets``); ``layout``: more
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


def clicked_data(point) -> list:
    """The ``customdata`` of a clicked marker as Streamlit reports it, as a list: Streamlit hands
    a row of a typed (binary) array back as a dict {"0": …, "1": …}, a row of a list as a list.

    >>> clicked_data({"customdata": {"0": 1, "1": 3}}), clicked_data({"customdata": [1, 3]})
    ([1, 3], [1, 3])
    """
    values = point.get("customdata")
    if isinstance(values, dict):
        return [values[k] for k in sorted(values, key=int)]
    return list(values) if isinstance(values, list | tuple) else [values]


def click_targets(x, y, *, size: int, customdata=None) -> dict:
    """Invisible markers at (x, y) that make a chart report clicks: a heatmap or an image alone
    reports none to ``st.plotly_chart(on_select=...)``, a selected marker does (with its
    ``customdata``). Draw the chart with ``clickmode="event+select"``; each marker is an SVG
    element Chromium draws on every visit, so use as few as the clicks need.

    >>> click_targets([1, 2], [1, 1], size=20)["marker"]
    {'size': 20, 'opacity': 0.0}
    """
    return {
        "type": "scatter",
        "x": np.asarray(x).tolist(),  # lists: a 1-D typed array comes back from Streamlit as an object
        "y": np.asarray(y).tolist(),
        "customdata": None if customdata is None else np.asarray(customdata).tolist(),  # JSON lists, not typed arrays
        "mode": "markers",
        "hoverinfo": "none",
        "marker": {"size": size, "opacity": 0.0},
        "showlegend": False,
        "selected": {"marker": {"opacity": 0.0}},
        "unselected": {"marker": {"opacity": 0.0}},
    }


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
    if not own_bars and scale is None:
        bound = max(_bound(z) for _, z in panels)
        scale = (-bound, bound)
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
    if not own_bars:
        layout["coloraxis"] = {
            "colorscale": DIVERGING if scale[0] < 0 else COLORSCALE,
            "cmin": scale[0],
            "cmax": scale[1],
            "colorbar": {"thickness": 12},
        }
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
    ``tick_labels`` in ``room`` px."""
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


FLAT_LABELS_PX = 285
"""The room (px) for column labels lying flat (``TICK_LABEL_GAP_PX`` apart) under a heatmap in a
narrow column (``tick_labels``)."""
FULL_WIDTH_LABELS_PX = 620
"""... under a full-width bar chart (``key_bars``)."""
HALF_WIDTH_LABELS_PX = 170
"""... under a half-width (or narrower) heatmap (``multihead_figures.attention_map``)."""
FEW_LABELS = 8
"""Up to this many column labels Plotly decides alone: flat where they fit, tilted by itself where not."""
TICK_LABEL_GAP_PX = 6
"""The space counted between two flat column labels (half of it between stacked ones)."""
STACKED_ROOM = 1.5
"""Labels stacked as index over token may fill this many times the room of flat ones."""


def tick_labels(labels: list[str], room: float, stack_cjk: bool = True) -> tuple[list[str], int | None]:
    """The app's one rule for column labels: their texts and angle, decided when the figure is
    built from the ``room`` (px) its builder gives them (``FLAT_LABELS_PX``, ``HALF_WIDTH_LABELS_PX``,
    ``FULL_WIDTH_LABELS_PX``). None (Plotly's "auto") when they are few (``FEW_LABELS``) or fit
    side by side: flat, and tilted by Plotly in a chart too narrow for that, as on a phone. Else
    labels with CJK characters become two lines ("i: token" -> index over token), which keeps
    Chinese characters and words horizontal and readable (``stack_cjk``); other long labels are
    tilted by 45°.

    >>> tick_labels(["0: 我", "1: 爱"], FLAT_LABELS_PX)
    (['0: 我', '1: 爱'], None)
    >>> tick_labels([f"{i}: 字" for i in range(14)], FLAT_LABELS_PX)[0][10]
    '10<br>字'
    >>> [tick_labels([f"{i}: because" for i in range(10)], room)[1] for room in (170, 620)]
    [-45, None]
    """
    if len(labels) <= FEW_LABELS or row_px(labels, TICK_FONT_PX, TICK_LABEL_GAP_PX) <= room:
        return labels, None
    if not stack_cjk or not any(has_wide(label) for label in labels):
        return labels, -45  # Latin labels read well tilted; CJK tilted is hard to read
    stacked = [label.replace(": ", "<br>", 1) for label in labels]
    if row_px(stacked, TICK_FONT_PX, TICK_LABEL_GAP_PX / 2) <= room * STACKED_ROOM:
        return stacked, None
    return labels, -45


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
    axes = {"y_title": tr("figures.query_axis"), "x_title": tr("figures.key_axis")}
    small = max(len(rows), len(columns)) <= MAX_TABLE_ROWS
    return Matrix(
        matrix_cells(z, rows, columns, title=title, **axes, **kw) if small else None,
        partial(heatmap, z, rows, columns, title=title, tr=tr, stack_cjk=True, **axes, **kw),
    )


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
    """The queries, keys and values of every token in one chart: three panels (``heatmap_row``),
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
    A value too wide for its bar (a phone) is hidden, never shrunk below ``MIN_TEXT_PX``; more than
    ``PHONE_TILTED_LABELS`` tilted labels: a phone shows some of them (``phone_step_for``).

    >>> fig = key_bars([0.25, 0.75], ["the", "cat"], title="α̂ of row 1")
    >>> fig.data[0].text, fig.data[0].x
    (('25.0%', '75.0%'), (1, 2))
    """
    w = np.asarray(weights, dtype=np.float64)  # (T_k,)
    colors = [BLUE if j != highlight else ORANGE for j in range(len(w))]
    text = [f"{x:.1%}" for x in w] if percent else [f"{x:.3f}" for x in w]
    bar = {
        "type": "bar",
        "x": positions(len(w)),
        "y": w,
        "text": text,
        "textposition": "outside",
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
        uniformtext={"minsize": MIN_TEXT_PX, "mode": "hide"},  # never shrunk below it (5 px on a phone): hidden
        phone_step=phone_step_for(len(w), angle),
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
