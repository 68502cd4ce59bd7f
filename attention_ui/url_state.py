"""URL state: what the address bar keeps, so that a link reopens exactly the view it was made on.

This module is the only one that reads or writes ``st.query_params``. A view lives in the URL
in three ways:

* Widgets bound with ``bind="query-params"`` (the sentence, the toggles, the sliders) are kept
  by Streamlit itself under their key: ``?sentence=…&toy=true&d_k=8``.
* A choice among named options is kept by ``url_choice`` as a language-neutral id
  (``?w=random``, ``?match=cosine``). Binding such a widget would put its translated label in
  the URL (``?match=余弦``), and a link made in Chinese would not open in English.
* A position (a token, a step, a layer, a head) is kept by ``url_int``, ``url_picker`` and
  ``token_picker`` as the number the page shows, counted from 1 (``?token=3&step=5`` is the
  third token and the fifth step: index 2 and 4 in Python, see ``notation.shown``); a
  hand-typed value out of range falls back, and ``url_notes`` says so on the page.

A value equal to its default is left out of the URL, so a link names only what differs.

A value a page cannot use is left out too, whichever the parameter, and the page says so (the
note of ``url_notes``): ``URL_PARAMS`` names every parameter a page reads with the form of its
values, and ``drop_unusable_values`` drops a value of another form before any widget reads the
URL (``?first=0x10``, ``?seed=٣``, ``?model=../../etc/passwd``); the readers here drop or correct
a value of the right form that is not one of theirs (``?matrix=zzz``, ``?token=99`` of 5 tokens);
and ``after_page`` notes a value that a widget bound to the URL refused (``?seed=20000``:
Streamlit drops it silently). Parameters that no page reads are left alone.

Streamlit forgets the value of a widget a page drew when another page opens. ``remember`` keeps
the last value of a setting in session state under ``_keep_<name>``; ``url_choice`` falls back to
it when the URL does not say, and ``settings.link_params`` builds links to other pages from it. The
sidebar's widgets are drawn on every run (``route.run_app``), so Streamlit keeps them itself.

Example: ``token_picker("Query token", ["the", "cat"])`` shows "1: the" and "2: cat", returns
the chosen index (1 for "cat") and keeps the number shown in the URL as ``?token=2``.
"""

from __future__ import annotations

import math
import re

import streamlit as st

from attention_ui.clicker import clicker
from attention_ui.i18n import LANGS, t
from attention_ui.notation import FIRST, shown
from attention_ui.safe import escape_markdown, numbered_labels

OLD_LINKS = {"w": ("identity", "true", "identity")}
"""Links made before a choice had its id: ``name -> (old parameter, its value, the id it means)``.
``?identity=true`` (the old identity toggle) now opens ``?w=identity``."""


# --------------------------------------------------------------------------- reading and writing


def url_value(name: str) -> str | None:
    """The URL's ``?name=`` as typed (the last one if repeated), or None; a value of a form no
    page can read (``usable``: ``?lang=xx``, ``?first=0x10``) is dropped, said so, and read as None."""
    value = st.query_params.get(name)
    _read_here(name)
    if value is not None and not usable(name, value):
        drop(name, value)
        return None
    return value


def url_params() -> dict[str, list[str]]:
    """Every query parameter now in the URL, each with all its values (for the share link)."""
    return {name: st.query_params.get_all(name) for name in st.query_params.keys()}


def keep_in_url(name: str, value, default=None) -> None:
    """Show ``value`` in the URL as ``?name=`` (and drop it when it equals ``default``).

    Writes only when the URL says something else: every write sends the browser a whole new
    query string, and a write on every rerun could land after the browser had put a bound
    widget's newer value (``?sentence=``) in the address bar, and replace it (bench_load.py saw
    this under load). Example: ``keep_in_url("step", 3)`` gives ``?step=3``; calling it again
    sends nothing; ``keep_in_url("match", "dot", "dot")`` removes ``?match=``.
    """
    _read_here(name)
    if default is not None and value == default:
        st.query_params.pop(name, None)  # sends a message only if the parameter was there
    elif st.query_params.get(name) != str(value):
        st.query_params[name] = str(value)


SENTENCE_POSITIONS = ("token", "model_token", "after_token", "first")
"""URL parameters that name a place in the sentence: a query token (Step by step, Similarity and
The code; Real model heads; After attention) and the first token of the window over a long
sentence. Each belongs to the link's ``?sentence=``: the browser drops them from the URL when the
learner applies another sentence (``sentence_box.ENTER_SCRIPT``), and ``token_picker`` and
``lesson_notes.window_start`` go back to their default."""


# --------------------------------------------------------------------------- across pages


def remember(name: str, value) -> None:
    """Keep ``value`` as the last one of setting ``name``, for when another page opens."""
    st.session_state[f"_keep_{name}"] = value


def remembered(name: str, default=None):
    """The last value ``remember`` kept for ``name``, else ``default``."""
    return st.session_state.get(f"_keep_{name}", default)


def forget(*names: str) -> None:
    """Drop, for each of ``names``, ``?name=``, the value ``remember`` kept and the session's own
    value (``url_choice``'s or ``url_picker``'s, and its widget's): a view of one thing that must not
    carry over to the next (a snapshot of one task's training is not a snapshot of another's), so
    the next run starts from the defaults. Call it from a widget's ``on_change``.
    Example: ``forget("snapshot", "learn_head")``.
    """
    state = st.session_state
    for name in names:
        st.query_params.pop(name, None)
        for key in (f"_keep_{name}", name, f"{name}_picker"):
            state.pop(key, None)


# --------------------------------------------------------------------------- choices by id


def parse_choice(raw: str | None, options):
    """The option whose text is ``raw`` (numbers also by value: "5" is 5.0), else None.

    >>> parse_choice("cosine", ("dot", "cosine")), parse_choice("5", (0.5, 5.0)), parse_choice("x", (1.0,))
    ('cosine', 5.0, None)
    """
    if raw is None:
        return None
    found = {str(option): option for option in options}.get(raw)
    if found is None:
        try:
            number = float(raw)
        except ValueError:
            return None
        found = next((o for o in options if isinstance(o, float) and o == number), None)
    return found


def seed_choice(name: str, options, default, *, key: str | None = None):
    """The id choice ``name`` (one of ``options``) starts this run from: the value of its widget
    (session state ``key``, default ``name``) when it has one, else the URL's ``?name=``, else
    the value remembered on another page, else ``default``. Writes no widget state.

    Not writing the widget's state matters: the first click after a reconnect to a new session
    arrives before the widget is drawn, and a value written into its state here would win over
    the click. ``url_choice`` hands this id to the widget as its default instead.
    Example: ``seed_choice("matrix", ("scores", "weights"), "weights")``.
    """
    current = st.session_state.get(key or name)
    if current in options:
        return current
    raw = url_value(name)
    if name in OLD_LINKS:
        param, old_value, choice = OLD_LINKS[name]
        if raw is None and url_value(param) == old_value:
            raw = choice
        st.query_params.pop(param, None)
    found = parse_choice(raw, options)
    if found is None:
        if raw is not None:
            drop(name, raw)  # an id this choice does not have: left out, and the page says so
        found = remembered(name)
    return found if found in options else default


DEFAULT_ARGUMENT = {"select_slider": "value", "radio": "index"}
"""How a choice widget other than a segmented control or pills takes its starting value."""


def url_choice(
    label: str, name: str, options, default, fmt, *, key=None, widget=None, shown=True, url_default=None, **kwargs
):
    """A choice among ``options`` whose id, not its translated label, is kept in the URL as
    ``?name=<id>`` and remembered across pages (``seed_choice``); returns the chosen id.

    ``widget`` draws it (``st.segmented_control`` by default, which is then required; or
    e.g. ``st.select_slider``) with ``fmt`` for the labels and ``kwargs`` passed on; it starts
    from ``seed_choice``'s id. With ``shown=False`` nothing is drawn and the kept id is returned.
    The URL leaves out ``url_default`` (by default ``default``): a choice whose options depend on
    another setting can start elsewhere and still be written against the shared default.
    Example: ``url_choice("W", "w", ("trained", "random"), "trained", str.title)``.
    """
    key = key or name
    options = list(options)
    value = seed_choice(name, options, default, key=key)
    if shown:
        if widget is None:
            widget = st.segmented_control
            kwargs.setdefault("required", True)
        argument = DEFAULT_ARGUMENT.get(getattr(widget, "__name__", ""), "default")
        start = options.index(value) if argument == "index" else value
        chosen = widget(label, options, format_func=fmt, key=key, **{argument: start}, **kwargs)
        if chosen in options:  # None: a control that may be clicked off keeps its id
            value = chosen
    remember(name, value)
    keep_in_url(name, value, default if url_default is None else url_default)
    return value


class View:
    """One view of ``url_tabs``: ``open`` says whether it is the chosen one, and ``with view:``
    draws into its container (only the open view has one)."""

    def __init__(self, box=None):
        self.box = box

    @property
    def open(self) -> bool:
        return self.box is not None

    def __enter__(self):
        if self.box is None:
            raise RuntimeError("a closed view draws nothing: check .open first")
        return self.box.__enter__()

    def __exit__(self, *exc):
        return self.box.__exit__(*exc)


def url_tabs(name: str, ids, label, default=None) -> dict:
    """Views of which only the chosen one runs: a segmented control above one container; a
    closed view's ``.open`` is False, so its figures are neither built nor sent. The chosen
    view is kept in the URL as ``?name=<id>`` (``url_choice``: an id, not the translated
    label, so a link opens the same view in both languages). Returns {id: View}.

    Not ``st.tabs``: its tab panel walks the panel's elements (each one's ``checkVisibility``,
    a forced style recalculation) on every render and on every change inside it, which took
    Chromium ~0.04 s per chart redraw; see docs/benchmarks.md.
    Example: ``url_tabs("matrix", ("scores", "weights"), lambda i: t(f"matrices.tab_{i}"),
    "weights")["weights"].open``.
    """
    ids = tuple(ids)
    default = ids[0] if default is None else default
    chosen = url_choice(t("shell.view"), name, ids, default, label, key=f"{name}_tab", label_visibility="collapsed")
    clicker()  # → and ← (a presenter's remote) move through the views
    return {i: View(st.container() if i == chosen else None) for i in ids}


# --------------------------------------------------------------------------- positions


def url_position(index: int) -> str:
    """A position as the URL keeps it: the number shown on the page (from 1), not the index.

    >>> url_position(0)
    '1'
    """
    return str(shown(index))


def url_int(name: str, count: int, default: int = 0, *, clamp: bool = False) -> int:
    """Session value ``name``, an index in 0..count-1, seeded from the URL on the session's first
    read, and kept in the URL as the number shown (``url_position``): ``?step=1`` is index 0, the
    first step. At ``default`` it is left out of the URL, as every default is; a link that names
    the default (``?layer=2`` for the trained head's layer) opens it all the same.

    A hand-typed position out of range (``?token=999``, ``?token=0``) falls back to ``default``;
    with ``clamp`` it becomes the nearest end instead (``?layer=9`` → layer 6, index 5); either
    way the page says so (``url_notes``). Text (``?step=abc``) never gets here: it is dropped
    before the run (``drop_unusable_values``).
    """
    state = st.session_state
    if name not in state:  # the session's first read: the link's value (after that the session's own)
        raw = url_value(name)
        try:
            state[name] = int(raw) - FIRST if raw is not None else default
        except ValueError:  # drop_unusable_values lets only digits through: kept for a direct call
            state[name] = default
            if clamp:
                _note(name, raw, default, count)
        else:
            if raw is not None and not clamp and not 0 <= state[name] < count:
                _note(name, raw, default, count)  # ?token=99 of 5 tokens: the default, and the page says so
                state[name] = default
    value = state.get(name)
    if not isinstance(value, int) or not 0 <= value < count:
        fixed = min(max(value, 0), count - 1) if clamp and isinstance(value, int) else default
        if clamp:
            _note(name, shown(value) if isinstance(value, int) else value, fixed, count)
        value = fixed
    state[name] = value
    keep_position(name, value, default)
    return value


def keep_position(name: str, index: int, default: int) -> None:
    """Position ``index`` in the URL as ``?name=`` (the number shown), left out at ``default``."""
    keep_in_url(name, url_position(index), url_position(default))


_URL_NOTES = "_url_notes"


def _note(name: str, got, fixed: int, count: int) -> None:
    """Remember to say that ``?name=got`` does not exist and index ``fixed`` is shown instead."""
    st.session_state.setdefault(_URL_NOTES, []).append(
        t(
            "shell.url_clamped",
            name=escape_markdown(name[:40]),
            got=escape_markdown(str(got)[:40]),
            shown=shown(fixed),
            first=shown(0),
            last=shown(count - 1),
        )
    )


# --------------------------------------------------------------------------- values no page can use

LARGEST = 2**53
"""No number a link may carry is this large (the widgets' ranges end far below): beyond it a
float loses its integer digits, and Streamlit's own conversion may overflow."""


def _number_no_widget_takes(value: str) -> bool:
    """Reads as a number, but not finite or too large for any widget (an id may be a number:
    tailor's sharpness 0.5, 2).

    >>> [_number_no_widget_takes(v) for v in ("inf", "NaN", "1e309", "9" * 20, "2", "0.5", "cosine")]
    [True, True, True, True, False, False, False]
    """
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return False
    return not math.isfinite(number) or abs(number) >= LARGEST


WHOLE = re.compile(r"[+-]?[0-9]{1,16}")
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
POSITION = re.compile(r"[0-9]{1,6}")
ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
FORMS = {
    "text": None,  # a learner's text: any
    "flag": lambda v: v.lower() in ("true", "false"),  # what Streamlit's bound toggles read
    "whole": lambda v: WHOLE.fullmatch(v) is not None and abs(int(v)) < LARGEST,
    "number": lambda v: NUMBER.fullmatch(v) is not None and math.isfinite(float(v)) and abs(float(v)) < LARGEST,
    "position": lambda v: POSITION.fullmatch(v) is not None,  # a place counted from 1, as shown
    "id": lambda v: ID.fullmatch(v) is not None and not _number_no_widget_takes(v),  # a choice, a view, a language
}
"""The forms a URL value can take, each a test of the text as typed (ASCII digits only: Python
reads "٣" and "1_000" as numbers, a link should not)."""

URL_PARAMS = {
    # the sidebar, on every page
    "sentence": "text", "toy": "flag", "model": "id", "cjk": "id", "w": "id", "layer": "position",
    "head": "position", "d_k": "whole", "seed": "whole", "scaled": "flag", "positional": "flag",
    "present": "flag", "lang": "id", "first": "position", "chart": "flag",
    # the pages
    "token": "position", "step": "position", "matrix": "id", "model_qkv": "id", "model_matrix": "id",
    "model_token": "position", "after_token": "position", "layer_step": "id", "layers_view": "id",
    "vector_view": "id", "compare": "text", "sentences": "text", "sentence_b": "text", "swap": "flag",
    "self_of": "id", "heads": "whole", "causal": "flag", "q_angle": "whole", "q_length": "number",
    "k_angle": "whole", "k_length": "number", "vectors": "id", "eye_x": "whole", "eye_y": "whole",
    "eye_r": "whole", "read_beta": "number", "budget_beta": "number", "match": "id", "sharpness": "id",
    "want_*": "id", "imp_*": "number", "ex_kind": "id", "ex_source": "id", "ex_seed": "whole",
    "heads_view": "id", "measure": "id", "pair_a": "text", "pair_b": "text", "pair_word": "text",
    "sweep": "id", "exp_d_k": "whole", "task": "id", "steps": "id", "snapshot": "id", "train_seed": "whole",
    "trained": "flag", "learn_head": "position", "learn_query": "position", "qk": "id", "learn_step": "id",
    "gen_step": "position", "prompt": "text", "temperature": "number", "sample_seed": "whole",
    "noun_a": "text", "noun_b": "text", "write_from": "id",
    "class": "text", "teacher": "text",  # a class's code, a teacher's token: the Class page checks them itself
}  # fmt: skip
"""Every URL parameter a page reads, and the form of its values (``FORMS``); ``name_*`` stands for
every parameter that starts with ``name_``. Parameters not named here (``?utm_source=``) are left
alone: nothing reads them. ``tests/test_url_state.py`` finds every parameter in the code here."""
NUMERIC = ("whole", "number")


def param_form(name: str) -> str | None:
    """The form of parameter ``name`` (``URL_PARAMS``), None for one no page reads.

    >>> param_form("seed"), param_form("want_cut"), param_form("utm_source")
    ('whole', 'id', None)
    """
    return URL_PARAMS.get(name) or next(
        (form for key, form in URL_PARAMS.items() if key.endswith("*") and name.startswith(key[:-1])), None
    )


def usable(name: str, value: str) -> bool:
    """Whether ``?name=value`` has a form the page can read. Example:
    ``[usable(*p) for p in (("first", "4e15"), ("first", "0x10"), ("seed", "٣"), ("model", "../../etc/passwd"))]``
    is all False; ``usable("seed", "42")`` and ``usable("sentence", "<b>")`` are True.

    >>> [usable("first", v) for v in ("4e15", "0x10", "3")], usable("seed", "٣"), usable("model", "../../etc/passwd")
    ([False, False, True], False, False)
    >>> usable("lang", "zh"), usable("lang", "xx"), usable("toy", "TRUE"), usable("toy", "1"), usable("x", "?")
    (True, False, True, False, True)
    """
    form = param_form(name)
    check = FORMS[form] if form is not None else None
    if check is None:
        return True
    if not check(value):
        return False
    if name == "lang":
        return value in LANGS
    if name == "model":  # a choice only where the server offers two models or more (shell.model_control)
        return value in _model_ids()
    return True


AUTO_MODEL = "auto"
"""The id of the automatic model choice (``shell.AUTO_MODEL``, the same: a test holds them equal)."""


def _model_ids() -> set[str]:
    """The ids ``?model=`` may name: the installed models' and automatic, when there are two or more."""
    from attention_core.model_choice import installed_models

    models = installed_models()
    return {AUTO_MODEL, *(model.id for model in models)} if len(models) >= 2 else set()


def _note_dropped(name: str, got: str) -> None:
    """Remember to say that ``?name=got`` was left out (``url_notes``): the usual note."""
    key = "shell.url_unusable" if param_form(name) in NUMERIC else "url.unusable"
    st.session_state.setdefault(_URL_NOTES, []).append(
        t(key, name=escape_markdown(name[:40]), got=escape_markdown(got[:40]))
    )


def drop(name: str, got: str) -> None:
    """Leave ``?name=`` out of the URL and say so on the page (``url_notes``): a value the page
    cannot use, whichever the parameter. The note shows on this run's ``url_notes`` if it has not
    run yet, else ``after_page`` runs the page again to show it."""
    st.query_params.pop(name, None)
    _note_dropped(name, got)


_AT_START = "_url_at_start"  # URL values of the parameters whose widget this session has not drawn yet
_READ_HERE = "_url_read_here"  # the parameters this module read or wrote in this run (it says what it drops)
_NOTES_RERUN = "_url_notes_rerun"  # a run started only to show notes: no second one
_URL_SHOWN = "_url_notes_shown"  # how many of the notes this run has shown


def drop_unusable_values() -> None:
    """Before any widget reads the URL: drop every parameter whose value has no form a page can
    read (``usable``), say so on the page (``url_notes``), and run again. Also notes what the
    widgets' parameters are now, for ``after_page``.

    The run again is needed: a bound widget reads the URL as it was when the run began. It
    cannot cost a click: only a hand-made link carries such a value, and it is gone after this."""
    state = st.session_state
    if not state.get(_NOTES_RERUN):  # notes a run before this one showed are said: forget them
        state[_URL_NOTES] = state.get(_URL_NOTES, [])[state.get(_URL_SHOWN, 0) :]
    state[_URL_SHOWN] = 0
    dropped = False
    for name in list(st.query_params.keys()):
        values = st.query_params.get_all(name)
        bad = next((v for v in values if not usable(name, v)), None)
        if bad is not None:
            drop(name, bad)
            dropped = True
    if dropped:
        st.rerun()
    params = st.query_params
    state[_AT_START] = {
        name: params.get(name)
        for name in params.keys()
        if param_form(name) not in (None, "text") and name not in state  # a widget reads the URL only at its first draw
    }
    state[_READ_HERE] = set()


def _read_here(name: str) -> None:
    """Note that this module read ``?name=`` (so ``after_page`` leaves it to what said so here)."""
    read = st.session_state.get(_READ_HERE)
    if read is not None:
        read.add(name)


def _reads_as(value: str, widget_value) -> bool:
    """Whether the URL text ``value`` is what a widget now holds: the widget read it as given.

    >>> _reads_as("true", True), _reads_as("5", 5), _reads_as("0.50", 0.5), _reads_as("20000", 0), _reads_as("a", "a")
    (True, True, True, False, True)
    """
    if isinstance(widget_value, bool):
        return value.lower() == str(widget_value).lower()
    if isinstance(widget_value, int | float):
        try:
            return float(value) == float(widget_value)
        except ValueError:
            return False
    return value == str(widget_value)


def after_page() -> None:
    """After the page: a widget bound to the URL (``bind="query-params"``) that Streamlit found a
    value it cannot take (``?seed=20000``, out of its range) drops it silently; say so, as for
    every other parameter. Then, when notes wait that this run did not show, run once more to
    show them (``url_notes`` comes before the page's own widgets)."""
    state = st.session_state
    read_here = state.pop(_READ_HERE, set())
    for name, value in state.pop(_AT_START, {}).items():
        if name in read_here or name not in state:
            continue  # read (and said so) here, or no widget drew it in this run
        if not _reads_as(value, state[name]):  # a widget drew it for the first time and took another value
            _note_dropped(name, value)
    notes, shown = state.get(_URL_NOTES, []), state.get(_URL_SHOWN, 0)
    if len(notes) > shown and not state.pop(_NOTES_RERUN, False):  # a note came after url_notes
        state[_NOTES_RERUN] = True  # the next run shows them all, those shown here too
        st.rerun()
    state.pop(_NOTES_RERUN, None)
    state[_URL_NOTES], state[_URL_SHOWN] = notes[shown:], 0  # what was shown is said; the rest waits


def url_notes() -> None:
    """Say which URL values were dropped or out of range and what is shown instead: the notes
    not shown yet in this run (a page may call it again after its own pickers)."""
    state = st.session_state
    notes = state.get(_URL_NOTES, [])
    for note in notes[state.get(_URL_SHOWN, 0) :]:
        st.info(note, icon=":material/build:")
    state[_URL_SHOWN] = len(notes)


def url_picker(
    label: str,
    name: str,
    count: int,
    fmt=None,
    *,
    key: str | None = None,
    default: int = 0,
    clamp: bool = False,
) -> int:
    """A segmented control over the indices 0..count-1, labelled by ``fmt(index)`` (by default
    the number shown, from 1), whose choice is session value ``name``, kept in the URL as
    ``?name=`` (seeded and clamped by ``url_int``); returns the chosen index.

    Example: ``url_picker("Layer", "layer", 6)`` shows 1..6, returns 0..5 and keeps ``?layer=1`` … ``6``.
    """
    value = url_int(name, count, default, clamp=clamp)
    chosen = st.segmented_control(
        label,
        list(range(count)),
        format_func=fmt or (lambda n: str(shown(n))),
        key=key or f"{name}_picker",
        default=value,
        selection_mode="single",
        required=True,  # a click on the chosen one keeps it (it cleared the picker, and the page went on)
    )
    if chosen is not None and chosen != value:
        st.session_state[name] = value = int(chosen)
        keep_position(name, value, default)
    return value


def token_picker(
    label: str, tokens: list[str], *, key: str | None = None, param: str = "token", default: int = 0
) -> int:
    """``url_picker`` over the sentence's tokens, labelled "i: token" from 1 (escaped for
    Markdown), kept in the URL as ``?param=``; returns the index. Example:
    ``token_picker("Query token", ["the", "cat"])`` shows "1: the" and "2: cat".

    When the tokens change (a new sentence), the choice goes back to ``default``: token 8 of
    the old sentence is a different word, or none, in the new one."""
    state, seen = st.session_state, f"_{param}_tokens"
    if state.get(seen) not in (None, tuple(tokens)):
        state[param] = default
        state.pop(key or f"{param}_picker", None)
    state[seen] = tuple(tokens)
    labels = numbered_labels([escape_markdown(token) for token in tokens])
    return url_picker(label, param, len(tokens), labels.__getitem__, key=key, default=default)
