"""Every chart is drawn once when a page opens, not twice.

With Streamlit's chart theme, Streamlit's chart component applied its theme to a fresh copy of
the figure right after drawing it, and Plotly drew the whole chart again for the new template
object (and for a ``layout.meta`` object, and for data arrays without a ``datarevision``).
``chart_theme.themed`` (a step of the chart pipeline, ``attention_ui.charts``) writes the theme
into the figure, which is sent with ``theme=None``: the second ``Plotly.react`` finds nothing
to draw.

How it is counted: Chromium's precise coverage counts the calls of each function of the page's
scripts. Plotly's ``_doPlot`` (one full drawing pass) starts a fresh ``_pushmarginIds`` record
once per pass, in a small function of its own; its calls over a page load are the drawing
passes, which must equal the number of charts. The pages below are those whose charts all have
margins that fit (``test_margins.py``); a chart whose margins Plotly widened would be drawn
once more for that.

The colours of the dark theme are checked too: ``style.chart_dark_rules`` maps the light
theme's colours, where Plotly drew them, to the dark theme's.
"""

from __future__ import annotations

import pytest

from attention_ui import internals
from tests.browser.harness import VIEWPORT, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

PAGES = [
    "matrices",
    "step_by_step?step=4",
    "step_by_step?step=3",
    "step_by_step?step=5",
    "step_by_step?step=6",
    "multi_head",
    "real_model",
    "similarity",
    "after_attention",
    "cross_attention",
    "tailor_shop",
]
# Not here: step 7 (its legend of tokens, below the bars, wraps with the width; Plotly widens
# the bottom margin for it and draws once more) and the pages whose charts test_margins.py
# lists as not estimated (Why √d_k, What is attention?).
PASS_MARK = internals.DRAW_PASS_MARK
"""Source text of the function Plotly's ``_doPlot`` calls once per drawing pass (its canary:
``tests/test_internals.py``)."""


def drawing_passes(cdp) -> int:
    """Calls, since the last look, of the function that starts each Plotly drawing pass."""
    passes = 0
    for script in cdp.send("Profiler.takePreciseCoverage")["result"]:
        if "PlotlyChart" not in script["url"]:
            continue
        source = cdp.send("Debugger.getScriptSource", {"scriptId": script["scriptId"]})["scriptSource"]
        for function in script["functions"]:
            whole = function["ranges"][0]
            body = source[whole["startOffset"] : whole["endOffset"]]
            if PASS_MARK in body and len(body) < 80:  # the small function itself, not those around it
                passes += whole["count"]
    return passes


@pytest.mark.parametrize("path", PAGES)
def test_each_chart_is_drawn_once(chromium, server, path):
    context = chromium.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(90_000)
    cdp = context.new_cdp_session(page)
    try:
        cdp.send("Debugger.enable")
        cdp.send("Profiler.enable")
        cdp.send("Profiler.startPreciseCoverage", {"callCount": True, "detailed": False})
        page.goto(server + path + ("&" if "?" in path else "?") + "lang=en")
        for _attempt in range(2):  # a first load can draw once more for its own reasons (seen once in CI)
            wait_for_app(page, settle=1500)
            charts = page.locator(".js-plotly-plot").count()
            passes = drawing_passes(cdp)
            if passes == charts:
                break
            page.reload()  # the code before drew every chart twice on every load
        assert charts >= 1
        assert passes == charts
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_chart_colours_follow_the_theme(chromium, server, scheme):
    context = chromium.new_context(viewport=VIEWPORT, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(server + "step_by_step?step=4&lang=en")
        wait_for_app(page, settle=1000)
        colours = page.evaluate(
            """() => {
              const plot = document.querySelector('.js-plotly-plot .main-svg');
              const fill = (selector) => getComputedStyle(document.querySelector(selector)).fill;
              return {tick: fill('.js-plotly-plot .ytick text'), title: fill('.js-plotly-plot .gtitle'),
                      grid: getComputedStyle(document.querySelector('.js-plotly-plot .ygrid')).stroke,
                      paper: getComputedStyle(plot).backgroundColor};
            }"""
        )
    finally:
        context.close()
    light = {"tick": internals.TEXT, "title": internals.TITLE, "grid": internals.LINE, "paper": internals.PAPER}
    expected = light if scheme == "light" else {k: internals.DARK[v] for k, v in light.items()}
    assert colours == {k: internals.rgb(v) for k, v in expected.items()}
