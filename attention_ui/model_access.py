"""The model a run reads: which one (the sidebar's choice, ``model_control``), the one way to load
it (``model_or_problem``), what a page does when it is unavailable, and the cached embedders.
The one place for ``st.cache_resource``.

A failed load is not cached, so a passing fault (memory short at the first load) does not leave
the server on the toy embedder; each failure is logged once (``LOG``), for the operator.
"""

from __future__ import annotations

import logging
import threading
import time

import streamlit as st
from threadpoolctl import threadpool_limits

from attention_core import Lesson, ToyEmbedder
from attention_core.model_files import ModelUnavailable
from attention_core.scaling import scaling_sweep
from attention_ui.head_claims import measured_census
from attention_ui.i18n import t
from attention_ui.registry import PAGES, page_link
from attention_ui.settings import AUTO_MODEL, link_params
from attention_ui.url_state import remember, url_choice

# One BLAS thread for the whole server process. Streamlit runs every session's script in its own
# thread, so a second BLAS thread only waits for a core another learner's run is using: one
# encoder layer took 6.5 ms on one thread and 114-227 ms on two with both cores busy
# (bench/bench_clicks.py, docs/benchmarks.md). Set once, when this module is first imported.
threadpool_limits(limits=1, user_api="blas")


@st.cache_resource(show_spinner=False)
def _model_embedder(name: str):
    """Read the model ``name`` (``model_choice.resolve_model_name``) once per server. Raises
    ModelUnavailable (or MemoryError): st.cache_resource does not keep a failure, so a passing
    fault (memory short at the first load) does not leave every later learner on the toy embedder."""
    from attention_core.model import ModelEmbedder

    return ModelEmbedder(name).load()


LOG = logging.getLogger("attention_lab")
"""The app's logger, for the operator: what a learner cannot see (the model refused, and why)."""
if not LOG.handlers:  # once per process: Streamlit's own logging leaves other loggers without a handler
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    LOG.addHandler(_handler)
    LOG.setLevel(logging.INFO)
_REPORTED: set[tuple[str, str]] = set()  # the model failures logged already: each is logged once
_REPORTED_LOCK = threading.Lock()


def _report_once(exc) -> None:
    """Log a ModelUnavailable the first time it is seen (``ModelUnavailable.log_line``: its
    reason, its path and, for a damaged weights file, both checksums); the same failure on later
    reruns is not logged again."""
    key = (exc.reason, str(exc))
    with _REPORTED_LOCK:
        if key in _REPORTED:
            return
        _REPORTED.add(key)
    LOG.warning(exc.log_line())


def _report_recovery(name: str) -> None:
    """After a logged failure, say once that the model reads again."""
    from attention_core.model_files import readable_again_line

    with _REPORTED_LOCK:
        if not _REPORTED:
            return
        _REPORTED.clear()
    LOG.info(readable_again_line(name))


def model_or_problem():
    """The one way to get the real model: (embedder, None), or (None, the reason it is unavailable:
    "missing", "checksum", "load", "unsupported", "memory" or "attentions", see
    ``model_files.ModelUnavailable``).

    A failure is not cached, so a passing one (memory short) does not stick; a damaged weights
    file costs a later call a ``stat`` (``model_files.weights_sha256`` remembers its hash until
    the file changes), and is logged once (``LOG``) with its path and both checksums.

    The model is checked on every call, not only on the first: a weights file cut short or
    rewritten under the running app (a failed copy, an update) is seen at the next call
    (``encoder.load_encoder`` compares the file's ``stat`` with the one it read, a few µs, and
    checks a changed file again before anything reads it), so every page falls back as it would
    at start; a good file put back is read again, without a restart."""
    from attention_core.model_choice import resolve_model_name

    try:
        embedder = _model_embedder(resolve_model_name(model_name()))  # the sidebar's choice, else the default
        embedder.load()  # still the file it read? else checked again: ModelUnavailable when damaged
    except ModelUnavailable as exc:
        _report_once(exc)
        return None, exc.reason
    except MemoryError as err:
        _report_once(ModelUnavailable(repr(err), reason="memory"))
        return None, "memory"
    if _REPORTED:
        _report_recovery(embedder.name)
    return embedder, None


_MODEL_NAME = "_model_name"  # session key: the model the sidebar chose for this run (None: the default)


def model_name() -> str | None:
    """The model this run reads: the one chosen in the sidebar (``model_control``), or None for
    the default one (``model_choice.resolve_model_name``) when this server has only one."""
    return st.session_state.get(_MODEL_NAME)


def model_control(sentence: str, toy: bool) -> str:
    """The model choice, drawn only when this server has two or more models
    (``model_choice.installed_models``). Left on automatic, the sentence goes to the model whose
    vocabulary lacks the fewest of its word pieces (``model_choice.best_for``): a Chinese sentence
    to a multilingual model. An explicit choice is kept in the URL as ``?model=<id>``; automatic
    is the default and stays out of it. Sets ``model_name`` for this run; returns the choice's id."""
    from attention_core.model_choice import best_for, installed_models

    models = installed_models()
    if len(models) < 2:
        st.session_state[_MODEL_NAME] = None
        return AUTO_MODEL
    by_id = {model.id: model for model in models}
    try:
        auto = best_for(sentence, models)
    except ModelUnavailable:  # no tokenizer reads here: the default model, which will say why
        st.session_state[_MODEL_NAME] = None
        return AUTO_MODEL
    labels = {AUTO_MODEL: t("shell.model_auto")} | {i: m.label for i, m in by_id.items()}  # in this run's language
    chosen = url_choice(
        t("shell.model"),
        "model",
        tuple(labels),
        AUTO_MODEL,
        labels.__getitem__,
        widget=st.radio,
        disabled=toy,
        help=t("shell.model_help"),
    )
    if chosen == AUTO_MODEL and auto.pieces:
        st.caption(t("shell.model_auto_why", label=auto.model.label, unknown=auto.unknown, pieces=auto.pieces))
    st.session_state[_MODEL_NAME] = (auto.model if chosen == AUTO_MODEL else by_id[chosen]).name
    return chosen


def choose_model(model_id: str) -> None:
    """Read the sentence with the installed model ``model_id``: a callback (the [UNK] notice's
    button), so the sidebar's choice shows it on this run."""
    st.session_state["model"] = model_id
    remember("model", model_id)


def model_unavailable(page: str, problem: str) -> None:
    """Say that ``page`` needs the real model, which is unavailable here (``problem``: a
    ``ModelUnavailable`` reason), what the page would show (``<page>.unavailable``), link to the
    pages that still teach with the toy embedder (``registry.Page.instead_of_model``), and stop
    the page. One warning, not two: the fallback warning is not shown on these pages."""
    _stop_without_model(t(f"{page}.unavailable", reason=t(f"shell.problem_{problem}")))


def _stop_without_model(warning: str) -> None:
    """``warning`` in a box with links to the pages that teach with the toy embedder
    (``registry.Page.instead_of_model``), then stop the page."""
    with st.container(border=True):
        st.warning(warning)
        st.caption(t("shell.teach_without_model"))
        params = link_params()
        with st.container(horizontal=True, gap="small"):
            for entry in PAGES:
                if entry.instead_of_model:
                    page_link(entry.id, params)
    st.stop()


_LOST_AT = "_model_lost_at"  # session key: when this session last started a run again for a lost model
LOST_RERUN_S = 10.0
"""A session starts a run again for a model lost mid-run at most once in this many seconds."""


def model_lost(exc: ModelUnavailable) -> None:
    """What ``route.run_app`` does when a ``ModelUnavailable`` escapes the sidebar or a page: the
    weights file was damaged while this run was reading the model (``model_or_problem`` found it
    intact moments before). Logged once (``LOG``); the run starts again, and its
    ``model_or_problem`` then sees the damage and every page explains and falls back, as at start.
    Should the same happen again within ``LOST_RERUN_S`` (a path that reads the model without
    asking ``model_or_problem`` first: a bug), the page says so here instead, with the pages
    that teach on the toy embedder, and stops."""
    _report_once(exc)
    state, now = st.session_state, time.monotonic()
    if now - state.get(_LOST_AT, -LOST_RERUN_S) >= LOST_RERUN_S:
        state[_LOST_AT] = now
        st.rerun()
    _stop_without_model(t("shell.model_lost", problem=t(f"shell.problem_{exc.reason}")))


def require_model(page: str):
    """The real model's embedder for ``page``, a page that cannot teach without it; when the
    model is unavailable the page says why and stops here (``model_unavailable``)."""
    embedder, problem = model_or_problem()
    if embedder is None:
        model_unavailable(page, problem)
    return embedder


@st.cache_resource(show_spinner=False)
def warm_up() -> threading.Thread:
    """Once per server, in a background thread: what a page would otherwise compute on its first
    visit, while the learner waits (``warm_caches``). A visit before the thread ends computes the same
    itself: the same numbers, only later. pandas (0.3 s) is imported here, before the thread:
    imported in the thread, a page's Plotly could meet a half-imported pandas in ``sys.modules``
    ("partially initialized module 'pandas' has no attribute 'Series'", seen by the browser tests)."""
    import pandas  # noqa: F401

    thread = threading.Thread(target=warm_caches, daemon=True)
    thread.start()
    return thread


def warm_caches() -> None:
    """The first visits' one-time costs, measured with ``bench/bench_clicks.py --profile``: run
    by ``warm_up`` on a server's first script run, and earlier by ``warm.warm_start``."""
    from attention_ui.intuition_figures import foveated_scene

    scaling_sweep()  # Why √d_k's sweep over every d_k: 0.5 s, then cached (scaling._sweep)
    foveated_scene(0.5, 0.5, 60)  # Intuition's scene and its blur: 0.33 s, then cached
    from attention_core.model_choice import installed_models

    for model in installed_models()[1:]:  # another model's census is measured, not read from a file
        measured_census(model.name)


@st.cache_resource(show_spinner=False)
def _toy_embedder():
    return ToyEmbedder(dim=8)


def get_embedder(source: str):
    """The embedder for ``source`` ("model" or "toy"), and a message if it had to fall back."""
    if source == "model":
        with st.spinner(t("shell.loading_model")):
            embedder, problem = model_or_problem()
        if embedder is not None:
            return embedder, None
        return _toy_embedder(), t("shell.model_fallback", problem=t(f"shell.problem_{problem}"))
    return _toy_embedder(), None


def toy_dim() -> int:
    """The toy embedder's width (d_model for identity W on it)."""
    return _toy_embedder().dim


def model_shape() -> tuple[int, int]:
    """(layers, heads) of the model, or the bundled model's (6, 12) when it cannot be read
    (then the trained choice falls back to random W anyway, and says so)."""
    embedder, _ = model_or_problem()
    if embedder is None:
        return (6, 12)
    from attention_core.model import model_info

    info = model_info(embedder.name)
    return info.n_layers, info.n_heads


def lesson_encoding(lesson: Lesson):
    """The learner's sentence through the whole model, as the lesson reads it (the same window of
    word pieces): the lesson's own trace on a trained head, else one forward pass (no torch)."""
    from attention_core.encoder import encode

    if lesson.encoded is not None:
        return lesson.encoded
    return encode(
        lesson.text, name=model_name(), max_pieces=lesson.settings.max_tokens, first_piece=lesson.settings.first_piece
    )


def model_label_now() -> str:
    """The name of the model this run reads, as shown ("all-MiniLM-L6-v2")."""
    from attention_core.model_choice import model_label, resolve_model_name

    return model_label(resolve_model_name(model_name()))


def better_readers(sentence: str) -> list:
    """The installed models other than this run's that lack fewer of ``sentence``'s word pieces
    (``model_choice.Reading``s, fewest unknown first): what the [UNK] notice offers."""
    from attention_core.model_choice import installed_models, readings, resolve_model_name

    now = resolve_model_name(model_name())
    found = readings(sentence, installed_models())
    current = next((r for r in found if r.model.name == now), None)
    if current is None:
        return []
    return sorted((r for r in found if r.share < current.share), key=lambda r: r.share)
