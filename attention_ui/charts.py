"""The chart pipeline: every chart of the app goes from its Plotly figure to the page here, so
that Chromium draws it once.

    figure ──to_dict()──▶ JSON ──projector──▶ ──fit_margins──▶ ──themed──▶ st.plotly_chart(theme=None)
            (once)        (presentation mode)  (margins)       (chart_theme)

``prepare`` turns the figure into its JSON once; each step after that takes a figure's JSON (a
dict) and returns a new one, changing nothing it was given: ``presentation.projector`` (larger
type on a projector), ``margins.fit_margins`` (margins that already hold the labels and colour
bars, so Plotly does not widen them and draw again) and ``chart_theme.themed`` (Streamlit's look
written into the layout, so Streamlit's own theme does not make Plotly draw again). What the
page lays around the chart comes from the figure's builder, as explicit attributes of the
figure (``figures.Chart``: ``numbers_px``, ``phone_ticks``), never through ``layout.meta``.

``draw`` puts a prepared chart on the page: in a container whose key tells the style sheet how
wide the chart must be for its cell numbers (``style.cell_rules``) and whether a phone keeps its
column labels, with the note "hover for the values" under a chart whose numbers may be hidden.
``exports.show_figure`` is ``draw`` with the download menu under the chart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from .chart_theme import themed
from .figures import Matrix
from .i18n import t
from .internals import SentAsIs
from .margins import fit_margins
from .presentation import FONT_SCALE, is_presenting, projector
from .style import (
    CELL_WIDTHS,
    CELLS_KEY,
    HOVER_NOTE_KEY,
    MATRIX_KEY,
    MAX_PHONE_STEP,
    NO_PHONE_TICKS_KEY,
    NOTE_KEY,
    THIN_PHONE_TICKS_KEY,
    TWIN_KEY,
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

    >>> from attention_ui.figures import token_matrix
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


@dataclass(frozen=True)
class Prepared:
    """A chart ready to send: ``spec``, the JSON ``st.plotly_chart`` sends as it is, and what
    the page lays around it (see ``figures.Chart``), for the mode it is drawn in."""

    spec: dict
    numbers_px: int | None = None
    phone_ticks: bool = True
    phone_step: int = 1

    @property
    def alt(self) -> str:
        """The chart's accessible name and description: its title without markup (else
        "chart"), then what it shows and where its numbers are (``describe``)."""
        return f"{alt_text(self.spec)}. {describe(self.spec)}"


def prepare(fig, *, presenting: bool = False) -> Prepared:
    """``fig`` through every step of the pipeline; ``fig`` is not changed.

    >>> from attention_ui.figures import heatmap
    >>> chart = prepare(heatmap([[0.5, 0.25]], ["a"], ["b", "c"], title="w"), presenting=True)
    >>> chart.spec["layout"]["title"]["text"], chart.spec["layout"]["font"]["size"], chart.numbers_px > 0
    ('<b>w</b>', 18, True)
    """
    spec = fig.to_dict()  # the one conversion: a deep copy, as plain dicts and lists
    if presenting:
        spec = projector(spec)
    numbers = getattr(fig, "numbers_px", None)
    if numbers and presenting:  # larger numbers need wider cells
        numbers = round(numbers * FONT_SCALE)
    return Prepared(
        themed(fit_margins(spec)), numbers, getattr(fig, "phone_ticks", True), getattr(fig, "phone_step", 1)
    )


def alt_text(spec: dict) -> str:
    """A chart's accessible name (aria-label): its title without markup, else "chart".

    >>> alt_text({"layout": {"title": {"text": "Weights α̂ <b>row 2</b>"}}}), alt_text({"layout": {}})
    ('Weights α̂ row 2', 'chart')
    """
    title = (spec.get("layout", {}).get("title") or {}).get("text") or ""
    return plain(title) or "chart"


def cells_key(width: int, key: str) -> str:
    """The key of the container around a chart whose cell numbers need ``width`` px: the
    width rounded up to one of ``style.CELL_WIDTHS``, for which a container query exists.

    >>> cells_key(595, "fig_weights"), cells_key(9000, "fig_w")
    ('cells600_fig_weights', 'cells2000_fig_w')
    """
    bucket = next((w for w in CELL_WIDTHS if w >= width), CELL_WIDTHS[-1])
    return CELLS_KEY.format(width=bucket, key=key)


def drawn_as_table(fig, table: bool = False) -> bool:
    """Whether ``draw`` shows ``fig`` as an HTML table rather than a Plotly chart: it is a
    ``figures.Matrix`` with a table (``figures.token_matrix``, up to 26 rows: ``MAX_TABLE_ROWS``)
    and either presentation mode is on or the page asks for the table (``table``).

    >>> from attention_ui.figures import heatmap, token_matrix
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
    fig : plotly.graph_objects.Figure (a ``figures.Chart`` says what its cells need)
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
        Draw a figure that carries its matrix as ``Cells`` as an HTML table outside
        presentation mode too (``drawn_as_table``).

    A heatmap whose cells print numbers sits in a container that hides them, with the note
    "hover for the values", where the chart is too narrow for them (``attention_ui.style``);
    one that prints none always has the note.

    A figure that carries its matrix as ``Cells`` (``figures.token_matrix``) is drawn as an
    HTML table in presentation mode or when the page asks (``table``): every number printed,
    in type that grows with the screen (a teacher cannot hover for a room), with the choice to
    spotlight one query row. Chromium draws the table in about half the time of the Plotly
    heatmap whose cells print the same numbers as SVG text (docs/benchmarks.md, bench_app).
    Elsewhere it is its Plotly chart, with the table beside it for print only.
    """
    presenting = is_presenting()
    cells = fig.cells if isinstance(fig, Matrix) else None
    if drawn_as_table(fig, table):
        draw_table(cells, key)  # no Plotly figure is built
        return
    if isinstance(fig, Matrix):
        fig = fig.chart()
    chart = prepare(fig, presenting=presenting)
    numbers = chart.numbers_px
    outer = st.container(key=TWIN_KEY.format(key=key)) if cells is not None else st  # the chart and its print twin
    if not chart.phone_ticks or chart.phone_step > 1:  # too many column labels for a phone: none, or some
        box = outer.container(
            key=NO_PHONE_TICKS_KEY.format(key=key)
            if not chart.phone_ticks
            else THIN_PHONE_TICKS_KEY.format(step=min(chart.phone_step, MAX_PHONE_STEP), key=key)
        )
        box = box.container(key=cells_key(numbers, key)) if numbers else box
    else:
        box = outer.container(key=cells_key(numbers, key)) if numbers else outer.container()
    chart_key = key + ("_present" if presenting else "") + fresh
    selecting = {}
    if on_click is not None:

        def clicked() -> None:
            points = st.session_state[chart_key].selection.points
            if points:
                on_click(points[0])

        selecting = {"on_select": clicked, "selection_mode": "points"}
    with box:
        st.plotly_chart(
            SentAsIs(chart.spec),
            key=chart_key,
            theme=None,  # the theme is in the figure (chart_theme)
            config=config or {},
            alt=alt or chart.alt,
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
    """``cells`` (``figures.Cells``) as an HTML table for a projector, in a container keyed
    ``MATRIX_KEY``, over a choice of one query row to spotlight (large, under the matrix). The
    choice sits below the matrix, so that the matrix starts on the first screen."""
    rows = list(range(len(cells.row_labels)))
    with st.container(key=MATRIX_KEY.format(key=key)):
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
