"""The chart pipeline: every chart of the app goes from its builder to the page here, so that
Chromium draws it once.

    figure ─▶ JSON ─▶ projector ─▶ fit_margins ─▶ themed ─▶ st.plotly_chart(SentAsIs(JSON), theme=None)
    charts    charts   presentation   margins       chart_theme   internals
              (once)   (presenting)

``prepare`` turns the figure into its JSON once (``figure_json``: ``to_dict()``, 1-D arrays as
lists) and reads what it says in words (``describe``); then three steps, called once each in this
order, each take the JSON (a dict) and return a new one, changing nothing they are given:
``presentation.projector`` (larger type, in presentation mode only), ``margins.fit_margins``
(margins that already hold the labels and colour bars, so Plotly does not widen them and draw
again) and ``chart_theme.themed`` (Streamlit's look written into the layout, so Streamlit's own
theme does not make Plotly draw again). No step calls into another step's module, and the
pipeline reads all it needs from the figure before the first step: the figure passes through each
module once (``tests/test_charts.py`` walks it). What the page lays around the chart comes from
the figure's builder, as explicit attributes of the figure (``figures.Chart``: ``numbers_px``,
``phone_ticks``, ``phone_step``, ``min_width``), never through ``layout.meta``.

``draw`` puts a prepared chart on the page: in keyed containers and with the chart's own style
rules (``style.chart_box_css``) that say how wide it must be for its cell numbers, how wide it
stays at least (scrolling sideways) and whether a phone keeps its column labels, with the note
"hover for the values" under a chart whose numbers may be hidden.
A ``heatmaps.Matrix`` it draws as an HTML table (no Plotly figure is built) in presentation mode or
where the page asks. ``exports.show_figure`` is ``draw`` with the download menu under the chart.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st

from .chart_theme import themed
from .fragments import page_part
from .heatmaps import Matrix
from .i18n import t
from .internals import SentAsIs
from .margins import fit_margins
from .presentation import FONT_SCALE, is_presenting, projector
from .style import (
    CELLS_KEY,
    HOVER_NOTE_KEY,
    MATRIX_KEY,
    MAX_PHONE_STEP,
    NO_PHONE_TICKS_KEY,
    NOTE_KEY,
    PHONE_VALUES_KEY,
    THIN_PHONE_TICKS_KEY,
    TWIN_KEY,
    WIDE_KEY,
    chart_box_css,
)
from .tables import matrix_html, show_matrix
from .text_width import plain


def _axis_title(axis: dict | None) -> str:
    title = (axis or {}).get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return plain(str(text or "").replace("<br>", ""))


def describe(spec: dict, *, tr=t) -> str:
    """What a chart shows and where its numbers are, in words (its accessible description,
    after its title): the kind of chart and its axes, then whether its cells or bars print
    their numbers, the hover and the CSV download.

    >>> from attention_ui.heatmaps import token_matrix
    >>> from attention_ui.i18n import translate
    >>> from functools import partial
    >>> spec = token_matrix([[0.5, 0.5], [1.0, 0.0]], ["a", "b"], ["a", "b"], title="w").chart().to_dict()
    >>> print(describe(spec, tr=partial(translate, "en")))  # doctest: +NORMALIZE_WHITESPACE
    A heatmap of 2 rows (query token i (row)) by 2 columns (key token j (column)); colour shows each value.
    Each cell prints its number. Hover over (or tap) a point for its exact value; the Download menu under the
    chart has the numbers as CSV where offered.
    """
    data, layout = spec.get("data", []), spec.get("layout", {})
    unnamed = tr("charts.axis_unnamed")
    kinds = {trace.get("type") for trace in data}
    heatmaps = [trace for trace in data if trace.get("type") == "heatmap"]
    bars = [trace for trace in data if trace.get("type") == "bar"]
    parts = []
    if heatmaps:
        first = heatmaps[0]
        y_axis = _axis_title(layout.get("yaxis")) or unnamed
        x_name = "xaxis" + (first.get("xaxis") or "x")[1:]
        x_axis = _axis_title(layout.get(x_name)) or next(
            (_axis_title(v) for k, v in layout.items() if k.startswith("xaxis") and _axis_title(v)), unnamed
        )
        rows, cols = len(first.get("y") or []), len(first.get("x") or [])
        parts.append(tr("charts.heatmap", rows=rows, cols=cols, row_axis=y_axis, col_axis=x_axis))
        if len(heatmaps) > 1:
            names = [plain(note.get("text", "").replace("<br>", "")) for note in layout.get("annotations", [])]
            parts.append(tr("charts.panels", n=len(heatmaps), names=", ".join(n for n in names if n) or "…"))
        if any(trace.get("texttemplate") for trace in heatmaps):
            parts.append(tr("charts.numbers_in_cells"))
    elif bars:
        x_axis = _axis_title(layout.get("xaxis")) or unnamed
        y_axis = _axis_title(layout.get("yaxis")) or unnamed
        parts.append(tr("charts.bars", n=len(bars[0].get("x") or bars[0].get("y") or []), x_axis=x_axis, y_axis=y_axis))
        if any(trace.get("text") is not None for trace in bars):
            parts.append(tr("charts.numbers_on_bars"))
    elif "scatter" in kinds:
        x_axis = _axis_title(layout.get("xaxis")) or unnamed
        y_axis = _axis_title(layout.get("yaxis")) or unnamed
        parts.append(tr("charts.lines", x_axis=x_axis, y_axis=y_axis))
    else:
        parts.append(tr("charts.other"))
    parts.append(tr("charts.numbers_hover"))
    return " ".join(parts)


def typed_array(value) -> np.ndarray | None:
    """The NumPy array a Plotly typed array in a figure's JSON holds (``{"dtype": "f8",
    "bdata": <base64>, "shape": "2, 3"}``, as ``Figure.to_dict()`` writes a NumPy array: Plotly's
    documented typed-array form), little-endian as Plotly.js reads it; None for any other value.

    >>> typed_array({"dtype": "i1", "bdata": "AQI="}).tolist(), typed_array({"dtype": "f8", "bdata": ""}).shape
    ([1, 2], (0,))
    >>> typed_array({"dtype": "u1", "bdata": "AQIDBA==", "shape": "2, 2"}).tolist(), typed_array([1, 2])
    ([[1, 2], [3, 4]], None)
    """
    if not (isinstance(value, dict) and isinstance(value.get("bdata"), str) and "dtype" in value):
        return None
    array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]).newbyteorder("<"))
    shape = value.get("shape")
    if shape is not None:
        dims = shape if isinstance(shape, list | tuple) else str(shape).split(",")
        array = array.reshape([int(dim) for dim in dims])
    return array


def vectors_as_lists(props: dict) -> dict:
    """``props`` (a trace, a layout, or a part of one) with its 1-D typed arrays, nested too, as
    lists; a new dict where anything changed, ``props`` itself where nothing did.

    ``Figure.to_dict`` writes a NumPy array as a typed array; Plotly.js turns a 1-D one into a
    Float64Array, which Streamlit's copy of the figure (JSON) makes a plain object, and Plotly
    draws the chart again for that "new" data. A 2-D array (with a ``shape``) stays as it is.

    >>> trace = {"type": "bar", "y": {"dtype": "f8", "bdata": "AAAAAAAA8D8="}, "marker": {"color": "red"}}
    >>> vectors_as_lists(trace)["y"], trace["y"]["dtype"]
    ([1.0], 'f8')
    """
    changed = {}
    for name, value in props.items():
        if not isinstance(value, dict):
            continue
        array = typed_array(value)
        if array is None:
            inner = vectors_as_lists(value)
            if inner is not value:
                changed[name] = inner
        elif "shape" not in value:
            changed[name] = array.tolist()
    return {**props, **changed} if changed else props


def figure_json(fig) -> dict:
    """``fig``'s JSON, made once (``to_dict()``: a deep copy, as plain dicts and lists), with its
    1-D arrays as lists (``vectors_as_lists``): what every step of the pipeline reads.

    >>> import plotly.graph_objects as go
    >>> figure_json(go.Figure(go.Bar(y=np.array([0.5, 1.0]))))["data"][0]["y"]
    [0.5, 1.0]
    """
    spec = fig.to_dict()
    data = [vectors_as_lists(trace) for trace in spec["data"]]
    return {**spec, "data": data, "layout": vectors_as_lists(spec["layout"])}


def prepare(fig, *, presenting: bool = False) -> tuple[dict, str]:
    """``fig`` through every step of the pipeline, once each, in order: the JSON to send, and its
    accessible name and description (``alt_text``, ``describe``), read before the first step.
    ``fig`` is not changed.

    >>> from attention_ui.heatmaps import heatmap
    >>> spec, alt = prepare(heatmap([[0.5, 0.25]], ["a"], ["b", "c"], title="w"), presenting=True)
    >>> spec["layout"]["title"]["text"], spec["layout"]["font"]["size"], alt[:17]
    ('<b>w</b>', 18, 'w. A heatmap of 1')
    """
    spec = figure_json(fig)
    alt = f"{alt_text(spec)}. {describe(spec)}"
    if presenting:
        spec = projector(spec)
    return themed(fit_margins(spec)), alt


def alt_text(spec: dict) -> str:
    """A chart's accessible name (aria-label): its title without markup, else "chart".

    >>> alt_text({"layout": {"title": {"text": "Weights α̂ <b>row 2</b>"}}}), alt_text({"layout": {}})
    ('Weights α̂ row 2', 'chart')
    """
    title = (spec.get("layout", {}).get("title") or {}).get("text") or ""
    return plain(title) or "chart"


def drawn_as_table(fig, table: bool = False) -> bool:
    """Whether ``draw`` shows ``fig`` as an HTML table rather than a Plotly chart: it is a
    ``heatmaps.Matrix`` with a table (``heatmaps.token_matrix``, up to 26 rows: ``MAX_TABLE_ROWS``)
    and either presentation mode is on or the page asks for the table (``table``).

    >>> from attention_ui.heatmaps import heatmap, token_matrix
    >>> drawn_as_table(token_matrix([[1.0]], ["a"], ["a"], title="w"), table=True), drawn_as_table(
    ...     heatmap([[1.0]], ["a"], ["a"], title="w"), table=True)
    (True, False)
    """
    return isinstance(fig, Matrix) and fig.cells is not None and (table or is_presenting())


CHART_KEY = "chart"
"""Key of the "Interactive chart" switch, and its URL parameter (``?chart=true``)."""


def tables_chosen() -> bool:
    """The "Interactive chart" switch above a page's token × token matrices, bound to
    ``?chart=true``: whether the page draws them as tables that print every number (the switch
    off, the default; ``draw(table=...)``). Not shown in presentation mode, which always draws
    tables. Call it once per run, where the switch belongs on the page.
    """
    if is_presenting():
        return True
    return not st.toggle(
        t("charts.as_chart"), key=CHART_KEY, value=False, bind="query-params", help=t("charts.as_chart_help")
    )


def draw(
    fig,
    key: str,
    *,
    config: dict | None = None,
    alt: str | None = None,
    on_click: Callable[[dict], None] | None = None,
    fresh: str = "",
    table: bool = False,
) -> None:
    """Draw ``fig`` on the page through the pipeline.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure (a ``figures.Chart`` says what its cells need), or a
        ``heatmaps.Matrix`` (a table or a chart, built only as the one drawn)
    key : str
        Names the chart's containers; the chart's own key is ``key`` + ``_present`` in
        presentation mode + ``fresh``. The browser merges a new figure into the one it shows, so
        a font size that disappears from the layout would stay, and so would a changed toolbar:
        another key draws afresh.
    config : dict, optional
        Plotly's ``config`` (the toolbar).
    alt : str, optional
        The chart's accessible name; by default its title (``alt_text``).
    on_click : callable, optional
        ``on_click(point)`` runs before the rerun when the learner clicks a marker of the figure
        (``figures.click_targets``); ``point`` is Plotly's point as Streamlit reports it.
    fresh : str
        Added to the chart's key (see ``key``).
    table : bool
        Draw a ``heatmaps.Matrix`` as an HTML table outside presentation mode too
        (``drawn_as_table``).

    A heatmap whose cells print numbers sits in a container that hides them, with the note
    "hover for the values", where the chart is too narrow for them (``attention_ui.style``);
    one that prints none always has the note.

    A ``heatmaps.Matrix`` (``heatmaps.token_matrix``) is drawn as an HTML table, and its Plotly
    figure never built, in presentation mode or when the page asks (``table``): every number printed,
    in type that grows with the screen (a teacher cannot hover for a room), with the choice to
    spotlight one query row. Chromium draws the table in about half the time of the Plotly
    heatmap whose cells print the same numbers as SVG text (docs/benchmarks.md, bench_app).
    Elsewhere it is its Plotly chart, with the table beside it for print only.
    """
    if drawn_as_table(fig, table):
        draw_table(fig.cells, key)  # no Plotly figure is built
        return
    presenting = is_presenting()
    cells = fig.cells if isinstance(fig, Matrix) else None  # the chart's print twin
    if isinstance(fig, Matrix):
        fig = fig.chart()
    numbers = getattr(fig, "numbers_px", None)
    if numbers and presenting:  # larger numbers need wider cells
        numbers = round(numbers * FONT_SCALE)
    phone_ticks, phone_step = getattr(fig, "phone_ticks", True), getattr(fig, "phone_step", 1)
    min_width = getattr(fig, "min_width", None)
    if numbers and min_width and min_width >= numbers:  # never drawn narrower than its numbers need
        numbers = None  # so they always show (a phone scrolls the chart sideways instead)
    phone_values = getattr(fig, "phone_values", ())
    spec, described = prepare(fig, presenting=presenting)
    rules = chart_box_css(key, numbers_px=numbers, min_width=min_width, phone_values=phone_values)
    if rules:
        st.html(rules)  # only <style>: no space taken
    # The chart and its print twin in one container, or the page itself (st; typed Any for that)
    outer: Any = st.container(key=TWIN_KEY.format(key=key)) if cells is not None else st
    outer = outer.container(key=WIDE_KEY.format(key=key)) if min_width else outer  # scrolls sideways
    outer = outer.container(key=PHONE_VALUES_KEY.format(key=key)) if phone_values else outer  # fewer values
    if not phone_ticks or phone_step > 1:  # too many column labels for a phone: none, or some
        box = outer.container(
            key=NO_PHONE_TICKS_KEY.format(key=key)
            if not phone_ticks
            else THIN_PHONE_TICKS_KEY.format(step=min(phone_step, MAX_PHONE_STEP), key=key)
        )
        box = box.container(key=CELLS_KEY.format(key=key)) if numbers else box
    else:
        box = outer.container(key=CELLS_KEY.format(key=key)) if numbers else outer.container()
    chart_key = key + ("_present" if presenting else "") + fresh
    selecting: dict[str, Any] = {}
    if on_click is not None:

        def clicked() -> None:
            points = st.session_state[chart_key].selection.points
            if points:
                on_click(points[0])

        selecting = {"on_select": clicked, "selection_mode": "points"}
    with box:
        st.plotly_chart(
            SentAsIs(spec),
            key=chart_key,
            theme=None,  # the theme is in the figure (chart_theme)
            config=config or {},
            alt=alt or described,
            **selecting,
        )
        if numbers is not None:
            note = st.container(key=(NOTE_KEY if numbers else HOVER_NOTE_KEY).format(key=key))
            note.caption(t("exports.hover_values"))
    if cells is not None:  # a printed page cannot hover, and Plotly's chart keeps its screen width
        with outer:
            show_matrix(cells, description=t("charts.numbers_table"), print_only=True)


SPOTLIGHT_WIDTH_PX = 420
"""The width of the spotlight choice above a matrix drawn as a table."""


def draw_table(cells, key: str) -> None:
    """``cells`` (``heatmaps.Cells``) as an HTML table for a projector, in a container keyed
    ``MATRIX_KEY``, over a choice of one query row to spotlight (large, under the matrix). The
    choice sits below the matrix, so that the matrix starts on the first screen."""
    with st.container(key=MATRIX_KEY.format(key=key)):
        spotlit_matrix(cells, key)


@page_part()
def spotlit_matrix(cells, key: str) -> None:
    """The matrix and its spotlight choice (``draw_table``): a part of the page that reruns alone
    when the learner spotlights a row, which changes only this matrix (``fragments.page_part``)."""
    rows = list(range(len(cells.row_labels)))
    slot = st.empty()  # the matrix, drawn once the choice below is known
    spotlight = st.selectbox(  # one line, its label said in each option
        t("presentation.spotlight"),
        [None, *rows],
        format_func=lambda r: (
            t("presentation.spotlight_option", row=t("presentation.spotlight_none"))
            if r is None
            else t("presentation.spotlight_option", row=cells.row_labels[r])
        ),
        key=f"{key}_spotlight",
        help=t("presentation.spotlight_help"),
        label_visibility="collapsed",
        width=SPOTLIGHT_WIDTH_PX,
    )
    if spotlight is not None and spotlight >= len(rows):  # a shorter sentence since
        spotlight = None
    slot.html(matrix_html(cells, spotlight=spotlight, description=t("charts.numbers_table")))
