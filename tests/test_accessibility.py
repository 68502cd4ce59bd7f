"""Readable for every learner: colour-blind-safe colour scales, values printed as numbers,
and an accessible name on every chart.

The page sweep walks every page of attention_ui.registry.PAGES (toy embedder, English) and, where
a page has a Next button, every step; so pages added later are checked without a change here.
Keyboard reachability is checked in a real browser: tests/browser/test_reliability.py.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from attention_ui import heatmaps, vector_figures
from attention_ui.registry import PAGES
from tests.helpers import open_link, plotly_array

# The real error in AppTest's exception element, not the redacted one (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("full_error_details")

SAFE_SCALES = {
    name: json.loads(go.Figure(go.Heatmap(z=[[0]], colorscale=name)).to_json())["data"][0]["colorscale"]
    for name in ("Cividis", "RdBu_r", "Viridis")
}
"""Perceptually ordered scales readable with red-green colour blindness, as Plotly expands them."""

MAX_PRINTED_CELLS = (heatmaps.MAX_CELL_ROWS, heatmaps.MAX_CELL_COLS)
GRID_TRACES = 4  # a figure with more heatmaps than this is an overview grid (values in the hover)


def _scale_name(scale) -> str | None:
    for name, expanded in SAFE_SCALES.items():
        if scale == expanded or scale == name:
            return name
    return None


# ---------------------------------------------------------------------------- the builders


def test_heatmap_prints_values_while_small_in_cividis():
    z = np.array([[0.125, 0.875], [0.5, 0.5]])  # (2, 2)
    fig = heatmaps.heatmap(z, ["a", "b"], ["c", "d"], title="w")
    trace = fig.data[0]
    assert _scale_name(json.loads(fig.to_json())["data"][0]["colorscale"]) == "Cividis"
    assert [list(r) for r in trace.text] == [["0.12", "0.88"], ["0.50", "0.50"]]  # f"{x:.2f}" of each cell
    assert trace.texttemplate == "%{text}"


def test_diverging_heatmap_uses_rdbu_centred_on_zero():
    z = np.array([[-2.0, 1.0], [0.5, 0.0]])  # (2, 2)
    fig = heatmaps.heatmap(z, ["a", "b"], ["c", "d"], title="q", diverging=True)
    assert _scale_name(json.loads(fig.to_json())["data"][0]["colorscale"]) == "RdBu_r"
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-2.0, 2.0)  # white is 0


def test_large_heatmap_keeps_values_in_the_hover():
    rows, cols = MAX_PRINTED_CELLS[0] + 1, MAX_PRINTED_CELLS[1] + 1
    fig = heatmaps.heatmap(
        np.zeros((rows, cols)), [str(r) for r in range(rows)], [str(c) for c in range(cols)], title="big"
    )
    assert fig.data[0].text is None  # too many cells to print legibly
    assert "%{z" in fig.data[0].hovertemplate


def test_key_bars_print_every_weight():
    w = np.array([0.1, 0.6, 0.3])  # (3,)
    fig = vector_figures.key_bars(w, ["a", "b", "c"], title="w")
    assert list(fig.data[0].text) == [f"{x:.1%}" for x in w]


# ---------------------------------------------------------------------------- every page


def page_charts(page: str, sentence: str = "the dog chased the cat") -> list[tuple[str, dict, object]]:
    """(where, Plotly spec, chart proto) of every chart of ``page``, over all its steps."""
    at = open_link(page, sentence=sentence)
    found = []
    for step in range(20):
        assert not at.exception, f"{page}: {at.exception[0].message}"
        for chart in at.get("plotly_chart"):
            found.append((f"{page} step {step}", json.loads(chart.proto.spec), chart.proto))
        nexts = [b for b in at.button if "Next" in b.label and not b.disabled]
        if not nexts:
            break
        nexts[0].click()
        at.run()
    return found


@pytest.fixture(scope="module")
def all_charts():
    charts = []
    for page in [entry.id for entry in PAGES]:
        charts += page_charts(page)
    assert charts, "no page draws a chart?"
    return charts


def _title(spec) -> str:
    title = spec["layout"].get("title", {})
    return title.get("text", "") if isinstance(title, dict) else str(title)


def _is_mask(z: np.ndarray) -> bool:
    """Two values only (allowed / blocked): a categorical picture, not a scale."""
    return len(np.unique(z[np.isfinite(z)])) <= 2


def test_every_heatmap_on_every_page_uses_a_colour_blind_safe_scale(all_charts):
    bad = []
    for where, spec, _ in all_charts:
        for trace in spec["data"]:
            if trace.get("type") != "heatmap":
                continue
            z = plotly_array(trace["z"]) if "z" in trace else np.zeros((0, 0))
            scale = trace.get("colorscale")
            if "coloraxis" in trace:  # a row of panels on one colour axis (heatmaps.heatmap_row)
                scale = spec["layout"][trace["coloraxis"]].get("colorscale")
            if _scale_name(scale) is None and not _is_mask(np.asarray(z, dtype=float)):
                bad.append(f"{where}: {_title(spec)!r} uses {str(scale)[:80]}")
    assert not bad, "\n".join(bad)


def test_every_small_heatmap_prints_its_values(all_charts):
    bad = []
    for where, spec, _ in all_charts:
        heatmaps = [t for t in spec["data"] if t.get("type") == "heatmap"]
        if len(heatmaps) > GRID_TRACES:
            continue
        for trace in heatmaps:
            z = plotly_array(trace["z"])
            if z.ndim == 2 and z.shape[0] <= MAX_PRINTED_CELLS[0] and z.shape[1] <= MAX_PRINTED_CELLS[1]:
                text = trace.get("text")
                if not text or "texttemplate" not in trace:
                    bad.append(f"{where}: {_title(spec)!r} {z.shape} shows colours only")
    assert not bad, "\n".join(bad)


def test_every_chart_has_an_accessible_name(all_charts):
    """Streamlit 1.67 puts alt= on the chart as role=figure + aria-label; show_figure passes the title."""
    missing = [f"{where}: {_title(spec)!r}" for where, spec, proto in all_charts if not proto.alt.strip()]
    assert not missing, f"{len(missing)} of {len(all_charts)} charts have no alt text:\n" + "\n".join(missing[:20])


MAX_PRINTED_BARS = 24  # more bars than this (histograms, long sweeps) keep their values in the hover


def test_every_small_bar_chart_prints_its_values(all_charts):
    """Grouped or single bars with few bars print each value; stacked bars (the contributions
    α̂_ij v_j, whose sum b_i is printed by its own markers) and histograms are exempt."""
    bad = []
    for where, spec, _ in all_charts:
        bars = [t for t in spec["data"] if t.get("type") == "bar"]
        if not bars or spec["layout"].get("barmode") in ("stack", "relative"):
            continue
        n_bars = sum(len(plotly_array(t["y"]) if "y" in t else []) for t in bars)
        if n_bars > MAX_PRINTED_BARS:
            continue
        silent = [t.get("name", "") for t in bars if not t.get("text") and not t.get("texttemplate")]
        if silent:
            bad.append(f"{where}: {_title(spec)!r} ({n_bars} bars) prints no values for {silent}")
    assert not bad, "\n".join(bad)


def test_stacked_contributions_use_the_colour_blind_safe_palette():
    import plotly.colors as pc

    from attention_ui.vector_figures import contributions_bar

    tokens = [f"w{j}" for j in range(13)]  # more tokens than colours: the smallest go into "others"
    fig = contributions_bar(np.ones((13, 3)), tokens, np.ones(3), title="b_i")
    bars = [trace for trace in fig.data if trace.type == "bar"]
    assert len(bars) == len(pc.qualitative.Safe) - 1  # 9 tokens and "4 others"
    assert all(bar.marker.color in pc.qualitative.Safe for bar in bars)
    assert len({bar.marker.color for bar in bars}) == len(bars)  # no two share a colour
    assert bars[-1].marker.color == pc.qualitative.Safe[-1]  # the palette's grey for "others"
