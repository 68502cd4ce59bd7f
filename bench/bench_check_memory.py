"""Memory of a "Check against PyTorch": the server, and the child process that runs the check.

    python -m bench.bench_check_memory [--runs 3]

Starts the app (this Python, its environment: install requirements-check.txt first), opens Real
model heads in Chromium on the default sentence, then presses "Check against PyTorch" ``--runs``
times. For each press it samples, every 50 ms, the resident memory (RSS) of the server process
and of its children (the check runs PyTorch in a child process, attention_core/isolated.py), and
prints: the server before the press, the peak of server + child together, the child's own peak,
the server after the child ended, and how long the check took. Medians over the runs.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from bench.core import status_kb, tree_pids
from harness import launch_browser, streamlit_server, wait_for_app

MB = 1024 * 1024


class Sampler(threading.Thread):
    """Peak RSS of the server alone, of its children alone and of both, every ``interval`` s."""

    def __init__(self, server_pid: int, interval: float = 0.05):
        super().__init__(daemon=True)
        self.server_pid, self.interval = server_pid, interval
        self.server = self.children = self.both = 0
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            server = status_kb(self.server_pid, "VmRSS") * 1024
            children = sum(status_kb(p, "VmRSS") for p in tree_pids(self.server_pid)[1:]) * 1024
            self.server, self.children = max(self.server, server), max(self.children, children)
            self.both = max(self.both, server + children)
            self.halt.wait(self.interval)


def streamlit_pid(launcher_pid: int) -> int:
    """The Python process that runs Streamlit (the launcher itself, as ``python -m streamlit``)."""
    return launcher_pid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with streamlit_server() as server, launch_browser() as browser:
        pid = streamlit_pid(server.process.pid)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(server.url + "real_model?lang=en")
        wait_for_app(page)
        for run in range(args.runs):
            time.sleep(2.0)
            before = status_kb(pid, "VmRSS") * 1024
            sampler = Sampler(pid)
            sampler.start()
            start = time.monotonic()
            page.get_by_role("button", name="Check against PyTorch").click()
            try:  # the result's first words, in bold (real_model.check_text)
                result = page.locator("strong", has_text="Largest difference between our weights")
                result.first.wait_for(timeout=300_000)
            except Exception:
                page.screenshot(path="/tmp/bench_check_memory.png", full_page=True)
                raise
            took = time.monotonic() - start
            while len(tree_pids(pid)) > 1 and time.monotonic() - start < 300:
                time.sleep(0.1)  # the child ends with the check
            time.sleep(2.0)
            sampler.halt.set()
            sampler.join()
            after = status_kb(pid, "VmRSS") * 1024
            rows.append((before, sampler.both, sampler.children, after, took))
            print(
                f"run {run + 1}: server {before / MB:.0f} MB before, server + child peak {sampler.both / MB:.0f} MB, "
                f"child peak {sampler.children / MB:.0f} MB, server {after / MB:.0f} MB after, check {took:.1f} s",
                flush=True,
            )
            page.reload()
            wait_for_app(page)
    med = [statistics.median(r[i] for r in rows) for i in range(5)]
    print(
        f"median of {len(rows)}: server {med[0] / MB:.0f} MB before, server + child peak {med[1] / MB:.0f} MB, "
        f"child peak {med[2] / MB:.0f} MB, server {med[3] / MB:.0f} MB after, check {med[4]:.1f} s"
    )


if __name__ == "__main__":
    main()
