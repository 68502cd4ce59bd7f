"""Read-only tables of numbers, drawn as static HTML.

``st.table`` rather than ``st.dataframe``: a data grid is a canvas widget that Chromium takes
far longer to draw, and a switch to the code page drew eleven of them (bench/bench_clicks.py).
``st.table`` renders its cells and headers as Markdown, so every label and text cell is escaped here.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from .safe import escape_markdown


def number_table(columns: dict, *, index=None, number: str = "{:.4f}", height: int | str = "content") -> None:
    """Show ``{header: column}`` as a table; float columns formatted with ``number`` (the data
    keep every digit: AppTest and copy-paste read the full values), text cells and labels
    escaped (tokens are the learner's text). ``index``: row labels, or none shown; ``height``
    in px scrolls a long table. Example: ``number_table({"α̂": weights}, index=["1: the", "2: cat"])``.
    """
    escaped = lambda labels: [escape_markdown(str(label)) for label in labels]  # noqa: E731
    cells = {
        header: escaped(column) if any(isinstance(cell, str) for cell in column) else column
        for header, column in zip(escaped(columns), columns.values())
    }
    frame = pd.DataFrame(cells, index=None if index is None else escaped(index))
    floats = [c for c in frame.columns if frame[c].dtype.kind == "f"]
    st.table(frame.style.format(number, subset=floats), hide_index=index is None, height=height)


def warm_up() -> str:
    """Import pandas' Styler and load its HTML template, as the first ``number_table`` of a
    server would (0.1 s after pandas' own 0.3 s). Returns the HTML of a one-cell table.

    >>> "0.5000" in warm_up()
    True
    """
    return pd.DataFrame({"x": [0.5]}).style.format("{:.4f}").to_html()
