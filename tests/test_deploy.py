"""The scale-out kit (deploy/serve.sh, its nginx template, the systemd unit) and "no request
leaves the school" (browser.serverAddress in .streamlit/config.toml).

Fast: serve.sh's argument errors, the nginx config it writes (checked with `nginx -t`), and
nginx itself in front of two stand-in app servers (sticky cookie, websocket headers, base path,
failover, Ctrl-C). Starting the real app behind nginx in Chromium is
tests/browser/test_deploy_browser.py.

The nginx tests need Debian's nginx: serve.sh installs it with apt-get when it can (as root or
through sudo). Where it cannot, they skip, and in CI (``CI`` set) they fail.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness import process_group
from harness.stand_in import StandIn

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "deploy" / "serve.sh"
UNIT = ROOT / "deploy" / "attention-lab.service"
IN_CI = bool(os.environ.get("CI"))
NGINX_MISSING = 3  # serve.sh's exit code when nginx is missing and cannot be installed


# --------------------------------------------------------------------------- helpers (shared)


def free_port_block(count: int) -> int:
    """A port P such that P .. P+count-1 are all free on 127.0.0.1 right now."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + count > 65535:
            continue
        socks = []
        try:
            for p in range(base, base + count):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError(f"no block of {count} free ports")


def run_serve(*args: str, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run serve.sh to completion (argument errors, --check-config)."""
    return subprocess.run(
        ["bash", str(SERVE), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def serve_args(port: int, run_dir: Path, processes: int = 2) -> list[str]:
    """serve.sh and its arguments for ``processes`` app processes behind nginx on 127.0.0.1:``port``."""
    return [
        str(SERVE),
        "--processes",
        str(processes),
        "--port",
        str(port),
        "--listen",
        "127.0.0.1",
        "--run-dir",
        str(run_dir),
    ]


def _proc_table() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, session id) of every process now, from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        table[int(entry)] = (int(fields[1]), int(fields[3]))  # ppid, session
    return table


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, grandchildren, ...) now."""
    table = _proc_table()
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, _) in table.items():
            if ppid == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def session_members(sid: int) -> set[int]:
    """Every live process of session ``sid`` (serve.sh starts one with start_new_session)."""
    return {pid for pid, (_, session) in _proc_table().items() if session == sid and pid != sid}


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def start_time(pid: int) -> int | None:
    """When the process ``pid`` started (clock ticks after boot, /proc/<pid>/stat), or None if there
    is none: with it a pid noted earlier is told from a new process that was given the same pid
    (Linux reuses them: pid_max is 32768 here, and a test run starts thousands of processes)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[19])  # field 22, starttime


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((host, port)) == 0


@dataclass
class Serve:
    """A running ``deploy/serve.sh``, in its own session so that nothing it starts escapes."""

    proc: subprocess.Popen
    port: int
    run_dir: Path
    base_path: str
    out_path: Path
    ready_line: str = ""
    started_s: float = 0.0
    seen: dict[int, int | None] = field(default_factory=dict)  # every process seen below serve.sh: its start time

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.base_path}/"

    def output(self, tail: int = 6000) -> str:
        try:
            return self.out_path.read_text(errors="replace")[-tail:]
        except OSError:
            return ""

    def logs(self) -> str:
        parts = [f"--- serve.sh output\n{self.output()}"]
        for log in sorted((self.run_dir / "logs").glob("*")):
            with contextlib.suppress(OSError):
                parts.append(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}")
        return "\n".join(parts)

    def note_processes(self) -> set[int]:
        now = descendants(self.proc.pid)
        for pid in now:
            self.seen.setdefault(pid, start_time(pid))
        return now

    def still_running(self) -> set[int]:
        """The processes seen below serve.sh that still run (the same processes, not others that
        were given their pid since), and every live member of its session."""
        same = {pid for pid, started in self.seen.items() if started is not None and start_time(pid) == started}
        return {pid for pid in same | session_members(self.proc.pid) if alive(pid)}

    def app_pids(self) -> dict[int, int]:
        """app port -> pid, from serve.sh's pid files."""
        pids = {}
        for f in self.run_dir.glob("app-*.pid"):
            with contextlib.suppress(OSError, ValueError):
                pids[int(f.stem.split("-")[1])] = int(f.read_text())
        return pids

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Signal serve.sh alone (as systemd or a Ctrl-C would) and wait for it to exit."""
        self.note_processes()
        if self.proc.poll() is None:
            before = signal_state(self.proc.pid)
            self.proc.send_signal(sig)
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise AssertionError(
                    f"serve.sh did not stop within {timeout} s of signal {sig}; its signals then: {before}, "
                    f"now: {signal_state(self.proc.pid)}\n{self.logs()}"
                ) from None
        return self.proc.wait(timeout=timeout)

    def kill_everything(self) -> None:
        """Last resort after a failure: the whole session, then anything seen below it."""
        for s in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, s)
            for pid in self.still_running():  # never a pid that is now another process's
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, s)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                continue


CLEAN_SIGNALS = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM]); os.execvp(sys.argv[1], sys.argv[1:])",
]
"""serve.sh starts as from a terminal or systemd: SIGINT neither ignored nor blocked. A child
inherits both from the process that starts it, and bash cannot trap a signal ignored when it
started; in two full-suite runs serve.sh let a Ctrl-C (SIGINT) pass for 60 s, but never alone or
under load. The same process (``exec``): serve.sh's pid is the one started here."""


def signal_state(pid: int) -> str:
    """The blocked, ignored and caught signal masks of ``pid`` (from /proc), for a failure message."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "(gone)"
    return " ".join(line.replace("\t", "") for line in lines if line.startswith(("SigBlk", "SigIgn", "SigCgt")))


@contextlib.contextmanager
def serve(*args: str, port: int, run_dir: Path, base_path: str = "", timeout: float = 300, env=None) -> Iterator[Serve]:
    """Start serve.sh, wait for its "ready at" line; at exit stop it and whatever it left."""
    out = tempfile.NamedTemporaryFile(prefix="serve-", suffix=".log", delete=False)
    cmd = [*CLEAN_SIGNALS, "bash", str(SERVE), "--port", str(port), "--listen", "127.0.0.1", "--run-dir", str(run_dir)]
    cmd += args
    if base_path:
        cmd += ["--base-path", base_path]
    t0 = time.monotonic()
    env = {**os.environ, **(env or {})}
    try:
        with process_group(
            cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
        ) as proc:
            srv = Serve(proc=proc, port=port, run_dir=run_dir, base_path=base_path.rstrip("/"), out_path=Path(out.name))
            try:
                _wait_until_ready(srv, t0, timeout)
                srv.note_processes()
                yield srv
            finally:
                if proc.poll() is None:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        srv.stop(timeout=30)
                srv.kill_everything()
    finally:
        out.close()
        with contextlib.suppress(OSError):
            os.unlink(out.name)


def _wait_until_ready(srv: Serve, t0: float, timeout: float) -> None:
    """Until serve.sh prints its "ready at" line (RuntimeError with its logs if it exits first,
    or after ``timeout`` seconds)."""
    deadline = t0 + timeout
    while True:
        match = re.search(r"^serve\.sh: ready at .*$", srv.output(20000), re.M)
        if match:
            srv.ready_line = match.group(0)
            srv.started_s = time.monotonic() - t0
            return
        if srv.proc.poll() is not None:
            raise RuntimeError(f"serve.sh exited with code {srv.proc.returncode} before it was ready:\n{srv.logs()}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"serve.sh was not ready within {timeout:.0f} s:\n{srv.logs()}")
        time.sleep(0.2)


# --------------------------------------------------------------------------- argument errors


def test_help_names_every_option():
    result = run_serve("--help", timeout=30)
    assert result.returncode == 0, result.stderr
    for option in ("--processes", "--port", "--base-path", "--upstream", "--no-proxy", "--run-dir", "--check-config"):
        assert option in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--processes", "abc"], "--processes must be a whole number from 0 to 64, got 'abc'"),
        (["--processes", "-2"], "--processes must be a whole number"),
        (["--processes", "65"], "--processes must be a whole number from 0 to 64, got '65'"),
        (["--processes"], "--processes needs a value"),
        (["--port", "0"], "--port must be a port from 1 to 65535, got '0'"),
        (["--port", "70000"], "--port must be a port from 1 to 65535"),
        (["--port", "8o8o"], "--port must be a port"),
        (["--port=8080"], "write '--port 8080'"),
        (["--base-path", "attention-lab"], "--base-path must start with '/'"),
        (["--base-path", "/a b"], "--base-path may hold only letters"),
        (["--base-path", "/x;y"], "--base-path may hold only letters"),
        (["--bogus"], "unknown argument '--bogus'"),
        (["--processes", "0"], "--processes 0 needs at least one --upstream"),
        (["--upstream", "no-port-here"], "--upstream must be HOST:PORT"),
        (["--upstream", "10.1.1.1:99999"], "must be a port from 1 to 65535"),
        (["--no-proxy", "--processes", "0"], "--no-proxy starts app processes only"),
        (["--port", "8081", "--app-port", "8080", "--processes", "2"], "--port 8081 is one of the app ports"),
        (["--run-dir", "/tmp/has space"], "--run-dir must be a path"),
        (["--start-timeout", "soon"], "--start-timeout must be a whole number"),
    ],
)
def test_argument_errors_say_what_is_wrong(args, message, tmp_path):
    result = run_serve(*args, timeout=30, env={"TMPDIR": str(tmp_path)})
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert message in result.stderr
    assert "--help" in result.stderr, "the error points at the help"
    assert not list(tmp_path.iterdir()), "nothing is created for a bad command line"


# --------------------------------------------------------------------------- the nginx config


def ensure_nginx() -> str:
    """The nginx binary, installed by serve.sh itself when missing (as scripts/test.sh installs
    Chromium); skips the test where it cannot be (fails in CI)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = run_serve("--check-config", "--processes", "1", "--port", "18000", "--run-dir", tmp, timeout=600)
    if result.returncode == NGINX_MISSING:
        reason = f"nginx is missing and serve.sh could not install it: {result.stderr.strip()[-500:]}"
        if IN_CI:
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    assert result.returncode == 0, result.stderr
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    assert os.access(found, os.X_OK), "serve.sh said nginx is there"
    return found


@pytest.fixture(scope="module")
def nginx() -> str:
    return ensure_nginx()


def check_config(tmp_path: Path, *args: str) -> str:
    """Write the config with --check-config (serve.sh runs `nginx -t` on it) and return it."""
    result = run_serve("--check-config", "--run-dir", str(tmp_path), *args, timeout=120)
    assert result.returncode == 0, result.stderr
    conf = tmp_path / "nginx.conf"
    assert result.stdout.strip() == str(conf), "prints the config's path"
    assert "is valid" in result.stderr
    return conf.read_text()


def nginx_t(nginx: str, run_dir: Path) -> None:
    """Our own `nginx -t` on the written file (not only serve.sh's word for it)."""
    done = subprocess.run(
        [nginx, "-t", "-p", str(run_dir), "-c", str(run_dir / "nginx.conf"), "-e", str(run_dir / "logs/error.log")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


def test_config_has_websockets_sticky_hashing_and_health_checks(nginx, tmp_path):
    conf = check_config(tmp_path, "--processes", "3", "--port", "18100")
    nginx_t(nginx, tmp_path)
    # Websockets: HTTP/1.1 to the app, the Upgrade handshake passed on, long read timeouts.
    assert "proxy_http_version 1.1;" in conf
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    assert "proxy_set_header Connection $connection_upgrade;" in conf
    assert re.search(r"map \$http_upgrade \$connection_upgrade \{\s*default upgrade;", conf)
    assert "proxy_read_timeout 1d;" in conf and "proxy_send_timeout 1d;" in conf
    assert "proxy_set_header Host $http_host;" in conf, "the port too, so Streamlit sees a same-origin websocket"
    # Sticky sessions: a cookie nginx sets itself naming the process; new browsers in turn
    # (round robin: no hash, no ip_hash, no least_conn), each pinned one in its own group.
    assert not re.search(r"^\s*(ip_hash|hash|least_conn)\b", conf, re.M)
    assert "proxy_pass http://$attention_lab_pool;" in conf
    assert "add_header Set-Cookie $attention_lab_set_cookie always;" in conf
    assert "Path=/;" in conf
    # The three app processes with passive health checks, on the ports after --port: in the
    # new browsers' group, and each in its own group first, the others as its backups.
    servers = ["127.0.0.1:18101", "127.0.0.1:18102", "127.0.0.1:18103"]
    rotation = re.search(r"upstream attention_lab \{(.*?)\}", conf, re.S).group(1)
    assert re.findall(r"^\s*server (\S+) max_fails=1 fail_timeout=10s;", rotation, re.M) == servers
    for i, own in enumerate(servers, start=1):
        assert re.search(rf"^\s*p{i} attention_lab_p{i};", conf, re.M)
        group = re.search(rf"upstream attention_lab_p{i} \{{(.*?)\}}", conf, re.S).group(1)
        assert re.findall(r"^\s*server (\S+) max_fails=1 fail_timeout=10s;", group, re.M) == [own]
        backups = re.findall(r"^\s*server (\S+) max_fails=1 fail_timeout=10s backup;", group, re.M)
        assert backups == [x for x in servers if x != own]
        assert f'"~(^|[ ,]){re.escape(own)}$" p{i};' in conf, "the process that answered names the cookie"
    assert "listen 0.0.0.0:18100;" in conf
    assert "location / {" in conf
    # Everything of nginx's own in the run directory, nothing in /etc/nginx.
    for line in ("pid", "error_log", "access_log", "client_body_temp_path", "proxy_temp_path"):
        assert re.search(rf"^\s*{line} {re.escape(str(tmp_path))}/", conf, re.M), line
    settings = re.sub(r"#[^\n]*", "", conf)  # without the comments
    assert "/etc/nginx" not in settings and "include" not in settings
    assert "@@" not in settings, "every placeholder is filled in"


def test_config_honours_the_base_path(nginx, tmp_path):
    conf = check_config(
        tmp_path, "--processes", "2", "--port", "18200", "--app-port", "18300", "--base-path", "/attention-lab/"
    )
    nginx_t(nginx, tmp_path)
    assert "location /attention-lab/ {" in conf
    assert "location / {" not in conf
    assert "location = / { return 302 /attention-lab/$is_args$args; }" in conf
    assert "location = /attention-lab { return 301 /attention-lab/$is_args$args; }" in conf
    assert "Path=/attention-lab/;" in conf, "the route cookie belongs to the app's path"
    rotation = re.search(r"upstream attention_lab \{(.*?)\}", conf, re.S).group(1)
    assert re.findall(r"server (\S+) max_fails", rotation) == ["127.0.0.1:18300", "127.0.0.1:18301"]


def test_config_puts_processes_of_other_machines_in_the_upstream(nginx, tmp_path):
    # 192.0.2.0/24 is the documentation range: nginx -t parses the addresses, sends nothing.
    conf = check_config(
        tmp_path,
        "--processes",
        "1",
        "--port",
        "18400",
        "--upstream",
        "192.0.2.10:8501",
        "--upstream",
        "192.0.2.11:8502",
        "--upstream",
        "localhost:8503",
    )
    nginx_t(nginx, tmp_path)
    rotation = re.search(r"upstream attention_lab \{(.*?)\}", conf, re.S).group(1)
    servers = ["127.0.0.1:18401", "192.0.2.10:8501", "192.0.2.11:8502", "127.0.0.1:8503"]
    assert re.findall(r"server (\S+) max_fails", rotation) == servers
    # A name is written as the address nginx's $upstream_addr will show (so the cookie can name
    # the process that answered).
    assert '"~(^|[ ,])127\\.0\\.0\\.1:8503$" p4;' in conf


def test_systemd_unit_runs_serve_sh_with_arguments_it_accepts(nginx, tmp_path):
    text = UNIT.read_text()
    exec_start = re.search(r"^ExecStart=(.+)$", text, re.M).group(1).split()
    assert exec_start[0] == "/bin/bash" and exec_start[1].endswith("/deploy/serve.sh")
    args = exec_start[2:]
    assert "--run-dir" in args and "--processes" in args
    # The same arguments, run here with our own run directory and --check-config.
    i = args.index("--run-dir")
    args[i + 1] = str(tmp_path)
    check_config(tmp_path, *args)
    assert re.search(r"^KillMode=mixed$", text, re.M), "SIGTERM to serve.sh first: its trap stops the rest"
    assert re.search(r"^StateDirectory=attention-lab$", text, re.M)
    if shutil.which("systemd-analyze"):
        done = subprocess.run(["systemd-analyze", "verify", str(UNIT)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


# --------------------------------------------------------------------------- nginx in front of stand-ins


def get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode(errors="replace")
    finally:
        conn.close()


def test_nginx_is_sticky_passes_websockets_fails_over_and_stops_on_ctrl_c(nginx, tmp_path):
    base = free_port_block(3)
    a, b = StandIn("A", base + 1), StandIn("B", base + 2)
    try:
        upstreams = ["--upstream", f"127.0.0.1:{base + 1}", "--upstream", f"127.0.0.1:{base + 2}"]
        with serve(
            "--processes", "0", *upstreams, port=base, run_dir=tmp_path, base_path="/attention-lab", timeout=120
        ) as srv:
            port = srv.port
            # A first visit gets a route cookie for the app's path, naming the process.
            status, headers, who = get(port, "/attention-lab/?sentence=a+b")
            assert status == 200
            cookie = headers.get("set-cookie", "")
            m = re.fullmatch(r"attention_lab_route=(p[12]); Path=/attention-lab/; HttpOnly; SameSite=Lax", cookie)
            assert m, cookie
            assert m.group(1) == {"A": "p1", "B": "p2"}[who]
            route = f"attention_lab_route={m.group(1)}"
            # Every later request with it reaches the same process, and is not given a new cookie.
            for path in ("/attention-lab/_stcore/health", "/attention-lab/media/x.png", "/attention-lab/matrices"):
                status, headers, again = get(port, path, {"Cookie": route})
                assert (status, again) == (200, who), path
                assert "set-cookie" not in headers
            # New browsers take the processes in turn: 40 first visits, 20 on each (a hash of
            # random ids split classes unevenly: bench/bench_balance.py); a cookie of no process
            # (an old one, or made up) is a first visit too.
            spread = {"A": 0, "B": 0}
            for n in range(40):
                made_up = {"Cookie": f"attention_lab_route={secrets.token_hex(16)}"} if n % 2 else {}
                spread[get(port, "/attention-lab/", made_up)[2]] += 1
            assert spread == {"A": 20, "B": 20}
            # The websocket handshake reaches the app with its headers, and the Host with its port.
            ws_headers = {"Upgrade": "websocket", "Connection": "Upgrade", "Cookie": route}
            get(port, "/attention-lab/_stcore/stream", ws_headers)
            server = a if who == "A" else b
            path, seen = server.requests[-1]
            assert path == "/attention-lab/_stcore/stream"
            assert seen.get("upgrade") == "websocket" and seen.get("connection", "").lower() == "upgrade"
            assert seen.get("host") == f"127.0.0.1:{port}"
            assert seen.get("x-forwarded-for") == "127.0.0.1"
            # The bare host and the path without its slash lead to the app, query kept.
            assert get(port, "/")[0] == 302 and get(port, "/")[1]["location"] == "/attention-lab/"
            status, headers, _ = get(port, "/attention-lab?lang=zh")
            assert (status, headers["location"]) == (301, "/attention-lab/?lang=zh")
            # One process goes away: its browsers move to the other at once, without an error,
            # and are pinned to it (a new cookie), so they stay when the first one is back.
            server.close()
            other = "B" if who == "A" else "A"
            status, headers, now = get(port, "/attention-lab/", {"Cookie": route})
            assert (status, now) == (200, other)
            moved = {"A": "p1", "B": "p2"}[other]
            assert headers.get("set-cookie", "").startswith(f"attention_lab_route={moved};"), headers
            for _ in range(3):
                status, headers, now = get(port, "/attention-lab/", {"Cookie": f"attention_lab_route={moved}"})
                assert (status, now) == (200, other) and "set-cookie" not in headers
            # Ctrl-C: serve.sh stops nginx and exits; nothing it started is left.
            started = srv.note_processes()
            assert started, "nginx ran below serve.sh"
            code = srv.stop(signal.SIGINT, timeout=60)
            assert code == 130, srv.logs()
            time.sleep(0.5)
            left = srv.still_running()
            assert not left, f"left running after Ctrl-C: {left}\n{srv.logs()}"
            assert not port_open(port)
            assert not (tmp_path / "serve.pid").exists()
    finally:
        a.close()
        with contextlib.suppress(OSError):
            b.close()


# --------------------------------------------------------------------------- nothing leaves the school

# Loaded into every Python process through PYTHONPATH (as sitecustomize): writes the host of
# each socket connection and name lookup the process makes to $CONNECT_LOG, one a line
# (os.write raises no audit event of its own).
AUDIT_HOOK = """
import os, sys
_fd = os.open(os.environ["CONNECT_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
def _host(x):
    if isinstance(x, tuple):
        x = x[0]
    if isinstance(x, bytes):
        x = x.decode(errors="replace")
    return "" if x is None else str(x)
def _hook(event, args):
    if event in ("socket.connect", "socket.sendto"):
        os.write(_fd, f"{event} {_host(args[1])}\\n".encode())
    elif event == "socket.getaddrinfo":
        os.write(_fd, f"{event} {_host(args[0])}\\n".encode())
sys.addaudithook(_hook)
"""

LOOPBACK = {"", "localhost", "0.0.0.0", "::", "::1"}


def outside_connections(log: Path) -> list[str]:
    """The lines of a CONNECT_LOG that name anything but this machine (loopback, Unix sockets)."""
    lines = log.read_text().splitlines() if log.exists() else []
    outside = []
    for line in lines:
        host = line.partition(" ")[2]
        if host in LOOPBACK or host.startswith(("127.", "/")) or host.startswith("\\0"):
            continue
        outside.append(line)
    return outside


class Recorder:
    """A local stand-in for every outside server: set as the HTTP(S) proxy, it records each
    connection and answers any request with a documentation-range address, 203.0.113.7 (which
    Streamlit would print as the "External URL")."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.seen: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                with contextlib.suppress(OSError):
                    first = conn.recv(4096).decode(errors="replace").split("\r\n", 1)[0]
                    self.seen.append(first)
                    body = b"203.0.113.7"
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
                    )

    def close(self):
        self.sock.close()


def start_streamlit(cwd: Path, tmp_path: Path, recorder: Recorder, timeout: float = 180) -> tuple[str, list[str]]:
    """Run ``streamlit run app.py`` headless in ``cwd`` (its .streamlit/config.toml applies), with
    every outside request sent to ``recorder`` and every socket call logged; return the start-up
    output and the outside connections once the server is up and has served a page."""
    hook_dir = tmp_path / "hook"
    hook_dir.mkdir()
    (hook_dir / "sitecustomize.py").write_text(AUDIT_HOOK)
    log = tmp_path / "connections.log"
    proxy = f"http://127.0.0.1:{recorder.port}"
    env = {
        k: v
        for k, v in os.environ.items()
        if k.lower() not in ("no_proxy", "pythonpath") and not k.startswith("STREAMLIT_")
    }
    env.update(
        PYTHONPATH=str(hook_dir),
        CONNECT_LOG=str(log),
        HTTP_PROXY=proxy,
        HTTPS_PROXY=proxy,
        http_proxy=proxy,
        https_proxy=proxy,
        ALL_PROXY=proxy,
    )
    port = free_port_block(1)
    out = tmp_path / "streamlit.out"
    # No --server.address: that (a specific address) would skip the lookup too, and hide it.
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port)]
    with (
        out.open("w") as sink,
        process_group(cmd, cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL) as proc,
    ):
        deadline = time.monotonic() + timeout
        while "You can now view" not in out.read_text() or not port_open(port):
            assert proc.poll() is None, out.read_text()
            assert time.monotonic() < deadline, f"streamlit did not start in {timeout:.0f} s:\n{out.read_text()}"
            time.sleep(0.25)
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(f"http://127.0.0.1:{port}/") as r:
            assert r.status == 200
        time.sleep(3)  # the banner's lookup, if any, has a 1 s timeout per try
        return out.read_text(), outside_connections(log)


def test_the_app_starts_without_contacting_any_outside_address(tmp_path):
    recorder = Recorder()
    try:
        output, outside = start_streamlit(ROOT, tmp_path, recorder)
    finally:
        recorder.close()
    assert "External URL" not in output, output
    assert recorder.seen == [], f"a request went out (to the stand-in proxy): {recorder.seen}"
    assert outside == [], f"socket calls to outside addresses: {outside}"
    assert "URL: http://localhost:" in output, "the banner shows browser.serverAddress instead"


def test_the_check_catches_streamlits_lookup_without_the_setting(tmp_path):
    """The same check on an app without our config.toml: Streamlit asks for its address, the
    stand-in answers, and the banner prints it. So the test above can fail."""
    app_dir = tmp_path / "bare"
    app_dir.mkdir()
    (app_dir / "app.py").write_text("import streamlit as st\n\nst.write('hello')\n")
    recorder = Recorder()
    try:
        output, outside = start_streamlit(app_dir, tmp_path, recorder)
    finally:
        recorder.close()
    assert any("checkip.amazonaws.com" in line for line in recorder.seen), recorder.seen
    assert "External URL: http://203.0.113.7:" in output, output
    assert outside, "the socket log sees the banner's other lookup (a UDP connect to 8.8.8.8 for the Network URL)"


def test_config_toml_sets_the_server_address():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["browser"]["serverAddress"] == "localhost"
    assert config["browser"]["gatherUsageStats"] is False
    assert "--browser.serverAddress localhost" in SERVE.read_text()


# --------------------------------------------------------------------------- start-up failures


def test_a_busy_port_is_refused_before_anything_starts(nginx, tmp_path):
    base = free_port_block(2)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", base))
        busy.listen(1)
        result = run_serve(
            "--processes", "1", "--port", str(base), "--listen", "127.0.0.1", "--run-dir", str(tmp_path), timeout=120
        )
    assert result.returncode == 1, result.stderr
    assert f"port {base} is in use already; choose another --port" in result.stderr
    assert not list(tmp_path.glob("app-*.pid")) and not (tmp_path / "logs" / f"app-{base + 1}.log").exists()


def test_an_app_process_that_dies_at_start_stops_everything_with_its_log(nginx, tmp_path):
    # A stand-in Python: it imports streamlit (serve.sh checks that), but its app dies at once.
    fake = tmp_path / "python"
    fake.write_text(
        '#!/bin/sh\nif [ "$1" = -c ]; then exit 0; fi\necho "boom: the app could not start" >&2\nsleep 1\nexit 3\n'
    )
    fake.chmod(0o755)
    base = free_port_block(3)
    run_dir = tmp_path / "run"
    cmd = ["bash", *serve_args(base, run_dir)]
    env = {**os.environ, "PYTHON": str(fake)}
    with process_group(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert "exited before it was ready; its log ends:" in err
    assert "boom: the app could not start" in err
    assert "ready at" not in out
    assert not session_members(proc.pid), "nothing of it is left"
    assert not port_open(base)


# --------------------------------------------------------------------------- killed outright

STARTER = """
import sys, time
from harness import process_group
with open(sys.argv[1], "w") as out, process_group(["bash", *sys.argv[2:]], stdout=out, stderr=out) as serve_sh:
    print(serve_sh.pid, flush=True)
    time.sleep(600)
"""
"""A bench in miniature: starts serve.sh the one way benches and tests do (``harness.process_group``)."""


@pytest.mark.timeout(600)
@pytest.mark.parametrize("killed", ["serve.sh", "what started serve.sh"])
def test_serve_sh_killed_outright_leaves_nothing(nginx, tmp_path, killed):
    """SIGKILL, which no trap sees, to serve.sh (two real app processes and nginx running) or to
    the script that started it: within 15 s no app process, no nginx master or worker, nothing
    seen below serve.sh is left, and no port answers. Before, the app processes (each in a
    session of its own) and nginx lived on with no parent: a killed script left 8 of them."""
    base = free_port_block(3)
    out = tmp_path / "serve.out"
    args = serve_args(base, tmp_path / "run")
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER, str(out), *args],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    noted: dict[int, int | None] = {}
    try:
        assert starter.stdout is not None
        serve_pid = int(starter.stdout.readline())
        deadline = time.monotonic() + 300
        while "serve.sh: ready at" not in (out.read_text() if out.exists() else ""):
            assert starter.poll() is None and time.monotonic() < deadline, out.read_text()[-3000:]
            time.sleep(0.5)
        for pid in descendants(serve_pid) | {serve_pid}:
            noted[pid] = start_time(pid)
        commands = " ".join(Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace") for pid in noted)
        assert commands.count("attention_ui.launch") == 2 and "nginx" in commands, commands
        os.kill(serve_pid if killed == "serve.sh" else starter.pid, signal.SIGKILL)

        def left() -> list[int]:
            return sorted(
                pid for pid, begun in noted.items() if begun is not None and start_time(pid) == begun and alive(pid)
            )

        deadline = time.monotonic() + 15
        while left() and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = {pid: Path(f"/proc/{pid}/cmdline").read_bytes()[:100] for pid in left()}
        assert not survivors, f"left running 15 s after SIGKILL to {killed}: {survivors}\n{out.read_text()[-3000:]}"
        assert not any(port_open(port) for port in range(base, base + 3))
    finally:
        for pid, begun in noted.items():  # whatever the test found, leave nothing running
            if begun is not None and start_time(pid) == begun:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        starter.kill()
        starter.wait(timeout=30)
