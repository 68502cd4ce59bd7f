"""Read-only tables of numbers, drawn as static HTML.

``st.table`` rather than ``st.dataframe``: a data grid is a canvas widget that Chromium takes
far longer to draw, and a switch to the code page drew eleven of them (bench/bench_clicks.py).
``st.table`` renders its cells and headers as Markdown, so every label is escaped here.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from .safe import escape_markdown


def number_table(columns: dict, *, index=None, number: str = "{:.4f}") -> None:
    """Show ``{header: column}`` as a table; float columns formatted with ``number`` (the data
    keep every digit: AppTest and copy-paste read the full values). ``index``: row labels, or
    none shown. Example: ``number_table({"α̂": weights}, index=["0: the", "1: cat"])``.
    """
    escaped = lambda labels: [escape_markdown(str(label)) for label in labels]  # noqa: E731
    frame = pd.DataFrame(dict(zip(escaped(columns), columns.values())), index=None if index is None else escaped(index))
    floats = [c for c in frame.columns if frame[c].dtype.kind == "f"]
    st.table(frame.style.format(number, subset=floats), hide_index=index is None)
