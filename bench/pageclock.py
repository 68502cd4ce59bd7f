"""The page's own clock: from a learner's input to the updated page being painted, in Chromium.

Shared by ``bench_clicks.py``, ``bench_draw.py`` (``App``, Playwright's sync API) and the
Chromium learners of ``bench_load.py`` / ``bench_proxy.py`` (``timed_action``, the async API).

``INIT_JS`` is installed in a browser context before any page loads (``add_init_script``). It
wraps the page's WebSocket to count Streamlit's ForwardMsgs ``new_session`` (a script run
starts) and ``script_finished`` (it ends, whatever its status) from the frames' top-level
protobuf fields, watches every change of the page (a MutationObserver) and notes the first
``pointerdown`` / ``keydown`` after ``ARM_JS``. ``SETTLED_JS`` is true once the runs that input
started have ended (as many ``script_finished`` as ``new_session``), the app is idle
(``core.IDLE_JS``) and nothing in the page changed for ``quiet`` ms; the clock stops at the
second ``requestAnimationFrame`` after the last change, i.e. once it has been painted. When a
run is fast React renders "running" and "notRunning" in one go, so the state attribute alone
is not enough. An input that starts no run within ``noRun`` ms ends as ``'norun'``.

A run under way when its websocket dies (the app process killed behind ``deploy/serve.sh``)
never reports its end: when Streamlit's page opens a new websocket, ``INIT_JS`` counts the runs
still open in ``cut`` and ``SETTLED_JS`` waits no longer for them; the page's rerun on the new
session ends the action. Without this the clock waited for ever on a page that was connected
and showed the click's effect: the fault bench's "straggler" (issue 44, item 4;
``tests/browser/test_bench_clock.py``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.core import IDLE_JS, VIEWPORT, Server, tree_cpu_s
from harness import PROTOBUF_FIELDS_JS, SCRIPT_FINISHED

# ForwardMsg's top-level fields (streamlit/proto/ForwardMsg.proto): a run starts with new_session
# and ends with script_finished (whatever its status, an interrupted run included); the harness
# reads a message's top-level fields from the wire (PROTOBUF_FIELDS_JS).
NEW_SESSION_FIELD, SCRIPT_FINISHED_FIELD = 4, SCRIPT_FINISHED

INIT_JS = (
    """(() => {
  if (window.__bench) return;
  const B = window.__bench = {t0: null, armed: false, news: [], fins: [], lastMut: 0, settled: null,
                              bytes: 0, frames: 0, states: [], changes: [], lastWhat: null, drawn: [],
                              sockets: 0, cut: 0};
  const fields = buf => (PROTOBUF_FIELDS)(buf).map(([n]) => n);  // top-level field numbers
  const NativeWS = window.WebSocket;
  window.WebSocket = class extends NativeWS {
    constructor(...args) {
      super(...args);
      if (String(args[0]).includes('/_stcore/stream')) {
        B.sockets += 1;  // a new one: the runs still open on the one before never end
        B.cut += Math.max(0, B.news.length - B.cut - B.fins.length);
      }
      this.addEventListener('message', e => {
        const now = performance.now(), d = e.data;
        B.bytes += d.byteLength ?? d.size ?? d.length ?? 0;
        B.frames += 1;
        if (!(d instanceof ArrayBuffer)) return;
        const f = fields(d);
        if (f.includes(NEW_SESSION)) B.news.push(now);
        if (f.includes(SCRIPT_FINISHED)) B.fins.push(now);
      });
    }
  };
  // Every change of the page: the last one, and two animation frames after it (then it is drawn).
  const observer = new MutationObserver(records => {
    const t = performance.now();
    B.lastMut = t;
    const el = records[records.length - 1].target;
    const owner = (el.nodeType === 1 ? el : el.parentElement)?.closest('[data-testid]');
    B.lastWhat = owner ? owner.getAttribute('data-testid') : el.nodeName;
    B.changes.push([t, B.lastWhat]);
    if (B.changes.length > 2000) B.changes.splice(0, 1000);
    for (const r of records) {
      if (r.attributeName === 'data-test-script-state') B.states.push([t, r.target.getAttribute(r.attributeName)]);
      for (const n of r.addedNodes) {  // a chart drawn afresh (mounted): Plotly adds its plot-container
        if (n.nodeType !== 1 || !n.classList.contains('plot-container')) continue;
        const keyed = r.target.closest('[class*="st-key-"]');
        const key = keyed ? (keyed.className.match(/st-key-([\\w-]+)/) || [])[1] : null;
        B.drawn.push(key || '?');
      }
    }
    requestAnimationFrame(() => requestAnimationFrame(() => {
      if (B.lastMut === t) B.settled = [t, performance.now()];
    }));
  });
  const start = () => observer.observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, characterData: true});
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
  const input = () => { if (B.armed) { B.t0 = performance.now(); B.armed = false; } };
  window.addEventListener('pointerdown', input, true);
  window.addEventListener('keydown', input, true);
})();""".replace("PROTOBUF_FIELDS", PROTOBUF_FIELDS_JS)
    .replace("NEW_SESSION", str(NEW_SESSION_FIELD))
    .replace("SCRIPT_FINISHED", str(SCRIPT_FINISHED_FIELD))
)

ARM_JS = """() => { const B = window.__bench;
  B.t0 = null; B.armed = true; B.news = []; B.fins = []; B.cut = 0; B.settled = null; B.bytes = 0; B.frames = 0;
  B.states = []; B.changes = []; B.drawn = []; }"""

SETTLED_JS = """([quiet, noRun]) => { const B = window.__bench;
  if (B.t0 === null) return false;
  const now = performance.now();
  if (!B.fins.length) return (!B.news.length && now - B.t0 > noRun) ? 'norun' : false;
  if (B.news.length - B.cut > B.fins.length) return false;
  if (!(IDLE)()) return false;
  if (!B.settled || B.settled[0] !== B.lastMut || now - B.lastMut < quiet) return false;
  return 'done'; }""".replace("IDLE", IDLE_JS)

RESULT_JS = """() => { const B = window.__bench;
  const lastFin = B.fins.length ? B.fins[B.fins.length - 1] : null;
  const end = B.settled && lastFin !== null ? Math.max(B.settled[1], lastFin) : null;
  return {t0: B.t0, end, runs: B.news.length, finished: B.fins.length, sockets: B.sockets,
          seen_running: B.states.filter(([, s]) => s === 'running').length,
          first_news: B.news.length ? B.news[0] - B.t0 : null, last_fin: lastFin === null ? null : lastFin - B.t0,
          bytes: B.bytes, frames: B.frames, nodes: document.getElementsByTagName('*').length, drawn: B.drawn,
          // what changed after the last script_finished arrived: [ms after it, data-testid]
          late: lastFin === null ? [] : B.changes.filter(([t]) => t > lastFin).slice(-4)
                 .map(([t, what]) => [Math.round(t - lastFin), what])}; }"""

QUIET_MS = 400  # bench_clicks: over once nothing in the page changed for this long (after the runs ended)
NO_RUN_MS = 4000  # an interaction that starts no run within this is recorded with runs = 0
BROWSER_METRICS = ("TaskDuration",)  # CDP Performance.getMetrics: the renderer's main-thread task time (s)


def total_seconds(result: dict, state) -> float:
    """The clock's reading (s) from RESULT_JS; NaN when no run or no paint was seen."""
    if state == "norun" or result["end"] is None or result["t0"] is None:
        return float("nan")
    return (result["end"] - result["t0"]) / 1e3


async def timed_action(page, act, *, quiet_ms: int = 0, no_run_ms: int = NO_RUN_MS, timeout: float = 60.0):
    """Arm the clock, ``await act()`` (one click or key press), wait until the page has settled
    (async API; the context must have ``INIT_JS``). Returns (seconds, RESULT_JS's dict); raises
    Playwright's TimeoutError after ``timeout`` s."""
    await page.evaluate(ARM_JS)
    await act()
    handle = await page.wait_for_function(SETTLED_JS, arg=[quiet_ms, no_run_ms], polling=50, timeout=timeout * 1000)
    state = await handle.json_value()
    result = await page.evaluate(RESULT_JS)
    return total_seconds(result, state), result


@dataclass
class Sample:
    total: float  # s, page clock
    script: float  # s, server wall, summed over the runs
    cpu: float  # s, script thread CPU
    server_cpu: float  # s, the server tree's CPU over the whole interaction
    browser: float  # s, renderer main-thread task time
    runs: int  # counted in the page
    server_runs: int
    kb: float
    nodes: int = 0  # elements in the page afterwards
    charts: list = field(default_factory=list)  # [key, bytes, s] per st.plotly_chart, all runs
    profiles: list = field(default_factory=list)  # run numbers (cProfile files)
    js_profile: dict | None = None  # Chromium's CPU profile (CDP Profiler), with --js-profile
    trace: dict | None = None  # the renderer main thread's self time (s) by kind and event, with --trace
    fin: float = float("nan")  # s from the input to the last script_finished reaching the page
    late: list = field(default_factory=list)  # the last changes after it: [ms after it, data-testid]
    drawn: list = field(default_factory=list)  # keys of the charts the browser drew afresh (mounted)


class App:
    """One app (a ``timed=True`` Server) in its own browser context, with the page clock installed
    and the server's log of script runs read after every interaction (Playwright's sync API)."""

    def __init__(
        self,
        server: Server,
        browser,
        timeout: float,
        trace_reader: Callable[[bytes], dict] | None = None,
        trace_categories: list[str] | None = None,
    ):
        self.server, self.runs_log, self.timeout, self.browser = server, server.runs_log, timeout, browser
        self.trace_reader, self.trace_categories = trace_reader, trace_categories
        self.context = browser.new_context(viewport=VIEWPORT)
        self.context.set_default_timeout(timeout * 1000)
        self.context.add_init_script(INIT_JS)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.cdp = self.context.new_cdp_session(self.page)
        self.cdp.send("Performance.enable")
        self.log_pos = 0

    def browser_metrics(self) -> dict[str, float]:
        """Chromium's cumulative main-thread task time of this page (s)."""
        metrics = {m["name"]: m["value"] for m in self.cdp.send("Performance.getMetrics")["metrics"]}
        return {k: metrics.get(k, 0.0) for k in BROWSER_METRICS}

    def new_runs(self) -> list[dict]:
        """The script runs logged by bench/st_timed.py since the last call."""
        assert self.runs_log is not None, "a timed server (Server(timed=True)) logs its runs"
        with open(self.runs_log, encoding="utf-8") as f:
            f.seek(self.log_pos)
            text = f.read()
        complete = text[: text.rfind("\n") + 1]
        self.log_pos += len(complete.encode("utf-8"))
        return [json.loads(line) for line in complete.splitlines() if line.strip()]

    def measure(self, act: Callable[[], None], js_profile: bool = False, trace: bool = False) -> Sample:
        """Arm the clock, ``act()`` (one click or key press), wait until it is over; the sample.

        ``js_profile``: record Chromium's JavaScript CPU profile meanwhile (``Sample.js_profile``);
        ``trace``: a Chromium performance trace, read by ``trace_reader`` (``Sample.trace``)."""
        self.new_runs()  # forget runs nobody asked for
        self.page.evaluate(ARM_JS)
        if js_profile:
            self.cdp.send("Profiler.enable")
            self.cdp.send("Profiler.setSamplingInterval", {"interval": 500})  # µs
            self.cdp.send("Profiler.start")
        if trace:
            self.browser.start_tracing(page=self.page, categories=self.trace_categories)
        m0, cpu0 = self.browser_metrics(), tree_cpu_s(self.server.pid)
        act()
        self.page.mouse.move(2, 2)  # off the page's content: no hover label moves into the measurement
        state = self.page.wait_for_function(
            SETTLED_JS, arg=[QUIET_MS, NO_RUN_MS], polling=50, timeout=self.timeout * 1000
        ).json_value()
        m1, cpu1 = self.browser_metrics(), tree_cpu_s(self.server.pid)
        profile = self.cdp.send("Profiler.stop")["profile"] if js_profile else None
        kinds = self.trace_reader(self.browser.stop_tracing()) if trace and self.trace_reader else None
        r = self.page.evaluate(RESULT_JS)
        time.sleep(0.05)  # the log line is written before the run's last message is sent
        runs = self.new_runs()
        return Sample(
            total=total_seconds(r, state),
            script=sum(x["wall"] for x in runs),
            cpu=sum(x["cpu"] for x in runs),
            server_cpu=cpu1 - cpu0,
            browser=m1["TaskDuration"] - m0["TaskDuration"],
            nodes=r["nodes"],
            runs=r["runs"],
            server_runs=len(runs),
            kb=r["bytes"] / 1024,
            charts=[c for x in runs for c in x["charts"]],
            profiles=[x["n"] for x in runs],
            js_profile=profile,
            trace=kinds,
            fin=float("nan") if r["last_fin"] is None else r["last_fin"] / 1e3,
            late=r["late"],
            drawn=r["drawn"],
        )

    def close(self) -> None:
        self.context.close()


def timed_server(name: str, script: str, tmp: Path, profile_dir: Path | None = None, **kwargs) -> Server:
    """A ``Server`` run through bench/st_timed.py, logging its script runs to ``tmp/<name>-runs.jsonl``."""
    runs_log = tmp / f"{name}-runs.jsonl"
    runs_log.touch()
    return Server(name=name, script=script, timed=True, runs_log=runs_log, profile_dir=profile_dir, **kwargs)
