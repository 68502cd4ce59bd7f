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

import html
import numbers

import numpy as np
import streamlit as st

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
