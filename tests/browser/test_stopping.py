"""A PyTorch check can always be stopped: by the learner (Cancel), and with the whole server.

The learner's Cancel kills the check's process and frees the slot, so the next check runs at
once. SIGTERM during a check, to a real ``streamlit run`` and to a real ``deploy/serve.sh``:
everything stops by itself (the server exits on the signal; serve.sh kills nothing after its
grace), no process of the server, the check or nginx is left, and no log speaks of leaked
semaphores. The stop times are printed; ``python -m bench.bench_stop`` measures them over
several tries (docs/deploy.md, "Stopping").
"""

from __future__ import annotations

import signal

import pytest

from attention_ui.i18n import translate
from harness import no_exception, streamlit_server, testid, wait_for_app
from tests.stopping import (
    CANCEL_BUTTON,
    CHECK_BUTTON,
    Noted,
    ask_for_a_check,
    check_children,
    kill_left,
    leaks,
    stop_and_watch,
    wait_for,
)
from tests.test_deploy import ensure_nginx, free_port_block, serve

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]


def largest_difference(page) -> float:
    label = translate("en", "code.torch_largest")
    box = page.locator(testid("stMetric")).filter(has_text=label)
    return float(box.locator(testid("stMetricValue")).inner_text())


def test_a_learner_cancels_a_check_and_the_next_one_runs(tab):
    with streamlit_server() as srv:
        page = tab()
        server = srv.process.pid
        children = ask_for_a_check(page, srv.url, wait_for_app, server)
        assert children, f"no check started below the server:\n{srv.log()}"
        page.get_by_role("button", name=CANCEL_BUTTON).click()
        wait_for_app(page)
        no_exception(page)
        assert translate("en", "checks.cancelled") in page.locator(testid("stMain")).inner_text()
        assert wait_for(lambda: not check_children(server), 30) is True, "the cancelled check still runs"
        page.get_by_role("button", name=CHECK_BUTTON).click()  # the slot is free again
        wait_for_app(page)
        no_exception(page)
        assert 0 <= largest_difference(page) < 1e-12
        assert not check_children(server)


def test_sigterm_during_a_check_stops_streamlit_and_the_check(tab):
    with streamlit_server() as srv:
        page = tab()
        noted = Noted()
        children = ask_for_a_check(page, srv.url, wait_for_app, srv.process.pid)
        assert children, f"no check started below the server:\n{srv.log()}"
        stopped = stop_and_watch(srv.process, noted)
        log = srv.log(200_000)
        print(f"\nstreamlit run: exited {stopped.exit_s:.2f} s after SIGTERM, all gone after {stopped.gone_s:.2f} s")
        kill_left(stopped.left)
        assert stopped.code is not None, f"the server did not exit on SIGTERM:\n{log}"
        assert not stopped.left, f"left running: {stopped.left_commands}"
        assert not leaks(log), leaks(log)


def _serve_sh_signalled_during_a_check(tab, run_dir, sig: int, within: float):
    """serve.sh with one app process, a learner's check running below it, ``sig`` to serve.sh
    alone; (what stopped when, serve.sh's output and logs). Kills what is left afterwards."""
    ensure_nginx()
    port = free_port_block(2)
    with serve("--processes", "1", port=port, run_dir=run_dir, timeout=300) as srv:
        page = tab()
        children = ask_for_a_check(page, srv.url, wait_for_app, srv.proc.pid)
        assert children, f"no check started below serve.sh:\n{srv.logs()}"
        stopped = stop_and_watch(srv.proc, Noted(), within=within, sig=sig)
        kill_left(stopped.left)
        return stopped, srv.logs()


def test_sigterm_to_serve_sh_during_a_check_stops_everything(tab, tmp_path):
    stopped, logs = _serve_sh_signalled_during_a_check(tab, tmp_path / "run", signal.SIGTERM, 30.0)
    print(f"\nserve.sh: exited {stopped.exit_s:.2f} s after SIGTERM, all gone after {stopped.gone_s:.2f} s")
    assert stopped.code == 143, logs
    assert "still running after" not in logs, f"serve.sh had to kill what SIGTERM did not stop:\n{logs}"
    assert not stopped.left, f"left running: {stopped.left_commands}"
    assert not leaks(logs), leaks(logs)


def test_sigkill_to_serve_sh_during_a_check_leaves_nothing(tab, tmp_path):
    """SIGKILL, which no trap sees: the app process (told by Linux that serve.sh died:
    attention_ui/lifeline.py), the check's process and nginx all end within 15 s."""
    stopped, logs = _serve_sh_signalled_during_a_check(tab, tmp_path / "run", signal.SIGKILL, 15.0)
    print(f"\nserve.sh killed outright: all gone after {stopped.gone_s:.2f} s")
    assert stopped.code == -signal.SIGKILL
    assert not stopped.left, f"left running 15 s after SIGKILL: {stopped.left_commands}\n{logs}"
