"""Figures of the "Why √d_k" experiment: arrays in, go.Figure out. They draw; they never
compute attention (the numbers come from attention_core.scaling).

Colours are the Okabe–Ito pair, safe for colour-blind readers, used the same way in every
chart: orange = without scaling (raw α = q·k), blue = divided by √d_k.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

RAW = "#E69F00"  # orange: without scaling
SCALED = "#0072B2"  # blue: divided by √d_k
REFERENCE = "#666666"  # grey dashes: theory / uniform weights
RAW_NAME = "without ÷√d_k"
SCALED_NAME = "with ÷√d_k"
_MARGIN = {"l": 10, "r": 10, "t": 60, "b": 10}
_LEGEND = {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0}


def score_histograms(raw, scaled, *, d_k: int, raw_variance: float, scaled_variance: float,
                     bins: int = 101) -> go.Figure:
    """Histograms of raw scores α = q·k (top) and scaled α/√d_k (bottom) on one shared x axis.

    Both panels use the same bins, symmetric around 0 and wide enough for every value, so
    the widths compare directly. Each bar's customdata holds its bin edges [low, high).
    """
    raw = np.asarray(raw, dtype=np.float64).ravel()  # (N,)
    scaled = np.asarray(scaled, dtype=np.float64).ravel()  # (N,)
    bound = float(max(np.abs(raw).max(), np.abs(scaled).max(), 1e-9)) * 1.001
    edges = np.linspace(-bound, bound, bins + 1)  # (bins + 1,)
    centers = (edges[:-1] + edges[1:]) / 2  # (bins,)
    edge_pairs = np.stack([edges[:-1], edges[1:]], axis=1)  # (bins, 2)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=(f"raw scores α = q·k: variance {raw_variance:.2f}  ({len(raw):,} values)",
                                        f"scaled scores α / √{d_k}: variance {scaled_variance:.3f}"))
    for row, values, color, name in ((1, raw, RAW, RAW_NAME), (2, scaled, SCALED, SCALED_NAME)):
        counts, _ = np.histogram(values, bins=edges)  # (bins,)
        fig.add_trace(go.Bar(x=centers, y=counts, width=edges[1] - edges[0], marker_color=color, name=name,
                             customdata=edge_pairs,
                             hovertemplate="%{customdata[0]:.2f} to %{customdata[1]:.2f}: %{y} scores"
                                           "<extra>%{fullData.name}</extra>"),
                      row=row, col=1)
        fig.update_yaxes(title_text="count", row=row, col=1)
    fig.update_xaxes(title_text="score", row=2, col=1)
    fig.update_layout(title=f"Where the scores fall, d_k = {d_k}", height=460, bargap=0, showlegend=False,
                      margin=_MARGIN)
    return fig


def example_row_weights(raw_weights, scaled_weights, *, d_k: int) -> go.Figure:
    """One query's softmax weights over its keys, without and with scaling, as grouped bars."""
    raw_weights = np.asarray(raw_weights, dtype=np.float64)  # (n_keys,)
    scaled_weights = np.asarray(scaled_weights, dtype=np.float64)  # (n_keys,)
    keys = list(range(len(raw_weights)))
    fig = go.Figure()
    for w, color, name in ((raw_weights, RAW, RAW_NAME), (scaled_weights, SCALED, SCALED_NAME)):
        fig.add_trace(go.Bar(x=keys, y=w, name=name, marker_color=color,
                             hovertemplate="key %{x}: α̂ = %{y:.4f}<extra>%{fullData.name}</extra>"))
    fig.update_layout(title=f"One query, {len(keys)} random keys: softmax weights α̂, d_k = {d_k}",
                      barmode="group", height=360, margin=_MARGIN, legend=_LEGEND)
    fig.update_xaxes(title="key j", tickvals=keys)
    fig.update_yaxes(title="weight α̂ (row sums to 1)", range=[0, 1.05])
    return fig


def _sweep_figure(d_ks, raw, scaled, *, title: str, y_title: str, highlight: int | None,
                  references=(), log_y: bool = False, y_range=None) -> go.Figure:
    """Raw and scaled statistics against d_k (log x), with grey dashed reference lines on top."""
    d_ks = np.asarray(d_ks)  # (m,)
    fig = go.Figure()
    for y, color, name, symbol in ((raw, RAW, RAW_NAME, "circle"), (scaled, SCALED, SCALED_NAME, "square")):
        fig.add_trace(go.Scatter(x=d_ks, y=np.asarray(y, dtype=np.float64), mode="lines+markers", name=name,
                                 line={"color": color, "width": 3},
                                 marker={"color": color, "symbol": symbol, "size": 8},
                                 hovertemplate="d_k = %{x}: %{y:.4g}<extra>%{fullData.name}</extra>"))
    for value, name in references:
        ref = np.broadcast_to(np.asarray(value, dtype=np.float64), d_ks.shape)  # (m,)
        fig.add_trace(go.Scatter(x=d_ks, y=ref, mode="lines", name=name,
                                 line={"color": REFERENCE, "dash": "dash", "width": 1.5},
                                 hovertemplate="d_k = %{x}: %{y:.4g}<extra>%{fullData.name}</extra>"))
    yaxis = {"title": {"text": y_title}, "type": "log" if log_y else "linear"}
    if y_range is not None:
        yaxis["range"] = y_range
    if log_y:
        yaxis["tickvals"] = [2.0 ** e for e in range(0, int(np.log2(max(d_ks.max(), 2))) + 1)]
    if highlight is not None:
        fig.add_trace(go.Scatter(x=[highlight, highlight], y=[0, 1], yaxis="y2", mode="lines",
                                 name=f"your d_k = {highlight}", showlegend=False,
                                 line={"color": "black", "dash": "dot", "width": 1}, hoverinfo="skip"))
    fig.update_layout(title=title, height=360, margin=_MARGIN, legend=_LEGEND, yaxis=yaxis,
                      yaxis2={"overlaying": "y", "range": [0, 1], "visible": False, "fixedrange": True})
    fig.update_xaxes(title="d_k (log scale)", type="log", tickvals=list(d_ks), ticktext=[str(d) for d in d_ks])
    return fig


def variance_sweep(d_ks, raw_variance, scaled_variance, *, highlight: int | None = None) -> go.Figure:
    """Measured Var(q·k) and Var(q·k/√d_k) against d_k, both axes logarithmic, with y = d_k."""
    return _sweep_figure(d_ks, raw_variance, scaled_variance, title="Variance of the scores: grows like d_k unscaled",
                         y_title="variance (log scale)", highlight=highlight, log_y=True,
                         references=((np.asarray(d_ks, dtype=np.float64), "theory: d_k"), (1.0, "theory: 1")))


def max_weight_sweep(d_ks, raw_max_weight, scaled_max_weight, *, uniform_weight: float,
                     highlight: int | None = None) -> go.Figure:
    """Mean largest softmax weight per row against d_k; 1/n (uniform) for reference."""
    return _sweep_figure(d_ks, raw_max_weight, scaled_max_weight, title="Largest weight per row: → 1 means saturated",
                         y_title="mean largest α̂", highlight=highlight,
                         references=((uniform_weight, f"uniform: 1/n = {uniform_weight:.4g}"),), y_range=[0, 1.02])


def entropy_sweep(d_ks, raw_entropy, scaled_entropy, *, max_entropy: float,
                  highlight: int | None = None) -> go.Figure:
    """Mean row entropy (nats) against d_k; ln n (uniform) for reference."""
    return _sweep_figure(d_ks, raw_entropy, scaled_entropy, title="Entropy per row: → 0 means one key takes all",
                         y_title="mean entropy (nats)", highlight=highlight,
                         references=((max_entropy, f"uniform: ln n = {max_entropy:.3f}"),),
                         y_range=[0, max_entropy * 1.08])


def jacobian_sweep(d_ks, raw_jacobian_norm, scaled_jacobian_norm, *, highlight: int | None = None) -> go.Figure:
    """Mean Frobenius norm of the softmax Jacobian against d_k: the gradient path to the scores."""
    top = float(max(np.max(raw_jacobian_norm), np.max(scaled_jacobian_norm)))
    return _sweep_figure(d_ks, raw_jacobian_norm, scaled_jacobian_norm,
                         title="Softmax Jacobian ‖diag(α̂) − α̂α̂ᵀ‖: → 0 means no gradient",
                         y_title="mean Frobenius norm", highlight=highlight, y_range=[0, top * 1.1])
