"""The one-call figure every builder makes, and what all builders share: they draw; they never
compute attention.

Every builder (in ``heatmaps``, ``vector_figures`` and the ``*_figures`` modules of one page each)
takes ``tr``, a function ``tr("figures.<name>", **fields) -> str`` that gives the words it draws
(axis titles, hover text) in the learner's language: pages pass ``attention_ui.i18n.t``, tests
``functools.partial(translate, "zh")``; without it they speak English (``ENGLISH``). The builders
stay pure (no Streamlit); titles arrive ready-made.

Every builder makes its figure in one call, ``figure(traces, title=..., height=..., xaxis={...})``,
with traces as dicts and panels from ``panel_axes``: Plotly's ``update_layout`` /
``update_xaxes`` / ``add_vline`` and ``make_subplots`` cost several times more per chart, on every
rerun of every learner's page (docs/benchmarks.md, ``python -m bench.bench_figures``). ``figure``
returns a ``Chart``: a ``go.Figure`` that also says what the page needs to lay it out (how wide it
must be drawn for its cell numbers, whether a phone keeps its column labels), read by the chart
pipeline (``attention_ui.charts``).

Here: the figure and its title (``figure``, ``Chart``, ``wrap_title``), panels (``panel_axes``),
the margins and the palette of named things (``OKABE_ITO``), and the invisible markers that make
a chart report clicks (``click_targets``). Positions and column labels: ``axes``; heatmaps and
matrices: ``heatmaps``; vectors and bars: ``vector_figures``. Every width of text is measured with
the app's one model, ``text_width.text_px``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .chart_theme import PHONE_TITLE_PX
from .i18n import DEFAULT_LANG, translate
from .text_width import TAG, plain, text_px

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
TITLE_GAP_PX = 8
"""Room between a title set above panel titles (``figure(title_above=)``) and theirs: a title's line
is taller than ``TITLE_LINE_PX`` (1.3 em), and without it a two-line title touched "Layer 1, head 1"."""

_CLOSING = frozenset("，。；：、）》」』,.;:)")
"""Marks that never begin a line of a title."""
_BREAKS = re.compile(rf"{TAG.pattern}|[\u2e80-\uffff]|[^\s<\u2e80-\uffff]+|\s+")


def wrap_title(text: str, width: float = TITLE_PX, size: float = PHONE_TITLE_PX) -> str:
    """``text`` with ``<br>`` where it passes ``width`` px at ``size`` px: between words, or
    between two CJK characters (not before CJK punctuation); tags such as ``<b>`` take no room
    and are never cut. Each line keeps its trailing space, so the text without ``<br>`` is ``text``.
    The last line is never one word alone (``_no_orphan``).

    >>> wrap_title("Weights α̂ of every head (rows = query token i, columns = key token j)")
    'Weights α̂ of every head (rows = query token i, <br>columns = key token j)'
    >>> wrap_title("每个头的权重 α̂（行 = 查询词元 i，列 = 键词元 j；深色 = 0，黄色 = 1）")
    '每个头的权重 α̂（行 = 查询词元 i，列 = 键词元 <br>j；深色 = 0，黄色 = 1）'
    >>> wrap_title("每层原始分数 α = q·k：方差 63.92（共 32,000 个值）")  # "）" does not begin a line
    '每层原始分数 α = q·k：方差 63.92（共 32,000 <br>个值）'
    >>> wrap_title("α̂_1j: how much “she” (token 1) attends to each j")  # no word alone on the last line
    'α̂_1j: how much “she” (token 1) attends to <br>each j'
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
    return "<br>".join(_no_orphan(lines, width, size))


def _words(text: str) -> list[str]:
    """The pieces of a title line that count as words: no spaces, tags or closing marks."""
    return [p for p in _BREAKS.findall(text) if not p.isspace() and not p.startswith("<") and p not in _CLOSING]


def _no_orphan(lines: list[str], width: float, size: float) -> list[str]:
    """``lines`` of a wrapped title, with a last line of one word ("j", "updates", "值）") given the
    word before it too, when that fits: a word alone under a long line reads as a stray."""
    if len(lines) < 2 or len(_words(lines[-1])) != 1:
        return lines
    pieces = _BREAKS.findall(lines[-2])
    last = max(k for k, p in enumerate(pieces) if not p.isspace() and not p.startswith("<"))
    if pieces[last] in _CLOSING and last > 0:
        last -= 1  # a closing mark goes with the word before it
    moved, kept = "".join(pieces[last:]), "".join(pieces[:last])
    if not _words(kept) or text_px(plain(moved + lines[-1]), size) > width:
        return lines
    return [*lines[:-2], kept, moved + lines[-1]]


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
    column label only (1: all; tilted labels too close together on its narrow plot, ``axes.phone_step_for``).
    ``min_width``: the narrowest (px) the chart is drawn; a narrower page scrolls it sideways
    (the heads grid: ``model_figures.grid_min_width``), or None. ``phone_values``: the bars
    (0-based) whose printed value a phone hides (no room there: ``vector_figures.labelled_bars``).

    >>> chart = Chart({"type": "bar", "y": [1]}, numbers_px=595)
    >>> chart.numbers_px, chart.phone_ticks, chart.min_width, "meta" in chart.to_dict()["layout"]
    (595, True, None, False)
    """

    numbers_px: int | None = None
    phone_ticks: bool = True
    phone_step: int = 1
    min_width: int | None = None
    phone_values: tuple[int, ...] = ()

    def __init__(
        self,
        data=None,
        layout=None,
        *,
        numbers_px: int | None = None,
        phone_ticks: bool = True,
        phone_step: int = 1,
        min_width: int | None = None,
        phone_values: tuple[int, ...] = (),
    ):
        super().__init__(data=data, layout=layout)
        # plain attributes (Plotly lets through the names the class has): the pipeline reads them without a call
        self.numbers_px, self.phone_ticks, self.phone_step = numbers_px, phone_ticks, phone_step
        self.min_width, self.phone_values = min_width, tuple(phone_values)


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
    phone_values: tuple[int, ...] = (),
    **layout,
) -> Chart:
    """One figure from its traces and a nested ``layout``, built in a single call.

    Builders pass nested dicts (``xaxis={"title": {"text": ...}}``), never Plotly's
    ``update_layout(xaxis_title=...)``: every update call parses its underscore paths and
    validates again, which was the largest part of a page's script time (docs/benchmarks.md).
    The figure is the same. ``title=None``: no title. A long title is broken into lines
    (``wrap_title``), and the chart grows by the room they take. ``title_above``: the title
    sits that many px above the plot area (over the panels' own titles, ``heatmaps.heatmap_row``)
    instead of in the middle of the top margin. ``numbers_px``, ``phone_ticks``, ``phone_step``,
    ``min_width``, ``phone_values``: see ``Chart``.

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
            above = title_above + more + TITLE_GAP_PX
            layout["title"] |= {"y": 1.0, "yref": "paper", "yanchor": "bottom", "pad": {"b": above}}
            margin["t"] += TITLE_GAP_PX
            height += TITLE_GAP_PX
    layout = {"height": height, "margin": margin, **layout}
    return Chart(
        data,
        layout,
        numbers_px=numbers_px,
        phone_ticks=phone_ticks,
        phone_step=phone_step,
        min_width=min_width,
        phone_values=phone_values,
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
    layout: dict[str, Any] = {}
    notes: list[dict[str, Any]] = []
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
