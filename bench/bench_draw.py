"""What Chromium pays to draw a figure, as the app draws it now and in a cheaper form: an A/B.

    python -m bench.bench_draw            # 3 repetitions (~3 min)
    python -m bench.bench_draw --reps 7 --only sim3

This one file is both the benchmark and the Streamlit app it drives. ``python -m bench.bench_draw``
starts ``python -m bench.st_timed run bench/bench_draw.py`` (the app part, below), opens it in
Debian's Chromium and times, with the page's own clock (``bench/pageclock.py``: the page's
``performance.now()`` from the click until the last change to the page is painted), a click from
an empty page to each variant, the variants interleaved within every repetition:

* ``vectors384 now`` / ``compact``: three ``vector_figures.vectors_matrix`` of 12 × 384 (q, k, v with
  identity W; the trained multi-head page's concatenation and W^O output are as wide), as the
  app builds them (one tick label per column, tilted), and the same figures with a tick every
  32 columns, flat. The numbers, the colours and the hover are the same.
* ``vectors32 now`` / ``compact``: the same at d_k = 32 (a trained head's q, k, v), a tick every 8.
* ``grid72 now`` / ``one heatmap``: ``model_figures.heads_grid`` of 6 layers × 12 heads of
  12 × 12 weights (72 subplots), and the same weights as one heatmap with one-cell gaps.
* ``matrix12 numbers`` / ``plain`` (and ``bare``, without the Download menu and container of
  ``exports.show_figure``; ``unstyled``, without the app's style sheet): a 12 × 12 weights
  matrix with and without its 144 cell numbers. (What the theme, the template and the margins
  cost, drawing a chart once or twice, ``bench_margins`` measures on every chart of the app.)
* ``matrix16 plotly numbers`` / ``html table``: a 16 × 16 weights matrix with its 256 numbers, as
  the app draws it outside presentation mode (``heatmaps.token_matrix`` through ``charts.draw``, its
  print-only table twin included) and as presentation mode draws it (``tables.matrix_html``: one
  coloured HTML cell per number, ``charts.draw_table`` without its spotlight choice).
* ``sim3 figures`` / ``one figure``: three 12 × 12 maps as three charts in columns
  (``heatmaps.heatmap`` each), and the same three as panels of one chart (``heatmaps.heatmap_row``,
  what the Similarity page draws).

``--only TEXT`` times only the variants whose name contains TEXT.

The compact forms here are sketches for the measurement, not the app's code. The script
prints medians; it never asserts a time.
"""

from __future__ import annotations

import sys

from bench.core import under_streamlit

TOKENS = ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired", "[SEP]"]
VARIANTS = [
    "empty",
    "vectors384 now",
    "vectors384 compact",
    "vectors32 now",
    "vectors32 compact",
    "grid72 now",
    "grid72 one heatmap",
    "matrix12 numbers",
    "matrix12 plain",
    "matrix12 bare numbers",
    "matrix12 bare plain",
    "matrix12 bare numbers unstyled",
    "sim3 figures",
    "sim3 one figure",
    "matrix16 plotly numbers",
    "matrix16 html table",
]


def compact_vectors(z, symbol: str, every: int):
    """``vectors_matrix`` with a flat tick every ``every`` columns instead of one per column."""
    from attention_ui.vector_figures import vectors_matrix

    fig = vectors_matrix(z, TOKENS, title=f"{symbol} (compact)", symbol=symbol)
    ticks = list(range(0, z.shape[1], every))
    fig.update_xaxes(tickvals=ticks, ticktext=[f"{symbol}[{c}]" for c in ticks], tickangle=0)
    return fig


def one_heatmap_grid(w):
    """The (L, H, T, T) weights as one heatmap, each head a T × T block, one NaN cell between."""
    import numpy as np
    import plotly.graph_objects as go

    n_layers, n_heads, t, _ = w.shape
    big = np.full((n_layers * (t + 1) - 1, n_heads * (t + 1) - 1), np.nan, dtype=np.float32)
    for layer in range(n_layers):
        for head in range(n_heads):
            big[layer * (t + 1) : layer * (t + 1) + t, head * (t + 1) : head * (t + 1) + t] = w[layer, head]
    trace = {"type": "heatmap", "z": big, "colorscale": "Cividis", "zmin": 0, "zmax": 1, "hoverongaps": False}
    axis = {"showticklabels": False, "showgrid": False, "zeroline": False}
    return go.Figure(
        data=[trace], layout={"height": 90 + 66 * n_layers, "xaxis": axis, "yaxis": {**axis, "autorange": "reversed"}}
    )


def app() -> None:
    """The Streamlit part: a radio of VARIANTS and the chosen figures (run from the repo root by
    ``python -m bench.st_timed``, so ``attention_ui`` imports as it does for app.py)."""
    import numpy as np
    import streamlit as st

    from attention_ui.model_figures import heads_grid
    from attention_ui.vector_figures import vectors_matrix

    rng = np.random.default_rng(0)
    variant = st.radio("variant", VARIANTS, key="variant", horizontal=True)
    if variant.startswith("vectors"):
        d = 384 if variant.startswith("vectors384") else 32
        for column, symbol in zip(st.columns(3), "qkv"):
            z = rng.normal(size=(len(TOKENS), d))  # (T, d)
            fig = vectors_matrix(z, TOKENS, title=symbol, symbol=symbol)
            if variant.endswith("compact"):
                fig = compact_vectors(z, symbol, 32 if d > 64 else 8)
            column.plotly_chart(fig, key=f"fig_{symbol}")
    elif variant.startswith("matrix12"):
        from attention_ui.exports import show_figure
        from attention_ui.heatmaps import token_matrix
        from attention_ui.style import apply_style

        if not variant.endswith("unstyled"):
            apply_style()  # the container queries that show or hide the cell numbers

        w = rng.dirichlet(np.ones(len(TOKENS)), size=len(TOKENS))  # (T, T)
        fig = token_matrix(w, TOKENS, TOKENS, title="weights").chart()
        if variant.endswith("plain"):  # the same figure without numbers in its cells
            fig.update_traces(text=None, texttemplate=None)
            fig.update_layout(meta={"cell_numbers_width": 0})
        if " bare " in variant:
            st.plotly_chart(fig, key="fig_matrix")
        else:
            show_figure(fig, "fig_matrix")
    elif variant.startswith("matrix16"):
        from attention_ui.charts import draw
        from attention_ui.heatmaps import token_matrix
        from attention_ui.style import apply_style
        from attention_ui.tables import show_matrix

        apply_style()
        tokens = TOKENS + ["and", "slept", "all", "day"]  # 16
        w = rng.dirichlet(np.ones(len(tokens)), size=len(tokens))  # (T, T)
        fig = token_matrix(w, tokens, tokens, title="weights", zmin=0.0, zmax=1.0)
        if variant.endswith("table"):
            show_matrix(fig.cells)
        else:
            draw(fig, "fig_matrix16")
    elif variant.startswith("sim3"):
        from attention_ui.exports import show_figure
        from attention_ui.heatmaps import heatmap, heatmap_row
        from attention_ui.safe import numbered_labels
        from attention_ui.style import apply_style

        apply_style()
        z = rng.normal(size=(3, len(TOKENS), len(TOKENS)))  # (3, T, T)
        labels = numbered_labels(TOKENS)
        if variant.endswith("figures"):  # three charts in columns
            for n, column in enumerate(st.columns(3)):
                with column:
                    fig = heatmap(z[n], labels, labels, title=f"m{n}", x_title="key", y_title="query")
                    show_figure(fig, f"fig_sim{n}")
        else:  # the same three matrices as panels of one chart, as the app draws them
            fig = heatmap_row([(f"m{n}", z[n]) for n in range(3)], labels, title="m0 | m1 | m2")
            show_figure(fig, "fig_sim_all")
    elif variant.startswith("grid"):
        w = rng.dirichlet(np.ones(len(TOKENS)), size=(6, 12, len(TOKENS)))  # (L, H, T, T)
        fig = heads_grid(w, title="grid") if variant.endswith("now") else one_heatmap_grid(w)
        st.plotly_chart(fig, key="fig_grid")


def drive() -> int:
    import argparse
    import os
    import statistics
    import tempfile
    import time
    from pathlib import Path

    from bench.core import chromium, on_sigterm_exit
    from bench.pageclock import App, timed_server

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="", help="time only the variants whose name contains this")
    args = ap.parse_args()
    on_sigterm_exit()
    print(f"bench_draw: {args.reps} rep(s), load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    results: dict[str, list] = {v: [] for v in VARIANTS[1:]}
    with tempfile.TemporaryDirectory(prefix="bench-draw-") as tmp, chromium() as browser:
        server = timed_server("draw", "bench/bench_draw.py", Path(tmp))
        try:
            server.start()
            server.wait_health(120)
            page_app = App(server, browser, 180.0)
            page_app.page.goto(server.url)
            page_app.page.wait_for_selector(".st-key-variant")
            time.sleep(2)
            options = page_app.page.locator('.st-key-variant [role="radiogroup"] label')
            for rep in range(1, args.reps + 1):
                for n, variant in enumerate(VARIANTS[1:], start=1):
                    if args.only not in variant:
                        continue
                    page_app.measure(lambda: options.nth(0).click())  # the empty page first
                    s = page_app.measure(options.nth(n).click)
                    results[variant].append(s)
                    print(f"  rep {rep} {variant:<20} {s.total:7.3f} s  browser {s.browser:6.3f} s  {s.kb:5.0f} KB")
            page_app.close()
        finally:
            server.stop()
    print(f"\n{'variant':<20} {'total':>8} {'browser':>8} {'KB':>6}   (medians; empty page → variant)")
    for variant, samples in results.items():
        if not samples:
            continue
        total = statistics.median(s.total for s in samples)
        busy = statistics.median(s.browser for s in samples)
        print(f"{variant:<20} {total:7.3f}s {busy:7.3f}s {statistics.median(s.kb for s in samples):6.0f}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if under_streamlit():
    app()
elif __name__ == "__main__":
    sys.exit(drive())
