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

Streamlit forgets the value of a widget a page drew when another page opens. ``remember`` keeps
the last value of a setting in session state under ``_keep_<name>``; ``url_choice`` falls back to
it when the URL does not say, and ``settings.link_params`` builds links to other pages from it. The
sidebar's widgets are drawn on every run (``route.run_app``), so Streamlit keeps them itself.

Example: ``token_picker("Query token", ["the", "cat"])`` shows "1: the" and "2: cat", returns
the chosen index (1 for "cat") and keeps the number shown in the URL as ``?token=2``.
"""

from __future__ import annotations

import math

import streamlit as st

from attention_ui.clicker import clicker
from attention_ui.i18n import t
from attention_ui.notation import FIRST, shown
from attention_ui.safe import escape_markdown, numbered_labels

OLD_LINKS = {"w": ("identity", "true", "identity")}
"""Links made before a choice had its id: ``name -> (old parameter, its value, the id it means)``.
``?identity=true`` (the old identity toggle) now opens ``?w=identity``."""


# --------------------------------------------------------------------------- reading and writing


def url_value(name: str) -> str | None:
    """The URL's ``?name=`` as typed (the last one if repeated), or None."""
    return st.query_params.get(name)


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
        found = remembered(name)
    return found if found in options else default


DEFAULT_ARGUMENT = {"select_slider": "value", "radio": "index"}
"""How a choice widget other than a segmented control or pills takes its starting value."""


def url_choice(label: str, name: str, options, default, fmt, *, key=None, widget=None, shown=True, **kwargs):
    """A choice among ``options`` whose id, not its translated label, is kept in the URL as
    ``?name=<id>`` and remembered across pages (``seed_choice``); returns the chosen id.

    ``widget`` draws it (``st.segmented_control`` by default, which is then required; or
    e.g. ``st.select_slider``) with ``fmt`` for the labels and ``kwargs`` passed on; it starts
    from ``seed_choice``'s id. With ``shown=False`` nothing is drawn and the kept id is returned.
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
    keep_in_url(name, value, default)
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

    Hand-typed values (``?token=999``, ``?step=abc``, ``?token=0``) fall back to ``default``
    silently; with ``clamp`` a number out of range becomes the nearest end (``?layer=9`` →
    layer 6, index 5) and text the default, and the page says so (``url_notes``).
    """
    state = st.session_state
    if name not in state:  # the session's first read: the link's value (after that the session's own)
        raw = url_value(name)
        try:
            state[name] = int(raw) - FIRST if raw is not None else default
        except ValueError:
            state[name] = default
            if clamp:
                _note(name, raw, default, count)
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
            name=name,
            got=escape_markdown(str(got))[:40],
            shown=shown(fixed),
            first=shown(0),
            last=shown(count - 1),
        )
    )


TEXT_PARAMS = ("sentence", "compare", "sentences", "pair_a", "pair_b", "pair_word")
"""URL parameters that hold a learner's text: "inf" or "1e309" there is a sentence, not a number."""
LARGEST = 2**53
"""No number a link may carry is this large (the widgets' ranges end far below): beyond it a
float loses its integer digits, and Streamlit's own conversion may overflow."""


def unusable_number(value: str) -> bool:
    """True when ``value`` reads as a number that no widget can take: not finite, or too large
    (Streamlit 1.67 converts a bound number input's URL value with ``int()`` before its range
    check, so ``?seed=inf`` broke every page).

    >>> [unusable_number(v) for v in ("inf", "-Infinity", "nan", "1e309", "9" * 310, "12", "abc", "0.5")]
    [True, True, True, True, True, False, False, False]
    """
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return False  # not a number: the widget rejects it itself
    return not math.isfinite(number) or abs(number) >= LARGEST


def drop_unusable_numbers() -> None:
    """Before any widget reads the URL: drop every parameter (but the learner's text) whose value
    is a number no widget can take, say so on the page (``url_notes``), and run again.

    The run again is needed: a bound widget reads the URL as it was when the run began. It
    cannot cost a click: only a hand-made link carries such a number, and it is gone after this."""
    dropped = False
    for name in list(st.query_params.keys()):
        if name in TEXT_PARAMS:
            continue
        values = st.query_params.get_all(name)
        if any(unusable_number(value) for value in values):
            del st.query_params[name]
            dropped = True
            st.session_state.setdefault(_URL_NOTES, []).append(
                t("shell.url_unusable", name=escape_markdown(name)[:40], got=escape_markdown(values[-1])[:40])
            )
    if dropped:
        st.rerun()


def url_notes() -> None:
    """Say which URL values were out of range and what is shown instead (then forget them)."""
    for note in st.session_state.pop(_URL_NOTES, []):
        st.info(note, icon=":material/build:")


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
