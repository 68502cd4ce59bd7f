"""The benches' page clock ends an action whose run a dropped connection cut off (issue 44, item 4).

In the fault runs (``bench_proxy.py --fault``: one ``serve.sh`` process killed under a class)
about one Chromium page in six had an action that "never settled" and the watchdog never
reloaded it. Recorded page by page (websocket events, console, the DOM): each of them had its
run under way when its process died; the page reconnected within a second, without any error,
showed the click's effect and no "not connected" badge. Only the clock (``bench/pageclock.py``)
still waited for the end of the run on the dead websocket, which never comes. Here the server
dies while a Next's run is under way (each run sleeps 4 s on purpose) and comes back: the clock
must end the action on the page's rerun, with two websockets and the cut-off run counted.
"""

from __future__ import annotations

import time

import pytest

from attention_ui.busy import SLOW_ENV
from attention_ui.internals import CONNECTION_STATUS, testid
from bench.pageclock import ARM_JS, INIT_JS, NO_RUN_MS, RESULT_JS, SETTLED_JS
from harness import TOY, free_port, streamlit_server, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_the_clock_ends_an_action_whose_run_the_drop_cut_off(tab):
    port = free_port()
    page = tab()
    page.context.add_init_script(INIT_JS)
    with streamlit_server(port=port, env={SLOW_ENV: "4"}) as before:
        page.goto(before.url + f"step_by_step?sentence=the+dog+sat+on+it&token=3&step=2&{TOY}")
        wait_for_app(page)
        page.evaluate(ARM_JS)
        page.locator(f"{testid('stMain')} .st-key-step_next button").click()
        page.wait_for_function("() => window.__bench.news.length === 1 && window.__bench.fins.length === 0")
        time.sleep(0.5)  # the run is under way (it sleeps 4 s) when the server dies
    page.wait_for_selector(CONNECTION_STATUS, timeout=30_000)
    with streamlit_server(port=port):
        state = page.wait_for_function(SETTLED_JS, arg=[0, NO_RUN_MS], polling=100, timeout=60_000).json_value()
        result = page.evaluate(RESULT_JS)
        assert state == "done", "the clock ends on the new session's run"
        assert result["sockets"] == 2, "the page reconnected on a new websocket"
        assert result["runs"] == 2 and result["finished"] == 1, "the cut-off run and the rerun that ended"
        assert page.locator(CONNECTION_STATUS).count() == 0, "the page is connected"
