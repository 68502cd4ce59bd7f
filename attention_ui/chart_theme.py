"""Streamlit's look for charts, written into each figure's JSON, so that the browser draws a chart once.

Why. With ``theme="streamlit"`` Streamlit's chart component puts its theme into
``layout.template`` when the chart mounts, and once more, as a new object, in an effect right
after. Plotly.react compares a template by identity, takes the new one for a change and draws
the whole chart a second time; a ``layout.meta`` object does the same, and so do data arrays
(Streamlit deep-copies the figure) unless ``layout.datarevision`` is set.

What. ``themed`` is the last step of the chart pipeline (``attention_ui.charts``): it takes
a figure's JSON (a dict) and returns a new one with the theme's values in its own layout (the
figure's values win), without a template or ``meta``, the title wrapped in ``<b>`` as Streamlit
does, and a ``datarevision`` (a digest of the traces; their 1-D arrays are lists already,
``charts.figure_json``). Sent with ``theme=None``, the second
Plotly.react finds nothing changed (``tests/browser/test_drawn_once.py``; the measurements are
in docs/benchmarks.md, "Figures that were in docstrings").

The theme's values are Streamlit's default light theme, copied in ``attention_ui.internals``
(where a canary compares them with what Streamlit gives its own charts). A learner whose
Streamlit runs dark gets the dark theme's colours from the style sheet
(``style.chart_dark_rules``): it maps each light colour, where Plotly drew it, to its dark
counterpart with CSS ``light-dark()``. Downloaded images (Plotly draws them from the figure)
keep the light colours on white. A custom ``[theme]`` in ``.streamlit/config.toml`` would need
these colours changed with it.

>>> spec = themed({"data": [{"type": "bar"}], "layout": {"title": {"text": "w"}, "xaxis2": {"side": "top"}}})
>>> spec["layout"]["title"]["text"], spec["layout"]["xaxis2"]["automargin"], "template" in spec["layout"]
('<b>w</b>', True, False)
"""

from __future__ import annotations

import hashlib
import re

from plotly.io.json import to_json_plotly

from .internals import AXES, COLORAXIS, LAYOUT

BLUE, ORANGE = "#1f77b4", "#ff7f0e"
"""Plotly's first two colours (D3's): plain bars, and the one highlighted (a key, a head's frame;
the style sheet colours the heads grid's chosen frame with it)."""
PHONE_TITLE_PX = 14
"""The font of chart titles on a phone (the style sheet sets it; ``figures.wrap_title`` measures in it)."""

ORIENTED = {"bar", "histogram", "box", "violin", "funnel", "waterfall"}
"""Traces that stand on one axis (x, or y when horizontal); Plotly gives that axis no grid."""
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
    return hashlib.blake2b(to_json_plotly(traces).encode(), digest_size=8).hexdigest()


def themed(spec: dict) -> dict:
    """``spec`` (a figure's JSON) with Streamlit's chart theme written into its layout, no
    template, no ``meta`` and a ``datarevision``: a new dict, ``spec`` is
    not changed. Draw it with ``st.plotly_chart(internals.SentAsIs(...), theme=None)``.

    Every axis and colour axis the layout or a trace names gets the theme's values for its
    kind; a title is wrapped in ``<b>`` once.
    """
    layout = {name: value for name, value in spec.get("layout", {}).items() if name not in ("template", "meta")}
    data = spec.get("data", [])
    names = set(layout) | {"xaxis", "yaxis"}
    gridless = set()  # where bars stand: Plotly draws no grid or zero line there unless asked
    for trace in data:
        refs = {ref: _axis_name(ref, trace.get(ref)) for ref in ("xaxis", "yaxis", "coloraxis")}
        names |= {name for name in refs.values() if name}
        if trace.get("type") in ORIENTED:
            gridless.add(refs["yaxis" if trace.get("orientation") == "h" else "xaxis"])
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
        layout["title"] = {**layout["title"], "text": f"<b>{text}</b>"}
    layout["datarevision"] = digest(data)
    return {**spec, "data": data, "layout": layout}
