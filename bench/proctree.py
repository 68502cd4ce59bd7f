"""Memory and CPU of a server's process tree, read from /proc (Linux), for the benchmarks.

Shared by bench_app.py and bench_load.py: the Streamlit server may start children, so every
figure is summed over the process and all its descendants.
"""

from __future__ import annotations

import os
import threading


def tree_pids(pid: int) -> list[int]:
    """``pid`` and all its descendants (those still alive)."""
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        if not os.path.exists(f"/proc/{p}"):
            continue
        pids.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return pids


def status_kb(pid: int, key: str) -> int:
    """One kB field of /proc/<pid>/status (VmRSS, VmHWM, …); 0 if the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def tree_rss_bytes(pid: int) -> int:
    """Resident memory of the tree now."""
    return sum(status_kb(p, "VmRSS") for p in tree_pids(pid)) * 1024


def tree_hwm_bytes(pid: int) -> int:
    """Sum of the kernel's peak resident memory (VmHWM) over the tree."""
    return sum(status_kb(p, "VmHWM") for p in tree_pids(pid)) * 1024


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds used so far by the tree (from /proc/<pid>/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in tree_pids(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total / ticks


class RssSampler(threading.Thread):
    """The largest tree RSS seen (since start or the last ``reset``), every ``interval`` s."""

    def __init__(self, pid: int, interval: float = 0.1):
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak = pid, interval, 0
        self._halt = threading.Event()

    def run(self):
        while not self._halt.is_set():
            self.peak = max(self.peak, tree_rss_bytes(self.pid))
            self._halt.wait(self.interval)

    def reset(self) -> None:
        self.peak = tree_rss_bytes(self.pid)

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=2)


def pin(server_pid: int, server_cpus: list[int], client_cpus: list[int]) -> str:
    """Put the server's threads on ``server_cpus`` and this process (and what it starts later,
    e.g. Chromium) on ``client_cpus``, so that server and clients do not share a core.

    A classroom's learners each draw their page on their own laptop; on one benchmark machine
    the clients would otherwise take the server's CPU. Returns a description for the report.
    Example: ``pin(server.process.pid, [0], [1])`` on a 2-core machine.
    """
    if not server_cpus:
        return "server and clients share all CPUs"
    for p in tree_pids(server_pid):
        for task in os.listdir(f"/proc/{p}/task"):
            os.sched_setaffinity(int(task), set(server_cpus))
    if client_cpus:
        os.sched_setaffinity(0, set(client_cpus))
    return f"server on CPUs {server_cpus}, clients on {client_cpus or 'all'}"
