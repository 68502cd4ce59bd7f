"""The PyTorch checks run in a child process: the server never imports torch (attention_core.isolated)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from attention_core import isolated
from attention_core.isolated import CheckFailed, checks_enabled, run_isolated, running_children, torch_installed
from tests.helpers import ROOT

CHILD_CHECK = """
import sys
from attention_core.encoder import encode
from attention_core.model_reference import compare
from attention_core.reference import compare_with_torch
from attention_core import scaled_dot_product_attention
import numpy as np
trace = encode("The boy thanked the girl because she had helped him")
found = compare(trace)
rng = np.random.default_rng(0)
small = compare_with_torch(scaled_dot_product_attention(*(rng.normal(size=(4, 3)) for _ in range(3))))
# VmHWM: this process's peak since exec (ru_maxrss would count the forked pytest's memory too)
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(found.weights, small.largest, "torch" in sys.modules, peak_kb)
"""


@pytest.mark.skipif(not torch_installed(), reason="the lean install has no PyTorch")
def test_the_checks_give_the_models_numbers_without_torch_in_this_process():
    out = subprocess.run(
        [sys.executable, "-c", CHILD_CHECK], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    ).stdout.split()
    weights, small, torch_here, peak_kb = float(out[0]), float(out[1]), out[2], int(out[3])
    assert weights < 1e-5 and small < 1e-12
    assert torch_here == "False", "the process that asked for the check imported torch"
    assert peak_kb < 500_000, f"the asking process peaked at {peak_kb / 1000:.0f} MB: torch or the model came in"


def test_a_child_failure_reaches_the_caller():
    with pytest.raises(ZeroDivisionError):
        run_isolated("operator", "truediv", 1, 0)


def test_the_checks_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_PYTORCH_CHECKS", "off")
    assert not checks_enabled()
    monkeypatch.setenv("ATTENTION_LAB_PYTORCH_CHECKS", "on")
    assert checks_enabled()


def test_without_torch_the_model_check_says_so(monkeypatch):
    from attention_core import model_reference
    from attention_core.encoder import encode
    from attention_core.model_files import ModelUnavailable

    monkeypatch.setattr(model_reference, "torch_installed", lambda: False)
    with pytest.raises(ModelUnavailable) as err:
        model_reference.compare(encode("the cat sat"))
    assert err.value.reason == "no_torch"


@pytest.mark.parametrize("page", ["pages/real_model.py", "pages/code.py"])
def test_switched_off_the_buttons_are_gone_and_the_page_says_why(monkeypatch, page):
    from attention_ui.i18n import translate
    from tests.helpers import open_link

    monkeypatch.setenv("ATTENTION_LAB_PYTORCH_CHECKS", "off")
    at = open_link(page, toy="false", sentence="the cat sat")
    assert not [b for b in at.button if b.key in ("torch_check", "code_torch_button")]
    assert translate("en", "shell.checks_off") in [c.value for c in at.caption]


def test_the_child_does_not_run_the_script_that_asked(tmp_path, monkeypatch):
    """Streamlit (and AppTest) make the page script of the latest run ``__main__``; a spawn child
    runs ``__main__``'s file before anything else. It must not: here that file fails at once."""
    script = tmp_path / "page.py"
    script.write_text("raise SystemExit('the page ran again in the child')\n")
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", page)
    assert run_isolated("math", "factorial", 5) == 120
    assert sys.modules["__main__"] is page  # given back after the child started


# --------------------------------------------------------------------------- stopping a check


def group_members(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (from /proc; zombies do not count)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry))
    return members


def wait_until(condition, within: float = 30.0) -> bool:
    """Poll ``condition`` until it holds (True) or ``within`` seconds pass (False). Not a timing
    check: the bound is only there so that a failure ends."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


class Cancelled(Exception):
    """What the app's ``while_waiting`` raises when a learner cancels (Streamlit's RerunException)."""


class Recorded:
    """A ``while_waiting`` that notes the check's process group (and the processes in it, once
    the child's own child has started) and can be told to raise."""

    def __init__(self, raise_after_members: int = 0):
        self.groups: set[int] = set()
        self.members: set[int] = set()
        self.raise_after_members = raise_after_members

    def __call__(self):
        for pid in running_children():
            self.groups.add(pid)
            self.members.update(group_members(pid))
        if self.raise_after_members and len(self.members) >= self.raise_after_members:
            raise Cancelled("cancelled by the test")


def slot_is_free() -> bool:
    if isolated.SLOTS.acquire(blocking=False):
        isolated.SLOTS.release()
        return True
    return False


def test_a_check_past_its_timeout_is_killed_with_its_group_and_frees_the_slot():
    """The child starts a grandchild (``sleep``) and waits for it; at the timeout both go, and the
    next check runs at once instead of waiting behind the stuck one."""
    seen = Recorded()
    with pytest.raises(TimeoutError):
        run_isolated("subprocess", "call", ["sleep", "600"], timeout=15, while_waiting=seen)  # started by then
    assert seen.groups, "the check ran in a process group of its own"
    assert len(seen.members) == 2, f"the child and its sleep were both seen: {seen.members}"
    # SIGKILL goes to the whole group; the grandchild dies when it next runs, so wait for that
    assert wait_until(lambda: all(group_members(g) == [] for g in seen.groups)), "a process of the check lives on"
    assert running_children() == [] and slot_is_free()
    assert run_isolated("math", "factorial", 4, timeout=120) == 24


def test_what_while_waiting_raises_stops_the_check_and_goes_up():
    seen = Recorded(raise_after_members=2)
    with pytest.raises(Cancelled):
        run_isolated("subprocess", "call", ["sleep", "600"], while_waiting=seen)
    assert len(seen.members) == 2
    assert wait_until(lambda: all(group_members(g) == [] for g in seen.groups)), "a process of the check lives on"
    assert running_children() == [] and slot_is_free()


def test_a_check_waiting_for_the_slot_can_be_cancelled_before_it_starts():
    stop_first, outcome = threading.Event(), []

    def first_waits():
        if stop_first.is_set():
            raise Cancelled("the first learner cancelled")

    def first():
        try:
            run_isolated("time", "sleep", 600, while_waiting=first_waits)
        except Cancelled as err:
            outcome.append(err)

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert wait_until(lambda: running_children() != [])
        running = running_children()

        def second_waits():
            assert running_children() == running, "the second check started a child while the first held the slot"
            raise Cancelled("the second learner cancelled")

        with pytest.raises(Cancelled, match="second learner"):
            run_isolated("math", "factorial", 3, while_waiting=second_waits)
        assert running_children() == running, "the first check runs on"
    finally:
        stop_first.set()
        thread.join(timeout=60)
    assert outcome and running_children() == [] and slot_is_free()


def test_a_child_that_dies_without_an_answer_says_so():
    with pytest.raises(CheckFailed, match="code -9"):
        run_isolated("os", "kill", 0, signal.SIGKILL)  # the child kills its own group


def test_what_the_check_prints_does_not_spoil_its_answer():
    assert run_isolated("builtins", "print", "noise on stdout") is None


SERVER = """
import sys, threading, time
from attention_core.isolated import run_isolated, running_children
threading.Thread(target=run_isolated, args=("time", "sleep", 600), daemon=True).start()
while not running_children():
    time.sleep(0.05)
print(running_children()[0], flush=True)
sys.stdin.readline()  # the test has seen the child: exit now (a SIGKILL may come first)
"""


@pytest.mark.parametrize("how", ["exits", "killed"])
def test_no_check_outlives_its_server(how):
    """A server that exits (a script thread still waiting, as at a SIGTERM) kills its checks
    on the way out; a server killed outright (SIGKILL) leaves a child that exits by itself."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        child = int(server.stdout.readline())
        assert group_members(child) == [child]
        if how == "killed":
            server.kill()
        else:
            server.stdin.write("\n")
            server.stdin.flush()
        server.wait(timeout=120)  # without the exit hook it would wait (or leave the child) for 600 s
        assert wait_until(lambda: group_members(child) == []), f"the check's child {child} outlived its server"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
