"""Margins that already hold a chart's tick labels and colour bars, so that Chromium draws it once.

Streamlit's chart theme turns on ``automargin`` for every axis. A chart whose margins are too
small for its tick labels or colour bar is drawn, measured, and drawn again with the margins
it needs (plotly.js ``doAutoMargin`` calls ``_doPlot`` once more). ``fit_margins`` is a step of
the chart pipeline (``attention_ui.charts``): it works out the room from the labels the figure's
JSON already carries (tick texts, the colour scale's range), as Plotly will, and returns the
JSON with margins at least that large. Automargin stays on: a label this estimate makes too
small still gets its room, at the price of the second draw (``tests/browser/test_drawn_once.py``
finds such charts; docs/benchmarks.md has what a second draw costs).

Text widths come from the app's one model (``attention_ui.text_width``); the rooms Plotly
takes around them, measured in Chromium, are in ``attention_ui.internals``.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .internals import (
    BELOW_FLAT_PX,
    BELOW_TILTED_PX,
    CHART_TITLE_PX,
    COLORAXIS_XPAD,
    COLORBAR_DEFAULTS,
    COLORBAR_GROW_PX,
    COLORBAR_LABEL_PX,
    LEFT_PX,
    PAD_PX,
    TICK_FONT_PX,
    TITLE_FONT_PX,
)
from .text_width import line_px, lines, text_px


def _axes(layout: dict, letter: str) -> dict[str, dict]:
    """``{"x": xaxis, "x2": xaxis2, …}`` of a layout dict (the first one even if not given)."""
    return {letter: {}} | {
        letter + name[5:]: axis
        for name, axis in layout.items()
        if name.startswith(f"{letter}axis") and isinstance(axis, dict)
    }


def _title_text(axis: dict):
    title = axis.get("title")
    return title.get("text") if isinstance(title, dict) else title


def _labels(axis: dict, extent: tuple[float, float] | None) -> list[str] | None:
    """The axis' tick labels: the ones the figure names, or for a linear axis, the widest
    number Plotly may pick between the data's ends (``extent``), as a percentage where its
    ``tickformat`` says so (".0%"); [] where it shows none; None where they are unknown (a log
    or category axis, text data: no chart of the app has any) or the axis is not drawn.

    >>> _labels({"range": [0, 1.05], "tickformat": ".0%"}, None), _labels({"visible": False}, None)
    (['100%'], None)
    """
    if axis.get("visible") is False:
        return None
    if axis.get("showticklabels") is False:
        return []
    text, values = axis.get("ticktext"), axis.get("tickvals")
    if values is not None:
        return [
            f"{label:g}" if isinstance(label, (int, float)) else str(label)
            for label in (text if text is not None else values)
        ]
    low, high = axis.get("range") or extent or (None, None)
    if axis.get("type") in ("log", "category", "date") or low is None or high is None or isinstance(low, str):
        return None
    percent = re.fullmatch(r"\.(\d)%", str(axis.get("tickformat") or ""))
    if percent:  # Plotly writes 100 × the value, with that many decimals, and "%"
        whole = _widest_number(100 * float(low), 100 * float(high)).split(".")[0]
        decimals = int(percent[1])
        return [whole + ("." + "0" * decimals if decimals else "") + "%"]
    return [_widest_number(float(low), float(high))]


def _extents(data: list[dict]) -> dict[str, tuple[float, float]]:
    """Each axis' numeric data range, ``{"x": (low, high), "y2": …}``, as Plotly's autorange
    would cover it: bars and filled areas from 0, 5 % more on each side that is not 0."""
    ends: dict[str, list[float]] = {}
    for trace in data:
        if trace.get("type") not in ("bar", "scatter"):
            continue
        for letter in "xy":
            values = trace.get(letter)
            if values is None:
                continue
            axis_id = trace.get(f"{letter}axis") or letter
            v = _numbers(values)
            v = v[np.isfinite(v)] if v is not None else v  # None: text
            if v is None or v.size == 0:
                continue
            found = ends.setdefault(axis_id, [])
            found += [float(v.min()), float(v.max())]
            if trace.get("type") == "bar" or trace.get("fill") in ("tozeroy", "tozerox"):
                found.append(0.0)
    out = {}
    for axis_id, values in ends.items():
        low, high = min(values), max(values)
        span = (high - low) or 1.0
        out[axis_id] = (low - 0.05 * span if low else low, high + 0.05 * span if high else high)
    return out


AUTO_TILT_COS = math.cos(math.radians(30))
"""Plotly tilts "auto" labels that do not fit by 30°, each running down and to the right of its
tick: the last one then needs this share of its width right of the plot, or Plotly hides it
(an 11-piece sentence lost "11: [SEP]" on a projector in presentation mode)."""
FLAT_PX = 700
"""Labels Plotly may tilt (``tickangle`` "auto") are taken as flat when they fit side by side
in this many px (the panel's share of them), about the narrowest plot on a projector or a
laptop; on a phone they may tilt, and the chart is drawn twice there, as before."""


def _flat(labels: list[str], size: float, room: float) -> bool:
    """Whether Plotly leaves the labels flat in ``room`` px: all of them fit side by side, or
    the widest fits between two ticks.

    >>> _flat([str(n) for n in range(1, 13)], 12, 205), _flat(["8: because"] * 12, 12, 205)
    (True, False)
    """
    widths = [text_px(label, size) for label in labels]
    return bool(widths) and (sum(w + 8 for w in widths) <= room or max(widths) + 4 <= room / len(widths))


COLORBAR_X = 1.0
"""Where ``fit_margins`` puts a colour bar that sat right of the plot: at Plotly's default,
1.02 of the plot's width, the room it needs would change with the screen."""


def _nice_step(span: float, n: int = 6) -> float:
    """Plotly's tick step for ``span`` in about ``n`` steps: 1, 2 or 5 × 10^k (2.5 too)."""
    raw = span / n
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def _widest_number(low: float, high: float) -> str:
    """The widest tick label Plotly may write between ``low`` and ``high`` (Plotly picks the
    ticks; the estimate takes the longest candidate, so it can only be too wide).

    >>> _widest_number(0, 1), _widest_number(-1, 1), _widest_number(0, 6000)
    ('0.1', '−0.2', '1000')
    """
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return "−0.00"
    candidates = set()
    for step in {_nice_step(high - low), _nice_step(high - low, 12)}:  # a tall axis or colour bar ticks finer
        decimals = len(f"{step:.6f}".rstrip("0").split(".")[1])
        ticks = (round(k * step, decimals) for k in range(math.floor(low / step), math.ceil(high / step) + 1))
        candidates |= {f"{tick:.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{tick:.0f}" for tick in ticks}
    return max(sorted(label.replace("-", "−") for label in candidates), key=text_px)


def _colorbar_px(bar: dict, low: float, high: float, xpad: float, font_px: float) -> float:
    """The room (px) right of the plot that a colour bar at x = 1 takes: its padding on both
    sides, the bar, the labels, or its title if wider; ``font_px``: the chart's tick font."""
    grow = font_px / TICK_FONT_PX
    pad = bar.get("xpad", xpad)
    labels = text_px(_widest_number(low, high), (bar.get("tickfont") or {}).get("size", font_px))
    title = _title_text(bar) or ""
    title_px = text_px(title, TITLE_FONT_PX * grow) + 6 if title else 0.0
    bigger = (grow - 1) * COLORBAR_GROW_PX
    thickness = bar.get("thickness", COLORBAR_DEFAULTS["thickness"])
    return 2 * pad + bigger + max(thickness + COLORBAR_LABEL_PX * grow + labels, title_px)


def _numbers(values):
    """``values`` (a list: ``charts.figure_json`` made 1-D arrays lists) as a float array; None
    for text or a 2-D typed array.

    >>> _numbers([1, 2]).tolist(), _numbers(["a"]), _numbers({"dtype": "i1", "bdata": "AQI=", "shape": "1, 2"})
    ([1.0, 2.0], None, None)
    """
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return None


def _right_bars(spec: dict) -> list[tuple[int | str, dict, float, float, float]]:
    """The colour bars drawn right of the plot (x ≥ 1, or Plotly's default 1.02), each as
    ``(where, colorbar, low, high, xpad)``: where it sits (a trace's index, or "coloraxis"),
    its JSON, the range its labels cover and the padding it takes (more for a shared colour
    axis, with Streamlit's theme)."""
    data, layout = spec.get("data", []), spec.get("layout", {})
    heatmaps = [(n, trace) for n, trace in enumerate(data) if trace.get("type") == "heatmap"]
    bars: list[tuple[int | str, dict, float, float, float]] = [
        (n, trace.get("colorbar") or {}, *_z_range(trace), COLORBAR_DEFAULTS["xpad"])
        for n, trace in heatmaps
        if trace.get("showscale") is not False and not trace.get("coloraxis")
    ]
    scale = layout.get("coloraxis") or {}
    if scale.get("showscale") is not False and any(trace.get("coloraxis") for _, trace in heatmaps):
        low = 0.0 if scale.get("cmin") is None else scale["cmin"]
        high = 1.0 if scale.get("cmax") is None else scale["cmax"]
        bars.append(("coloraxis", scale.get("colorbar") or {}, low, high, COLORAXIS_XPAD))
    return [bar for bar in bars if bar[1].get("x") is None or bar[1]["x"] >= 1.0]


def _z_range(trace: dict) -> tuple[float, float]:
    low, high = trace.get("zmin"), trace.get("zmax")
    if low is None or high is None:
        z = _numbers(trace.get("z"))
        if z is None:
            return 0.0, 1.0
        finite = z[np.isfinite(z)]
        if finite.size == 0:
            return 0.0, 1.0
        low, high = float(finite.min()), float(finite.max())
    return float(low), float(high)


def needed_margins(spec: dict) -> dict[str, float]:
    """The room (px) that the tick labels and colour bars of ``spec`` (a figure's JSON) will
    take at each edge, once its colour bars right of the plot sit at ``COLORBAR_X``
    (``fit_margins`` puts them there).

    The labels are the ones the figure names (``ticktext``, or ``tickvals``), its text data, or
    for a linear axis the widest number Plotly may pick for the data's range; an edge whose
    labels are not known (a log axis without tickvals) or a legend's room is left out.

    >>> axis = {"tickvals": [0], "ticktext": ["8: because"], "title": {"text": "i"}}
    >>> spec = {"data": [{"type": "heatmap", "z": [[0, 1]]}], "layout": {"yaxis": axis}}
    >>> {side: round(px) for side, px in needed_margins(spec).items()}
    {'l': 117, 'r': 78}
    """
    layout = {name: value for name, value in spec.get("layout", {}).items() if name != "template"}
    data = spec.get("data", [])
    heatmaps = [(t.get("xaxis") or "x", t.get("yaxis") or "y") for t in data if t.get("type") == "heatmap"]
    tick_px = (layout.get("font") or {}).get("size", TICK_FONT_PX)
    grow = tick_px / TICK_FONT_PX  # a larger font (presentation mode) takes more room around the labels too
    extents = _extents(data)
    need: dict[str, float] = {}

    def more(side: str, px: float) -> None:  # + what Plotly pads with once no margin is under 12 px
        need[side] = max(need.get(side, 0.0), px + PAD_PX)

    for axis_id, axis in _axes(layout, "y").items():
        labels = _labels(axis, extents.get(axis_id))
        if axis.get("side") == "right" or labels is None:  # (inner panels' labels counted as if at the edge)
            continue
        size = (axis.get("tickfont") or {}).get("size", tick_px)
        room = grow * LEFT_PX[any(y == axis_id for _, y in heatmaps), _title_text(axis) is not None]
        more("l", max((text_px(label, size) for label in labels), default=0.0) + room)
    for axis_id, axis in _axes(layout, "x").items():
        labels = _labels(axis, extents.get(axis_id))
        if axis.get("side") == "top" or not labels:
            continue
        size = (axis.get("tickfont") or {}).get("size", tick_px)
        high = line_px(size) * max(lines(label) for label in labels)
        heat = any(x == axis_id for x, _ in heatmaps)
        angle = axis.get("tickangle")
        low_end, high_end = axis.get("domain") or [0.0, 1.0]
        if angle in (-45, 45):
            widest = max(text_px(label, size) for label in labels)
            more("b", math.sin(math.pi / 4) * (widest + high) + grow * BELOW_TILTED_PX[heat])
        elif angle == 0 or (angle in (None, "auto") and _flat(labels, size, FLAT_PX * (high_end - low_end))):
            more("b", high + grow * BELOW_FLAT_PX[heat, _title_text(axis) is not None])
            more("r", text_px(labels[-1], size) / 2 + 12)  # the last label, centred on the plot's edge
        if angle in (None, "auto"):  # in a narrower plot (large type on a projector) Plotly tilts them
            more("r", AUTO_TILT_COS * text_px(labels[-1], size))  # by 30°: the last reaches past its tick
    for _, bar, low, high, xpad in _right_bars(spec):
        more("r", _colorbar_px(bar, low, high, xpad=xpad, font_px=tick_px))
    return need


TITLE_TOP_PX = 10
"""Room (px) between a chart's top edge and its title's first line: ``fit_margins`` sets every
title that does not place itself there (``placed_title``)."""
TITLE_GAP_PX = 6
"""Room between a title's last line and what is drawn above the plot under it."""
NOTE_BOX_PX = 4
"""What an annotation adds around its lines: Plotly's ``borderpad`` and ``borderwidth`` (1 px
each), above and below."""
LEGEND_BOX_PX = 10
"""What a legend adds around one row of entries."""


def _title(layout: dict) -> tuple[str, float] | None:
    """The title's text and font size (px) when the margins place it (Plotly's default place);
    None without a title, in a chart of no given height, or where the figure places it itself
    (``figures.figure(title_above=)``: over the panels' own titles)."""
    title = layout.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    if not text or not layout.get("height"):
        return None
    title = title if isinstance(title, dict) else {}
    if title.get("y", "auto") != "auto":
        return None
    return str(text), (title.get("font") or {}).get("size") or CHART_TITLE_PX


def placed_title(title: dict, height: float) -> dict:
    """``title`` (a layout's, with its font ``size``) at the top of a chart ``height`` px high:
    its first line's baseline one font size below ``TITLE_TOP_PX``, the other lines under it.

    Plotly's own place (``y`` "auto") puts the first line's baseline in the middle of the top
    margin, whatever the number of lines and their size: a two-line title in presentation
    mode's larger type reached 10 px into the head numbers set on the plot's top edge. Anchored
    by its bottom, Plotly puts the first line's baseline at ``y`` for one line or several (by its
    top, one line's capitals but several lines' first baseline).

    >>> placed_title({"text": "w", "font": {"size": 20}}, 300)["y"]
    0.9
    """
    size = (title.get("font") or {}).get("size") or CHART_TITLE_PX
    return {**title, "y": 1.0 - (TITLE_TOP_PX + size) / height, "yref": "container", "yanchor": "bottom"}


def above_plot_px(layout: dict, plot_px: float) -> float:
    """How high (px) above the plot area the things set on its top edge reach: annotations
    anchored there by their bottom (the heads grid's head numbers, panel titles), a horizontal
    legend standing on it, and half a line of the y axes' tick labels (the top one is centred on
    the edge). ``plot_px``: the plot's height, for what stands higher than the edge (y > 1).

    >>> notes = [{"text": "head", "yref": "paper", "y": 1.0, "yanchor": "bottom", "font": {"size": 18}}]
    >>> round(above_plot_px({"annotations": notes}, 300), 1), round(above_plot_px({}, 300), 1)
    (27.4, 7.8)
    """
    tick_px = (layout.get("font") or {}).get("size", TICK_FONT_PX)
    reach = 0.0
    for note in layout.get("annotations") or []:
        if note.get("yref") != "paper" or note.get("yanchor") != "bottom" or note.get("y", 0.0) < 1.0:
            continue
        size = (note.get("font") or {}).get("size", tick_px)
        high = line_px(size) * lines(str(note.get("text", ""))) + NOTE_BOX_PX
        reach = max(reach, (note["y"] - 1.0) * plot_px + high)
    if layout.get("showlegend") is not False:
        for name, legend in layout.items():
            if not (name.startswith("legend") and isinstance(legend, dict)):
                continue
            if legend.get("orientation") == "h" and legend.get("yanchor") == "bottom" and legend.get("y", 0.0) >= 1.0:
                size = (legend.get("font") or {}).get("size", tick_px)
                reach = max(reach, (legend["y"] - 1.0) * plot_px + line_px(size) + LEGEND_BOX_PX)
    for axis in _axes(layout, "y").values():
        if axis.get("visible") is not False and axis.get("showticklabels") is not False:
            size = (axis.get("tickfont") or {}).get("size", tick_px)
            reach = max(reach, line_px(size) / 2)
    return reach


def title_top_px(layout: dict) -> float | None:
    """The top margin (px) a title set by ``placed_title`` needs: its lines at its size, the gap,
    and what stands on the plot's top edge (``above_plot_px``); None where the margins do not
    place the title (``_title``).

    >>> round(title_top_px({"title": {"text": "a<br>b", "font": {"size": 21}}, "height": 400}))
    78
    """
    title = _title(layout)
    if title is None:
        return None
    text, size = title
    margin = layout.get("margin") or {}
    plot_px = layout["height"] - margin.get("t", 0) - margin.get("b", 0)
    return TITLE_TOP_PX + line_px(size) * lines(text) + TITLE_GAP_PX + above_plot_px(layout, plot_px)


def fit_margins(spec: dict) -> dict:
    """``spec`` (a figure's JSON) with its colour bars right of the plot at ``COLORBAR_X`` and
    margins at least as large as ``needed_margins`` (rounded up): a new dict, ``spec`` is not
    changed. Its title, where the figure does not place it itself, is set at the top
    (``placed_title``), with a top margin that holds its lines at their size and what stands
    on the plot's top edge (``title_top_px``); the chart grows by what that margin grows, so
    its plot keeps its height.

    >>> axis = {"tickvals": [1, 2], "ticktext": ["a", "b"]}
    >>> spec = {"data": [{"type": "bar", "x": [1, 2], "y": [0.5, 1.0]}], "layout": {"margin": {"l": 10}, "xaxis": axis}}
    >>> fitted = fit_margins(spec)
    >>> fitted["layout"]["margin"]["l"] > 10, fitted["layout"]["margin"]["b"] > 0, spec["layout"]["margin"]
    (True, True, {'l': 10})
    """
    data, layout = list(spec.get("data", [])), dict(spec.get("layout", {}))
    for where, bar, *_ in _right_bars(spec):
        moved = {**bar, "x": COLORBAR_X, "xanchor": "left"}
        if isinstance(where, str):  # "coloraxis"
            layout["coloraxis"] = {**layout["coloraxis"], "colorbar": moved}
        else:
            data[where] = {**data[where], "colorbar": moved}
    fitted = {**spec, "data": data, "layout": layout}
    need = needed_margins(fitted)
    if need:
        given = layout.get("margin") or {}
        layout["margin"] = {**given, **{side: max(given.get(side, 0), math.ceil(px)) for side, px in need.items()}}
    top = title_top_px(layout)
    if top is not None:
        given = layout.get("margin") or {}
        more = max(0, math.ceil(top) - given.get("t", 0))
        if more:
            layout["margin"] = {**given, "t": given.get("t", 0) + more}
            layout["height"] += more
        title = layout["title"]
        layout["title"] = placed_title(title if isinstance(title, dict) else {"text": title}, layout["height"])
    return fitted
