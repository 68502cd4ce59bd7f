"""The class answers together: the Class page's views (start, teacher, student, unknown code).

* ``class_page()`` is the Class page (``/class``): without ``?class=`` it starts a class or
  joins one by its code; with it, the teacher's view for the holder of the class's token
  (``?teacher=`` once, then the session and a cookie: ``class_db``), else the student's view.
* ``student_class()`` is what ``?class=<code>`` on the Exercises page shows: the student's view.

The teacher's view is what the projector shows: the code, the link and its QR code, how many
joined, the question, and the answers as bars that a fragment redraws every
``LIVE_SECONDS`` (``st.fragment(run_every=…)``: no page reload). A student's page polls the
class every ``STUDENT_SECONDS`` in a fragment of its own and runs again when the teacher asks
another question or reveals the answer. Every class change goes through the store, which checks
the token itself: a student's page has no buttons for it, and no way to use them.
"""

from __future__ import annotations

import streamlit as st

from attention_core import class_questions as cq
from attention_core.seeds import MAX_SEED
from attention_ui.class_bars import CSS as BARS_CSS
from attention_ui.class_bars import bars_html
from attention_ui.class_db import (
    class_store,
    forget_teacher_token,
    keep_teacher_token,
    student_key,
    teacher_token,
)
from attention_ui.class_link import exercise_url, page_base, qr_image, student_url, teacher_url
from attention_ui.class_question import answer_form, answer_text, explain_answer, outcome_labels, show_question
from attention_ui.i18n import t
from attention_ui.internals import key_class, testid
from attention_ui.presentation import is_presenting
from attention_ui.registry import page_link, switch_to
from attention_ui.safe import escape_markdown
from attention_ui.url_state import keep_in_url, remembered, url_params, url_value
from classroom.codes import new_student_key, normalise_code
from classroom.config import class_hours
from classroom.store import NICKNAME_CHARS, ClassState, NotTeacher

LIVE_SECONDS = 1.0
"""The projector's bars are redrawn this often: an answer shows within about this much plus a
run (docs/benchmarks.md has the measured delay)."""
STUDENT_SECONDS = 2.0
"""A student's page asks this often whether the teacher moved on or revealed."""
CODE_CHARS = 12
"""The join box takes this many characters (a code is 6; spaces and dashes are allowed)."""

_LIVE_KEY = "class_live"  # the container of the question and the bars: side by side from 700 px
_SIDE_BY_SIDE = (
    f".{key_class(_LIVE_KEY)}.{key_class(_LIVE_KEY)}.{key_class(_LIVE_KEY)} "
    f"{testid('stHorizontalBlock')} > {testid('stColumn')}"
)
CSS = (
    BARS_CSS
    + """<style>
.al-class-code { font: 700 3rem/1.1 ui-monospace, "Source Code Pro", Menlo, monospace; letter-spacing: 0.1em;
  margin: 0.1rem 0 0.3rem; }
.al-class-link { font: 600 1.05rem/1.35 ui-monospace, "Source Code Pro", Menlo, monospace; overflow-wrap: anywhere; }
.al-class-count { font-size: 1.1rem; font-weight: 600; }
.al-class-big .al-class-code { font-size: 3.2rem; }
.al-class-big .al-class-link { font-size: 0.95rem; }
.al-class-big .al-class-count { font-size: 1.05rem; }
.al-qr { background: #fff; border-radius: 6px; max-width: 260px; margin-left: auto; }
.al-qr img { display: block; width: 100%; height: auto; image-rendering: pixelated; }
.al-class-big .al-qr { max-width: 210px; }
@media (max-width: 640px) { .al-qr { margin: 0 auto; max-width: 240px; } .al-class-code { font-size: 2.4rem; } }
@media (min-width: 700px) { SIDE_BY_SIDE { min-width: 0 !important; flex: 1 1 0% !important; } }
</style>""".replace("SIDE_BY_SIDE", _SIDE_BY_SIDE)
)
"""The class views' style sheet: constants only."""

_DRAWN = "_class_drawn"  # session key: (code, round, revealed) the page was drawn for
_IDEM = "_class_idem"  # session key: {(code, round): the idempotency key of the next submission}
_JOINED = "_class_joined"  # session key: the codes this session joined
_HIDE_JOIN = "_class_hide_join"  # session key: the teacher folded the code and QR code away


def spaced(code: str) -> str:
    """A code as the projector shows it, in two halves: "K7M 3PQ".

    >>> spaced("K7M3PQ")
    'K7M 3PQ'
    """
    return f"{code[:3]} {code[3:]}"


def round_title(number: int, answers: int) -> str:
    return t("class.round", n=number, answers=answers)


# --------------------------------------------------------------------------- entry points


def class_page() -> None:
    """The Class page (see the module's docstring)."""
    st.html(CSS)
    typed = url_value("class")
    if typed is None:
        start_view()
        return
    code = normalise_code(typed)
    store = class_store()
    state = store.state(code) if code else None
    if code is None or state is None:
        unknown_class(typed)
        return
    from_link = url_value("teacher")
    if from_link is not None:
        if store.is_teacher(code, from_link):
            keep_teacher_token(code, from_link)
        keep_in_url("teacher", "", "")  # out of the address bar, which a projector shows to the room
    token = teacher_token(code)
    if token and store.is_teacher(code, token):
        keep_teacher_token(code, token)
        teacher_view(state, token)
    else:
        student_view(state)


def student_class() -> bool:
    """``?class=<code>`` on the Exercises page: the student's view, and True; False (nothing
    drawn) when the URL names no class."""
    typed = url_value("class")
    if typed is None:
        return False
    st.html(CSS)
    code = normalise_code(typed)
    state = class_store().state(code) if code else None
    if state is None:
        unknown_class(typed)
    else:
        student_view(state)
    return True


def unknown_class(typed: str) -> None:
    """A code that names no open class: say so, and offer the way on."""
    st.error(t("class.unknown", code=escape_markdown(typed[:CODE_CHARS])), icon=":material/search_off:")
    st.caption(t("class.unknown_help"))
    with st.container(horizontal=True, gap="small"):
        page_link("class", label=t("class.join_other"))
        page_link("exercises")
        page_link("home")


# --------------------------------------------------------------------------- start or join


def _kind_choice(key: str, default: str = "attend") -> str:
    return (
        st.segmented_control(
            t("exercises.kind"),
            list(cq.KINDS),
            default=default,
            required=True,
            format_func=lambda k: t(f"exercises.kind_{k}"),
            key=key,
        )
        or default
    )


def _seed_input(key: str, value: int = 1) -> int:
    return int(st.number_input(t("exercises.seed"), min_value=0, max_value=MAX_SEED - 1, step=1, value=value, key=key))


def start_view() -> None:
    """No class named: a teacher starts one, a student joins one by its code."""
    st.markdown(t("class.intro", hours=f"{class_hours():g}"))
    teach, join = st.columns(2, gap="large")
    with teach, st.container(border=True):
        st.subheader(t("class.start_heading"))
        kind = _kind_choice("class_start_kind")
        seed = _seed_input("class_start_seed")
        if st.button(t("class.start"), type="primary", icon=":material/co_present:", key="class_start"):
            try:
                code, token = class_store().create_class(kind, seed)
            except RuntimeError:
                st.error(t("class.too_many_classes"))
                return
            keep_teacher_token(code, token)
            keep_in_url("class", code)
            st.rerun()
        st.caption(t("class.start_help"))
    with join, st.container(border=True):
        st.subheader(t("class.join_heading"))
        typed = st.text_input(t("class.code_label"), max_chars=CODE_CHARS, key="class_join_code", placeholder="K7M 3PQ")
        nickname = st.text_input(t("class.nickname"), max_chars=NICKNAME_CHARS, key="class_join_nick")
        if st.button(t("class.join"), icon=":material/login:", key="class_join"):
            _join_by_code(typed, nickname)


def _join_by_code(typed: str, nickname: str) -> None:
    code = normalise_code(typed)
    result = class_store().join(code or typed or "", student_key(), nickname or None)
    if result.status == "joined" and result.code is not None:  # a joined class always has its code
        st.session_state.setdefault(_JOINED, set()).add(result.code)
        switch_to("exercises", {"class": result.code})
    st.error(t(f"class.join_{result.status}", code=escape_markdown((typed or "")[:CODE_CHARS])))


# --------------------------------------------------------------------------- the teacher


def teacher_view(state: ClassState, token: str) -> None:
    """The projector's view and the teacher's controls."""
    code = state.code
    big = is_presenting()
    base = page_base()
    link = student_url(base.base, code)
    st.session_state[_DRAWN] = (code, state.round.number, state.round.revealed)
    if st.session_state.get(_HIDE_JOIN):
        st.html(f'<div class="al-class-count">{_escape(t("class.code_line", code=spaced(code)))}</div>')
    else:
        _join_strip(code, link, base.problem, big)
    _teacher_controls(state, token)
    with st.container(key=_LIVE_KEY):
        question, answers = st.columns([1, 1], gap="large")
        with question:
            st.subheader(t("class.question", n=state.round.number, kind=t(f"exercises.kind_{state.round.kind}")))
            show_question(state.round.kind, state.round.seed, f"class_q_{state.round.number}")
        with answers:
            _live_bars(code, big)
    _teacher_link(code, token, base.base)


def _join_strip(code: str, link: str, problem: str | None, big: bool) -> None:
    head, qr = st.columns([3, 2], vertical_alignment="center")
    with head:
        st.html(
            f'<div class="{"al-class-big" if big else ""}">'
            f'<div class="al-class-count">{_escape(t("class.join_at"))}</div>'
            f'<div class="al-class-code" aria-label="{_escape(t("class.code_label"))}">{spaced(code)}</div>'
            f'<div class="al-class-link">{_escape(link)}</div></div>'
        )
        if problem:
            st.warning(t(f"class.address_{problem}"), icon=":material/wifi_off:")
    with qr:
        st.html(f'<div class="al-qr {"al-class-big" if big else ""}">{qr_image(link, t("class.qr_alt"))}</div>')


def _escape(text: str) -> str:
    from html import escape

    return escape(text, quote=True)


def _teacher_controls(state: ClassState, token: str) -> None:
    code = state.code
    with st.container(horizontal=True, gap="small", key="class_controls"):
        if state.round.revealed:
            st.button(t("class.hide"), icon=":material/visibility_off:", on_click=_act, args=("hide", code, token))
        else:
            st.button(
                t("class.reveal"),
                type="primary",
                icon=":material/visibility:",
                on_click=_act,
                args=("reveal", code, token),
            )
        st.button(t("class.ask_again"), icon=":material/replay:", on_click=_act, args=("again", code, token))
        st.button(t("class.reset"), icon=":material/restart_alt:", on_click=_act, args=("reset", code, token))
        hidden = bool(st.session_state.get(_HIDE_JOIN))
        st.button(
            t("class.show_join" if hidden else "class.hide_join"),
            icon=":material/qr_code_2:",
            on_click=_toggle_join,
            key="class_join_toggle",
        )
        with st.popover(t("class.new_question"), icon=":material/edit_note:"):
            kind = _kind_choice("class_new_kind", state.round.kind)
            seed = _seed_input("class_new_seed", (state.round.seed + 1) % MAX_SEED)
            st.button(
                t("class.ask"), type="primary", on_click=_act, args=("ask", code, token, kind, seed), key="class_ask"
            )
        with st.popover(t("class.close"), icon=":material/logout:"):
            st.caption(t("class.close_help"))
            st.button(
                t("class.close_now"), type="primary", on_click=_act, args=("close", code, token), key="class_close"
            )


def _toggle_join() -> None:
    st.session_state[_HIDE_JOIN] = not st.session_state.get(_HIDE_JOIN)


def _act(action: str, code: str, token: str, *args) -> None:
    """A teacher's button (a callback: the page that follows shows its effect)."""
    store = class_store()
    try:
        if action == "reveal":
            store.reveal(code, token)
        elif action == "hide":
            store.reveal(code, token, False)
        elif action == "again":
            store.ask_again(code, token)
        elif action == "reset":
            store.reset(code, token)
        elif action == "ask":
            store.ask(code, token, *args)
        elif action == "close":
            store.close(code, token)
            forget_teacher_token(code)
            keep_in_url("class", "", "")
    except NotTeacher:
        st.session_state["_class_notice"] = "class.not_teacher"


@st.fragment(run_every=LIVE_SECONDS)
def _live_bars(code: str, big: bool) -> None:
    """The answers so far, redrawn every ``LIVE_SECONDS``; a change made elsewhere (another
    device of the teacher's) redraws the whole page."""
    store = class_store()
    state = store.state(code)
    if state is None:
        st.rerun(scope="app")
    if st.session_state.get(_DRAWN) != (code, state.round.number, state.round.revealed):
        st.rerun(scope="app")
    shown = [r for r in (state.first, state.round) if r is not None]
    tallies = [(r, cq.tally(r.kind, r.seed, store.counts(code, r.number))) for r in shown]
    current = tallies[-1][1]
    st.html(
        f'<div class="al-class-count {"al-class-big" if big else ""}">'
        f"{_escape(t('class.counts', joined=state.students, answered=current.total))}</div>"
    )
    labels = outcome_labels(state.round.kind, state.round.seed)
    st.html(
        bars_html(
            [(round_title(r.number, tally.total), tally) for r, tally in tallies],
            labels,
            revealed=state.round.revealed,
            big=big,
        )
    )
    if state.round.revealed:
        explain_answer(state.round.kind, state.round.seed)
    else:
        st.caption(t("class.hidden_until_reveal"))


def _teacher_link(code: str, token: str, base: str) -> None:
    notice = st.session_state.pop("_class_notice", None)
    if notice:
        st.error(t(notice))
    with st.expander(t("class.teacher_link"), icon=":material/key:"):
        st.caption(t("class.teacher_link_help"))
        st.code(teacher_url(base, code, token), language=None, wrap_lines=True)
        names = class_store().nicknames(code)
        if names:
            st.caption(t("class.nicknames", names=", ".join(escape_markdown(n) for n in names)))


# --------------------------------------------------------------------------- a student


def _idem_key(code: str, number: int) -> str:
    keys = st.session_state.setdefault(_IDEM, {})
    return keys.setdefault((code, number), new_student_key())


def student_view(state: ClassState) -> None:
    """A student's phone: the question, one answer (changeable until the reveal), the result."""
    store = class_store()
    code, current = state.code, state.round
    me = student_key()
    joined = st.session_state.setdefault(_JOINED, set())
    if code not in joined:
        result = store.join(code, me)
        if result.status != "joined":
            st.error(t(f"class.join_{result.status}", code=code))
            return
        joined.add(code)
    st.session_state[_DRAWN] = (code, current.number, current.revealed)
    st.subheader(t("class.student_heading", code=spaced(code), n=current.number))
    show_question(current.kind, current.seed, f"class_s_{current.number}")
    _answer_area(code, me, current)
    if current.revealed:
        tally = cq.tally(current.kind, current.seed, store.counts(code, current.number))
        st.html(
            bars_html(
                [(round_title(current.number, tally.total), tally)],
                outcome_labels(current.kind, current.seed),
                revealed=True,
            )
        )
        explain_answer(current.kind, current.seed)
    _nickname_box(code, me)
    _student_poll(code)


@st.fragment
def _answer_area(code: str, me: str, current) -> None:
    """The answer form and the answer stored, in a fragment: pressing Send runs this part alone,
    not the page (its sidebar, its lesson, its chart), which costs a class of 80 phones on two
    cores several seconds at the 95th percentile (bench/bench_class.py)."""
    store = class_store()
    key = f"class_a_{code}_{current.number}"
    if not current.revealed:
        answer = answer_form(current.kind, current.seed, key, disabled=False)
        if answer is not None:
            result = store.submit(code, me, current.number, answer, _idem_key(code, current.number))
            if result.counted:
                st.session_state[_IDEM].pop((code, current.number), None)  # the next answer is a new request
            else:
                st.warning(t(f"class.submit_{result.status}"))
    mine = store.answer_of(code, me, current.number)
    if mine is not None:
        value, outcome = mine
        words = answer_text(current.kind, current.seed, cq.answer_value(value))
        if current.revealed:
            right = outcome in cq.right_outcomes(current.kind, current.seed)
            (st.success if right else st.error)(t("class.yours_right" if right else "class.yours_wrong", answer=words))
        else:
            st.success(t("class.yours", answer=words), icon=":material/how_to_vote:")
            st.caption(t("class.may_change"))
    elif current.revealed:
        st.info(t("class.no_answer"))


def _nickname_box(code: str, me: str) -> None:
    with st.expander(t("class.nickname"), icon=":material/badge:"):
        st.caption(t("class.nickname_help"))
        with st.form(f"class_nick_{code}", border=False):
            nickname = st.text_input(t("class.nickname"), max_chars=NICKNAME_CHARS, label_visibility="collapsed")
            if st.form_submit_button(t("class.nickname_save")) and nickname.strip():
                class_store().join(code, me, nickname)
                st.caption(t("class.nickname_saved"))


@st.fragment(run_every=STUDENT_SECONDS)
def _student_poll(code: str) -> None:
    """Run the page again when the teacher asks another question, reveals, or closes."""
    state = class_store().state(code)
    drawn = st.session_state.get(_DRAWN)
    if state is None or drawn != (code, state.round.number, state.round.revealed):
        st.rerun(scope="app")


# --------------------------------------------------------------------------- the Exercises page's link


SHARE_KEY = "exercise_share_open"


def exercise_share(kind: str) -> None:
    """ "Give this exercise to your class": the exercise's link as phones reach it (no
    ``present``, no sentence it does not use) and its QR code, drawn only while the expander is
    open (a code block loads its highlighter), with a pointer to the Class page, where the room
    answers together."""
    box = st.expander(t("exercises.share_title"), icon=":material/link:", key=SHARE_KEY, on_change="rerun")
    if not box.open:
        return
    with box:
        st.caption(t("exercises.share_help"))
        base = page_base()
        source = remembered("ex_source") if kind == "attend" else None
        link = exercise_url(base.base, url_params(), uses_sentence=source == "lesson", source=source)
        if base.problem:
            st.warning(t(f"class.address_{base.problem}"), icon=":material/wifi_off:")
        st.code(link, language=None, wrap_lines=True)
        st.html(CSS + f'<div class="al-qr">{qr_image(link, t("class.qr_alt"))}</div>')
        page_link("class", label=t("class.share_as_class"))
