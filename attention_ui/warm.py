"""A server that warms itself at start, so that its first visitor does not wait for it.

A fresh server process pays, on its first visit, for what every later visit finds ready: the
imports of the app and its libraries (pandas, Plotly, SciPy's special functions that GELU
uses), the model read from its files, the census of its heads, the catalogs, the first forward
pass of the default sentence, and the one-time figures of ``model_access.warm_caches``. A
visitor waited 5.6–8.4 s for them (issue 43). ``warm_start()`` does the same work in a
background thread once the server answers (``python -m attention_ui.launch``, which
``deploy/serve.sh`` and ``scripts/start.py`` run), with the same cached functions the pages
call, so it fills their caches: a visit during the warm-up computes what is not ready yet
itself, the same numbers, and waits for nothing it would not have waited for anyway.

Nothing here is needed: a step that fails (the model missing or damaged) is skipped, and the
page that needs it says why when a learner opens it, as at start.

>>> [name for name, _ in STEPS][:3]
['libraries', 'model', 'census']
"""

from __future__ import annotations

import importlib
import logging
import threading
import time

LOG = logging.getLogger("attention_lab")


def _libraries() -> None:
    # pandas first and whole: Plotly looks pandas up in sys.modules and must never find it half
    # imported (model_access.warm_up says where this was seen)
    for module in ("pandas", "plotly.graph_objects", "scipy.special", "attention_core"):
        importlib.import_module(module)


def _model() -> None:
    from attention_core.encoder import load_encoder

    load_encoder(None)  # the default model's files, checked against their hash


def _census() -> None:
    from attention_core.heads import census

    census(None)  # what the pages claim of each head


def _app() -> None:
    from attention_ui import i18n, route  # noqa: F401  (the shell and what it imports)
    from attention_ui.registry import PAGES

    for entry in PAGES:
        importlib.import_module(f"pages.{entry.id}")
    for lang in i18n.LANGS:
        i18n.catalog(lang)


def _default_lesson() -> None:
    """The default sentence through the model, as the sidebar's defaults ask for it: the first
    visit of a lesson page finds it in the encoder's cache (``encoder._encode_cached``)."""
    from attention_core import build_lesson
    from attention_core.model import ModelEmbedder
    from attention_ui.settings import DEFAULTS, default_settings

    settings = default_settings()
    build_lesson(DEFAULTS["sentence"], ModelEmbedder(None).load(), settings)


def _figures() -> None:
    from attention_ui.model_access import warm_caches

    warm_caches()


STEPS = (
    ("libraries", _libraries),
    ("model", _model),
    ("census", _census),
    ("app", _app),
    ("lesson", _default_lesson),
    ("figures", _figures),
)
"""What the warm-up does, in order: what needs no Streamlit first (while the server itself is
still importing it), the model before what reads it."""

WARM_LOG = "warm_up %.1f s: %s"
"""The operator's log line when the warm-up has ended: its seconds and the steps that finished."""
THREAD = "attention_lab_warm_up"
"""The warm-up thread's name (in a stack dump, a profile)."""

DONE: dict[str, float] = {}
"""Each step that finished, with its seconds: for the operator's log and the tests."""


def wait_until_serving(timeout: float = 60.0) -> bool:
    """Until this process's Streamlit server answers its health check (``/_stcore/health``, at
    the address and port it was given, read once its configuration is loaded), so that the
    warm-up never competes with the server's own start; False after ``timeout`` seconds (then the
    warm-up runs anyway). Example: ``wait_until_serving(5.0)`` is False with no server."""
    import urllib.error
    import urllib.request

    from streamlit import runtime

    local = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy: it stays here
    deadline = time.monotonic() + timeout
    while not runtime.exists():  # the runtime exists once the command line has read the config
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    import streamlit as st

    host = st.get_option("server.address") or "127.0.0.1"
    host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    while time.monotonic() < deadline:
        port = st.get_option("server.port")  # the one the server took
        url = f"http://{host}:{port}/{base + '/' if base else ''}_stcore/health"
        try:
            with local.open(url, timeout=1.0) as answer:
                if answer.status == 200:
                    return True
        except (urllib.error.URLError, OSError, ValueError):
            pass
        time.sleep(0.2)
    return False


def _run(wait: bool = True) -> None:
    if wait:
        wait_until_serving()
    start = time.perf_counter()
    for name, step in STEPS:
        began = time.perf_counter()
        try:
            step()
        except Exception:  # noqa: BLE001 - nothing here is needed; the page that needs it says why
            continue
        DONE[name] = time.perf_counter() - began
    LOG.info(WARM_LOG, time.perf_counter() - start, ", ".join(DONE))


def warm_start(*, wait: bool = True) -> threading.Thread:
    """Start the warm-up in a daemon thread (it never holds the server's exit) and return it.
    With ``wait`` it begins once the server answers (``wait_until_serving``): a server that
    starts is ready as soon as without it. Example: ``warm_start(wait=False).join()`` leaves
    the default model read and every page imported."""
    thread = threading.Thread(target=_run, args=(wait,), name=THREAD, daemon=True)
    thread.start()
    return thread
