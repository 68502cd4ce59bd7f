"""The class store for the pages, and who this browser is in a class.

``class_store()`` is one ``classroom.store.ClassStore`` per server process and database, made
through Streamlit's convention, ``st.connection("classroom", type="sql")``, on the URL that
``classroom.config.database_url`` picks (``$ATTENTION_LAB_CLASS_DB``, else
``[connections.classroom] url`` in ``.streamlit/secrets.toml``, else SQLite in the data folder).
The schema is made or migrated once per process, before the first page uses it.

A browser keeps who it is in cookies, so that a reload, a reconnect to another ``serve.sh``
process or a restarted server finds the same student (their answer is not counted twice) and
the same teacher (the projector's view comes back without the token in the address bar):

* ``attention_lab_student``: the student's anonymous key (``codes.new_student_key``), for
  every class this browser joins;
* ``attention_lab_teacher_<CODE>``: the teacher token of class CODE, set only in the browser
  that started the class or opened its teacher link.

The cookies are written by a small script (``remember_cookie``) and read back by the server
from the next connection's request (``st.context.cookies``). Both expire with the class.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import streamlit as st
from sqlalchemy.engine import make_url

from classroom.codes import new_student_key, valid_key
from classroom.config import class_hours, database_url
from classroom.store import ClassStore

CONNECTION = "classroom"
STUDENT_COOKIE = "attention_lab_student"
TEACHER_COOKIE = "attention_lab_teacher_"
_STUDENT_KEY = "_class_student_key"  # session key: this session's student key
_TEACHERS = "_class_teacher_tokens"  # session key: {code: token} of the classes this session teaches


def _secrets_url() -> str | None:
    """``[connections.classroom] url`` of secrets.toml, or None (also when there is no file)."""
    try:
        return st.secrets.get("connections", {}).get(CONNECTION, {}).get("url")
    except Exception:  # no secrets.toml: Streamlit raises rather than return nothing
        return None


@st.cache_resource(show_spinner=False)
def _store(url: str) -> ClassStore:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    connection = st.connection(CONNECTION, type="sql", url=url)
    store = ClassStore(connection.engine, hours=class_hours())
    store.migrate()
    return store


def class_store() -> ClassStore:
    """The class store of this server process (see the module's docstring)."""
    return _store(database_url(os.environ, _secrets_url()))


def remember_cookie(name: str, value: str, seconds: float) -> None:
    """Have the browser keep cookie ``name`` = ``value`` for ``seconds`` (both made by this app
    from URL-safe characters, never typed by a learner)."""
    if not valid_key(value):
        return
    cookie = f"{name}={value}; path=/; max-age={int(seconds)}; SameSite=Lax"
    st.html(f"<script>document.cookie = {json.dumps(cookie)};</script>", unsafe_allow_javascript=True)


def _cookie(name: str) -> str | None:
    try:
        value = st.context.cookies.get(name)
    except Exception:  # no browser request (a bare script run)
        return None
    return value if valid_key(value) else None


def student_key() -> str:
    """This browser's anonymous student key: the session's, else the cookie's, else a new one
    (which the browser is asked to keep)."""
    state = st.session_state
    if not valid_key(state.get(_STUDENT_KEY)):
        state[_STUDENT_KEY] = _cookie(STUDENT_COOKIE) or new_student_key()
    if _cookie(STUDENT_COOKIE) != state[_STUDENT_KEY]:
        remember_cookie(STUDENT_COOKIE, state[_STUDENT_KEY], class_hours() * 3600)
    return state[_STUDENT_KEY]


def teacher_token(code: str) -> str | None:
    """The teacher token this session or browser holds for class ``code`` (unchecked)."""
    return st.session_state.get(_TEACHERS, {}).get(code) or _cookie(TEACHER_COOKIE + code)


def keep_teacher_token(code: str, token: str) -> None:
    """Remember that this session teaches class ``code``, and have the browser remember it."""
    st.session_state.setdefault(_TEACHERS, {})[code] = token
    if _cookie(TEACHER_COOKIE + code) != token:
        remember_cookie(TEACHER_COOKIE + code, token, class_hours() * 3600)


def forget_teacher_token(code: str) -> None:
    """The class is closed: forget its token here and in the browser."""
    st.session_state.get(_TEACHERS, {}).pop(code, None)
    remember_cookie(TEACHER_COOKIE + code, "closed-class", 0)
