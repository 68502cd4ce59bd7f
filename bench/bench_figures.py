"""What each figure builder costs the server per rerun, against the bare Plotly figure of the
same traces, side by side in one run.

    python -m bench.bench_figures            # every builder, 30 repeats each
    python -m bench.bench_figures --repeats 100

A page pays for a chart three times on every rerun: the builder, ``st.plotly_chart``'s
``to_dict`` (a deep copy) and its ``plotly.io.to_json``. This script times all three for each
builder with inputs the size a lesson uses (8 tokens, d = 8; 2 000 scores for the histograms;
6 layers × 12 heads for the real model's grid), and the same three for a reference: a
``go.Figure`` of the builder's own traces with no layout at all, the least any chart of that
data can cost. "ours / bare" is what the labels, axes and layout add. Medians of interleaved
repeats (ours, bare, ours, …), so background load hits both alike. It prints; it never
asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from attention_ui import (
    heatmaps,
    model_figures,
    multihead_figures,
    scaling_figures,
    similarity_figures,
    tailor_figures,
    vector_figures,
)
from attention_ui.i18n import translate
from bench.core import machine, table


def builders() -> dict:
    """Each builder as a no-argument call with lesson-sized inputs."""
    rng = np.random.default_rng(0)
    en = partial(translate, "en")
    tokens = ["the", "cat", "sat", "on", "the", "mat", "and", "slept"]
    t = len(tokens)
    z = rng.normal(size=(t, t))  # (T, T)
    w = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)  # (T, T)
    d_ks = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    raw, scaled = rng.normal(scale=8.0, size=2000), rng.normal(size=2000)  # (2000,) each
    grid = rng.dirichlet(np.ones(t), size=(6, 12, t))  # (layers, heads, T, T)
    return {
        "heatmaps.token_matrix": lambda: heatmaps.token_matrix(w, tokens, tokens, title="α̂", tr=en).chart(),
        "vector_figures.vectors_matrix": lambda: vector_figures.vectors_matrix(z, tokens, title="Q", symbol="q", tr=en),
        "vector_figures.key_bars": lambda: vector_figures.key_bars(w[2], tokens, title="row 2", highlight=1, tr=en),
        "vector_figures.contributions_bar": lambda: vector_figures.contributions_bar(
            w[2][:, None] * z, tokens, (w[2] @ z), title="b_2", tr=en
        ),
        "multihead.concatenated_heads": lambda: multihead_figures.concatenated_heads(
            rng.normal(size=(t, 12)), tokens, 3, title="heads", y_title="", head_labels=["1", "2", "3"], tr=en
        ),
        "multihead.mask_map": lambda: multihead_figures.mask_map(
            np.tril(np.ones((t, t), bool)), tokens, title="mask", y_title="", x_title="", tr=en
        ),
        "scaling.score_histograms": lambda: scaling_figures.score_histograms(
            raw, scaled, d_k=64, raw_variance=64.0, scaled_variance=1.0, tr=en
        ),
        "scaling.variance_sweep": lambda: scaling_figures.variance_sweep(
            d_ks, np.asarray(d_ks, float), np.ones(len(d_ks)), highlight=64, tr=en
        ),
        "heatmaps.heatmap_row (three panels)": lambda: heatmaps.heatmap_row(
            [("dot", z), ("scaled", z / 2), ("cosine", np.tanh(z))], tokens, title="measures", tr=en
        ),
        "similarity.row_bars": lambda: similarity_figures.row_bars(
            [("cosine", "cos", z[0]), ("dot", "dot", z[1]), ("scaled_dot", "scaled", z[2])],
            tokens,
            title="row 0",
            x_title="key j",
        ),
        "tailor.horizontal_bars": lambda: tailor_figures.horizontal_bars(
            tokens[:5], w[0][:5], title="labels", colour="#0072B2", highlight=1
        ),
        "model.heads_grid (72 heads)": lambda: model_figures.heads_grid(grid, title="heads", tr=en),
    }


def as_streamlit_does(build) -> None:
    """The builder, then what st.plotly_chart does with its figure."""
    fig = build()
    pio.to_json(fig.to_dict(), validate=False)


def bare_of(build):
    """The same traces in a figure with no layout: only their data, no labels or axes."""
    traces = [trace.to_plotly_json() for trace in build().data]
    return lambda: go.Figure(data=traces)


def once_ms(call) -> float:
    start = time.perf_counter()
    call()
    return 1e3 * (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    rows = []
    for name, build in builders().items():
        bare = bare_of(build)
        ours_ms, bare_ms = [], []
        for _ in range(args.repeats):  # interleaved, one each at a time
            ours_ms.append(once_ms(partial(as_streamlit_does, build)))
            bare_ms.append(once_ms(partial(as_streamlit_does, bare)))
        a, b = statistics.median(ours_ms), statistics.median(bare_ms)
        rows.append([name, f"{a:.2f}", f"{b:.2f}", f"{a / b:.2f}×"])
        print(f"  {name}: {a:.2f} ms", flush=True)
    print()
    print(table(["builder", "ours", "bare", "ours/bare"], rows, title="ms: build + to_dict + to_json, median"))
    print(f"\n{machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
