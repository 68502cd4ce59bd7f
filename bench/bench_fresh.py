"""What a new learner waits for on a server that is already running and warm, in Chromium.

    python -m bench.bench_fresh              # 3 repetitions (~5-10 min on 2 busy cores)
    python -m bench.bench_fresh --reps 5
    python -m bench.bench_fresh --warm-cache --pages intuition tailor_shop   # a browser that has been here
    python -m bench.bench_fresh --reps 1 --trace   # where the browser spends a first visit (CPU by kind)

Issue 31 ("No waits"): on a running server, a new learner's session should wait no longer than
1 s for any first page visit or Next. bench_clicks times a learner who has already been
everywhere in one session; this script times what a learner who has just arrived meets.

Two servers, started alike from the repo root (``bench.core.Server``: ``python -m streamlit run
<script>``, headless, 127.0.0.1, no file watcher, HF_HUB_OFFLINE=1, the bundled model): "ours"
is app.py, "bare" is bench/bare_app.py (a text input and one go.Heatmap). One headless Debian
Chromium (Playwright's sync API); every measurement below runs in a new browser context (a new
Streamlit session, no cookies or cache), 1400×900, locale en-US, closed afterwards.

(0) Server start → first heatmap, ours at /matrices vs bare: ``bench_app.startup`` (imported,
    not copied: the clock starts just before the server is spawned and stops when the first
    heatmap is visible). One sample per app, the browser already running.
(1) Warm-up, untimed: one session per page of ``attention_ui.registry.PAGES`` opens its URL, and on
    Step by step Next is clicked through every step; the bare app is opened once. The server
    has then seen every page, as it has when a class arrives after another.
(2) ``--reps`` times, in NAV order, each page's first visit in a fresh session: ``page.goto`` of
    the page's URL as the app writes it (``/`` for Home, ``/<page id>`` for the others, no
    query), each followed by the bare app's first visit in a fresh session (so background load
    hits both alike). Then, in a fresh session on /step_by_step (its opening untimed), Next
    from step 1 to the last, each click timed, followed by a bare Enter (a new 20-word
    sentence) in a fresh bare session (its opening untimed).

The clock is the page's own (``performance.now()``). A first visit runs from the navigation's
start (the document's time origin) and an Next from the click's ``pointerdown``
(``bench.pageclock``'s ``INIT_JS``, which also counts the script runs from the websocket's
frames), until the page is idle: every script run that started has ended (as many
``script_finished`` as ``new_session`` messages, at least one), ``bench.core.IDLE_JS`` holds
(stApp's script state "notRunning", nothing stale, every Plotly chart drawn), and both stay so
for 0.5 s. ``idle`` is the moment that idle stretch began (or the last ``script_finished``, if
later); the figure (``median``, ``max``) is the later of that and the last change to the page
painted by then (the second animation frame after it, as bench_clicks' clock): the idle check
alone misses a chart redrawn in place (a bare Enter read 0.03 s on it). One second later the
run count is read again: a run that started after that (a widget or component reporting back)
restarts the wait, and the sample is flagged.

Columns: median and max over the repetitions; × bare = median / the median of the bare
reference (a first visit for a first visit, a bare Enter for a Next); ``run start`` / ``run over``:
median time until the first ``new_session`` / the last ``script_finished`` reached the page
(before the start: loading the page and Streamlit's frontend, the websocket; after the end: the
browser drawing);
``runs``: script runs per sample; ``charts``: Plotly charts on the page afterwards. Prints the
issue's target (no first visit and no Next over 1 s) next to the figures; it never asserts a
time. The machine may be shared: the load average is printed at the start and at the end.

``--warm-cache``: every session is a new tab of one browser context, whose HTTP cache keeps
Streamlit's frontend and its chunks (Plotly's) after the first: a learner whose browser has
opened the app before; the default, a new context each time, is a browser that never has.

Note: (0) imports ``bench.bench_app`` (the brief for this script asked to reuse it, not copy it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

from bench.bench_app import App as StartupApp
from bench.bench_app import bare_labels, ours_labels, startup
from bench.core import (
    IDLE_JS,
    TRACE_CATEGORIES,
    VIEWPORT,
    chromium,
    machine,
    main_thread_time,
    on_sigterm_exit,
    sentences,
    table,
    wait_idle,
)
from bench.pageclock import ARM_JS, INIT_JS
from harness import js, testid

SETTLE_MS = 500  # the idle check must hold this long
LATE_RUN_S = 1.0  # then, a run started within this long restarts the wait
TARGET_S = 1.0  # issue 31: no first visit and no Next over 1 s

# Idle since when (the page's clock, ms), once every run has ended and IDLE_JS has held for
# ``settle`` ms; false until then. Its state lives in window.__fresh (reset with the clock).
IDLE_SINCE_JS = js("""(settle) => {
  const B = window.__bench;
  if (!B) return false;
  const F = window.__fresh || (window.__fresh = {since: null});
  const now = performance.now();
  if (!B.fins.length || B.news.length > B.fins.length || !(IDLE)()) { F.since = null; return false; }
  if (F.since === null) F.since = now;
  if (now - F.since < settle) return false;
  const lastFin = B.fins[B.fins.length - 1];
  return {idle: Math.max(F.since, lastFin), painted: B.settled ? B.settled[1] : null, lastFin,
          firstNew: B.news.length ? B.news[0] : null, t0: B.t0,
          runs: B.news.length,
          charts: document.querySelectorAll('testid(stPlotlyChart)').length};
}""").replace("IDLE", IDLE_JS)

RESET_JS = "() => { window.__fresh = {since: null}; }"
RUNS_JS = "() => window.__bench.news.length"


def _app_pages() -> tuple[list[str], int]:
    """The page ids in menu order and the number of steps, from the app itself."""
    from attention_core.lesson import STEPS
    from attention_ui.registry import PAGES as REGISTERED

    return [entry.id for entry in REGISTERED], len(STEPS)


PAGES, N_STEPS = _app_pages()


def url_path(page_id: str) -> str:
    """The page's URL path as the app writes it: the default page (NAV's first) is "/"."""
    return "" if page_id == PAGES[0] else page_id


@dataclass
class Sample:
    total: float  # s, page clock: idle, and the last change painted
    idle: float  # s, page clock: idle (IDLE_JS and every run over) alone
    fin: float  # s until the last script_finished reached the page
    start: float  # s until the first new_session reached the page (a script run started)
    runs: int
    charts: int
    late: bool = False  # a run started after the first idle stretch
    cpu: dict | None = None  # with --trace: the renderer main thread's self time (s) by kind


@dataclass
class Series:
    samples: list[Sample] = field(default_factory=list)

    def values(self, attr: str = "total") -> list[float]:
        return [getattr(s, attr) for s in self.samples if getattr(s, attr) == getattr(s, attr)]

    def median(self, attr: str = "total") -> float:
        xs = self.values(attr)
        return statistics.median(xs) if xs else float("nan")

    def max(self) -> float:
        xs = self.values()
        return max(xs) if xs else float("nan")


class Fresh:
    """New browser contexts on one browser, each with the page clock installed."""

    def __init__(self, browser, timeout: float, warm_cache: bool = False, trace: bool = False):
        self.browser, self.timeout, self.trace = browser, timeout, trace
        self.shared = self._context() if warm_cache else None  # one HTTP cache for every session
        self.errors: list[str] = []
        self.timeouts: list[str] = []

    def _context(self):
        context = self.browser.new_context(viewport=VIEWPORT, locale="en-US")
        context.set_default_timeout(self.timeout * 1000)
        context.add_init_script(INIT_JS)
        return context

    @contextlib.contextmanager
    def session(self):
        """A new page (a new Streamlit session): in a new context, or with ``--warm-cache`` a new
        tab of one context that keeps its HTTP cache."""
        context = self.shared or self._context()
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        try:
            yield page
        finally:
            with contextlib.suppress(Exception):
                (page if self.shared else context).close()

    def wait(self, page, what: str) -> Sample:
        """Until idle (IDLE_SINCE_JS), then the late-run check; the sample, times from t0
        (the input, once armed) or else from the navigation's start."""
        late = False
        try:
            while True:
                r = page.wait_for_function(IDLE_SINCE_JS, arg=SETTLE_MS, polling=20, timeout=self.timeout * 1000)
                r = r.json_value()
                time.sleep(LATE_RUN_S)
                if page.evaluate(RUNS_JS) == r["runs"]:
                    break
                late = True
                page.evaluate(RESET_JS)
        except Exception as exc:  # Playwright's TimeoutError: recorded, the run goes on
            self.timeouts.append(f"{what}: {str(exc).splitlines()[0][:120]}")
            return Sample(float("nan"), float("nan"), float("nan"), float("nan"), 0, 0)
        t0 = r["t0"] or 0.0  # not armed: the document's time origin, the navigation's start
        start = float("nan") if r["firstNew"] is None else (r["firstNew"] - t0) / 1e3
        end = max(r["idle"], r["painted"] or 0.0)
        idle, fin = (r["idle"] - t0) / 1e3, (r["lastFin"] - t0) / 1e3
        return Sample((end - t0) / 1e3, idle, fin, start, r["runs"], r["charts"], late)

    def first_visit(self, url: str, what: str) -> Sample:
        """``url`` opened in a new session, until idle; with ``--trace`` under a Chromium trace,
        whose renderer main thread's time by kind the sample keeps (``core.main_thread_time``)."""
        with self.session() as page:
            if self.trace:
                self.browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
            page.goto(url, wait_until="commit")
            sample = self.wait(page, what)
            if self.trace:
                sample.cpu = main_thread_time(self.browser.stop_tracing())["kinds"]
            return sample

    def click(self, page, locator, what: str) -> Sample:
        page.evaluate(ARM_JS)
        page.evaluate(RESET_JS)
        locator.click()
        page.mouse.move(2, 2)  # off the content: no hover label moves into the measurement
        return self.wait(page, what)


def next_button(page):
    return page.locator(f"{testid('stMain')} .st-key-step_next button")


def warm(fresh: Fresh, ours_url: str, bare_url: str) -> None:
    """Another learner has been everywhere: every page once, Step by step's Next to the end."""
    for page_id in PAGES:
        with fresh.session() as page:
            page.goto(ours_url + url_path(page_id))
            wait_idle(page, fresh.timeout, settle=0.3)
            if page_id == "step_by_step":
                for _ in range(N_STEPS - 1):
                    next_button(page).click()
                    wait_idle(page, fresh.timeout, settle=0.3)
    with fresh.session() as page:
        page.goto(bare_url)
        wait_idle(page, fresh.timeout, settle=0.3)


CPU_KINDS = ("script", "style", "layout", "paint", "gc", "parse", "other")


def cpu_table(rows: list[tuple[str, Series]]) -> str:
    """The traced first visits: median renderer main-thread time (s) in all and by kind, and
    the ratio of the total to the bare app's."""
    medians = []
    for name, series in rows:
        cpus = [s.cpu for s in series.samples if s.cpu]
        if cpus:
            kinds = {k: statistics.median(c.get(k, 0.0) for c in cpus) for k in CPU_KINDS}
            medians.append((name, statistics.median(sum(c.values()) for c in cpus), kinds))
    ref = next((total for name, total, _ in medians if name == "bare"), float("nan"))
    return table(
        ("first visit", "main thread s", "× bare", *CPU_KINDS),
        [(name, total, f"{total / ref:.2f}×", *(kinds[k] for k in CPU_KINDS)) for name, total, kinds in medians],
        title="Chromium trace of each first visit, renderer main thread, median self time (s) by kind:",
    )


def fmt(x: float) -> str:
    return "  nan" if x != x else f"{x:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="repetitions of every measurement (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the bare app's sentences")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds for any one wait (default 120)")
    ap.add_argument("--pages", nargs="*", default=None, help="only these page ids' first visits (default: all)")
    ap.add_argument(
        "--warm-cache",
        action="store_true",
        help="every session a new tab of one browser context (its HTTP cache warm) instead of a new context",
    )
    ap.add_argument(
        "--trace",
        action="store_true",
        help="a Chromium trace of every first visit: the renderer main thread's CPU time by kind, ours vs bare",
    )
    args = ap.parse_args()
    on_sigterm_exit()
    import streamlit

    t_start = time.perf_counter()
    load0 = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"bench_fresh: {args.reps} rep(s), {len(PAGES)} pages, {N_STEPS} steps; {os.cpu_count()} CPUs, "
        f"load average {load0} at the start; Python {sys.version.split()[0]}, Streamlit {streamlit.__version__}",
        flush=True,
    )
    ours = StartupApp("ours", "app.py", "matrices", n_figures=1, labels=ours_labels)
    bare = StartupApp("bare", "bench/bare_app.py", "", n_figures=1, labels=bare_labels)
    first: dict[str, Series] = {p: Series() for p in PAGES}
    nexts: dict[int, Series] = {n: Series() for n in range(2, N_STEPS + 1)}
    bare_first, bare_enter = Series(), Series()
    boot: dict[str, dict] = {}
    words = iter(sentences(10_000, args.seed))
    try:
        with chromium() as browser:
            fresh = Fresh(browser, args.timeout, warm_cache=args.warm_cache, trace=args.trace)
            for app in (ours, bare):  # (0) server start -> first heatmap, one after the other
                st = startup(browser, app, args.timeout)
                st["context"].close()
                boot[app.name] = st
                print(
                    f"  start {app.name}: health {st['health']:.2f} s, first heatmap {st['first']:.2f} s"
                    + (f" ({'; '.join(app.notes)})" if app.notes else ""),
                    flush=True,
                )
            ours_url, bare_url = ours.server.url, bare.server.url
            t_warm = time.perf_counter()
            warm(fresh, ours_url, bare_url)  # (1)
            print(f"  warm-up: every page once, Next to step {N_STEPS}: {time.perf_counter() - t_warm:.1f} s")
            for rep in range(1, args.reps + 1):  # (2)
                for page_id in [p for p in PAGES if args.pages is None or p in args.pages]:
                    s = fresh.first_visit(ours_url + url_path(page_id), f"first visit {page_id}")
                    b = fresh.first_visit(bare_url, "bare first visit")
                    first[page_id].samples.append(s)
                    bare_first.samples.append(b)
                    print(
                        f"  rep {rep} first visit /{url_path(page_id):<16} {fmt(s.total)} s (run over {fmt(s.fin)}, "
                        f"{s.runs} run(s), {s.charts} chart(s){', LATE RUN' if s.late else ''})"
                        f"  | bare {fmt(b.total)} s",
                        flush=True,
                    )
                with fresh.session() as page:
                    page.goto(ours_url + "step_by_step")
                    fresh.wait(page, "open step_by_step")
                    for n in range(2, N_STEPS + 1):
                        s = fresh.click(page, next_button(page), f"Next → step {n}")
                        nexts[n].samples.append(s)
                        with fresh.session() as bpage:  # the bare reference: Enter in a fresh session
                            bpage.goto(bare_url)
                            fresh.wait(bpage, "open bare")
                            box = bpage.get_by_label("Sentence", exact=True)
                            box.fill(" ".join(next(words)))
                            bpage.evaluate(ARM_JS)
                            bpage.evaluate(RESET_JS)
                            box.press("Enter")
                            b = fresh.wait(bpage, "bare Enter")
                        bare_enter.samples.append(b)
                        print(
                            f"  rep {rep} Next → step {n}: {fmt(s.total)} s (run over {fmt(s.fin)}, {s.runs} run(s), "
                            f"{s.charts} chart(s){', LATE RUN' if s.late else ''})  | bare Enter {fmt(b.total)} s",
                            flush=True,
                        )
    finally:
        for app in (ours, bare):
            app.stop()

    bf, be = bare_first.median(), bare_enter.median()

    def row(name: str, series: Series, ref: float) -> tuple:
        runs = sorted({s.runs for s in series.samples})
        charts = sorted({s.charts for s in series.samples})
        flags = sum(s.late for s in series.samples)
        return (
            name + (f" ({flags} late run)" if flags else ""),
            series.median(),
            series.max(),
            f"{series.median() / ref:.2f}×" if ref == ref and ref else "n/a",
            series.median("idle"),
            series.median("start"),
            series.median("fin"),
            "/".join(map(str, runs)),
            "/".join(map(str, charts)),
        )

    headers = ("", "median s", "max s", "× bare", "idle s", "run start s", "run over s", "runs", "charts")
    rows = [row(f"first visit /{url_path(p)}", first[p], bf) for p in PAGES if first[p].samples]
    rows.append(row("bare: first visit (reference)", bare_first, bf))
    rows += [row(f"step_by_step: Next → step {n}", nexts[n], be) for n in nexts]
    rows.append(row("bare: Enter → idle (reference)", bare_enter, be))
    print()
    cache = "a new tab of one context (warm HTTP cache)" if args.warm_cache else "a new browser context (cold cache)"
    print(table(headers, rows, title=f"A new session on a warm server, {args.reps} rep(s), each {cache}:"))
    print()
    o, bb = boot["ours"], boot["bare"]  # server start, ours and the bare app's
    print(
        table(
            ("server start →", "ours s", "bare s", "ratio"),
            [
                ("/_stcore/health", o["health"], bb["health"], f"{o['health'] / bb['health']:.2f}×"),
                ("first heatmap", o["first"], bb["first"], f"{o['first'] / bb['first']:.2f}×"),
            ],
            title="Server start (one sample each; ours at /matrices, the model loads in between):",
        )
    )
    if args.trace:
        print()
        print(cpu_table([(f"/{url_path(p)}", first[p]) for p in PAGES if first[p].samples] + [("bare", bare_first)]))
    over = [(f"first visit /{url_path(p)}", first[p].max()) for p in PAGES if first[p].samples]
    over += [(f"Next → step {n}", nexts[n].max()) for n in nexts]
    slow = [f"{name} ({t:.2f} s)" for name, t in over if t > TARGET_S]
    print()
    verdict = f"NOT met, {len(slow)} of {len(over)} over: " + ", ".join(slow) if slow else f"met ({len(over)})"
    print(f"target (issue 31): no first visit and no Next over {TARGET_S:.0f} s: {verdict}")
    if fresh.errors:
        print(f"JavaScript errors: {len(fresh.errors)}, first: {fresh.errors[0][:200]}")
    if fresh.timeouts:
        print(f"timeouts: {len(fresh.timeouts)}: " + "; ".join(fresh.timeouts[:5]))
    print(f"load average at the start {load0}; took {time.perf_counter() - t_start:.0f} s")
    print(machine())
    return 0


if __name__ == "__main__":
    sys.exit(main())
