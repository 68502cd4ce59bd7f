"""Heavy checks in a child process: PyTorch runs there, never in the server.

"Check against PyTorch" imports torch (≈ 220 MB with the CPU build, ≈ 500 MB with the CUDA
build PyPI gives) and, on Real model heads, loads the model through sentence-transformers (the
server went from 337 to 780 MB and kept it until restarted). Run in the server's process it also
holds Python's lock for seconds, and every other learner's click waits. ``run_isolated`` runs
one such function in a fresh child process (``spawn``: nothing of the server is copied) and
returns its result: the server never imports torch, its memory comes back when the child ends,
and the server's threads wait on a pipe, not on Python's lock. One check runs at a time per
server process (``SLOTS``); a second learner's check waits for the first.

>>> run_isolated("math", "factorial", 5)
120
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import multiprocessing
import os
import sys
import threading
import types
from concurrent.futures import ProcessPoolExecutor

SLOTS = threading.BoundedSemaphore(1)
"""Checks that may run at once in one server process (each child holds torch and perhaps the model)."""
TIMEOUT_S = 300.0
"""A check that takes longer than this is given up (a stuck child is killed with the pool)."""
CHECKS_ENV = "ATTENTION_LAB_PYTORCH_CHECKS"
"""Set to ``off`` to hide the "check against PyTorch" buttons (small servers, the Cloud)."""


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


def _call(module: str, function: str, args: tuple):
    return getattr(importlib.import_module(module), function)(*args)


@contextlib.contextmanager
def _no_main_script():
    """While a child is started: no ``__main__`` module with a file to run.

    A ``spawn`` child first runs the parent's ``__main__`` again from its file. In a Streamlit
    server (and under AppTest) ``__main__`` is the page script of the latest run, so the child
    would run that whole page before the check, or fail on it (a script AppTest wrote for a
    function needs names only AppTest gives it: ``BrokenProcessPool``). The swap is brief and a
    script run that sets ``__main__`` meanwhile does not look it up again.
    """
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def run_isolated(module: str, function: str, *args):
    """``module.function(*args)`` in a fresh child process; its result (or its exception).

    The function and its arguments and result must pickle. Raises TimeoutError after
    ``TIMEOUT_S`` seconds.
    """
    with SLOTS:
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
            with _no_main_script():
                future = pool.submit(_call, module, function, args)  # starts the child (spawn: at once)
            return future.result(timeout=TIMEOUT_S)
