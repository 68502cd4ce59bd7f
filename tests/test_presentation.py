"""Presentation mode: ?present=true collapses the sidebar, adds the constant style sheet and
enlarges chart fonts; off, the page is unchanged; no learner text ever reaches the CSS."""

from __future__ import annotations

import json
from pathlib import Path

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from attention_ui.presentation import CHART_FONT_PX, FONT_PX, PRESENTATION_CSS, parse_flag, projector
from tests.helpers import open_link

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import plotly.graph_objects as go
import streamlit as st
from attention_ui.exports import show_figure
from attention_ui.presentation import apply_presentation, presentation_toggle
st.set_page_config(page_title="t", layout="wide")
with st.sidebar:
    present = presentation_toggle()
apply_presentation(present)
show_figure(go.Figure(go.Heatmap(z=[[1, 2]], texttemplate="%{z}", textfont={"size": 12})), "fig")
"""


def test_parse_flag():
    assert parse_flag("true") and parse_flag("True") and parse_flag("1") and parse_flag(" on ")
    for off in (None, "", "false", "0", "no", "<script>", "truex"):
        assert not parse_flag(off)


def test_css_is_a_constant_style_sheet():
    assert PRESENTATION_CSS.startswith("<style>") and PRESENTATION_CSS.rstrip().endswith("</style>")
    assert "<script" not in PRESENTATION_CSS.lower() and "{" in PRESENTATION_CSS and "{{" not in PRESENTATION_CSS
    assert f"font-size: {FONT_PX}px" in PRESENTATION_CSS


def test_projector_is_a_larger_copy():
    heat = go.Heatmap(z=[[1, 2]], texttemplate="%{z}", textfont={"size": 12})
    spec = go.Figure(heat, layout={"height": 200}).to_dict()
    big = projector(spec)
    assert big["layout"]["font"]["size"] == CHART_FONT_PX and big["data"][0]["textfont"]["size"] == CHART_FONT_PX
    assert big["layout"]["height"] == 260
    assert "font" not in spec["layout"] and spec["data"][0]["textfont"]["size"] == 12  # the JSON given, as it was
    assert spec["layout"]["height"] == 200


def _styles(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def _collapsed(monkeypatch) -> list:
    """Record every st.set_page_config call's initial_sidebar_state."""
    import streamlit as st
    import streamlit.commands.page_config as page_config

    calls = []
    original = page_config.set_page_config

    def spy(*args, **kwargs):
        calls.append(kwargs.get("initial_sidebar_state"))
        return original(*args, **kwargs)

    monkeypatch.setattr(st, "set_page_config", spy)
    return calls


@pytest.mark.parametrize("url, on", [("true", True), ("false", False), (None, False), ("<b>x</b>", False)])
def test_url_switches_presentation_mode(monkeypatch, url, on):
    calls = _collapsed(monkeypatch)
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    if url is not None:
        at.query_params["present"] = url
    at.run()
    assert not at.exception, at.exception
    assert at.toggle(key="present").value is on
    assert (PRESENTATION_CSS in _styles(at)) is on
    assert ("collapsed" in calls) is on
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert (layout.get("font", {}).get("size") == CHART_FONT_PX) is on


def test_toggle_turns_it_on_and_off(monkeypatch):
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    at.run()
    assert PRESENTATION_CSS not in _styles(at)
    at.toggle(key="present").set_value(True).run()
    assert PRESENTATION_CSS in _styles(at)
    at.toggle(key="present").set_value(False).run()
    assert PRESENTATION_CSS not in _styles(at)


def test_exercises_page_in_presentation_mode():
    at = open_link("exercises", "zh", present="true")
    assert PRESENTATION_CSS in _styles(at)
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert layout["font"]["size"] == CHART_FONT_PX
