"""Streamlit's look for charts, written into each figure, so that the browser draws a chart once.

Why. With ``theme="streamlit"`` Streamlit's chart component puts its theme into
``layout.template`` when the chart mounts, and once more, as a new object, in an effect right
after. Plotly.react compares a template by identity, takes the new one for a change and draws
the whole chart a second time; a ``layout.meta`` object does the same, and so do data arrays
(Streamlit deep-copies the figure) unless ``layout.datarevision`` is set. Every chart of the
app was drawn twice on every page switch and every click that changed it.

What. ``themed`` makes the figure the dict Streamlit sends, with the theme's values in its own
layout (the figure's values win), without the template and ``meta`` (``exports.show_figure``
has read what it needs from it), the title wrapped in ``<b>`` as Streamlit does, 1-D NumPy
arrays as lists (a typed array came back from Streamlit's copy as another kind of value) and a
``datarevision`` (a digest of the traces). ``themed_figure`` wraps it for ``st.plotly_chart``
(``Themed``); sent with ``theme=None``, the second Plotly.react finds nothing changed.
Measured (Chromium's call counts over one page switch to Multi-head): Plotly drew its axes'
tick labels 138 times before, 69 after; JavaScript in Streamlit's chart bundle 0.22 → 0.12 s.

The values are those Streamlit 1.67's default light theme gives its Plotly charts (read from
a chart it drew: ``layout.template.layout``). A learner whose Streamlit runs dark gets the
dark theme's colours from the style sheet (``style.chart_dark_rules``): it maps each light
colour below, where Plotly drew it, to its dark counterpart with CSS ``light-dark()``.
Downloaded images (Plotly draws them from the figure) keep the light colours on white. A custom
``[theme]`` in ``.streamlit/config.toml`` would need these colours changed with it.

>>> spec = themed(go.Figure(go.Bar(y=[1, 2]), layout={"title": {"text": "w"}, "xaxis2": {"side": "top"}}))
>>> spec["layout"]["title"]["text"], spec["layout"]["xaxis2"]["automargin"], "template" in spec["layout"]
('<b>w</b>', True, False)
"""

from __future__ import annotations

import base64
import hashlib
import re

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.utils import plotlyjsShortTypes

FONT = '"Source Sans", sans-serif'
TICK_FONT_PX = 12
"""Tick labels, legends, hover text and the layout's font (Streamlit's ``fontSizes.twoSm``)."""
TITLE_FONT_PX = 14
"""Axis and colour-bar titles (``fontSizes.sm``)."""
TEXT = "#808495"
"""Tick labels, axis titles, colour bars, hover text (light theme)."""
TITLE = "#2F2D2B"
"""Chart titles."""
LEGEND = "#262730"
LINE = "#e6eaf1"
"""Grid, zero and tick lines."""
PAPER = "#FFFFFF"
HOVER_BORDER = "#DCD8D4"

DARK = {
    TEXT: "#e6eaf1",
    TITLE: "#EDEBE8",
    LEGEND: "#fafafa",
    LINE: "#31333F",
    PAPER: "#171614",
    HOVER_BORDER: "#4A4742",
}
"""The dark theme's colour for each light one (Streamlit 1.67's default dark theme)."""

COLORWAY = [
    "#0068c9",
    "#83c9ff",
    "#ff2b2b",
    "#ffabab",
    "#29b09d",
    "#7defa1",
    "#ff8700",
    "#ffd16a",
    "#6d3fc0",
    "#d5dae5",
]
SEQUENTIAL = [
    "#e4f5ff",
    "#c7ebff",
    "#a6dcff",
    "#83c9ff",
    "#60b4ff",
    "#3d9df3",
    "#1c83e1",
    "#0068c9",
    "#0054a3",
    "#004280",
]
DIVERGING = [
    "#7d353b",
    "#bd4043",
    "#ff4b4b",
    "#ff8c8c",
    "#ffc7c7",
    "#a6dcff",
    "#60b4ff",
    "#1c83e1",
    "#0054a3",
    "#004280",
]


def _scale(colours: list[str]) -> list[list]:
    return [[i / (len(colours) - 1), c] for i, c in enumerate(colours)]


SEQUENTIAL_SCALE = _scale(SEQUENTIAL)


_AXIS = {
    "color": LINE,  # the tick marks' colour where Plotly draws some (a tickcolor would turn them on everywhere)
    "zerolinecolor": LINE,
    "gridcolor": LINE,
    "tickfont": {"color": TEXT, "size": TICK_FONT_PX},
    "automargin": True,
}
AXES = {
    "x": {
        **_AXIS,
        "showgrid": False,
        "zeroline": False,
        "title": {"font": {"color": TEXT, "size": TITLE_FONT_PX}, "standoff": 20},
    },
    "y": {
        **_AXIS,
        "ticklabelposition": "outside",
        "title": {"font": {"color": TEXT, "size": TITLE_FONT_PX}, "standoff": 24},
    },
}
"""What Streamlit's theme gives every x and every y axis."""
COLORAXIS = {
    "colorscale": SEQUENTIAL_SCALE,
    "colorbar": {
        "thickness": 16,
        "xpad": 24,
        "ticklabelposition": "outside",
        "outlinecolor": "rgba(0,0,0,0)",
        "outlinewidth": 8,
        "len": 0.75,
        "y": 0.5745,
        "title": {"font": {"color": TEXT, "size": TITLE_FONT_PX}},
        "tickfont": {"color": TEXT, "size": TICK_FONT_PX},
    },
}
"""What Streamlit's theme gives every colour axis."""
LAYOUT = {
    "font": {"color": TEXT, "family": FONT, "size": TICK_FONT_PX, "weight": 400},
    "title": {"font": {"family": FONT, "size": 16, "color": TITLE}, "pad": {"l": 4}, "xanchor": "left", "x": 0},
    "legend": {
        "title": {"font": {"size": TICK_FONT_PX, "color": TEXT}, "side": "top"},
        "valign": "top",
        "bordercolor": "rgba(0,0,0,0)",
        "borderwidth": 0,
        "font": {"size": TICK_FONT_PX, "color": LEGEND},
    },
    "paper_bgcolor": PAPER,
    "plot_bgcolor": PAPER,
    "margin": {"pad": 8, "r": 0, "l": 0},
    "hoverlabel": {
        "bgcolor": PAPER,
        "bordercolor": HOVER_BORDER,
        "font": {"color": TEXT, "family": FONT, "size": TICK_FONT_PX},
    },
    "colorway": COLORWAY,
    "colorscale": {
        "sequential": SEQUENTIAL_SCALE,
        "sequentialminus": SEQUENTIAL_SCALE,
        "diverging": _scale(DIVERGING),
    },
}
"""What Streamlit's theme gives a figure's layout."""

ORIENTED = {"bar", "histogram", "box", "violin", "funnel", "waterfall"}
"""Traces that stand on one axis (x, or y when horizontal); Plotly gives that axis no grid."""
_DTYPES = {short: np.dtype(name) for name, short in plotlyjsShortTypes.items()}
"""Plotly's typed-array names (``"f8"``) and the NumPy type of each."""
_SUBPLOT = re.compile(r"^(xaxis|yaxis|coloraxis)(\d*)$")


def under(defaults: dict, own: dict) -> dict:
    """``own`` with ``defaults`` filled in where it says nothing, recursively (a new dict).

    >>> under({"font": {"size": 12, "color": "grey"}, "x": 0}, {"font": {"size": 20}})
    {'font': {'size': 20, 'color': 'grey'}, 'x': 0}
    """
    merged = dict(own)
    for name, value in defaults.items():
        mine = own.get(name)
        if isinstance(value, dict) and isinstance(mine, dict):
            merged[name] = under(value, mine)
        elif name not in own or mine is None:
            merged[name] = value
    return merged


def _axis_name(ref: str, value: str | None) -> str | None:
    """The layout key a trace's axis reference names: ``("xaxis", "x2")`` → ``"xaxis2"``;
    a trace without one uses ``xaxis`` / ``yaxis``; a colour axis is named as it is."""
    if ref == "coloraxis":
        return value or None
    return ref + (value or ref[0])[1:]


def digest(traces: list[dict]) -> str:
    """16 hex digits that change whenever the traces do: the figure's ``datarevision``.

    >>> digest([{"type": "bar", "y": [1, 2]}]) == digest([{"type": "bar", "y": [1, 3]}])
    False
    """
    from plotly.io.json import to_json_plotly

    return hashlib.blake2b(to_json_plotly(traces).encode(), digest_size=8).hexdigest()


def _vectors_as_lists(props: dict) -> None:
    """Make the 1-D typed arrays among a trace's properties (nested too) lists, in place.

    ``Figure.to_dict`` writes a NumPy array as a typed array; Plotly.js turns a 1-D one into a
    Float64Array, which Streamlit's copy of the figure (JSON) makes a plain object, and Plotly
    draws the chart again for that "new" data. A 2-D array (with a ``shape``) stays as it is.

    >>> trace = go.Figure(go.Bar(y=np.arange(2.0), marker={"color": np.zeros(1)})).to_dict()["data"][0]
    >>> _vectors_as_lists(trace); trace["y"], trace["marker"]
    ([0.0, 1.0], {'color': [0.0]})
    """
    for name, value in props.items():
        if isinstance(value, dict) and "bdata" in value and "shape" not in value:
            props[name] = np.frombuffer(base64.b64decode(value["bdata"]), dtype=_DTYPES[value["dtype"]]).tolist()
        elif isinstance(value, dict):
            _vectors_as_lists(value)


def themed(fig) -> dict:
    """``fig`` as the dict Streamlit sends, with Streamlit's chart theme written into its
    layout, no template, no ``meta``, 1-D arrays as lists and a ``datarevision``. ``fig`` is
    not changed. Draw it with ``st.plotly_chart(Themed(spec), theme=None)``.

    Every axis and colour axis the layout or a trace names gets the theme's values for its
    kind; a title is wrapped in ``<b>`` once. Built as plain dicts: writing the layout back
    into the Plotly figure validated it again (5 ms a chart).
    """
    spec = fig.to_dict()  # a deep copy
    layout = spec["layout"]
    layout.pop("template", None)
    layout.pop("meta", None)
    names = set(layout) | {"xaxis", "yaxis"}
    gridless = set()  # where bars stand: Plotly draws no grid or zero line there unless asked
    for trace in spec["data"]:
        refs = {ref: _axis_name(ref, trace.get(ref)) for ref in ("xaxis", "yaxis", "coloraxis")}
        names |= {name for name in refs.values() if name}
        if trace.get("type") in ORIENTED:
            gridless.add(refs["yaxis" if trace.get("orientation") == "h" else "xaxis"])
        _vectors_as_lists(trace)
    for name in names:
        match = _SUBPLOT.match(name)
        if match:
            defaults = COLORAXIS if match[1] == "coloraxis" else AXES[name[0]]
            if name in gridless:  # a grid or zero line colour given would turn them on
                defaults = {k: v for k, v in defaults.items() if k not in ("gridcolor", "zerolinecolor")}
            layout[name] = under(defaults, layout.get(name) or {})
    text = (layout.get("title") or {}).get("text")
    layout = under({k: v for k, v in LAYOUT.items() if k != "title" or text}, layout)  # no text: no title
    if isinstance(text, str) and text and not text.startswith("<b>"):
        layout["title"]["text"] = f"<b>{text}</b>"
    layout["datarevision"] = digest(spec["data"])
    spec["layout"] = layout
    return spec


class Themed(go.Figure):
    """A figure that is already the dict ``themed`` made: ``st.plotly_chart`` asks a Plotly
    figure for ``to_dict()`` and sends that as it is (a plain dict it would validate again,
    into a new figure with the default template). Nothing else of ``go.Figure`` works on it.

    >>> Themed({"data": [], "layout": {"height": 200}}).to_dict()
    {'data': [], 'layout': {'height': 200}}
    """

    def __init__(self, spec: dict):  # no go.Figure.__init__: it would validate
        object.__setattr__(self, "_spec", spec)

    def to_dict(self) -> dict:
        return self._spec


def themed_figure(fig) -> Themed:
    """What to give ``st.plotly_chart(..., theme=None)`` for ``fig``: ``Themed(themed(fig))``."""
    return Themed(themed(fig))
