"""Processes that die with the process that started them: nothing a server starts outlives it,
even when it is killed outright (SIGKILL), which no trap and no ``finally`` can see.

Linux sends a process a signal of its choice when its parent dies, if it asks for it
(``prctl(PR_SET_PDEATHSIG)``; the request survives ``exec``, so a wrapper can ask for the
program it becomes). Asked too late, the parent may be gone already: so every caller asks first
and then checks that its parent is still the one it expects (``tie_to_parent``).

Three users, one mechanism:

* ``deploy/serve.sh`` starts each app process with ``ATTENTION_LAB_PARENT_PID=$$``:
  ``attention_ui.launch`` calls ``die_with_parent_named_in_env`` before anything else. When
  serve.sh dies, however it dies, the app gets SIGTERM and stops as it does on a Ctrl-C (its
  PyTorch checks with it: each watches its own parent, ``attention_core.isolated``). A thread
  watches too (every ``POLL_S``): it sends the SIGTERM where Linux cannot, and ends the process
  ``GRACE_S`` seconds later if the SIGTERM did not.
* serve.sh runs nginx through this file (``python attention_ui/lifeline.py PID -- nginx …``),
  which asks for SIGTERM (nginx's fast shutdown: its workers stop with it) and becomes nginx.
* ``harness.process_group`` (every bench, script and test that starts a server) asks the same
  in the child before it becomes the server (``preexec``): a bench killed outright takes its
  servers with it.

Run as a file it imports the standard library only, neither the app nor Streamlit:

    python attention_ui/lifeline.py 4242 -- nginx -p RUN_DIR -c RUN_DIR/nginx.conf -g "daemon off;"

becomes nginx, which gets SIGTERM when process 4242 dies (``tests/test_lifeline.py``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import signal
import sys
import threading
import time

PARENT_ENV = "ATTENTION_LAB_PARENT_PID"
"""The process id of the process an app process must die with (set by deploy/serve.sh)."""
POLL_S = 0.5
"""How often the watching thread looks whether the parent is still there."""
GRACE_S = 5.0
"""Seconds between the SIGTERM that the parent's death brings and the end of the process."""
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@functools.lru_cache(maxsize=1)
def _libc():
    """The C library, where it has ``prctl`` (Linux); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _ask_for_signal_at_parent_death(sig: int) -> bool:
    """``prctl(PR_SET_PDEATHSIG, sig)``; False where the system has no such call (not Linux)."""
    libc = _libc()
    return libc is not None and libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


def tie_to_parent(parent: int, sig: int = signal.SIGTERM) -> bool:
    """Ask for ``sig`` when the parent dies; whether the parent is still ``parent`` (False: it
    died before the request, or ``parent`` is not this process's parent: the caller should stop)."""
    _ask_for_signal_at_parent_death(sig)
    return os.getppid() == parent


def _watch(parent: int, grace_s: float) -> None:
    """Wait for ``parent`` to stop being the parent; then SIGTERM, and the end after ``grace_s``."""
    while os.getppid() == parent:
        time.sleep(POLL_S)
    os.kill(os.getpid(), signal.SIGTERM)  # a graceful stop first (Linux sent one already)
    time.sleep(grace_s)
    os._exit(1)


def die_with_parent(parent: int, grace_s: float = GRACE_S) -> None:
    """Make this process end when ``parent`` dies (``tie_to_parent``, and a watching thread);
    exit at once (SystemExit, code 1) if it is gone already: call it before starting anything."""
    if not tie_to_parent(parent):
        raise SystemExit(f"lifeline: the process that started this one (pid {parent}) is gone; exiting")
    threading.Thread(target=_watch, args=(parent, grace_s), daemon=True).start()


def die_with_parent_named_in_env() -> None:
    """``die_with_parent`` of the pid in $ATTENTION_LAB_PARENT_PID, when set (and taken out of the
    environment, so that this process's own children do not read it)."""
    named = os.environ.pop(PARENT_ENV, "").strip()
    if named.isdigit():
        die_with_parent(int(named))


def preexec(parent: int, sig: int = signal.SIGTERM):
    """A ``preexec_fn`` for ``subprocess.Popen``: in the child, before it becomes the program,
    ``tie_to_parent(parent, sig)``, and exit at once when the parent is gone already.

    Linux ties the child to the *thread* that started it: start it from a thread that lives as
    long as the child should (the main thread, in benches and tests)."""
    _libc()  # loaded in the parent, not in the forked child

    def tie() -> None:
        if not tie_to_parent(parent, sig):
            os._exit(1)

    return tie


def main(argv: list[str]) -> None:
    """``lifeline.py PARENT_PID -- COMMAND …``: become COMMAND, tied to PARENT_PID (SIGTERM when
    it dies), with SIGINT and SIGTERM as a new program expects them (default, unblocked)."""
    if len(argv) < 3 or not argv[0].isdigit() or argv[1] != "--":
        raise SystemExit("usage: python attention_ui/lifeline.py PARENT_PID -- COMMAND [ARGUMENTS ...]")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])
    if not tie_to_parent(int(argv[0])):
        raise SystemExit(f"lifeline: the process {argv[0]} is gone; not starting {argv[2]}")
    os.execvp(argv[2], argv[2:])


if __name__ == "__main__":
    main(sys.argv[1:])
