"""The first click after a server restart: does it count, every time? In Chromium, N tries.

    python -m bench.bench_restart                   # 20 restarts, Next clicked at several delays
    python -m bench.bench_restart --tries 5 --delays 0 4
    python -m bench.bench_restart --launch          # restarted as serve.sh does: attention_ui.launch

One page (Step by step, the toy embedder) stays open while the server under it is stopped and
started again on the same port ``--tries`` times: ``streamlit run app.py``, as the Cloud restarts
it, or with ``--launch`` ``python -m attention_ui.launch app.py``, as serve.sh restarts a crashed
process (it installs the fragment rescue before the server answers). After each restart the page
reconnects by itself (a new websocket: counted by an init script); the learner then clicks Next,
either as soon as the page is idle again (``wait_for_app``, what the browser test does: delay
``idle``) or a number of seconds after the server answered its health check (``--delays``). The
click counts when the address bar's ``step=`` moves on within ``--wait`` s. Printed: per delay, the
tries, the clicks that counted, those lost, and whether the page asked for a lost one again
(``busy.LOST_ATTR``); the seconds from the server's health to the page's new websocket (median,
max). A lost click is clicked again (as the learner would), so the next try starts from a known
step. This script prints figures; it asserts nothing."""

from __future__ import annotations

import argparse
import sys
import time
from urllib.parse import parse_qs, urlparse

from attention_ui.busy import LOST_ATTR
from bench.core import chromium, machine, p50, streamlit_server, table
from harness import COUNT_RUNS_JS, TOY, free_port, testid, wait_for_app

SOCKETS_JS = """(() => {
  window.__sockets = 0;
  const NativeWS = window.WebSocket;
  window.WebSocket = class extends NativeWS {
    constructor(...args) { super(...args); if (String(args[0]).includes('/_stcore/stream')) window.__sockets += 1; }
  };
})();"""
NEXT = f"{testid('stMain')} .st-key-step_next button"
START = f"step_by_step?sentence=the+dog+sat+on+it&token=3&step=1&{TOY}"


def step_of(page) -> int:
    return int(parse_qs(urlparse(page.url).query).get("step", ["1"])[0])


def moved_on(page, want: int, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if step_of(page) == want:
            return True
        page.wait_for_timeout(100)
    return step_of(page) == want


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument(
        "--delays", nargs="+", default=["idle", "0", "1", "2", "4"], help="'idle' or seconds after the health check"
    )
    parser.add_argument("--wait", type=float, default=15.0, help="seconds a click may take to show")
    parser.add_argument("--launch", action="store_true", help="start the server as serve.sh does")
    args = parser.parse_args()
    port = free_port()
    results: dict[str, list[tuple[bool, bool]]] = {d: [] for d in args.delays}
    reconnect_s: list[float] = []
    with chromium() as browser:
        context = browser.new_context()
        context.add_init_script(COUNT_RUNS_JS)
        context.add_init_script(SOCKETS_JS)
        page = context.new_page()
        with streamlit_server(port=port, launch=args.launch) as first:
            page.goto(first.url + START)
            wait_for_app(page)
        for n in range(args.tries):
            delay = args.delays[n % len(args.delays)]
            sockets = page.evaluate("() => window.__sockets")
            with streamlit_server(port=port, launch=args.launch) as server:
                up = time.monotonic()
                page.wait_for_function(f"() => window.__sockets > {sockets}", timeout=120_000, polling=50)
                reconnect_s.append(time.monotonic() - up)
                if step_of(page) >= 7:  # the last step: start again from the first
                    page.goto(server.url + START)
                if delay == "idle":
                    wait_for_app(page)
                else:
                    page.wait_for_timeout(max(0.0, up + float(delay) - time.monotonic()) * 1000)
                want = step_of(page) + 1
                page.locator(NEXT).click()
                counted = moved_on(page, want, args.wait)
                asked = page.evaluate(f"() => document.documentElement.hasAttribute('{LOST_ATTR}')")
                results[delay].append((counted, asked))
                print(f"try {n + 1:2d}: Next {delay:>4} → step {want}: {'counted' if counted else 'LOST'}", flush=True)
                if not counted:  # the learner clicks again
                    wait_for_app(page)
                    page.locator(NEXT).click()
                    moved_on(page, want, args.wait)
                wait_for_app(page)
        context.close()
    rows = []
    for delay, tries in results.items():
        label = "when idle (wait_for_app)" if delay == "idle" else f"{delay} s after the health check"
        lost = [t for t in tries if not t[0]]
        rows.append([label, len(tries), len(tries) - len(lost), len(lost), sum(1 for t in lost if t[1])])
    total = sum(len(at_delay) for at_delay in results.values())
    all_counted = sum(1 for at_delay in results.values() for attempt in at_delay if attempt[0])
    print(table(["Next clicked", "tries", "counted", "lost", "lost, asked again"], rows, title="\n== first click"))
    how = "python -m attention_ui.launch" if args.launch else "streamlit run"
    print(f"   {all_counted} of {total} first clicks counted (server restarted by {how})")
    print(f"   health → new websocket: p50 {p50(reconnect_s):.2f} s, max {max(reconnect_s):.2f} s")
    print("\n" + machine(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
