"""A throwaway PostgreSQL server for the tests: Debian's ``postgresql`` package (initdb and
pg_ctl), started in a temporary directory on a free port, stopped at the end.

``pg_bin()`` finds the server's programs (``$PG_BIN``, else the newest
/usr/lib/postgresql/<version>/bin, else ``pg_config --bindir``). As root (CI, these machines)
the server runs as the ``postgres`` user, since PostgreSQL refuses to run as root. In CI
(``CI=true``) a missing PostgreSQL fails the test instead of skipping it:
scripts/test.sh installs the package.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest


def pg_bin() -> Path | None:
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    if versions:
        return versions[-1].parent
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        found = Path(out.stdout.strip())
        if (found / "initdb").exists():
            return found
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One server: ``url(database)`` gives a SQLAlchemy URL; ``new_database()`` a fresh one."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="attention-lab-pg-"))  # in /tmp, reachable by postgres
        self.data = self.dir / "data"
        self.port = _free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        out = subprocess.run([*self.as_user, *args], capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {out.stdout}\n{out.stderr}")

    def start(self) -> PostgresServer:
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "lab", "-E", "UTF8", "-N")
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"), "-o", options, "-w", "start"
        )
        return self

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://lab@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=lab dbname=postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # a name made here, not input
        return self.url(name)


def start_or_skip() -> PostgresServer:
    bindir = pg_bin()
    if bindir is None:
        message = "PostgreSQL is not installed (Debian's postgresql package; scripts/test.sh installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return PostgresServer(bindir).start()
