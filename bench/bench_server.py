"""A class at once, measured at the server: N learners speaking Streamlit's own protocol, no browser.

    python -m bench.bench_server                          # 20 learners, real model: single, burst, class pace
    python -m bench.bench_server --sessions 20 40 80 120  # a fresh server for each class size
    python -m bench.bench_server --modes toy model --think 3 8
    python -m bench.bench_server --url http://localhost:8080/ --pids 1234 1235   # a running app or proxy
    python -m bench.bench_server --check-protocol         # Chromium and the client side by side, then exit
    python -m bench.bench_server --self-check             # the checks fail a sentence-keyed cache and a settings leak

Why a protocol bench. Chromium pages on a 2-core machine take most of its CPU, so their times
measure the machine that draws N pages; in a classroom every learner's laptop draws its own.
Here every learner is a ``bench.protocol.Client``: it sends exactly what Chromium sends (every
widget's state, the URL, the page's hash, its cached messages; ``--check-protocol`` compares
the two message by message) and reads the server's answers up to the end of the script run,
drawing nothing. Nearly all of the machine's CPU is the server's, and the time measured is the
server's time to the updated page.

Each learner walks the lesson of ``bench/lesson_walk.py`` with settings of its own (language,
W trained / random / identity, seed, d_k, layer and head; drawn from ``--seed``, set in the
page's URL) and a sentence from a small pool that several learners share: open Step by step,
type the sentence and press Enter, pick its own query token, Next to the last step, switch to
Attention matrices and back. Every answer is checked against attention_core computed here for
that learner's sentence and settings, on every step (tokens, inputs, q/k/v, products and
scores, scaled scores, weights, contributions and b_i, the weights matrix; atol 1e-9), so a
server that cached lessons by sentence or mixed two sessions' settings fails (``--self-check``
shows it on a stub app). A click whose answer never came is a lost click, counted, not retried.
``preflight`` walks one learner first and stops the run within seconds when the app no longer
answers as expected; every later wait is bounded by ``--timeout``.

Scenarios, for each class size N (each on a fresh server unless ``--url``):
  single  one learner at a time, ``--single-reps`` learners: the reference.
  burst   N learners press Enter in the same instant, then click on as fast as the answers come:
          the worst case, N script runs queued behind one lock.
  class   N learners start within ``--spread`` s and read ``--think`` s before every action.

Times: from sending the BackMsg to the ``script_finished`` that ends its run; p50 and p95 per
action ("Enter → update", "page switch", "Next", "query token picked"). Memory: RSS of the
server's process tree with one learner connected after ``single``, with all N connected after
each scenario, and its peak; per learner, the growth from just before a scenario's learners
connect to all of them connected (a closed session stays in memory for the server's
``disconnectedSessionTTL``, 300 s, so each scenario is measured against its own start). Also
the server's CPU per script
run. This script prints figures; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys

from bench import classroom as C
from bench import lesson_walk as L
from bench.core import (
    MIB,
    RssSampler,
    Server,
    machine,
    on_sigterm_exit,
    p50,
    p95,
    table,
)
from harness import testid


def mb(value: float | None) -> str:
    return "n/a" if value is None else f"{value / MIB:.0f} MB"


async def scenario(target: C.Target, mode: str, name: str, n: int, args, sampler, first: int) -> dict:
    learners = L.make_learners(n, mode, args.seed, prefix=name, offset=first)
    seats: list[L.Seat] = [L.ProtocolSeat(target.url, args.timeout) for _ in learners]
    kwargs: dict = {}
    if name == "burst":
        kwargs["barrier"] = True
    elif name == "class":
        kwargs.update(think=C.seeded_think(args.think[0], args.think[1], args.seed), spread=args.spread)
    if sampler is not None:
        sampler.reset()
    before = target.settle(1.0) if n > 1 else None
    cpu0 = target.cpu()
    memory: dict[str, int | None] = {}
    wall = await L.run_class(learners, seats, before_close=lambda: memory.update(rss=target.settle(1.0)), **kwargs)
    cpu1 = target.cpu()
    cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    runs = sum(learner.runs for learner in learners)
    rss = memory.get("rss")
    return {
        "name": name,
        "learners": learners,
        "wall": wall,
        "cpu_per_run": None if cpu is None else cpu / max(runs, 1),
        "runs": runs,
        "rss": rss,
        "peak": sampler.peak if sampler is not None else None,
        "per_learner": None if before is None or rss is None else (rss - before) / n,
    }


async def one_size(target: C.Target, mode: str, n: int, args, sampler) -> list[dict]:
    await L.preflight(target.url, mode, args.timeout, args.seed)  # also warms the caches and the model
    results = []
    single = []
    for r in range(args.single_reps):  # one learner after another
        res = await scenario(target, mode, "single", 1, args, sampler, 500 + r)
        single.append(res)
    merged = {
        "name": "single",
        "learners": [x for res in single for x in res["learners"]],
        "wall": sum(res["wall"] for res in single),
        "cpu_per_run": p50([res["cpu_per_run"] for res in single]) if target.pids else None,
        "runs": sum(res["runs"] for res in single),
        "rss": target.settle(1.0),
        "peak": max((res["peak"] or 0) for res in single) if sampler is not None else None,
    }
    results.append(merged)
    for name in args.scenarios:
        if name != "single":
            results.append(await scenario(target, mode, name, n, args, sampler, 0))
    merged["per_learner"] = None
    return results


def report(mode: str, n: int, results: list[dict], args) -> None:
    print(f"\n== {mode}: {n} protocol learners (no browser); time from the BackMsg to the end of the run")
    groups = {res["name"]: res["learners"] for res in results}
    print(C.times_table(groups))
    for res in results:
        learners = res["learners"]
        errors = sum(len(x.errors) for x in learners)
        lost = sum(len(x.lost) for x in learners)
        cpu = "n/a" if res["cpu_per_run"] is None else f"{res['cpu_per_run'] * 1000:.0f} ms"
        per = "" if res.get("per_learner") is None else f", {res['per_learner'] / MIB:+.2f} MB per learner"
        print(
            f"  {res['name']:6} {len(learners)} learner(s), wall {res['wall']:.1f} s, {res['runs']} script runs, "
            f"server CPU {cpu} per run; RSS {mb(res['rss'])} (peak {mb(res['peak'])}){per}; "
            f"number checks passed {sum(x.checked for x in learners)}, errors {errors}, lost clicks {lost}, "
            f"finished {sum(x.finished for x in learners)}"
        )
        print(f"         checks passed by step: {L.checks_by_step(learners)}")
        for line in C.problems(learners, 16):
            print(f"      {line}")


def summary(all_results: dict[tuple[str, int], list[dict]]) -> None:
    """One row per mode and class size: what issue 34's capacity table needs."""
    for name in ("burst", "class"):
        rows = []
        for (mode, n), results in all_results.items():
            res = next((r for r in results if r["name"] == name), None)
            if res is None:
                continue
            ls = res["learners"]
            e, s, x = (C.times_of(ls, k) for k in ("enter", "switch", "next"))
            rows.append(
                [f"{mode} {n}", p50(e), p95(e), p50(s), p95(s), p50(x), p95(x), sum(len(a.errors) for a in ls)]
                + [sum(len(a.lost) for a in ls)]
                + [None if res["rss"] is None else round(res["rss"] / MIB)]
                + [None if res.get("per_learner") is None else round(res["per_learner"] / MIB, 2)]
            )
        if rows:
            headers = ["learners", "Enter p50", "p95", "switch p50", "p95", "Next p50", "p95", "errors", "lost clicks"]
            print("\n" + table(headers + ["MB/process", "MB/learner"], rows, title=f"summary, {name} (seconds)"))


async def main_async(args) -> int:
    random.seed(args.seed)
    failed = False
    all_results: dict[tuple[str, int], list[dict]] = {}
    for n in args.sessions:
        with C.target(args) as target_and_note:
            target, pinning = target_and_note
            sampler = RssSampler(target.pids, interval=0.05) if target.pids else None
            if sampler is not None:
                sampler.start()
            try:
                for mode in args.modes:
                    results = await one_size(target, mode, n, args, sampler)
                    all_results[mode, n] = results
                    report(mode, n, results, args)
                    failed |= any(x.errors or x.lost for res in results for x in res["learners"])
            finally:
                if sampler is not None:
                    sampler.stop()
            print(f"({target.url}, {pinning})", flush=True)
    summary(all_results)
    print("\n" + machine(), flush=True)
    return 1 if failed else 0


# --------------------------------------------------------------------------- --check-protocol

CHECK_SENTENCE = "the cat sat on the <b>mat</b> & slept"


def _normal(msg) -> dict:
    """A rerun_script message as compared: query, page, hash, each widget's state by key, how many cached hashes."""
    from google.protobuf.json_format import MessageToDict

    d = MessageToDict(msg).get("rerunScript", {})
    widgets = {
        w["id"].split("-", 2)[-1]: {k: v for k, v in w.items() if k != "id"}
        for w in d.get("widgetStates", {}).get("widgets", [])
    }
    return {
        "query": d.get("queryString", ""),
        "page name": d.get("pageName", ""),
        "page hash": d.get("pageScriptHash", ""),
        "widgets": widgets,
        "cached hashes": len(d.get("cachedMessageHashes", [])),
    }


def check_protocol(url: str, timeout: float) -> int:
    """The same actions in Chromium and in ``protocol.Client``; every BackMsg compared. 0 if equal."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    from bench.core import chromium, wait_idle
    from bench.protocol import Client

    frames: list[bytes] = []
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(timeout * 1000)
        page.on("websocket", lambda ws: ws.on("framesent", lambda p: frames.append(p)))
        page.goto(url + "step_by_step?lang=en")
        wait_idle(page, timeout, settle=0.4)
        main, side = page.locator(testid("stMain")), page.locator(testid("stSidebar"))
        box = side.locator(".st-key-sentence textarea").first
        box.fill(CHECK_SENTENCE)
        for act in (
            lambda: box.press("Enter"),
            lambda: main.locator(".st-key-step_next button").click(),
            lambda: main.locator(".st-key-token_picker button").nth(2).click(),
            lambda: main.locator(".st-key-step_next button").click(),
            lambda: main.locator(".st-key-step_next button").click(),  # step 4: a selectbox (key_j)
            lambda: main.locator(".st-key-step_next button").click(),
            lambda: side.locator(f'{testid("stPageLink")} a[href^="matrices?"]').first.click(),
            lambda: main.locator(".st-key-matrix_tab button").nth(0).click(),
            lambda: side.locator(f'{testid("stPageLink")} a[href^="step_by_step?"]').first.click(),
        ):
            act()
            wait_idle(page, timeout, settle=0.4)
    browser_msgs = []
    for frame in frames:
        if isinstance(frame, bytes):
            msg = BackMsg.FromString(frame)
            if msg.WhichOneof("type") == "rerun_script":
                browser_msgs.append(_normal(msg))

    async def client_side() -> list[dict]:
        c = Client(url, timeout=timeout)
        c.keep_sent = True
        try:
            await c.open("step_by_step", "lang=en")
            await c.type_text("sentence", CHECK_SENTENCE)
            a = await c.click("step_next")
            a = await c.choose("token_picker", a.options("token_picker")[2])
            a = await c.click("step_next")
            a = await c.click("step_next")
            a = await c.click("step_next")
            a = await c.switch_page("matrices")
            a = await c.choose("matrix_tab", a.options("matrix_tab")[0])
            await c.switch_page("step_by_step")
        finally:
            await c.close()
        return [_normal(m) for m in c.sent]

    client_msgs = asyncio.run(client_side())
    names = ["open", "Enter", "Next", "token", "Next", "Next", "Next", "page switch", "view", "page switch"]
    differences = 0
    if len(browser_msgs) != len(client_msgs):
        print(f"Chromium sent {len(browser_msgs)} rerun messages, the client {len(client_msgs)}")
        differences += 1
    for n, (b, c) in enumerate(zip(browser_msgs, client_msgs)):
        for field, value in b.items():
            if field == "widgets":
                for key in sorted(set(value) | set(c[field])):
                    if value.get(key) != c[field].get(key):
                        differences += 1
                        print(f"{names[n]}: widget {key}: Chromium {value.get(key)}, client {c[field].get(key)}")
            elif value != c[field]:
                differences += 1
                print(f"{names[n]}: {field}: Chromium {value!r}, client {c[field]!r}")
    widgets = sum(len(m["widgets"]) for m in browser_msgs)
    print(
        f"check-protocol: {len(browser_msgs)} messages, {widgets} widget states compared: "
        + ("the client sends what Chromium sends" if not differences else f"{differences} difference(s)")
    )
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[20], help="class sizes (a fresh server each)")
    parser.add_argument("--single-reps", type=int, default=5)
    parser.add_argument("--modes", nargs="+", default=["model"], choices=L.MODES)
    parser.add_argument(
        "--scenarios", nargs="+", default=["single", "burst", "class"], choices=["single", "burst", "class"]
    )
    parser.add_argument(
        "--think",
        nargs=2,
        type=float,
        default=[3.0, 8.0],
        metavar=("MIN", "MAX"),
        help="a learner's reading time before each action, seconds (class scenario)",
    )
    parser.add_argument("--spread", type=float, default=10.0, help="the class scenario's learners start within this")
    C.add_target_arguments(parser)
    parser.add_argument("--check-protocol", action="store_true", help="compare the client with Chromium, then exit")
    parser.add_argument(
        "--self-check",
        action="store_true",
        help="show that the checks fail on a stub app with a sentence-keyed cache or a settings leak, then exit",
    )
    args = C.parse(parser)
    on_sigterm_exit()
    if args.self_check:
        found = L.self_check(seed=args.seed)
        for fault, n in found.items():
            print(f"stub app, fault {fault}: {n} failed check(s)")
        works = found["None"] == 0 and all(n > 0 for fault, n in found.items() if fault != "None")
        print("self-check: " + ("the checks pass the right app and fail both faults" if works else "FAILED"))
        return 0 if works else 1
    if args.check_protocol:
        if args.url:
            return check_protocol(args.url, args.timeout)
        server = Server().start()
        try:
            server.wait_health(args.start_timeout)
            return check_protocol(server.url, args.timeout)
        finally:
            server.stop()
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
