"""A class at once in Chromium: N learners on one app, each in its own browser context.

    python -m bench.bench_load                          # 20 learners, toy embedder and real model
    python -m bench.bench_load --sessions 10 --modes toy
    python -m bench.bench_load --think 3 8              # class pace
    python -m bench.bench_load --browsers 2 --think 3 8 # 2 Chromium pages, 18 protocol learners
    python -m bench.bench_load --url http://localhost:8080/ --pids 1234   # a running app or proxy

One server (``bench.core.Server``: ``streamlit run app.py`` from the repo root, headless, on a
free port, HF_HUB_OFFLINE=1), or the app at ``--url``, and one Debian Chromium with one browser
context per learner (own cookies, own websocket, own Streamlit session), driven by Playwright's
async API. Each learner walks the lesson of ``bench/lesson_walk.py`` with settings of its own
(language, W, seed, d_k, layer and head, drawn from ``--seed``): open Step by step, type a
sentence and press Enter, pick its query token, Next to the last step, Attention matrices, Why
√d_k and back, every step checked against attention_core for its own sentence and settings.

For each mode ("toy": ?toy=true, the 8-d toy embedder, random or identity W; "model": the
bundled all-MiniLM-L6-v2, W trained, random or identity):

(1) Single user: one learner at a time, ``--single-reps`` times with different sentences (after
    one warm-up walk): the reference, measured in the same run on the same machine.
(2) N learners at once: all open Step by step, type their sentence and press Enter in the same
    instant (a barrier), then walk flat out; or, with ``--think MIN MAX``, read MIN–MAX s before
    every action. ``--browsers K``: only K of them are Chromium pages (timed apart); the others
    are ``bench.protocol`` clients that send what Chromium sends and draw nothing. The server
    carries all N while the machine draws K pages, as a learner's own laptop does.
    ``--server-cpus 0 --client-cpus 1`` puts the server and the browsers on different cores.

Times are the page's own clock (``bench/pageclock.py``): from the key press or click until the
runs it started have ended, the app is idle and the change is painted. Every wait is bounded
by ``--timeout`` (default 60 s): an answer that never comes is a lost click, counted;
``lesson_walk.preflight`` walks one learner first and stops the run within seconds when the app
does not answer as expected.

Memory: RSS of the server's process tree (every 50 ms from /proc, and its VmHWM) idle after (1)
and with all N connected after (2); per learner, the growth from just before the N connect to
all N connected (closed sessions stay in memory for 300 s, ``disconnectedSessionTTL``, so the
single user's are in both). (3) Unless ``--no-heads``:
one page opens Real model heads (all 72 heads of the model at once): RSS before and after.

This script prints figures; it asserts nothing about time. On a 2-core machine N Chromium pages
compete with the server for the CPU (see ``bench_server.py`` for the server alone).
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from bench import classroom as C
from bench import lesson_walk as L
from bench.core import (
    MIB,
    RssSampler,
    chromium_async,
    machine,
    on_sigterm_exit,
    p95,
    table,
    wait_idle_async,
)


def mb(v) -> str:
    return "n/a" if v is None else f"{v / MIB:.0f} MB"


async def run_mode(browser, target: C.Target, sampler, mode: str, args) -> dict:
    url = target.url
    await L.preflight(url, mode, args.timeout, args.seed)
    out: dict = {"mode": mode}

    # (1) single user, one learner after another (the first is a warm-up)
    single = []
    for rep in range(args.single_reps + 1):
        learner = L.make_learners(1, mode, args.seed, prefix=f"{mode}-single", offset=500 + rep)[0]
        await L.run_class([learner], [C.ChromiumSeat(url, args.timeout, browser, poll=args.poll)])
        if rep:
            single.append(learner)
    out["single"] = single
    out["rss_1"] = target.settle(2.0)

    # (2) n learners at once: `pages` of them in Chromium, the others protocol clients
    n, pages = args.sessions, args.browsers if args.browsers is not None else args.sessions
    learners = L.make_learners(n, mode, args.seed, prefix=mode)
    seats: list[L.Seat] = [
        C.ChromiumSeat(url, args.timeout, browser, poll=args.poll) if k < pages else L.ProtocolSeat(url, args.timeout)
        for k in range(n)
    ]
    out["rss_before"] = target.settle(1.0)
    if sampler is not None:
        sampler.reset()
    cpu0 = target.cpu()
    memory: dict = {}
    think = C.seeded_think(args.think[0], args.think[1], args.seed) if args.think else None
    out["wall"] = await L.run_class(
        learners,
        seats,
        think=think,
        barrier=True,
        before_close=lambda: memory.update(rss_n=target.settle(2.0), hwm=target.hwm()),
    )
    cpu1 = target.cpu()
    cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    out.update(memory)
    out["learners"] = learners
    out["peak_n"] = sampler.peak if sampler is not None else None
    runs = sum(x.runs for x in learners)
    out["cpu_per_run"] = None if cpu is None else cpu / max(runs, 1)
    out["runs"] = runs
    out["pages"], out["pace"] = pages, "flat out" if think is None else f"think {args.think[0]:g}-{args.think[1]:g} s"
    return out


def report(r: dict, n: int) -> None:
    learners, single = r["learners"], r["single"]
    pages = [x for x in learners if x.kind == "chromium"]
    peers = [x for x in learners if x.kind == "protocol"]
    who = "" if not peers else f" ({len(pages)} in Chromium, {len(peers)} protocol learners)"
    print(f"\n== {r['mode']}: {n} learners at once{who}, {r['pace']}; wall {r['wall']:.1f} s from the shared Enter")
    groups = {"single user": single, f"{n} at once, Chromium": pages}
    if peers:
        groups[f"{n} at once, protocol"] = peers
    print(C.times_table(groups))
    for kind in ("enter", "next", "switch"):
        one, many = p95(C.times_of(single, kind)), p95(C.times_of(pages, kind))
        if one == one and many == many and one > 0:
            print(f"  p95 of {C.ACTION_NAMES[kind]}: {many / one:.1f}× the single user (target < 3×)")
    per = None
    if r.get("rss_n") is not None and r.get("rss_before") is not None:
        per = (r["rss_n"] - r["rss_before"]) / n
    rows = [
        ["server RSS, 1 learner (steady)", mb(r.get("rss_1"))],
        [f"server RSS, {n} learners connected (steady)", mb(r.get("rss_n"))],
        ["server RSS, peak while they worked (sampled / VmHWM)", f"{mb(r.get('peak_n'))} / {mb(r.get('hwm'))}"],
        ["per learner (target < 5 MB)", "n/a" if per is None else f"{per / MIB:+.2f} MB"],
        [
            "server CPU per script run",
            "n/a" if r["cpu_per_run"] is None else f"{r['cpu_per_run'] * 1000:.0f} ms ({r['runs']} runs)",
        ],
    ]
    print(table(["memory and CPU", ""], rows))
    everyone = single + learners
    errors, lost = sum(len(x.errors) for x in everyone), sum(len(x.lost) for x in everyone)
    print(f"  number checks passed {sum(x.checked for x in everyone)}; errors {errors}; lost clicks {lost}")
    print(f"  checks passed by step: {L.checks_by_step(everyone)}")
    for line in C.problems(everyone, 20):
        print(f"    {line}")


async def heads_memory(browser, target: C.Target, timeout: float) -> None:
    """(3) One page opens Real model heads (all 72 heads): the server's RSS before and after."""
    if not target.pids:
        return
    before = target.settle(1.0)
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(target.url + "real_model?lang=en", timeout=timeout * 1000)
    await wait_idle_async(page, timeout, "() => document.querySelectorAll('.js-plotly-plot').length > 0")
    await context.close()
    print(
        f"\n== Real model heads once (all 72 heads): server RSS {mb(before)} before, "
        f"{mb(target.settle(2.0))} after, VmHWM {mb(target.hwm())}",
        flush=True,
    )


async def main_async(args) -> int:
    failed = False
    with C.target(args) as (target, pinning):  # pinned before Chromium starts
        sampler = RssSampler(target.pids, interval=0.05) if target.pids else None
        try:
            if sampler is not None:
                sampler.start()
            print(f"app {target.url}, {pinning}, RSS {mb(target.rss())}", flush=True)
            async with chromium_async() as browser:
                for mode in args.modes:
                    print(f"-- {mode}: single user x{args.single_reps}, then {args.sessions} learners", flush=True)
                    r = await run_mode(browser, target, sampler, mode, args)
                    report(r, args.sessions)
                    failed |= any(x.errors or x.lost for x in r["single"] + r["learners"])
                if not args.no_heads:
                    await heads_memory(browser, target, args.timeout)
        finally:
            if sampler is not None:
                sampler.stop()
    print("\n" + machine(), flush=True)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--single-reps", type=int, default=5)
    parser.add_argument("--no-heads", action="store_true", help="skip the final Real model heads memory reading")
    parser.add_argument("--modes", nargs="+", default=["toy", "model"], choices=L.MODES)
    parser.add_argument(
        "--think",
        nargs=2,
        type=float,
        metavar=("MIN", "MAX"),
        help="class pace: each learner reads for a random MIN-MAX seconds before every action "
        "(default: none, every learner clicks as soon as its page is updated)",
    )
    parser.add_argument(
        "--browsers",
        type=int,
        default=None,
        help="only this many of the learners in Chromium (timed apart); the others are protocol "
        "learners (bench/protocol.py), which load the server but draw nothing",
    )
    parser.add_argument("--poll", type=int, default=50, help="ms between checks of a waiting page (default 50)")
    C.add_target_arguments(parser, clients="this script and its Chromium")
    args = C.parse(parser)
    if args.browsers is not None and not 1 <= args.browsers <= args.sessions:
        parser.error(f"--browsers must be between 1 and --sessions ({args.sessions}), got {args.browsers}")
    on_sigterm_exit()
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
