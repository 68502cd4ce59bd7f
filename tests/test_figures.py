"""The figure builders' shared pieces against Plotly's own: ``panel_axes`` lays panels out as
``plotly.subplots.make_subplots`` does, ``figure`` builds what ``update_layout`` would, and
``presentation.projector`` enlarges as Plotly's update methods would; the steps of the chart
pipeline change nothing they are given; one model of text widths."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from attention_ui.figures import Chart, domains, figure, panel_axes
from attention_ui.heatmaps import heatmap
from attention_ui.presentation import CHART_FONT_PX, CHART_HEIGHT_FACTOR, projector
from tests.helpers import ROOT


def _close(a, b) -> bool:
    """Equal JSON-like values, floats to 1e-12 (the two sums round differently)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, abs_tol=1e-12)
    return a == b


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("across", [True, False])
def test_panel_axes_lay_out_as_make_subplots(n, across):
    gap = 0.06 if across else 0.12
    titles = [f"panel {k}" for k in range(n)]
    if across:
        ref = make_subplots(rows=1, cols=n, horizontal_spacing=gap, subplot_titles=titles)
    else:
        ref = make_subplots(rows=n, cols=1, vertical_spacing=gap, shared_xaxes=True, subplot_titles=titles)
    expected = ref.layout.to_plotly_json()
    expected.pop("template")
    got = panel_axes(n, across=across, gap=gap, titles=titles)
    assert len(got["annotations"]) == n
    assert _close(got, expected), (got, expected)


def test_domains_split_the_unit_interval():
    parts = domains(5, 0.02)
    assert parts[0][0] == 0.0 and parts[-1][1] == 1.0
    widths = [high - low for low, high in parts]
    assert np.allclose(widths, widths[0]) and np.allclose([b[0] - a[1] for a, b in zip(parts, parts[1:])], 0.02)


def test_figure_is_what_update_layout_builds():
    bar = {"type": "bar", "x": [0, 1], "y": [0.25, 0.75]}
    ref = go.Figure(go.Bar(bar))
    ref.update_layout(title="Weights", height=300, margin={"l": 10, "r": 10, "t": 50, "b": 10}, bargap=0.3)
    ref.update_xaxes(title="key j", tickvals=[0, 1])
    got = figure([bar], title="Weights", height=300, bargap=0.3, xaxis={"title": {"text": "key j"}, "tickvals": [0, 1]})
    assert got.to_dict() == ref.to_dict()
    assert "title" not in figure([bar], title=None, height=300).to_dict()["layout"]


def _projector_reference(fig: go.Figure) -> dict:
    """The enlargement written with Plotly's own update methods (slower, the same result)."""
    big = go.Figure(fig)
    big.update_layout(font={"size": CHART_FONT_PX}, title_font_size=round(CHART_FONT_PX * 1.15))
    if big.layout.height:
        big.update_layout(height=round(big.layout.height * CHART_HEIGHT_FACTOR))
    for trace in big.data:
        if getattr(getattr(trace, "textfont", None), "size", None):
            trace.textfont.size = round(trace.textfont.size * CHART_FONT_PX / 12)
    # the axes, the legend and the heatmaps' own colour bars grow with the text (none set a size here)
    big.update_xaxes(tickfont_size=CHART_FONT_PX, title_font_size=CHART_FONT_PX)
    big.update_yaxes(tickfont_size=CHART_FONT_PX, title_font_size=CHART_FONT_PX)
    big.update_layout(legend_font_size=CHART_FONT_PX)
    big.update_traces(colorbar_tickfont_size=CHART_FONT_PX, selector={"type": "heatmap"})
    spec = big.to_dict()
    spec["layout"].pop("template", None)  # the pipeline's theme replaces any template
    return spec


@pytest.mark.parametrize("template", [None, "plotly_dark"])
def test_projector_equals_plotly_updates_and_changes_nothing_given(template):
    fig = heatmap(np.arange(6.0).reshape(2, 3), ["a", "b"], ["x", "y", "z"], title="Weights")
    if template:
        fig.layout.template = template
    spec = fig.to_dict()
    before = json.dumps(spec, sort_keys=True)
    assert projector(spec) == _projector_reference(fig)
    assert json.dumps(spec, sort_keys=True) == before  # the JSON passed in is not changed


def test_a_picture_keeps_its_height_on_a_projector():
    """A chart whose axes keep the picture's aspect would only gain blank sides."""
    from attention_ui.intuition_figures import focus_picture

    spec = focus_picture(np.zeros((40, 72, 3), dtype=np.uint8)).to_dict()
    assert projector(spec)["layout"]["height"] == spec["layout"]["height"] == 40


UI_MODULES = sorted(p.stem for p in (ROOT / "attention_ui").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("module", UI_MODULES)
def test_ui_doctests(module):
    """The examples in the UI modules' docstrings (figure builders, notation, URL ids) run."""
    import doctest
    import importlib

    failures, _ = doctest.testmod(
        importlib.import_module(f"attention_ui.{module}"), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert failures == 0


@pytest.mark.parametrize("t_k", [3, 10, 11, 17, 24])
def test_contributions_bar_colours_each_token_or_groups_the_smallest(t_k):
    """Up to 10 key tokens: one bar and one colour each. More: the 9 with the largest summed
    |α̂_ij v_j| keep theirs, the rest are one grey bar holding their sum; the bars still add up
    to b_i, no colour repeats and no bar carries text (issue 16: labels drawn over segments)."""
    from attention_ui.vector_figures import TOKEN_COLORS, contributions_bar

    rng = np.random.default_rng(t_k)
    c = rng.normal(size=(t_k, 6)) * rng.uniform(0.01, 1.0, size=(t_k, 1))  # (T_k, d_v)
    fig = contributions_bar(c, [f"w{j}" for j in range(t_k)], c.sum(axis=0), title="b")
    bars = [trace for trace in fig.data if trace.type == "bar"]
    np.testing.assert_allclose(np.sum([bar.y for bar in bars], axis=0), c.sum(axis=0), atol=1e-12)
    assert len({bar.marker.color for bar in bars}) == len(bars) <= len(TOKEN_COLORS)
    assert all(trace.text is None for trace in fig.data)
    if t_k <= 10:
        np.testing.assert_array_equal(np.array([bar.y for bar in bars]), c)
    else:
        largest = set(np.argsort(-np.abs(c).sum(axis=1))[:9])
        kept = {j for j in range(t_k) for bar in bars[:-1] if np.array_equal(bar.y, c[j])}
        assert kept == largest
        rest = sorted(set(range(t_k)) - largest)
        np.testing.assert_allclose(bars[-1].y, c[rest].sum(axis=0), atol=1e-12)
        assert bars[-1].name == f"{len(rest)} others"


def test_long_vectors_label_every_8th_component_and_keep_every_column():
    """32 components (a trained head's d_k): ticks at 1, 8, 16, 24, 32; every column is still
    drawn at its own position, so the hover names each one."""
    from attention_ui.vector_figures import vectors_matrix

    z = np.arange(3 * 32, dtype=float).reshape(3, 32)  # (T, d_k)
    fig = vectors_matrix(z, ["a", "b", "c"], title="q", symbol="q")
    assert list(fig.layout.xaxis.tickvals) == [1, 8, 16, 24, 32]
    assert list(fig.layout.xaxis.ticktext) == ["q[1]", "q[8]", "q[16]", "q[24]", "q[32]"]
    assert list(fig.data[0].x) == list(range(1, 33))
    np.testing.assert_array_equal(fig.data[0].z, z)
    short = vectors_matrix(z[:, :16], ["a", "b", "c"], title="q", symbol="q")
    assert list(short.layout.xaxis.tickvals) == list(range(1, 17))


def _fitted_cases():
    from attention_ui.heatmaps import heatmap_row, token_matrix
    from attention_ui.model_figures import heads_grid
    from attention_ui.vector_figures import key_bars, vectors_matrix

    rng = np.random.default_rng(3)
    tokens = ["[CLS]", "the", "cat", "because", "中文", "[SEP]"]
    w = rng.dirichlet(np.ones(6), size=6)  # (T, T)
    return {
        "token_matrix": token_matrix(w, tokens, tokens, title="weights", zmin=0.0, zmax=1.0).chart(),
        "diverging": token_matrix(rng.normal(size=(6, 6)) * 9, tokens, tokens, title="scores", diverging=True).chart(),
        "vectors": vectors_matrix(rng.normal(size=(6, 64)), tokens, title="q", symbol="q"),
        "row": heatmap_row([("q", w), ("k", w), ("v", w)], tokens, title="q | k | v"),
        "bars": key_bars(w[2], tokens, highlight=1, title="row 3"),
        "grid": heads_grid(rng.dirichlet(np.ones(6), size=(2, 3, 6)), title="grid"),
    }


@pytest.mark.parametrize("case", ["token_matrix", "diverging", "vectors", "row", "bars", "grid"])
def test_fit_margins_changes_only_the_margins_and_where_colour_bars_sit(case):
    """The numbers, labels and colours a chart shows stay as they were; the margins only grow,
    the height by what the top margin grows (the plot keeps its height), and the title is set at
    the top; the JSON it is given is not changed."""
    from attention_ui.charts import figure_json
    from attention_ui.margins import COLORBAR_X, fit_margins

    before = figure_json(_fitted_cases()[case])
    given = json.dumps(before, sort_keys=True)
    after = fit_margins(before)
    assert json.dumps(before, sort_keys=True) == given  # a new dict, the old one as it was
    before, after = json.loads(given), json.loads(json.dumps(after))
    for side, px in before["layout"].get("margin", {}).items():
        assert after["layout"]["margin"][side] >= px
    assert after["layout"]["margin"] != before["layout"].get("margin")  # every case needs room for its labels
    grown = after["layout"]["margin"]["t"] - before["layout"]["margin"]["t"]
    assert after["layout"].pop("height") == before["layout"].pop("height") + grown
    before["layout"].pop("margin", None), after["layout"].pop("margin", None)
    placed = after["layout"]["title"]
    if "y" not in before["layout"]["title"]:  # not placed by its figure (over panel titles: "row")
        assert (placed.pop("yref"), placed.pop("yanchor"), 0 < placed.pop("y") < 1) == ("container", "bottom", True)
    pairs = list(zip(before["data"], after["data"]))
    if "coloraxis" in after["layout"]:
        pairs.append((before["layout"]["coloraxis"], after["layout"]["coloraxis"]))
    for old, new in pairs:  # a colour bar right of the plot moves to its edge
        if new.get("colorbar", {}).get("x") == COLORBAR_X:
            assert old.get("colorbar", {}).get("x", 1.02) >= 1.0
            for spec in (old, new):
                bar = {k: v for k, v in spec.pop("colorbar", {}).items() if k not in ("x", "xanchor")}
                spec.update({"colorbar": bar} if bar else {})
    assert after == before


def test_text_px_adds_up_glyph_widths():
    """A label's width is the sum of its letters' (measured) widths, the widest line counts,
    tags take no room, and Chinese letters are 1 em."""
    from attention_ui.internals import TEXT_EM
    from attention_ui.text_width import text_px

    word = "because"
    assert text_px(word, 10) == pytest.approx(10 * sum(TEXT_EM[c] for c in word))
    assert text_px(f"<b>{word}</b><br>ab") == text_px(word)
    assert text_px("注意力", 14) == 42


def test_one_model_of_text_widths():
    """No module of the app estimates a text's width by itself: every decision goes through
    ``text_width`` (``text_px``, ``row_px``), and only ``internals`` holds glyph widths."""
    import re

    own = {"text_width.py", "internals.py"}
    estimates = re.compile(r"0x2E7F|east_asian_width|DIGIT_EM|_label_width|def _width\b|TEXT_EM|<\[\^>\]\*>")
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted((ROOT / "attention_ui").glob("*.py"))
        if path.name not in own
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if estimates.search(line)
    ]
    assert not found, "\n".join(found)


def test_a_chart_says_what_its_page_needs_without_meta():
    """The builder hands the page's needs over as the figure's own attributes; nothing
    travels in ``layout.meta``."""
    from attention_ui.heatmaps import heatmap_row
    from attention_ui.model_figures import heads_grid

    small = heatmap(np.eye(3), ["a", "b", "c"], ["x", "y", "z"], title="w")
    big = heatmap(np.eye(30), [str(k) for k in range(30)], [str(k) for k in range(30)], title="w")
    row = heatmap_row([("q", np.eye(8)), ("k", np.eye(8)), ("v", np.eye(8))], [str(k) for k in range(8)], title="t")
    grid = heads_grid(np.full((2, 3, 4, 4), 0.25), title="grid")
    assert isinstance(small, Chart) and small.numbers_px > 0 and big.numbers_px == 0
    assert row.phone_ticks is False and small.phone_ticks is True
    assert grid.numbers_px is None  # thumbnails: no cells of numbers, no note
    for fig in (small, big, row, grid):
        assert "meta" not in fig.to_dict()["layout"]
