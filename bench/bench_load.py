"""A class at once: 20 browser sessions on one Streamlit server, each with its own sentence.

    python bench/bench_load.py                 # 20 sessions, toy embedder and real model (~3-6 min)
    python bench/bench_load.py --sessions 10 --modes toy

One server (started like tests/browser/harness.py does: ``python -m streamlit run app.py
--server.headless true --server.port <free> --server.address 127.0.0.1 --server.fileWatcherType
none``, HF_HUB_OFFLINE=1, from the repo root) and one Debian Chromium with one browser context
per session (own cookies, own websocket, own Streamlit session), driven by Playwright's async API.

For each mode ("toy": ?toy=true, the 8-d toy embedder; "model": the bundled all-MiniLM-L6-v2
word embeddings, the app's default):

(1) Single user. One session opens /step_by_step, types a sentence, presses Enter, picks its
    query token i, and clicks Next through all steps; ``--single-reps`` times with different
    sentences. This is the reference time, measured in the same run on the same machine.
(2) N sessions at once. N contexts open /step_by_step together; when all are loaded, all type
    their own sentence and press Enter at the same moment (a barrier), then each picks its own
    token i and steps through as fast as its pages update ("flat out"). With ``--think MIN MAX``
    ("class pace") every session first waits a random MIN-MAX seconds before each action, Enter
    included, as learners reading each step do.
    ``--server-cpus 0 --client-cpus 1`` puts the server and the browsers on different cores.
    ``--browsers K``: only K of the N sessions are Chromium pages (and only they are timed);
    the other N − K are bench_server.py's protocol learners, walking the same lesson with
    the same pace and checks but drawing nothing. The server carries all N, while the
    machine draws K pages: what a learner sees on their own laptop while the class works.

Times. "Enter": from pressing Enter until the page is idle (script not running, nothing stale)
AND the token picker shows exactly this session's tokens. "Step": from a click (token or Next)
until the page is idle AND the step indicator / picked token show the new state. The page is
polled with requestAnimationFrame (or every ``--poll`` ms); no settle delay is added.

Correctness, every session, every run: the sentence box and ?sentence= hold its own sentence;
the token picker lists exactly the tokens of ``build_lesson(sentence, embedder, LessonSettings())``
computed here with attention_core (ToyEmbedder(dim=8) or ModelEmbedder(), the app's defaults);
on the softmax step the weights bar equals ``explain(trace, i).weights`` and on the last step
the b_i markers equal ``explain(trace, i).output`` (atol 1e-9); no exception box, no page error.
A session that saw another session's numbers is a failure and is printed.

Memory. The server's resident memory (VmRSS of its process tree, sampled every 50 ms from
/proc, plus the kernel's VmHWM) is read idle with one session connected after (1), and with N
sessions connected after (2); the growth per extra session is (RSS_N − RSS_1) / (N − 1), both
for the steady value (all sessions finished, still connected) and for the peak while they ran.

(3) Finally one session opens /real_model, which loads torch and the full model: the server's
    RSS before and after says what a deployment needs with every page in use.

Targets: growth < 5 MB per extra session; p95 of Enter→updated page < 3× the single-user p95.
This script prints figures; it asserts nothing about time. On a 2-core machine the browser's
20 pages compete with the server for the CPU, which inflates the concurrent times: on 2026-12-04,
with the server pinned to one core and the 20 pages to the other, the server used 8 s of CPU in
220 s while the pages' core was full. The server's own time under 20 sessions is measured by
bench_server.py, whose clients do not draw pages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import numpy as np  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, streamlit_server  # noqa: E402
from proctree import RssSampler, pin, tree_cpu_s, tree_hwm_bytes, tree_rss_bytes  # noqa: E402 - bench/

from attention_core import LessonSettings, ToyEmbedder, build_lesson, explain  # noqa: E402

MIB = 1024 * 1024
POLLING: str | float = "raf"  # how often a waiting page is checked: every animation frame, or --poll ms
TIMEOUT_MS = 600_000  # a loaded 2-core machine with 20 pages can take minutes
# Words that are one token for the toy tokenizer and for the model's (lower case, in its vocabulary).
WORDS = (
    "the a cat dog bird fish sat ran jumped slept on under near the mat tree house river because it "
    "was tired hungry happy big small red blue old young teacher student book letter wrote read quickly "
    "slowly every morning night city garden"
).split()

IDLE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')) return false;
  for (const c of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    const plot = c.querySelector('.js-plotly-plot');
    if (!plot || !plot.data || !plot._fullLayout) return false;
  }
  return true;
}"""

# The token picker's labels ("0: the", ...) and which one is checked.
PICKER = """() => [...document.querySelectorAll('[data-testid="stMain"] .st-key-token_picker button')]
  .map(b => [b.innerText.trim(), b.getAttribute('aria-checked') === 'true'])"""

PROGRESS = """() => { const p = document.querySelector('[data-testid="stProgress"]'); return p ? p.innerText : ''; }"""

FIGURES = """() => [...document.querySelectorAll('.js-plotly-plot')].map(el => (el.data || []).map(t => {
  const clean = v => (v && ArrayBuffer.isView(v)) ? Array.from(v) : Array.isArray(v) ? v.map(clean)
              : (v && typeof v === 'object' && 'bdata' in v) ? clean(v._inputArray) : v;
  return {type: t.type, y: clean(t.y)};
}))"""


# --------------------------------------------------------------------------- server memory


def settle_rss(pid: int, seconds: float = 3.0) -> int:
    """The tree RSS after the server has been idle for ``seconds`` (median of a few reads)."""
    time.sleep(seconds)
    reads = []
    for _ in range(5):
        reads.append(tree_rss_bytes(pid))
        time.sleep(0.2)
    return int(statistics.median(reads))


# --------------------------------------------------------------------------- one session


@dataclass
class Expected:
    sentence: str
    tokens: list[str]
    i: int
    weights: np.ndarray  # (T,) α̂_ij of the picked token
    output: np.ndarray  # (d_v,) b_i


@dataclass
class SessionResult:
    name: str
    enter_s: float = float("nan")
    step_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    checked: int = 0  # how many number checks passed
    notes: list[str] = field(default_factory=list)  # odd but not wrong


def expected_for(sentence: str, embedder, i: int) -> Expected:
    lesson = build_lesson(sentence, embedder, LessonSettings())
    e = explain(lesson.trace, i)
    return Expected(sentence, lesson.tokens, i, e.weights, e.output)


async def wait_until(page, predicate_js: str, arg=None) -> None:
    """Until the app is idle and ``predicate_js(arg)`` is true (polled every animation frame)."""
    js = f"(arg) => ({IDLE})() && ({predicate_js})(arg)"
    await page.wait_for_function(js, arg=arg, timeout=TIMEOUT_MS, polling=POLLING)


TOKENS_ARE = """(want) => { const got = [
  ...document.querySelectorAll('[data-testid="stMain"] .st-key-token_picker button')]
  .map(b => b.innerText.trim());
  return got.length === want.length && got.every((g, n) => g === want[n]); }"""
PICKED_IS = """(label) => [...document.querySelectorAll('[data-testid="stMain"] .st-key-token_picker button')]
  .some(b => b.innerText.trim() === label && b.getAttribute('aria-checked') === 'true')"""
STEP_IS = """(n) => { const p = document.querySelector('[data-testid="stProgress"]');
  const m = p && p.innerText.match(/(\\d+)\\D+(\\d+)/); return !!m && Number(m[1]) === n; }"""


async def check_figures(page, exp: Expected, step: int, total: int, result: SessionResult) -> None:
    """On the softmax step the weights bar, on the last step the b_i markers: this session's numbers."""
    figures = await page.evaluate(FIGURES)
    T = len(exp.tokens)
    if step == total - 1:  # last step: contributions + the b_i markers (a scatter trace)
        outs = [f[-1]["y"] for f in figures if len(f) == T + 1 and f[-1]["type"] == "scatter"]
        if not outs or not np.allclose(outs[0], exp.output, atol=1e-9):
            result.errors.append(
                f"step {step + 1}: b_{exp.i} shown {outs[:1]} != expected {exp.output.round(6).tolist()}"
            )
        else:
            result.checked += 1
    bars = [f[0]["y"] for f in figures if len(f) == 1 and f[0]["type"] == "bar" and len(f[0]["y"]) == T]
    weight_bars = [y for y in bars if abs(sum(y) - 1.0) < 1e-9 and min(y) >= 0]
    if weight_bars:  # the softmax step
        if not np.allclose(weight_bars[0], exp.weights, atol=1e-9):
            result.errors.append(
                f"step {step + 1}: weights shown {np.round(weight_bars[0], 6).tolist()} "
                f"!= expected {exp.weights.round(6).tolist()} (another session's numbers?)"
            )
        else:
            result.checked += 1


async def open_session(browser, base: str, mode: str, name: str):
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)  # clicks wait too when 20 pages share two cores
    page = await context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    url = base + "step_by_step?lang=en" + ("&toy=true" if mode == "toy" else "")
    await page.goto(url, timeout=TIMEOUT_MS)
    await page.wait_for_selector('[data-testid="stApp"]', timeout=TIMEOUT_MS)
    await wait_until(page, "() => document.querySelector('[data-testid=\"stProgress\"]') !== null")
    return context, page


async def drive(page, exp: Expected, result: SessionResult, start: asyncio.Event | None = None, think=None) -> None:
    """Type the sentence (timed), pick token i (timed), Next to the end (each timed), check numbers.

    ``think()``, if given, is a learner's reading time in seconds, waited before every action.
    """

    async def pause() -> None:
        if think is not None:
            await asyncio.sleep(think())

    box = page.locator('[data-testid="stSidebar"] input[type="text"]').first
    await box.fill(exp.sentence)
    if start is not None:
        await start.wait()
    await pause()
    t0 = time.perf_counter()
    await box.press("Enter")
    want = [f"{n}: {tok}" for n, tok in enumerate(exp.tokens)]
    await wait_until(page, TOKENS_ARE, want)
    result.enter_s = time.perf_counter() - t0
    if await box.input_value() != exp.sentence:
        result.errors.append(f"the sentence box shows {await box.input_value()!r}")
    if f"sentence={exp.sentence.split()[0]}" not in page.url:  # the address bar may follow the page late
        seen, t_url = page.url, time.perf_counter()
        try:
            await page.wait_for_url(f"**sentence={exp.sentence.split()[0]}*", timeout=10_000)
            result.notes.append(f"the URL showed the sentence {time.perf_counter() - t_url:.2f} s after the page")
        except Exception:
            result.errors.append(f"the URL lost the sentence: {seen}, still {page.url} 10 s later")
    if exp.i:
        await pause()
        t0 = time.perf_counter()
        await page.locator('[data-testid="stMain"] .st-key-token_picker button').nth(exp.i).click()
        await wait_until(page, PICKED_IS, want[exp.i])
        result.step_s.append(time.perf_counter() - t0)
    text = await page.evaluate(PROGRESS)
    import re

    m = re.search(r"(\d+)\D+(\d+)", text)
    step, total = (int(m.group(1)) - 1, int(m.group(2))) if m else (0, 7)
    next_button = page.locator('[data-testid="stMain"] button').filter(has_text="Next")
    while step < total - 1:
        await pause()
        t0 = time.perf_counter()
        await next_button.click()
        await wait_until(page, STEP_IS, step + 2)
        result.step_s.append(time.perf_counter() - t0)
        step += 1
        await check_figures(page, exp, step, total, result)
        picked = await page.evaluate(PICKER)
        if [lab for lab, _ in picked] != want or not picked[exp.i][1]:
            result.errors.append(f"step {step + 1}: the picker shows {picked}")
    boxes = await page.locator('[data-testid="stException"]').all_inner_texts()
    result.errors += [f"exception box: {b[:300]}" for b in boxes]
    result.errors += [f"page error: {e[:300]}" for e in page.js_errors]
    if result.checked < 2:
        result.errors.append(f"only {result.checked} of the 2 number checks ran")


# --------------------------------------------------------------------------- the runs


def sentence_for(k: int, n_words: int = 8) -> str:
    """A different sentence for every k (the same k gives the same sentence)."""
    rng = np.random.default_rng(1000 + k)
    return " ".join(rng.choice(WORDS, size=n_words))


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


async def open_peers(base: str, mode: str, embedder, numbers) -> list:
    """Protocol sessions (bench_server.py's websocket learners) for session numbers ``numbers``:
    they load the server as learners do, with their numbers checked, but draw no page."""
    import bench_server as peer  # bench_server imports this module: imported here, not at the top

    query = "lang=en" + ("&toy=true" if mode == "toy" else "")
    peers = []
    for s in numbers:
        session, answer = await peer.Session.open(base, query)
        learner = peer.Learner(f"{mode}-{s} (protocol)", expected_for(sentence_for(s), embedder, i=s % 8))
        learner.errors += answer.exceptions
        peers.append((session, learner))
    return peers


async def run_mode(
    browser,
    server,
    sampler: RssSampler,
    mode: str,
    embedder,
    n_sessions: int,
    single_reps: int,
    think=None,
    browsers: int | None = None,
):
    base = server.url
    pid = server.process.pid
    out = {"mode": mode}

    # (1) single user, in the same run
    single: list[SessionResult] = []
    context, page = await open_session(browser, base, mode, f"{mode}-single")
    for rep in range(single_reps + 1):  # the first is a warm-up (caches, first figures)
        k = 500 + rep
        exp = expected_for(sentence_for(k), embedder, i=rep % 8)
        res = SessionResult(f"{mode}-single-{rep}")
        sampler.reset()
        await drive(page, exp, res)
        if rep:
            single.append(res)
        await page.goto(base + "step_by_step?lang=en" + ("&toy=true" if mode == "toy" else ""), timeout=TIMEOUT_MS)
        await wait_until(page, "() => document.querySelector('[data-testid=\"stProgress\"]') !== null")
    rss_1 = settle_rss(pid)
    sampler.reset()
    exp = expected_for(sentence_for(999), embedder, i=3)
    res = SessionResult(f"{mode}-single-peak")
    await drive(page, exp, res)
    single.append(res)
    peak_1 = sampler.peak
    await context.close()

    # (2) n sessions at once: `browsers` of them in Chromium, the others as protocol peers
    from bench_server import walk as peer_walk  # bench_server imports this module: imported here

    n_pages = n_sessions if browsers is None else browsers
    opened = await asyncio.gather(*[open_session(browser, base, mode, f"{mode}-{s}") for s in range(n_pages)])
    peers = await open_peers(base, mode, embedder, range(n_pages, n_sessions))
    peer_results: list[SessionResult] = []
    rss_open = settle_rss(pid, 2.0)
    start = asyncio.Event()
    results = [SessionResult(f"{mode}-{s}") for s in range(n_pages)]
    expected = [expected_for(sentence_for(s), embedder, i=s % 8) for s in range(n_pages)]
    sampler.reset()
    cpu_before = tree_cpu_s(pid)
    tasks = [asyncio.create_task(drive(p, e, r, start, think)) for (_, p), e, r in zip(opened, expected, results)]
    tasks += [asyncio.create_task(peer_walk(session, learner, think, start)) for session, learner in peers]
    await asyncio.sleep(1.0)  # every session has filled its box
    t0 = time.perf_counter()
    start.set()
    done = await asyncio.gather(*tasks, return_exceptions=True)
    wall = time.perf_counter() - t0
    for r, d in zip(results, done):
        if isinstance(d, BaseException):
            r.errors.append(f"{type(d).__name__}: {d}")
    for (_, learner), d in zip(peers, done[n_pages:]):
        result = SessionResult(learner.name, checked=learner.checked, errors=learner.errors)
        if isinstance(d, BaseException):
            result.errors.append(f"{type(d).__name__}: {d}")
        peer_results.append(result)
    peak_n = sampler.peak
    server_cpu = tree_cpu_s(pid) - cpu_before
    reruns = sum(1 + len(r.step_s) for r in results) + sum(learner.runs for _, learner in peers)
    rss_n = settle_rss(pid)
    hwm = tree_hwm_bytes(pid)
    for context, _ in opened:
        await context.close()
    for session, _ in peers:
        await session.close()

    everyone = single + results + peer_results
    single_enter = [r.enter_s for r in single]
    single_step = [s for r in single for s in r.step_s]
    many_enter = [r.enter_s for r in results if r.enter_s == r.enter_s]
    many_step = [s for r in results for s in r.step_s]
    out.update(
        sessions=n_sessions,
        pages=n_pages,
        wall_s=wall,
        pace="flat out" if think is None else "class pace",
        single_enter_median=statistics.median(single_enter),
        single_enter_p95=pct(single_enter, 95),
        single_step_median=statistics.median(single_step),
        single_step_p95=pct(single_step, 95),
        many_enter_median=statistics.median(many_enter) if many_enter else float("nan"),
        many_enter_p95=pct(many_enter, 95),
        many_step_median=statistics.median(many_step) if many_step else float("nan"),
        many_step_p95=pct(many_step, 95),
        rss_1=rss_1,
        rss_open=rss_open,
        rss_n=rss_n,
        peak_1=peak_1,
        peak_n=peak_n,
        hwm=hwm,
        per_session_steady=(rss_n - rss_1) / max(n_sessions - 1, 1),
        per_session_peak=(peak_n - peak_1) / max(n_sessions - 1, 1),
        server_cpu_s=server_cpu,
        reruns=reruns,
        errors=[(r.name, e) for r in everyone for e in r.errors],
        notes=[(r.name, e) for r in everyone for e in r.notes],
        checks=sum(r.checked for r in everyone),
    )
    return out


def report(runs: list[dict], pinning: str = "") -> None:
    print()
    for r in runs:
        n = r["sessions"]
        who = "" if r["pages"] == n else f" ({r['pages']} in Chromium, timed; {n - r['pages']} protocol peers)"
        print(
            f"== mode {r['mode']}: {n} sessions at once{who}, {r['pace']} (wall {r['wall_s']:.1f} s from the shared "
            f"Enter to the last session's last step)"
        )
        print(
            f"  Enter -> updated page  single user: median {r['single_enter_median']:.2f} s, "
            f"p95 {r['single_enter_p95']:.2f} s | {n} sessions: median {r['many_enter_median']:.2f} s, "
            f"p95 {r['many_enter_p95']:.2f} s  -> p95 ratio {r['many_enter_p95'] / r['single_enter_p95']:.1f}x "
            f"(target < 3x)"
        )
        print(
            f"  click -> updated step single user: median {r['single_step_median']:.2f} s, "
            f"p95 {r['single_step_p95']:.2f} s | {n} sessions: median {r['many_step_median']:.2f} s, "
            f"p95 {r['many_step_p95']:.2f} s  -> p95 ratio {r['many_step_p95'] / r['single_step_p95']:.1f}x"
        )
        print(
            f"  server RSS  1 session: {r['rss_1'] / MIB:.0f} MB steady, peak {r['peak_1'] / MIB:.0f} MB | "
            f"{n} sessions: {r['rss_open'] / MIB:.0f} MB just opened, {r['rss_n'] / MIB:.0f} MB steady, "
            f"peak {r['peak_n'] / MIB:.0f} MB (VmHWM {r['hwm'] / MIB:.0f} MB)"
        )
        print(
            f"  per extra session: {r['per_session_steady'] / MIB:+.2f} MB steady, "
            f"{r['per_session_peak'] / MIB:+.2f} MB at peak (target < 5 MB)"
        )
        print(
            f"  server CPU while the {n} sessions ran: {r['server_cpu_s']:.1f} s for {r['reruns']} reruns = "
            f"{r['server_cpu_s'] / max(r['reruns'], 1):.2f} s per rerun (one Python process: script runs share "
            f"the GIL, so {n} simultaneous Enters wait about {n} x that for the last one)"
        )
        print(f"  number checks passed: {r['checks']}; errors: {len(r['errors'])}")
        for name, e in r["errors"][:20]:
            print(f"    {name}: {e}")
        for name, e in r["notes"][:20]:
            print(f"    note, {name}: {e}")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(
        f"\nmachine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
        "(other work on the machine inflates every time); "
        f"commit {commit.stdout.strip() or 'n/a (not a git checkout)'}; "
        f"{pinning}",
        flush=True,
    )


async def main_async(args) -> list[dict]:
    from playwright.async_api import async_playwright

    runs = []
    with streamlit_server(timeout=180) as server:
        sampler = RssSampler(server.process.pid, interval=0.05)
        sampler.start()
        pinning = pin(server.process.pid, args.server_cpus, args.client_cpus)  # before Chromium starts
        print(
            f"server {server.url} pid {server.process.pid}, {pinning}, "
            f"idle RSS {tree_rss_bytes(server.process.pid) / MIB:.0f} MB",
            flush=True,
        )
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                for mode in args.modes:
                    if mode == "toy":
                        embedder = ToyEmbedder(dim=8)
                    else:
                        from attention_core.model import ModelEmbedder

                        embedder = ModelEmbedder()
                    print(f"-- {mode}: single user x{args.single_reps}, then {args.sessions} sessions", flush=True)
                    think = (lambda: random.uniform(*args.think)) if args.think else None
                    runs.append(
                        await run_mode(
                            browser,
                            server,
                            sampler,
                            mode,
                            embedder,
                            args.sessions,
                            args.single_reps,
                            think,
                            args.browsers,
                        )
                    )
                    report(runs[-1:], pinning)  # each mode's figures as soon as they are in
                if not args.no_heads:  # (3) the full model with torch, as "Real model heads" loads it
                    before = settle_rss(server.process.pid, 1.0)
                    context, page = await open_session(browser, server.url, "model", "heads")
                    await page.goto(server.url + "real_model?lang=en", timeout=TIMEOUT_MS)
                    await wait_until(page, "() => document.querySelectorAll('.js-plotly-plot').length > 0")
                    await context.close()
                    after = settle_rss(server.process.pid)
                    print(
                        f"\n== the real model's heads page once (torch and the full model loaded): server RSS "
                        f"{before / MIB:.0f} MB before, {after / MIB:.0f} MB after, VmHWM "
                        f"{tree_hwm_bytes(server.process.pid) / MIB:.0f} MB",
                        flush=True,
                    )
            finally:
                await browser.close()
                sampler.stop()
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--single-reps", type=int, default=5)
    parser.add_argument("--no-heads", action="store_true", help="skip the final Real model heads memory reading")
    parser.add_argument("--modes", nargs="+", default=["toy", "model"], choices=["toy", "model"])
    parser.add_argument(
        "--think",
        nargs=2,
        type=float,
        metavar=("MIN", "MAX"),
        help="class pace: each learner reads for a random MIN-MAX seconds before every action "
        "(default: none, every session clicks as soon as its page is updated)",
    )
    parser.add_argument(
        "--browsers",
        type=int,
        default=None,
        help="only this many of the sessions in Chromium (they are timed); the others are "
        "bench_server.py's protocol learners, which load the server but draw nothing",
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=None,
        help="check a waiting page every POLL ms instead of every animation frame: 20 pages "
        "checked 60 times a second cost the clients' CPU",
    )
    parser.add_argument("--server-cpus", type=int, nargs="*", default=[], help="pin the server to these CPUs")
    parser.add_argument(
        "--client-cpus", type=int, nargs="*", default=[], help="pin this script and its Chromium to these CPUs"
    )
    args = parser.parse_args()
    if args.browsers is not None and not 1 <= args.browsers <= args.sessions:
        parser.error(f"--browsers must be between 1 and --sessions ({args.sessions}), got {args.browsers}")
    global POLLING
    POLLING = args.poll if args.poll else "raf"
    runs = asyncio.run(main_async(args))
    return 1 if any(r["errors"] for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
