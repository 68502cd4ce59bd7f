"""Every chart is drawn once when a page opens: its margins already hold its labels, and
nothing makes Plotly draw it again.

One walk over every page at 1400 px in English, and over the pages with charts in 中文, plus a few
views with other charts (steps 2 to 6, the matrices' Q, K, V view, Real model heads' outputs),
two pages side by side.
On each page it reads two things:

* **Margins.** ``attention_ui.margins.fit_margins`` (a step of the chart pipeline,
  ``attention_ui.charts``) estimates the room Plotly needs around each chart. Where the estimate
  is short, Plotly draws the chart, widens the margins and draws it again (``doAutoMargin``),
  which is what the estimate exists to save. The margins the figure was sent with
  (``layout.margin``) must equal the ones Plotly drew it with (``_fullLayout._size``), except for
  the charts in ``NOT_ESTIMATED``, whose room depends on what the server cannot know.
* **Drawing passes.** With Streamlit's chart theme, Streamlit's chart component applied its theme
  to a fresh copy of the figure right after drawing it, and Plotly drew the whole chart again for
  the new template object (and for a ``layout.meta`` object, and for data arrays without a
  ``datarevision``). ``chart_theme.themed`` writes the theme into the figure, which is sent with
  ``theme=None``: the second ``Plotly.react`` finds nothing to draw. Counted through Chromium's
  debugger: Plotly's ``_doPlot`` (one full drawing pass) starts a fresh ``_pushmarginIds``
  record once per pass, in a small function of its own; a breakpoint there that never pauses
  counts the passes of a page load, which must equal the number of charts (pages with a chart of
  ``NOT_ESTIMATED`` excepted: Plotly widens its margins and draws it once more).

The same walk checks that nothing leaves the school (``test_offline_browser.py``): the two tabs
record every request and websocket to another address than the app's own (``Outside``), and
every page's tab icon must be the app's own file (each page in English, the pages with charts in
Chinese); one walk where there were two.

The colours of the dark theme are checked too: ``style.chart_dark_rules`` maps the light
theme's colours, where Plotly drew them, to the dark theme's.
"""

from __future__ import annotations

import pytest

from attention_core.lesson import STEPS
from attention_ui import internals
from attention_ui.internals import KEY_CLASS
from attention_ui.registry import PAGES
from harness import load_side_by_side, no_exception, wait_for_app
from tests.browser.test_offline_browser import FAVICON_JS, Outside

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

EXTRA = [
    *(f"step_by_step?step={STEPS.index(name) + 1}" for name in ("embedding", "qkv", "scores", "scale", "softmax")),
    "matrices?matrix=qkv",
    "real_model?model_matrix=outputs",
]
"""Views with charts of their own, besides each page's first view (``?step=`` counts from 1). Not
step 7: its legend of tokens, below the bars, wraps with the width, and Plotly widens the bottom
margin for it."""
NOT_ESTIMATED = {
    ("why_scaling", "fig_variance"),  # its legend sits below the plot: margins estimate no legend
    # Chinese category labels that Plotly tilts by 30° in a half column at 1400 px (a 367 px plot)
    # and leaves flat where the columns stack: the room depends on a width the server cannot know
    ("intuition", "fig_budget_even"),
    ("intuition", "fig_budget_weighted"),
}
NO_CHART = {"home", "step_by_step", "matrices", "class", "code"}
"""Pages whose first view draws no chart (step 1, the matrix as a table, ...): the Chinese walk
leaves them out (their charts' views are in ``EXTRA``), the English walk checks that they draw
none and that every other page draws one."""
NOT_ONCE = {"why_scaling", "intuition"}
"""Pages with a chart of ``NOT_ESTIMATED`` (in either language): drawn once more where Plotly
widens its margins, so their passes are not counted."""

PUSHED_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
  let el = gd, key = '';
  while (el && !key) {
    const found = [...(el.classList || [])].find(c => c.startsWith('KEY_CLASSfig'));
    if (found) key = found.slice('KEY_CLASS'.length);
    el = el.parentElement;
  }
  const given = gd.layout.margin || {}, drawn = gd._fullLayout._size;
  const pushed = ['l', 'r', 't', 'b'].filter(side => drawn[side] > (given[side] ?? 0) + 0.5);
  return {key, pushed: pushed.map(side => `${side}: ${given[side]} → ${drawn[side]}`)};
})""".replace("KEY_CLASS", KEY_CLASS)
PASS_MARK = internals.DRAW_PASS_MARK
"""Source text of the statement Plotly's ``_doPlot`` runs once per drawing pass, in a small
function of its own (its canary: ``tests/test_internals.py``)."""


def pass_mark_place() -> tuple[int, int]:
    """(line, column), from 0, where the statement of ``PASS_MARK`` starts in Plotly's chunk as
    Streamlit serves it (the file under ``internals.STATIC_JS``)."""
    chunk = internals.plotly_chunk()
    assert chunk is not None, "Plotly's chunk was not found among Streamlit's files"
    text = (internals.STATIC_JS / chunk).read_text(encoding="utf-8")
    at = text.index(PASS_MARK)
    start = text.rindex("{", 0, at) + 1  # the function's body: one statement, `e._fullLayout._pushmarginIds={}`
    line = text.count("\n", 0, start)
    return line, start - (text.rindex("\n", 0, start) + 1 if line else 0)


class Passes:
    """Plotly's drawing passes in one tab: a breakpoint on ``PASS_MARK``'s statement whose
    condition counts each time it is reached into ``window.__passes`` and never pauses. Set once
    by the chunk's URL, it holds for every page the tab loads; each new page counts from 0.
    (Chromium's precise coverage counted the same, at 1 s more a page load.)"""

    def __init__(self, page) -> None:
        self.page = page
        self.cdp = cdp = page.context.new_cdp_session(page)
        cdp.send("Debugger.enable")
        line, column = pass_mark_place()
        cdp.send(
            "Debugger.setBreakpointByUrl",
            {
                "urlRegex": "PlotlyChart\\.[^/]*\\.js",
                "lineNumber": line,
                "columnNumber": column,
                "condition": "(window.__passes = (window.__passes || 0) + 1, false)",
            },
        )

    def take(self) -> int:
        return self.page.evaluate("() => window.__passes || 0")

    def close(self) -> None:
        """Detach, which takes the breakpoint away: the tab goes back to the pool (``tab``), and
        a second counter on it would count every pass twice."""
        self.cdp.detach()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_chart_is_drawn_once_with_the_margins_it_was_sent_and_nothing_leaves(tab, server, lang):
    tabs = [tab(timeout=90_000) for _ in range(2)]
    passes = {id(page): Passes(page) for page in tabs}
    outside = [Outside(page, server) for page in tabs]
    # In Chinese only the views with charts: the margins' estimate reads the labels' language.
    entries = [entry for entry in PAGES if lang == "en" or entry.id not in NO_CHART]
    paths = [("" if entry is PAGES[0] else entry.id) for entry in entries] + EXTRA
    urls = [server + path + ("&" if "?" in path else "?") + f"lang={lang}" for path in paths]
    drawn_again, counted, charts, read, foreign_icons, chartless = [], [], 0, 0, [], set()
    try:
        for page, url in load_side_by_side(tabs, urls, settle=300):  # two pages at a time
            path = url.removeprefix(server)
            name = path.split("?")[0] or PAGES[0].id
            no_exception(page)
            icon = page.evaluate(FAVICON_JS)
            if not icon.startswith(server):
                foreign_icons.append(f"{path}: {icon}")
            on_page = page.evaluate(PUSHED_JS)
            for chart in on_page:
                if chart["pushed"] and (name, chart["key"]) not in NOT_ESTIMATED:
                    drawn_again.append((path, chart["key"], chart["pushed"]))
            passed = passes[id(page)].take()
            if name not in NOT_ONCE and passed != len(on_page):
                # Once more: now and then one load draws a chart twice (seen on a new browser's first
                # load, and on a whole walk in one tab, cause not found); the fault this test is
                # for drew every chart twice on every load.
                page.reload()
                wait_for_app(page, settle=300)
                passed, on_page = passes[id(page)].take(), page.evaluate(PUSHED_JS)
                if passed != len(on_page):
                    drawn_again.append((path, f"{passed} drawing passes for {len(on_page)} charts"))
            counted += [path] if on_page and name not in NOT_ONCE else []
            chartless |= {name} if not on_page and "?" not in path.removesuffix(f"?lang={lang}") else set()
            charts += len(on_page)
            read += 1
    finally:
        for counter in passes.values():
            counter.close()
        for recorder in outside:
            recorder.remove()
    assert read == len(paths)
    assert charts > 30  # the pages drew their charts
    assert len(counted) >= 14, counted  # the passes were counted on the pages with charts
    assert chartless == (NO_CHART if lang == "en" else set()), "the pages without a chart are NO_CHART's"
    assert drawn_again == []
    seen = sorted({url for recorder in outside for url in recorder.seen})
    assert seen == [], f"{len(seen)} addresses outside the app asked for: {seen}"
    assert foreign_icons == [], f"tab icons that are not the app's own: {foreign_icons}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_chart_colours_follow_the_theme(tab, server, scheme):
    page = tab(color_scheme=scheme, timeout=90_000)
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
    light = {"tick": internals.TEXT, "title": internals.TITLE, "grid": internals.LINE, "paper": internals.PAPER}
    expected = light if scheme == "light" else {k: internals.DARK[v] for k, v in light.items()}
    assert colours == {k: internals.rgb(v) for k, v in expected.items()}
