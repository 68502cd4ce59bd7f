"""What a user waits for, in a real browser: our /matrices page against a bare Streamlit app.

    python -m bench.bench_app              # 10 timed repetitions per app (~1-2 min on 2 cores)
    python -m bench.bench_app --reps 20

Both apps run in one run of this script, each on a fresh server started the same way
(``bench.core.Server``: ``python -m streamlit run <file> --server.headless true --server.port
<free port> --server.address 127.0.0.1 --server.fileWatcherType none``, HF_HUB_OFFLINE=1, from
the repo root) and driven by Playwright's sync API in Debian's Chromium.
"ours" is app.py opened at /matrices with the default real model (all-MiniLM-L6-v2); "bare" is
bench/bare_app.py: a text input and one go.Heatmap of a trivial T×T matrix.

(1) Enter → updated matrix. One warm-up, then ``--reps`` repetitions, the two apps
    interleaved (ours, bare, ours, …) so background load hits both alike. Each repetition
    types a new 20-token sentence (a different one every time; every word is one token of
    the model's vocabulary) into "Sentence", and times from pressing Enter until every matrix
    on the page has the new sentence as its row labels ("n: word", counted from 1 as the app
    shows them, with [CLS] and [SEP] around ours: the trained head's word pieces) and 20 rows,
    i.e. the new matrix is in the page. A matrix is a ``.js-plotly-plot`` heatmap (its y tick
    labels and z; the bare app's one, or ours with ``?chart=true``) or a matrix drawn as an HTML
    table (``tables.matrix_html``, not a print-only twin: its row headers and rows). Ours at
    /matrices shows 1: its open view, the weights, a table that prints every number (the views
    are lazy); the bare app 1 heatmap. ``--path matrices?chart=true`` times our Plotly heatmap.
    The page is polled with page.evaluate every ~10 ms. Median and p90. As a diagnostic, the
    time until the page first reports the script run over (data-test-script-state back to
    "notRunning") is printed too: heatmaps that arrive only as the run ends point at the
    script run, not the browser's drawing, as the time that matters.
    If the labels never match but the page is idle with every figure changed, that time is
    used instead and the repetition is flagged "idle+changed".
(2) Server start → first matrix. The browser is already running; the clock starts just
    before the server process is spawned, /_stcore/health is polled every 50 ms, the page is
    opened as soon as it answers, and the clock stops when the first matrix is visible (for
    ours the real model loads in between). The time to all matrices is printed too.
(3) Peak RSS of the server process and its children, after all of the above (model loaded):
    the kernel's high-water mark VmHWM summed over the process tree, and the largest sum of
    VmRSS seen by a sampler every 100 ms (``bench.core.RssSampler``, from /proc).

It prints a table and the targets (1) ≤ 1× bare, (2) ≤ 1.5× bare, (3) < 900 MB. It never
asserts a time. The machine may be shared: run it twice and compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.core import (
    CHROMIUM,
    IDLE_JS,
    MIB,
    VIEWPORT,
    RssSampler,
    Server,
    chromium,
    on_sigterm_exit,
    percentile,
    sentences,
    tree_hwm_bytes,
    tree_pids,
    tree_rss_bytes,
    wait_idle,
    word_pool,
)
from harness import js

POLL_S = 0.010
FALLBACK_GRACE_S = 2.0

TARGETS = {"enter": 1.0, "startup": 1.5}  # ratio ours / bare (issue 31; were 2× and 3×)
RSS_TARGET_MB = 900.0


@dataclass
class App:
    """One app under test: its server, the page opened, how many heatmaps it shows, how its
    labels are written for a sentence's words."""

    name: str
    script: str
    path: str  # URL path to open
    n_figures: int
    labels: Callable[[list[str]], list[str]]  # words -> the y tick labels its heatmaps must show
    server: Server = field(init=False)
    sampler: RssSampler | None = None
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.server = Server(name=self.name, script=self.script)

    def spawn(self) -> None:
        self.server.start()
        self.sampler = RssSampler(self.server.pid)
        self.sampler.start()

    def stop(self) -> None:
        if self.sampler is not None:
            self.sampler.stop()
        self.server.stop()


def ours_labels(words: list[str]) -> list[str]:
    """The trained head's labels: [CLS], the words (one piece each), [SEP], counted from 1."""
    from attention_ui.safe import token_labels

    return token_labels(["[CLS]", *words, "[SEP]"])


def bare_labels(words: list[str]) -> list[str]:
    return [f"{i + 1}: {w}" for i, w in enumerate(words)]


# --------------------------------------------------------------------------- the page

TABLES = ".cell-matrix-box:not(.print-only) > .cell-matrix-wrap:not(.cm-spotlight) > table"
"""A matrix drawn as an HTML table (``tables.matrix_html``) on screen: not a print twin, not a spotlight row."""

# State of every matrix (Plotly figure or HTML table): count, whether each has the expected y tick labels and z rows,
# a signature (to see that it changed), and whether the script is idle.
_STATE_JS = (
    js("""(expected) => {
  const app = document.querySelector('testid(stApp)');
  const state = app ? app.getAttribute('data-test-script-state') : null;  // a diagnostic: when the run ended
  const idle = (IDLE)();
  // z is either nested arrays or Plotly's typed-array spec {dtype, bdata, shape: "20,20"}
  const rows = z => {
    if (!z) return -1;
    if (z.shape !== undefined) {
      const shape = typeof z.shape === 'string' ? z.shape.split(',') : Array.from(z.shape);
      return parseInt(shape[0], 10);
    }
    return z.length;
  };
  const figs = [...document.querySelectorAll('.js-plotly-plot')].map(el => {
    const t = (el.data || [])[0] || {};
    const tt = (el.layout && el.layout.yaxis && el.layout.yaxis.ticktext) || [];
    const labels = Array.from(tt).map(String);
    const r = el.getBoundingClientRect();
    return {
      heatmap: t.type === 'heatmap',
      visible: r.width > 0 && r.height > 0 && !!el._fullLayout,
      match: expected !== null && labels.length === expected.length
             && labels.every((s, i) => s === expected[i]) && rows(t.z) === expected.length,
      sig: labels.join('|') + '#' + rows(t.z),
    };
  });
  const tables = [...document.querySelectorAll(TABLES)].map(el => {
    const labels = [...el.querySelectorAll('tbody th')].map(th => th.textContent);
    const r = el.getBoundingClientRect();
    return {
      heatmap: true,
      visible: r.width > 0 && r.height > 0,
      match: expected !== null && labels.length === expected.length && labels.every((s, i) => s === expected[i]),
      sig: labels.join('|') + '#' + labels.length,
    };
  });
  return {state, idle, figs: figs.concat(tables)};
}""")
    .replace("IDLE", IDLE_JS)
    .replace("TABLES", repr(TABLES))
)


def page_state(page, expected=None) -> dict | None:
    try:
        return page.evaluate(_STATE_JS, expected)
    except Exception as exc:  # navigation in progress: the execution context was replaced
        if "context" in str(exc).lower() or "navigat" in str(exc).lower():
            return None
        raise


def sentence_input(page):
    return page.get_by_label("Sentence", exact=True)


def one_update(page, server: App, words: list[str], timeout: float) -> tuple[float, str, float]:
    """Type ``words``, press Enter; seconds until all figures show them, how it was seen, and
    (a diagnostic) seconds until the page first reported the script run over."""
    expected = server.labels(words)
    before = page_state(page)
    before_sigs = [f["sig"] for f in before["figs"]] if before else []
    box = sentence_input(page)
    box.fill(" ".join(words))
    t0 = time.perf_counter()
    box.press("Enter")
    deadline = t0 + timeout
    t_fallback = t_match = t_idle = None
    seen_running = False
    while time.perf_counter() < deadline:
        s = page_state(page, expected)
        now = time.perf_counter()
        if s is not None:
            figs = s["figs"]
            seen_running = seen_running or s["state"] == "running"
            if t_idle is None and seen_running and s["state"] == "notRunning":
                t_idle = now - t0
            # the new figures drawn (a replaced one may linger hidden until the run ends)
            if t_match is None and sum(1 for f in figs if f["match"] and f["visible"]) >= server.n_figures:
                t_match = now - t0
            if t_match is not None:
                if t_idle is not None or now - t0 - t_match > FALLBACK_GRACE_S:
                    return t_match, "labels", (t_idle if t_idle is not None else float("nan"))
                time.sleep(POLL_S)
                continue
            changed = figs and len(figs) == len(before_sigs) and all(f["sig"] != b for f, b in zip(figs, before_sigs))
            if s["idle"] and changed:
                if t_fallback is None:
                    t_fallback = now - t0
                elif now - t0 - t_fallback > FALLBACK_GRACE_S:  # idle, changed, labels never matched
                    return t_fallback, "idle+changed", t_fallback
            else:
                t_fallback = None
        time.sleep(POLL_S)
    if t_fallback is not None:
        return t_fallback, "idle+changed", t_fallback
    raise TimeoutError(f"{server.name}: the figures did not show the new sentence within {timeout:.0f} s")


def startup(browser, server: App, timeout: float) -> dict:
    """Spawn the server, open the page as soon as it is healthy, time the first matrix."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(timeout * 1000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    server.spawn()
    srv = server.server
    srv.wait_health(timeout)
    page.goto(srv.url + server.path.lstrip("/"), wait_until="commit")
    deadline = time.perf_counter() + timeout
    t_first = t_all = None
    while time.perf_counter() < deadline:
        s = page_state(page)
        now = time.perf_counter()
        if s is not None:
            shown = sum(1 for f in s["figs"] if f["heatmap"] and f["visible"])
            if shown >= 1 and t_first is None:
                t_first = now
            if shown >= server.n_figures:
                t_all = now
                break
        time.sleep(POLL_S)
    if t_first is None:
        raise TimeoutError(
            f"{server.name}: no matrix within {timeout:.0f} s of health "
            f"(page text: {page.inner_text('body')[:300]!r})\n{srv.log_tail()}"
        )
    wait_idle(page, timeout, settle=0.3)
    body = page.inner_text("body")
    if server.name == "ours":
        if "all-MiniLM-L6-v2" in body:  # the honesty banner names the model whose numbers the page shows
            server.notes.append("real model in use")
        else:
            server.notes.append("WARNING: the page does not say the real model is in use")
    if errors:
        server.notes.append(f"{len(errors)} JavaScript error(s), first: {errors[0][:120]}")
    return {
        "page": page,
        "context": context,
        "health": srv.t_health - srv.t_spawn,
        "first": t_first - srv.t_spawn,
        "all": (t_all - srv.t_spawn) if t_all else float("nan"),
    }


# --------------------------------------------------------------------------- sentences, stats


def fmt_ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×" if b else "n/a"


# --------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=10, help="timed repetitions per app (default 10)")
    ap.add_argument("--seed", type=int, default=None, help="seed for the sentences (default: time-based)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds for any one wait (default 120)")
    ap.add_argument(
        "--path",
        default="matrices",
        help="our page (default matrices; matrices?chart=true: its Plotly heatmap)",
    )
    args = ap.parse_args()
    # SIGTERM (e.g. from `timeout`) unwinds through the finally blocks, which stop the servers
    on_sigterm_exit()
    t_script = time.perf_counter()

    seed = args.seed if args.seed is not None else int(time.time())
    ours = App("ours", "app.py", args.path, n_figures=1, labels=ours_labels)
    bare = App("bare", "bench/bare_app.py", "", n_figures=1, labels=bare_labels)
    servers = [ours, bare]
    pool = word_pool()
    print(
        f"bench_app: {args.reps} reps + 1 warm-up per app, 20-token sentences from "
        f"{len(pool)} single-token words (seed {seed}), {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f}; memory via /proc"
    )
    try:
        import streamlit

        print(f"Python {sys.version.split()[0]}, Streamlit {streamlit.__version__}, Chromium {CHROMIUM}")
    except ImportError:
        pass

    results: dict[str, dict] = {}
    try:
        with chromium() as browser:
            # (2) startup, one fresh server after the other (the first idles meanwhile)
            pages = {}
            for srv in servers:
                st = startup(browser, srv, args.timeout)
                pages[srv.name] = st["page"]
                results[srv.name] = {
                    "health": st["health"],
                    "first": st["first"],
                    "all": st["all"],
                    "times": [],
                    "how": [],
                    "idle": [],
                }
                print(
                    f"  {srv.name}: health {st['health']:.2f} s, first matrix {st['first']:.2f} s, "
                    f"all {srv.n_figures} matri{'x' if srv.n_figures == 1 else 'ces'} {st['all']:.2f} s",
                    flush=True,
                )
            # (1) Enter -> figures, warm-up then interleaved repetitions
            todo = sentences(args.reps + 1, seed)
            for srv in servers:
                one_update(pages[srv.name], srv, todo[0], args.timeout)
                wait_idle(pages[srv.name], args.timeout, settle=0.3)
            for i, words in enumerate(todo[1:], 1):
                line = []
                for srv in servers:
                    dt, how, idle = one_update(pages[srv.name], srv, words, args.timeout)
                    results[srv.name]["times"].append(dt)
                    results[srv.name]["idle"].append(idle)
                    results[srv.name]["how"].append(how)
                    line.append(f"{srv.name} {dt:.3f} s" + ("" if how == "labels" else f" ({how})"))
                    wait_idle(pages[srv.name], args.timeout, settle=0.3)
                print(f"  rep {i}/{args.reps}: " + ", ".join(line), flush=True)
        # (3) memory, model loaded, after everything
        for srv in servers:
            hwm = tree_hwm_bytes(srv.server.pid)
            assert srv.sampler is not None  # spawned
            srv.sampler.stop()
            results[srv.name]["hwm"] = hwm
            results[srv.name]["sampled"] = srv.sampler.peak
            results[srv.name]["rss_now"] = tree_rss_bytes(srv.server.pid)
            results[srv.name]["n_procs"] = len(tree_pids(srv.server.pid))
    finally:
        for srv in servers:
            srv.stop()

    o, b = results["ours"], results["bare"]
    peak = {k: max(r["hwm"], r["sampled"]) / MIB for k, r in results.items()}
    rows = [
        ("(1) Enter→matrix median (s)", statistics.median(o["times"]), statistics.median(b["times"])),
        ("(1) Enter→matrix p90 (s)", percentile(o["times"], 90), percentile(b["times"], 90)),
        ("(1) Enter→matrix min (s)", min(o["times"]), min(b["times"])),
        ("(1)   Enter→script run over, median (s)", statistics.median(o["idle"]), statistics.median(b["idle"])),
        ("(2) start→first matrix (s)", o["first"], b["first"]),
        ("(2)   start→/_stcore/health (s)", o["health"], b["health"]),
        ("(2)   start→all matrices (s)", o["all"], b["all"]),
        ("(3) peak RSS (MB)", peak["ours"], peak["bare"]),
        ("(3)   VmHWM sum over tree (MB)", o["hwm"] / MIB, b["hwm"] / MIB),
        ("(3)   sampled peak (MB)", o["sampled"] / MIB, b["sampled"] / MIB),
        ("(3)   RSS at the end (MB)", o["rss_now"] / MIB, b["rss_now"] / MIB),
    ]
    w = max(len(r[0]) for r in rows)
    print()
    print(f"{'metric':<{w}}  {'ours':>9}  {'bare':>9}  {'ratio':>7}")
    print(f"{'-' * w}  {'-' * 9}  {'-' * 9}  {'-' * 7}")
    for name, a, c in rows:
        print(f"{name:<{w}}  {a:>9.3f}  {c:>9.3f}  {fmt_ratio(a, c):>7}")
    print()
    r1 = statistics.median(o["times"]) / statistics.median(b["times"])
    r2 = o["first"] / b["first"]
    print("targets (from the issue):")
    print(
        f"  (1) Enter→matrix median ≤ {TARGETS['enter']:g}× bare: {r1:.2f}× "
        f"-> {'met' if r1 <= TARGETS['enter'] else 'NOT met'}"
    )
    print(
        f"  (2) start→first matrix ≤ {TARGETS['startup']:g}× bare: {r2:.2f}× "
        f"-> {'met' if r2 <= TARGETS['startup'] else 'NOT met'}"
    )
    print(
        f"  (3) peak RSS < {RSS_TARGET_MB:.0f} MB: {peak['ours']:.0f} MB "
        f"-> {'met' if peak['ours'] < RSS_TARGET_MB else 'NOT met'}"
    )
    notes = []
    for srv in servers:
        hows = results[srv.name]["how"]
        if any(h != "labels" for h in hows):
            notes.append(f"{srv.name}: {sum(h != 'labels' for h in hows)} rep(s) seen only as idle+changed")
        notes.extend(f"{srv.name}: {n}" for n in srv.notes)
        notes.append(f"{srv.name}: {results[srv.name]['n_procs']} process(es) in the server tree")
    print("notes: " + "; ".join(notes))
    print(f"load average at the end {os.getloadavg()[0]:.2f}; script took {time.perf_counter() - t_script:.1f} s")


if __name__ == "__main__":
    main()
