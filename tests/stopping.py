"""Stopping the app while a PyTorch check runs: what tests/browser/test_stopping.py checks and
bench/bench_stop.py times, in one place.

A learner's Chromium page asks for a check (The code, on the toy embedder: the check that starts
fastest), the check's child process appears below the server, the server (or serve.sh) gets
SIGTERM, and ``stop_and_watch`` notes how long until the signalled process exited and until
every process seen below it was gone, which are left, and whether a log speaks of leaked
semaphores (multiprocessing's resource tracker, which the old ProcessPoolExecutor started).
Processes are told apart by pid *and* start time, so a pid that Linux gives to a new process
after ours ended is not taken for a survivor.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

CHILD_MARKS = ("attention_core.isolated", "multiprocessing")
"""What a check's child process has in its command line (now; and the spawn child and resource
tracker of the ProcessPoolExecutor before, for timing the old code beside the new)."""
CHECK_PAGE = "code?toy=true&lang=en&sentence=the+cat+sat+on+the+mat"
CHECK_BUTTON = re.compile("Run the same in PyTorch")
CANCEL_BUTTON = re.compile("Cancel the check")
LEAK_WORDS = ("leaked semaphore", "resource_tracker")


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after "pid (comm)": state, ppid, pgrp, session, ..."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot), None when there is no such live process."""
    fields = _stat(pid)
    if fields is None or fields[0] == "Z":
        return None
    return int(fields[19])


def tree(pid: int) -> set[int]:
    """``pid`` and every live process below it now."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
    found, todo = {pid} if pid in parents else set(), [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def check_children(pid: int) -> list[int]:
    """The processes below ``pid`` that belong to a check (``CHILD_MARKS``)."""
    return sorted(p for p in tree(pid) - {pid} if any(mark in cmdline(p) for mark in CHILD_MARKS))


def wait_for(condition, within: float, poll: float = 0.02):
    """``condition()``'s first true value within ``within`` seconds, else its last (false) one."""
    deadline = time.monotonic() + within
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(poll)


@dataclass
class Noted:
    """Processes noted with their start times; ``alive()`` gives those still running."""

    started: dict[int, int] = field(default_factory=dict)

    def add(self, pids) -> None:
        for pid in pids:
            begun = start_time(pid)
            if begun is not None:
                self.started.setdefault(pid, begun)

    def alive(self) -> list[int]:
        return sorted(pid for pid, begun in self.started.items() if start_time(pid) == begun)


def ask_for_a_check(page, base_url: str, wait_for_app, root_pid: int, within: float = 120.0) -> list[int]:
    """Open The code in ``page``, press "Run the same in PyTorch" and wait for the check's child
    to run below ``root_pid``; return its pids ([] if none came within ``within`` s)."""
    page.goto(base_url + CHECK_PAGE)
    wait_for_app(page)
    page.get_by_role("button", name=CHECK_BUTTON).click()
    return wait_for(lambda: check_children(root_pid), within)


@dataclass
class Stopped:
    exit_s: float  # from the signal until the signalled process exited
    gone_s: float  # until every process noted below it was gone too
    code: int | None  # the signalled process's exit code (None: it did not exit)
    left: list[int]  # noted processes still running at the end
    left_commands: list[str]
    killed: bool = False  # serve.sh said it had to SIGKILL what SIGTERM did not stop


def stop_and_watch(proc: subprocess.Popen, noted: Noted, within: float = 30.0, sig: int = signal.SIGTERM) -> Stopped:
    """``sig`` (SIGTERM: as systemd or a terminal's kill would send it) to ``proc`` alone; wait up
    to ``within`` s for it and for every ``noted`` process to end."""
    noted.add(tree(proc.pid))
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        code = proc.wait(timeout=within)
    except subprocess.TimeoutExpired:
        code = None
    exit_s = time.monotonic() - t0
    wait_for(lambda: not noted.alive(), max(0.0, within - exit_s))
    gone_s = time.monotonic() - t0
    left = noted.alive()
    return Stopped(exit_s, gone_s, code, left, [cmdline(pid)[:120] for pid in left])


def leaks(text: str) -> list[str]:
    """The lines of a log that speak of leaked semaphores or the resource tracker."""
    return [line for line in text.splitlines() if any(word in line for word in LEAK_WORDS)]


def kill_left(pids) -> None:
    """Last resort after a failed check: SIGKILL what is still running (noted pids only)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
