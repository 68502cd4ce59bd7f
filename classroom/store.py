"""The class store: classes, rounds, students and their answers, in SQLite or PostgreSQL.

One teacher starts a class (``create_class``) and gets its code (for the room) and a secret
token (for themself). Students join with the code (``join``) under an anonymous key their
browser keeps, and answer the current round (``submit``). Only the token changes the class:
a new question (``ask``), the answer shown (``reveal``), the same question again beside the
first round (``ask_again``), the round's answers wiped (``reset``), the class deleted
(``close``). ``state`` and ``counts`` are what the projector polls.

Kept safe:

* **exactly once**: one answer per student and round (a unique constraint); every submission
  carries an idempotency key, kept per round (another unique constraint), so a double tap or a
  request replayed after a reconnect changes nothing, not even an older answer over a newer one;
* **what a student sends** is validated against the question (``class_questions.judge``) and
  stored as canonical JSON; every statement is SQLAlchemy Core with bound parameters, no SQL
  is ever built from input;
* **limits**: ``MAX_STUDENTS`` a class, ``MAX_CHANGES`` changes of one answer,
  ``MAX_OPEN_CLASSES`` classes at once, ``MAX_FAILED_JOINS`` failed joins a minute on the whole
  server (codes cannot be tried quickly; no IP address is kept to limit by);
* **kept for a stated time**: a class and everything in it is deleted ``hours`` after it
  started (``purge_expired``, run as classes start and students join) or when closed; an
  expired class is unknown at once, before it is purged. No names but an optional nickname.

SQLite runs in WAL mode with a busy timeout, so every process of ``deploy/serve.sh`` on one
machine shares the file; each write takes the write lock at its start (``BEGIN IMMEDIATE``) so
two writers wait for each other instead of failing. On PostgreSQL a write locks its class's row
(``SELECT … FOR UPDATE``). ``migrate`` creates the schema and records its version.

>>> store = open_store("sqlite://")  # in memory, for the example
>>> code, token = store.create_class("order", 7)
>>> store.join(code, "student-key-1").status
'joined'
>>> store.submit(code, "student-key-1", 1, ["tokens"], "idem-key-01").status
'stored'
>>> store.submit(code, "student-key-1", 1, ["tokens"], "idem-key-01").status  # the same request again
'same'
>>> store.counts(code, 1)
{'incomplete': 1}
>>> store.reveal(code, "not-the-token")
Traceback (most recent call last):
...
classroom.store.NotTeacher: only the class's teacher link can do this
"""

from __future__ import annotations

import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import (
    Engine,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from attention_core import class_questions as cq
from attention_core.seeds import check_seed

from .codes import new_code, new_token, normalise_code, same_token, token_hash, valid_key
from .schema import (
    MIGRATIONS,
    NICKNAME_CHARS,
    SCHEMA_VERSION,
    answers,
    classes,
    join_failures,
    meta,
    rounds,
    students,
    submissions,
)

MAX_STUDENTS = 300
"""Students one class takes (a script cannot flood a class with made-up students)."""
MAX_CHANGES = 20
"""How often one student may change their answer to one round."""
MAX_OPEN_CLASSES = 1000
"""Classes open at once on the server (a script cannot fill the database with classes)."""
MAX_FAILED_JOINS = 60
"""Joins with an unknown code per minute on the whole server; beyond it every join waits for
the next minute, so codes cannot be tried quickly (see ``codes.CODE_LENGTH``)."""
PURGE_EVERY = 60.0
"""Seconds between two purges of expired classes by one store."""


class NotTeacher(PermissionError):
    """A teacher action without the class's token (or on a class that is gone)."""

    def __init__(self, message: str = "only the class's teacher link can do this"):
        super().__init__(message)


@dataclass(frozen=True)
class Round:
    """One question put to the class: its ``number`` (from 1), the exercise (``kind``, ``seed``),
    whether the answer is shown, and ``again_of``: the round it asks again, if any."""

    number: int
    kind: str
    seed: int
    revealed: bool
    again_of: int | None


@dataclass(frozen=True)
class ClassState:
    """What every screen of a class polls: the current round, the round it asks again
    (``first``, else None), how many students joined, when the class expires (epoch s)."""

    code: str
    round: Round
    first: Round | None
    students: int
    expires_at: float


@dataclass(frozen=True)
class JoinResult:
    """``status``: "joined", "unknown" (no such open class), "full" or "slow_down" (too many
    failed joins this minute); ``code`` the class's code when joined."""

    status: str
    code: str | None = None


@dataclass(frozen=True)
class SubmitResult:
    """``status``: "stored" (a first answer), "changed", "same" (already stored: a repeated
    request or the same answer), "revealed" (too late), "moved_on" (the teacher asked another
    question), "not_joined", "unknown" (no such open class), "invalid" (not an option of the
    question), "too_many_changes". ``outcome``: the stored answer's bar, when there is one."""

    status: str
    outcome: str | None = None

    @property
    def counted(self) -> bool:
        return self.status in ("stored", "changed", "same")


def clean_nickname(text) -> str | None:
    """A nickname as stored: printable characters only, spaces squeezed, at most
    ``NICKNAME_CHARS``; None when nothing is left.

    >>> clean_nickname("  Ada\\u0000  L. "), clean_nickname("\\n"), len(clean_nickname("x" * 99))
    ('Ada L.', None, 24)
    """
    if not isinstance(text, str):
        return None
    kept = "".join(c for c in text[:200] if unicodedata.category(c)[0] != "C")
    kept = " ".join(kept.split())[:NICKNAME_CHARS]
    return kept or None


# --------------------------------------------------------------------------- engine


def _sqlite_connect(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None  # the driver starts no transaction: _sqlite_begin does
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout = 15000")  # a writer waits up to 15 s for another's lock
    cursor.execute("PRAGMA journal_mode = WAL")  # readers never wait for the writer; several processes share it
    cursor.execute("PRAGMA synchronous = FULL")  # an answer acknowledged is on disk
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_begin(conn) -> None:
    # A write takes the lock at BEGIN, so it waits (busy_timeout) rather than failing later when
    # a read lock would have to become a write lock.
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("classroom_write") else "BEGIN")


def prepare_engine(engine: Engine) -> Engine:
    """Set SQLite up for several processes (WAL, busy timeout, write lock at BEGIN); nothing on
    PostgreSQL. Idempotent; call it before the engine's first connection."""
    if engine.dialect.name == "sqlite" and not event.contains(engine, "connect", _sqlite_connect):
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
    return engine


def engine_for(url: str) -> Engine:
    """An engine for ``url`` outside Streamlit (tests, the bench); the SQLite file's folder is
    created. In-memory SQLite keeps one connection, so the whole store sees one database."""
    parsed = make_url(url)
    kwargs: dict = {}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        else:
            from sqlalchemy.pool import StaticPool

            kwargs = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
    else:
        kwargs = {"pool_pre_ping": True}
    return prepare_engine(create_engine(url, **kwargs))


def open_store(url: str, **kwargs) -> ClassStore:
    """A ready store on the database at ``url``: engine, schema migrated."""
    store = ClassStore(engine_for(url), **kwargs)
    store.migrate()
    return store


# --------------------------------------------------------------------------- the store


class ClassStore:
    """The classes on one database. Thread-safe (one engine, a connection per call).

    ``clock`` gives the time in seconds (``time.time``; tests pass their own); ``hours`` how
    long a class is kept."""

    def __init__(self, engine: Engine, *, clock: Callable[[], float] = time.time, hours: float = 24.0):
        self.engine = prepare_engine(engine)
        self.clock = clock
        self.ttl = float(hours) * 3600.0
        self._last_purge = -PURGE_EVERY
        self._purge_lock = threading.Lock()

    # ----------------------------------------------------------------- connections

    @contextmanager
    def _write(self) -> Iterator:
        with self.engine.connect() as conn:
            conn.execution_options(classroom_write=True)
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator:
        with self.engine.connect() as conn:
            yield conn

    def _lock_class(self, conn, code: str, now: float):
        """The open class ``code`` (id, teacher_hash), its row locked for this transaction."""
        query = select(classes.c.id, classes.c.teacher_hash).where(classes.c.code == code, classes.c.expires_at > now)
        return conn.execute(query.with_for_update()).first()

    # ----------------------------------------------------------------- schema

    def migrate(self) -> int:
        """Create the schema, or bring an older one up to ``SCHEMA_VERSION``; returns the
        version found before (0 for an empty database). Several processes may call it at once:
        SQLite's write lock and a PostgreSQL advisory lock let one migrate at a time."""
        with self._write() as conn:
            if self.engine.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(4242042)"))
            meta.create(conn, checkfirst=True)
            found = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).scalar()
            before = int(found) if found is not None else 0
            if before > SCHEMA_VERSION:
                raise RuntimeError(f"the class database has schema {before}, newer than this app's {SCHEMA_VERSION}")
            for version in range(before + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[version](conn)
            if before == 0:
                conn.execute(insert(meta).values(key="schema_version", value=str(SCHEMA_VERSION)))
            elif before < SCHEMA_VERSION:
                conn.execute(update(meta).where(meta.c.key == "schema_version").values(value=str(SCHEMA_VERSION)))
        return before

    # ----------------------------------------------------------------- retention

    def purge_expired(self) -> int:
        """Delete every class past its time, with its rounds, students and answers, and old
        failed-join counts; returns the number of classes deleted."""
        now = self.clock()
        with self._write() as conn:
            gone = select(classes.c.id).where(classes.c.expires_at <= now)
            n = len(conn.execute(gone).all())
            if n:
                self._delete_classes(conn, gone)
            conn.execute(delete(join_failures).where(join_failures.c.minute < int(now // 60) - 1))
        self._last_purge = now
        return n

    def _maybe_purge(self) -> None:
        if self.clock() - self._last_purge >= PURGE_EVERY and self._purge_lock.acquire(blocking=False):
            try:
                self.purge_expired()
            finally:
                self._purge_lock.release()

    @staticmethod
    def _delete_classes(conn, class_ids) -> None:
        """Delete the classes whose ids ``class_ids`` selects, child rows first (explicitly:
        SQLite enforces ON DELETE CASCADE only with its foreign keys on)."""
        round_ids = select(rounds.c.id).where(rounds.c.class_id.in_(class_ids))
        conn.execute(delete(submissions).where(submissions.c.round_id.in_(round_ids)))
        conn.execute(delete(answers).where(answers.c.round_id.in_(round_ids)))
        conn.execute(delete(students).where(students.c.class_id.in_(class_ids)))
        conn.execute(delete(rounds).where(rounds.c.class_id.in_(class_ids)))
        conn.execute(delete(classes).where(classes.c.id.in_(class_ids)))

    # ----------------------------------------------------------------- a class

    def create_class(self, kind: str = "attend", seed: int = 1) -> tuple[str, str]:
        """Start a class on exercise (``kind``, ``seed``); returns (code, teacher token). The
        token is shown once; only its hash is stored. RuntimeError when ``MAX_OPEN_CLASSES``
        are open."""
        cq.check_kind(kind)
        seed = check_seed(seed)
        self._maybe_purge()
        token = new_token()
        for _ in range(8):  # a code already in use (one chance in millions): draw another
            code, now = new_code(), self.clock()
            try:
                with self._write() as conn:
                    open_now = conn.execute(select(func.count()).where(classes.c.expires_at > now)).scalar_one()
                    if open_now >= MAX_OPEN_CLASSES:
                        raise RuntimeError(f"{MAX_OPEN_CLASSES} classes are open on this server")
                    class_id = conn.execute(
                        insert(classes).values(
                            code=code, teacher_hash=token_hash(token), created_at=now, expires_at=now + self.ttl
                        )
                    ).inserted_primary_key[0]
                    conn.execute(
                        insert(rounds).values(
                            class_id=class_id, number=1, kind=kind, seed=seed, revealed=False, started_at=now
                        )
                    )
                return code, token
            except IntegrityError:
                continue
        raise RuntimeError("no free class code found")

    def _rounds(self, conn, class_id: int, numbers) -> dict[int, Round]:
        rows = conn.execute(
            select(rounds.c.number, rounds.c.kind, rounds.c.seed, rounds.c.revealed, rounds.c.again_of).where(
                rounds.c.class_id == class_id, rounds.c.number.in_(list(numbers))
            )
        ).all()
        return {r.number: Round(r.number, r.kind, r.seed, bool(r.revealed), r.again_of) for r in rows}

    @staticmethod
    def _current_number(conn, class_id: int) -> int:
        return conn.execute(select(func.max(rounds.c.number)).where(rounds.c.class_id == class_id)).scalar_one()

    def state(self, code) -> ClassState | None:
        """The class ``code`` as its screens show it, or None when there is no such open class
        (never started, closed, or past its time)."""
        code = normalise_code(code)
        if code is None:
            return None
        with self._read() as conn:
            row = conn.execute(
                select(classes.c.id, classes.c.expires_at).where(
                    classes.c.code == code, classes.c.expires_at > self.clock()
                )
            ).first()
            if row is None:
                return None
            number = self._current_number(conn, row.id)
            current = self._rounds(conn, row.id, [number])[number]
            first = None
            if current.again_of is not None:
                first = self._rounds(conn, row.id, [current.again_of]).get(current.again_of)
            joined = conn.execute(select(func.count()).where(students.c.class_id == row.id)).scalar_one()
        return ClassState(code, current, first, int(joined), float(row.expires_at))

    def is_teacher(self, code, token) -> bool:
        """Whether ``token`` is the teacher token of the open class ``code``."""
        code = normalise_code(code)
        if code is None or not isinstance(token, str):
            return False
        with self._read() as conn:
            stored = conn.execute(
                select(classes.c.teacher_hash).where(classes.c.code == code, classes.c.expires_at > self.clock())
            ).scalar()
        return stored is not None and same_token(token, stored)

    # ----------------------------------------------------------------- students

    def join(self, code_text, student_key: str, nickname=None) -> JoinResult:
        """Join the class a student typed or linked (``code_text``) under ``student_key``.
        Joining again with the same key is no new student (a reload, a second tab); a new
        nickname replaces the old. A failed join counts towards ``MAX_FAILED_JOINS``."""
        if not valid_key(student_key):
            raise ValueError("a student key is 8 to 64 URL-safe characters")
        self._maybe_purge()
        now = self.clock()
        minute = int(now // 60)
        code = normalise_code(code_text)
        with self._write() as conn:
            failures = conn.execute(select(join_failures.c.failures).where(join_failures.c.minute == minute)).scalar()
            if (failures or 0) >= MAX_FAILED_JOINS:
                return JoinResult("slow_down")
            found = self._lock_class(conn, code, now) if code is not None else None
            if found is None:
                self._count_failure(conn, minute)
                return JoinResult("unknown")
            nickname = clean_nickname(nickname)
            known = conn.execute(
                select(students.c.id).where(students.c.class_id == found.id, students.c.student_key == student_key)
            ).scalar()
            if known is not None:
                if nickname is not None:
                    conn.execute(update(students).where(students.c.id == known).values(nickname=nickname))
                return JoinResult("joined", code)
            joined = conn.execute(select(func.count()).where(students.c.class_id == found.id)).scalar_one()
            if joined >= MAX_STUDENTS:
                return JoinResult("full")
            conn.execute(
                insert(students).values(class_id=found.id, student_key=student_key, nickname=nickname, joined_at=now)
            )
        return JoinResult("joined", code)

    def _count_failure(self, conn, minute: int) -> None:
        from sqlalchemy.dialects import postgresql, sqlite

        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        statement = dialect.insert(join_failures).values(minute=minute, failures=1)  # both have on_conflict
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=[join_failures.c.minute], set_={"failures": join_failures.c.failures + 1}
            )
        )

    def nicknames(self, code) -> list[str]:
        """The nicknames students gave in class ``code``, in the order they joined."""
        code = normalise_code(code)
        with self._read() as conn:
            rows = conn.execute(
                select(students.c.nickname)
                .join(classes, classes.c.id == students.c.class_id)
                .where(classes.c.code == code, classes.c.expires_at > self.clock(), students.c.nickname.is_not(None))
                .order_by(students.c.id)
            ).all()
        return [r.nickname for r in rows]

    def submit(self, code, student_key: str, round_number: int, answer, idem_key: str) -> SubmitResult:
        """Store a student's answer to round ``round_number`` (the round their page shows).

        ``idem_key``: a key the page makes once per submission; a request that comes again
        with it (a double tap, a replay after a reconnect) returns "same" and changes nothing.
        A new key with another answer changes the student's answer until the teacher reveals."""
        code = normalise_code(code)
        if code is None or not valid_key(student_key) or not valid_key(idem_key) or isinstance(round_number, bool):
            return SubmitResult("invalid")
        try:
            round_number = int(round_number)
        except (TypeError, ValueError):
            return SubmitResult("invalid")
        now = self.clock()
        with self._read() as conn:
            question = conn.execute(
                select(rounds.c.kind, rounds.c.seed)
                .join(classes, classes.c.id == rounds.c.class_id)
                .where(classes.c.code == code, classes.c.expires_at > now, rounds.c.number == round_number)
            ).first()
        if question is None:
            return SubmitResult("unknown" if self.state(code) is None else "moved_on")
        try:
            judged = cq.judge(question.kind, question.seed, answer)
        except cq.InvalidAnswer:
            return SubmitResult("invalid")
        try:
            with self._write() as conn:
                return self._store_answer(conn, code, student_key, round_number, judged, idem_key, now)
        except IntegrityError:  # only when two requests raced past the lock (should not happen)
            mine = self.answer_of(code, student_key, round_number)
            return SubmitResult("same", mine[1]) if mine else SubmitResult("invalid")

    def _store_answer(self, conn, code, student_key, round_number, judged: cq.Judged, idem_key, now) -> SubmitResult:
        found = self._lock_class(conn, code, now)
        if found is None:
            return SubmitResult("unknown")
        current = conn.execute(
            select(rounds.c.id, rounds.c.number, rounds.c.revealed)
            .where(rounds.c.class_id == found.id)
            .order_by(rounds.c.number.desc())
            .limit(1)
        ).one()
        if current.number != round_number:
            return SubmitResult("moved_on")
        student_id = conn.execute(
            select(students.c.id).where(students.c.class_id == found.id, students.c.student_key == student_key)
        ).scalar()
        if student_id is None:
            return SubmitResult("not_joined")
        mine = conn.execute(
            select(answers.c.id, answers.c.value, answers.c.outcome, answers.c.changes).where(
                answers.c.round_id == current.id, answers.c.student_id == student_id
            )
        ).first()
        used = conn.execute(
            select(submissions.c.id).where(submissions.c.round_id == current.id, submissions.c.idem_key == idem_key)
        ).first()
        if used is not None:  # this very request was stored before
            return SubmitResult("same", mine.outcome if mine else None)
        if current.revealed:
            return SubmitResult("revealed", mine.outcome if mine else None)
        if mine is not None and mine.value == judged.value:
            return SubmitResult("same", mine.outcome)
        if mine is not None and mine.changes >= MAX_CHANGES:
            return SubmitResult("too_many_changes", mine.outcome)
        conn.execute(insert(submissions).values(round_id=current.id, idem_key=idem_key))
        if mine is None:
            conn.execute(
                insert(answers).values(
                    round_id=current.id,
                    student_id=student_id,
                    value=judged.value,
                    outcome=judged.outcome,
                    changes=0,
                    answered_at=now,
                )
            )
            return SubmitResult("stored", judged.outcome)
        conn.execute(
            update(answers)
            .where(answers.c.id == mine.id)
            .values(value=judged.value, outcome=judged.outcome, changes=mine.changes + 1, answered_at=now)
        )
        return SubmitResult("changed", judged.outcome)

    def answer_of(self, code, student_key: str, round_number: int) -> tuple[str, str] | None:
        """A student's stored answer to a round: (canonical JSON value, outcome), or None."""
        code = normalise_code(code)
        if code is None or not valid_key(student_key):
            return None
        with self._read() as conn:
            row = conn.execute(
                select(answers.c.value, answers.c.outcome)
                .join(rounds, rounds.c.id == answers.c.round_id)
                .join(classes, classes.c.id == rounds.c.class_id)
                .join(students, students.c.id == answers.c.student_id)
                .where(
                    classes.c.code == code,
                    classes.c.expires_at > self.clock(),
                    rounds.c.number == int(round_number),
                    students.c.student_key == student_key,
                )
            ).first()
        return (row.value, row.outcome) if row else None

    def counts(self, code, round_number: int) -> dict[str, int]:
        """Answers of a round per outcome (``class_questions.tally`` makes the bars of it)."""
        code = normalise_code(code)
        with self._read() as conn:
            rows = conn.execute(
                select(answers.c.outcome, func.count())
                .join(rounds, rounds.c.id == answers.c.round_id)
                .join(classes, classes.c.id == rounds.c.class_id)
                .where(
                    classes.c.code == code, classes.c.expires_at > self.clock(), rounds.c.number == int(round_number)
                )
                .group_by(answers.c.outcome)
            ).all()
        return {outcome: int(n) for outcome, n in rows}

    # ----------------------------------------------------------------- the teacher

    @contextmanager
    def _as_teacher(self, code, token) -> Iterator:
        """A write transaction on the class ``code`` for the holder of its token, else NotTeacher."""
        code = normalise_code(code)
        with self._write() as conn:
            found = self._lock_class(conn, code, self.clock()) if code is not None else None
            if found is None or not same_token(token, found.teacher_hash):
                raise NotTeacher()
            yield conn, found.id

    def ask(self, code, token, kind: str, seed: int) -> Round:
        """A new question (a new round) for the class; the last one's answers stay stored."""
        cq.check_kind(kind)
        seed = check_seed(seed)
        with self._as_teacher(code, token) as (conn, class_id):
            return self._new_round(conn, class_id, kind, seed, None)

    def ask_again(self, code, token) -> Round:
        """The current question once more, as a new round that remembers the first one (the
        teacher's view puts the two side by side). Asking again a round that repeats another
        repeats the first of them."""
        with self._as_teacher(code, token) as (conn, class_id):
            number = self._current_number(conn, class_id)
            current = self._rounds(conn, class_id, [number])[number]
            return self._new_round(conn, class_id, current.kind, current.seed, current.again_of or current.number)

    def _new_round(self, conn, class_id: int, kind: str, seed: int, again_of: int | None) -> Round:
        number = self._current_number(conn, class_id) + 1
        conn.execute(
            insert(rounds).values(
                class_id=class_id,
                number=number,
                kind=kind,
                seed=seed,
                revealed=False,
                again_of=again_of,
                started_at=self.clock(),
            )
        )
        return Round(number, kind, seed, False, again_of)

    def reveal(self, code, token, revealed: bool = True) -> None:
        """Show (or hide again) the right answer of the current round; answers close with it."""
        with self._as_teacher(code, token) as (conn, class_id):
            number = self._current_number(conn, class_id)
            conn.execute(
                update(rounds)
                .where(rounds.c.class_id == class_id, rounds.c.number == number)
                .values(revealed=bool(revealed))
            )

    def reset(self, code, token) -> None:
        """Wipe the current round's answers and hide its answer again: the round starts over."""
        with self._as_teacher(code, token) as (conn, class_id):
            number = self._current_number(conn, class_id)
            round_id = select(rounds.c.id).where(rounds.c.class_id == class_id, rounds.c.number == number)
            conn.execute(delete(submissions).where(submissions.c.round_id.in_(round_id)))
            conn.execute(delete(answers).where(answers.c.round_id.in_(round_id)))
            conn.execute(update(rounds).where(rounds.c.id.in_(round_id)).values(revealed=False))

    def close(self, code, token) -> None:
        """Delete the class and everything in it, now."""
        with self._as_teacher(code, token) as (conn, class_id):
            self._delete_classes(conn, select(classes.c.id).where(classes.c.id == class_id))
