"""A page for tests/browser/test_internals_browser.py: a chart Streamlit themes itself, and one
drawn through the app's chart pipeline (run as ``streamlit run tests/browser/probe_app.py`` from
the repository's root)."""

import plotly.graph_objects as go
import streamlit as st

from attention_ui.charts import draw
from attention_ui.heatmaps import heatmap
from attention_ui.vector_figures import key_bars

theirs = go.Figure(
    [go.Heatmap(z=[[0, 1], [1, 0]], coloraxis="coloraxis"), go.Scatter(y=[0, 1], name="a"), go.Bar(y=[1, 2], name="b")],
    layout={"title": {"text": "Streamlit's theme"}},
)
st.plotly_chart(theirs, key="streamlit_theme", theme="streamlit")
draw(heatmap([[0.25, 0.75], [0.5, 0.5]], ["a", "b"], ["c", "d"], title="The pipeline's", y_title="y"), "fig_ours")
draw(key_bars([0.25, 0.75], ["a", "b"], title="Bars"), "fig_bars")
draw(go.Figure([go.Bar(y=[1], name="a"), go.Bar(y=[2], name="b")], layout={"title": {"text": "Legend"}}), "fig_legend")
