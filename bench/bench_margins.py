"""What the chart pipeline's margins step buys: the app's fitted margins against Plotly's own
automargin and against a fixed layout per chart kind, on every chart of the app, in Chromium.

    python -m bench.bench_margins             # 3 repetitions of the timing (~6 min)
    python -m bench.bench_margins --reps 5 --widths 1400 1024 390

This one file is both the benchmark and the Streamlit app it drives. First it records the JSON
of every chart the app draws (every page and the views ``tests/browser/test_drawn_once.py``
walks, English and 中文; ``AppTest``), as ``charts.prepare`` hands it to ``margins.fit_margins``.
Then ``python -m bench.st_timed run bench/bench_margins.py`` (the app part, below) draws all of
them on one page in each of four forms, the first three with the rest of the pipeline as the
app runs it (``chart_theme.themed``, ``theme=None``):

* ``fitted``: as the app sends them, margins from ``margins.fit_margins`` (Plotly's automargin
  stays on, so a margin estimated too small still grows: with a second drawing pass);
* ``fitted, off``: the same margins with automargin off: what Plotly's measuring of every label
  for automargin costs, even where it widens nothing (the app keeps it on: on a phone, where
  Plotly tilts labels the estimate took as flat, they would be cut instead of drawn again);
* ``automargin``: the builders' margins (``figures.MARGIN``: room for the title only), Plotly's
  automargin widens them as it needs (``doAutoMargin``: draw, measure, draw again);
* ``bare``: no pipeline at all: the builders' figure and margins sent with Streamlit's own chart
  theme (``theme="streamlit"``), Plotly's automargin on: what ``chart_theme`` and
  ``fit_margins`` together save;
* ``fixed``: one margin per chart kind (heatmap, panels of heatmaps, bars, panels of bars,
  lines, picture) left, right and below (the top holds the title), the largest ``fit_margins``
  gives any chart of that kind, and automargin off:
  no second pass ever, but room that a kind's widest labels need is left empty on every chart.

For each form and window width it reads, in Chromium: Plotly's drawing passes per chart (the
breakpoint counter of ``tests/browser/test_drawn_once.py``), the charts whose margins Plotly
widened, the texts of a chart drawn outside its frame (cut off), flat column labels that run into
each other, and the share of a chart's area left to its plot; then it times, with the page's own
clock (``bench/pageclock.py``), a click from an empty page to each form at 1400 px, the forms
interleaved in every repetition. It prints medians; it never asserts a time.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from bench.core import under_streamlit

FORMS = ["empty", "fitted", "fitted, off", "automargin", "fixed", "bare"]
SPECS_ENV = "BENCH_MARGINS_SPECS"
EXTRA_VIEWS = [
    *(f"step_by_step?step={n}" for n in (2, 3, 4, 5, 6, 7)),
    "matrices?matrix=qkv",
    "matrices?chart=true",
    "real_model?model_matrix=outputs",
]
"""Views with charts of their own besides each page's first view."""


def kind(spec: dict) -> str:
    """A chart's kind for the fixed layout: its first trace's type, and "panels" when it has
    more than one x axis.

    >>> kind({"data": [{"type": "heatmap"}], "layout": {"xaxis": {}, "xaxis2": {}}})
    'heatmap panels'
    """
    axes = [name for name in spec.get("layout", {}) if name.startswith("xaxis")]
    first = spec["data"][0]["type"] if spec.get("data") else "none"
    return first + (" panels" if len(axes) > 1 else "")


def capture(langs=("en", "zh")) -> list[dict]:
    """The JSON of every chart of every page view, as the margins step receives it."""
    from plotly.io.json import to_json_plotly
    from streamlit.testing.v1 import AppTest

    import attention_ui.charts as charts

    root = Path(__file__).resolve().parents[1]
    seen: list[dict] = []
    fit = charts.fit_margins

    def fit_and_keep(spec):
        seen.append(json.loads(to_json_plotly(spec)))
        return fit(spec)

    charts.fit_margins = fit_and_keep
    views = [path.stem for path in sorted((root / "pages").glob("*.py"))] + EXTRA_VIEWS
    try:
        for lang in langs:
            for view in views:
                page, _, query = view.partition("?")
                at = AppTest.from_file(str(root / "app.py"), default_timeout=180)
                at.switch_page(f"pages/{page}.py")
                at.query_params["lang"] = lang
                for pair in filter(None, query.split("&")):
                    name, value = pair.split("=")
                    at.query_params[name] = value
                at.run()
    finally:
        charts.fit_margins = fit
    return seen


def fixed_margins(specs: list[dict]) -> dict[str, dict]:
    """Per chart kind, the largest margin of each side that ``fit_margins`` gives its charts."""
    from attention_ui.margins import fit_margins

    out: dict[str, dict] = {}
    for spec in specs:
        margin = fit_margins(spec)["layout"].get("margin", {})
        mine = out.setdefault(kind(spec), {})
        for side in "lrb":  # the top holds the title, which the builder sizes
            mine[side] = max(mine.get(side, 0), margin.get(side, 0))
    return out


def in_form(spec: dict, form: str, fixed: dict[str, dict]) -> dict:
    """``spec`` as the form sends it (before the theme)."""
    from attention_ui.margins import COLORBAR_X, fit_margins

    if form == "fitted":
        return fit_margins(spec)
    if form == "automargin":
        return spec
    if form == "fitted, off":
        spec = fit_margins(spec)
        layout = dict(spec["layout"])
    else:
        layout = {**spec["layout"], "margin": {**spec["layout"].get("margin", {}), **fixed[kind(spec)]}}
    for name, axis in list(layout.items()):
        if name[1:5] == "axis" and isinstance(axis, dict):
            layout[name] = {**axis, "automargin": False}
    moved = {"x": COLORBAR_X, "xanchor": "left"}  # a colour bar at the plot's edge, as fit_margins puts it
    if "coloraxis" in layout:
        layout["coloraxis"] = {**layout["coloraxis"], "colorbar": {**layout["coloraxis"].get("colorbar", {}), **moved}}
    data = [
        {**trace, "colorbar": {**trace.get("colorbar", {}), **moved}} if trace["type"] == "heatmap" else trace
        for trace in spec["data"]
    ]
    return {**spec, "data": data, "layout": layout}


def app() -> None:
    """The Streamlit part: a choice of ``FORMS`` (bound to ``?form=``) and every recorded chart in it."""
    import streamlit as st

    from attention_ui.chart_theme import themed
    from attention_ui.internals import SentAsIs
    from attention_ui.style import apply_style

    st.set_page_config(page_title="margins", layout="centered")
    apply_style()
    form = st.radio("form", FORMS, key="form", horizontal=True, bind="query-params")
    if form == "empty":
        return
    recorded = json.loads(Path(os.environ[SPECS_ENV]).read_text(encoding="utf-8"))
    for n, spec in enumerate(recorded["specs"]):
        with st.container(key=f"fig_{n}"):
            if form == "bare":  # Streamlit validates the dict into a figure and applies its theme
                st.plotly_chart(spec, key=f"chart_{n}", theme="streamlit")
            else:
                sent = SentAsIs(themed(in_form(spec, form, recorded["fixed"])))
                st.plotly_chart(sent, key=f"chart_{n}", theme=None)


READ_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
  const frame = gd.querySelector('.svg-container').getBoundingClientRect();
  const size = gd._fullLayout._size, given = gd.layout.margin || {};
  const widened = ['l', 'r', 't', 'b'].some(side => size[side] > (given[side] ?? 0) + 0.5);
  const texts = [...gd.querySelectorAll('.main-svg text')].filter(t =>
    !t.closest('.hoverlayer') && !t.classList.contains('heatmap-label') && t.textContent.trim());
  const cut = texts.filter(t => { const b = t.getBoundingClientRect();
    return b.width > 0 && (b.left < frame.left - 1 || b.right > frame.right + 1 || b.top < frame.top - 1
                           || b.bottom > frame.bottom + 1); }).length;
  let overlaps = 0;
  for (const layer of gd.querySelectorAll('.xaxislayer-above')) {
    const flat = [...layer.querySelectorAll('text')]
      .filter(t => !/rotate\\((?!0[,)])/.test(t.getAttribute('transform') || ''))
      .map(t => t.getBoundingClientRect()).filter(b => b.width > 0).sort((a, b) => a.left - b.left);
    for (let i = 1; i < flat.length; i++) if (flat[i].left < flat[i - 1].right - 1) overlaps++;
  }
  return {widened, cut, overlaps, plot: size.w * size.h / (gd._fullLayout.width * gd._fullLayout.height)};
})"""


def drive() -> int:
    import argparse
    import statistics
    import tempfile
    import time
    from urllib.parse import urlencode

    from bench.core import chromium, machine, on_sigterm_exit, table, wait_idle
    from bench.pageclock import App, timed_server
    from tests.browser.test_drawn_once import Passes

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--widths", type=int, nargs="+", default=[1400, 390])
    args = ap.parse_args()
    on_sigterm_exit()
    print(f"bench_margins: {machine()}, load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    specs = capture()
    fixed = fixed_margins(specs)
    kinds = sorted({kind(spec) for spec in specs})
    print(f"{len(specs)} charts recorded; the fixed layout per kind:")
    for name in kinds:
        print(f"  {name:<16} {fixed[name]}  ({sum(kind(s) == name for s in specs)} charts)")
    read: dict[tuple[str, int], dict] = {}
    times: dict[str, list] = {form: [] for form in FORMS[1:]}
    with tempfile.TemporaryDirectory(prefix="bench-margins-") as tmp, chromium() as browser:
        path = Path(tmp) / "specs.json"
        path.write_text(json.dumps({"specs": specs, "fixed": fixed}), encoding="utf-8")
        server = timed_server("margins", "bench/bench_margins.py", Path(tmp), env={SPECS_ENV: str(path)})
        try:
            server.start()
            server.wait_health(120)
            for width in args.widths:
                phone = width < 600
                context = browser.new_context(
                    viewport={"width": width, "height": 900}, device_scale_factor=2 if phone else 1, has_touch=phone
                )
                page = context.new_page()
                page.set_default_timeout(300_000)
                passes = Passes(page)
                for form in FORMS[1:]:
                    page.goto(server.url + "?" + urlencode({"form": form}))
                    page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot').length >= {len(specs)}")
                    wait_idle(page, timeout=300.0, settle=1.5)
                    drawn = page.evaluate(READ_JS)
                    read[form, width] = {"passes": passes.take(), "charts": drawn}
                    page.goto("about:blank")
                passes.close()
                context.close()
            clock = App(server, browser, 300.0)
            clock.page.goto(server.url + "?form=empty")
            clock.page.wait_for_selector(".st-key-form")
            time.sleep(2)
            options = clock.page.locator('.st-key-form [role="radiogroup"] label')
            for rep in range(1, args.reps + 1):
                for n, form in enumerate(FORMS[1:], start=1):
                    clock.measure(lambda: options.nth(0).click())  # the empty page first
                    sample = clock.measure(options.nth(n).click)
                    times[form].append(sample)
                    print(f"  rep {rep} {form:<11} {sample.total:7.3f} s  browser {sample.browser:6.3f} s", flush=True)
            clock.close()
        finally:
            server.stop()
    rows = []
    for (form, width), found in read.items():
        charts = found["charts"]
        rows.append(
            [
                form,
                width,
                len(charts),
                f"{found['passes'] / len(charts):.2f}",
                sum(c["widened"] for c in charts),
                sum(c["cut"] for c in charts),
                sum(c["overlaps"] for c in charts),
                f"{statistics.median(c['plot'] for c in charts):.3f}",
            ]
        )
    heads = ["form", "width", "charts", "passes/chart", "widened", "texts cut", "flat overlaps", "plot share"]
    print("\n" + table(heads, rows, title="Drawn in Chromium (every chart of the app, en + zh)"))
    rows = [
        [
            form,
            f"{statistics.median(s.total for s in samples):.3f}",
            f"{statistics.median(s.browser for s in samples):.3f}",
            f"{1000 * statistics.median(s.total for s in samples) / len(specs):.1f}",
        ]
        for form, samples in times.items()
    ]
    title = f"Empty page → all {len(specs)} charts at 1400 px, medians of {args.reps}"
    print("\n" + table(["form", "total s", "browser s", "ms/chart"], rows, title=title))
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if under_streamlit():
    app()
elif __name__ == "__main__":
    sys.exit(drive())
