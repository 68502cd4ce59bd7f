"""How nginx spreads a class over the app processes: ``deploy/serve.sh``'s real configuration,
run by nginx in front of stand-in processes, against the consistent hash it replaced, in one run.

    python -m bench.bench_balance                       # 200 classes of 60, 2 and 3 processes
    python -m bench.bench_balance --classes 50 --size 30 --processes 2

For each number of processes N in ``--processes``: N stand-ins (tiny HTTP servers on free ports
that answer their own name) and ``bash deploy/serve.sh --processes 0 --upstream …`` in front of
them, i.e. nginx with the very configuration a school gets. Each class is ``--size`` browsers
arriving at once (threads, no cookie: every phone's first visit); the process that answered each
one is counted. The reference is the same configuration with the new browsers' balancing
replaced by what serve.sh used before (``hash $request_id consistent``: each first visit a
random 128-bit id, hashed on nginx's ring), on the same ports, in the same run. A fresh port
block per class for the reference, since the ring depends on the processes' addresses.

Printed per N and per configuration: the largest share of one class on one process (median,
95th percentile, max) and how many classes would lose more than 55 % of their learners when
that process dies. Then one pinned browser per process is checked to stay on its process
(stickiness), and to move to another, and stay there, when its process stops.
This script prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import http.server
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.core import ROOT, machine, p50, percentile, process_group, table
from harness.stand_in import StandIn

NOW = "    upstream attention_lab {\n"
REFERENCE = NOW + "        hash $request_id consistent;\n"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def nginx_in_front(stand_ins: list[StandIn], run_dir: Path, swap: tuple[str, str] | None = None):
    """serve.sh's nginx in front of the stand-ins; ``swap`` = (old, new): the configuration
    serve.sh wrote, with ``old`` replaced by ``new`` (the reference), run by nginx itself."""
    port = free_port()
    cmd = ["bash", "deploy/serve.sh", "--processes", "0", "--port", str(port), "--run-dir", str(run_dir)]
    for s in stand_ins:
        cmd += ["--upstream", f"127.0.0.1:{s.port}"]
    if swap is not None:
        subprocess.run([*cmd, "--check-config"], cwd=ROOT, check=True, capture_output=True)
        conf = run_dir / "nginx.conf"
        text = conf.read_text()
        assert swap[0] in text, f"{swap[0]} is not in serve.sh's configuration"
        conf.write_text(text.replace(swap[0], swap[1], 1))
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        args = [nginx, "-p", str(run_dir), "-c", str(conf), "-e", str(run_dir / "logs/error.log")]
        cmd = [*args, "-g", "daemon off;"]
    with process_group(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):  # stopped whole at the end
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if get(port)[0] == 200:
                    break
            time.sleep(0.1)
        yield port


def get(port: int, cookie: str = "") -> tuple[int, str, str]:
    """(status, who answered, the route cookie nginx set or "")."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/", headers={"Cookie": cookie} if cookie else {})
        r = conn.getresponse()
        body = r.read().decode()
        found = re.match(r"attention_lab_route=([^;]*)", r.getheader("Set-Cookie") or "")
        return r.status, body, found.group(1) if found else ""
    finally:
        conn.close()


def one_class(port: int, size: int, pool: ThreadPoolExecutor) -> dict[str, int]:
    """``size`` first visits at once: who answered how many."""
    counts: dict[str, int] = {}
    for _, who, _ in pool.map(lambda _: get(port), range(size)):
        counts[who] = counts.get(who, 0) + 1
    return counts


def shares(classes: list[dict[str, int]], size: int) -> list[float]:
    return [max(c.values()) / size for c in classes]


def sticky_check(port: int, stand_ins: list[StandIn]) -> str:
    """One browser per process: stays; then its process stops, it moves and stays moved."""
    pinned: dict[str, str] = {}
    for _ in range(4 * len(stand_ins)):
        _, who, route = get(port)
        pinned.setdefault(who, f"attention_lab_route={route}")
    stays = all(get(port, cookie)[1] == who for who, cookie in pinned.items() for _ in range(5))
    victim = stand_ins[0]
    victim.close()
    _, moved_to, new_route = get(port, pinned[victim.name])
    again = [get(port, f"attention_lab_route={new_route}")[1] for _ in range(5)] if new_route else []
    return (
        f"   stickiness: {len(pinned)} browsers, 5 requests each, on their own process: {stays}; "
        f"{victim.name} stopped: its browser moved to {moved_to}, re-pinned ({new_route or 'no cookie'}), "
        f"then {again.count(moved_to)}/5 on {moved_to}"
    )


def run(n: int, args, tmp: Path) -> None:
    configs = {
        "serve.sh now (round robin, cookie names the process)": None,
        "before (hash $request_id consistent)": (NOW, REFERENCE),
    }
    rows = []
    sticky = ""
    with ThreadPoolExecutor(max_workers=min(args.size, 32)) as pool:
        for label, swap in configs.items():
            classes: list[dict[str, int]] = []
            blocks = 1 if swap is None else args.classes  # the ring depends on the addresses
            per_block = args.classes // blocks
            for b in range(blocks):
                stand_ins = [StandIn(f"app{i + 1}") for i in range(n)]
                run_dir = tmp / f"n{n}-{'ref' if swap else 'now'}-{b}"
                try:
                    with nginx_in_front(stand_ins, run_dir, swap) as port:
                        classes += [one_class(port, args.size, pool) for _ in range(per_block)]
                        if swap is None:
                            sticky = sticky_check(port, stand_ins)
                finally:
                    for s in stand_ins:
                        with contextlib.suppress(OSError):
                            s.close()
            big = shares(classes, args.size)
            over = sum(1 for s in big if s > 0.55)
            rows.append(
                [
                    label,
                    len(classes),
                    f"{p50(big):.0%}",
                    f"{percentile(big, 95):.0%}",
                    f"{max(big):.0%}",
                    f"{over} ({over / len(classes):.0%})",
                ]
            )
    print(
        table(
            ["configuration", "classes", "largest share p50", "p95", "max", "classes > 55 %"],
            rows,
            title=f"\n== {n} processes, classes of {args.size} first visits at once (even: {1 / n:.0%})",
        )
    )
    print(sticky, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--classes", type=int, default=200, help="classes per configuration")
    parser.add_argument("--size", type=int, default=60, help="learners per class")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-balance-") as tmp:
        for n in args.processes:
            run(n, args, Path(tmp))
    print("\n" + machine(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
