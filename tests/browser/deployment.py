"""One deploy/serve.sh deployment for the browser tests that drive serve.sh in Chromium
(test_class_browser.py, test_deploy_browser.py), started when the first of them asks for it and
kept for the next one, as the shared Streamlit server is (tests/browser/conftest.py).

Why: a start of serve.sh is two app processes, each importing the app and warming itself
(``attention_ui.warm``: the model, the census, the pages' imports, the first figures), plus
nginx. The two tests started three between them; sharing the one a test leaves running saves a
start, with every check of both tests kept. The deployment is the union of what each needs:
two processes under the base path ``BASE_PATH`` with ``--base-url`` (the Class page's link),
the class database, and the socket audit hook (tests/test_deploy.py) in every Python process.

A test that kills an app process, restarts or stops serve.sh does it on this one; a test that
finds it stopped (``running``) starts it again, on the same port, run directory and database,
so the tests hold in any order.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

from tests.test_deploy import AUDIT_HOOK, Serve, ensure_nginx, free_port_block, serve

BASE_PATH = "/attention-lab"
START_TIMEOUT = 300  # s: two app processes and nginx on a loaded 2-core machine


class Deployment:
    """serve.sh with two app processes behind nginx on ``port``: ``running()`` gives the Serve
    (started when it is not running), ``restart()`` stops it (SIGTERM, then whatever is left)
    and starts it again, ``close()`` stops it and removes its files."""

    def __init__(self) -> None:
        ensure_nginx()
        self.dir = Path(tempfile.mkdtemp(prefix="deployment-"))
        hook_dir = self.dir / "hook"
        hook_dir.mkdir()
        (hook_dir / "sitecustomize.py").write_text(AUDIT_HOOK)
        self.connect_log = self.dir / "connections.log"
        self.run_dir = self.dir / "run"
        self.db = f"sqlite:///{self.dir / 'data' / 'classroom.sqlite3'}"
        self.port = free_port_block(3)
        self.base_url = f"http://127.0.0.1:{self.port}{BASE_PATH}"
        """What ``--base-url`` says: the address the Class page's link and QR code start with."""
        self.env = {
            "PYTHONPATH": str(hook_dir),  # the audit hook in every Python process
            "CONNECT_LOG": str(self.connect_log),
            "ATTENTION_LAB_CLASS_DB": self.db,
        }
        self.srv: Serve | None = None
        self._running: contextlib.ExitStack | None = None

    def running(self) -> Serve:
        """The running serve.sh, started first if it is not running (or serve.sh has exited)."""
        if self.srv is not None and self.srv.proc.poll() is not None:
            self.stop()
        if self.srv is None:
            self._running = contextlib.ExitStack()
            self.srv = self._running.enter_context(
                serve(
                    "--processes",
                    "2",
                    "--base-url",
                    self.base_url,
                    port=self.port,
                    run_dir=self.run_dir,
                    base_path=BASE_PATH,
                    timeout=START_TIMEOUT,
                    env=self.env,
                )
            )
        return self.srv

    def stop(self) -> None:
        """Stop serve.sh as ``serve`` does at its end: SIGTERM, then whatever it left."""
        running, self._running, self.srv = self._running, None, None
        if running is not None:
            running.close()

    def restart(self) -> Serve:
        self.stop()
        return self.running()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
