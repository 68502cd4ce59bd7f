"""chart_theme.themed: Streamlit's chart look written into a figure's JSON, so that Streamlit can
send it with theme=None and Plotly.js draws it once (tests/browser/test_drawn_once.py counts
the drawing passes in Chromium). The pipeline around it: attention_ui.charts."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from attention_ui.chart_theme import digest, themed, under
from attention_ui.charts import figure_json, prepare
from attention_ui.heatmaps import token_matrix
from attention_ui.internals import AXES, COLORAXIS, DARK, LAYOUT, LEGEND, LINE, PAPER, TEXT, TITLE, SentAsIs
from attention_ui.vector_figures import key_bars

TOKENS = ["the", "cat", "sat"]


def sent(spec: dict) -> dict:
    """The JSON Streamlit sends for ``spec`` (plotly.io.to_json of ``to_dict()``, as
    st.plotly_chart does with a figure)."""
    return json.loads(pio.to_json(SentAsIs(spec).to_dict(), validate=False))


def spec_of(fig) -> dict:
    return themed(figure_json(fig))


def test_no_template_no_meta_and_the_theme_in_the_layout():
    fig = token_matrix(np.eye(3), TOKENS, TOKENS, title="weights").chart()
    layout = sent(spec_of(fig))["layout"]
    assert "template" not in layout and "meta" not in layout
    assert layout["font"]["color"] == TEXT and layout["paper_bgcolor"] == LAYOUT["paper_bgcolor"]
    for name in ("xaxis", "yaxis"):
        assert layout[name]["automargin"] is True and layout[name]["tickfont"]["color"] == TEXT
    assert layout["xaxis"]["showgrid"] is False and layout["yaxis"]["ticklabelposition"] == "outside"
    assert layout["title"]["text"] == "<b>weights</b>" and layout["title"]["font"]["size"] == 16


def test_a_figure_without_a_title_gets_no_title():
    assert "title" not in sent(spec_of(go.Figure(go.Bar(y=[1]))))["layout"]


def test_the_figure_s_own_values_win_and_every_axis_gets_the_theme():
    fig = go.Figure(
        [go.Heatmap(z=[[1]], coloraxis="coloraxis2"), go.Scatter(y=[1], xaxis="x3", yaxis="y2")],
        layout={"font": {"size": 20}, "xaxis": {"tickfont": {"color": "red"}}, "margin": {"l": 77}},
    )
    layout = sent(spec_of(fig))["layout"]
    assert layout["font"]["size"] == 20 and layout["font"]["color"] == TEXT
    assert layout["xaxis"]["tickfont"] == {"color": "red", "size": 12}
    assert layout["margin"] == {"l": 77, "pad": 8, "r": 0}
    assert layout["xaxis3"]["showgrid"] is False and layout["yaxis2"]["gridcolor"] == LINE
    assert layout["coloraxis2"]["colorbar"]["thickness"] == COLORAXIS["colorbar"]["thickness"]


def test_bars_stand_on_an_axis_without_grid_or_zero_line_colours():
    """A grid or zero-line colour given to the axis bars stand on would make Plotly draw them
    there (it draws none by default); the value axis gets both."""
    vertical = sent(spec_of(key_bars([0.5, 0.5], ["a", "b"], title="w")))["layout"]
    assert "gridcolor" not in vertical["xaxis"] and "zerolinecolor" not in vertical["xaxis"]
    assert vertical["yaxis"]["gridcolor"] == LINE
    across = sent(spec_of(go.Figure(go.Bar(x=[1, 2], y=["a", "b"], orientation="h"))))["layout"]
    assert "gridcolor" not in across["yaxis"] and across["xaxis"]["gridcolor"] == LINE


def test_vectors_are_sent_as_lists_and_matrices_stay_arrays():
    fig = go.Figure([go.Bar(y=np.array([0.25, 0.75]), marker={"color": np.array([1.0, 2.0])}), go.Heatmap(z=np.eye(2))])
    data = sent(spec_of(fig))["data"]
    assert data[0]["y"] == [0.25, 0.75] and data[0]["marker"]["color"] == [1.0, 2.0]
    assert "bdata" in data[1]["z"]  # 2-D: an array of rows in Plotly.js, fine as it is


def test_datarevision_follows_the_traces():
    spec = spec_of(go.Figure(go.Bar(y=[1, 2])))
    a = spec["layout"]["datarevision"]
    assert a == digest(spec["data"]) and a != digest([{"type": "bar", "y": [1, 3]}])
    assert spec_of(go.Figure(go.Bar(y=[1, 3])))["layout"]["datarevision"] != a
    assert spec_of(go.Figure(go.Bar(y=[1, 2]), layout={"height": 300}))["layout"]["datarevision"] == a  # not data


def test_the_json_given_is_not_changed_and_a_bold_title_is_not_bolded_again():
    fig = token_matrix(np.eye(3), TOKENS, TOKENS, title="w").chart()
    fig.layout.meta = {"a hint": 1}  # a figure made elsewhere may carry one: it is not sent
    given = fig.to_dict()
    before = json.dumps(given, sort_keys=True)
    spec = themed(given)
    assert json.dumps(given, sort_keys=True) == before  # a new dict; template and meta still in the old one
    assert "meta" not in spec["layout"] and spec["layout"]["title"]["text"] == "<b>w</b>"
    assert themed({"data": [], "layout": {"title": {"text": "<b>w</b>"}}})["layout"]["title"]["text"] == "<b>w</b>"


def test_every_step_of_the_pipeline_leaves_the_figure_as_it_was():
    fig = token_matrix(np.eye(3), TOKENS, TOKENS, title="w").chart()
    before = fig.to_dict()
    for presenting in (False, True):
        prepare(fig, presenting=presenting)
    assert fig.to_dict() == before


def test_under_fills_only_what_is_missing():
    assert under({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 9}, "d": None}) == {"a": {"b": 9, "c": 2}, "d": 3}
    assert under(AXES["x"], {}) == AXES["x"] and under(AXES["x"], {}) is not AXES["x"]


def test_dark_colours_exist_for_each_light_one_drawn():
    for light in (TEXT, TITLE, LEGEND, LINE, PAPER):
        assert light in DARK
