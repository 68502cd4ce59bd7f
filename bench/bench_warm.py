"""The first visitor of a freshly started server, with and without the warm-up at start.

    python -m bench.bench_warm                 # 3 repetitions (~5-10 min on 2 busy cores)
    python -m bench.bench_warm --reps 5 --after 20
    python -m bench.bench_warm --browser       # the first visit in Chromium instead

Issue 43: the first visitor to a freshly started server waited 5.6–8.4 s while the server read
the model, imported the pages and measured the heads. ``python -m attention_ui.launch`` now does
that in a background thread as the server starts (``attention_ui/warm.py``). Three servers, each
started fresh for every sample and stopped after it (``bench.core.Server``, from the repo root,
the bundled model, HF_HUB_OFFLINE=1), in one run, their order turned every repetition:

* cold: ``python -m streamlit run app.py`` (nothing warmed before the first visit: every start
  was so before the warm-up);
* warm: ``python -m attention_ui.launch app.py`` (what serve.sh and scripts/start.py run);
* bare: ``python -m streamlit run bench/bare_app.py`` (a text input and one go.Heatmap), the
  reference.

For each, two arrivals, each on its own fresh server: "at ready", the page opened as soon as
/_stcore/health answers (the warm-up has barely begun: this shows it does not slow the visitor
who comes first), and "later", the page opened ``--after`` seconds after that (a class that
arrives after the teacher started the server). Clock: the first visit of ours at /matrices
(bare: its one page) over Streamlit's own protocol (``bench.protocol.Client``: the page's GET,
the websocket, the script run, up to its ``script_finished``): what the server makes its first
visitor wait, without a browser's drawing, which costs every app alike and on a loaded machine
drowns the rest. With ``--browser``: from ``page.goto`` in a new Chromium context (cold HTTP
cache) to the first matrix visible (``bench_app.page_state``, polled every 10 ms). Also: spawn →
health (the server's readiness), and the server tree's resident memory after the visit.

Prints medians (and the spread) and the ratios to the bare app in the same run, with the load
average. It never asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path

from bench.bench_app import POLL_S, page_state
from bench.core import MIB, VIEWPORT, Server, chromium, machine, on_sigterm_exit, table, tree_rss_bytes

VARIANTS = {  # name → (script, URL path, launched through attention_ui.launch)
    "cold": ("app.py", "matrices", False),
    "warm": ("app.py", "matrices", True),
    "bare": ("bench/bare_app.py", "", False),
}
WARM_LINE = "warm_up "  # attention_ui.warm.WARM_LOG


def first_matrix(browser, server: Server, path: str, timeout: float) -> float:
    """Seconds from opening ``path`` in a new browser context to its first matrix on screen."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(timeout * 1000)
    try:
        page = context.new_page()
        start = time.perf_counter()
        page.goto(server.url + path, wait_until="commit")
        deadline = start + timeout
        while time.perf_counter() < deadline:
            state = page_state(page)
            if state is not None and any(f["heatmap"] and f["visible"] for f in state["figs"]):
                return time.perf_counter() - start
            time.sleep(POLL_S)
        raise TimeoutError(f"{server.name}: no matrix within {timeout:.0f} s:\n{server.log_tail()}")
    finally:
        context.close()


def first_run(server: Server, path: str, timeout: float) -> float:
    """Seconds of a first visit of ``path`` over the protocol: GET, websocket, the whole run."""
    import asyncio

    from bench.protocol import Client

    async def visit() -> float:
        client = Client(server.url, timeout=timeout)
        try:
            start = time.perf_counter()
            answer = await client.open(path)
            if answer.exceptions:
                raise RuntimeError(f"{server.name}: {answer.exceptions[0]}")
            return time.perf_counter() - start
        finally:
            await client.close()

    return asyncio.run(visit())


def warmed_after(server: Server) -> float | None:
    """The warm-up's own figure from the server's log ("warm_up 4.2 s: …"), if it has ended."""
    for line in server.log_tail(20000).splitlines():
        if WARM_LINE in line:
            return float(line.split(WARM_LINE, 1)[1].split("s", 1)[0])
    return None


def one_sample(browser, name: str, after: float, timeout: float) -> dict:
    """One fresh server of kind ``name``: started, visited once ``after`` s after it answers, stopped."""
    script, path, launch = VARIANTS[name]
    server = Server(name=name, script=script, launch=launch)
    try:
        server.start()
        server.wait_health(timeout)
        if after:
            time.sleep(after)
        first = first_matrix(browser, server, path, timeout) if browser else first_run(server, path, timeout)
        return {
            "ready": server.t_health - server.t_spawn,
            "first": first,
            "rss": tree_rss_bytes(server.pid) / MIB,
            "warmed": warmed_after(server),
        }
    finally:
        server.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="samples of each server and arrival (default 3)")
    ap.add_argument("--after", type=float, default=20.0, help="seconds after ready of the later arrival (default 20)")
    ap.add_argument("--browser", action="store_true", help="time the first visit in Chromium (first matrix shown)")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds for any one wait (default 180)")
    args = ap.parse_args()
    on_sigterm_exit()
    print(machine(), flush=True)
    t0 = time.perf_counter()
    names = list(VARIANTS)
    found: dict[tuple[str, str], list[dict]] = {(n, a): [] for n in names for a in ("at ready", "later")}
    with chromium() if args.browser else contextlib.nullcontext() as browser:
        for rep in range(args.reps):
            order = names[rep % len(names) :] + names[: rep % len(names)]  # background load hits each alike
            for arrival, after in (("at ready", 0.0), ("later", args.after)):
                for name in order:
                    sample = one_sample(browser, name, after, args.timeout)
                    found[(name, arrival)].append(sample)
                    print(
                        f"rep {rep + 1} {arrival:8s} {name}: ready {sample['ready']:.2f} s, first matrix "
                        f"{sample['first']:.2f} s, {sample['rss']:.0f} MB, warm-up {sample['warmed']} s",
                        flush=True,
                    )

    def med(name: str, arrival: str, key: str) -> float:
        return statistics.median(s[key] for s in found[(name, arrival)])

    def spread(name: str, arrival: str, key: str) -> str:
        values = [s[key] for s in found[(name, arrival)]]
        return f"{min(values):.2f}–{max(values):.2f}"

    rows = []
    for arrival in ("at ready", "later"):
        bare = med("bare", arrival, "first")
        for name in names:
            rows.append(
                (
                    arrival,
                    name,
                    f"{med(name, arrival, 'ready'):.2f}",
                    f"{med(name, arrival, 'first'):.2f}",
                    spread(name, arrival, "first"),
                    f"{med(name, arrival, 'first') / bare:.2f}×",
                    f"{med(name, arrival, 'rss'):.0f}",
                )
            )
    print()
    print(
        table(
            ("arrival", "server", "ready s", "first visit s", "range", "× bare", "RSS MB"),
            rows,
            title=f"First visit of a fresh server, median of {args.reps} (later = {args.after:.0f} s after ready):",
        )
    )
    warmed = [s["warmed"] for s in found[("warm", "later")] if s["warmed"] is not None]
    if warmed:
        print(f"warm-up (its own log): median {statistics.median(warmed):.1f} s after start")
    print(f"took {time.perf_counter() - t0:.0f} s; {machine()}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
