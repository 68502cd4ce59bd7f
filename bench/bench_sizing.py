"""The sizing table: 1, 2 and 3 app processes behind the school's proxy, for 40, 80 and 120
learners, each cell measured several times, with the spread (min – median – max).

    python -m bench.bench_sizing                          # the full table (quiet machine, about 1 h 30)
    python -m bench.bench_sizing --processes 1 2 --learners 40 --repeats 3   # a smaller one
    python -m bench.bench_sizing --learners 4 --repeats 1 --think 0.2 0.5 --spread 1   # does it run?

Each run is one cell of the table on a fresh ``deploy/serve.sh --processes K`` (nginx in front of
K app processes; ``bench_proxy.Proxy``), so no run inherits another's closed sessions (they stay
in memory for ``disconnectedSessionTTL``, 300 s). The runs are interleaved (for each repeat, for
each class size, K = 1, 2, 3 in turn), so the machine's background load hits every column alike.
Each app process is warmed by one learner's walk (``lesson_walk.preflight``, directly on its port,
then through nginx) before the class.

The class is ``bench_server``'s "class" scenario: N protocol learners, each with its own
settings and sentence (``bench/lesson_walk.py``), starting within ``--spread`` s and reading
``--think`` s before every action, every step of every learner checked against attention_core
and every lost click counted. Per run: p50 and p95 of Enter → update, page switch and Next; the
memory of the K app processes with every learner connected (their sum) and per learner (the
growth from just before the class connected to all connected, divided by N); errors; lost
clicks; and the load average (1 min) before and after. Printed: every run, then one row per
(K, N) with min – median – max over the repeats. This script prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench import classroom as C
from bench import lesson_walk as L
from bench.bench_proxy import Proxy
from bench.bench_server import scenario
from bench.core import MIB, RssSampler, machine, on_sigterm_exit, p50, p95, table

METRICS = ("Enter p50", "Enter p95", "switch p50", "switch p95", "Next p50", "Next p95", "MB", "MB/learner")


def spread(values: Sequence[float | None], digits: int = 2) -> str:
    """min – median – max of the values measured ("0.12–0.15–0.31"); one value alone; "-" for none.

    >>> spread([0.3, 0.1, 0.2]), spread([1.234]), spread([None])
    ('0.10–0.20–0.30', '1.23', '-')
    """
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return "-"
    if len(xs) == 1:
        return f"{xs[0]:.{digits}f}"
    return "–".join(f"{v:.{digits}f}" for v in (xs[0], statistics.median(xs), xs[-1]))


def figures(res: dict) -> dict[str, float | None]:
    """One run's row: the times (s), memory (MB), errors and lost clicks."""
    ls = res["learners"]
    out: dict[str, float | None] = {}
    for kind, name in (("enter", "Enter"), ("switch", "switch"), ("next", "Next")):
        times = C.times_of(ls, kind)
        out[f"{name} p50"], out[f"{name} p95"] = (p50(times), p95(times)) if times else (None, None)
    out["MB"] = None if res["rss"] is None else res["rss"] / MIB
    out["MB/learner"] = None if res.get("per_learner") is None else res["per_learner"] / MIB
    out["errors"] = float(sum(len(x.errors) for x in ls))
    out["lost"] = float(sum(len(x.lost) for x in ls))
    return out


def start_proxy(processes: int, run_dir: Path, timeout: float, tries: int = 3) -> Proxy:
    """``serve.sh`` started, tried again when it fails (on a shared machine another program can
    take a port between the choice of a free block and the app's start)."""
    for attempt in range(1, tries + 1):
        try:
            return Proxy(processes, run_dir.with_name(f"{run_dir.name}-{attempt}")).start(timeout)
        except RuntimeError as exc:
            if attempt == tries:
                raise
            print(f"  serve.sh did not start (try {attempt} of {tries}): {str(exc).splitlines()[-2:]}", flush=True)
    raise AssertionError("unreachable")


async def one_run(processes: int, n: int, repeat: int, args, tmp: Path) -> dict[str, float | None]:
    proxy = start_proxy(processes, tmp / f"run-{processes}-{n}-{repeat}", args.start_timeout)
    try:
        pids = list(proxy.app_pids().values())
        for port in sorted(proxy.app_pids()):
            await L.preflight(f"http://127.0.0.1:{port}/", args.mode, args.timeout, args.seed)
        await L.preflight(proxy.url, args.mode, args.timeout, args.seed)
        target = C.Target(proxy.url, pids)
        sampler = RssSampler(pids, interval=0.1)
        sampler.start()
        load0 = os.getloadavg()[0]
        run_args = argparse.Namespace(**vars(args))
        run_args.seed = args.seed + repeat  # each repeat its own learners' settings and sentences
        try:
            res = await scenario(target, args.mode, "class", n, run_args, sampler, 0)
        finally:
            sampler.stop()
        row = figures(res) | {"load before": load0, "load after": os.getloadavg()[0]}
        print(
            f"  {processes} process(es), {n} learners, run {repeat + 1}: "
            + ", ".join(f"{k} {'-' if v is None else round(v, 2)}" for k, v in row.items()),
            flush=True,
        )
        return row
    finally:
        proxy.stop()


def memory_slopes(runs: dict[tuple[int, int], list[dict[str, float | None]]]) -> list[list]:
    """Memory per learner from the class sizes: (median MB at the larger N − at the smaller) / ΔN,
    per process count. Steadier than one run's growth, which is a few MB against the noise of
    a process's RSS.

    >>> memory_slopes({(1, 40): [{"MB": 300.0}], (1, 80): [{"MB": 360.0}, {"MB": 380.0}]})
    [['1 process', 40, 80, 1.75]]
    """
    out = []
    for k in sorted({k for k, _ in runs}):
        sizes = sorted(n for kk, n in runs if kk == k)
        for a, b in zip(sizes, sizes[1:]):
            ma = [r["MB"] for r in runs[k, a] if r["MB"] is not None]
            mb = [r["MB"] for r in runs[k, b] if r["MB"] is not None]
            if ma and mb:
                slope = (statistics.median(mb) - statistics.median(ma)) / (b - a)
                out.append([f"{k} process{'es' if k > 1 else ''}", a, b, round(slope, 2)])
    return out


async def main_async(args) -> int:
    runs: dict[tuple[int, int], list[dict[str, float | None]]] = {}
    failed = 0
    with tempfile.TemporaryDirectory(prefix="bench-sizing-") as tmp:
        for repeat in range(args.repeats):
            for n in args.learners:
                for k in args.processes:
                    try:
                        runs.setdefault((k, n), []).append(await one_run(k, n, repeat, args, Path(tmp)))
                    except (RuntimeError, SystemExit) as exc:  # a run that could not start is reported, not fatal
                        print(f"  {k} process(es), {n} learners, run {repeat + 1}: FAILED: {exc}"[:600], flush=True)
                        failed += 1
    rows = []
    for (k, n), rs in sorted(runs.items()):
        rows.append(
            [f"{k} process{'es' if k > 1 else ''}", n, len(rs)]
            + [spread([r[m] for r in rs], 0 if m == "MB" else 2) for m in METRICS]
            + [int(sum(r["errors"] or 0 for r in rs)), int(sum(r["lost"] or 0 for r in rs))]
            + [spread([r["load before"] for r in rs], 1)]
        )
    headers = ["setup", "learners", "runs", *METRICS, "errors", "lost clicks", "load avg"]
    print("\n" + table(headers, rows, title="sizing: min–median–max over the runs (seconds, MB)"))
    slopes = memory_slopes(runs)
    if slopes:
        headers = ["setup", "from N", "to N", "MB per learner"]
        print("\n" + table(headers, slopes, title="memory per learner, between class sizes (medians)"))
    print(f"\nclass pace: think {args.think[0]}–{args.think[1]} s, start within {args.spread} s; mode {args.mode}")
    print(machine(), flush=True)
    if failed:
        print(f"{failed} run(s) failed to start or stopped in preflight (above)")
    return 1 if failed or any((r["errors"] or r["lost"]) for rs in runs.values() for r in rs) else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--learners", type=int, nargs="+", default=[40, 80, 120])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mode", default="model", choices=L.MODES)
    parser.add_argument("--think", nargs=2, type=float, default=[3.0, 8.0], metavar=("MIN", "MAX"))
    parser.add_argument("--spread", type=float, default=10.0, help="the learners start within this many seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds an answer may take before it is lost")
    parser.add_argument("--start-timeout", type=float, default=240.0, help="seconds for serve.sh to be ready")
    args = parser.parse_args()
    on_sigterm_exit()
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
