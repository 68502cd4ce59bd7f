"""The app's one style sheet: layouts that fit the screen they are on (issue 16).

A projector at 1024 px with the sidebar open, a phone at 390 px and a 1400 px laptop see
the same pages. What Python cannot know (the width of a chart) is left to the browser:

* **Charts in side-by-side columns stack** below ``STACK_BELOW_PX`` of window width: a
  column that holds a chart takes the full row (``CHART_COLUMNS``), and so does one in a
  container keyed ``STACK_KEY``. Button and page-link labels wrap instead of ending in "…".
* **Cell numbers follow the chart's width.** ``heatmaps.heatmap`` prints numbers in cells up
  to 24 rows and columns and says how wide the chart must be for them to fit
  (``heatmaps.cell_numbers_width``); the chart pipeline (``charts.draw``) puts the chart in a
  container keyed ``cells_<key>`` and adds that chart's own rule (``chart_box_css``): a
  container query that hides the numbers and shows "hover for the values" while the container
  is narrower than that width. A chart that must stay wide (the heads grid) gets its least width
  the same way, and scrolls sideways in a narrower page.
* **Formulas wrap** at their relations and operators (KaTeX draws each ``=``/``+``-separated
  part as an inline block; display mode only forbids the wrap) and scroll rather than
  overflow when a single part is still too wide.
* **Touch screens** (no hover) keep only the camera of Plotly's toolbar, and chart titles get
  a smaller font on a phone.
* **Charts** get whole-pixel widths (Plotly draws a chart again for a fraction of a pixel) and,
  in the dark theme, the dark counterparts of ``chart_theme``'s colours (``chart_dark_rules``).
* **Tables of numbers** (``tables.number_table``, plain HTML) get the lines of Streamlit's
  own tables, numbers right-aligned, and scroll sideways in their frame when too wide.
* **The tailor shop's samples** sit in a grid of 4 per row below ``STACK_BELOW_PX`` and of 2
  on a phone, instead of eight full-width shirts one under the other; its picture sum goes
  two by two on a phone.

Everything here is a constant built from numbers in this module and from what the app knows
of Streamlit's and Plotly's page structure (``attention_ui.internals``, where a canary watches
each selector): no learner text ever goes into the CSS. ``apply_style()`` adds it once per run
(``shell.page_start`` calls it); the small script that closes the sidebar after a page is
picked on a phone goes in the sidebar (``sidebar_script``), because a script element takes a
line of the page.

>>> "container-name: cells" in APP_CSS, "@container cells" in chart_box_css("fig_w", numbers_px=600)
(True, True)
"""

from __future__ import annotations

import re

import streamlit as st

from .chart_theme import ORANGE, PHONE_TITLE_PX
from .clicker import PATH_KEY
from .internals import (
    BAR_VALUE,
    CELL_NUMBERS,
    CHART_TITLE,
    CONTROLS,
    DARK,
    HEATMAP_FILL,
    HOVER_BORDER,
    HOVER_LAYER,
    LEGEND,
    LINE,
    MODEBAR,
    PAPER,
    PHONE_PX,
    PLOT_SVG,
    SCREEN_ONLY,
    SHAPE,
    SIDEBAR_OVERLAY_PX,
    SVG_BOX,
    TABLE_LINE,
    TEXT,
    TITLE,
    TOOLBAR_GROUPS,
    X_AXIS_LAYER,
    key_class,
    key_prefix,
    styled,
    testid,
)
from .tables import MATRIX_CLASS, PRINT_SHADES, TABLE_CLASS

STACK_BELOW_PX = 1100
"""Window width below which half- and third-width chart columns stack (a 1024 px projector)."""
CELLS_KEY = "cells_{key}"
"""Key of the container around a chart with cell numbers (Streamlit adds class st-key-<key>); the
width they need comes with the chart (``chart_box_css``)."""
NOTE_KEY = "cellnote_{key}"
"""Key of the "hover for the values" note under such a chart."""
HOVER_NOTE_KEY = "hovernote_{key}"
"""Key of that note under a chart whose cells print no numbers (always shown on screen; a printed
page, which cannot hover, leaves it out)."""
NO_PHONE_TICKS_KEY = "noticks_{key}"
"""Key of a container whose chart's column labels a phone hides (``heatmaps.heatmap_row`` says
when: too many for three narrow panels; the hover still names every cell)."""
THIN_PHONE_TICKS_KEY = "thin{step}ticks_{key}"
"""Key of a container whose chart's column labels a phone shows every ``step``-th of (the first,
then every step-th; ``figures.Chart.phone_step``: tilted labels too close together; the hover
names every column), for a step from 2 to ``MAX_PHONE_STEP``."""
MAX_PHONE_STEP = 6
"""The largest such step: 48 tilted labels (``axes.MAX_TICKED_COLS``) by 8."""
SAMPLES_KEY = "sample_grid"
"""Key of a container whose columns form a grid of 4, and of 2 on a phone (the tailor's shirts)."""
PAIRS_KEY = "pair_grid"
"""Key of a container whose columns go two by two on a phone (the tailor's picture sum)."""
STACK_KEY = "stack_{name}"
"""Key of a container whose columns stack like chart columns (the code page: source | numbers)."""
BESIDE_KEY = "beside_first_screen"
"""Key of a container whose row of a chart keeps its two columns side by side, 2 : 3, from a
phone's width on, instead of stacking below ``STACK_BELOW_PX`` (a projector's first screen, where
a control must stay beside the chart it moves: Train beside the training curves)."""
_BESIDE = (
    f".{key_class(BESIDE_KEY)}.{key_class(BESIDE_KEY)} "
    f"{testid('stHorizontalBlock')}:has({testid('stPlotlyChart')}) > {testid('stColumn')}"
)
SIDE_BY_SIDE_KEY = "print_side_by_side"
"""Key of a container whose containers print side by side, each a share of the sheet's width
(What do heads do?'s two tables of heads: one under the other, the page took two A4 sheets)."""
MATRIX_KEY = "matrix_{key}"
"""Key of the container of a matrix drawn as an HTML table in presentation mode (``charts.draw_table``)."""
TWIN_KEY = "twin_{key}"
"""Key of the container of a chart that has an HTML table twin for print (``charts.draw``): in
print the table shows and the chart does not."""
PHONE_VALUES_KEY = "phonevalues_{key}"
"""Key of a container whose chart's bar values a phone shows only some of (``Chart.phone_values``)."""
WIDE_KEY = "wide_{key}"
"""Key of a container whose chart is drawn at least its ``figures.Chart.min_width`` wide and
scrolls sideways in a narrower page, with a cue (the heads grid: ``model_figures.grid_min_width``;
the width comes with the chart, ``chart_box_css``)."""
FOCUS = "#1c83e1"
"""The ring round the control that has the keyboard's focus (Streamlit's own blue)."""
SPOT = "#ff4b4b"
"""The frame of the spotlighted row of a matrix (Streamlit's primary red)."""
PRINT_MARGIN_MM = 12
"""A printed page's margin (the print style sheet's ``@page``)."""
PRINT_WIDTH_PX = round((210 - 2 * PRINT_MARGIN_MM) / 25.4 * 96)
"""An A4 page's printable width in CSS px (96 per inch) inside those margins: 703."""
PRINT_HEIGHT_PX = round((297 - 2 * PRINT_MARGIN_MM) / 25.4 * 96)
"""... and its printable height: 1032. What lies below it goes to a second sheet."""
PRINT_ROOT_PX = 12
"""The type of a printed page (the root font size; the screen's is 16 px): 9 pt, a handout's small
print, so that What do heads do? (its text, the 72 heads and two tables) fits one A4 sheet; at
10.5 pt it took two."""
PRINT_CHROME = ("stSidebar", "stHeader", "stToolbar", "stStatusWidget", "stBottom", "stExpandSidebarButton")
"""Streamlit's frame around the page (sidebar, header and its toolbar, the running man, the
bottom bar, the » that opens the sidebar): never printed."""
PRINT_TINT = {"high": "#e8743b", "low": "#3b7dd8"}
"""The two hues of a printed matrix's light scale: a cell's number is always near black on white
mixed with at most ``PRINT_TINT_MAX`` of one of them (a sequential scale uses "high" only; a
diverging one "low" below its middle and "high" above). Dark fills waste toner and print muddy."""
PRINT_TINT_MAX = 55
"""The strongest tint (percent of the hue over white) of the highest print shade."""
PRINT_HEATMAP_OPACITY = 0.4
"""A printed Plotly heatmap's cells over the white paper: its darkest colours come out as light as
the strongest print shade of a table (Plotly draws the cells as one picture, which CSS cannot
recolour cell by cell); its cell numbers turn near black."""


def _thin_phone_ticks() -> str:
    """The rules that keep every step-th column label of a chart in a ``THIN_PHONE_TICKS_KEY``
    container on a phone, one media query per step: the first, every step-th, and the last (the
    [SEP] a learner looks for), for which the kept label less than a step before it gives way."""

    def rule(step: int) -> str:
        box = f"{key_prefix(THIN_PHONE_TICKS_KEY.format(step=step, key=''))} {X_AXIS_LAYER} > g"
        off = f"{box}:not(:nth-of-type({step}n+1)):not(:last-of-type)"
        too_near = f"{box}:nth-of-type({step}n+1):nth-last-of-type(-n+{step}):not(:last-of-type)"
        return f"@media (max-width: {PHONE_PX - 0.02}px) {{ {off} text, {too_near} text {{ display: none; }} }}"

    return "\n".join(rule(step) for step in range(2, MAX_PHONE_STEP + 1))


_COLUMN, _MAIN = testid("stColumn"), testid("stMain")
CHART_COLUMNS = (
    f"{testid('stHorizontalBlock')}:has(> {_COLUMN} {testid('stPlotlyChart')}) > {_COLUMN}, "
    f"{key_prefix(STACK_KEY.format(name=''))} {_COLUMN}"
)
"""The columns of a row that holds a chart, and those in a ``STACK_KEY`` container."""


_KEY = re.compile(r"[A-Za-z0-9_-]+")


def chart_box_css(
    key: str, numbers_px: int | None = None, min_width: int | None = None, phone_values: tuple[int, ...] = ()
) -> str:
    """The rules of one chart drawn by ``charts.draw`` with ``key``, from what its builder said
    (``figures.Chart``): its cell numbers hidden, and the note "hover for the values" shown, while
    its ``CELLS_KEY`` container is narrower than ``numbers_px``; at least ``min_width`` px wide
    in its ``WIDE_KEY`` container, whose toolbar (at the chart's far right, out of sight) hides
    while the container is narrower; the values of bars ``phone_values`` (0-based) hidden on a
    phone, in its ``PHONE_VALUES_KEY`` container. "" when none is given. Built from the key (letters,
    digits, ``_`` and ``-`` only) and numbers, never from learner text.

    >>> print(chart_box_css("fig_w", numbers_px=594))  # doctest: +NORMALIZE_WHITESPACE
    <style>@container cells (max-width: 593.98px) { .st-key-cells_fig_w .heatmap-label { display: none; }
    .st-key-cells_fig_w .st-key-cellnote_fig_w { display: block; } }</style>
    >>> print(chart_box_css("fig_grid", min_width=860))  # doctest: +NORMALIZE_WHITESPACE
    <style>.st-key-wide_fig_grid [data-testid="stElementContainer"]:has([data-testid="stPlotlyChart"])
    { min-width: 860px; }
    @container wide (max-width: 859.98px) { .st-key-wide_fig_grid .modebar-container
    { display: none !important; } }</style>
    >>> print(chart_box_css("fig_row", phone_values=(1,)))  # doctest: +NORMALIZE_WHITESPACE
    <style>@media (max-width: 639.98px) { .st-key-phonevalues_fig_row .bars .point:nth-of-type(2) .bartext
    { display: none; } }</style>
    """
    if not _KEY.fullmatch(key):
        raise ValueError(f"not a chart key: {key!r}")
    rules = []
    if numbers_px:
        box, note = key_class(CELLS_KEY.format(key=key)), key_class(NOTE_KEY.format(key=key))
        rules.append(
            f"@container cells (max-width: {int(numbers_px) - 0.02}px) {{ .{box} {CELL_NUMBERS} {{ display: none; }}\n"
            f".{box} .{note} {{ display: block; }} }}"
        )
    if min_width:
        box = key_class(WIDE_KEY.format(key=key))
        chart = f"{testid('stElementContainer')}:has({testid('stPlotlyChart')})"
        rules.append(f".{box} {chart} {{ min-width: {int(min_width)}px; }}")
        narrow = int(min_width) - 0.02
        rules.append(f"@container wide (max-width: {narrow}px) {{ .{box} {MODEBAR} {{ display: none !important; }} }}")
    if phone_values:
        box = key_class(PHONE_VALUES_KEY.format(key=key))
        hidden = ", ".join(f".{box} {BAR_VALUE.format(n=int(j) + 1)}" for j in phone_values)
        rules.append(f"@media (max-width: {PHONE_PX - 0.02}px) {{ {hidden} {{ display: none; }} }}")
    return f"<style>{chr(10).join(rules)}</style>" if rules else ""


def chart_dark_rules() -> str:
    """Charts in the dark theme: each light colour of ``chart_theme`` that Plotly drew (text
    fills, grid and tick strokes, the paper, the hover box) becomes its dark counterpart.
    ``light-dark()`` follows the ``color-scheme`` Streamlit sets on the app, so in the light
    theme these rules change nothing; a browser without ``light-dark()`` keeps the light
    colours (a white chart on the dark page, still readable). One ``<style>`` per rule.

    >>> 'text[style*="fill: rgb(128, 132, 149)"]' in chart_dark_rules()
    True
    """
    plot = PLOT_SVG
    rules = [
        f"<style>{plot} text{styled('fill', light)} {{ fill: light-dark({light}, {DARK[light]}) !important; }}</style>"
        for light in (TEXT, TITLE, LEGEND)
    ]
    rules += [
        f"<style>{plot} path{styled('stroke', LINE)} "
        f"{{ stroke: light-dark({LINE}, {DARK[LINE]}) !important; }}</style>",
        f"<style>{plot}{styled('background', PAPER)} "
        f"{{ background: light-dark({PAPER}, {DARK[PAPER]}) !important; }}</style>",
        f"<style>{plot} :is(rect.bg, {HOVER_LAYER} path){styled('fill', PAPER)} "
        f"{{ fill: light-dark({PAPER}, {DARK[PAPER]}) !important; }}</style>",
        f"<style>{plot} {HOVER_LAYER} path{styled('stroke', HOVER_BORDER)} "
        f"{{ stroke: light-dark({HOVER_BORDER}, {DARK[HOVER_BORDER]}) !important; }}</style>",
    ]
    return "\n".join(rules)


def print_css() -> str:
    """Section 10 of the style sheet, handouts (print), for every page: the page alone, its sentence
    and settings on top (``presentation.handout``); no sidebar, header, toolbars or controls
    (``PRINT_CHROME``, ``internals.CONTROLS``, each with the element box that holds it: an empty box
    still took a gap of the page's column, and the "Interactive chart" toggle alone made a second
    sheet, issue 43); matrices as tables with every number on a light scale
    (``tables.print_shades``, ``PRINT_TINT``) and Plotly heatmaps washed out to it, near-black
    numbers, no solid dark fill; type and gaps a little tighter than on screen, so that a 24-token
    window's matrix prints on the first sheet under the sentence; charts fitted to the page's width
    (the sidebar script gives each chart's SVG layers a viewBox before printing).

    >>> css = print_css()
    >>> '@media print' in css, '[data-testid="stCheckbox"]' in css, ".cell-matrix td.h5" in css
    (True, True, True)
    """
    hidden = [testid(name) for name in PRINT_CHROME]
    html_box = testid("stHtml")
    hidden += [f"{testid('stElementContainer')}:has({testid(name)})" for name in CONTROLS]
    hidden += [testid(name) for name in CONTROLS]
    hidden += [
        testid("stElementToolbar"),
        MODEBAR,
        key_prefix(NOTE_KEY.format(key="")),
        key_prefix(HOVER_NOTE_KEY.format(key="")),
        f".{key_class(PATH_KEY)}",
        key_prefix(SCREEN_ONLY),
        # the boxes of what is hidden or draws nothing (a script), each a gap of the column on paper
        f"{testid('stLayoutWrapper')}:has(> :is({key_prefix(SCREEN_ONLY)}, .{key_class(PATH_KEY)}))",
        f"{testid('stElementContainer')}:has(> {html_box}):not(:has(> {html_box} > :not(script, style)))",
        f"{key_prefix(TWIN_KEY.format(key=''))} {testid('stPlotlyChart')}",
        # a closed expander is a line to click, with nothing under it on paper (and its box a gap)
        f"{testid('stLayoutWrapper')}:has(> {testid('stExpander')} > details:not([open]))",
        f"{testid('stExpander')}:has(> details:not([open]))",
        # a column with nothing to print (all its parts screen-only): the columns beside it widen
        f"{testid('stColumn')}:not(:has({testid('stElementContainer')}:not({key_prefix(SCREEN_ONLY)} *)))",
    ]
    shades = "\n".join(
        f"  .{MATRIX_CLASS} td.{side}{step} {{ background: color-mix(in srgb, {hue} "
        f"{round(PRINT_TINT_MAX * step / PRINT_SHADES)}%, #ffffff) !important; }}"
        for side, hue in (("h", PRINT_TINT["high"]), ("l", PRINT_TINT["low"]))
        for step in range(1, PRINT_SHADES + 1)
    )
    return f"""/* 10 · Handouts (print) */
@page {{ margin: {PRINT_MARGIN_MM}mm; }}
@media print {{
  {", ".join(hidden)} {{
    display: none !important;
  }}
  html, body, #root, {testid("stApp")}, {testid("stAppViewContainer")}, {_MAIN} {{
    height: auto !important; min-height: 0 !important; overflow: visible !important; position: static !important;
  }}
  html {{ font-size: {PRINT_ROOT_PX}px !important; }}
  {testid("stMainBlockContainer")} {{ max-width: 100% !important; padding: 0 !important; }}
  {_MAIN} {testid("stVerticalBlock")} {{ gap: 0.5rem !important; }}
  {_MAIN} {testid("stAlertContainer")} {{ padding: 0.4rem 0.75rem !important; }}
  {_MAIN} h1 {{ font-size: 1.75rem !important; padding: 0 0 0.25rem 0 !important; }}
  {_MAIN} :is(p, li) {{ margin-bottom: 0.25rem; line-height: 1.35; }}
  {_MAIN} :is(h2, h3) {{ padding: 0.25rem 0 0.15rem 0 !important; }}
  .{key_class(SIDE_BY_SIDE_KEY)} {{ display: flex !important; flex-direction: row !important; gap: 1rem !important; }}
  .{key_class(SIDE_BY_SIDE_KEY)} > * {{ flex: 1 1 0 !important; min-width: 0 !important; width: auto !important; }}
  .{key_class(SIDE_BY_SIDE_KEY)} .{TABLE_CLASS} {{ font-size: 0.8em; }}
  .{key_class(SIDE_BY_SIDE_KEY)} .{TABLE_CLASS} :is(td, th) {{ padding: 0.2em 0.4em !important; }}
  .{key_class(SIDE_BY_SIDE_KEY)} .{TABLE_CLASS} tbody td {{ white-space: nowrap; }}
  .katex-display {{ margin: 0.25em 0 !important; }}
  .print-only {{ display: block !important; }}
  .{MATRIX_CLASS}-wrap {{ overflow: visible; background: none; }}
  .{MATRIX_CLASS} {{
    font-size: clamp(7px, var(--fit), 14px); border-collapse: collapse;
    print-color-adjust: exact; -webkit-print-color-adjust: exact;
  }}
  .{MATRIX_CLASS} {{ line-height: 1.25; }}
  .{MATRIX_CLASS} tbody td {{ border: 0.5px solid #b8b8b8; }}
  .{MATRIX_CLASS} td[style] {{ background: #ffffff !important; color: #1a1a1a !important; }}
{shades}
  :is({HEATMAP_FILL}) {{ opacity: {PRINT_HEATMAP_OPACITY} !important; }}
  {CELL_NUMBERS} {{ fill: #1a1a1a !important; }}
  .{TABLE_CLASS}-wrap {{ overflow: visible; background: none; }}
  {key_prefix(WIDE_KEY.format(key=""))} {{ overflow: visible; animation: none; }}
  {key_prefix(WIDE_KEY.format(key=""))} {testid("stElementContainer")} {{ min-width: 0 !important; }}
  {testid("stVerticalBlock")}{key_prefix(WIDE_KEY.format(key=""))} {{ width: 85% !important; margin: 0 auto; }}
  {SVG_BOX} {{ width: 100% !important; height: auto !important; }}
  {SVG_BOX} > svg {{ width: 100% !important; height: auto !important; }}
  {SVG_BOX} > svg:first-child {{ position: relative !important; }}
  {testid("stPlotlyChart")}, {testid("stElementContainer")}, {testid("stVerticalBlock")} {{
    width: 100% !important; max-width: 100% !important; height: auto !important;
  }}
  {testid("stPlotlyChart")}, .{MATRIX_CLASS}-wrap, .{TABLE_CLASS}-wrap, .katex-display {{ break-inside: avoid; }}
  * {{ print-color-adjust: exact; -webkit-print-color-adjust: exact; }}
}}
/* a dark theme prints as the light one: white paper, dark ink. The system's dark theme by its
   media query; one chosen in Streamlit's own menu (or its config) by the mark the sidebar script
   puts on the page before printing (PRINT_DARK) */
{_white_paper("", dark_system=True)}
{_white_paper(f"[{PRINT_DARK}]")}"""


PRINT_DARK = "data-print-dark"
"""The mark the sidebar script sets on ``<html>`` before printing when the app is drawn dark (its
background's luminance under a half), whichever way the dark theme was chosen: a theme picked
in Streamlit's menu does not change the system's ``prefers-color-scheme``."""


def _white_paper(mark: str, *, dark_system: bool = False) -> str:
    """The print rules that turn a dark page into white paper with dark ink, on a page whose
    ``<html>`` has ``mark`` (an attribute selector, or "" for any); with ``dark_system`` only
    when the system's theme is dark (a nested media query)."""
    inner = ("body", "#root", testid("stApp"), testid("stAppViewContainer"), _MAIN)
    opened, closed = ("@media (prefers-color-scheme: dark) {", "}") if dark_system else ("", "")
    return f"""@media print {{ {opened}
  {", ".join([f"html{mark}", *(f"html{mark} {s}" for s in inner)])} {{
    background: #ffffff !important; color-scheme: light !important;
  }}
  html{mark} {_MAIN} :not(svg, svg *) {{ color: #1a1a1a !important; }}
{closed} }}"""


APP_CSS = f"""<style>
/* 1 · Charts in columns stack below {STACK_BELOW_PX} px: a 1024 px projector with the sidebar open */
@media (max-width: {STACK_BELOW_PX - 0.02}px) {{
  {CHART_COLUMNS} {{ min-width: 100% !important; flex: 1 1 100% !important; }}
}}
/* … except on a projector's first screen (``BESIDE_KEY``): a control beside the chart it moves */
@media (min-width: {PHONE_PX}px) {{
  {_BESIDE}:first-child {{ min-width: 0 !important; flex: 2 1 0% !important; }}
  {_BESIDE}:last-child {{ min-width: 0 !important; flex: 3 1 0% !important; }}
}}
/* Labels of buttons and page links in the page wrap onto a second line rather than end in "…" */
{_MAIN} button p, {_MAIN} {testid("stPageLink")} span {{
  white-space: normal; text-overflow: clip;
}}
/* A row of choices (layer, head) in a narrow column wraps instead of scrolling its first ones out of sight */
{_MAIN} {testid("stButtonGroup")} > div {{ flex-wrap: wrap; }}
/* … and a choice that wrapped keeps both its side lines (a row of choices draws the line between two
   with one of them: "formal" lost its right edge when "casual" went to the next line) */
{_MAIN} {testid("stButtonGroup")} [role="radio"][aria-checked="false"] {{
  border-inline-color: color-mix(in srgb, currentColor 22%, transparent);
}}
{_MAIN} {testid("stButtonGroup")} [role="radio"][aria-checked="true"] {{ position: relative; z-index: 1; }}
/* 2 · Formulas wrap at = and +, and scroll (never cut) when one part is still too wide */
.katex-display {{ overflow-x: auto; overflow-y: hidden; }}
.katex-display > .katex {{ white-space: normal; }}
.katex-display > .katex > .katex-html > .base {{ margin: 0.15em 0; }}
@media (max-width: {PHONE_PX - 0.02}px) {{
  .katex-display > .katex {{ font-size: 1.05em; }}
}}
/* 3 · Cell numbers only where the cells can hold them; else "hover for the values" */
{key_prefix(CELLS_KEY.format(key=""))} {{ container-name: cells; container-type: inline-size; }}
{key_prefix(NOTE_KEY.format(key=""))} {{ display: none; }}
/* 3b · A row of narrow panels with many column labels: none on a phone, the hover names each cell */
@media (max-width: {PHONE_PX - 0.02}px) {{
  {key_prefix(NO_PHONE_TICKS_KEY.format(key=""))} {X_AXIS_LAYER} text {{ display: none; }}
}}
{_thin_phone_ticks()}
/* 4 · Touch screens: only the camera of Plotly's toolbar, smaller chart titles on a phone */
@media (hover: none) {{
  {TOOLBAR_GROUPS}:not(:first-child) {{ display: none !important; }}
}}
@media (max-width: {PHONE_PX - 0.02}px) {{
  {CHART_TITLE} {{ font-size: {PHONE_TITLE_PX}px !important; }}
}}
/* 4b · Charts: whole-pixel widths, so the width Plotly measured is the width Streamlit gives it
   (a fraction of a pixel apart, the chart was drawn again); their dark colours follow this sheet */
{testid("stFullScreenFrame")}:has(> {testid("stPlotlyChart")}) {{ width: round(down, 100%, 1px); }}
/* 5 · The tailor's samples: a grid of 4 below {STACK_BELOW_PX} px, of 2 on a phone */
@media (max-width: {STACK_BELOW_PX - 0.02}px) {{
  .{key_class(SAMPLES_KEY)} {testid("stHorizontalBlock")} {{ flex-wrap: wrap; }}
  .{key_class(SAMPLES_KEY)} {_COLUMN} {{
    min-width: calc(25% - 1rem) !important; flex: 1 1 calc(25% - 1rem) !important;
  }}
}}
@media (max-width: {PHONE_PX - 0.02}px) {{
  .{key_class(PAIRS_KEY)} {testid("stHorizontalBlock")} {{ flex-wrap: wrap; }}
  :is(.{key_class(SAMPLES_KEY)}, .{key_class(PAIRS_KEY)}) {_COLUMN} {{
    min-width: calc(50% - 1rem) !important; flex: 1 1 calc(50% - 1rem) !important;
  }}
}}
/* 6 · Tables of numbers (tables.number_table): lines as Streamlit draws its tables, numbers
   right-aligned in digits of one width, a wide table scrolls sideways in its frame */
.{TABLE_CLASS}-wrap {{
  overflow: auto; max-width: 100%; border-radius: 0.5rem;
  border: 1px solid {TABLE_LINE[0]}; border-color: light-dark({TABLE_LINE[0]}, {TABLE_LINE[1]});
}}
.{TABLE_CLASS} {{
  border-collapse: separate; border-spacing: 0; min-width: 100%; font-size: 0.875rem; line-height: 1.5;
}}
.{TABLE_CLASS} :is(th, td) {{
  padding: 0.25rem 0.375rem; text-align: left; vertical-align: middle; font-weight: 400;
  border: 0 solid {TABLE_LINE[0]}; border-color: light-dark({TABLE_LINE[0]}, {TABLE_LINE[1]});
  border-top-width: 1px; border-right-width: 1px;
}}
.{TABLE_CLASS} thead th {{ border-top-width: 0; }}
.{TABLE_CLASS} tr > :last-child {{ border-right-width: 0; }}
.{TABLE_CLASS} th {{ padding-left: 0.5rem; color: color-mix(in srgb, currentColor 70%, transparent); }}
.{TABLE_CLASS} tbody th {{ white-space: nowrap; }}
.{TABLE_CLASS} td.n {{ text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }}
/* 6b · A table too wide for its frame says so: a shadow at the edge it scrolls towards, and a
   scroll bar that stays visible (the code page's q[1] … q[32] were cut at q[5] with no cue) */
:is(.{TABLE_CLASS}-wrap, .{MATRIX_CLASS}-wrap) {{
  background:
    linear-gradient(to right, Canvas 30%, transparent) left / 2.5rem 100% no-repeat local,
    linear-gradient(to left, Canvas 30%, transparent) right / 2.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0, 0, 0, 0.25), transparent) left / 0.9rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0, 0, 0, 0.25), transparent) right / 0.9rem 100% no-repeat scroll;
  scrollbar-width: thin; scrollbar-color: rgba(128, 132, 149, 0.7) transparent;
}}
/* 6c · A chart too wide to shrink (the heads grid: a head stays large enough to read) scrolls
   sideways: a scroll bar that stays visible, and the right edge fades while more lies beyond it (a
   scroll-driven animation: no fade where nothing scrolls) */
{key_prefix(WIDE_KEY.format(key=""))} {{
  container-name: wide; container-type: inline-size; overflow-x: auto; overflow-y: hidden; padding-bottom: 4px;
  scrollbar-width: auto; scrollbar-color: rgba(128, 132, 149, 0.8) transparent;
}}
{key_prefix(WIDE_KEY.format(key=""))}:has({testid("stPlotlyChart")}) {{
  animation: wide-end linear both; animation-timeline: scroll(self inline);
}}
@keyframes wide-end {{ 0%, 97% {{ -webkit-mask-image: linear-gradient(to right, #000 calc(100% - 3rem),
  rgba(0, 0, 0, 0.15)); mask-image: linear-gradient(to right, #000 calc(100% - 3rem), rgba(0, 0, 0, 0.15)); }}
  100% {{ -webkit-mask-image: none; mask-image: none; }} }}
/* 7 · A matrix drawn cell by cell (tables.matrix_html): its type as large as its columns fit the
   frame's width (a container query), every number printed, white on dark cells */
.{MATRIX_CLASS}-box {{ display: flex; flex-direction: column; gap: 1rem; }}
/* positioned: the screen reader's description (absolute, 1 px) stays inside the scrolling frame; placed
   by the page, it widened a phone's page to 521 px beside a Chinese caption */
.{MATRIX_CLASS}-wrap {{
  container-type: inline-size; overflow-x: auto; max-width: 100%; padding-bottom: 2px; position: relative;
}}
.{MATRIX_CLASS} {{
  border-collapse: separate; border-spacing: 1px; margin: 0 auto;
  --fit: calc((100cqw - (var(--cols) + 2) * 1px) / (var(--cols) * var(--cell-em) + var(--label-em)));
  font-size: clamp(11px, var(--fit), 1.5rem);
  line-height: 1.45; font-variant-numeric: tabular-nums;
}}
.{MATRIX_CLASS} caption {{ caption-side: top; text-align: left; font-size: 1rem; padding-bottom: 0.35rem; }}
/* the title and the axes on one line, each wrapped in the frame's width (not the wider table's) */
.{MATRIX_CLASS} caption > span {{ display: inline-block; max-width: 100cqw; margin-right: 1em; }}
.{MATRIX_CLASS} .cm-title {{ font-weight: 700; }}
.{MATRIX_CLASS} .cm-axes {{ font-size: 0.9rem; color: color-mix(in srgb, currentColor 70%, transparent); }}
.{MATRIX_CLASS} .cm-desc {{ position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }}
.{MATRIX_CLASS} td {{ padding: 0.1em 0.35em; text-align: center; white-space: nowrap; }}
.{MATRIX_CLASS} td[style] {{ color: #1a1a1a; }}
.{MATRIX_CLASS} td.dk {{ color: #ffffff; }}
.{MATRIX_CLASS} th {{ font-weight: 400; color: color-mix(in srgb, currentColor 75%, transparent); }}
.{MATRIX_CLASS} th[scope="row"] {{
  text-align: right; padding: 0 0.5em; overflow-wrap: break-word;
  min-width: calc(var(--label-em) * 1em); max-width: calc(var(--label-em) * 1em);
}}
.{MATRIX_CLASS} th[scope="col"] {{ vertical-align: bottom; padding: 0.25em 0 0.3em 0; }}
.{MATRIX_CLASS} th[scope="col"] > span {{ writing-mode: vertical-rl; white-space: nowrap; display: inline-block; }}
.{MATRIX_CLASS} tr.cm-spot > * {{ box-shadow: inset 0 3px 0 {SPOT}, inset 0 -3px 0 {SPOT}; }}
.{MATRIX_CLASS} tr.cm-spot > th {{ font-weight: 700; color: inherit; }}
.cm-spotlight .{MATRIX_CLASS} {{
  font-size: clamp(14px, calc((100cqw - (var(--cols) + 2) * 1px) / (var(--cols) * var(--cell-em))), 2.6rem);
}}
.print-only {{ display: none; }}
/* 8 · Keyboard focus is always visible: a ring round the control (buttons, links, page links, tabs,
   toggles, sliders, the sentence box, selects), never only a colour change */
:is(a, button, summary, select, [role="button"], [role="tab"], [role="radio"], [role="option"], [role="slider"],
    [role="switch"], [role="checkbox"], [tabindex]:not([tabindex="-1"])):focus-visible,
label:has(input:focus-visible),
:is([data-baseweb="textarea"], [data-baseweb="input"], [data-baseweb="select"]):has(:focus-visible) {{
  outline: 3px solid {FOCUS} !important; outline-offset: 2px !important;
}}
/* 9 · Words never break inside: page links and button labels wrap between words (a narrow
   sidebar cut "Self vs cross attention" to "attentior"); a metric's label wraps instead of "…" */
{testid("stPageLink")} :is(a, span, p) {{ white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; overflow-wrap: normal; word-break: normal; }}
{testid("stMetricLabel")} :is(div, p, label) {{ white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; }}
/* the copy button of "Link to this view" sits beside the link, not over its end */
{testid("stSidebar")} {testid("stCode")} pre {{ padding-right: 2.75rem !important; }}
{print_css()}
</style>
{chart_dark_rules()}"""
"""The style sheet of every page: a constant, never built from user input."""

SIDEBAR_SCRIPT = f"""<script>
(() => {{
  if (window.attentionLabSidebarScript) return;
  window.attentionLabSidebarScript = true;
  document.addEventListener("click", (event) => {{
    const link = event.target.closest && event.target.closest('{testid("stSidebar")} {testid("stPageLink")} a');
    if (!link || !window.matchMedia("(max-width: {SIDEBAR_OVERLAY_PX - 0.02}px)").matches) return;
    const close = document.querySelector('{testid("stSidebarCollapseButton")} button');
    if (close) setTimeout(() => close.click(), 0);
  }}, true);
  // Fonts that only some pages' formulas (large brackets, ℝ) and code use, asked for a second after
  // the first page opens: fetched on a page's first visit instead, each late font made Chromium lay
  // that page out again while the learner waited.
  const warm = ["16px KaTeX_AMS", "16px KaTeX_Size1", "16px KaTeX_Size2", "16px KaTeX_Size3", "16px KaTeX_Size4",
                "16px 'Source Code Pro'", "italic 16px 'Source Code Pro'"];
  if (document.fonts) setTimeout(() => warm.forEach((font) => document.fonts.load(font).catch(() => {{}})), 1000);
  // Before printing, each chart's SVG layers get a viewBox of their drawn size, so the print style
  // sheet can fit them to the page's width (Plotly draws in px); after printing they lose it again.
  const layers = () => document.querySelectorAll('{SVG_BOX} > svg');
  window.addEventListener("beforeprint", () => layers().forEach((svg) => {{
    const w = svg.getAttribute("width"), h = svg.getAttribute("height");
    if (!w || !h || svg.hasAttribute("viewBox")) return;
    svg.setAttribute("viewBox", `0 0 ${{w}} ${{h}}`);
    svg.dataset.printFit = "1";
  }}));
  window.addEventListener("afterprint", () => layers().forEach((svg) => {{
    if (svg.dataset.printFit) {{ svg.removeAttribute("viewBox"); delete svg.dataset.printFit; }}
  }}));
  // A dark theme prints on white paper (print_css): mark the page when it is drawn dark, however the
  // theme was chosen (the system's, or Streamlit's own menu, which no media query can see).
  const dark = () => {{
    const app = document.querySelector('{testid("stApp")}');
    const rgb = app ? getComputedStyle(app).backgroundColor.match(/[0-9.]+/g) : null;
    return !!rgb && (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255 < 0.5;
  }};
  window.addEventListener("beforeprint", () => document.documentElement.toggleAttribute("{PRINT_DARK}", dark()));
  window.addEventListener("afterprint", () => document.documentElement.removeAttribute("{PRINT_DARK}"));
}})();
</script>"""
"""On a phone the sidebar lies over the page; Streamlit closes it after a tap on its own page
menu but not after a tap on an ``st.page_link``, which the shell uses (its links carry the
settings). This constant script presses the sidebar's close button after such a tap when
the window is narrower than ``SIDEBAR_OVERLAY_PX``. It also asks for the fonts that only some
pages use (KaTeX's large brackets and ℝ, Source Code Pro) a second after the first page opens, so
that no page's first visit waits for one (tests/browser/test_fonts.py)."""


def apply_style() -> None:
    """Add the app's style sheet to this run (after ``st.set_page_config``)."""
    st.html(APP_CSS)  # only <style>: Streamlit puts it in the event container, no space taken


def selected_frame_css(key: str, index: int) -> str:
    """The style that colours frame ``index`` (``model_figures.frame_index``) of the heads grid
    drawn with key ``key``; the other frames stay transparent. Built from the key (letters,
    digits, ``_`` and ``-`` only) and a number, never from learner text. The chart's own key
    is ``key`` and a suffix in presentation mode or for SVG (``charts.draw``): the selector
    takes every key that starts with ``key`` (the presentation grid showed no frame).

    >>> print(selected_frame_css("fig_grid", 71))  # doctest: +NORMALIZE_WHITESPACE
    <style>[class*="st-key-fig_grid"] .shape-group[data-index="71"] path
    { stroke: #ff7f0e !important; stroke-opacity: 1 !important; }</style>
    """
    if not _KEY.fullmatch(key) or int(index) < 0:
        raise ValueError(f"not a chart key and frame: {key!r}, {index!r}")
    return (
        f"<style>{key_prefix(key)} {SHAPE.format(index=int(index))}\n"
        f"{{ stroke: {ORANGE} !important; stroke-opacity: 1 !important; }}</style>"
    )


def show_selected_frame(key: str, index: int) -> None:
    """Colour one frame of the heads grid keyed ``key``: a style that changes with the pick,
    while the grid's figure (and so the drawn chart) stays the same."""
    st.html(selected_frame_css(key, index))  # only <style>: no space taken


def sidebar_script() -> None:
    """Add the sidebar-closing script; call it inside ``with st.sidebar:`` once per run."""
    st.html(SIDEBAR_SCRIPT, unsafe_allow_javascript=True)
