"""A class on the app: its Chromium seat, the run's figures and the app under test.

Shared by ``bench_server.py``, ``bench_sizing.py`` (protocol learners only), ``bench_load.py``
(Chromium pages, and protocol peers with ``--browsers``) and ``bench_proxy.py`` (both, through
nginx). Every learner walks the one lesson of ``bench/lesson_walk.py`` (its own settings, every
step checked against attention_core); this module adds what only a real browser has:

* ``ChromiumSeat``: a learner in its own Chromium context (own cookies, own websocket, own
  session), timed by the page's own clock (``bench/pageclock.py``). It reads from the page what
  ``lesson_walk.view_of`` reads from the protocol (the token picker, the progress text, every
  chart by its key, every ``st.html`` body, exception boxes) into a ``protocol.Answer``, so the
  same checks read both. The picker's labels are read as a learner sees them ("3: <b>") and
  Markdown-escaped as the server sends them before they are compared.
* After a dropped connection it counts the page's new websockets; an action the drop cut off
  is looked at again 4 s later (``after_drop``: the busy script's replay has come by then), and
  the page's note asking for it again (``busy.LOST_ATTR``) is looked for (``asked_again``).
* The figures of a run (``times_table``, ``problems``) and the app under test (``Target``: a
  fresh ``streamlit run app.py`` or ``--url``; its memory and CPU from /proc).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from typing import Any

from attention_ui.busy import LOST_ATTR
from attention_ui.safe import escape_markdown
from bench.core import (
    VIEWPORT,
    Server,
    p50,
    p95,
    pin,
    settle_rss,
    table,
    tree_cpu_s,
    tree_hwm_bytes,
    tree_rss_bytes,
    wait_idle_async,
)
from bench.lesson_walk import Learner, Seat, View, view_of
from bench.pageclock import INIT_JS, timed_action
from bench.protocol import Answer, Chart, NoAnswer, Table, Widget
from harness import js, testid

ACTION_NAMES = {
    "open": "page opened",
    "enter": "Enter → update",
    "token": "query token picked",
    "next": "Next",
    "switch": "page switch",
}

# --------------------------------------------------------------------------- the Chromium seat

# What the checks read from the page: the picker, the progress text, exception boxes, every
# chart by its key (typed arrays decoded to plain lists, as harness/ does) and the HTML tables
# (the tokens table, a matrix drawn as a table on screen: not its print twin).
PAGE_JS = js("""() => {
  const clean = v => (v && ArrayBuffer.isView(v)) ? Array.from(v) : Array.isArray(v) ? v.map(clean)
              : (v && typeof v === 'object' && 'bdata' in v) ? clean(v._inputArray) : v;
  const main = document.querySelector('testid(stMain)');
  const charts = main ? [...main.querySelectorAll('.js-plotly-plot')].filter(el => el.data).map(el => {
    const keyed = el.closest('[class*="st-key-"]');
    const y = el.layout && el.layout.yaxis;
    return {key: keyed ? (keyed.className.match(/st-key-([\\w-]+)/) || [])[1] : '',
            data: el.data.map(t => ({type: t.type, name: t.name, y: clean(t.y), z: clean(t.z)})),
            layout: {yaxis: {ticktext: y && y.ticktext ? Array.from(y.ticktext) : null}}}; }) : [];
  const picker = main ? [...main.querySelectorAll('.st-key-token_picker button')]
    .map(b => [b.innerText.trim(), b.getAttribute('aria-checked') === 'true']) : [];
  const p = main && main.querySelector('testid(stProgress)');
  return {picker, charts, progress: p ? p.innerText : '',
          html: main ? [...main.querySelectorAll('table.num-table, div.cell-matrix-box')]
            .filter(e => e.tagName === 'TABLE' || e.className === 'cell-matrix-box').map(e => e.outerHTML) : [],
          exceptions: [...document.querySelectorAll('testid(stException)')].map(e => e.innerText.slice(0, 300)),
          sockets: window.__bench ? window.__bench.sockets : 0};
}""")


def wire_label(shown: str) -> str:
    """A picker label as a learner reads it, Markdown-escaped as the server sends it.

    >>> wire_label("3: a*b")
    '3: a\\\\*b'
    """
    number, _, token = shown.partition(": ")
    return f"{number}: {escape_markdown(token)}"


def answer_of(raw: dict) -> Answer:
    """The page read by ``PAGE_JS`` as the protocol client's ``Answer`` (what ``view_of`` reads)."""
    labels = [wire_label(label) for label, _ in raw["picker"]]
    chosen = next((wire_label(label) for label, on in raw["picker"] if on), None)
    picker = Widget("token_picker", "button_group", None, value=[chosen] if chosen else [], options=labels)
    return Answer(
        widgets={"token_picker": picker} if labels else {},
        charts=[Chart(c["key"], json.dumps({"data": c["data"], "layout": c["layout"]})) for c in raw["charts"]],
        tables=[Table.parse(body) for body in raw["html"] if body.startswith(Table.PREFIX)],
        html=raw["html"],
        progress=raw["progress"],
        exceptions=raw["exceptions"],
    )


class ChromiumSeat(Seat):
    """A learner in its own Chromium context (own cookies, own websocket, own session)."""

    kind = "chromium"

    def __init__(self, base: str, timeout: float, browser, poll: int | str = 50):
        self.base, self.timeout, self.browser, self.poll = base, timeout, browser, poll
        self.context: Any = None  # a Playwright BrowserContext once open() ran
        self.page: Any = None  # its Page
        self.js_errors: list[str] = []
        self.sockets = 1  # websockets this page load opened (INIT_JS counts them per load)
        self.banked = 0  # websockets of earlier loads (the page reloaded: watchdog, an Enter replayed)
        self.loads = 0
        self.gave_up: list[str] = []  # Streamlit's websocket code calling an error fatal (console)

    async def open(self, query: str) -> tuple[float, int, View]:
        self.context = await self.browser.new_context(viewport=VIEWPORT)
        self.context.set_default_timeout(self.timeout * 1000)
        await self.context.add_init_script(INIT_JS)
        self.page = await self.context.new_page()
        self.page.on("pageerror", lambda exc: self.js_errors.append(str(exc)))
        self.page.on("console", self._console)
        self.page.on("domcontentloaded", self._loaded)  # a document load, not a page switch (pushState)
        t0 = time.perf_counter()
        try:
            await self.page.goto(self.base + "step_by_step?" + query, timeout=self.timeout * 1000)
            await wait_idle_async(
                self.page,
                self.timeout,
                f"() => document.querySelector('{testid('stProgress')}') !== null",
                polling=self.poll,
            )
        except Exception as exc:  # Playwright's TimeoutError: the page never came
            raise NoAnswer(f"open: the page did not settle within {self.timeout:.0f} s ({type(exc).__name__})") from exc
        return time.perf_counter() - t0, 1, await self._view()

    async def close(self, learner: Learner) -> None:
        await self.refresh()  # its websockets up to now (a last action may have raised first)
        learner.errors += [f"page error: {e[:300]}" for e in self.js_errors]
        learner.disconnects = self.disconnects()
        learner.notes += [f"websocket gave up: {e[:200]}" for e in self.gave_up]
        learner.notes += [f"page loaded again {self.loads - 1} times"] if self.loads > 1 else []
        if self.context is not None:
            await self.context.close()

    def disconnects(self) -> int:
        return max(0, self.banked + self.sockets - 1)

    def reconnects(self) -> bool:
        return True  # Streamlit's page reconnects by itself

    def _loaded(self, _page) -> None:
        """A load of the page (the first, or a reload): bank the websockets of the one before."""
        self.loads += 1
        if self.loads > 1:
            self.banked += self.sockets
            self.sockets = 0

    def _console(self, message) -> None:
        if message.type == "error" and ("fatal" in message.text.lower() or "ForwardMsg MISS" in message.text):
            self.gave_up.append(message.text)

    async def asked_again(self) -> bool:
        """The lost-click note (``busy.LOST_ATTR``) shows within 5 s of the answer."""
        try:
            await self.page.wait_for_function(
                f"() => document.documentElement.hasAttribute('{LOST_ATTR}')", timeout=5000, polling=100
            )
            return True
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: no note
            return False

    async def after_drop(self) -> View | None:
        """The page 4 s later, once idle: the busy script's replay (a reload) has come by then."""
        await asyncio.sleep(4)
        try:
            await wait_idle_async(
                self.page, self.timeout, f"() => document.querySelector('{testid('stProgress')}') !== null"
            )
            return await self._view()
        except Exception:  # noqa: BLE001 - the page never settled: no replay to count
            return None

    async def refresh(self) -> None:
        with contextlib.suppress(Exception):
            self.sockets = max(
                self.sockets, await self.page.evaluate("() => window.__bench ? window.__bench.sockets : 0")
            )

    async def route(self) -> str:
        """The proxy's route cookie of this learner's browser ("" without a proxy)."""
        if self.context is None:
            return ""
        return {c["name"]: c["value"] for c in await self.context.cookies()}.get("attention_lab_route", "")

    async def do(self, kind: str, arg: object = None) -> tuple[float, int, View]:
        page = self.page
        main, side = page.locator(testid("stMain")), page.locator(testid("stSidebar"))
        if kind == "enter":
            box = side.locator(".st-key-sentence textarea").first
            if await box.input_value() != arg:
                await box.fill(str(arg))
            action = box.press("Enter")
        elif kind == "token":  # arg: the picker's label, "3: …"
            action = main.locator(".st-key-token_picker button").nth(int(str(arg).split(":")[0]) - 1).click()
        elif kind == "next":
            action = main.locator(".st-key-step_next button").click()
        elif kind == "switch":
            action = side.locator(f'{testid("stPageLink")} a[href^="{arg}?"], a[href="{arg}"]').first.click()
        elif kind == "setting" and isinstance(arg, tuple):  # (key, number), typed into the sidebar's box
            box = side.locator(f".st-key-{arg[0]} input").first
            await box.fill(str(arg[1]))
            action = box.press("Enter")
        else:
            raise ValueError(kind)

        async def act() -> None:
            await action

        try:
            seconds, result = await timed_action(page, act, timeout=self.timeout)
        except Exception as exc:  # Playwright's TimeoutError: the page never settled
            raise NoAnswer(
                f"{kind}: the page did not settle within {self.timeout:.0f} s ({type(exc).__name__})"
            ) from exc
        return seconds, result["runs"], await self._view()

    async def _view(self) -> View:
        raw = await self.page.evaluate(PAGE_JS)
        self.sockets = max(self.sockets, raw.get("sockets") or 0)
        return view_of(answer_of(raw))


# --------------------------------------------------------------------------- figures


def times_of(learners: list[Learner], kind: str) -> list[float]:
    return [s for learner in learners for s in learner.times.get(kind, [])]


def times_table(groups: dict[str, list[Learner]], kinds=("enter", "switch", "next", "token")) -> str:
    """p50 / p95 / max (s) per action kind and group of learners."""
    rows = []
    for name, learners in groups.items():
        for kind in kinds:
            ts = times_of(learners, kind)
            if ts:
                rows.append([f"{name}: {ACTION_NAMES[kind]}", len(ts), p50(ts), p95(ts), max(ts)])
    return table(["action", "n", "p50 s", "p95 s", "max s"], rows)


def problems(learners: list[Learner], limit: int = 12) -> list[str]:
    """Each learner's errors and lost clicks, at most ``limit`` lines."""
    out = [f"{learner.name}: {e}" for learner in learners for e in learner.errors]
    out += [f"{learner.name}: lost click: {c}" for learner in learners for c in learner.lost]
    return out[:limit] + ([f"… {len(out) - limit} more"] if len(out) > limit else [])


def seeded_think(lo: float, hi: float, seed: int) -> Callable[[], float]:
    rng = random.Random(seed)
    return lambda: rng.uniform(lo, hi)


# --------------------------------------------------------------------------- the app under test


class Target:
    """The app the class works on: its base URL and the app processes whose memory and CPU are
    read (none for ``--url`` without ``--pids``: the figures then say "n/a")."""

    def __init__(self, url: str, pids: list[int]):
        self.url, self.pids = url, list(pids)

    def rss(self) -> int | None:
        return sum(tree_rss_bytes(p) for p in self.pids) if self.pids else None

    def settle(self, seconds: float = 1.0) -> int | None:
        return sum(settle_rss(p, seconds) for p in self.pids) if self.pids else None

    def hwm(self) -> int | None:
        return sum(tree_hwm_bytes(p) for p in self.pids) if self.pids else None

    def cpu(self) -> float | None:
        return sum(tree_cpu_s(p) for p in self.pids) if self.pids else None


@contextlib.contextmanager
def target(args):
    """``--url`` (with ``--pids``), or a fresh ``streamlit run app.py`` (pinned by
    ``--server-cpus`` / ``--client-cpus``); yields (Target, a note on where it runs)."""
    if args.url:
        yield Target(args.url, args.pids), "a running app (--url)"
        return
    server = Server().start()
    try:
        server.wait_health(args.start_timeout)
        yield Target(server.url, [server.pid]), pin(server.pid, args.server_cpus, args.client_cpus)
    finally:
        server.stop()


def add_target_arguments(parser: argparse.ArgumentParser, clients: str = "this script") -> None:
    """The options bench_server.py and bench_load.py share: the app, the timeouts, the CPUs."""
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds an answer may take before it is an error")
    parser.add_argument("--start-timeout", type=float, default=180.0, help="seconds for the server to start")
    parser.add_argument("--url", default=None, help="a running app (a process or a proxy) instead of a fresh server")
    parser.add_argument("--pids", type=int, nargs="*", default=[], help="with --url: the app processes, for memory")
    parser.add_argument("--server-cpus", type=int, nargs="*", default=[], help="pin the server to these CPUs")
    parser.add_argument("--client-cpus", type=int, nargs="*", default=[], help=f"pin {clients} to these CPUs")


def parse(parser: argparse.ArgumentParser):
    args = parser.parse_args()
    if args.url and not args.url.endswith("/"):
        args.url += "/"
    return args
