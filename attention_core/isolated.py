"""Heavy checks in a child process: PyTorch runs there, never in the server, and can always be stopped.

"Check against PyTorch" imports torch (≈ 220 MB with the CPU build, ≈ 500 MB with the CUDA
build PyPI gives) and, on Real model heads, loads the model through sentence-transformers (the
server went from 337 to 780 MB and kept it until restarted). Run in the server's process it also
holds Python's lock for seconds, and every other learner's click waits. ``run_isolated`` runs
one such function in a fresh Python process and returns its result: the server never imports
torch, its memory comes back when the child ends, and the server's thread waits on a pipe, not
on Python's lock. One check runs at a time per server process (``SLOTS``); a second learner's
check waits for the first.

A check can always be stopped, and stopping it leaves nothing behind:

* The child is a plain ``subprocess`` (no ``multiprocessing``: no resource tracker, no
  semaphores to leak, no ``__main__`` of the server run again) in a process group of its own,
  so killing the group also kills anything the child started.
* Past its ``timeout`` the group is killed and the slot released at once (a
  ``ProcessPoolExecutor`` waited for a stuck child, and the slot stayed held).
* The waiting thread calls ``while_waiting`` every ``POLL_S`` seconds; whatever that raises
  kills the group, releases the slot and goes on up. The app passes a call that raises when
  the learner cancelled or Streamlit is stopping the session (``attention_ui.checks``).
* When the server exits, its ``atexit`` hook kills every child still running, and a child whose
  server died without that (SIGKILL) notices within ``POLL_S`` and exits.

>>> run_isolated("math", "factorial", 5)
120
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

SLOTS = threading.BoundedSemaphore(1)
"""Checks that may run at once in one server process (each child holds torch and perhaps the model)."""
TIMEOUT_S = 300.0
"""A check that takes longer than this is stopped: its process group is killed."""
POLL_S = 0.2
"""How often a waiting thread calls ``while_waiting``, and a child looks whether its server is alive."""
CHECKS_ENV = "ATTENTION_LAB_PYTORCH_CHECKS"
"""Set to ``off`` to hide the "check against PyTorch" buttons (small servers, the Cloud)."""
_ROOT = str(Path(__file__).resolve().parents[1])  # where attention_core is importable from

_running: set[subprocess.Popen] = set()  # the children of this process that may still run
_running_lock = threading.Lock()


class CheckFailed(RuntimeError):
    """The child ended without a result (killed from outside, out of memory, a crash)."""


def checks_enabled() -> bool:
    """Whether the app offers its PyTorch checks: not when $ATTENTION_LAB_PYTORCH_CHECKS is "off".

    >>> checks_enabled() in (True, False)
    True
    """
    return os.environ.get(CHECKS_ENV, "").strip().lower() not in ("off", "0", "false", "no")


def torch_installed() -> bool:
    """Whether torch could be imported here, found without importing it (the lean install has none).

    >>> torch_installed() in (True, False)
    True
    """
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):  # a finder that refuses torch (the lean-install test) raises
        return False


def running_children() -> list[int]:
    """The process ids of the checks this process runs now (each the leader of its group).

    >>> running_children()
    []
    """
    with _running_lock:
        return sorted(child.pid for child in _running)


def _kill(child: subprocess.Popen) -> None:
    """Kill the child's whole process group and reap the child."""
    if child.returncode is None:
        try:
            os.killpg(child.pid, signal.SIGKILL)  # its group: the child is its leader (start_new_session)
        except (ProcessLookupError, PermissionError):
            pass
        child.wait()
    with _running_lock:
        _running.discard(child)


@atexit.register
def _kill_all() -> None:
    """At the server's exit: no check outlives it (Streamlit's script threads are daemons, so
    a thread that waits for a check does not hold the exit back, and would leave its child)."""
    with _running_lock:
        children = list(_running)
    for child in children:
        _kill(child)


def _take_slot(while_waiting) -> None:
    """Wait for ``SLOTS``, calling ``while_waiting`` every ``POLL_S`` (so a wait can be cancelled)."""
    if while_waiting is None:
        SLOTS.acquire()
        return
    while not SLOTS.acquire(timeout=POLL_S):
        while_waiting()


def run_isolated(module: str, function: str, *args, timeout: float = TIMEOUT_S, while_waiting=None):
    """``module.function(*args)`` in a fresh child process; its result (or its exception).

    The arguments, the result and an exception must pickle. Raises TimeoutError after
    ``timeout`` seconds of the child's run, and CheckFailed when the child ended without a
    result; in both cases, and when ``while_waiting`` raises, the child's process group is
    killed before this returns.
    """
    payload = pickle.dumps((os.getpid(), module, function, args))
    _take_slot(while_waiting)
    try:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (_ROOT, os.environ.get("PYTHONPATH")))))
        child = subprocess.Popen(
            [sys.executable, "-m", "attention_core.isolated"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,  # a process group of its own: killed whole, and spared a terminal's Ctrl-C
        )
        with _running_lock:
            _running.add(child)
        try:
            out = _wait_for(child, payload, time.monotonic() + timeout, timeout, while_waiting)
        finally:
            _kill(child)
    finally:
        SLOTS.release()
    try:
        status, value = pickle.loads(out)
    except Exception as err:  # noqa: BLE001 - no result at all: say how the child ended
        raise CheckFailed(f"the check's process ended with code {child.returncode} and no result") from err
    if status == "error":
        raise value
    return value


def _wait_for(child: subprocess.Popen, payload: bytes, deadline: float, timeout: float, while_waiting) -> bytes:
    """The child's output once it ends; TimeoutError past ``deadline``."""
    given: bytes | None = payload
    while True:
        try:
            out, _ = child.communicate(given, timeout=POLL_S)
            return out
        except subprocess.TimeoutExpired:
            given = None  # sent already: communicate keeps writing it on the next call
        if time.monotonic() > deadline:
            raise TimeoutError(f"the check took longer than {timeout:.0f} s and was stopped")
        if while_waiting is not None:
            while_waiting()


# --------------------------------------------------------------------------- the child's side


def _watch_parent(parent: int) -> None:
    """In the child: exit as soon as the server that asked is gone (it was killed outright)."""
    while os.getppid() == parent:
        time.sleep(POLL_S)
    os._exit(1)


def _child_main() -> None:
    """Read (parent pid, module, function, args) from stdin, run it, write (status, value) to stdout.

    Only the result goes to the real stdout: anything the check prints goes to stderr (the
    server's log), so it cannot spoil the pickle.
    """
    result = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    parent, module, function, args = pickle.loads(sys.stdin.buffer.read())
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    try:
        answer = ("ok", getattr(importlib.import_module(module), function)(*args))
    except Exception as err:  # noqa: BLE001 - handed to the caller, who raises it
        answer = ("error", err)
    try:
        data = pickle.dumps(answer)
    except Exception as err:  # noqa: BLE001 - a result or exception that does not pickle
        data = pickle.dumps(("error", CheckFailed(f"the check's answer could not be sent: {err!r}")))
    result.write(data)
    result.flush()


if __name__ == "__main__":
    _child_main()
