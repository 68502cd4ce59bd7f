"""tables.table_html: what a table of numbers sends, read back as a learner reads it."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest

from attention_ui.tables import TABLE_CLASS, table_html
from tests.helpers import TableReader


def read(body: str) -> TableReader:
    reader = TableReader()
    reader.feed(body)
    return reader


def test_numbers_show_formatted_and_keep_every_digit():
    x = np.array([1 / 3, -2.5e-7, 12345.678901234])  # (3,)
    reader = read(table_html({"x": x, "n": np.arange(3)}, index=["a", "b", "c"], number="{:.3f}"))
    assert reader.header == ["", "x", "n"] and reader.labels == ["a", "b", "c"]
    assert [row[0] for row in reader.rows] == list(x)  # float(repr(x)) == x for every float64
    assert [row[0] for row in reader.shown] == ["0.333", "-0.000", "12345.679"]
    assert [row[1] for row in reader.rows] == [0, 1, 2] and [row[1] for row in reader.shown] == ["0", "1", "2"]


def test_text_headers_and_labels_are_escaped():
    token = '<img src=x onerror="alert(1)"> & **b**'
    body = table_html({token: [token], "w": [0.5]}, index=[token])
    assert "<img" not in body and body.count(html.escape(token)) == 3
    reader = read(body)
    assert reader.header[1] == reader.labels[0] == reader.rows[0][0] == token  # shown literally


def test_no_index_no_corner_and_a_height_scrolls():
    body = table_html({"a": [1.0, 2.0]}, height=300)
    assert read(body).header == ["a"] and read(body).labels == []
    assert re.search(rf'<div class="{TABLE_CLASS}-wrap" style="max-height: 300px">', body)
    assert "max-height" not in table_html({"a": [1.0]})


def test_not_a_number_and_booleans():
    reader = read(table_html({"x": [math.nan, math.inf], "flag": [True, False]}))
    assert math.isnan(reader.rows[0][0]) and reader.rows[1][0] == math.inf
    assert [row[1] for row in reader.rows] == ["True", "False"]  # text, not the numbers 1 and 0


def test_columns_of_different_lengths_are_refused():
    with pytest.raises(ValueError):
        table_html({"a": [1.0, 2.0], "b": [1.0]})
    with pytest.raises(ValueError):
        table_html({"a": [1.0, 2.0]}, index=["only one"])
