"""The baseline for bench/bench_app.py: bare Streamlit + one Plotly heatmap.

A sidebar text input "Sentence" (key "sentence") and one go.Heatmap of a trivial T×T matrix
(seeded random numbers, one row and one column per word), labelled like the app's heatmaps
("n: word" tick labels counted from 1, on integer positions). No model, no attention code.

    python -m streamlit run bench/bare_app.py   (bench_app.py and bench_clicks.py start it themselves)
"""

import zlib

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="Bare heatmap", layout="wide")
with st.sidebar:
    sentence = st.text_input("Sentence", value="The cat sat on the mat because it was tired", key="sentence")

words = sentence.split() or ["(empty)"]
labels = [f"{i + 1}: {w}" for i, w in enumerate(words)]  # counted from 1, as the app does
t = len(words)
z = np.random.default_rng(zlib.crc32(sentence.encode())).random((t, t))  # (T, T)
fig = go.Figure(go.Heatmap(z=z, x=list(range(t)), y=list(range(t)), colorscale="Cividis"))
fig.update_layout(title="A T×T matrix", height=max(260, 48 + 34 * t))
fig.update_xaxes(tickvals=list(range(t)), ticktext=labels, side="top")
fig.update_yaxes(tickvals=list(range(t)), ticktext=labels, autorange="reversed")
st.plotly_chart(fig, key="fig")
