"""Nothing a server starts outlives the process that started it, even killed outright (issue 44):
``attention_ui/lifeline.py`` and ``harness.process_group``, with stand-ins (``sleep``, a small
Python) for the servers. serve.sh itself, SIGKILLed with its apps and nginx running, is in
tests/test_deploy.py (``test_serve_sh_killed_outright_leaves_nothing``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.stopping import Noted, tree, wait_for

ROOT = Path(__file__).resolve().parents[1]
LIFELINE = ROOT / "attention_ui" / "lifeline.py"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")


def _start(code: str, *args: str) -> tuple[subprocess.Popen, list[int]]:
    """A Python "bench" running ``code``, in a session of its own; its first line of output
    (pids, space-separated) once it has printed it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip(), f"the bench printed nothing (exit {proc.poll()})"
    return proc, [int(word) for word in line.split()]


def _killed_outright(proc: subprocess.Popen, children: list[int], within: float = 8.0) -> list[int]:
    """SIGKILL ``proc`` alone; the noted ``children`` (and everything below them) still alive
    ``within`` seconds later."""
    noted = Noted()
    for child in children:
        noted.add(tree(child))
    assert noted.alive(), "the children ran before the kill"
    proc.kill()
    proc.wait(timeout=10)
    wait_for(lambda: not noted.alive(), within)
    left = noted.alive()
    for pid in left:  # leave nothing behind, whatever the test says
        os.kill(pid, signal.SIGKILL)
    return left


BENCH = """
import sys, time
from harness import process_group
serve = 'sleep 300 & trap "kill $!; exit 143" TERM; wait'  # serve.sh's way: its trap stops what it started
with process_group(["sleep", "300"]) as first, process_group(["bash", "-c", serve]) as second:
    print(first.pid, second.pid, flush=True)
    time.sleep(300)
"""


def test_a_bench_killed_outright_takes_its_servers_with_it():
    """SIGKILL to a bench that started two process groups (one a shell that stops its own child
    on SIGTERM, as serve.sh does): every process of both is gone within seconds. Before, each
    lived on with no parent (PPID 1): a killed script left 8 app processes of serve.sh running.
    (The SIGTERM goes to the group's leader: what it started is its to stop.)"""
    proc, pids = _start(BENCH)
    assert _killed_outright(proc, pids) == []


def test_sigterm_to_a_bench_stops_its_servers_through_the_finally():
    """SIGTERM to the bench ends it like Ctrl-C (``harness.Terminated``, a KeyboardInterrupt): its
    ``process_group`` blocks end and stop their groups."""
    proc, pids = _start(BENCH)
    noted = Noted()
    for pid in pids:
        noted.add(tree(pid))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 1  # ended by the exception (the signal itself, -15, would run no finally)
    assert wait_for(lambda: not noted.alive(), 10.0), noted.alive()


def test_the_command_wrapper_becomes_the_program_and_dies_with_the_parent():
    """``lifeline.py PID -- COMMAND`` (how serve.sh runs nginx) is COMMAND itself (same pid) and
    gets SIGTERM when PID dies."""
    code = f"""
import subprocess, sys, time
child = subprocess.Popen([sys.executable, {str(LIFELINE)!r}, str(__import__("os").getpid()), "--", "sleep", "300"])
time.sleep(0.5)
print(child.pid, flush=True)
time.sleep(300)
"""
    proc, (child,) = _start(code)
    assert wait_for(lambda: Path(f"/proc/{child}/cmdline").read_bytes().startswith(b"sleep\0"), 10.0), "it became sleep"
    assert _killed_outright(proc, [child]) == []


def test_the_command_wrapper_refuses_a_parent_that_is_not_its_own():
    """A parent already gone (or not the parent at all) when the wrapper asks: it starts nothing."""
    done = subprocess.run(
        [sys.executable, str(LIFELINE), "1", "--", "sleep", "300"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode != 0 and "is gone; not starting sleep" in done.stderr
    usage = subprocess.run([sys.executable, str(LIFELINE), "sleep"], capture_output=True, text=True, timeout=30)
    assert usage.returncode != 0 and "usage:" in usage.stderr


APP = """
import os, signal, sys, time
sys.path.insert(0, {root!r})
import importlib.util
spec = importlib.util.spec_from_file_location("lifeline", {lifeline!r})
lifeline = importlib.util.module_from_spec(spec); spec.loader.exec_module(lifeline)
if sys.argv[1] == "deaf":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # an app stuck in its shutdown
os.environ[lifeline.PARENT_ENV] = sys.argv[2]
lifeline.GRACE_S = 1.0
lifeline.die_with_parent_named_in_env()
assert lifeline.PARENT_ENV not in os.environ
time.sleep(300)
"""


@pytest.mark.parametrize("app", ["listening", "deaf"])
def test_an_app_dies_with_the_parent_named_in_its_environment(app):
    """What attention_ui.launch does with $ATTENTION_LAB_PARENT_PID: the app gets SIGTERM when its
    parent dies, and one that does not stop on it is ended ``GRACE_S`` later by the watching thread."""
    app_code = APP.format(root=str(ROOT), lifeline=str(LIFELINE))
    code = f"""
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {app_code!r}, {app!r}, str(os.getpid())])
time.sleep(1.0)
print(child.pid, flush=True)
time.sleep(300)
"""
    proc, (child,) = _start(code)
    assert _killed_outright(proc, [child], within=6.0) == []


def test_an_app_whose_parent_is_gone_already_does_not_start():
    """The parent named is not this process's parent (it died before the app asked): exit at once."""
    code = APP.format(root=str(ROOT), lifeline=str(LIFELINE))
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code, "listening", "1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "(pid 1) is gone; exiting" in done.stderr
    assert time.monotonic() - t0 < 30
