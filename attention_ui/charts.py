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
from .i18n import t
from .internals import SentAsIs
from .margins import fit_margins
from .presentation import FONT_SCALE, is_presenting, projector
from .style import CELL_WIDTHS, CELLS_KEY, NO_PHONE_TICKS_KEY, NOTE_KEY
from .text_width import plain


@dataclass(frozen=True)
class Prepared:
    """A chart ready to send: ``spec``, the JSON ``st.plotly_chart`` sends as it is, and what
    the page lays around it (see ``figures.Chart``), for the mode it is drawn in."""

    spec: dict
    numbers_px: int | None = None
    phone_ticks: bool = True

    @property
    def alt(self) -> str:
        """The chart's accessible name: its title without markup, else "chart"."""
        return alt_text(self.spec)


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
    return Prepared(themed(fit_margins(spec)), numbers, getattr(fig, "phone_ticks", True))


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


def draw(
    fig,
    key: str,
    *,
    config: dict | None = None,
    alt: str | None = None,
    on_click: Callable[[dict], None] | None = None,
    fresh: str = "",
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

    A heatmap whose cells print numbers sits in a container that hides them, with the note
    "hover for the values", where the chart is too narrow for them (``attention_ui.style``);
    one that prints none always has the note.
    """
    presenting = is_presenting()
    chart = prepare(fig, presenting=presenting)
    cells = chart.numbers_px
    if not chart.phone_ticks:  # too many column labels for a phone
        box = st.container(key=NO_PHONE_TICKS_KEY.format(key=key))
        box = box.container(key=cells_key(cells, key)) if cells else box
    else:
        box = st.container(key=cells_key(cells, key)) if cells else st.container()
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
        if cells is not None:
            note = st.container(key=NOTE_KEY.format(key=key)) if cells else st.container()
            note.caption(t("exports.hover_values"))
