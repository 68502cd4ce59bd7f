"""What every benchmark shares: servers, Chromium, "the app is idle", percentiles, memory, tables.

Imported by every script in ``bench/`` (run them as modules from the repo root, e.g.
``python -m bench.bench_app``). It imports nothing heavy at load time (no NumPy, Playwright or
Streamlit), so ``bench_core.py`` and ``bench_encoder.py`` can still set their BLAS threads
before NumPy loads.

* ``Server`` / ``streamlit_server``: ``streamlit run <script>`` from the repo root on a free
  port (headless, 127.0.0.1, no file watcher, HF_HUB_OFFLINE=1), waits for /_stcore/health and
  raises with the server's log when it dies or does not answer in time; ``timed=True`` runs it
  through ``bench/st_timed.py`` (a stopwatch on every script run).
* ``chromium`` / ``chromium_async``: Debian's /usr/bin/chromium through Playwright (never
  ``playwright install``), with the harness's flags (``harness.CHROMIUM_ARGS``).
* ``IDLE_JS`` (the harness's) and ``wait_idle`` / ``wait_idle_async``: when the app is idle.
* ``percentile`` / ``p50`` / ``p95``: the one definition of a percentile.
* ``tree_*``, ``RssSampler``, ``settle_rss``, ``pin``: memory and CPU of a process tree (/proc).
* ``table`` and ``machine``: how results are printed.
* ``sentences``: new sentences of one-piece words for the Enter of bench_app and bench_clicks.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harness

# the harness of the browser tests: its Chromium, window, server and ports; benches import them from here
from harness import (  # noqa: F401
    CHROMIUM,
    CHROMIUM_ARGS,
    SERVER_ENV,
    STREAMLIT_FLAGS,
    VIEWPORT,
    free_port,
    process_group,
)

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024

# --------------------------------------------------------------------------- servers


def http_ok(url: str, timeout: float = 2.0) -> bool:
    """True when ``url`` answers 200 within ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


@dataclass
class Server:
    """One Streamlit server. ``start()`` spawns it (the clock ``t_spawn`` starts just before),
    ``wait_health()`` waits for /_stcore/health (``t_health``), ``stop()`` ends its process group.

    ``script`` is relative to ``cwd`` (the repo root, or a worktree of another commit);
    ``timed=True`` runs ``python -m bench.st_timed run <script>`` with ``BENCH_RUNS_LOG=runs_log``
    (and ``BENCH_PROFILE_DIR=profile_dir``), so every script run is logged; ``launch=True`` runs
    ``python -m attention_ui.launch <script>`` (what serve.sh and scripts/start.py run: it warms
    the server as it starts).
    """

    name: str = "app"
    script: str = "app.py"
    cwd: Path = ROOT
    timed: bool = False
    launch: bool = False
    runs_log: Path | None = None
    profile_dir: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen | None = None
    t_spawn: float = 0.0
    t_health: float = 0.0
    _log: Any = None  # the log file (a NamedTemporaryFile)
    _running: contextlib.ExitStack | None = None  # the process_group block of the running server

    @property
    def url(self) -> str:
        """The base URL, with a trailing slash."""
        return f"http://127.0.0.1:{self.port}/"

    @property
    def pid(self) -> int:
        assert self.proc is not None, "the server was not started"
        return self.proc.pid

    def start(self) -> Server:
        self.port = self.port or free_port()  # a port given: the same server started again
        self._log = tempfile.NamedTemporaryFile(prefix=f"bench-{self.name}-", suffix=".log", delete=False)
        env = {k: v for k, v in os.environ.items() if k != "ATTENTION_LAB_MODEL"}  # the bundled model
        env.update(SERVER_ENV)
        env.pop("BENCH_RUNS_LOG", None)
        env.pop("BENCH_PROFILE_DIR", None)
        if self.timed:
            runner = [sys.executable, "-m", "bench.st_timed", "run", self.script]
            if self.runs_log is not None:
                env["BENCH_RUNS_LOG"] = str(self.runs_log)
            if self.profile_dir is not None:
                env["BENCH_PROFILE_DIR"] = str(self.profile_dir)
            if self.cwd != ROOT:  # bench.st_timed comes from this checkout, the app from cwd
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        elif self.launch:
            runner = [sys.executable, "-m", "attention_ui.launch", self.script]
        else:
            runner = [sys.executable, "-m", "streamlit", "run", self.script]
        env.update(self.env)
        cmd = [*runner, "--server.port", str(self.port), *STREAMLIT_FLAGS]
        self.t_spawn = time.perf_counter()
        self._running = contextlib.ExitStack()
        self.proc = self._running.enter_context(
            process_group(
                cmd, cwd=self.cwd, env=env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        )
        return self

    def wait_health(self, timeout: float = 120.0, poll: float = 0.05) -> None:
        """Until /_stcore/health answers 200; RuntimeError (with the log) if the server dies or
        does not answer within ``timeout`` seconds."""
        deadline = time.perf_counter() + timeout
        proc = self.proc
        assert proc is not None, "the server was not started"
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{self.name}: streamlit exited ({proc.returncode}):\n{self.log_tail()}")
            if http_ok(self.url + "_stcore/health", timeout=1.0):
                self.t_health = time.perf_counter()
                return
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{self.name}: no answer on /_stcore/health in {timeout:.0f} s:\n{self.log_tail()}")
            time.sleep(poll)

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return Path(self._log.name).read_text(errors="replace")[-chars:]
        except (OSError, AttributeError):
            return ""

    def stop(self) -> None:
        """Stop its process group (``harness.process_group``: nothing of it outlives the bench)."""
        if self._running is not None:
            self._running.close()
            self._running = None
        if self._log is not None:
            self._log.close()
            with contextlib.suppress(OSError):
                os.unlink(self._log.name)
            self._log = None


@contextlib.contextmanager
def streamlit_server(script: str = "app.py", *, timeout: float = 180.0, **kwargs) -> Iterator[Server]:
    """A started, healthy ``Server`` for the ``with`` block; stopped afterwards, whatever happens."""
    server = Server(script=script, **kwargs)
    try:
        server.start()
        server.wait_health(timeout)
        yield server
    finally:
        server.stop()


def on_sigterm_exit() -> None:
    """Let SIGTERM (e.g. from ``timeout``) unwind through ``finally`` blocks, which stop the servers."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


# --------------------------------------------------------------------------- Chromium


def require_chromium() -> None:
    if not os.access(CHROMIUM, os.X_OK):
        sys.exit(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")


@contextlib.contextmanager
def chromium():
    """The harness's Chromium (``harness.launch_browser``), after saying plainly when it is not
    installed: ``with chromium() as browser``."""
    require_chromium()
    with harness.launch_browser() as browser:
        yield browser


@contextlib.asynccontextmanager
async def chromium_async():
    """The same through Playwright's async API: ``async with chromium_async() as browser``."""
    require_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            with contextlib.suppress(Exception):
                await browser.close()


def idle_js() -> str:
    """The harness's "the app is idle" (``harness.IDLE_JS``), its selectors written in."""
    return harness.js(harness.IDLE_JS)


def __getattr__(name: str):
    """``IDLE_JS`` for the benches that import it: made when first asked for, since the
    selectors come from ``attention_ui.internals``, which loads Streamlit (this module must not)."""
    if name == "IDLE_JS":
        return idle_js()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _idle_and(predicate_js: str | None) -> str:
    if predicate_js is None:
        return idle_js()
    return f"(arg) => ({idle_js()})() && ({predicate_js})(arg)"


def wait_idle(page, timeout: float = 120.0, settle: float = 0.0, predicate_js: str | None = None, arg=None) -> None:
    """Until the app is idle (and ``predicate_js(arg)`` is true), Playwright's sync API.

    ``settle`` > 0: check again ``settle`` s later, twice, so that a rerun that starts just
    after a click (the attribute may still read "notRunning" for a moment) is waited for too.
    Raises Playwright's TimeoutError after ``timeout`` seconds."""
    page.wait_for_selector(harness.testid("stApp"), timeout=timeout * 1000)
    js = _idle_and(predicate_js)
    checks = 3 if settle > 0 else 1
    for n in range(checks):
        page.wait_for_function(js, arg=arg, timeout=timeout * 1000, polling=100)
        if n < checks - 1:
            page.wait_for_timeout(settle * 1000)


async def wait_idle_async(
    page, timeout: float = 120.0, predicate_js: str | None = None, arg=None, polling: str | float = 100
) -> None:
    """``wait_idle`` (without the settle) for Playwright's async API."""
    await page.wait_for_function(_idle_and(predicate_js), arg=arg, timeout=timeout * 1000, polling=polling)


def under_streamlit() -> bool:
    """True when this process is a Streamlit server running a script: a bench that is also the
    app it drives (``bench_draw``, ``bench_margins``) draws its page then, and drives it otherwise."""
    try:
        from streamlit.runtime import exists
    except ImportError:
        return False
    return exists()


# --------------------------------------------------------------------------- percentiles


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q``-th percentile (0–100) of ``values``, linear between the closest ranks
    (NumPy's default); NaN values are left out; NaN for no values.

    >>> percentile([1, 2, 3, 4], 50), percentile([1, 2, 3, 4], 95), percentile([], 50)
    (2.5, 3.85, nan)
    """
    xs = sorted(x for x in values if x == x)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q / 100.0
    lo = math.floor(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def p50(values: Iterable[float]) -> float:
    return percentile(values, 50)


def p95(values: Iterable[float]) -> float:
    return percentile(values, 95)


# --------------------------------------------------------------------------- process trees (/proc, Linux)


def tree_pids(pid: int) -> list[int]:
    """``pid`` and all its descendants (those still alive)."""
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        if not os.path.exists(f"/proc/{p}"):
            continue
        pids.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return pids


def status_kb(pid: int, key: str) -> int:
    """One kB field of /proc/<pid>/status (VmRSS, VmHWM, …); 0 if the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def tree_rss_bytes(pid: int) -> int:
    """Resident memory of the tree now."""
    return sum(status_kb(p, "VmRSS") for p in tree_pids(pid)) * 1024


def tree_hwm_bytes(pid: int) -> int:
    """Sum of the kernel's peak resident memory (VmHWM) over the tree: its peak RSS."""
    return sum(status_kb(p, "VmHWM") for p in tree_pids(pid)) * 1024


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds used so far by the tree (from /proc/<pid>/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in tree_pids(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total / ticks


def settle_rss(pid: int, seconds: float = 3.0) -> int:
    """The tree's RSS after ``seconds`` of quiet (median of five reads 0.2 s apart)."""
    time.sleep(seconds)
    reads = []
    for _ in range(5):
        reads.append(tree_rss_bytes(pid))
        time.sleep(0.2)
    return sorted(reads)[2]


class RssSampler(threading.Thread):
    """The largest tree RSS seen (since start or the last ``reset``), every ``interval`` s,
    over one or several process trees (``pids``: e.g. each app process behind a proxy)."""

    def __init__(self, pids: int | Sequence[int], interval: float = 0.1):
        super().__init__(daemon=True)
        self.pids = [pids] if isinstance(pids, int) else list(pids)
        self.interval = interval
        self.peaks = {p: 0 for p in self.pids}
        self._halt = threading.Event()

    @property
    def peak(self) -> int:
        return sum(self.peaks.values())

    def run(self) -> None:
        while not self._halt.is_set():
            for p in self.pids:
                self.peaks[p] = max(self.peaks[p], tree_rss_bytes(p))
            self._halt.wait(self.interval)

    def reset(self) -> None:
        self.peaks = {p: tree_rss_bytes(p) for p in self.pids}

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=2)


def pin(server_pid: int, server_cpus: list[int], client_cpus: list[int]) -> str:
    """Put the server's threads on ``server_cpus`` and this process (and what it starts later,
    e.g. Chromium) on ``client_cpus``, so that server and clients do not share a core.

    A classroom's learners each draw their page on their own laptop; on one benchmark machine
    the clients would otherwise take the server's CPU. Returns a description for the report.
    Example: ``pin(server.pid, [0], [1])`` on a 2-core machine.
    """
    if not server_cpus:
        return "server and clients share all CPUs"
    for p in tree_pids(server_pid):
        for task in os.listdir(f"/proc/{p}/task"):
            os.sched_setaffinity(int(task), set(server_cpus))
    if client_cpus:
        os.sched_setaffinity(0, set(client_cpus))
    return f"server on CPUs {server_cpus}, clients on {client_cpus or 'all'}"


# --------------------------------------------------------------------------- sentences (bench_app, bench_clicks)

# Common lower-case English words; only those that are a single token of the bundled model's
# vocabulary are used (checked against its vocab.txt), so 20 words = 20 tokens on both apps.
WORDS = """
the a cat dog sat on mat because it was tired big small red blue green house tree river
mountain city road car train bird fish apple bread water milk coffee tea sun moon star sky
rain snow wind fire stone garden window door table chair book paper pen letter music song
dance game ball team player teacher student school class lesson story word name friend family
mother father sister brother child baby man woman king queen doctor farmer market shop money
price gold silver iron wood glass paint color light dark night morning evening day week month
year summer winter spring autumn old new young happy sad quick slow long short warm cold hot
soft hard open close walk run jump swim fly sing read write speak listen look watch see hear
think know learn teach build make take give find keep hold bring carry send buy sell pay eat
drink sleep wake sit stand fall rise grow plant field farm forest lake sea ship boat island
bridge tower castle village street corner park zoo lion tiger horse cow sheep goat mouse
""".split()


def word_pool() -> list[str]:
    """The words of ``WORDS`` that are one piece of the bundled model's vocabulary."""
    vocab = None
    try:
        from attention_core.model_files import bundled_path

        with open(bundled_path() / "vocab.txt", encoding="utf-8") as f:
            vocab = {line.rstrip("\n") for line in f}
    except (OSError, RuntimeError):  # RuntimeError: ModelUnavailable, no bundled model
        pass
    pool = list(dict.fromkeys(w for w in WORDS if vocab is None or w in vocab))
    return pool


def sentences(n: int, seed: int, n_tokens: int = 20) -> list[list[str]]:
    """``n`` different ``n_tokens``-word sentences (lists of words), each one token of the model's vocabulary."""
    pool, rng = word_pool(), random.Random(seed)
    out: list[list[str]] = []
    seen: set[str] = set()
    while len(out) < n:
        words = [rng.choice(pool) for _ in range(n_tokens)]
        key = " ".join(words)
        if key not in seen:
            seen.add(key)
            out.append(words)
    return out


# --------------------------------------------------------------------------- printing


def table(headers: Sequence[str], rows: Iterable[Sequence], title: str | None = None) -> str:
    """A plain-text table: the first column left-aligned, the others right-aligned; floats
    with three decimals, None as "-". Returned (and not printed) so a caller can add to it."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(_width(h), *(_width(r[n]) for r in cells)) for n, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        out = []
        for n, v in enumerate(values):
            pad = " " * (widths[n] - _width(v))
            out.append(v + pad if n == 0 else pad + v)
        return "  ".join(out).rstrip()

    text = [title] if title else []
    text += [line(headers), "  ".join("-" * w for w in widths)]
    text += [line(r) for r in cells]
    return "\n".join(text)


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return "nan" if v != v else f"{v:.3f}"
    return str(v)


def _width(text: str) -> int:
    """Terminal columns of ``text`` (a CJK character takes two)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0x2E7F)


def commit() -> str:
    """The checkout's commit (``git rev-parse --short HEAD``, read only), or "n/a"."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        return out.stdout.strip() or "n/a"
    except OSError:
        return "n/a"


def machine() -> str:
    """One line about the machine, for every report: cores, load average, commit."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"machine: {os.cpu_count()} cores, load average {load} (other work inflates every time); "
        f"Python {sys.version.split()[0]}; commit {commit()}"
    )


# --------------------------------------------------------------------------- Chromium traces

TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink.user_timing"]
KINDS = {  # trace event name -> what it is
    "script": ("FunctionCall", "EvaluateScript", "v8.compile", "v8.compileModule", "RunMicrotasks", "TimerFire",
               "FireAnimationFrame", "EventDispatch", "V8.Execute", "v8.callFunction", "v8.run", "XHRReadyStateChange",
               "FireIdleCallback", "v8.evaluateModule", "ParseScriptOnBackground", "V8.CompileCode"),
    "style": ("UpdateLayoutTree", "RecalculateStyles", "ParseAuthorStyleSheet", "ScheduleStyleRecalculation"),
    "layout": ("Layout", "UpdateLayout", "InvalidateLayout"),
    "paint": ("Paint", "PrePaint", "Layerize", "UpdateLayer", "UpdateLayerTree", "CompositeLayers", "Commit",
              "PaintImage", "Decode Image", "RasterTask", "PaintSetup"),
    "gc": ("MinorGC", "MajorGC", "V8.GCScavenger", "V8.GCFinalizeMC", "V8.GCIncrementalMarking", "BlinkGC.AtomicPhase",
           "V8.GC_MC_BACKGROUND_MARKING", "CppGC.IncrementalSweep", "V8.GCCompactor", "BlinkGC.IncrementalSweep"),
    "parse": ("ParseHTML",),
}  # fmt: skip
KIND_OF = {name: kind for kind, names in KINDS.items() for name in names}


def main_thread_time(trace: bytes) -> dict:
    """Self time (s) of a Chromium trace's busiest renderer main thread, by kind and by event name.

    Every complete event ("X") on that thread, minus the events nested in it; a kind groups
    event names (``KINDS``): script, style, layout, paint, gc, parse, other (the rest, e.g. the
    tasks' own time)."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    mains = {
        (e["pid"], e["tid"]) for e in events if e.get("ph") == "M" and e.get("args", {}).get("name") == "CrRendererMain"
    }
    per_thread: dict[tuple, list] = {}
    for e in events:
        if e.get("ph") == "X" and (e.get("pid"), e.get("tid")) in mains and "dur" in e:
            per_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    if not per_thread:
        return {"kinds": {}, "names": {}}
    busiest = max(per_thread.values(), key=lambda es: sum(e["dur"] for e in es if e.get("name") == "RunTask"))
    busiest.sort(key=lambda e: (e["ts"], -e["dur"]))
    names: dict[str, float] = {}
    stack: list[list] = []  # [end, name, child time]

    def close(until: float) -> None:
        while stack and stack[-1][0] <= until:
            end, name, children, dur = stack.pop()
            names[name] = names.get(name, 0.0) + (dur - children) / 1e6

    for e in busiest:
        close(e["ts"])
        if stack:
            stack[-1][2] += e["dur"]
        stack.append([e["ts"] + e["dur"], e["name"], 0.0, e["dur"]])
    close(float("inf"))
    kinds: dict[str, float] = {}
    for name, secs in names.items():
        kind = KIND_OF.get(name, "other")
        kinds[kind] = kinds.get(kind, 0.0) + secs
    return {"kinds": kinds, "names": names}
