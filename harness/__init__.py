"""Drive the real app: start a Streamlit server, launch Debian's Chromium, read the page.

The one harness of the browser tests (``tests/browser/``), the benches (``bench/``) and
``scripts/screenshots.py``. It imports neither pytest nor the app: every ``data-testid`` it
selects is named in ``attention_ui.internals`` (``testid``; in JavaScript, ``js``), imported when
first needed, so that a bench can load this module before NumPy and Streamlit. Playwright is
imported only by ``launch_browser`` so that this module loads (and the conftest can say what is
missing) on a machine without it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_TESTID = re.compile(r"testid\((\w+)\)")


def testid(name: str) -> str:
    """The CSS selector of Streamlit's element ``name``: ``attention_ui.internals.testid``."""
    from attention_ui.internals import testid as selector

    return selector(name)


def js(code: str) -> str:
    """JavaScript ``code`` with each ``testid(name)`` written as the selector of Streamlit's element
    ``name`` (``internals.testid``, which knows the names its canaries watch).

    >>> print(js("document.querySelector('testid(stApp) h1')"))
    document.querySelector('[data-testid="stApp"] h1')
    """
    return _TESTID.sub(lambda m: testid(m.group(1)), code)


ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 900}
SERVER_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
}
STREAMLIT_FLAGS = [
    "--server.headless",
    "true",
    "--server.address",
    "127.0.0.1",
    "--server.fileWatcherType",
    "none",
    "--browser.gatherUsageStats",
    "false",
]
"""``streamlit run``'s options for a server of tests and benches: headless, local, no file watcher."""
# The toy embedder in a URL. The app binds its "toy" toggle to ?toy=; ?source=toy is the
# name in the original page contract. Unknown query params are harmless, so send both.
TOY = "toy=true&source=toy"


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    url: str  # base URL, with a trailing slash
    process: subprocess.Popen
    log_path: Path

    def log(self, tail: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except OSError:
            return ""


def stop_group(proc: subprocess.Popen | None, term_wait: float = 10.0) -> None:
    """Stop ``proc``'s process group (it leads one: ``process_group``): SIGTERM, then SIGKILL after
    ``term_wait`` seconds; until ``proc`` has exited and no process is left in its group (the
    leader may have exited before the rest: the group is signalled all the same)."""
    if proc is None:
        return
    for sig, wait in ((signal.SIGTERM, term_wait), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):  # nothing left in the group
            proc.wait()
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if proc.poll() is not None and not _group_alive(proc.pid):
                return
            time.sleep(0.05)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5.0)


def _group_alive(pgid: int) -> bool:
    """Whether a process (a zombie included) is still in process group ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


@functools.lru_cache(maxsize=1)
def _lifeline():
    """``attention_ui/lifeline.py`` loaded from its file (it uses the standard library only):
    importing the package ``attention_ui`` would import Streamlit, which this module never does."""
    spec = importlib.util.spec_from_file_location("attention_lab_lifeline", ROOT / "attention_ui" / "lifeline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_ENDING = {"depth": 0}  # process_group blocks open now (SIGTERM ends the run while there is one)
_ENDING_LOCK = threading.Lock()


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C's exception: pytest ends the session (a SystemExit would fail
    one test and go on), a bench ends, and every ``finally`` on the way runs."""


def _end_the_run(signum, frame):
    raise Terminated(f"signal {signum}")


@contextlib.contextmanager
def _signals_end_the_run() -> Iterator[None]:
    """While a server of ours runs: SIGTERM ends this process as Ctrl-C does (``Terminated``, so
    every ``finally`` runs and stops its servers), when nobody else handles SIGTERM (signals
    are the main thread's to handle)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with _ENDING_LOCK:
        _ENDING["depth"] += 1
        if _ENDING["depth"] == 1 and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _end_the_run)
    try:
        yield
    finally:
        with _ENDING_LOCK:
            _ENDING["depth"] -= 1
            if _ENDING["depth"] == 0 and signal.getsignal(signal.SIGTERM) is _end_the_run:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def process_group(cmd: list[str], term_wait: float = 10.0, **popen) -> Iterator[subprocess.Popen]:
    """Run ``cmd`` (``deploy/serve.sh``, ``python -m attention_ui.launch``, ``streamlit run``, …)
    so that nothing of it outlives this process: the one way benches, scripts and tests start a
    server (``popen``: ``subprocess.Popen``'s other arguments).

    * It leads a session and process group of its own, which is stopped whole when the block
      ends, by an exception or normally (``stop_group``: SIGTERM, SIGKILL after ``term_wait`` s).
    * SIGTERM to this process ends it like Ctrl-C (``_signals_end_the_run``), so the block ends.
    * When this process dies anyway (SIGKILL, which nothing here can see), Linux sends the
      child SIGTERM (``attention_ui/lifeline.py``, asked for in the child before it starts):
      serve.sh then stops everything it started, and Streamlit stops as on Ctrl-C.

    Start it from the main thread (Linux ties the child to the thread that started it).

    >>> with process_group(["sleep", "60"]) as proc:
    ...     os.getpgid(proc.pid) == proc.pid
    True
    >>> proc.poll() is not None
    True
    """
    with _signals_end_the_run():
        proc = subprocess.Popen(cmd, start_new_session=True, preexec_fn=_lifeline().preexec(os.getpid()), **popen)
        try:
            yield proc
        finally:
            stop_group(proc, term_wait)


@contextlib.contextmanager
def streamlit_server(
    timeout: float = 120.0, app: str = "app.py", port: int | None = None, env: dict | None = None
) -> Iterator[Server]:
    """Start ``streamlit run app.py`` from the repo root on a free port (or ``port``), with ``env``
    added to the environment; yield a Server.

    Polls /_stcore/health until it answers 200 (raises RuntimeError with the server log
    if it does not within ``timeout`` seconds or the process dies). At exit the process
    group is stopped (``process_group``: nothing of it outlives this process).
    """
    port = port or free_port()
    log = tempfile.NamedTemporaryFile(prefix=f"streamlit-{port}-", suffix=".log", delete=False)
    cmd = [sys.executable, "-m", "streamlit", "run", app, "--server.port", str(port), *STREAMLIT_FLAGS]
    try:
        with process_group(
            cmd,
            cwd=ROOT,
            env={**os.environ, **SERVER_ENV, **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        ) as proc:
            server = Server(url=f"http://127.0.0.1:{port}/", process=proc, log_path=Path(log.name))
            wait_for_health(server, timeout)
            yield server
    finally:
        log.close()
        with contextlib.suppress(OSError):
            os.unlink(log.name)


def wait_for_health(server: Server, timeout: float) -> None:
    """Until ``server`` answers /_stcore/health with 200; RuntimeError with its log when its
    process exits first or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {server.process.returncode}:\n{server.log()}")
        try:
            with urllib.request.urlopen(server.url + "_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"streamlit did not answer /_stcore/health in {timeout:.0f} s:\n{server.log()}")
        time.sleep(0.25)


@contextlib.contextmanager
def launch_browser():
    """Debian's Chromium through Playwright's sync API (never ``playwright install``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


# A JavaScript function (an expression) that reads the top-level fields of one protobuf
# message, the wire format alone (no schema): buf -> [[field number, varint value or null], ...].
# Streamlit's WebSocket carries ForwardMsg messages; field 6 is script_finished, whose value is
# the run's status. Shared by the one-run-per-click test and bench/bench_clicks.py.
PROTOBUF_FIELDS_JS = """(buf => {
  const b = new Uint8Array(buf), out = [];
  let i = 0;
  const varint = () => { let x = 0, m = 1; while (i < b.length) { const c = b[i++]; x += (c & 127) * m;
                         if (c < 128) break; m *= 128; } return x; };
  while (i < b.length) {
    const tag = varint(), wire = tag % 8, field = Math.floor(tag / 8);
    if (wire === 0) { out.push([field, varint()]); continue; }
    out.push([field, null]);
    if (wire === 1) i += 8;
    else if (wire === 2) { const n = varint(); i += n; }
    else if (wire === 5) i += 4;
    else break;
  }
  return out;
})"""

SCRIPT_FINISHED = 6  # ForwardMsg.script_finished (streamlit/proto/ForwardMsg.proto)
AUTO_RERUN = 21  # ForwardMsg.auto_rerun: a fragment's timer (run_every)

COUNT_RUNS_JS = (
    """(() => {
  window.__runs = [];
  window.__countsRuns = true;
  const fields = PROTOBUF_FIELDS;
  const NativeWS = window.WebSocket;
  window.WebSocket = class extends NativeWS {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', e => {
        if (!(e.data instanceof ArrayBuffer)) return;
        for (const [field, value] of fields(e.data)) {
          if (field === SCRIPT_FINISHED) window.__runs.push(value);
          if (field === AUTO_RERUN) window.__autoReruns = (window.__autoReruns || 0) + 1;
        }
      });
    }
  };
})();""".replace("PROTOBUF_FIELDS", PROTOBUF_FIELDS_JS)
    .replace("SCRIPT_FINISHED", str(SCRIPT_FINISHED))
    .replace("AUTO_RERUN", str(AUTO_RERUN))
)
"""An init script: ``window.__runs`` collects the status of every script run the page's
WebSocket reports finished (the one-run-per-click and learn browser tests); ``window.__autoReruns``
counts the fragment timers a run set (``internals.ask_for_a_run_on_reconnect`` sets one early in
every run of the app: the reconnect test waits for it)."""

IDLE_JS = """() => {
  const app = document.querySelector('testid(stApp)');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-stale="true"], testid(stSkeleton)')) return false;
  const charts = document.querySelectorAll('testid(stPlotlyChart)');
  for (const c of charts) {
    const plot = c.querySelector('.js-plotly-plot');
    if (!plot || !plot.data || !plot._fullLayout) return false;
  }
  return true;
}"""
"""The app is idle: its script is not running, no element is still stale from the last run nor a
lazy-loading skeleton, and every Plotly chart container holds a drawn figure. Its selectors are
written ``testid(name)``: pass it through ``js``."""


EARLY_FOR_RERUN = 2  # ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN: another run follows at once
FULL_RUN, FRAGMENT_RUN = 0, 3  # ScriptFinishedStatus: FINISHED_SUCCESSFULLY, FINISHED_FRAGMENT_RUN_SUCCESSFULLY
QUIET_AFTER_RUN_MS = 250
"""How long the app stays idle after a run it reported finished before ``wait_for_app`` trusts
it: a rerun that follows one (a component sending its value) starts within that, on a loaded
machine too (with 150 ms, one full run failed a test that may have acted during such a rerun)."""

# With the run counter (COUNT_RUNS_JS): settled when the app is idle and either a run finished
# since the last wait (and none follows it) and all was quiet for QUIET_AFTER_RUN_MS, or, in a
# page that has finished a run before, no run came for 2 × `settle` ms (an action that starts
# none, or one whose run starts late on a loaded machine: as long as the two checks without it).
_SETTLED_JS = (
    """(settle) => {
  const idle = IDLE;
  const now = performance.now(), runs = window.__runs, acked = window.__acked || 0;
  if (!idle() || runs.length !== window.__lastRuns) {
    window.__lastRuns = runs.length;
    window.__quietSince = now;
    return false;
  }
  const quiet = now - window.__quietSince;
  if (runs.length > acked) return runs[runs.length - 1] !== FOR_RERUN && quiet >= QUIET;
  return runs.length > 0 && quiet >= 2 * settle;
}""".replace("IDLE", IDLE_JS)
    .replace("FOR_RERUN", str(EARLY_FOR_RERUN))
    .replace("QUIET", str(QUIET_AFTER_RUN_MS))
)


def wait_for_app(page, timeout: float = 120_000, settle: int = 400) -> None:
    """Wait for Streamlit's app root, then until the script run is over and the page drawn.

    In a page with the run counter (``COUNT_RUNS_JS``: every page of the browser tests' ``tab``
    fixture): until a run has finished since the last wait and the app stayed idle for
    ``QUIET_AFTER_RUN_MS`` after it, or, when no run comes (an action that starts none), for
    2 × ``settle`` ms; a freshly opened page waits for its first run. Without the counter: checks
    twice, ``settle`` ms apart, so a rerun that starts right after a click or an Enter (the
    attribute may still read "notRunning" for a moment) is waited for too.
    """
    page.wait_for_selector(testid("stApp"), timeout=timeout)
    # with the counter, the quiet time starts with this wait (__lastRuns: no count seen yet)
    if page.evaluate("() => window.__countsRuns === true && (window.__lastRuns = -1, true)"):
        page.wait_for_function(js(_SETTLED_JS), arg=settle, timeout=timeout, polling=50)
        page.evaluate("() => { window.__acked = window.__runs.length; }")
        return
    for _ in range(2):
        page.wait_for_function(js(IDLE_JS), timeout=timeout, polling=100)
        page.wait_for_timeout(settle)
    page.wait_for_function(js(IDLE_JS), timeout=timeout, polling=100)


def load_side_by_side(tabs: list, urls: list[str], settle: int = 400) -> Iterator[tuple]:
    """Open ``urls`` in order, as many at a time as there are ``tabs``; yield ``(tab, url)`` for
    each once its page is loaded and idle (``wait_for_app``), for the caller to read it there.

    A walk over many pages waits mostly on one page's script run and settle time; with two or
    three tabs (each its own session) the server and Chromium work on the next page meanwhile.
    """
    for start in range(0, len(urls), len(tabs)):
        batch = list(zip(tabs, urls[start : start + len(tabs)]))
        for tab, url in batch:
            tab.goto(url)
        for tab, url in batch:
            wait_for_app(tab, settle=settle)
            yield tab, url


def plotly_data(page) -> list[dict]:
    """Every Plotly figure on the page, top to bottom: {"title", "data", "layout"} as JSON.

    ``data`` is the figure's traces (z, x, y, text, customdata, ... as plain lists);
    ``layout`` keeps the title and the x/y axes (tickvals, ticktext, title).
    """
    return page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')].map(el => {
          const axis = a => a ? {tickvals: a.tickvals ?? null, ticktext: a.ticktext ?? null,
                                 title: (a.title && a.title.text) ?? null} : null;
          const title = el.layout && el.layout.title;
          // Streamlit sends arrays base64-encoded ({dtype, bdata, shape}); Plotly decodes
          // them into typed arrays under _inputArray. Give plain nested lists back.
          const clean = v => (v && ArrayBuffer.isView(v)) ? Array.from(v)
                        : Array.isArray(v) ? v.map(clean)
                        : (v && typeof v === 'object' && 'bdata' in v) ? clean(v._inputArray)
                        : v;
          return {
            title: ((title && (title.text ?? title)) || '').replace(/<[^>]*>/g, ''),
            data: (el.data || []).map(t => {
              const out = {};
              for (const k of ['type', 'name', 'z', 'x', 'y', 'text', 'customdata']) {
                if (t[k] !== undefined) out[k] = clean(t[k]);
              }
              return out;
            }),
            layout: {xaxis: axis(el.layout && el.layout.xaxis), yaxis: axis(el.layout && el.layout.yaxis)},
          };
        })"""
    )


def matrix_tables(page) -> list[dict]:
    """Every matrix the page shows as an HTML table (``tables.matrix_html``; not a print twin,
    not a spotlight row), top to bottom: {"title", "rows", "cols", "z", "texts"}, labels and
    texts as a learner reads them, ``z`` each cell's exact ``data-value``."""
    return page.evaluate(
        """() => [...document.querySelectorAll(
            '.cell-matrix-box:not(.print-only) > .cell-matrix-wrap:not(.cm-spotlight) > table')].map(table => {
          const body = [...table.querySelectorAll('tbody tr')];
          return {
            title: (table.querySelector('caption .cm-title') || {}).textContent || '',
            rows: body.map(tr => tr.querySelector('th').textContent),
            cols: [...table.querySelectorAll('thead th')].map(th => th.textContent),
            z: body.map(tr => [...tr.querySelectorAll('td')].map(td => parseFloat(td.dataset.value))),
            texts: body.map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent)),
          };
        })"""
    )


def exception_texts(page) -> list[str]:
    """The text of every Streamlit exception box on the page."""
    return page.locator(testid("stException")).all_inner_texts()


def runs_of(page, act) -> list[int]:
    """The statuses of the script runs that ``act()`` started (``FULL_RUN``, ``FRAGMENT_RUN``,
    ``EARLY_FOR_RERUN``), once the page is idle again (a page made with ``COUNT_RUNS_JS``)."""
    page.evaluate("window.__runs = []; window.__acked = 0")
    act()
    wait_for_app(page, settle=600)
    return page.evaluate("window.__runs")


def no_exception(page) -> None:
    """Assert the page shows no Streamlit exception box."""
    boxes = exception_texts(page)
    assert not boxes, "the app shows an exception:\n" + "\n---\n".join(boxes)


fresh_server = streamlit_server
"""Start a NEW server whose very first request is yours: ``with fresh_server() as srv:``."""


def download_first_csv(page):
    """Open the charts' Download menus in page order until one offers a CSV, click it, and
    return Playwright's Download (each chart's export control is a menu: exports.show_figure)."""
    menus = page.locator(f"{testid('stMain')} {testid('stPopover')} button")
    for n in range(menus.count()):
        if not menus.nth(n).is_visible():  # a chart on a closed tab or expander: not one the learner sees
            continue
        menus.nth(n).click()
        body = page.locator(testid("stPopoverBody")).last
        body.wait_for(state="visible")
        body.locator(testid("stButtonGroup")).first.wait_for()  # the menu is drawn: its image formats
        csv = body.locator(f"{testid('stDownloadButton')} button")
        if csv.count():
            with page.expect_download() as download:
                csv.first.click()
            page.keyboard.press("Escape")
            return download.value
        page.keyboard.press("Escape")
        body.wait_for(state="hidden")
    raise AssertionError("no chart's Download menu offers a CSV")
