"""The Streamlit shell every page shares: the one route of a script run (``run_app``), the
sidebar settings, the cached embedder and the honesty banner. The one place for st.cache_*.

Every run takes one path: ``run_app`` (app.py) declares the pages, draws the sidebar, runs the
page and adds the link to this view. Each page calls ``page_start()`` first; when Streamlit ran
the page file by itself (``legacy_page_run``), ``page_start`` takes the same path in place.
What the URL keeps, and how, is ``attention_ui.url_state``.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace

import streamlit as st
from threadpoolctl import threadpool_limits

from attention_core import MAX_TOKENS, Lesson, LessonSettings, ToyEmbedder, build_lesson, clean_text
from attention_core.lesson import PROJECTIONS, TRAINED_HEAD
from attention_core.model_choice import model_label
from attention_core.model_files import MODEL_ENV, ModelUnavailable
from attention_core.scaling import scaling_sweep
from attention_core.text import CJK_MODES, has_cjk, word_segmenter_available
from attention_ui.busy import BUSY_SCRIPT, busy_note, slow_run
from attention_ui.exports import view_link_expander
from attention_ui.head_claims import head_summary, measured_census, parking_fields
from attention_ui.i18n import LANGS, choose_lang, t
from attention_ui.notation import shown
from attention_ui.preload import PRELOAD_SCRIPT
from attention_ui.presentation import apply_presentation, is_presenting, presentation_toggle
from attention_ui.safe import escape_markdown
from attention_ui.sentence_box import ENTER_SCRIPT, sentence_box, show_presented
from attention_ui.style import apply_style, sidebar_script
from attention_ui.url_state import (
    drop_unusable_numbers,
    keep_in_url,
    remember,
    remembered,
    url_choice,
    url_int,
    url_notes,
    url_picker,
    url_position,
    url_value,
)

DEFAULT_SENTENCE = "The boy thanked the girl because she had helped him"
D_K_RANGE = (2, 16)


# One BLAS thread for the whole server process. Streamlit runs every session's script in its own
# thread, so a second BLAS thread only waits for a core another learner's run is using: one
# encoder layer took 6.5 ms on one thread and 114-227 ms on two with both cores busy
# (bench/bench_clicks.py, docs/benchmarks.md). Set once, when this module is first imported.
threadpool_limits(limits=1, user_api="blas")


@st.cache_resource(show_spinner=False)
def _model_embedder(name: str):
    """Read the model ``name`` (``model_files.resolve_model_name``) once per server. Raises
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
    the file changes), and is logged once (``LOG``) with its path and both checksums."""
    from attention_core.model_files import resolve_model_name

    try:
        embedder = _model_embedder(resolve_model_name(model_name()))  # the sidebar's choice, else the default
    except ModelUnavailable as exc:
        _report_once(exc)
        return None, exc.reason
    except MemoryError as err:
        _report_once(ModelUnavailable(repr(err), reason="memory"))
        return None, "memory"
    if _REPORTED:
        _report_recovery(embedder.name)
    return embedder, None


AUTO_MODEL = "auto"
"""The model choice's default: the installed model that reads the sentence best."""
_MODEL_NAME = "_model_name"  # session key: the model the sidebar chose for this run (None: the default)


def model_name() -> str | None:
    """The model this run reads: the one chosen in the sidebar (``model_control``), or None for
    the default one (``model_files.resolve_model_name``) when this server has only one."""
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


MODEL_PAGES = ("after_attention", "real_model", "heads")
"""Pages that teach with the real model only (``page_start(..., needs_model=True)``)."""
TOY_PAGES = ("step_by_step", "matrices", "why_scaling", "similarity", "cross_attention", "multi_head", "exercises")
"""Pages that teach the same ideas without the model, on the toy embedder: where a page of
``MODEL_PAGES`` sends the learner when the model is unavailable."""


def model_unavailable(page: str, problem: str) -> None:
    """Say that ``page`` needs the real model, which is unavailable here (``problem``: a
    ``ModelUnavailable`` reason), what the page would show (``<page>.unavailable``), link to the
    pages that still teach with the toy embedder, and stop the page. One warning, not two: the
    shell's fallback warning is not shown on these pages."""
    with st.container(border=True):
        st.warning(t(f"{page}.unavailable", reason=t(f"shell.problem_{problem}")))
        st.caption(t("shell.teach_without_model"))
        params = link_params()
        with st.container(horizontal=True, gap="small"):
            for page_id, icon in NAV:
                if page_id in TOY_PAGES:
                    st.page_link(f"pages/{page_id}.py", label=t(f"shell.nav_{page_id}"), icon=icon, query_params=params)
    st.stop()


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
    visit, while the learner waits (``_warm``). A visit before the thread ends computes the same
    itself: the same numbers, only later. pandas (0.3 s) is imported here, before the thread:
    imported in the thread, a page's Plotly could meet a half-imported pandas in ``sys.modules``
    ("partially initialized module 'pandas' has no attribute 'Series'", seen by the browser tests)."""
    import pandas  # noqa: F401

    thread = threading.Thread(target=_warm, daemon=True)
    thread.start()
    return thread


def _warm() -> None:
    """The first visits' one-time costs, measured with ``bench/bench_clicks.py --profile``."""
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


NAV = [
    ("home", ":material/home:"),
    ("intuition", ":material/visibility:"),
    ("tailor_shop", ":material/checkroom:"),
    ("step_by_step", ":material/stairs:"),
    ("matrices", ":material/grid_on:"),
    ("after_attention", ":material/layers:"),
    ("why_scaling", ":material/straighten:"),
    ("similarity", ":material/compare_arrows:"),
    ("cross_attention", ":material/swap_horiz:"),
    ("multi_head", ":material/hub:"),
    ("learn", ":material/school:"),
    ("real_model", ":material/smart_toy:"),
    ("heads", ":material/biotech:"),
    ("exercises", ":material/quiz:"),
    ("class", ":material/groups:"),
    ("code", ":material/code:"),
]
"""The pages in menu order: (page id, icon). Page ``id`` lives in ``pages/<id>.py``, its URL
is ``/<id>`` and its menu label is ``t("shell.nav_<id>")``."""


def init_lang() -> str:
    """Fix the session's language on its first run (URL ``?lang=``, else the browser's) and
    keep it in the URL. Safe to call more than once per run."""
    state = st.session_state
    if state.get("lang") not in LANGS:
        state["lang"] = choose_lang(url_value("lang"), st.context.locale)
    keep_in_url("lang", state["lang"])
    return state["lang"]


def navigation_pages() -> list:
    """The st.Page list app.py hands to st.navigation, built from NAV."""
    init_lang()
    return [
        st.Page(f"pages/{page}.py", title=t(f"shell.nav_{page}"), icon=icon, url_path=page, default=page == NAV[0][0])
        for page, icon in NAV
    ]


def _set_lang() -> None:
    chosen = st.session_state.get("lang_picker")
    if chosen in LANGS:
        st.session_state["lang"] = chosen
        keep_in_url("lang", chosen)


def language_switch() -> str:
    """The English / 中文 switch at the top of the sidebar; returns the language."""
    lang = init_lang()
    st.session_state["lang_picker"] = lang  # widget state is dropped on page change: set it each run
    st.segmented_control(
        t("shell.language"),
        list(LANGS),
        format_func=LANGS.get,
        key="lang_picker",
        on_change=_set_lang,
        label_visibility="collapsed",
    )
    return lang


DEFAULTS = {
    "sentence": DEFAULT_SENTENCE,
    "toy": False,
    "w": "trained",
    "layer": TRAINED_HEAD[0],
    "head": TRAINED_HEAD[1],
    "d_k": 4,
    "seed": 0,
    "scaled": True,
    "positional": True,
    "cjk": "chars",
    "model": AUTO_MODEL,
}
"""The shared settings and their defaults; each is bound to the URL parameter of its name."""
BOUND = ("sentence", "toy", "d_k", "seed", "scaled", "positional")
"""The shared settings whose sidebar widget is bound to the URL (``bind="query-params"``): drawn
on every page, Streamlit keeps their parameters itself, so links to other pages leave them out
(given twice, Streamlit would write them twice: ``?toy=true&toy=true``)."""
POSITIONS = ("layer", "head")
"""The shared settings that are positions: 0-based here, in the URL as the number shown (from 1)."""


def url_text(name: str, value) -> str:
    """A shared setting as the page links carry it: ``true``/``false``, a position as shown.

    >>> url_text("scaled", False), url_text("layer", 0), url_text("d_k", 8)
    ('false', '1', '8')
    """
    if isinstance(value, bool):
        return str(value).lower()
    return url_position(value) if name in POSITIONS else str(value)


def sidebar(page: str) -> tuple[str, str, LessonSettings]:
    """Draw the shared sidebar for page id ``page``; return (sentence, source, settings).

    ``run_app`` calls it (through ``app_sidebar``) before the page runs, so its widgets are
    drawn on every run of every page: Streamlit keeps their values and URL parameters when
    another page opens (widgets drawn by a page lose theirs).
    """
    with st.sidebar:
        language_switch()
        nav = st.container()  # filled last, once the widgets have put their values in the URL
        busy_note(t("shell.busy"))  # first: a long run shows "Working…" (busy.py)
        slow_run()  # a slow run on purpose, only when $ATTENTION_LAB_SLOW_RUN says so
        st.header(t("shell.your_sentence"))
        sentence = sentence_box(
            t("shell.sentence"), DEFAULTS["sentence"], t("shell.sentence_help", max_tokens=MAX_TOKENS)
        )
        st.header(t("shell.settings"))
        toy = st.toggle(t("shell.toy"), key="toy", bind="query-params", help=t("shell.toy_help"), value=DEFAULTS["toy"])
        model = model_control(sentence or "", toy)
        cjk = _cjk_control(sentence or "", toy)
        w = url_choice(
            t("shell.w"), "w", PROJECTIONS, DEFAULTS["w"], lambda kind: t(f"shell.w_{kind}"), help=t("shell.w_help")
        )
        shape = model_shape()
        layer, head = trained_head(shape, show_pickers=pickers_in_sidebar(w, page))
        d_k = d_k_control(w, toy)
        seed = st.number_input(
            t("shell.seed"),
            0,
            10_000,
            step=1,
            key="seed",
            bind="query-params",
            disabled=w != "random",
            value=DEFAULTS["seed"],
        )
        scaled = st.toggle(t("shell.scaled"), key="scaled", bind="query-params", value=DEFAULTS["scaled"])
        trained = w == PROJECTIONS[0]
        positional = st.toggle(
            t("shell.positional"),
            key="positional",
            bind="query-params",
            value=DEFAULTS["positional"],
            disabled=trained,
            help=t("shell.positional_trained") if trained else None,
        )
        presentation_toggle()
        st.session_state[_SHARE_BOX] = st.container()  # filled by app.py after the page (share_link)
        sidebar_script()
        st.html(CLIENT_SCRIPT, unsafe_allow_javascript=True)
    values = {
        "sentence": sentence,
        "toy": toy,
        "w": w,
        "layer": layer,
        "head": head,
        "d_k": d_k,
        "seed": seed,
        "scaled": scaled,
        "positional": positional,
        "cjk": cjk,
        "model": model,
    }
    for key, value in values.items():
        remember(key, value)
    other, same = link_params(**values), link_params(same_page=True, **values)
    with nav:
        for page_id, icon in NAV:
            params = same if page_id == page else other
            st.page_link(f"pages/{page_id}.py", label=t(f"shell.nav_{page_id}"), icon=icon, query_params=params)
    source = "toy" if toy else "model"
    settings = LessonSettings(
        projection=w,
        layer=int(layer),
        head=int(head),
        d_k=int(d_k),
        seed=int(seed),
        scaled=bool(scaled),
        positional=bool(positional),
        max_tokens=MAX_TOKENS,
        cjk=cjk,
    )
    return sentence or "", source, settings


CLIENT_SCRIPT = BUSY_SCRIPT + ENTER_SCRIPT + PRELOAD_SCRIPT
"""The sidebar's own scripts, the waiting note's (``busy``), the sentence box's Enter
(``sentence_box``) and the early load of the charts' code (``preload``), in one element: each
script element takes a line of the sidebar."""


PAGES_WITH_HEAD_PICKERS = ("real_model", "heads")
"""Pages that draw the layer and head pickers themselves, beside their grid of heads."""


def link_params(*, same_page: bool = False, **overrides) -> dict[str, str]:
    """The URL parameters of a link to another page that keeps this session's shared settings
    (the values that differ from ``DEFAULTS``) with ``overrides`` on top, and the language.

    A link to another page leaves out the ``BOUND`` settings: on a page change Streamlit writes
    their parameters itself. A link to the page on screen (``same_page``) keeps them: there
    Streamlit takes the link's parameters as they are.
    Example: ``st.page_link("pages/matrices.py", query_params=link_params(w="trained", layer=1, head=3))``."""
    values = {name: remembered(name, default) for name, default in DEFAULTS.items()} | overrides
    shared = {k: url_text(k, v) for k, v in values.items() if v != DEFAULTS[k] and (same_page or k not in BOUND)}
    shared["lang"] = init_lang()
    return shared


def d_k_control(w: str, toy: bool) -> int:
    """The d_k slider when W is random (trained W on the toy embedder falls back to random);
    otherwise no slider, which would show a d_k the page does not use, but a line with the d_k
    that is: the trained head's own, or d_model for the identity. Returns the random W's d_k."""
    if w == "random" or (w == "trained" and toy):
        return st.slider(t("shell.d_k"), *D_K_RANGE, key="d_k", bind="query-params", value=DEFAULTS["d_k"])
    embedder, _ = (None, None) if toy else model_or_problem()
    if w == "trained" and embedder is not None:
        from attention_core.model import model_info

        info = model_info(embedder.name)
        st.caption(t("shell.d_k_fixed_trained", d_k=info.d_head, d_model=info.d_model, n_heads=info.n_heads))
    else:
        st.caption(t("shell.d_k_fixed_identity", d_k=(embedder or _toy_embedder()).dim))
    return int(remembered("d_k", DEFAULTS["d_k"]))


def pickers_in_sidebar(w: str | None, page: str) -> bool:
    """Whether the sidebar draws the layer and head pickers: with trained W, on every page but
    those of ``PAGES_WITH_HEAD_PICKERS``. A page that needs a layer without them (After
    attention, whose model runs whatever W is) draws its own.

    >>> pickers_in_sidebar("trained", "matrices"), pickers_in_sidebar("random", "matrices")
    (True, False)
    >>> pickers_in_sidebar("trained", "heads")
    False
    """
    return w == "trained" and page not in PAGES_WITH_HEAD_PICKERS


def choose_head(layer: int, head: int) -> None:
    """Make (``layer``, ``head``) the trained head, 0-based: a callback (a button, a click on a
    grid of heads), so it runs before the pickers are drawn and they show the new head."""
    state = st.session_state
    state["layer"] = state["layer_picker"] = int(layer)
    state["head"] = state["head_picker"] = int(head)
    remember("layer", int(layer))
    remember("head", int(head))


def heads_with_a_job_buttons() -> None:
    """One button per head with a measured job (previous token, next token, he/she): a click
    makes it the trained head."""
    from attention_core.heads import heads_with_a_job

    found = measured_census(model_name())
    if found is None:
        return
    st.caption(t("shell.jobs_label"))
    with st.container(horizontal=True, gap="small"):
        for job in heads_with_a_job(found):
            st.button(
                t(f"heads.job_{job.job}", layer=shown(job.layer), head=shown(job.head), score=job.score),
                key=f"job_{job.job}",
                on_click=choose_head,
                args=(job.layer, job.head),
                help=t(f"heads.job_{job.job}_help", score=job.score, n=found.n_agreement, n_plain=found.n_plain),
                type="secondary",
            )


def model_shape() -> tuple[int, int]:
    """(layers, heads) of the model, or the bundled model's (6, 12) when it cannot be read
    (then the trained choice falls back to random W anyway, and says so)."""
    embedder, _ = model_or_problem()
    if embedder is None:
        return (6, 12)
    from attention_core.model import model_info

    info = model_info(embedder.name)
    return info.n_layers, info.n_heads


def trained_head(shape: tuple[int, int], *, show_pickers: bool) -> tuple[int, int]:
    """The trained head (layer, head), kept in the URL as ?layer=&head= and across pages.

    With ``show_pickers`` the layer and head are chosen here (segmented controls); the Real
    model heads page draws the same pickers itself, next to its grid of heads."""
    n_layers, n_heads = shape
    if not show_pickers:
        return (
            url_int("layer", n_layers, DEFAULTS["layer"], clamp=True),
            url_int("head", n_heads, DEFAULTS["head"], clamp=True),
        )
    layer = url_picker(t("shell.layer"), "layer", n_layers, default=DEFAULTS["layer"], clamp=True)
    head = url_picker(t("shell.head"), "head", n_heads, default=DEFAULTS["head"], clamp=True)
    found = measured_census(model_name())
    if found is not None:
        st.caption(head_summary(found, layer, head, brief=True))
        heads_with_a_job_buttons()
    return layer, head


def _cjk_control(sentence: str, toy: bool) -> str:
    """How Chinese text is cut ("chars" or "words"): a sidebar choice shown only when the
    sentence has CJK characters, kept in the URL as ?cjk= and across pages. It applies to
    the toy embedder; the real model always uses its own tokenizer."""
    mode = url_choice(
        t("shell.cjk"),
        "cjk",
        CJK_MODES,
        DEFAULTS["cjk"],
        lambda m: t(f"shell.cjk_{m}"),
        shown=has_cjk(sentence),
        required=False,  # clicking the chosen option off keeps it
        selection_mode="single",
        disabled=not toy,
        help=t("shell.cjk_help") if toy else t("shell.cjk_model_help"),
    )
    if mode == "words" and toy and not word_segmenter_available():
        st.caption(t("shell.segmenter_missing"))
    return mode


_SIDEBAR_THIS_RUN = "_sidebar_this_run"
_SHARE_BOX = "_share_box"


def run_app() -> None:
    """The one route of every script run: the page list, the shared sidebar, the page, and the
    link to this view after it. app.py is this call; ``page_start`` makes it too when Streamlit
    ran a page file by itself (``legacy_page_run``), so every run takes this same path."""
    page = st.navigation(navigation_pages(), position="hidden")
    drop_unusable_numbers()  # before any widget reads the URL; after st.navigation, so its rerun keeps the page
    app_sidebar(page.url_path or NAV[0][0])
    page.run()
    share_link()


SHARE_KEY = "share_open"
"""The share expander's key: its open state, kept by Streamlit, says whether to draw the link."""


def share_link() -> None:
    """What ``run_app`` does after the page: the link to this exact view, at the foot of the
    sidebar, once the page has put its own parameters (token, step, tab …) in the URL; drawn
    only while its expander is open (``exports.view_link_expander``)."""
    box = st.session_state.pop(_SHARE_BOX, None)
    if box is not None:
        view_link_expander(t("shell.share"), SHARE_KEY, box=box)


LANG_SCRIPT = {lang: f"<script>document.documentElement.lang = {lang!r};</script>" for lang in LANGS}
"""Tells the browser the page's language (``<html lang>``), so a screen reader reads Chinese as
Chinese and the browser picks Chinese fonts; Streamlit writes ``lang="en"`` whatever the text."""


def app_sidebar(page: str) -> None:
    """What ``run_app`` does between st.navigation and the page: draw the sidebar and hand its
    values to the page's ``page_start`` (through session state, for this run only)."""
    warm_up()
    st.session_state[_SIDEBAR_THIS_RUN] = sidebar(page)
    st.html(LANG_SCRIPT[init_lang()], unsafe_allow_javascript=True)


PAGES_WITHOUT_SENTENCE = ("home", "intuition", "tailor_shop", "learn", "class")
"""Pages that do not teach on the learner's sentence: presentation mode shows it on the others."""


def legacy_page_run() -> bool:
    """True when Streamlit ran this page file by itself instead of through ``run_app``.

    Streamlit 1.67 answers the first request of a fresh server process through its legacy
    ``pages/`` router when a ``pages/`` folder sits beside the entry point, even though app.py
    calls st.navigation: a shared link to an inner page then runs that page file alone. AppTest
    does the same on every ``run()``. ``run_app`` leaves a mark for the page of its own run; a
    page without the mark was run alone. ``tests/test_route.py`` checks that Streamlit still
    behaves so (and fails, naming this function, the day it does not)."""
    return _SIDEBAR_THIS_RUN not in st.session_state


def page_start(page: str, catalog: str | None = None, *, needs_model: bool = False) -> tuple[Lesson | None, str]:
    """Page config, sidebar, the page's title and the lesson for the current sentence, for
    page id ``page`` (an id of NAV, e.g. "step_by_step").

    The title is ``t("<catalog>.title")`` (``catalog`` defaults to ``page``); in presentation mode
    the sentence comes under it, large (``sentence_box.show_presented``; not on the pages of
    ``PAGES_WITHOUT_SENTENCE``), then the notes on the sentence (cut to the first tokens, the
    model unavailable, a URL value out of range). Returns (lesson, source); lesson is None (and a
    friendly message is shown) when the sentence cannot be used. A page that cannot teach without the real model passes
    ``needs_model``: when the model is unavailable it says so and stops here (``require_model``).

    A page file that Streamlit ran by itself (``legacy_page_run``) takes the one route here:
    ``run_app`` draws the sidebar and runs this same page inside it, then this run stops. No
    rerun: a click that arrived with this run (the first click after a reconnect to a fresh
    server) is handled by the page inside, not dropped.
    """
    if legacy_page_run():
        run_app()
        st.stop()
    init_lang()
    st.set_page_config(
        page_title=t("shell.page_title", page=t(f"shell.nav_{page}")), page_icon=":material/search:", layout="wide"
    )
    sentence, source, settings = st.session_state.pop(_SIDEBAR_THIS_RUN)
    apply_presentation(is_presenting())
    apply_style()
    st.title(t(f"{catalog or page}.title"))
    if is_presenting() and page not in PAGES_WITHOUT_SENTENCE:
        show_presented(sentence)  # on a projector the sidebar is folded away: the room reads it here
    url_notes()
    if needs_model:
        require_model(page)
    embedder, warning = get_embedder(source)
    if warning:
        st.warning(warning)
    if settings.projection == "trained" and not embedder.real:
        if not warning:  # the fallback warning has said why already
            st.info(t("shell.trained_needs_model"))
        settings = replace(settings, projection="random")
    settings = replace(settings, first_piece=window_start(sentence))
    try:
        lesson = build_lesson(sentence, embedder, settings)
    except ValueError:  # no tokens: nothing typed, or only spaces, invisible or control characters
        st.info(t("shell.no_sentence") if not clean_text(sentence) else t("shell.nothing_readable"))
        return None, source
    if lesson.truncated:
        window_control(lesson)
    return lesson, source


def lesson_encoding(lesson: Lesson):
    """The learner's sentence through the whole model, as the lesson reads it (the same window of
    word pieces): the lesson's own trace on a trained head, else one forward pass (no torch)."""
    from attention_core.encoder import encode

    if lesson.encoded is not None:
        return lesson.encoded
    return encode(
        lesson.text, name=model_name(), max_pieces=lesson.settings.max_tokens, first_piece=lesson.settings.first_piece
    )


_WINDOW_KEY = "first_picker"  # the window slider's key; its value is the first token shown, from 1
_WINDOW_TEXT = "_first_text"  # the sentence the slider's value belongs to


def window_start(sentence: str) -> int:
    """Where the window over a long sentence starts (0-based): the slider's value, else the link's
    ``?first=`` (counted from 1), else the start; back to the start when the sentence changed."""
    state = st.session_state
    if state.get(_WINDOW_TEXT) != sentence:
        state.pop(_WINDOW_KEY, None)
        raw = url_value("first") if state.get(_WINDOW_TEXT) is None else None  # a link's, on its first run
        state[_WINDOW_TEXT] = sentence
        try:
            return max(int(raw) - 1, 0) if raw is not None else 0
        except ValueError:
            return 0
    chosen = state.get(_WINDOW_KEY)
    return int(chosen) - 1 if isinstance(chosen, int) else 0


def window_control(lesson: Lesson) -> None:
    """A long sentence: say which tokens are shown, and let the learner move the window over it."""
    shown_n = len(lesson.tokens) - (2 if lesson.trained else 0)  # [CLS] and [SEP] are no word pieces
    total = lesson.n_tokens - (2 if lesson.trained else 0)
    first, last = lesson.first + 1, lesson.first + shown_n
    key = "shell.pieces_window" if lesson.trained else "shell.tokens_window"
    st.info(t(key, total=total, first=first, last=last, shown=shown_n, cls=lesson.tokens[0], sep=lesson.tokens[-1]))
    st.session_state[_WINDOW_KEY] = first  # where the window is, also after the core moved it back
    st.slider(t("shell.window"), 1, total - shown_n + 1, key=_WINDOW_KEY, help=t("shell.window_help"))
    keep_in_url("first", first, 1)


def honesty_banner(lesson: Lesson) -> None:
    """Say exactly which numbers are real and which are illustrative, for the lesson's W; in
    presentation mode in a closed expander whose label says the gist, so that the page's
    chart fits on a 768 px projector's first screen."""
    settings = lesson.settings
    if lesson.trained:
        text = t(
            "shell.honest_trained",
            model=model_label(lesson.embedder_name),
            layer=shown(settings.layer),
            head=shown(settings.head),
            d_k=lesson.trace.d_k,
        )
        if not settings.scaled:
            text += " " + t("shell.honest_trained_unscaled")
        found = measured_census(model_name())
        if found is not None:
            text += " " + t("shell.honest_special_tokens", **parking_fields(found, lesson.tokens))
    else:
        words = (
            t("shell.honest_real_embeddings", model=model_label(lesson.embedder_name))
            if lesson.real_embeddings
            else t("shell.honest_toy_embeddings")
        )
        proj = t("shell.honest_random_w") if lesson.projections.kind == "random" else t("shell.honest_identity_w")
        text = words + " " + proj
    if is_presenting():  # on a projector the chart comes first; the whole text is one click away
        label = "shell.honest_label_real" if lesson.trained and settings.scaled else "shell.honest_label_mixed"
        with st.expander(t(label), icon=":material/info:"):
            st.caption(text)
    else:
        st.caption(text)
    if lesson.unknown:
        words = len(lesson.tokens) - (2 if lesson.trained else 0)  # [CLS] and [SEP] are no words of the sentence
        unknown_tokens_help(lesson.text, lesson.unknown_words, len(lesson.unknown), words, offer_toy=True)


MAX_LISTED = 20  # unknown words named in the message; more end in "…"


def _use_toy() -> None:
    state = st.session_state
    state["toy"] = True
    remember("toy", True)
    if state.get("w") == "trained":  # the toy embedder has no trained heads
        state["w"] = "random"
        remember("w", "random")


def model_label_now() -> str:
    """The name of the model this run reads, as shown ("all-MiniLM-L6-v2")."""
    from attention_core.model_choice import model_label
    from attention_core.model_files import resolve_model_name

    return model_label(resolve_model_name(model_name()))


def better_readers(sentence: str) -> list:
    """The installed models other than this run's that lack fewer of ``sentence``'s word pieces
    (``model_choice.Reading``s, fewest unknown first): what the [UNK] notice offers."""
    from attention_core.model_choice import installed_models, readings
    from attention_core.model_files import resolve_model_name

    now = resolve_model_name(model_name())
    found = readings(sentence, installed_models())
    current = next((r for r in found if r.model.name == now), None)
    if current is None:
        return []
    return sorted((r for r in found if r.share < current.share), key=lambda r: r.share)


def unknown_tokens_help(sentence: str, words, n_unknown: int, n_total: int, *, offer_toy: bool) -> None:
    """Say plainly that the model cannot represent some word pieces of ``sentence``, name the
    words behind its unknown token ([UNK], <unk>), and offer what works: another installed model
    that knows more of them (a button per model, ``better_readers``), the toy embedder (a button,
    offline) and, when some of them are Chinese and no installed model reads them better, how to
    install a multilingual model; an emoji in an English sentence gets no hint about Chinese."""
    from attention_core.encoder import load_encoder

    listed = [escape_markdown(w) for w in list(words)[:MAX_LISTED]] + (["…"] if len(words) > MAX_LISTED else [])
    unk = load_encoder(model_name()).unk_token or "[UNK]"
    text = t("shell.unknown_tokens", unknown=n_unknown, total=n_total, unk=unk, model=model_label_now())
    if listed:
        text += " " + t("shell.unknown_words", words=t("shell.list_sep").join(listed))
    better = better_readers(sentence)
    with st.container(border=True):
        st.warning(text)
        for found in better:
            st.button(
                t("shell.use_model", label=found.model.label, unknown=found.unknown, pieces=found.pieces),
                on_click=choose_model,
                args=(found.model.id,),
                key=f"use_model_{found.model.id}",
                icon=":material/translate:",
            )
        if offer_toy:
            st.button(t("shell.use_toy"), on_click=_use_toy, key="use_toy", icon=":material/toys:")
        else:
            st.caption(t("shell.toy_elsewhere"))
        if not better and any(has_cjk(word) for word in words):
            st.caption(t("shell.multilingual", env=MODEL_ENV))
