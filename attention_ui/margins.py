"""Margins that already hold a chart's tick labels and colour bars, so that Chromium draws it once.

Streamlit's chart theme turns on ``automargin`` for every axis. A chart whose margins are too
small for its tick labels or colour bar is drawn, measured, and drawn again with the margins
it needs (plotly.js ``doAutoMargin`` calls ``_doPlot`` once more). Nearly every chart of the app
paid that: its margins were 10 px and its labels need about 100. ``fit_margins`` works out the
room from the labels the figure already carries (tick texts, the colour scale's range), as
Plotly will, and gives the figure margins at least that large. Automargin stays on: a label
this estimate makes too small still gets its room, at the price of the second draw.

Measured: ``bench/bench_draw.py --only "matrix12 bare numbers"``, one 12 × 12 weights matrix,
0.179 s → 0.145 s from an empty page to the drawn chart (medians of 7).

The text widths are Source Sans (Streamlit's chart font) as Chromium measures it, in ems:
``TEXT_EM`` (ASCII), 1 em for CJK, 0 for combining marks, ``OTHER_EM`` for the rest.
"""

from __future__ import annotations

import math
import re
import unicodedata

from .chart_theme import TICK_FONT_PX, TITLE_FONT_PX  # the sizes the charts are drawn with

TEXT_EM = {
    **dict.fromkeys(" ", 0.2),
    **dict.fromkeys("|ij',.:;l·", 0.255),
    **dict.fromkeys("I!f", 0.292),
    **dict.fromkeys("()[]{}-", 0.311),
    **dict.fromkeys("trs/\\", 0.419),
    **dict.fromkeys('*?z"xc', 0.456),
    **dict.fromkeys("vyYJLFke0123456789#$+<=>^~_−", 0.5),
    **dict.fromkeys("agXVESTZ`ohunbdpqA", 0.555),
    **dict.fromkeys("PRCKB&DGα√", 0.617),
    **dict.fromkeys("UNHOQ", 0.664),
    **dict.fromkeys("wM", 0.786),
    **dict.fromkeys("W%m@…", 0.948),
}
"""Advance widths in ems of Source Sans in Chromium, each rounded up to its group's widest."""
OTHER_EM = 0.7
"""Any other letter (Greek, accented, Cyrillic…): a little wider than most."""
LINE_EM = 1.3
"""The height of a line of text in ems, as Plotly spaces ``<br>`` lines."""

PAD_PX = 2
"""Plotly pads what pushes a margin by the smallest margin, up to 12 px; the rooms below were
measured with 10 px margins, and margins that fit are all 12 px or more."""

_TAG = re.compile(r"<[^>]*>")


def text_px(text: str, size: float = TICK_FONT_PX) -> float:
    """The width (px) of the widest line of a Plotly label in Source Sans at ``size`` px.

    ``<br>`` breaks lines; other tags (``<b>``, ``<sub>``) take no room; entities count as one
    letter.

    >>> round(text_px("8: because"), 1), text_px("中文"), text_px("α̂") == text_px("α")
    (53.9, 24.0, True)
    """
    widths = [0.0]
    for line in str(text).split("<br>"):
        line = re.sub(r"&[#\w]+;", "x", _TAG.sub("", line))
        widths.append(sum(_em(ch) for ch in line) * size)
    return max(widths)


def _em(ch: str) -> float:
    if ch in TEXT_EM:
        return TEXT_EM[ch]
    if unicodedata.combining(ch):
        return 0.0
    if unicodedata.east_asian_width(ch) in "WF":
        return 1.0
    return OTHER_EM


def lines(text: str) -> int:
    """How many lines a Plotly label takes.

    >>> lines("1<br>中"), lines("a")
    (2, 1)
    """
    return str(text).count("<br>") + 1


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
    number Plotly may pick between the data's ends (``extent``); None where that is unknown
    (a log or category axis, text data)."""
    if axis.get("visible") is False or axis.get("showticklabels") is False:
        return []
    text, values = axis.get("ticktext"), axis.get("tickvals")
    if values is not None:
        return [
            f"{label:g}" if isinstance(label, (int, float)) else str(label)
            for label in (text if text is not None else values)
        ]
    if isinstance(extent, list):  # the categories of text data
        return extent
    low, high = axis.get("range") or extent or (None, None)
    if axis.get("type") in ("log", "category", "date") or low is None or isinstance(low, str):
        return None
    return [_widest_number(float(low), float(high))]


def _extents(fig) -> dict[str, tuple[float, float] | list[str]]:
    """Each axis' data range, ``{"x": (low, high), "y2": …}``, as Plotly's autorange would
    cover it: bars and filled areas from 0, 5 % more on each side that is not 0; or, for
    text data, its categories (a list)."""
    import numpy as np

    ends: dict[str, list[float]] = {}
    categories: dict[str, list[str]] = {}
    for trace in fig.data:
        if trace.type not in ("bar", "scatter"):
            continue
        for letter in "xy":
            values = getattr(trace, letter)
            if values is None:
                continue
            axis_id = getattr(trace, f"{letter}axis", None) or letter
            v = _numbers(values)
            if v is None:  # text: categories
                categories.setdefault(axis_id, []).extend(str(value) for value in values)
                continue
            v = v[np.isfinite(v)]
            if v.size == 0:
                continue
            found = ends.setdefault(axis_id, [])
            found += [float(v.min()), float(v.max())]
            if trace.type == "bar" or trace.fill in ("tozeroy", "tozerox"):
                found.append(0.0)
    out = {}
    for axis_id, values in ends.items():
        low, high = min(values), max(values)
        span = (high - low) or 1.0
        out[axis_id] = (low - 0.05 * span if low else low, high + 0.05 * span if high else high)
    return {**out, **categories}


def _at_edge(axis: dict, layout: dict, other: str) -> bool:
    """Whether the axis' panel starts at the paper's left (or bottom) edge, where its labels
    push the margin; ``other`` is the letter of the axis it is anchored to."""
    anchor = axis.get("anchor") or other
    partner = layout.get(f"{anchor[0]}axis{anchor[1:]}", {}) if anchor != "free" else {}
    return (partner.get("domain") or [0.0, 1.0])[0] == 0.0


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


def number_labels_px(low: float, high: float, size: float = TICK_FONT_PX) -> float:
    """How wide the widest label of an axis from ``low`` to ``high`` may be (Plotly picks the
    ticks; the estimate takes the longest candidate, so it can only be too wide).

    >>> round(number_labels_px(0, 1), 1), round(number_labels_px(-1, 1), 1)
    (15.1, 21.1)
    """
    return text_px(_widest_number(low, high), size)


def _widest_number(low: float, high: float) -> str:
    """The widest tick label Plotly may write between ``low`` and ``high``.

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
    labels = number_labels_px(low, high, (bar.get("tickfont") or {}).get("size", font_px))
    title = _title_text(bar) or ""
    title_px = text_px(title, TITLE_FONT_PX * grow) + 6 if title else 0.0
    bigger = (grow - 1) * 20  # measured in presentation mode (18 px): Streamlit's padding grows too
    return 2 * pad + bigger + max(bar.get("thickness", 30) + COLORBAR_LABEL_PX * grow + labels, title_px)


def _numbers(values):
    """``values`` as a float array, also when Plotly holds them base64-encoded (a figure made
    from ``to_dict()``); None for text.

    >>> _numbers([1, 2]).tolist(), _numbers({"dtype": "i1", "bdata": "AQI="}).tolist(), _numbers(["a"])
    ([1.0, 2.0], [1.0, 2.0], None)
    """
    import base64

    import numpy as np

    if isinstance(values, dict) and "bdata" in values:
        v = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        return v.astype(float)
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return None


def _right_bars(fig) -> list[tuple]:
    """The colour bars drawn right of the plot (x ≥ 1, or Plotly's default 1.02), each as
    ``(colorbar, low, high, xpad)``: the figure's own object, the range its labels cover and
    the padding Streamlit's theme gives it (more for a shared colour axis)."""
    bars = [
        (trace.colorbar, *_z_range(trace), 10)
        for trace in fig.data
        if trace.type == "heatmap" and trace.showscale is not False and not trace.coloraxis
    ]
    scale = fig.layout.coloraxis
    if scale.showscale is not False and any(t.coloraxis for t in fig.data if t.type == "heatmap"):
        low, high = (0.0 if scale.cmin is None else scale.cmin), (1.0 if scale.cmax is None else scale.cmax)
        bars.append((scale.colorbar, low, high, 28))
    return [(bar, low, high, xpad) for bar, low, high, xpad in bars if bar.x is None or bar.x >= 1.0]


def _z_range(trace) -> tuple[float, float]:
    low, high = trace.zmin, trace.zmax
    if low is None or high is None:
        import numpy as np

        z = _numbers(trace.z)
        if z is None:
            return 0.0, 1.0
        finite = z[np.isfinite(z)]
        if finite.size == 0:
            return 0.0, 1.0
        low, high = float(finite.min()), float(finite.max())
    return float(low), float(high)


LEFT_PX = {(False, False): 21, (False, True): 55, (True, False): 28, (True, True): 61}
"""Room (px) left of a plot beside its widest y label, by (a heatmap's axis, with a title).
Plotly gives a heatmap's axes outside ticks; a title (even "") takes a line and its standoff.
These and the rooms below are what Plotly took in Chromium with Streamlit's theme (10 px
margins, so its pad was 10 px), measured on every chart of the app."""
BELOW_FLAT_PX = {(False, False): 21, (False, True): 51, (True, False): 58, (True, True): 58}
"""Room (px) below a plot beside the height of its flat x labels, keyed as ``LEFT_PX``."""
BELOW_TILTED_PX = {False: 51, True: 58.5}
"""Room (px) below a plot beside ``sin 45° × (width + height)`` of the widest label tilted by
45°, for a bar chart and for a heatmap."""
COLORBAR_LABEL_PX = 11
"""Between a colour bar and its labels (its ticks and their padding)."""


def needed_margins(fig) -> dict[str, float]:
    """The room (px) that ``fig``'s tick labels and colour bars will take at each edge, once its
    colour bars right of the plot are moved to ``COLORBAR_X`` (``fit_margins`` does that).

    The labels are the ones the figure names (``ticktext``, or ``tickvals``), its text data, or
    for a linear axis the widest number Plotly may pick for the data's range; an edge whose
    labels are not known (a log axis without tickvals) or a legend's room is left out.

    >>> import plotly.graph_objects as go
    >>> axis = {"tickvals": [0], "ticktext": ["8: because"], "title": {"text": "i"}}
    >>> fig = go.Figure([{"type": "heatmap", "z": [[0, 1]]}], layout={"yaxis": axis})
    >>> {side: round(px) for side, px in needed_margins(fig).items()}
    {'l': 117, 'r': 78}
    """
    layout = fig.layout.to_plotly_json()
    layout.pop("template", None)
    heatmaps = [(t.xaxis or "x", t.yaxis or "y") for t in fig.data if t.type == "heatmap"]
    tick_px = (layout.get("font") or {}).get("size", TICK_FONT_PX)
    grow = tick_px / TICK_FONT_PX  # a larger font (presentation mode) takes more room around the labels too
    extents = _extents(fig)
    need: dict[str, float] = {}

    def more(side: str, px: float) -> None:  # + what Plotly pads with once no margin is under 12 px
        need[side] = max(need.get(side, 0.0), px + PAD_PX)

    for axis_id, axis in _axes(layout, "y").items():
        labels = _labels(axis, extents.get(axis_id))
        if axis.get("side") == "right" or not _at_edge(axis, layout, "x") or labels is None:
            continue
        size = (axis.get("tickfont") or {}).get("size", tick_px)
        room = grow * LEFT_PX[any(y == axis_id for _, y in heatmaps), _title_text(axis) is not None]
        more("l", max((text_px(label, size) for label in labels), default=0.0) + room)
    for axis_id, axis in _axes(layout, "x").items():
        labels = _labels(axis, extents.get(axis_id))
        if axis.get("side") == "top" or not _at_edge(axis, layout, "y") or not labels:
            continue
        size = (axis.get("tickfont") or {}).get("size", tick_px)
        high = size * LINE_EM * max(lines(label) for label in labels)
        heat = any(x == axis_id for x, _ in heatmaps)
        angle = axis.get("tickangle")
        low_end, high_end = axis.get("domain") or [0.0, 1.0]
        if angle in (-45, 45):
            widest = max(text_px(label, size) for label in labels)
            more("b", math.sin(math.pi / 4) * (widest + high) + grow * BELOW_TILTED_PX[heat])
        elif angle == 0 or (angle in (None, "auto") and _flat(labels, size, FLAT_PX * (high_end - low_end))):
            more("b", high + grow * BELOW_FLAT_PX[heat, _title_text(axis) is not None])
            more("r", text_px(labels[-1], size) / 2 + 12)  # the last label, centred on the plot's edge
    for bar, low, high, xpad in _right_bars(fig):
        more("r", _colorbar_px(bar.to_plotly_json(), low, high, xpad=xpad, font_px=tick_px))
    return need


def fit_margins(fig):
    """Move ``fig``'s colour bars right of the plot to ``COLORBAR_X`` and give it margins at
    least as large as ``needed_margins`` (rounded up); returns ``fig``, changed in place.

    >>> import plotly.graph_objects as go
    >>> fig = fit_margins(go.Figure([{"type": "bar", "x": ["a", "b"], "y": [0.5, 1.0]}], layout={"margin": {"l": 10}}))
    >>> fig.layout.margin.l > 10, fig.layout.margin.b > 0
    (True, True)
    """
    for bar, *_ in _right_bars(fig):
        bar.x, bar.xanchor = COLORBAR_X, "left"
    need = needed_margins(fig)
    if need:
        given = fig.layout.margin.to_plotly_json()
        fig.layout.margin = {**given, **{side: max(given.get(side, 0), math.ceil(px)) for side, px in need.items()}}
    return fig
