"""Exports: the CSV holds exactly the matrix's numbers and labels (read back with the csv
module and numpy), no label can run as a spreadsheet formula, the chart's toolbar offers PNG
and SVG, and the download button on a page carries the right file."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_ui.exports import (
    FORMULA_START,
    IMAGE_FORMATS,
    csv_safe,
    matrix_csv,
    plotly_config,
    safe_filename,
    view_url,
)

NASTY = [
    "the",
    "a,b",
    'say "hi"',
    "line\nbreak",
    '=HYPERLINK("http://x")',
    "+1",
    "-",
    "-2",
    "@SUM(A1)",
    "\tTab",
    "\rcr",
    "'quoted",
    "猫",
    "👍🏽",
    "<script>alert(1)</script>",
    "",
    " spaced ",
]


def read_back(text: str):
    """Parse our CSV with the csv module; undo the one apostrophe csv_safe may add."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    unquote = lambda s: s[1:] if s.startswith("'") else s  # noqa: E731
    corner, cols = unquote(rows[0][0]), [unquote(c) for c in rows[0][1:]]
    labels = [unquote(r[0]) for r in rows[1:]]
    numbers = np.array([[float(x) for x in r[1:]] for r in rows[1:]])
    return corner, cols, labels, numbers, rows


def test_round_trip_exact_numbers_and_nasty_labels():
    rng = np.random.default_rng(0)
    n = len(NASTY)
    z = rng.normal(size=(n, n)) * 10.0 ** rng.integers(-12, 12, size=(n, n))  # (n, n)  many magnitudes
    z[0, 0], z[1, 1], z[2, 2] = -np.inf, 0.0, -0.0  # a masked score and signed zeros
    text = matrix_csv(z, NASTY, NASTY, corner="query \\ key")
    corner, cols, labels, numbers, _ = read_back(text)
    assert corner == "query \\ key" and cols == NASTY and labels == NASTY
    assert numbers.shape == z.shape
    assert np.array_equal(numbers, z)  # bit-for-bit: repr round-trips every float64
    assert np.signbit(numbers[2, 2])


def test_numpy_reads_a_plain_matrix():
    z = np.array([[0.125, 0.875, 0.0], [1 / 3, 1 / 3, 1 / 3]])  # (2, 3)
    text = matrix_csv(z, ["the", "cat"], ["the", "cat", "sat"])
    loaded = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, usecols=(1, 2, 3))
    assert np.array_equal(loaded, z)


def test_no_cell_can_run_as_a_formula():
    z = np.array([[-1.5] * len(NASTY)])  # negative numbers start with "-" and must stay numbers
    _, _, _, _, rows = read_back(matrix_csv(z, ["=cmd|' /C calc'!A0"], NASTY, corner="=corner"))
    for r in rows:
        for cell in r:
            if cell.startswith(FORMULA_START):
                assert cell.startswith("'") or _is_number(cell), cell
    assert rows[1][1:] == ["-1.5"] * len(NASTY)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
        return True
    except ValueError:
        return False


def test_csv_safe_is_reversible_and_leaves_plain_text_alone():
    for label in NASTY:
        safe = csv_safe(label)
        assert (safe[1:] if safe.startswith("'") else safe) == label
        assert not safe.startswith(FORMULA_START[:-1]), safe
    assert csv_safe("cat") == "cat" and csv_safe("猫") == "猫"


def test_one_row_and_shape_errors():
    text = matrix_csv([0.2, 0.8], ["q0"], ["k0", "k1"])
    assert text.splitlines() == [",k0,k1", "q0,0.2,0.8"]
    with pytest.raises(ValueError, match="2 row labels"):
        matrix_csv(np.zeros((3, 2)), ["a", "b"], ["x", "y"])
    with pytest.raises(ValueError, match="1-D or 2-D"):
        matrix_csv(np.zeros((2, 2, 2)), ["a", "b"], ["x", "y"])


def test_plotly_config_offers_png_and_svg():
    assert IMAGE_FORMATS == ("png", "svg")
    for fmt in IMAGE_FORMATS:
        cfg = plotly_config("attention weights α̂ <3>", fmt)
        opts = cfg["toImageButtonOptions"]
        assert opts["format"] == fmt and opts["filename"] == "attention_weights_3"
        json.dumps(cfg)  # Streamlit sends it as JSON
    assert plotly_config("x", "png")["toImageButtonOptions"]["scale"] == 2
    with pytest.raises(ValueError):
        plotly_config("x", "pdf")


def test_safe_filename_and_view_url():
    assert safe_filename("../../etc/passwd") == "etc_passwd"
    assert safe_filename("猫") == "figure" and len(safe_filename("a" * 500)) == 80
    url = view_url("https://x.streamlit.app/exercises", {"ex_seed": "3", "sentence": "我爱猫 & <b>", "lang": "zh"})
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    assert parts.path == "/exercises" and parse_qs(parts.query) == {
        "ex_seed": ["3"],
        "sentence": ["我爱猫 & <b>"],
        "lang": ["zh"],
    }
    assert view_url("http://h/p?old=1#frag", {}) == "http://h/p"


# --------------------------------------------------------------------------- in Streamlit

SCRIPT = """
import numpy as np
import plotly.graph_objects as go
import streamlit as st
from attention_ui.exports import show_figure, view_link
z = np.array([[0.25, -1.5, 1e-300], [np.pi, 2.0, -np.inf]])
show_figure(go.Figure(go.Heatmap(z=[[1, 2, 3], [4, 5, 6]], textfont={"size": 13})), "fig_w", matrix=z,
            row_labels=["=q0", "q,1"], col_labels=["k0", "猫", '"k2"'], filename="attention weights", corner="q \\\\ k")
show_figure(go.Figure(), "fig_plain")
view_link()
"""


def test_show_figure_download_button_holds_the_matrix(captured_files):
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    buttons = at.get("download_button")
    assert [b.proto.label for b in buttons] == ["CSV"]  # no matrix, no CSV button
    url = buttons[0].proto.url
    files = [f for f in captured_files if f["filename"] == "attention_weights.csv"]
    assert files and url.endswith(files[-1]["id"] + ".csv")
    assert files[-1]["mimetype"].startswith("text/csv")
    data = files[-1]["data"]
    assert data.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM: Excel shows 猫 correctly
    corner, cols, labels, numbers, _ = read_back(data.decode("utf-8-sig"))
    assert corner == "q \\ k" and cols == ["k0", "猫", '"k2"'] and labels == ["=q0", "q,1"]
    assert np.array_equal(numbers, np.array([[0.25, -1.5, 1e-300], [np.pi, 2.0, -np.inf]]))


def test_a_deferred_csv_is_written_on_click_with_the_same_bytes(captured_files, monkeypatch):
    """defer_csv: nothing is written on the run; the callable a click runs gives the eager CSV's bytes."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    deferred = {}
    original = MediaFileManager.add_deferred

    def spy(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        deferred[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name=file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    script = SCRIPT.replace('corner="q \\\\ k")', 'corner="q \\\\ k", defer_csv=True)')
    assert "defer_csv=True" in script
    at = AppTest.from_string(script, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    button = at.get("download_button")[0].proto
    assert not button.url and button.deferred_file_id
    assert not [f for f in captured_files if f["filename"] == "attention_weights.csv"]  # nothing written yet
    data = deferred["attention_weights.csv"]()  # what a click runs
    eager = AppTest.from_string(SCRIPT, default_timeout=60)
    eager.run()
    assert data == next(f["data"] for f in captured_files if f["filename"] == "attention_weights.csv")
    numbers = read_back(data.decode("utf-8-sig"))[3]
    assert np.array_equal(numbers, np.array([[0.25, -1.5, 1e-300], [np.pi, 2.0, -np.inf]]))


def test_show_figure_modebar_and_format_switch():
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    at.run()
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    cfg = json.loads(charts[0].proto.config)
    assert cfg["toImageButtonOptions"] == {"format": "png", "filename": "attention_weights", "scale": 2}
    assert json.loads(charts[1].proto.config)["toImageButtonOptions"]["filename"] == "fig_plain"
    # choosing SVG under one chart switches the toolbar of every chart (one preference per session)
    at.button_group(key="fig_w_format").set_value("svg").run()
    assert not at.exception, at.exception
    for chart in at.get("plotly_chart"):
        assert json.loads(chart.proto.config)["toImageButtonOptions"]["format"] == "svg"
    assert at.button_group(key="fig_plain_format").value == "svg"


def test_view_link_in_a_code_block():
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    at.query_params["ex_seed"] = "12"
    at.query_params["sentence"] = "我爱猫"
    at.run()
    code = at.code[0].value
    assert "ex_seed=12" in code and "sentence=%E6%88%91%E7%88%B1%E7%8C%AB" in code


def test_show_figure_sends_the_theme_in_the_figure():
    """What makes the browser draw each chart once (chart_theme.py): no Streamlit theme, no
    template, no meta, a datarevision, Streamlit's look in the layout."""
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    at.run()
    for chart in at.get("plotly_chart"):
        assert chart.proto.theme == ""  # theme=None
        layout = json.loads(chart.proto.spec)["layout"]
        assert "template" not in layout and "meta" not in layout
        assert len(layout["datarevision"]) == 16
        assert layout["font"]["family"] == '"Source Sans", sans-serif'
