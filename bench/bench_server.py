"""A class at once, measured at the server: N sessions speaking Streamlit's own protocol, no browser.

    python bench/bench_server.py                       # 20 sessions, real model, burst and class pace
    python bench/bench_server.py --sessions 40 --modes toy model --think 3 8

Why a second load bench. bench_load.py drives 20 real Chromium pages, but on a 2-core machine those
20 pages take most of the CPU: in its run of 2026-12-03 the server used 19 s of CPU in 121 s of wall
time, so its p95 measured the one machine that had to draw 20 pages of Plotly. In a classroom every
learner's laptop draws its own page. This script plays the 20 learners with 20 websocket clients that
send what the browser sends (a BackMsg ``rerun_script`` with the changed widget's state) and read
what the server answers (the ForwardMsgs up to ``script_finished``), so nearly all of the machine's
CPU is the server's, and the time measured is the server's time to the updated page.

Each session: open /step_by_step (``?lang=en``, plus ``&toy=true`` in toy mode), type its own
sentence (the ``sentence`` text input), pick its query token i (the ``token_picker`` segmented
control), and press Next (``step_next``) to the last step. Every answer is checked against
attention_core computed here: the token picker's options are this sentence's tokens, the progress
text shows the right step, the softmax step's bar is ``explain(trace, i).weights`` and the last
step's b_i markers are ``explain(trace, i).output`` (atol 1e-9); an exception element is an error.

Scenarios, in one run on one server:
  single  one session, ``--single-reps`` sentences: the reference time.
  burst   N sessions press Enter in the same instant (a barrier), then click Next as fast as the
          answers come. The worst case: N script runs queue behind one GIL.
  class   N sessions start within ``--spread`` seconds and wait a random think time (uniform in
          ``--think`` seconds) before every action, as learners reading each step do.

Times: from sending the BackMsg to the ``script_finished`` that ends the run (a run that ends early
because the script asked for a rerun is followed to its successor). Printed: median and p95 per
scenario, the p95 ratio to the single user, the server's CPU per script run, and its memory.
Targets (issue 7): p95 < 3x the single user; memory growth < 5 MB per extra session.
This script prints figures; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
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
import websockets  # noqa: E402
from bench_load import Expected, expected_for, pct, sentence_for, settle_rss  # noqa: E402 - bench/
from harness import streamlit_server  # noqa: E402
from proctree import RssSampler, pin, tree_cpu_s  # noqa: E402 - bench/
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from attention_core import ToyEmbedder  # noqa: E402

MIB = 1024 * 1024
FINISHED_EARLY_FOR_RERUN = 2  # ForwardMsg.script_finished: the script asked for another run


# --------------------------------------------------------------------------- one answer


def plotly_arrays(value):
    """A Plotly JSON value with its typed arrays ({"dtype", "bdata"}) decoded to lists."""
    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    if isinstance(value, list):
        return [plotly_arrays(v) for v in value]
    return value


@dataclass
class Answer:
    """What one script run sent: widget ids by key, the token picker, the progress text, the figures."""

    seconds: float = 0.0
    runs: int = 0  # script runs (a run that ended early for a rerun counts too)
    widget_ids: dict[str, str] = field(default_factory=dict)  # user key -> widget id
    token_options: list[str] = field(default_factory=list)
    progress: str = ""
    figures: list[list[dict]] = field(default_factory=list)  # per chart: its traces (type, y)
    exceptions: list[str] = field(default_factory=list)

    def take(self, msg: ForwardMsg) -> None:
        if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
            return
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        proto = getattr(element, kind)
        if getattr(proto, "id", "").startswith("$$ID-"):
            self.widget_ids[proto.id.split("-", 2)[2]] = proto.id
        if kind == "button_group" and proto.id.endswith("-token_picker"):
            self.token_options = [o.content for o in proto.options]
        elif kind == "progress":
            self.progress = proto.text
        elif kind == "plotly_chart":
            spec = json.loads(proto.spec)
            self.figures.append([{"type": t.get("type"), "y": plotly_arrays(t.get("y"))} for t in spec["data"]])
        elif kind == "exception":
            self.exceptions.append(f"{proto.type}: {proto.message}"[:300])


class Session:
    """One learner's websocket: one Streamlit session."""

    def __init__(self, ws):
        self.ws = ws
        self.widget_ids: dict[str, str] = {}

    @classmethod
    async def open(cls, base: str, query: str) -> tuple[Session, Answer]:
        host = base.split("//", 1)[1].rstrip("/")
        ws = await websockets.connect(
            f"ws://{host}/_stcore/stream",
            subprotocols=["streamlit"],
            origin=base.rstrip("/"),
            max_size=None,
            open_timeout=600,
            ping_timeout=None,
        )
        session = cls(ws)
        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = "step_by_step"
        return session, await session._send(msg)

    async def _send(self, msg: BackMsg) -> Answer:
        answer = Answer()
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        while True:
            reply = ForwardMsg()
            reply.ParseFromString(await self.ws.recv())
            answer.take(reply)
            if reply.WhichOneof("type") == "script_finished":
                answer.runs += 1
                if reply.script_finished != FINISHED_EARLY_FOR_RERUN:
                    break
        answer.seconds = time.perf_counter() - t0
        self.widget_ids.update(answer.widget_ids)
        return answer

    async def set_widget(self, key: str, **value) -> Answer:
        """Send what the browser sends when widget ``key`` changes, e.g. string_value=... or trigger_value=True."""
        msg = BackMsg()
        state = msg.rerun_script.widget_states.widgets.add()
        state.id = self.widget_ids[key]
        for name, v in value.items():
            if name == "string_array_value":
                state.string_array_value.data.extend(v)
            else:
                setattr(state, name, v)
        msg.rerun_script.page_name = "step_by_step"
        return await self._send(msg)

    async def close(self) -> None:
        await self.ws.close()


# --------------------------------------------------------------------------- one learner


@dataclass
class Learner:
    name: str
    expected: Expected
    times: list[float] = field(default_factory=list)  # seconds per action: Enter, token, Next...
    runs: int = 0
    checked: int = 0
    errors: list[str] = field(default_factory=list)


def check(answer: Answer, learner: Learner, step: int | None) -> None:
    exp = learner.expected
    learner.errors += answer.exceptions
    want = [f"{n}: {tok}" for n, tok in enumerate(exp.tokens)]
    if answer.token_options != want:
        learner.errors.append(f"token picker {answer.token_options} != {want}")
    if step is None:
        return
    numbers = [int(s) for s in "".join(c if c.isdigit() else " " for c in answer.progress).split()[:2]]
    if numbers[:1] != [step + 1]:
        learner.errors.append(f"progress {answer.progress!r}, expected step {step + 1}")
    T = len(exp.tokens)
    for traces in answer.figures:
        if (
            len(traces) == 1
            and traces[0]["type"] == "bar"
            and len(traces[0]["y"]) == T
            and abs(sum(traces[0]["y"]) - 1) < 1e-9
        ):  # the softmax step's weights bar
            learner.checked += 1
            if not np.allclose(traces[0]["y"], exp.weights, atol=1e-9):
                learner.errors.append(f"step {step + 1}: weights {np.round(traces[0]['y'], 6).tolist()}")
        if len(traces) == T + 1 and traces[-1]["type"] == "scatter":  # the last step's b_i markers
            learner.checked += 1
            if not np.allclose(traces[-1]["y"], exp.output, atol=1e-9):
                learner.errors.append(f"step {step + 1}: b_i {np.round(traces[-1]['y'], 6).tolist()}")


async def walk(session: Session, learner: Learner, think=None, start: asyncio.Event | None = None) -> None:
    """Type the sentence, pick token i, Next to the end; ``think()`` seconds before each action."""

    async def act(key: str, step: int | None, **value) -> None:
        if think is not None:
            await asyncio.sleep(think())
        answer = await session.set_widget(key, **value)
        learner.times.append(answer.seconds)
        learner.runs += answer.runs
        check(answer, learner, step)

    exp = learner.expected
    if start is not None:
        await start.wait()
    await act("sentence", 0, string_value=exp.sentence)
    if exp.i:
        await act("token_picker", 0, string_array_value=[f"{exp.i}: {exp.tokens[exp.i]}"])
    for step in range(1, 7):
        await act("step_next", step, trigger_value=True)
    if learner.checked != 2:
        learner.errors.append(f"{learner.checked} of the 2 number checks ran")


# --------------------------------------------------------------------------- scenarios


async def scenario(
    base: str, query: str, learners: list[Learner], pid: int, think=None, spread: float = 0.0, barrier: bool = False
) -> dict:
    opened = await asyncio.gather(*[Session.open(base, query) for _ in learners])
    for (_, answer), learner in zip(opened, learners):
        learner.errors += answer.exceptions
    start = asyncio.Event() if barrier else None
    delays = [random.uniform(0, spread) for _ in learners]

    async def one(session, learner, delay):
        await asyncio.sleep(delay)
        await walk(session, learner, think, start)

    cpu0, t0 = tree_cpu_s(pid), time.perf_counter()
    tasks = [asyncio.create_task(one(s, learner, d)) for (s, _), learner, d in zip(opened, learners, delays)]
    if start is not None:
        await asyncio.sleep(0.2)
        start.set()
    done = await asyncio.gather(*tasks, return_exceptions=True)
    wall, cpu = time.perf_counter() - t0, tree_cpu_s(pid) - cpu0
    for learner, d in zip(learners, done):
        if isinstance(d, BaseException):
            learner.errors.append(f"{type(d).__name__}: {d}")
    rss = settle_rss(pid, 1.0)
    for session, _ in opened:
        await session.close()
    return summary(learners, wall, cpu, rss)


def summary(learners: list[Learner], wall: float, cpu: float, rss: int) -> dict:
    """The figures of one scenario: its learners' action times, script runs, checks and errors."""
    times = [s for learner in learners for s in learner.times]
    return {
        "median": statistics.median(times) if times else float("nan"),
        "p95": pct(times, 95),
        "max": max(times, default=float("nan")),
        "actions": len(times),
        "wall": wall,
        "cpu": cpu,
        "runs": sum(learner.runs for learner in learners),
        "rss": rss,
        "checked": sum(learner.checked for learner in learners),
        "errors": [(learner.name, e) for learner in learners for e in learner.errors],
    }


async def run_mode(base: str, pid: int, sampler: RssSampler, mode: str, args) -> list[tuple[str, dict]]:
    query = "lang=en" + ("&toy=true" if mode == "toy" else "")
    if mode == "toy":
        embedder = ToyEmbedder(dim=8)
    else:
        from attention_core.model import ModelEmbedder

        embedder = ModelEmbedder()
    n = args.sessions
    results = []
    warm = [Learner("warm-up", expected_for(sentence_for(499), embedder, i=1))]
    await scenario(base, query, warm, pid)  # caches, the model, the first figures
    single = [
        Learner(f"single-{r}", expected_for(sentence_for(500 + r), embedder, i=r % 8)) for r in range(args.single_reps)
    ]
    wall = cpu = 0.0
    for learner in single:  # one after another: one learner at a time
        r = await scenario(base, query, [learner], pid)
        wall, cpu = wall + r["wall"], cpu + r["cpu"]
    rss_1 = settle_rss(pid, 1.0)
    results.append(("single", summary(single, wall, cpu, rss_1)))
    lo, hi = args.think

    def think():
        return random.uniform(lo, hi)

    for name, kwargs in (("burst", {"barrier": True}), ("class", {"think": think, "spread": args.spread})):
        learners = [Learner(f"{name}-{s}", expected_for(sentence_for(s), embedder, i=s % 8)) for s in range(n)]
        sampler.reset()
        r = await scenario(base, query, learners, pid, **kwargs)
        r["peak"] = sampler.peak
        results.append((name, r))
    for _name, r in results:
        r["per_session"] = (r["rss"] - rss_1) / max(n - 1, 1)
    return results


def report(mode: str, n: int, results: list[tuple[str, dict]], args) -> None:
    single_p95 = results[0][1]["p95"]
    print(f"\n== mode {mode}: {n} protocol sessions (no browser); time from the BackMsg to script_finished")
    for name, r in results:
        who = "1 session, one after another" if name == "single" else f"{n} sessions"
        how = {
            "single": "",
            "burst": ", all Enter at once then Next flat out",
            "class": f", start within {args.spread:g} s, think {args.think[0]:g}-{args.think[1]:g} s",
        }[name]
        ratio = f" -> p95 {r['p95'] / single_p95:.1f}x single (target < 3x)" if name != "single" else ""
        print(
            f"  {name:6} ({who}{how}): {r['actions']} actions, median {r['median'] * 1000:.0f} ms, "
            f"p95 {r['p95'] * 1000:.0f} ms, max {r['max'] * 1000:.0f} ms{ratio}"
        )
        print(
            f"         server CPU {r['cpu']:.1f} s in {r['wall']:.1f} s wall for {r['runs']} script runs = "
            f"{r['cpu'] / max(r['runs'], 1) * 1000:.0f} ms per run; RSS {r['rss'] / MIB:.0f} MB"
            + (
                f", peak {r['peak'] / MIB:.0f} MB, {r['per_session'] / MIB:+.2f} MB per extra session (target < 5 MB)"
                if "peak" in r
                else ""
            )
        )
        print(f"         number checks passed {r['checked']}, errors {len(r['errors'])}")
        for who_, e in r["errors"][:10]:
            print(f"           {who_}: {e}")


async def main_async(args) -> int:
    random.seed(args.seed)
    failed = False
    with streamlit_server(timeout=180) as server:
        pid = server.process.pid
        pinning = pin(pid, args.server_cpus, args.client_cpus)
        sampler = RssSampler(pid, interval=0.05)
        sampler.start()
        try:
            for mode in args.modes:
                results = await run_mode(server.url, pid, sampler, mode, args)
                report(mode, args.sessions, results, args)
                failed |= any(r["errors"] for _, r in results)
        finally:
            sampler.stop()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(
        f"\nmachine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; commit "
        f"{commit.stdout.strip() or 'n/a'}; {pinning}",
        flush=True,
    )
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--single-reps", type=int, default=5)
    parser.add_argument("--modes", nargs="+", default=["model"], choices=["toy", "model"])
    parser.add_argument(
        "--think",
        nargs=2,
        type=float,
        default=[3.0, 8.0],
        metavar=("MIN", "MAX"),
        help="a learner's reading time before each action, seconds (class scenario)",
    )
    parser.add_argument("--spread", type=float, default=10.0, help="the class scenario's sessions start within this")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--server-cpus", type=int, nargs="*", default=[], help="pin the server to these CPUs")
    parser.add_argument("--client-cpus", type=int, nargs="*", default=[], help="pin this script to these CPUs")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
