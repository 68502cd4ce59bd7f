"""Where the class database is, and how long a class is kept.

``database_url`` picks, in order:

1. ``$ATTENTION_LAB_CLASS_DB``, a SQLAlchemy URL (``postgresql://user:pw@host/db`` for a
   school with several machines; ``sqlite:////path/file.sqlite3`` for another file);
2. the URL of ``[connections.classroom]`` in ``.streamlit/secrets.toml`` (the app passes it in);
3. SQLite in the data folder: ``$ATTENTION_LAB_DATA``, else ``$XDG_DATA_HOME/attention-lab``,
   else ``~/.local/share/attention-lab``; the file ``classroom.sqlite3``. Every process of
   ``deploy/serve.sh`` on one machine runs as one user and so finds the same file.

A PostgreSQL URL without a driver is given psycopg 3's (``postgresql+psycopg``), the driver
that requirements.txt installs.

>>> database_url({"ATTENTION_LAB_CLASS_DB": "postgres://u@db/lab"})
'postgresql+psycopg://u@db/lab'
>>> database_url({"ATTENTION_LAB_DATA": "/srv/lab"})
'sqlite:////srv/lab/classroom.sqlite3'
>>> class_hours({"ATTENTION_LAB_CLASS_HOURS": "6"}), class_hours({})
(6.0, 24.0)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

URL_ENV = "ATTENTION_LAB_CLASS_DB"
DATA_ENV = "ATTENTION_LAB_DATA"
HOURS_ENV = "ATTENTION_LAB_CLASS_HOURS"
DB_FILE = "classroom.sqlite3"
CLASS_HOURS = 24.0
"""A class and its answers are deleted this many hours after it started (or when closed)."""
HOURS_RANGE = (0.1, 24.0 * 7)


def data_dir(env: Mapping[str, str] = os.environ) -> Path:
    """The folder the SQLite file lives in (not created here)."""
    if env.get(DATA_ENV):
        return Path(env[DATA_ENV]).expanduser()
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(base).expanduser() / "attention-lab"


def normalise_url(url: str) -> str:
    """A PostgreSQL URL with psycopg 3 as its driver; any other URL as given.

    >>> normalise_url("postgresql://a@b/c"), normalise_url("postgresql+psycopg://a@b/c")
    ('postgresql+psycopg://a@b/c', 'postgresql+psycopg://a@b/c')
    """
    url = url.strip()
    for plain in ("postgres://", "postgresql://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def database_url(env: Mapping[str, str] = os.environ, secrets_url: str | None = None) -> str:
    """The class database's SQLAlchemy URL (see the module's docstring for the order)."""
    if env.get(URL_ENV, "").strip():
        return normalise_url(env[URL_ENV])
    if secrets_url and secrets_url.strip():
        return normalise_url(secrets_url)
    return f"sqlite:///{data_dir(env) / DB_FILE}"


def class_hours(env: Mapping[str, str] = os.environ) -> float:
    """How many hours a class is kept: ``$ATTENTION_LAB_CLASS_HOURS`` (0.1 … 168), else 24."""
    try:
        hours = float(env.get(HOURS_ENV, CLASS_HOURS))
    except ValueError:
        return CLASS_HOURS
    low, high = HOURS_RANGE
    return min(max(hours, low), high) if hours == hours else CLASS_HOURS
