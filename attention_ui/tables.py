"""Read-only tables of numbers, each drawn as one static HTML table.

Not ``st.table``: Streamlit renders every cell and header of an ``st.table`` as Markdown (a
Markdown parser and a styled component per cell), and the code page's ~700 cells made most of
its page switch (docs/benchmarks.md). Not ``st.dataframe``: a
canvas grid, slower still to draw. Here a table is HTML built from escaped text, sent with
``st.html``: one element, plain cells. Every number cell keeps its full value in
``data-value`` (what the tests read), the cell shows it formatted. Its look (borders, header
colour, dark theme, scrolling when wide) is the style sheet's ``TABLE_CLASS`` rules.
"""

from __future__ import annotations

import functools
import html
import numbers

import numpy as np
import plotly.colors as pc
import streamlit as st

from .heatmaps import DIVERGING
from .text_width import text_px

TABLE_CLASS = "num-table"
"""Class of every table here (the style sheet's section 6 draws it); its wrapper's is ``TABLE_CLASS-wrap``."""


def _cell(value, number: str) -> str:
    """One ``<td>``: a number formatted with ``number`` and its full value kept, or escaped text.

    >>> _cell(0.123456, "{:.2f}"), _cell(3, "{:.2f}"), _cell("<b>", "{:.2f}")
    ('<td class="n" data-value="0.123456">0.12</td>', '<td class="n" data-value="3">3</td>', '<td>&lt;b&gt;</td>')
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):  # text (a flag reads as text)
        return f"<td>{html.escape(str(value))}</td>"
    if isinstance(value, numbers.Integral):
        return f'<td class="n" data-value="{int(value)}">{int(value)}</td>'
    return f'<td class="n" data-value="{float(value)!r}">{html.escape(number.format(float(value)))}</td>'


def table_html(columns: dict, *, index=None, number: str = "{:.4f}", height: int | None = None) -> str:
    """The HTML of ``{header: column}`` as a table: real numbers formatted with ``number``
    (integers as they are), text and labels escaped (tokens are the learner's text);
    ``index``: row labels, or none; ``height`` in px scrolls a long table.

    >>> print(table_html({"α̂": [0.25]}, index=["1: <it>"]))  # doctest: +NORMALIZE_WHITESPACE
    <div class="num-table-wrap"><table class="num-table"><thead><tr><th></th><th scope="col">α̂</th></tr></thead>
    <tbody><tr><th scope="row">1: &lt;it&gt;</th><td class="n" data-value="0.25">0.2500</td></tr></tbody></table></div>
    """
    cells = [list(column) for column in columns.values()]
    n_rows = len(cells[0]) if cells else 0
    if any(len(column) != n_rows for column in cells) or (index is not None and len(index) != n_rows):
        raise ValueError(f"columns and index must have one length: {[len(c) for c in cells]}, index {index}")
    head = ("<th></th>" if index is not None else "") + "".join(
        f'<th scope="col">{html.escape(str(header))}</th>' for header in columns
    )
    rows = []
    for r in range(n_rows):
        label = f'<th scope="row">{html.escape(str(index[r]))}</th>' if index is not None else ""
        rows.append(f"<tr>{label}{''.join(_cell(column[r], number) for column in cells)}</tr>")
    scroll = f' style="max-height: {int(height)}px"' if height is not None else ""
    return (
        f'<div class="{TABLE_CLASS}-wrap"{scroll}><table class="{TABLE_CLASS}"><thead><tr>{head}</tr></thead>\n'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def number_table(columns: dict, *, index=None, number: str = "{:.4f}", height: int | None = None) -> None:
    """Show ``{header: column}`` as a table (``table_html``), e.g.
    ``number_table({"α̂": weights}, index=["1: the", "2: cat"])``."""
    st.html(table_html(columns, index=index, number=number, height=height))


# --------------------------------------------------------------------------- matrices cell by cell

MATRIX_CLASS = "cell-matrix"
"""Class of a matrix drawn as an HTML table (``matrix_html``); its wrapper's is ``MATRIX_CLASS-wrap``,
and a table shown only in print has ``print-only`` on its wrapper too (the style sheet's section 7)."""
CELL_PAD_EM = 0.7
"""What a cell spends beside its number (padding and border), in ems of the table's font."""
LABEL_PAD_EM = 1.0
"""... and the row labels' column beside its widest label."""
MAX_LABEL_EM = 9.0
"""Row labels wider than this (ems) wrap: the numbers keep the width."""
DARK_BACKGROUND = 0.45
"""A cell whose colour is darker than this (relative luminance, 0 to 1) gets white text."""
DARK_CELL = "dk"
"""A dark cell's class: the style sheet writes its number in white (other coloured cells: near black).
Class and hex colour, not an inline ``color: …; background: rgb(…)``: a 17 × 17 table was 41 KB."""
PRINT_SHADES = 5
"""A printed matrix has this many light shades above white per hue (``print_shades``)."""


@functools.cache
def _stops(colorscale: str) -> tuple[np.ndarray, np.ndarray]:
    """A named Plotly colour scale as arrays: its stops' places (n,) and their colours (n, 3),
    0–255 channels (a scale gives its colours as hex or as ``rgb(…)``).

    >>> places, rgb = _stops("Cividis")
    >>> places[[0, -1]].tolist(), rgb[0].tolist()
    ([0.0, 1.0], [0.0, 34.0, 78.0])
    """
    scale = pc.get_colorscale(colorscale)
    places = np.array([float(place) for place, _ in scale])  # (n,)
    rgb = np.array(  # (n, 3)
        [pc.hex_to_rgb(colour) if colour.startswith("#") else pc.unlabel_rgb(colour) for _, colour in scale],
        dtype=np.float64,
    )
    return places, rgb


def cell_colours(z, colorscale: str, zmin: float, zmax: float) -> list[list[tuple[str, str] | None]]:
    """For each cell of ``z``: (background, text colour) as the heatmap draws it (Plotly's
    linear interpolation between the scale's stops), or None for a cell it leaves blank
    (−∞, a masked score; NaN). NumPy interpolates every cell at once: Plotly's own
    ``sample_colorscale`` parses and checks each colour again for each cell (0.9 ms against
    4.6–5.4 ms for the 18 × 18 weights, docs/benchmarks.md).

    >>> cell_colours([[0.0, 1.0, float("-inf")]], "Cividis", 0.0, 1.0)
    [[('#00224e', '#ffffff'), ('#fee838', '#1a1a1a'), None]]
    """
    places, stops = _stops(colorscale)
    z = np.asarray(z, dtype=np.float64)  # (rows, cols)
    finite = np.isfinite(z)
    span = (zmax - zmin) or 1.0
    where = np.clip((np.where(finite, z, zmin) - zmin) / span, 0.0, 1.0)  # (rows, cols) in [0, 1]
    rgb = np.stack([np.interp(where, places, stops[:, c]) for c in range(3)], axis=-1)  # (rows, cols, 3)
    linear = np.where(rgb / 255 <= 0.04045, rgb / 255 / 12.92, ((rgb / 255 + 0.055) / 1.055) ** 2.4)
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])  # (rows, cols): WCAG relative luminance
    out: list[list[tuple[str, str] | None]] = []
    for r in range(z.shape[0]):
        line: list[tuple[str, str] | None] = []
        for c in range(z.shape[1]):
            if not finite[r, c]:
                line.append(None)
                continue
            text = "#ffffff" if round(float(luminance[r, c]), 6) < DARK_BACKGROUND else "#1a1a1a"
            line.append(("#{:02x}{:02x}{:02x}".format(*(round(float(v)) for v in rgb[r, c])), text))
        out.append(line)
    return out


def print_shades(z, zmin: float, zmax: float, diverging: bool) -> list[list[str]]:
    """For each cell of ``z``: its class in print, a light shade instead of the screen's fill
    (the style sheet's section 10 colours ``h1`` … ``h5`` with one hue, ``l1`` … ``l5`` with
    the other): the cell's place on the same range as its screen colour, cut into
    ``PRINT_SHADES`` steps; a diverging scale counts from its middle, "l" below and "h" above.
    "" for a cell left white (the lowest step, the middle, a blank cell).

    >>> print_shades([[0.0, 0.25, 1.0, float("-inf")]], 0.0, 1.0, diverging=False)
    [['', 'h1', 'h5', '']]
    >>> print_shades([[-2.0, 0.1, 1.2]], -2.0, 2.0, diverging=True)
    [['l5', '', 'h3']]
    """
    z = np.asarray(z, dtype=np.float64)  # (rows, cols)
    finite = np.isfinite(z)
    span = (zmax - zmin) or 1.0
    where = np.clip((np.where(finite, z, zmin) - zmin) / span, 0.0, 1.0)  # (rows, cols) in [0, 1]
    signed = 2.0 * where - 1.0 if diverging else where  # (rows, cols): from the middle, or from the bottom
    steps = np.rint(np.abs(signed) * PRINT_SHADES).astype(int)  # (rows, cols) in 0..PRINT_SHADES
    side = np.where(signed < 0, "l", "h")  # (rows, cols)
    shown = finite & (steps > 0)  # (rows, cols)
    return [[f"{side[r, c]}{steps[r, c]}" if shown[r, c] else "" for c in range(z.shape[1])] for r in range(z.shape[0])]


def _em(texts) -> float:
    """The widest of ``texts`` in ems of the app's font (``text_width``)."""
    return max((text_px(text, 1.0) for text in texts), default=0.0)


def matrix_html(cells, *, spotlight: int | None = None, description: str = "", print_only: bool = False) -> str:
    """The matrix ``cells`` (``heatmaps.Cells``) as one HTML table: a header of column labels, a
    row label and one coloured cell per number, each cell printing exactly the heatmap's text
    and keeping the full value in ``data-value``. Every label and the title are escaped.

    The font follows the table's width (a container query: as large as the columns fit, up to
    a ceiling), so the table fills a projector's width and fits a printed page.
    ``spotlight``: a row (0-based) drawn alone, large, under the whole matrix, which marks it.
    ``description``: said after the title in the caption (what the table shows, for a
    screen reader too). ``print_only``: shown only when the page is printed (under a Plotly
    chart, which prints badly).

    >>> from attention_ui.heatmaps import token_matrix
    >>> page = matrix_html(token_matrix([[0.25, 0.75], [1.0, 0.0]], ["<b>", "b"], ["<b>", "b"], title="w").cells)
    >>> "1: &lt;b&gt;" in page, "<b>" in page, page.count('<td '), 'data-value="0.25">0.25<' in page
    (True, False, 4, True)
    """
    colours = cell_colours(cells.z, cells.colorscale, cells.zmin, cells.zmax)
    shades = print_shades(cells.z, cells.zmin, cells.zmax, diverging=cells.colorscale == DIVERGING)
    n_cols = len(cells.col_labels)
    cell_em = _em(text for row in cells.texts for text in row) + CELL_PAD_EM
    label_em = min(_em(cells.row_labels), MAX_LABEL_EM) + LABEL_PAD_EM
    sizes = f"--cols: {n_cols}; --cell-em: {cell_em:.3f}; --label-em: {label_em:.3f}"

    def header(label_em_: float | None) -> str:
        corner = "<td></td>" if label_em_ is not None else ""
        return (
            f"<thead><tr>{corner}"
            + "".join(f'<th scope="col"><span>{html.escape(label)}</span></th>' for label in cells.col_labels)
            + "</tr></thead>"
        )

    def row_html(r: int, labelled: bool, extra: str = "") -> str:
        tds = []
        for c, text in enumerate(cells.texts[r]):
            value = float(cells.z[r, c])
            colour = colours[r][c]
            dark = DARK_CELL if colour and colour[1] == "#ffffff" else ""
            names = " ".join(name for name in (dark, shades[r][c]) if name)
            style = (f' style="background:{colour[0]}"' if colour else "") + (f' class="{names}"' if names else "")
            tds.append(f'<td{style} data-value="{value!r}">{html.escape(text)}</td>')
        label = f'<th scope="row">{html.escape(cells.row_labels[r])}</th>' if labelled else ""
        return f"<tr{extra}>{label}{''.join(tds)}</tr>"

    axes = " · ".join(
        part
        for part in (cells.row_title and f"↓ {cells.row_title}", cells.col_title and f"→ {cells.col_title}")
        if part
    )
    caption = (
        f'<caption><span class="cm-title">{html.escape(cells.title)}</span>'
        + (f'<span class="cm-axes">{html.escape(axes)}</span>' if axes else "")
        + (f'<span class="cm-desc">{html.escape(description)}</span>' if description else "")
        + "</caption>"
    )
    rows = "".join(row_html(r, True, ' class="cm-spot"' if r == spotlight else "") for r in range(len(cells.texts)))
    table = (
        f'<div class="{MATRIX_CLASS}-wrap" style="{sizes}" tabindex="0">'
        f'<table class="{MATRIX_CLASS}">{caption}{header(label_em)}<tbody>{rows}</tbody></table></div>'
    )
    spot = ""
    if spotlight is not None and 0 <= spotlight < len(cells.texts):
        spot_sizes = f"--cols: {n_cols}; --cell-em: {cell_em:.3f}; --label-em: 0"
        spot = (
            f'<div class="{MATRIX_CLASS}-wrap cm-spotlight" style="{spot_sizes}" tabindex="0">'
            f'<table class="{MATRIX_CLASS}"><caption><span class="cm-title">'
            f"{html.escape(cells.row_labels[spotlight])}</span></caption>"
            f"{header(None)}<tbody>{row_html(spotlight, False)}</tbody></table></div>"
        )
    wrap = f'<div class="{MATRIX_CLASS}-box{" print-only" if print_only else ""}">'
    return f"{wrap}{table}{spot}</div>"


def show_matrix(cells, *, spotlight: int | None = None, description: str = "", print_only: bool = False) -> None:
    """Show ``cells`` as an HTML table (``matrix_html``)."""
    st.html(matrix_html(cells, spotlight=spotlight, description=description, print_only=print_only))
