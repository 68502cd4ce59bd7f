"""The chart pipeline (attention_ui/charts.py) on a page: every chart goes through it, and the
containers it lays around a chart follow what the figure's builder said (figures.Chart), in
presentation mode too. Drawing once in Chromium: tests/browser/test_drawn_once.py."""

from __future__ import annotations

import ast
import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_ui.internals import SCREEN_ONLY
from tests.helpers import ROOT

SCRIPT = """
import numpy as np
import plotly.graph_objects as go
from attention_ui.exports import show_figure
from attention_ui.heatmaps import heatmap, heatmap_row
from attention_ui.vector_figures import key_bars
labels = [str(k) for k in range(30)]
show_figure(heatmap(np.eye(3), labels[:3], labels[:3], title="small"), "fig_small")
show_figure(heatmap(np.eye(30), labels, labels, title="large"), "fig_large")
show_figure(heatmap_row([(n, np.eye(8)) for n in "qkv"], labels[:8], title="row"), "fig_row")
show_figure(key_bars([0.5, 0.5], ["a", "b"], title="bars"), "fig_bars")
"""


def _blocks(at) -> dict[str, list[str]]:
    """Each keyed container's key and the kinds of what it holds (depth-first)."""
    found = {}

    def walk(node, inside):
        proto = getattr(node, "proto", None)
        key = re.sub(r"^\$\$ID-[0-9a-f]+-", "", getattr(proto, "id", "") or "") if proto is not None else ""
        if type(node).__name__ == "Block" and key:
            inside = [*inside, key]
            found[key] = []
        for name in inside:
            if type(node).__name__ != "Block":
                found[name].append(getattr(node, "type", ""))
        for child in getattr(node, "children", {}).values():
            walk(child, inside)

    walk(at._tree, [])
    return found


def _run(script: str = SCRIPT, **params) -> AppTest:
    at = AppTest.from_string(script, default_timeout=60)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _needed(at, key: str) -> int | None:
    """The width (px) below which the chart keyed ``key`` hides its cell numbers, as its own style
    rule says (``style.chart_box_css``); None without such a rule."""
    for element in at.get("html"):
        found = re.search(rf"max-width: ([\d.]+)px\) \{{ \.st-key-cells_{key} ", element.proto.body)
        if found:
            return round(float(found[1]))
    return None


def test_the_containers_follow_what_the_builder_said():
    from attention_ui.heatmaps import heatmap

    at = _run()
    blocks = _blocks(at)
    assert "plotly_chart" in blocks["cells_fig_small"] and blocks["cellnote_fig_small"] == ["caption"]
    small = heatmap(np.eye(3), list("012"), list("012"), title="small").numbers_px
    assert _needed(at, "fig_small") == small > 0  # the note hidden by the chart's own rule unless too narrow
    assert "cells_fig_large" not in blocks and _needed(at, "fig_large") is None  # no numbers...
    assert "cellnote_fig_large" not in blocks  # ... and the note in a plain container, always shown
    assert any(key.startswith("noticks_fig_row") for key in blocks)  # 24 column labels: none on a phone
    bars = [key for key in blocks if key.endswith("fig_bars")]  # no cells: no note, only the download menu's box
    assert bars == [f"{SCREEN_ONLY}download_fig_bars"], bars


def test_a_chart_that_stays_wide_says_its_least_width():
    script = """
import numpy as np
from attention_ui.exports import show_figure
from attention_ui.model_figures import heads_grid
show_figure(heads_grid(np.full((2, 12, 3, 3), 1 / 3), title="grid"), "fig_grid")
"""
    at = _run(script)
    assert "plotly_chart" in _blocks(at)["wide_fig_grid"]
    (rule,) = [html.proto.body for html in at.get("html") if "st-key-wide_fig_grid" in html.proto.body]
    assert "min-width: 860px" in rule and "(max-width: 859.98px)" in rule  # 12 heads of 60 px and the margins


def test_presentation_mode_widens_the_cells_and_draws_afresh():
    assert _needed(_run(present="true"), "fig_small") > _needed(_run(), "fig_small")
    at = _run(present="true")
    keys = [chart.proto.id.rsplit("-", 1)[-1] for chart in at.get("plotly_chart")]
    assert "fig_small_present" in keys
    assert json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["font"]["size"] == 18


PICTURE = """
import numpy as np
from attention_ui.charts import draw
from attention_ui.intuition_figures import focus_picture
draw(focus_picture(np.zeros((40, 72, 3), dtype=np.uint8)), "eye", config={"displayModeBar": False}, alt="a picture")
"""


def test_a_chart_without_downloads_goes_through_the_pipeline_too():
    at = _run(PICTURE)
    chart = at.get("plotly_chart")[0]
    spec = json.loads(chart.proto.spec)
    assert chart.proto.theme == "" and "template" not in spec["layout"] and spec["layout"]["datarevision"]
    assert json.loads(chart.proto.config) == {"displayModeBar": False} and chart.proto.alt == "a picture"
    assert spec["layout"]["margin"] == {"l": 0, "r": 0, "t": 0, "b": 0, "pad": 8}  # a picture's axes take no room
    assert not at.get("popover")


@pytest.mark.parametrize("folder", ["pages", "attention_ui"])
def test_every_chart_goes_through_the_pipeline(folder):
    """Only charts.draw calls st.plotly_chart."""
    calls = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / folder).glob("*.py"))
        if path.name != "charts.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "plotly_chart"
    ]
    assert not calls, f"draw charts with attention_ui.charts.draw (or exports.show_figure): {calls}"


THIN = """
import numpy as np
from attention_ui.exports import show_figure
from attention_ui.heatmaps import token_matrix
from attention_ui.vector_figures import key_bars
words = [f"word{j}" for j in range(17)]
show_figure(key_bars(np.full(17, 1 / 17), words, title="bars"), "fig_bars")
show_figure(token_matrix(np.eye(17), words, words, title="w"), "fig_w")
show_figure(key_bars([0.5, 0.5], ["a", "b"], title="two"), "fig_two")
"""


def test_a_phone_thins_tilted_labels_through_a_keyed_container():
    """17 tilted labels: the chart sits in ``thin3ticks_<key>``, whose style keeps every 3rd label
    on a phone (the first, the 4th, …); two labels: no such container. The matrix's print twin sits
    beside its chart, in ``twin_<key>``."""
    from attention_ui.internals import X_AXIS_LAYER
    from attention_ui.style import APP_CSS

    blocks = _blocks(_run(THIN))
    assert "plotly_chart" in blocks["thin3ticks_fig_bars"] and "plotly_chart" in blocks["thin3ticks_fig_w"]
    assert not any(key.endswith("ticks_fig_two") for key in blocks)
    assert "plotly_chart" in blocks["twin_fig_w"] and "html" in blocks["twin_fig_w"]
    assert (
        f'[class*="st-key-thin3ticks_"] {X_AXIS_LAYER} > g:not(:nth-of-type(3n+1)):not(:last-of-type) text' in APP_CSS
    )


COUNTED = """
import numpy as np
import plotly.basedatatypes as base
import streamlit as st
from attention_ui.exports import show_figure
from attention_ui.heatmaps import token_matrix
built, init = [], base.BaseFigure.__init__
def counted(self, *args, **kwargs):
    built.append(type(self).__name__)
    init(self, *args, **kwargs)
base.BaseFigure.__init__ = counted
try:
    words = ["the", "cat", "sat"]
    show_figure(token_matrix(np.eye(3) / 3, words, words, title="w"), "fig_w", table=st.query_params.get("t") == "1")
finally:
    base.BaseFigure.__init__ = init
st.caption(f"built {len(built)}")
"""


@pytest.mark.parametrize("table", [True, False])
def test_a_matrix_drawn_as_a_table_builds_no_plotly_figure(table):
    at = _run(COUNTED, t="1" if table else "0")
    assert at.caption[-1].value == ("built 0" if table else "built 1")
    assert len(at.get("plotly_chart")) == (0 if table else 1)
    assert any("cell-matrix" in html.proto.body for html in at.get("html"))  # the table, or the chart's print twin


@pytest.mark.parametrize("dtype", ["f8", "f4", "i1", "u1", "i2", "u2", "i4", "u4"])
@pytest.mark.parametrize("shape", [(5,), (2, 3)])
def test_typed_array_reads_what_plotly_writes(dtype, shape):
    """Plotly's typed arrays (its documented JSON form of a NumPy array), as ``charts.figure_json``
    reads them: a 1-D one becomes a list, a 2-D one stays as Plotly wrote it."""
    import numpy as np
    import plotly.graph_objects as go

    from attention_ui.charts import figure_json, typed_array

    values = (np.arange(np.prod(shape)) * 3).astype(dtype).reshape(shape)
    fig = go.Figure(go.Heatmap(z=values) if len(shape) == 2 else go.Bar(y=values))
    written = fig.to_dict()["data"][0]["z" if len(shape) == 2 else "y"]
    decoded = typed_array(written)
    assert decoded is not None, f"Plotly writes a {dtype} array as {written!r}: teach charts.typed_array"
    np.testing.assert_array_equal(decoded, values)
    assert decoded.dtype == values.dtype
    sent = figure_json(fig)["data"][0]
    assert sent["z"] == written if len(shape) == 2 else sent["y"] == values.tolist()


WALK = """
import sys
import numpy as np
import plotly.basedatatypes as base
import streamlit as st
from attention_ui.exports import show_figure
from attention_ui.heatmaps import heatmap
from attention_ui.vector_figures import key_bars

fig = key_bars([0.5, 0.5], ["a", "b"], title="b") if st.query_params.get("kind") == "bars" else heatmap(
    np.eye(3) / 3, list("abc"), list("abc"), title="w")
tracked, held, walk = {id(fig)}, set(), []


def reach(value):  # the figure, its JSON and every dict or list in it (not its numbers or strings)
    if isinstance(value, (base.BaseFigure, dict, list, tuple)):
        tracked.add(id(value))
        for item in value.values() if isinstance(value, dict) else () if isinstance(value, base.BaseFigure) else value:
            reach(item)


def follow(frame, event, arg):
    if walk and walk[-1] == "st.plotly_chart":
        return
    code = frame.f_code
    if event == "call":
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if any(id(frame.f_locals.get(name)) in tracked for name in names):  # a call handed the figure, or a part
            held.add(id(frame))
            module = frame.f_globals.get("__name__", "")
            if module.startswith("streamlit.elements.plotly_chart"):
                walk.append("st.plotly_chart")
            elif module.startswith("attention_ui.") and (not walk or walk[-1] != module[13:]):
                walk.append(module[13:])
    elif event == "return" and id(frame) in held:  # what it gives back is the figure too
        held.discard(id(frame))
        reach(arg)


sys.setprofile(follow)
try:
    show_figure(fig, "fig_walk")
finally:
    sys.setprofile(None)
st.caption(" → ".join(walk))
"""


@pytest.mark.parametrize("kind", ["heatmap", "bars"])
@pytest.mark.parametrize("present", ["false", "true"])
def test_a_figure_passes_each_module_once_on_its_way_to_the_page(kind, present):
    """A walk of a built figure from ``exports.show_figure`` to ``st.plotly_chart``: the modules
    whose functions are handed the figure, its JSON or a part of it (a dict, a list), in the order
    they are called, each named when the figure enters it. Each module is entered once, in the
    pipeline's order (``attention_ui/charts.py``)."""
    walk = _run(WALK, kind=kind, present=present).caption[-1].value.split(" → ")
    steps = ["presentation"] if present == "true" else []
    assert walk == ["exports", "charts", *steps, "margins", "chart_theme", "internals", "st.plotly_chart"]


def test_the_style_sheet_reads_no_chart_builder_and_holds_no_rule_per_width():
    """The widths a chart needs come with the chart (``style.chart_box_css``), not as generated
    buckets of the page's one style sheet, which imports no figure builder."""
    from attention_ui.style import APP_CSS

    tree = ast.parse((ROOT / "attention_ui" / "style.py").read_text(encoding="utf-8"))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    builders = {"figures", "axes", "heatmaps"}  # and every *_figures module
    assert not [name for name in imported if name.split(".")[-1] in builders or name.endswith("_figures")], imported
    assert "@container cells" not in APP_CSS and "@container wide" not in APP_CSS
    assert not re.search(r"st-key-(cells|wide)\d", APP_CSS)
