"""The server reaches nowhere, whatever a client sends: a real server under an audit hook.

Every Python process of the server (and the PyTorch checks' children) runs with an audit hook
(``sys.addaudithook``, loaded as ``sitecustomize``) that logs every name lookup and connection
and refuses those beyond this machine, so nothing leaves even if the app misbehaves, and the log
says what it tried. Streamlit looked its own address up outside (a UDP connect toward 8.8.8.8,
then checkip.amazonaws.com) each time a websocket came from a foreign ``Origin``, which any web
page a learner visits can make happen; attention_ui.internals.keep_streamlit_local routes it
around (tests/test_internals_network.py shows bare Streamlit does look out).

1. ``python -m attention_ui.launch app.py`` (how deploy/serve.sh starts the app): knocks with
   foreign origins as the fresh server's very first requests, then every page in Chromium on the
   real model, both PyTorch checks, and the knocks again.
2. ``streamlit run app.py`` (what the Cloud runs): the same once a first page has run (before it,
   the patch is not in yet: docs/deploy.md, "Nothing leaves the school").
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from attention_ui.i18n import translate
from harness import ROOT, free_port, load_side_by_side, no_exception, process_group, testid, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1200)]

HOOK = """
import ipaddress, os, sys
_fd = os.open(os.environ["CONNECT_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
_LOOKUPS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr",
            "socket.getnameinfo")
def _local(host):
    if host in (None, "", "localhost") or str(host).startswith("/"):
        return True
    try:
        ip = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified
def _hook(event, args):
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        host = args[1][0] if isinstance(args[1], tuple) else args[1]
    elif event in _LOOKUPS:
        host = args[0][0] if isinstance(args[0], tuple) else args[0]
    else:
        return
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    local = _local(host)
    os.write(_fd, f"{'local' if local else 'OUTSIDE'} {os.getpid()} {event} {host}\\n".encode())
    if not local:
        raise PermissionError(f"the test's audit hook refuses {event} {host}")
sys.addaudithook(_hook)
os.write(_fd, f"loaded {os.getpid()} {' '.join(sys.orig_argv)[:200]}\\n".encode())
"""
"""Logs ``local|OUTSIDE pid event host`` for each lookup and connection, and refuses the outside
ones; its first line in each process is ``loaded pid command``."""

FOREIGN_ORIGINS = ("http://another-site.example", "https://203.0.113.9:8443", "null")


def knock(port: int, origin: str) -> str:
    """Open a websocket to /_stcore/stream with ``origin`` as a page on another site would; the
    status line of the answer (Streamlit refuses it: 403)."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /_stcore/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {origin}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request.encode())
        return sock.makefile("rb").readline().decode(errors="replace").strip()


@contextlib.contextmanager
def audited_server(runner: list[str], tmp_path: Path):
    """The app started by ``runner + [app.py, options]`` with the hook in every Python process;
    yields (base URL, port, connection log, server output)."""
    hook_dir = tmp_path / "hook"
    hook_dir.mkdir()
    (hook_dir / "sitecustomize.py").write_text(HOOK)
    log = tmp_path / "connections.log"
    log.touch()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("STREAMLIT_")}
    env.update(PYTHONPATH=str(hook_dir), CONNECT_LOG=str(log), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    port = free_port()
    out = tempfile.NamedTemporaryFile(prefix="audited-", suffix=".log", delete=False)
    # No --server.address (a specific address would hide nothing here) and Streamlit's defaults
    # for the rest, but headless: the app's .streamlit/config.toml applies, as on a server.
    cmd = [*runner, "app.py", "--server.headless", "true", "--server.port", str(port)]
    url = f"http://127.0.0.1:{port}/"
    output = Path(out.name)
    try:
        with process_group(
            cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        ) as proc:
            deadline = time.monotonic() + 180
            while True:
                assert proc.poll() is None, output.read_text()
                with contextlib.suppress(OSError):
                    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url + "_stcore/health") as r:
                        if r.status == 200:
                            break
                assert time.monotonic() < deadline, output.read_text()
                time.sleep(0.25)
            yield url, port, log, output
    finally:
        out.close()
        with contextlib.suppress(OSError):
            output.unlink()


def outside(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.startswith("OUTSIDE")]


def knock_all(port: int) -> None:
    for origin in FOREIGN_ORIGINS:
        status = knock(port, origin)
        assert " 403 " in f"{status} ", f"a websocket from {origin} was not refused: {status}"


def every_page(tab, url: str) -> int:
    """Open every page of the sidebar, three at a time, on the real model; return how many."""
    tabs = [tab() for _ in range(3)]
    home = tabs[0]
    home.goto(url)
    wait_for_app(home)
    links = home.locator(f"{testid('stSidebar')} {testid('stPageLink')} a")
    paths = [
        links.nth(n).get_attribute("href").split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] for n in range(links.count())
    ]
    assert len(paths) >= 10, paths
    for shown, _ in load_side_by_side(tabs, [url + path for path in paths]):
        no_exception(shown)
    for shown in tabs:
        shown.goto("about:blank")
    return len(paths)


def run_check(page, url: str, path: str, button: str, result: str) -> None:
    page.goto(url + path)
    wait_for_app(page)
    page.get_by_role("button", name=re.compile(re.escape(button))).click()
    wait_for_app(page, timeout=300_000)
    no_exception(page)
    assert translate("en", result) in page.locator(testid("stMain")).inner_text()


def test_launched_the_server_looks_nowhere_whatever_comes(tab, tmp_path):
    with audited_server([sys.executable, "-m", "attention_ui.launch"], tmp_path) as (url, port, log, output):
        knock_all(port)  # the fresh server's very first requests
        assert outside(log) == [], outside(log)
        pages = every_page(tab, url)
        page = tab()
        run_check(page, url, "code?toy=true&lang=en", "Run the same in PyTorch", "code.torch_largest")
        run_check(page, url, "real_model?lang=en", "Check against PyTorch", "real_model.difference")
        page.goto("about:blank")
        knock_all(port)
        seen = log.read_text().splitlines()
        calls = [line for line in seen if not line.startswith("loaded")]
        print(f"\n{pages} pages, 2 checks, {2 * len(FOREIGN_ORIGINS)} foreign knocks: {len(calls)} socket calls")
        assert outside(log) == [], outside(log)
        watched = [line for line in seen if line.startswith("loaded")]
        assert any("attention_ui.launch" in line for line in watched), "the hook was not in the server"
        assert sum("attention_core.isolated" in line for line in watched) == 2, f"nor in both checks: {watched}"
        assert "External URL" not in output.read_text()


def test_streamlit_run_looks_nowhere_once_a_page_has_run(tab, tmp_path):
    with audited_server([sys.executable, "-m", "streamlit", "run"], tmp_path) as (url, port, log, output):
        page = tab()
        page.goto(url + "code?toy=true&lang=en")
        wait_for_app(page)
        no_exception(page)
        knock_all(port)
        page.goto(url + "real_model?lang=en")
        wait_for_app(page)
        page.goto("about:blank")
        knock_all(port)
        assert outside(log) == [], outside(log)
        assert any("streamlit run" in line for line in log.read_text().splitlines()), "the hook was not in the server"
