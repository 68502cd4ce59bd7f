"""The class store's tables, and the steps that make each schema version (``MIGRATIONS``).

Six tables, SQLAlchemy Core, the same on SQLite and PostgreSQL: ``classes`` (code, the
teacher's token as a hash, when it expires), ``class_rounds`` (a class's questions, in order),
``class_students`` (anonymous keys, an optional nickname), ``class_answers`` (one per student and
round: a unique constraint), ``class_submissions`` (each request's idempotency key, once per
round) and ``class_join_failures`` (failed joins per minute), plus ``classroom_meta`` for the
schema's version. ``store.ClassStore.migrate`` runs the steps a database lacks.

>>> sorted(metadata.tables)[:3], SCHEMA_VERSION
(['class_answers', 'class_join_failures', 'class_rounds'], 1)
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Boolean, Column, Float, ForeignKey, Integer, MetaData, String, Table, UniqueConstraint

from attention_core import class_questions as cq

SCHEMA_VERSION = 1
"""The schema this code writes; ``migrate`` brings an older database up to it."""
NICKNAME_CHARS = 24
"""The longest nickname a student may give (characters)."""

metadata = MetaData()
meta = Table(
    "classroom_meta",
    metadata,
    Column("key", String(32), primary_key=True),
    Column("value", String(64), nullable=False),
)
classes = Table(
    "classes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(8), nullable=False, unique=True),
    Column("teacher_hash", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False, index=True),
)
rounds = Table(
    "class_rounds",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("seed", Integer, nullable=False),
    Column("revealed", Boolean, nullable=False, default=False),
    Column("again_of", Integer, nullable=True),  # the number of the round this one asks again
    Column("started_at", Float, nullable=False),
    UniqueConstraint("class_id", "number", name="one_round_number"),
)
students = Table(
    "class_students",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("student_key", String(64), nullable=False),
    Column("nickname", String(NICKNAME_CHARS * 4), nullable=True),
    Column("joined_at", Float, nullable=False),
    UniqueConstraint("class_id", "student_key", name="one_student_key"),
)
answers = Table(
    "class_answers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("round_id", Integer, ForeignKey("class_rounds.id", ondelete="CASCADE"), nullable=False),
    Column("student_id", Integer, ForeignKey("class_students.id", ondelete="CASCADE"), nullable=False),
    Column("value", String(cq.MAX_ANSWER_CHARS), nullable=False),
    Column("outcome", String(32), nullable=False),
    Column("changes", Integer, nullable=False, default=0),
    Column("answered_at", Float, nullable=False),
    UniqueConstraint("round_id", "student_id", name="one_answer_per_round"),
)
submissions = Table(
    "class_submissions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("round_id", Integer, ForeignKey("class_rounds.id", ondelete="CASCADE"), nullable=False),
    Column("idem_key", String(64), nullable=False),
    UniqueConstraint("round_id", "idem_key", name="one_use_per_key"),
)
join_failures = Table(
    "class_join_failures",
    metadata,
    Column("minute", Integer, primary_key=True, autoincrement=False),
    Column("failures", Integer, nullable=False),
)


def _v1(conn) -> None:
    metadata.create_all(conn)


MIGRATIONS: dict[int, Callable] = {1: _v1}
"""Schema version -> the step that makes it from the version before (1: every table)."""
