"""A class through the school's proxy: ``deploy/serve.sh --processes N`` (nginx in front of N app
processes), driven by protocol learners and a few real Chromium pages, for N = 1 and N = 2.

    python -m bench.bench_proxy                                  # 80 learners (2 in Chromium), N = 1 then 2
    python -m bench.bench_proxy --learners 5 --browsers 1 --think 1 2 --spread 2   # a quick check
    python -m bench.bench_proxy --fault                          # then again, one app process killed mid-run
    python -m bench.bench_proxy --processes 2 --burst            # everyone presses Enter at once

For each N in ``--processes``: ``bash deploy/serve.sh --processes N --port P --run-dir <tmp>`` is
started and waited for ("serve.sh: ready at …", ``--start-timeout``); each app process is warmed
directly on its own port (the first page of a process reads the model) and one learner walks
through the proxy first (``lesson_walk.preflight``: the run stops within seconds when the app does
not answer as expected). Then ``--learners`` K learners walk the lesson of ``bench/lesson_walk.py``
(settings of their own, every step checked) through nginx at once: ``--browsers`` B of them in
Chromium (one browser context each: own cookies, so own route), the others
``bench.protocol.Client``s, which send what Chromium sends, cookies included, so nginx pins each
to one process by its route cookie. Class pace by default
(start within ``--spread`` s, ``--think`` s before every action); ``--burst``: everyone presses
Enter in the same instant, then clicks on as fast as the answers come. Every answer is checked
against attention_core for the learner's own sentence and settings; an answer that never comes is
a lost click, counted.

Printed per N: p50 / p95 / max of "Enter → update", "page switch" and "Next" (protocol
learners and Chromium pages apart), errors and number checks, how the learners spread over the
processes (nginx's access log: ``route=… upstream=…``), and the memory of each app process
(RSS with every learner connected, and its peak) and of nginx.

``--fault``: a second class run on the same processes; ``--fault-after`` s after every learner has
opened its page, the app process serving the most learners is killed (SIGKILL, as a crash; serve.sh
starts it again 5 s later). Printed: its learners, how many saw their connection drop, how many
reconnected (and how long it took), how many kept their view (their first answer after the
reconnect showed their own sentence, token and step), how many saw their first action after the
reconnect go wrong (a Next that had no effect, issue 34 item 2, or a view other than a continuing
session shows; each learner then clicks again, and its notes say what it saw), the actions in
flight when the connection dropped (arrived anyway: carried by the reconnect or replayed by the
page; asked for again by the page's note; on a protocol seat, which has no page to ask, clicked
again by its learner; lost with nothing on the page to say so), the Chromium pages that never
opened a new websocket, how many finished the lesson with every check right; and whether any
learner of the other processes noticed anything. This script prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import classroom as C
from bench import lesson_walk as L
from bench.core import (
    MIB,
    ROOT,
    RssSampler,
    chromium_async,
    free_port,
    machine,
    on_sigterm_exit,
    p50,
    process_group,
    table,
    tree_rss_bytes,
)


class Proxy:
    """``deploy/serve.sh`` running: its URL, its app processes (port → pid) and nginx."""

    def __init__(self, processes: int, run_dir: Path, base_path: str = ""):
        self.processes, self.run_dir, self.base_path = processes, run_dir, base_path
        self.port = 0
        self.url = ""
        self.proc: subprocess.Popen | None = None
        self._running = contextlib.ExitStack()  # the process_group block of serve.sh
        self.log = run_dir.parent / f"serve-{processes}.log"

    def start(self, timeout: float) -> Proxy:
        self.port = _free_block(self.processes + 1)
        cmd = ["bash", "deploy/serve.sh", "--processes", str(self.processes), "--port", str(self.port)]
        cmd += ["--run-dir", str(self.run_dir), "--start-timeout", str(int(timeout))]
        if self.base_path:
            cmd += ["--base-path", self.base_path]
        self._running = contextlib.ExitStack()
        with open(self.log, "w") as log:
            self.proc = self._running.enter_context(
                process_group(
                    cmd, term_wait=20, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            )
        deadline = time.monotonic() + timeout + 30
        while True:
            text = self.log.read_text(errors="replace")
            found = re.search(r"serve\.sh: ready at (\S+)", text)
            if found:
                self.url = found.group(1).replace("//localhost:", "//127.0.0.1:")
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve.sh exited ({self.proc.returncode}):\n{text[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"serve.sh was not ready within {timeout + 30:.0f} s:\n{text[-3000:]}")
            time.sleep(0.2)

    def app_pids(self) -> dict[int, int]:
        """Internal port → pid of each app process (serve.sh's pid files; a restarted one has a new pid)."""
        out = {}
        for f in self.run_dir.glob("app-*.pid"):
            with contextlib.suppress(ValueError, OSError):
                out[int(f.stem.split("-")[1])] = int(f.read_text().strip())
        return out

    def nginx_pid(self) -> int | None:
        with contextlib.suppress(ValueError, OSError):
            return int((self.run_dir / "nginx.pid").read_text().strip())
        return None

    def routes(self) -> dict[str, int]:
        """Route cookie → the internal port that last served it (nginx's access log)."""
        out = {}
        with contextlib.suppress(OSError):
            for m in re.finditer(r"route=(\w+) upstream=(\S+)", (self.run_dir / "logs" / "access.log").read_text()):
                last = m.group(2).split(",")[-1].strip()
                if ":" in last:
                    out[m.group(1)] = int(last.rsplit(":", 1)[1])
        return out

    def stop(self) -> None:
        """Stop serve.sh's process group (``harness.process_group``: nothing of it outlives the bench)."""
        self._running.close()


def _free_block(n: int) -> int:
    """A port P with P … P + n − 1 all free (serve.sh puts the app processes right after nginx's)."""
    for _ in range(50):
        p = free_port()
        if p + n < 65535 and all(_is_free(p + k) for k in range(n)):
            return p
    raise RuntimeError(f"no block of {n} free ports")


def _is_free(port: int) -> bool:
    import socket

    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def memory_rows(proxy: Proxy, peaks: dict[int, int]) -> list[list]:
    rows = []
    for port, pid in sorted(proxy.app_pids().items()):
        peak = round(peaks[pid] / MIB) if pid in peaks else None  # None: started again during the run
        rows.append([f"app :{port} (pid {pid})", round(tree_rss_bytes(pid) / MIB), peak])
    nginx = proxy.nginx_pid()
    if nginx:
        rows.append([f"nginx (pid {nginx})", round(tree_rss_bytes(nginx) / MIB), None])
    return rows


async def warm(proxy: Proxy, mode: str, timeout: float, seed: int) -> None:
    """Each app process directly (the model is read on a process's first page), then through nginx."""
    for port in sorted(proxy.app_pids()):
        await L.preflight(f"http://127.0.0.1:{port}{proxy.base_path}/", mode, timeout, seed)
    await L.preflight(proxy.url, mode, timeout, seed)


async def one_run(proxy: Proxy, args, browser, fault: bool) -> dict:
    k, b = args.learners, min(args.browsers, args.learners)
    learners = L.make_learners(k, args.mode, args.seed, prefix="p")
    seats: list[L.Seat] = [
        C.ChromiumSeat(proxy.url, args.timeout, browser, poll=args.poll)
        if n < b
        else L.ProtocolSeat(proxy.url, args.timeout, reconnect=True)
        for n in range(k)
    ]
    pids = proxy.app_pids()
    sampler = RssSampler(list(pids.values()), interval=0.1)
    sampler.start()
    memory: dict = {}
    fault_info: dict = {}

    async def side() -> None:
        """Which process serves each learner once all have opened their page, then, in a fault
        run, the kill ``--fault-after`` s later."""
        while not all(x.times.get("open") or x.lost for x in learners):
            await asyncio.sleep(0.2)
        await asyncio.sleep(0.5)
        routes = proxy.routes()
        for learner, seat in zip(learners, seats):
            learner.process = str(routes.get(await seat.route(), "?"))
        if not fault:
            return
        await asyncio.sleep(max(0.0, args.fault_after - 0.5))  # from every page open
        counts: dict[str, int] = {}
        for learner in learners:
            counts[learner.process] = counts.get(learner.process, 0) + 1
        ports = [p for p in counts if p.isdigit()]
        if not ports:
            fault_info["error"] = "no learner found in nginx's access log"
            return
        port = int(max(ports, key=lambda p: counts[p]))
        pid = proxy.app_pids()[port]
        fault_info.update(port=port, pid=pid)
        os.kill(pid, signal.SIGKILL)

    def before_close() -> None:
        memory["rows"] = memory_rows(proxy, sampler.peaks)

    think = None if args.burst else C.seeded_think(args.think[0], args.think[1], args.seed)
    try:
        wall = await L.run_class(
            learners,
            seats,
            think=think,
            spread=0.0 if args.burst else args.spread,
            barrier=args.burst,
            during=side,
            before_close=before_close,
        )
    finally:
        sampler.stop()
    return {"learners": learners, "wall": wall, "memory": memory.get("rows", []), "fault": fault_info, "pids": pids}


def report(n: int, run: dict, args, title: str) -> None:
    learners = run["learners"]
    chromium = [x for x in learners if x.kind == "chromium"]
    protocol = [x for x in learners if x.kind == "protocol"]
    pace = "burst (all Enter at once)" if args.burst else f"class pace (think {args.think[0]:g}-{args.think[1]:g} s)"
    print(
        f"\n== {title}: {n} app process(es) behind nginx, {len(learners)} learners "
        f"({len(chromium)} in Chromium), {pace}"
    )
    print(f"   wall {run['wall']:.1f} s from the first action to the last learner's last")
    groups = {}
    if protocol:
        groups["protocol"] = protocol
    if chromium:
        groups["Chromium"] = chromium
    print(C.times_table(groups, kinds=("enter", "switch", "next")))
    spread: dict[str, int] = {}
    for x in learners:
        spread[x.process] = spread.get(x.process, 0) + 1
    print("   learners per app process (by port): " + ", ".join(f"{p}: {c}" for p, c in sorted(spread.items())))
    if run["memory"]:
        print(table(["process", "RSS MB", "peak MB"], run["memory"], title="   memory, every learner still connected"))
    errors, lost = sum(len(x.errors) for x in learners), sum(len(x.lost) for x in learners)
    print(f"   number checks passed {sum(x.checked for x in learners)}; errors {errors}; lost clicks {lost}")
    for line in C.problems(learners, 10):
        print(f"      {line}")
    fault = run["fault"]
    if fault:
        if "error" in fault:
            print(f"   fault: {fault['error']}")
            return
        victim = [x for x in learners if x.process == str(fault["port"])]
        hit = [x for x in learners if x.disconnects]
        others = [x for x in learners if x not in hit and x not in victim]
        # a Chromium page's drops are counted by its new websockets: each one hit came back
        back = [x for x in hit if x.reconnect_s or x.kind == "chromium"]
        rec = [s for x in hit for s in x.reconnect_s]
        print(
            f"   fault: app process :{fault['port']} (pid {fault['pid']}) killed {args.fault_after:g} s after the "
            f"pages opened, {len(victim)} learners on it by the access log before"
        )
        rows: list[list[object]] = [
            ["connection dropped", len(hit)],
            ["reconnected", len(back)],
            ["time to reconnect, p50 / max (s)", f"{p50(rec):.2f} / {max(rec):.2f}" if rec else "-"],
            ["kept their view (first answer after it: own sentence, token, step)", sum(1 for x in hit if x.view_kept)],
            ["first action after it showed the wrong thing (clicked again)", sum(1 for x in hit if x.lost_first)],
            ["actions in flight when it dropped (protocol / Chromium)", _split(hit, "cut_off")],
            ["  of which arrived anyway (carried by the reconnect, or replayed)", _split(hit, "carried")],
            ["  lost, and the page asked for them again (Chromium)", _split(hit, "asked_again")],
            ["  lost, clicked again (protocol: no page to ask)", _split(hit, "clicked_again")],
            ["  lost with nothing on the page to say so (Chromium)", _split(hit, "lost_silently")],
            ["seats whose page never reconnected (no new websocket)", sum(1 for x in victim if not x.disconnects)],
            ["actions whose answer never came (lost clicks, protocol / Chromium)", _lost(victim)],
            ["finished the lesson with every check right", sum(1 for x in hit if x.finished and not x.errors)],
            [
                "learners elsewhere who noticed anything (a drop or an error)",
                sum(1 for x in others if x.errors or x.lost),
            ],
        ]
        print(table(["after the kill", "learners"], rows))


def _split(learners: list[L.Learner], name: str) -> str:
    """``name``'s total over the protocol learners / over the Chromium pages."""
    total = {kind: sum(getattr(x, name) for x in learners if x.kind == kind) for kind in ("protocol", "chromium")}
    return f"{total['protocol']} / {total['chromium']}"


def _lost(learners: list[L.Learner]) -> str:
    """Lost clicks over the protocol learners / over the Chromium pages."""
    total = {kind: sum(len(x.lost) for x in learners if x.kind == kind) for kind in ("protocol", "chromium")}
    return f"{total['protocol']} / {total['chromium']}"


async def main_async(args) -> int:
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-proxy-") as tmp:
        async with contextlib.AsyncExitStack() as stack:
            browser = await stack.enter_async_context(chromium_async()) if args.browsers else None
            for n in args.processes:
                proxy = Proxy(n, Path(tmp) / f"run-{n}", args.base_path)
                try:
                    t0 = time.perf_counter()
                    proxy.start(args.start_timeout)
                    print(
                        f"\nserve.sh --processes {n}: ready at {proxy.url} after {time.perf_counter() - t0:.1f} s",
                        flush=True,
                    )
                    await warm(proxy, args.mode, args.timeout, args.seed)
                    run = await one_run(proxy, args, browser, fault=False)
                    report(n, run, args, "class")
                    failed |= any(x.errors or x.lost for x in run["learners"])
                    if args.fault:
                        await asyncio.sleep(2)
                        run = await one_run(proxy, args, browser, fault=True)
                        report(n, run, args, "fault")
                finally:
                    proxy.stop()
    print("\n" + machine(), flush=True)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--processes", type=int, nargs="+", default=[1, 2], help="app processes behind nginx, each N a run"
    )
    parser.add_argument("--learners", type=int, default=80, help="learners at once (Chromium pages included)")
    parser.add_argument("--browsers", type=int, default=2, help="how many of them are real Chromium pages")
    parser.add_argument("--mode", default="model", choices=L.MODES)
    parser.add_argument("--think", nargs=2, type=float, default=[3.0, 8.0], metavar=("MIN", "MAX"))
    parser.add_argument("--spread", type=float, default=10.0, help="learners start within this many seconds")
    parser.add_argument("--burst", action="store_true", help="everyone presses Enter at once, then clicks flat out")
    parser.add_argument("--fault", action="store_true", help="a second run with one app process killed mid-run")
    parser.add_argument("--fault-after", type=float, default=15.0, help="seconds after every page opened")
    parser.add_argument("--base-path", default="", help="serve under a sub-path, e.g. /attention-lab")
    parser.add_argument("--poll", type=int, default=50, help="ms between checks of a Chromium page")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds an answer may take before it is an error")
    parser.add_argument("--start-timeout", type=float, default=300.0, help="seconds for serve.sh to be ready")
    args = parser.parse_args()
    if args.browsers < 0 or args.browsers > args.learners:
        parser.error(f"--browsers must be between 0 and --learners ({args.learners})")
    on_sigterm_exit()
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
