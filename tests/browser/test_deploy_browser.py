"""deploy/serve.sh for real: two app processes behind nginx, learners in Chromium.

Three browser contexts (three learners, each with its own cookies) open different views under
the base path /attention-lab, at least one on each process. Each lands, survives a reload with
the same view, and survives one process being killed: its learners' websockets reconnect (to
the other process, or to the killed one started again) and, since the view lives in the URL,
show their view again; the learners on the other process keep their websocket and notice
nothing. Then serve.sh is stopped with SIGTERM and no process it started may be left.

Every Python process it starts logs its socket calls (an audit hook, as in
tests/test_deploy.py): none may reach an outside address, with real sessions running.

The deployment is the one test_class_browser.py uses (``tests/browser/deployment.py``): one start
of serve.sh less; this test reads only the access log's lines written since it began.
Timeouts are generous: the machine has two cores and other tests may run beside this one.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from attention_ui.internals import testid
from harness import TOY, VIEWPORT, no_exception, wait_for_app
from tests.browser.deployment import BASE_PATH, START_TIMEOUT
from tests.test_deploy import outside_connections, port_open

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1200)]

PAGE_TIMEOUT = 180_000  # ms: a page's first run loads the model in its process
RECONNECT_TIMEOUT = 180_000  # ms: the killed process's learners are back on a live one

# Three views, each kept in the URL: the toy embedder on two pages, the real model on one.
VIEWS = [
    f"matrices?sentence=the+cat+sat+on+the+mat&{TOY}",
    f"step_by_step?sentence=the+dog+chased+the+cat&token=2&step=3&lang=zh&{TOY}",
    "matrices?sentence=the+animal+was+too+tired",
]

# Counts the page's Streamlit websockets (/_stcore/stream): 1 while the first one holds, 2 once
# it has been replaced after a lost connection.
COUNT_WEBSOCKETS = """(() => {
  const Native = window.WebSocket;
  window.__streams = 0;
  function Counted(url, protocols) {
    if (String(url).includes('/_stcore/stream')) window.__streams += 1;
    return protocols === undefined ? new Native(url) : new Native(url, protocols);
  }
  Counted.prototype = Native.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Counted[k] = Native[k];
  window.WebSocket = Counted;
})();"""


def query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlparse(url).query)


def view_of(page) -> dict:
    """What a learner sees: the URL's path and parameters, the page's title and its main text."""
    url = urlparse(page.url)
    return {
        "path": url.path,
        "query": query(page.url),
        "title": page.locator(f"{testid('stMain')} h1").first.inner_text(),
        "main": page.locator(testid("stMain")).inner_text(),
    }


def streams(page) -> int:
    return page.evaluate("window.__streams")


def access_log_size(run_dir: Path) -> int:
    log = run_dir / "logs" / "access.log"
    return log.stat().st_size if log.exists() else 0


def upstream_of(run_dir: Path, route: str, since: int = 0) -> set[str]:
    """The app processes (host:port) that nginx's access log shows serving this route, in the
    lines written from byte ``since`` on (this test's, on a deployment other tests used before)."""
    with open(run_dir / "logs" / "access.log", "rb") as f:
        f.seek(since)
        log = f.read().decode(errors="replace")
    found = set()
    for line in log.splitlines():
        m = re.search(rf"route={route} upstream=(\S+)", line)
        if m and m.group(1) != "-":
            found.update(u.strip() for u in m.group(1).split(","))
    return found


def route_cookie(context) -> str:
    return {c["name"]: c["value"] for c in context.cookies()}.get("attention_lab_route", "")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def test_learners_land_reload_and_survive_a_process_dying(chromium, deployment):
    srv = deployment.running()  # shared (tests/browser/deployment.py): this test ends it
    run_dir = srv.run_dir
    since = access_log_size(run_dir)  # the access log's lines of this test start here
    print(f"\n{srv.ready_line}\nserve.sh ready after {srv.started_s:.1f} s")
    assert srv.url.endswith(f":{srv.port}{BASE_PATH}/")

    # Learners: browser contexts, each with its route cookie (naming its process) from a first
    # request. Keep three, with at least one on each process (new browsers take them in turn).
    contexts, by_process = [], {}
    try:
        for _ in range(24):
            ctx = chromium.new_context(viewport=VIEWPORT)
            ctx.set_default_timeout(PAGE_TIMEOUT)
            assert ctx.request.get(srv.url + "_stcore/health").ok
            route = route_cookie(ctx)
            assert re.fullmatch(r"p[12]", route), ctx.cookies()
            assert ctx.request.get(srv.url + "_stcore/health").ok  # logged with its route
            (process,) = upstream_of(run_dir, route, since)
            by_process[process] = by_process.get(process, 0) + 1
            if len(contexts) < 2 or len({p for _, p in contexts} | {process}) == 2:
                contexts.append((ctx, process))
            else:
                ctx.close()
            if len(contexts) == 3:
                break
        processes = {p for _, p in contexts}
        assert len(contexts) == 3 and len(processes) == 2, f"24 routes never covered both processes: {by_process}"

        # Each learner opens a different view; it lands: drawn, no error, its parameters kept.
        pages = []
        for (ctx, process), view in zip(contexts, VIEWS):
            ctx.add_init_script(COUNT_WEBSOCKETS)
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
            t0 = time.monotonic()
            page.goto(srv.url + view)
            wait_for_app(page, timeout=PAGE_TIMEOUT)
            print(f"{view[:40]:40} on {process}: {time.monotonic() - t0:.1f} s")
            no_exception(page)
            assert not errors, errors
            for name, values in query(srv.url + view).items():
                assert query(page.url).get(name) == values, f"{name} kept in {page.url}"
            assert urlparse(page.url).path == f"{BASE_PATH}/{view.split('?')[0]}"
            assert streams(page) == 1
            on = upstream_of(run_dir, route_cookie(ctx), since)
            assert on == {process}, "every request of a learner on one process"
            pages.append((page, process, errors))

        # Memory per process with these sessions.
        pids = srv.app_pids()
        print("memory: " + ", ".join(f"port {p}: {rss_mb(pid):.0f} MB" for p, pid in sorted(pids.items())))

        # A reload gives the same view, from the same process.
        views = []
        for page, _, _ in pages:
            before = view_of(page)
            page.reload()
            wait_for_app(page, timeout=PAGE_TIMEOUT)
            no_exception(page)
            assert view_of(page) == before, "the same view after a reload"
            assert streams(page) == 1
            views.append(before)

        # One process dies (SIGKILL: no goodbye to its websockets).
        victim = contexts[0][1]
        victim_port = int(victim.rsplit(":", 1)[1])
        victim_pid = pids[victim_port]
        srv.note_processes()
        os.kill(victim_pid, signal.SIGKILL)
        t0 = time.monotonic()
        on_victim = [i for i, (_, p, _) in enumerate(pages) if p == victim]
        others = [i for i in range(3) if i not in on_victim]
        assert on_victim and others
        for i in on_victim:
            page = pages[i][0]
            page.wait_for_function("window.__streams >= 2", timeout=RECONNECT_TIMEOUT, polling=200)
            wait_for_app(page, timeout=RECONNECT_TIMEOUT)
            no_exception(page)
            assert view_of(page) == views[i], "the view is back after the reconnect"
        print(f"reconnected after {time.monotonic() - t0:.1f} s")
        page = pages[on_victim[0]][0]
        # The view still answers: a rerun from the new process (a reload, as a learner would).
        page.reload()
        wait_for_app(page, timeout=PAGE_TIMEOUT)
        assert view_of(page) == views[on_victim[0]]
        for i in others:
            page, _, errors = pages[i]
            assert streams(page) == 1, "a learner on the live process kept its connection"
            assert view_of(page) == views[i]
            no_exception(page)
            assert not errors, errors
        # serve.sh noticed and started the killed process again.
        deadline = time.monotonic() + START_TIMEOUT
        while srv.app_pids().get(victim_port) in (None, victim_pid):
            assert time.monotonic() < deadline, f"the killed process was not started again:\n{srv.logs()}"
            time.sleep(0.5)
        assert f"(pid {victim_pid}) exited" in srv.output() and "starting it again" in srv.output()
    finally:
        for ctx, _ in contexts:
            with contextlib.suppress(Exception):
                ctx.close()

    # Stop: SIGTERM to serve.sh alone, as systemd does; nothing it started is left.
    srv.note_processes()
    started = set(srv.seen)
    assert len(started) >= 4, f"two apps, a restarted one and nginx were seen: {started}"
    code = srv.stop(signal.SIGTERM, timeout=120)
    assert code == 143, srv.logs()
    grace = time.monotonic() + 1  # a second for what it stopped to be gone
    while (left := srv.still_running()) and time.monotonic() < grace:
        time.sleep(0.05)
    assert not left, f"left running after SIGTERM: {left}\n{srv.logs()}"
    assert not port_open(srv.port)
    for port in srv.app_pids() or (srv.port + 1, srv.port + 2):
        assert not port_open(port)

    # Nothing went out of this machine, from any of the app processes, with sessions running.
    assert deployment.connect_log.exists(), "the socket audit hook was loaded in the app processes"
    assert outside_connections(deployment.connect_log) == []
