"""A class of learners on the app, each checked against attention_core for its own sentence.

Shared by ``bench_server.py`` (protocol learners only), ``bench_load.py`` (Chromium pages, and
protocol peers with ``--browsers``) and ``bench_proxy.py`` (both, through nginx).

One learner's lesson (``walk``), the same in Chromium and over the protocol:

1. ``open``: /step_by_step?lang=en (``&toy=true`` in toy mode); the token picker must list the
   default sentence's tokens.
2. ``enter``: type its own sentence into the sidebar's "Sentence" and press Enter; the picker
   must list exactly this sentence's tokens (counted from 1, Markdown-escaped on the wire, shown
   as typed in the browser) with the lesson's default query token chosen.
3. ``token``: pick its own query token i (never the default, so the click changes something).
4. ``next`` × 6: Next to the last step; each answer shows the next step; on the softmax step the
   weights bar must be ``explain(trace, i).weights``, on the last step the b_i markers
   ``explain(trace, i).output`` (atol 1e-9).
5. ``switch`` × 2: the sidebar's link to Attention matrices (its weights table must be this
   sentence's ``trace.weights``, labelled "n: token" HTML-escaped) and back to Step by step (the
   picker must still list this sentence's tokens).

The expected numbers come from ``build_lesson(sentence, embedder, settings)`` computed here with
the app's own defaults (``attention_ui.settings.DEFAULTS``: today a trained head, layer 2 head 4;
toy mode falls back to random W as the app does). Every check reads this learner's own answer,
so a learner shown another learner's numbers fails. An exception element or a page error is an
error. Any check that fails is reported at once; ``preflight`` walks one learner before a run and
stops the benchmark with the problems when the app no longer looks as this module expects.

Every wait is bounded (``timeout``, default 60 s): a learner whose answer does not come is an
error ("no answer within …"), never a hang. After a dropped connection (``bench_proxy.py
--fault``) a learner's first action is checked separately: when it had no effect (issue 34's
"first click lost") it is counted in ``lost_first`` and the learner clicks again, as a person would.
An action the drop cut off is counted in ``cut_off``; the learner first looks at the page once
reconnected (a protocol learner reruns it as the browser does, ``Client.look``), and an action
whose effect is there counts as ``carried`` rather than being clicked a second time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import random
import re
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from attention_ui.busy import LOST_ATTR
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
from bench.pageclock import INIT_JS, timed_action
from bench.protocol import Answer, Client, Disconnected, NoAnswer
from harness import js, testid

MODES = ("model", "toy")
ACTIONS = ("open", "enter", "token", "next", "switch")
ACTION_NAMES = {
    "open": "page opened",
    "enter": "Enter → update",
    "token": "query token picked",
    "next": "Next",
    "switch": "page switch",
}
N_STEPS = 7
SOFTMAX_STEP, LAST_STEP = 6, 7  # as shown, from 1
ATOL = 1e-9

# Words that are one token for the toy tokenizer and for the model's (lower case, in its vocabulary),
# and a few pieces of markup that must come back escaped, never rendered.
WORDS = (
    "the a cat dog bird fish sat ran jumped slept on under near the mat tree house river because it "
    "was tired hungry happy big small red blue old young teacher student book letter wrote read quickly "
    "slowly every morning night city garden"
).split()
MARKUP = ("<b>", "&", "*", "<i>")


def sentence_for(k: int, n_words: int = 8) -> str:
    """A different sentence for every k (the same k gives the same one); every third one
    carries a piece of markup (``<b>``, ``&``, ``*``)."""
    rng = np.random.default_rng(1000 + k)
    words = list(rng.choice(WORDS, size=n_words))
    if k % 3 == 0:
        words.insert(int(rng.integers(1, n_words)), MARKUP[(k // 3) % len(MARKUP)])
    return " ".join(words)


# --------------------------------------------------------------------------- what a learner must see


@cache
def app_defaults() -> tuple[dict, str]:
    """The app's own defaults (the sidebar's settings and the default sentence)."""
    from attention_ui.settings import DEFAULT_SENTENCE, DEFAULTS

    return dict(DEFAULTS), DEFAULT_SENTENCE


@cache
def embedder_for(mode: str):
    if mode == "toy":
        from attention_core import ToyEmbedder

        return ToyEmbedder(dim=8)
    from attention_core.model import ModelEmbedder

    return ModelEmbedder().load()


def settings_for(mode: str):
    """The LessonSettings the app uses by default in ``mode`` (as the sidebar and ``page_start`` build them)."""
    from dataclasses import replace

    from attention_ui.settings import default_settings

    settings = default_settings()
    if mode == "toy" and settings.projection == "trained":  # the toy embedder has no trained heads
        settings = replace(settings, projection="random")
    return settings


@dataclass
class Expected:
    """A learner's lesson, computed here: what its pages must show."""

    sentence: str
    tokens: list[str]
    i: int  # the query token the learner picks (0-based)
    default_i: int  # the query token a new sentence opens on
    wire_labels: list[str]  # the picker's options as the server sends them ("1: \\[CLS\\]", Markdown-escaped)
    shown_labels: list[str]  # as a learner reads them ("1: [CLS]")
    plot_labels: list[str]  # chart tick labels ("7: &lt;", HTML-escaped)
    weights_row: np.ndarray  # (T,) α̂_i·
    output: np.ndarray  # (d_v,) b_i
    weights: np.ndarray  # (T, T)


def expected_for(sentence: str, mode: str, k: int = 0) -> Expected:
    """The lesson of ``sentence`` in ``mode``, with query token number ``k`` (any int) picked
    among the tokens that are not the default one."""
    from attention_core import build_lesson, explain
    from attention_core.lesson import default_query
    from attention_ui.safe import escape_markdown, numbered_labels, token_labels

    lesson = build_lesson(sentence, embedder_for(mode), settings_for(mode))
    tokens = list(lesson.tokens)
    default_i = default_query(tokens)
    others = [j for j in range(len(tokens)) if j != default_i] or [default_i]
    i = others[k % len(others)]
    e = explain(lesson.trace, i)
    return Expected(
        sentence=sentence,
        tokens=tokens,
        i=i,
        default_i=default_i,
        wire_labels=numbered_labels([escape_markdown(t) for t in tokens]),
        shown_labels=numbered_labels(tokens),
        plot_labels=token_labels(tokens),
        weights_row=np.asarray(e.weights),
        output=np.asarray(e.output),
        weights=np.asarray(lesson.trace.weights),
    )


def default_expected(mode: str) -> Expected:
    return expected_for(app_defaults()[1], mode)


def close_to(got, want) -> bool:
    try:
        a = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    return a.shape == np.shape(want) and bool(np.allclose(a, want, atol=ATOL))


def step_of(progress: str) -> int | None:
    """The step a progress text shows ("Step 3 of 7: …" → 3)."""
    m = re.search(r"\d+", progress or "")
    return int(m.group()) if m else None


def _numbers(label: str, got, want) -> list[str]:
    if close_to(got, want):
        return []
    shown = np.round(np.asarray(got, dtype=float), 6).tolist() if got is not None else None
    return [f"{label}: shown {shown} != expected {np.round(want, 6).tolist()} (another learner's numbers?)"]


# --------------------------------------------------------------------------- one learner


@dataclass
class Learner:
    name: str
    expected: Expected
    mode: str
    kind: str = "protocol"  # or "chromium"
    times: dict[str, list[float]] = field(default_factory=lambda: {a: [] for a in ACTIONS})
    runs: int = 0
    checked: int = 0  # number checks that passed (weights row, b_i, weights matrix)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    disconnects: int = 0
    reconnect_s: list[float] = field(default_factory=list)
    lost_first: int = 0  # first actions after a reconnect that had no effect
    # Actions in flight when the connection dropped (the learner's own process died):
    cut_off: int = 0  # all of them
    carried: int = 0  # ... whose effect arrived anyway (an Enter: the reconnect carries the box)
    asked_again: int = 0  # ... lost, and the page asked for them again (busy.LOST_ATTR)
    lost_silently: int = 0  # ... lost with nothing on the page to say so
    view_kept: bool | None = None  # after a reconnect: its first action showed its own view
    finished: bool = False
    process: str = ""  # the app process that served it (behind a proxy)


class Seat:
    """Where a learner sits: a protocol client or a Chromium page. ``do(kind, step)`` performs
    one action and returns (seconds, script runs, view); ``view`` is a dict read by ``check``."""

    def __init__(self, learner: Learner, base: str, timeout: float):
        self.learner, self.base, self.timeout = learner, base, timeout
        self.seen_disconnects = 0

    @property
    def query(self) -> str:
        return "lang=en" + ("&toy=true" if self.learner.mode == "toy" else "")

    async def open(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def do(self, kind: str, arg=None) -> tuple[float, int, dict]:
        raise NotImplementedError

    def disconnects(self) -> int:
        return 0

    async def refresh(self) -> None:
        """Catch up with what happened while the learner was reading (a reconnect)."""
        return None

    async def route(self) -> str:
        """The proxy's route cookie (``deploy/serve.sh``'s nginx), "" without a proxy."""
        return ""

    async def wait_connected(self) -> None:
        return None

    async def asked_again(self) -> bool:
        """The page asks the learner to do their last action again (a Chromium page's note)."""
        return False

    async def after_drop(self) -> dict | None:
        """The view a few seconds after an action the drop cut off (None: nothing more comes)."""
        return None


def check(view: dict, kind: str, exp: Expected, step: int | None, chromium: bool) -> tuple[list[str], int]:
    """Problems with one answer (``view``) of a learner expecting ``exp``; and how many number checks passed."""
    problems = list(view.get("exceptions", []))
    passed = 0
    labels = exp.shown_labels if chromium else exp.wire_labels
    if kind in ("open", "enter", "token") or (kind == "switch" and step is not None):
        if view.get("options") != labels:
            problems.append(f"{kind}: the token picker shows {view.get('options')} != {labels}")
        else:
            want: int | None = exp.default_i if kind in ("open", "enter") else exp.i
            if kind == "switch":
                want = None  # back on Step by step: the page keeps the choice or not, both are fine
            if want is not None and view.get("chosen") != labels[want]:
                problems.append(f"{kind}: chosen {view.get('chosen')!r}, expected {labels[want]!r}")
    if kind in ("open", "next", "token", "enter") and step is not None and view.get("step") != step:
        problems.append(
            f"{kind}: the page shows step {view.get('step')} (progress {view.get('progress')!r}), expected {step}"
        )
    if kind == "next" and step == SOFTMAX_STEP:
        bars = view.get("weights_row")
        found = _numbers(f"step {step}: weights α̂", bars, exp.weights_row) if bars is not None else ["no weights bar"]
        problems += found
        passed += not found
    if kind == "next" and step == LAST_STEP:
        outs = view.get("outputs") or []
        if not any(close_to(y, exp.output) for y in outs):
            problems += _numbers(f"step {step}: b_{exp.i + 1}", outs[0] if outs else None, exp.output)
        else:
            passed += 1
    if kind == "switch" and step is None:  # on Attention matrices
        z = view.get("weights")
        found = _numbers("matrices: weights", z, exp.weights) if z is not None else ["matrices: no weights matrix"]
        if view.get("weights_labels") not in (None, exp.plot_labels):
            found.append(f"matrices: labels {view.get('weights_labels')} != {exp.plot_labels} (escaped)")
        problems += found
        passed += not found
    return problems, passed


async def walk(seat: Seat, think: Callable[[], float] | None = None, start: asyncio.Event | None = None) -> None:
    """One learner's lesson (the module docstring), each action timed and checked."""
    learner, exp = seat.learner, seat.learner.expected
    chromium = learner.kind == "chromium"

    async def act(kind: str, arg, step: int | None) -> dict:
        if think is not None:
            await asyncio.sleep(think())
        await seat.refresh()
        first_after = seat.disconnects() > seat.seen_disconnects
        retried = False
        for _ in range(3):
            before = seat.disconnects()
            try:
                seconds, runs, view = await seat.do(kind, arg)
            except Disconnected as exc:  # a protocol learner: its socket closed under the action
                learner.cut_off += 1
                await seat.wait_connected()
                later = await seat.after_drop()  # it looks at the page before it clicks again, as a person would
                if later is not None:
                    problems, passed = check(later, kind, exp, step, chromium)
                    if not problems:  # the action arrived before the drop (or with the reconnect)
                        learner.carried += 1
                        learner.runs += 1
                        learner.checked += passed
                        seat.seen_disconnects = seat.disconnects()
                        return later
                learner.notes.append(f"{kind}: connection lost during the action ({exc}); clicked again")
                first_after = True
                continue
            problems, passed = check(view, kind, exp, step, chromium)
            if seat.disconnects() > before:  # a Chromium page: it reconnected during the action
                learner.cut_off += 1
                seat.seen_disconnects = seat.disconnects()
                if problems:  # the page may still replay it (an Enter loads itself with its sentence)
                    later = await seat.after_drop()
                    if later is not None and not check(later, kind, exp, step, chromium)[0]:
                        view, problems, passed = later, [], check(later, kind, exp, step, chromium)[1]
                if not problems:
                    learner.carried += 1
                else:
                    asked = await seat.asked_again()
                    learner.asked_again += asked
                    learner.lost_silently += not asked
                    what = "the page asked for it again" if asked else "nothing on the page said so"
                    learner.notes.append(f"{kind}: cut off by the drop, {what}; clicked again: {problems[0][:120]}")
                    first_after = False
                    continue
            if problems and first_after and not retried:
                retried = True
                learner.lost_first += 1
                learner.notes.append(f"first {kind} after the reconnect had no effect: {problems[0][:160]}")
                first_after = seat.disconnects() > seat.seen_disconnects
                seat.seen_disconnects = seat.disconnects()
                continue
            learner.times[kind].append(seconds)
            learner.runs += runs
            learner.errors += problems
            learner.checked += passed
            if first_after:
                learner.view_kept = not problems
                seat.seen_disconnects = seat.disconnects()
            return view
        learner.errors.append(f"{kind}: no effect after three tries")
        return {}

    if start is not None:
        await start.wait()
    await act("enter", exp.sentence, 1)
    await act("token", exp.i, 1)
    for step in range(2, N_STEPS + 1):
        await act("next", None, step)
    await act("switch", "matrices", None)
    await act("switch", "step_by_step", -1)
    learner.finished = True
    if learner.checked < 3:
        learner.errors.append(f"{learner.checked} of the 3 number checks passed")


# --------------------------------------------------------------------------- the protocol seat


class ProtocolSeat(Seat):
    """A learner as a ``protocol.Client``. ``reconnect``: after a dropped connection, reconnect as
    the browser does (behind a proxy); otherwise a drop is an error at once (one process)."""

    def __init__(self, learner: Learner, base: str, timeout: float, reconnect: bool = False):
        super().__init__(learner, base, timeout)
        self.client = Client(base, timeout=timeout, reconnect=reconnect)

    async def open(self) -> None:
        answer = await self.client.open("step_by_step", self.query)
        self.learner.times["open"].append(answer.seconds)
        self.learner.runs += answer.runs
        problems, _ = check(self._view(answer), "open", default_expected(self.learner.mode), 1, False)
        self.learner.errors += problems

    async def close(self) -> None:
        await self.client.close()
        self.learner.disconnects = self.client.disconnects
        self.learner.reconnect_s = list(self.client.reconnects)

    def disconnects(self) -> int:
        return self.client.disconnects

    async def route(self) -> str:
        return self.client.cookies.get("attention_lab_route", "")

    async def wait_connected(self) -> None:
        await self.client.wait_connected()

    async def after_drop(self) -> dict | None:
        """The page once reconnected (``Client.look``), None when no answer comes."""
        try:
            return self._view(await self.client.look())
        except (Disconnected, NoAnswer):
            return None

    async def do(self, kind: str, arg=None) -> tuple[float, int, dict]:
        c, exp = self.client, self.learner.expected
        if kind == "enter":
            answer = await c.type_text("sentence", arg)
        elif kind == "token":
            answer = await c.choose("token_picker", exp.wire_labels[arg])
        elif kind == "next":
            answer = await c.click("step_next")
        elif kind == "switch":
            answer = await c.switch_page(arg)
        else:
            raise ValueError(kind)
        return answer.seconds, answer.runs, self._view(answer)

    @staticmethod
    def _view(answer: Answer) -> dict:
        view = {
            "exceptions": answer.exceptions,
            "options": answer.options("token_picker") or None,
            "chosen": (answer.chosen("token_picker") or [None])[0],
            "step": step_of(answer.progress) if answer.progress else None,
            "progress": answer.progress,
        }
        row = answer.chart("fig_weights_row")
        if row is not None:
            view["weights_row"] = next((t["y"] for t in row.traces if t["type"] == "bar"), None)
        contributions = answer.chart("fig_contributions")
        if contributions is not None:
            view["outputs"] = [t["y"] for t in contributions.traces if t["type"] == "scatter"]
        weights = answer.chart("fig_weights")
        if weights is not None:  # the interactive chart
            view["weights"] = next((t["z"] for t in weights.traces if t["type"] == "heatmap"), None)
            view["weights_labels"] = weights.ticktext("yaxis")
        elif answer.tables:  # Attention matrices shows its weights as a table that prints every number
            view["weights"] = answer.tables[0].z
            view["weights_labels"] = [html.escape(label, quote=False) for label in answer.tables[0].rows]
        return view


# --------------------------------------------------------------------------- the Chromium seat

PICKER_JS = js("""() => [...document.querySelectorAll('testid(stMain) .st-key-token_picker button')]
  .map(b => [b.innerText.trim(), b.getAttribute('aria-checked') === 'true'])""")

# What the checks read from the page: the picker, the progress text, exception boxes and the
# charts by key (typed arrays decoded to plain lists, as harness/ does).
VIEW_JS = js("""() => {
  const clean = v => (v && ArrayBuffer.isView(v)) ? Array.from(v) : Array.isArray(v) ? v.map(clean)
              : (v && typeof v === 'object' && 'bdata' in v) ? clean(v._inputArray) : v;
  const chart = key => { const el = document.querySelector(`testid(stMain) .st-key-${key} .js-plotly-plot`);
    if (!el || !el.data) return null;
    const y = el.layout && el.layout.yaxis;
    return {traces: el.data.map(t => ({type: t.type, y: clean(t.y), z: clean(t.z)})),
            yticks: y && y.ticktext ? Array.from(y.ticktext) : null}; };
  const table = key => {  // a matrix drawn as an HTML table (tables.matrix_html), not its spotlight row
    const el = document.querySelector(
      `testid(stMain) .st-key-${key} .cell-matrix-wrap:not(.cm-spotlight) table`);
    if (!el) return null;
    const rows = [...el.querySelectorAll('tbody tr')];
    return {rows: rows.map(r => r.querySelector('th').textContent),
            z: rows.map(r => [...r.querySelectorAll('td')].map(td => parseFloat(td.dataset.value)))}; };
  const picker = [...document.querySelectorAll('testid(stMain) .st-key-token_picker button')]
    .map(b => [b.innerText.trim(), b.getAttribute('aria-checked') === 'true']);
  const p = document.querySelector('testid(stMain) testid(stProgress)');
  return {picker, progress: p ? p.innerText : '',
          exceptions: [...document.querySelectorAll('testid(stException)')].map(e => e.innerText.slice(0, 300)),
          weights_row: chart('fig_weights_row'), contributions: chart('fig_contributions'),
          weights: chart('fig_weights'), weights_table: table('matrix_fig_weights'),
          sockets: window.__bench ? window.__bench.sockets : 0};
}""")


class ChromiumSeat(Seat):
    """A learner in its own Chromium context (own cookies, own websocket, own session)."""

    def __init__(self, learner: Learner, base: str, timeout: float, browser, poll: int | str = 50):
        super().__init__(learner, base, timeout)
        learner.kind = "chromium"
        self.browser, self.poll = browser, poll
        self.context: Any = None  # a Playwright BrowserContext once open() ran
        self.page: Any = None  # its Page
        self.js_errors: list[str] = []
        self.sockets = 1  # websockets this page load opened (INIT_JS counts them per load)
        self.banked = 0  # websockets of earlier loads (the page reloaded: watchdog, an Enter replayed)
        self.loads = 0
        self.gave_up: list[str] = []  # Streamlit's websocket code calling an error fatal (console)

    async def open(self) -> None:
        self.context = await self.browser.new_context(viewport=VIEWPORT)
        self.context.set_default_timeout(self.timeout * 1000)
        await self.context.add_init_script(INIT_JS)
        self.page = await self.context.new_page()
        self.page.on("pageerror", lambda exc: self.js_errors.append(str(exc)))
        self.page.on("console", self._console)
        self.page.on("domcontentloaded", self._loaded)  # a document load, not a page switch (pushState)
        t0 = time.perf_counter()
        await self.page.goto(self.base + "step_by_step?" + self.query, timeout=self.timeout * 1000)
        await wait_idle_async(
            self.page,
            self.timeout,
            f"() => document.querySelector('{testid('stProgress')}') !== null",
            polling=self.poll,
        )
        self.learner.times["open"].append(time.perf_counter() - t0)
        self.learner.runs += 1
        view = await self._view()
        problems, _ = check(view, "open", default_expected(self.learner.mode), 1, True)
        self.learner.errors += problems
        box = self.page.locator(f"{testid('stSidebar')} .st-key-sentence textarea").first
        await box.fill(self.learner.expected.sentence)  # typed before the class's shared Enter

    async def close(self) -> None:
        await self.refresh()  # its websockets up to now (a last action may have raised first)
        self.learner.errors += [f"page error: {e[:300]}" for e in self.js_errors]
        self.learner.disconnects = self.disconnects()
        self.learner.notes += [f"websocket gave up: {e[:200]}" for e in self.gave_up]
        self.learner.notes += [f"page loaded again {self.loads - 1} times"] if self.loads > 1 else []
        if self.context is not None:
            await self.context.close()

    def disconnects(self) -> int:
        return max(0, self.banked + self.sockets - 1)

    def _loaded(self, _page) -> None:
        """A load of the page (the first, or a reload): bank the websockets of the one before."""
        self.loads += 1
        if self.loads > 1:
            self.banked += self.sockets
            self.sockets = 0

    def _console(self, message) -> None:
        if message.type == "error" and ("fatal" in message.text.lower() or "ForwardMsg MISS" in message.text):
            self.gave_up.append(message.text)

    async def wait_connected(self) -> None:
        return None  # the page reconnects by itself

    async def asked_again(self) -> bool:
        """The lost-click note (``busy.LOST_ATTR``) shows within 5 s of the answer."""
        try:
            await self.page.wait_for_function(
                f"() => document.documentElement.hasAttribute('{LOST_ATTR}')", timeout=5000, polling=100
            )
            return True
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: no note
            return False

    async def after_drop(self) -> dict | None:
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
        return {c["name"]: c["value"] for c in await self.context.cookies()}.get("attention_lab_route", "")

    async def do(self, kind: str, arg=None) -> tuple[float, int, dict]:
        page = self.page
        main = page.locator(testid("stMain"))
        if kind == "enter":
            box = page.locator(f"{testid('stSidebar')} .st-key-sentence textarea").first
            if await box.input_value() != arg:
                await box.fill(arg)
            action = box.press("Enter")
        elif kind == "token":
            action = main.locator(".st-key-token_picker button").nth(arg).click()
        elif kind == "next":
            action = main.locator(".st-key-step_next button").click()
        elif kind == "switch":
            link = page.locator(f'{testid("stSidebar")} {testid("stPageLink")} a[href^="{arg}?"]').first
            action = link.click()
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
        view = await self._view()
        return seconds, result["runs"], view

    async def _view(self) -> dict:
        raw = await self.page.evaluate(VIEW_JS)
        self.sockets = max(self.sockets, raw.get("sockets") or 0)
        chosen = [label for label, on in raw["picker"] if on]
        view = {
            "exceptions": raw["exceptions"],
            "options": [label for label, _ in raw["picker"]] or None,
            "chosen": chosen[0] if chosen else None,
            "step": step_of(raw["progress"]) if raw["progress"] else None,
            "progress": raw["progress"],
        }
        if raw["weights_row"]:
            view["weights_row"] = next((t["y"] for t in raw["weights_row"]["traces"] if t["type"] == "bar"), None)
        if raw["contributions"]:
            view["outputs"] = [t["y"] for t in raw["contributions"]["traces"] if t["type"] == "scatter"]
        if raw["weights"]:
            view["weights"] = next((t["z"] for t in raw["weights"]["traces"] if t["type"] == "heatmap"), None)
            view["weights_labels"] = raw["weights"]["yticks"]
        elif raw["weights_table"]:
            view["weights"] = raw["weights_table"]["z"]
            view["weights_labels"] = [html.escape(label, quote=False) for label in raw["weights_table"]["rows"]]
        return view


# --------------------------------------------------------------------------- a class


async def run_class(
    seats: list[Seat],
    *,
    think: Callable[[], float] | None = None,
    spread: float = 0.0,
    barrier: bool = False,
    during: Callable[[], Coroutine[Any, Any, None]] | None = None,
    before_close: Callable[[], object] | None = None,
) -> float:
    """Open every seat (all at once), then walk them all: ``barrier`` — everyone presses Enter
    in the same instant; ``spread`` — each starts within that many seconds; ``think`` — a
    reading time before every action. ``during``: a coroutine function started with the walks
    (e.g. a fault); ``before_close``: called once the walks are over, every learner still
    connected (e.g. to read memory). Returns the wall time of the walks. Every seat is closed
    afterwards."""
    opened = await asyncio.gather(*[s.open() for s in seats], return_exceptions=True)
    for seat, result in zip(seats, opened):
        if isinstance(result, BaseException):
            seat.learner.errors.append(f"open: {type(result).__name__}: {result}"[:400])
    live = [s for s, r in zip(seats, opened) if not isinstance(r, BaseException)]
    start = asyncio.Event() if barrier else None

    async def one(seat: Seat) -> None:
        if spread:
            await asyncio.sleep(random.uniform(0, spread))
        try:
            await walk(seat, think, start)
        except (NoAnswer, Disconnected) as exc:
            seat.learner.errors.append(f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a learner's failure is a figure, not a crash
            seat.learner.errors.append(f"{type(exc).__name__}: {exc}"[:400])

    t0 = time.perf_counter()
    tasks = [asyncio.create_task(one(s)) for s in live]
    side = asyncio.create_task(during()) if during is not None else None
    if start is not None:
        await asyncio.sleep(0.2)
        start.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - t0
    if side is not None:
        await side
    if before_close is not None:
        before_close()
    await asyncio.gather(*[s.close() for s in seats], return_exceptions=True)
    return wall


async def preflight(base: str, mode: str, timeout: float) -> None:
    """One protocol learner walks the lesson before the benchmark; any problem stops it at once,
    with what the app showed: the benchmark fails in seconds, never after a class's worth of waits."""
    learner = Learner("preflight", expected_for(sentence_for(999), mode, 3), mode)
    seat = ProtocolSeat(learner, base, timeout)
    t0 = time.perf_counter()
    try:
        await seat.open()
        await walk(seat)
    except (NoAnswer, Disconnected, KeyError, ValueError, OSError) as exc:
        learner.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        await seat.close()
    if learner.errors:
        lines = "\n  ".join(e[:400] for e in learner.errors[:12])
        raise SystemExit(
            f"preflight ({mode}) failed after {time.perf_counter() - t0:.1f} s: the app does not answer as this "
            f"benchmark expects (bench/classroom.py):\n  {lines}"
        )


# --------------------------------------------------------------------------- figures


def times_of(learners: list[Learner], kind: str) -> list[float]:
    return [s for learner in learners for s in learner.times[kind]]


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
    out = [f"{learner.name}: {e}" for learner in learners for e in learner.errors]
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
