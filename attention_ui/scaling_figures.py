"""Figures of the "Why √d_k" experiment: arrays in, go.Figure out. They draw; they never
compute attention (the numbers come from attention_core.scaling).

Colours are the Okabe–Ito pair (``figures.OKABE_ITO``), safe for colour-blind readers, used
the same way in every chart: orange = without scaling (raw α = q·k), blue = divided by √d_k.

Like ``figures``, every builder takes ``tr`` (``tr("figures.<name>", **fields) -> str``) for
the words it draws, so the charts speak the learner's language.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .axes import positions
from .figures import ENGLISH, OKABE_ITO, Translate, axis_suffix, figure, panel_axes, panel_titles_px

RAW = OKABE_ITO["orange"]  # without scaling
SCALED = OKABE_ITO["blue"]  # divided by √d_k
REFERENCE = "#666666"  # grey dashes: theory / uniform weights
_MARGIN = {"l": 10, "r": 10, "t": 60, "b": 10}
_LEGEND = {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0}


def score_histograms(
    raw, scaled, *, d_k: int, raw_variance: float, scaled_variance: float, tr: Translate = ENGLISH, bins: int = 101
) -> go.Figure:
    """Histograms of raw scores α = q·k (top) and scaled α/√d_k (bottom) on one shared x axis.

    Both panels use the same bins, symmetric around 0 and wide enough for every value, so
    the widths compare directly. Each panel is one filled step line through the bins' counts
    (a point per bin at its centre, the steps at the bin edges): it looks like touching bars,
    but Chromium draws one path instead of 101 bars and their 101 groups (668 → 272 SVG
    elements; docs/benchmarks.md). Each point's customdata holds its bin edges
    [low, high); hovering anywhere over a bin names it.

    >>> fig = score_histograms([-1.0, 0.2, 0.3], [0.1, 0.1, 0.1], d_k=4, raw_variance=1.0, scaled_variance=0.0, bins=5)
    >>> [int(c) for c in fig.data[0].y], fig.data[0].line.shape
    ([1, 0, 1, 1, 0], 'hvh')
    """
    raw = np.asarray(raw, dtype=np.float64).ravel()  # (N,)
    scaled = np.asarray(scaled, dtype=np.float64).ravel()  # (N,)
    bound = float(max(np.abs(raw).max(), np.abs(scaled).max(), 1e-9)) * 1.001
    edges = np.linspace(-bound, bound, bins + 1)  # (bins + 1,)
    centers = (edges[:-1] + edges[1:]) / 2  # (bins,)
    edge_pairs = np.stack([edges[:-1], edges[1:]], axis=1)  # (bins, 2)
    layout = panel_axes(
        2,
        across=False,
        gap=0.12,
        titles=(
            tr("figures.hist_raw", variance=raw_variance, n=len(raw)),
            tr("figures.hist_scaled", d_k=d_k, variance=scaled_variance),
        ),
    )
    steps = []
    for panel, values, color, name in (
        (1, raw, RAW, tr("figures.raw_name")),
        (2, scaled, SCALED, tr("figures.scaled_name")),
    ):
        axis = axis_suffix(panel)
        counts, _ = np.histogram(values, bins=edges)  # (bins,)
        steps.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": centers,
                "y": counts,
                "line": {"shape": "hvh", "width": 1, "color": color},  # steps halfway between centres
                "fill": "tozeroy",
                "fillcolor": color,
                "name": name,
                "customdata": edge_pairs,
                "xaxis": f"x{axis}",
                "yaxis": f"y{axis}",
                "hovertemplate": tr(
                    "figures.hist_hover", low="%{customdata[0]:.2f}", high="%{customdata[1]:.2f}", count="%{y}"
                )
                + "<extra>%{fullData.name}</extra>",
            }
        )
        layout[f"yaxis{axis}"]["title"] = {"text": tr("figures.count_axis")}
    layout["xaxis2"]["title"] = {"text": tr("figures.score_axis")}
    above = 30 + panel_titles_px(layout)  # the top panel's title
    return figure(  # the chart's title above the top panel's (in the margin's middle, the two ran together)
        steps,
        title=tr("figures.hist_title", d_k=d_k),
        title_above=above,
        height=460 + above,
        hovermode="x",
        showlegend=False,
        margin={**_MARGIN, "t": _MARGIN["t"] + above},
        **layout,
    )


def example_row_weights(raw_weights, scaled_weights, *, d_k: int, tr: Translate = ENGLISH) -> go.Figure:
    """One query's softmax weights over its keys, without and with scaling, as grouped bars."""
    raw_weights = np.asarray(raw_weights, dtype=np.float64)  # (n_keys,)
    scaled_weights = np.asarray(scaled_weights, dtype=np.float64)  # (n_keys,)
    keys = positions(len(raw_weights))  # key j as shown, from 1
    bars = [
        {
            "type": "bar",
            "x": keys,
            "y": w,
            "name": name,
            "marker": {"color": color},
            "hovertemplate": tr("figures.hover_key", j="%{x}") + ": α̂ = %{y:.4f}<extra>%{fullData.name}</extra>",
        }
        for w, color, name in (
            (raw_weights, RAW, tr("figures.raw_name")),
            (scaled_weights, SCALED, tr("figures.scaled_name")),
        )
    ]
    return figure(
        bars,
        title=tr("figures.row_title", n_keys=len(keys), d_k=d_k),
        barmode="group",
        height=360,
        margin=_MARGIN,
        legend=_LEGEND,
        xaxis={"title": {"text": tr("figures.key_axis_short")}, "tickvals": keys},
        yaxis={"title": {"text": tr("figures.row_weight_axis")}, "range": [0, 1.05]},
    )


def _sweep_figure(
    d_ks,
    raw,
    scaled,
    *,
    title: str,
    y_title: str,
    highlight: int | None,
    tr: Translate = ENGLISH,
    references=(),
    log_y: bool = False,
    y_range=None,
) -> go.Figure:
    """Raw and scaled statistics against d_k (log x), with grey dashed reference lines on top."""
    d_ks = np.asarray(d_ks)  # (m,)
    hover = "d_k = %{x}: %{y:.4g}<extra>%{fullData.name}</extra>"
    lines = [
        {
            "type": "scatter",
            "x": d_ks,
            "y": np.asarray(y, dtype=np.float64),
            "mode": "lines+markers",
            "name": name,
            "line": {"color": color, "width": 3},
            "marker": {"color": color, "symbol": symbol, "size": 8},
            "hovertemplate": hover,
        }
        for y, color, name, symbol in (
            (raw, RAW, tr("figures.raw_name"), "circle"),
            (scaled, SCALED, tr("figures.scaled_name"), "square"),
        )
    ]
    lines += [
        {
            "type": "scatter",
            "x": d_ks,
            "y": np.broadcast_to(np.asarray(value, dtype=np.float64), d_ks.shape),
            "mode": "lines",
            "name": name,
            "line": {"color": REFERENCE, "dash": "dash", "width": 1.5},
            "hovertemplate": hover,
        }  # y: (m,)
        for value, name in references
    ]
    yaxis: dict[str, object] = {"title": {"text": y_title}, "type": "log" if log_y else "linear"}
    if y_range is not None:
        yaxis["range"] = y_range
    if log_y:
        yaxis["tickvals"] = [2.0**e for e in range(0, int(np.log2(max(d_ks.max(), 2))) + 1)]
    if highlight is not None:
        lines.append(
            {
                "type": "scatter",
                "x": [highlight, highlight],
                "y": [0, 1],
                "yaxis": "y2",
                "mode": "lines",
                "name": f"d_k = {highlight}",
                "showlegend": False,
                "line": {"color": "black", "dash": "dot", "width": 1},
                "hoverinfo": "skip",
            }
        )
    # Legend under the chart: four entries beside a long (e.g. Chinese) title would overlap it.
    return figure(
        lines,
        title=title,
        height=400,
        margin={**_MARGIN, "b": 20},
        yaxis=yaxis,
        legend={"orientation": "h", "yanchor": "top", "y": -0.28, "xanchor": "left", "x": 0.0},
        yaxis2={"overlaying": "y", "range": [0, 1], "visible": False, "fixedrange": True},
        xaxis={
            "title": {"text": tr("figures.d_k_log_axis")},
            "type": "log",
            "tickvals": list(d_ks),
            "ticktext": [str(d) for d in d_ks],
        },
    )


def variance_sweep(
    d_ks, raw_variance, scaled_variance, *, tr: Translate = ENGLISH, highlight: int | None = None
) -> go.Figure:
    """Measured Var(q·k) and Var(q·k/√d_k) against d_k, both axes logarithmic, with y = d_k."""
    return _sweep_figure(
        d_ks,
        raw_variance,
        scaled_variance,
        title=tr("figures.variance_title"),
        y_title=tr("figures.variance_axis"),
        highlight=highlight,
        log_y=True,
        tr=tr,
        references=(
            (np.asarray(d_ks, dtype=np.float64), tr("figures.theory", value="d_k")),
            (1.0, tr("figures.theory", value="1")),
        ),
    )


def max_weight_sweep(
    d_ks,
    raw_max_weight,
    scaled_max_weight,
    *,
    uniform_weight: float,
    tr: Translate = ENGLISH,
    highlight: int | None = None,
) -> go.Figure:
    """Mean largest softmax weight per row against d_k; 1/n (uniform) for reference."""
    return _sweep_figure(
        d_ks,
        raw_max_weight,
        scaled_max_weight,
        title=tr("figures.max_weight_title"),
        y_title=tr("figures.max_weight_axis"),
        highlight=highlight,
        tr=tr,
        references=((uniform_weight, tr("figures.uniform", value=f"1/n = {uniform_weight:.4g}")),),
        y_range=[0, 1.02],
    )


def entropy_sweep(
    d_ks, raw_entropy, scaled_entropy, *, max_entropy: float, tr: Translate = ENGLISH, highlight: int | None = None
) -> go.Figure:
    """Mean row entropy (nats) against d_k; ln n (uniform) for reference."""
    return _sweep_figure(
        d_ks,
        raw_entropy,
        scaled_entropy,
        title=tr("figures.entropy_title"),
        y_title=tr("figures.entropy_axis"),
        highlight=highlight,
        tr=tr,
        references=((max_entropy, tr("figures.uniform", value=f"ln n = {max_entropy:.3f}")),),
        y_range=[0, max_entropy * 1.08],
    )


def jacobian_sweep(
    d_ks, raw_jacobian_norm, scaled_jacobian_norm, *, tr: Translate = ENGLISH, highlight: int | None = None
) -> go.Figure:
    """Mean Frobenius norm of the softmax Jacobian against d_k: the gradient path to the scores."""
    top = float(max(np.max(raw_jacobian_norm), np.max(scaled_jacobian_norm)))
    return _sweep_figure(
        d_ks,
        raw_jacobian_norm,
        scaled_jacobian_norm,
        title=tr("figures.jacobian_title"),
        y_title=tr("figures.jacobian_axis"),
        highlight=highlight,
        tr=tr,
        y_range=[0, top * 1.1],
    )
