"""How long the app takes to stop on SIGTERM, idle and while a PyTorch check runs.

    python -m bench.bench_stop                       # 5 tries of each case
    python -m bench.bench_stop --tries 8 --reference /tmp/old   # and a checkout of older code beside it

Cases, each on a fresh server per try, with a learner's Chromium page open:

* ``streamlit run``, idle (the page open, nothing running): Streamlit's own stop, the baseline;
* ``streamlit run`` while a check runs (The code, toy embedder: "Run the same in PyTorch" pressed,
  the signal sent as soon as the check's child process is up);
* ``deploy/serve.sh --processes 2`` (nginx in front) while a check runs on one process; the
  signal goes to serve.sh alone, as systemd or Ctrl-C send it.

For each: the time from SIGTERM until the signalled process exited and until every process seen
below it (the apps, nginx, the check's child; the old code's resource tracker) was gone, how many
tries left a process running 30 s after the signal, and how many logs spoke of leaked semaphores.
``--reference DIR`` runs the same cases from another checkout (e.g. ``git worktree add /tmp/old
<commit>``) in the same run, side by side. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from bench.core import (
    ROOT,
    chromium,
    free_port,
    machine,
    on_sigterm_exit,
    p50,
    process_group,
    streamlit_server,
    table,
    wait_idle,
)
from tests.stopping import Noted, Stopped, ask_for_a_check, leaks, stop_and_watch

CASES = ("streamlit run, idle", "streamlit run, check", "serve.sh, check")


def wait_page(page) -> None:
    wait_idle(page, timeout=180.0, settle=0.4)


@contextlib.contextmanager
def serve_sh(tree: Path, processes: int = 2):
    """``deploy/serve.sh`` of ``tree`` on free ports, until its "ready at" line; yields (Popen, URL, logs)."""
    port = free_port()
    while any(_busy(p) for p in range(port + 1, port + 1 + processes)):
        port = free_port()
    run_dir = Path(tempfile.mkdtemp(prefix="bench-stop-"))
    out = run_dir / "serve.out"
    cmd = ["bash", str(tree / "deploy" / "serve.sh"), "--processes", str(processes), "--port", str(port)]
    cmd += ["--listen", "127.0.0.1", "--run-dir", str(run_dir / "run")]

    def logs() -> str:
        texts = [out.read_text(errors="replace")]
        texts += [p.read_text(errors="replace") for p in sorted((run_dir / "run" / "logs").glob("*.log"))]
        return "\n".join(texts)

    with (
        out.open("w") as sink,
        process_group(cmd, term_wait=20, cwd=tree, stdout=sink, stderr=subprocess.STDOUT) as proc,
    ):
        deadline = time.monotonic() + 300
        while not re.search(r"^serve\.sh: ready at ", out.read_text(), re.M):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve.sh did not start:\n{logs()[-3000:]}")
            time.sleep(0.2)
        yield proc, f"http://127.0.0.1:{port}/", logs


def _busy(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def one_try(browser, case: str, tree: Path) -> tuple[Stopped, int]:
    """One fresh server of ``tree``, one page, SIGTERM; (what stopped when, leaked-semaphore lines)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    try:
        noted = Noted()
        if case == "serve.sh, check":
            with serve_sh(tree) as (proc, url, logs):
                if not ask_for_a_check(page, url, wait_page, proc.pid):
                    raise RuntimeError("no check started")
                stopped = stop_and_watch(proc, noted)
                text = logs()
                stopped.killed = "still running after" in text  # serve.sh had to SIGKILL
                return stopped, len(leaks(text))
        with streamlit_server(cwd=tree, timeout=180.0) as srv:
            if case == "streamlit run, idle":
                page.goto(srv.url + "code?toy=true&lang=en")
                wait_page(page)
            elif not ask_for_a_check(page, srv.url, wait_page, srv.pid):
                raise RuntimeError("no check started")
            assert srv.proc is not None
            stopped = stop_and_watch(srv.proc, noted)
            return stopped, len(leaks(srv.log_tail(1_000_000)))
    finally:
        context.close()
        for pid in noted.alive():  # never leave a survivor to the next try
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def main() -> None:
    on_sigterm_exit()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tries", type=int, default=5)
    parser.add_argument("--reference", type=Path, help="a checkout of older code, timed beside this one")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    args = parser.parse_args()
    trees = {"this": ROOT} | ({"reference": args.reference.resolve()} if args.reference else {})
    results: dict[tuple[str, str], list[tuple[Stopped, int]]] = {}
    failures: dict[tuple[str, str], int] = {}
    with chromium() as browser:
        for n in range(args.tries):  # interleaved: a slow spell of the machine hits every case alike
            for case in args.cases:
                for name, tree in trees.items():
                    try:
                        got = one_try(browser, case, tree)
                    except Exception as err:  # noqa: BLE001 - one failed try is reported, the run goes on
                        failures[(case, name)] = failures.get((case, name), 0) + 1
                        print(f"try {n + 1} {case} [{name}]: FAILED {type(err).__name__}: {err}"[:300], flush=True)
                        continue
                    results.setdefault((case, name), []).append(got)
                    stopped = got[0]
                    print(f"try {n + 1} {case} [{name}]: exit {stopped.exit_s:.2f} s, all gone {stopped.gone_s:.2f} s"
                          f", left {stopped.left_commands}, leak lines {got[1]}, serve.sh killed: "
                          f"{stopped.killed}", flush=True)  # fmt: skip
    rows = []
    for (case, name), tries in results.items():
        exits = [s.exit_s for s, _ in tries]
        gone = [s.gone_s for s, _ in tries]
        rows.append(
            [
                case,
                name,
                len(tries),
                f"{p50(exits):.2f}",
                f"{min(exits):.2f}–{max(exits):.2f}",
                f"{p50(gone):.2f}",
                f"{min(gone):.2f}–{max(gone):.2f}",
                sum(bool(s.left) for s, _ in tries),
                sum(leak > 0 for _, leak in tries),
                sum(s.killed for s, _ in tries),
                failures.get((case, name), 0),
            ]
        )
    print()
    print(machine())
    print(
        table(
            ["case", "code", "tries", "exit s (median)", "exit s (range)", "all gone s (median)", "all gone s (range)"]
            + ["tries with survivors", "tries with leak lines", "serve.sh killed", "failed tries"],
            rows,
            title="SIGTERM: until the signalled process exited, and until every process below it was gone",
        )
    )


if __name__ == "__main__":
    main()
