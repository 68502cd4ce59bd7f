"""The first action after a reconnect to a new session counts.

When the server restarts (an update, a crash, the Cloud waking up) the open pages reconnect by
themselves to a new session on a fresh process. Their first click then arrives before the new
session knows any widget's callback, and on a fresh process it goes through Streamlit's legacy
router, which runs the page file by itself (and it runs the app's route: ``attention_ui.registry``). Every
kind of control must still act on that first click:
Next, Back, a view button, the W choice, a token, a layer.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from urllib.parse import parse_qs, urlparse

import pytest

from attention_ui.busy import LOST_ATTR, SLOW_ENV, WAITING_ATTR
from attention_ui.i18n import translate
from attention_ui.internals import APP_ROOT, CONNECTION_STATUS, ERROR_ALERT, RUNNING_STATES, SCRIPT_STATE, testid
from attention_ui.watchdog import CHECK_S, STUCK_S
from harness import (
    COUNT_RUNS_JS,
    FRAGMENT_RUN,
    FULL_RUN,
    TOY,
    VIEWPORT,
    free_port,
    no_exception,
    runs_of,
    streamlit_server,
    wait_for_app,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


def option(page, where: str, label: str, within: str = ""):
    """An option of a segmented control (buttons of an stButtonGroup) by its exact label."""
    buttons = page.locator(f"{testid(where)} {within} {testid('stButtonGroup')} button")
    return buttons.filter(has_text=re.compile(f"^{re.escape(label)}$")).first


def main_button(page, label: str):
    return page.locator(testid("stMain")).get_by_role("button", name=label, exact=True)


STEPS = "step_by_step?sentence=the+dog+sat+on+it&token=3"
CASES = {  # a page, the one action, and the URL parameter that must show it
    "Next": (f"{STEPS}&step=2&{TOY}", lambda p: main_button(p, "Next ▶").click(), "step", "3"),
    "Back": (f"{STEPS}&step=3&{TOY}", lambda p: main_button(p, "◀ Back").click(), "step", "2"),
    "view": (
        f"matrices?sentence=the+dog+sat&{TOY}",
        lambda p: option(p, "stMain", "3 · Scaled ÷ √d_k").click(),
        "matrix",
        "scaled",
    ),
    "W": ("matrices?sentence=the+dog+sat", lambda p: option(p, "stSidebar", "Random").click(), "w", "random"),
    "token": (
        f"step_by_step?sentence=the+dog+sat&token=1&{TOY}",
        lambda p: option(p, "stMain", "3: sat").click(),
        "token",
        "3",
    ),
    "layer": (
        "matrices?sentence=the+dog+sat",
        lambda p: option(p, "stSidebar", "5", ".st-key-layer_picker").click(),
        "layer",
        "5",
    ),
}


def query(page) -> dict:
    return parse_qs(urlparse(page.url).query)


def page_in(chromium, contexts: list):
    """A page in a browser context of its own (own cookies, own session) with the run counter
    ``wait_for_app`` reads; the context is put in ``contexts`` to be closed with the module."""
    context = chromium.new_context(viewport=VIEWPORT)
    context.add_init_script(COUNT_RUNS_JS)
    contexts.append(context)
    page = context.new_page()
    page.set_default_timeout(60_000)
    return page


OLD_SENTENCE_VIEW = f"step_by_step?sentence=the+dog+sat+on+the+mat&token=5&step=3&{TOY}"
"""The view of the learner who types a new sentence after the restart (token 5 is the 2nd "the")."""


@pytest.fixture(scope="module")
def restarted(chromium):
    """One server restart for the first actions below: each case of ``CASES`` and the view of
    ``OLD_SENTENCE_VIEW`` open in a page of its own (all side by side) on a server that then
    stops; another starts on the same port, and the pages, reconnecting by themselves, are
    yielded (by case, ``"sentence"`` and ``"part"``, whose last run before the restart followed a
    part's own run: ``a_part_before_a_restart``) with the new server running. Each page's first action
    after the restart is its test's own: one restart (two server starts) serves both tests."""
    port = free_port()
    contexts: list = []
    views = {**{name: case[0] for name, case in CASES.items()}, "sentence": OLD_SENTENCE_VIEW}
    pages = {name: page_in(chromium, contexts) for name in [*views, "part"]}
    try:
        with streamlit_server(port=port) as before:
            a_part_before_a_restart(pages["part"], before.url)
            for name, path in views.items():
                pages[name].goto(before.url + path)
            for name, page in pages.items():
                wait_for_app(page)
                no_exception(page)
                if name in CASES:
                    _, _, param, want = CASES[name]
                    assert query(page).get(param) != [want], f"{name}: the link already shows what the click should do"
            assert option(pages["sentence"], "stMain", "5: the").get_attribute("aria-checked") == "true"
        for page in pages.values():  # the server is gone: every page knows it (and tries to reconnect)
            page.wait_for_selector(CONNECTION_STATUS, timeout=30_000)
        with streamlit_server(port=port):
            yield pages
    finally:
        for context in contexts:
            context.close()


def test_the_first_click_after_a_server_restart_counts(restarted):
    pages = restarted
    lost = {}
    for name, (_, act, _, _) in CASES.items():  # each page's first action once it is back ...
        page = pages[name]
        wait_for_app(page)
        act(page)
    for name, (_, _, param, want) in CASES.items():  # ... then what each action did
        page = pages[name]
        for _ in range(50):
            wait_for_app(page)
            if query(page).get(param) == [want]:
                break
            page.wait_for_timeout(200)
        no_exception(page)
        if query(page).get(param) != [want]:
            lost[name] = page.url
    assert not lost, f"first clicks lost after the restart: {lost}"


def next_of(page):
    return page.locator(f"{testid('stMain')} .st-key-step_next button")


def wait_for_step(page, want: str) -> None:
    """Until the URL says ``?step=want`` (or 10 s of an idle page have passed)."""
    for _ in range(50):
        wait_for_app(page)
        if query(page).get("step") == [want]:
            return
        page.wait_for_timeout(200)


def a_part_before_a_restart(page, url: str) -> None:
    """Step 2 → 3 by Next, which reruns only its part (a fragment run), then the page loaded
    again, so that its last run before the restart is a whole run of the app: the browser then
    asks for no run on reconnecting unless the app makes it (``internals.ask_for_a_run_on_reconnect``)."""
    page.goto(url + f"{STEPS}&step=2&{TOY}")
    wait_for_app(page)
    assert runs_of(page, next_of(page).click) == [FRAGMENT_RUN], "Next is no longer a part: this proves nothing"
    assert query(page).get("step") == ["3"], page.url
    assert runs_of(page, page.reload) == [FULL_RUN]


def test_a_click_inside_a_part_after_a_server_restart_counts(restarted):
    """After a restart the page's new session holds no fragment, and the new process has run
    no script: Streamlit 1.67 would drop Next, a rerun of a fragment it does not hold. The app
    makes the browser run it on reconnecting (before the click), so the click counts; then it
    reruns only its part again."""
    page = restarted["part"]
    page.wait_for_selector(CONNECTION_STATUS, state="detached", timeout=60_000)
    wait_for_app(page)
    next_of(page).click()
    wait_for_step(page, "4")
    no_exception(page)
    assert query(page).get("step") == ["4"], f"the first click after the restart was lost: {page.url}"
    assert runs_of(page, next_of(page).click) == [FRAGMENT_RUN]
    assert query(page).get("step") == ["5"], page.url


def test_a_click_inside_a_part_during_the_first_run_after_a_restart_counts(tab):
    """The same click, pressed while the reconnect's run of the app is under way (each run of
    the new server sleeps 3 s in the sidebar, before the page draws its parts): the session does
    not hold Next's fragment yet, and the rescue (``internals.rescue_lost_fragment_reruns``)
    runs the whole app for it instead of dropping it. (A click in the first moment of that run,
    while the page's script still imports its modules, before ``attention_ui`` is imported, is
    still dropped when the server was started by plain ``streamlit run``: nothing of the app
    runs before that. ``attention_ui.launch`` installs the rescue before the server starts.)"""
    port = free_port()
    page = tab()
    with streamlit_server(port=port) as before:
        a_part_before_a_restart(page, before.url)
        page.evaluate("() => { window.__autoReruns = 0; }")
    page.wait_for_selector(CONNECTION_STATUS, timeout=30_000)  # the page knows its server is gone
    with streamlit_server(port=port, env={SLOW_ENV: "3"}):
        # The reconnect's run has set the timer of run_app's first lines (the rescue is installed
        # by then), and sleeps in the sidebar, before the page draws Next's part:
        page.wait_for_function("() => window.__autoReruns > 0", timeout=60_000)
        assert page.get_attribute(APP_ROOT, SCRIPT_STATE) in RUNNING_STATES
        next_of(page).click()
        wait_for_step(page, "4")
        no_exception(page)
        assert query(page).get("step") == ["4"], f"the click during the first run was lost: {page.url}"


def test_a_new_sentence_typed_after_a_restart_drops_the_old_sentences_token(restarted):
    """The first Enter of a new session (the server restarted, or the session expired) carries the
    box's new sentence and the old link's ``?token=``: the page must not take that token, a place
    in the old sentence, for one in the new (the box's script drops it: ``sentence_box.ENTER_SCRIPT``).
    The step stays."""
    page = restarted["sentence"]
    wait_for_app(page)
    box = page.locator(testid("stSidebar")).get_by_label("Sentence", exact=True)
    box.fill("a cat slept on my warm bed")  # shorter, and token 5 would be a word of it ("my")
    box.press("Enter")
    for _ in range(50):
        wait_for_app(page)
        if query(page).get("sentence") == ["a cat slept on my warm bed"]:
            break
        page.wait_for_timeout(200)
    no_exception(page)
    assert query(page).get("sentence") == ["a cat slept on my warm bed"], page.url
    chosen = page.locator(f'{testid("stMain")} {testid("stButtonGroup")} button[aria-checked="true"]')
    assert chosen.first.inner_text().strip() == "1: a", "the first token of the new sentence, not the old 5th"
    assert query(page).get("token") is None and query(page).get("step") == ["3"], page.url
    assert page.locator(ERROR_ALERT).count() == 0


def lost_note(page) -> str:
    """What the lost-click note says now ("" when it is not shown): the style sheet's text."""
    return page.evaluate(
        """([attr, root]) => document.documentElement.hasAttribute(attr)
             ? getComputedStyle(document.querySelector(root), '::before').content : ''""",
        [LOST_ATTR, APP_ROOT],
    )


SLOW_S = 6
"""Seconds each run of the first server below sleeps on purpose: both actions' runs are under way
when it stops (one second after the page says it waits; the two act one right after the other)."""
CLICK_LANG = "zh"
"""The lost-click note is read in Chinese (both catalogs' words in the style sheet: tests/test_sentence_box.py)."""
NEW_SENTENCE = "a cat slept on my warm bed"


class CutOff:
    """Two learners' actions cut off by a server that stops while their runs are under way (each
    run sleeps ``SLOW_S``): Next pressed on ``pages["click"]``, a new sentence applied with Enter
    on ``pages["enter"]``. ``start`` and ``stop`` run the next server on the same port; ``url``
    is the running one's (started if a test stopped it)."""

    def __init__(self, chromium, port: int) -> None:
        self.port, self.contexts, self.running, self.server = port, [], None, None
        self.pages = {name: page_in(chromium, self.contexts) for name in ("click", "enter")}

    def start(self) -> None:
        self.running = contextlib.ExitStack()
        self.server = self.running.enter_context(streamlit_server(port=self.port))

    def url(self) -> str:
        if self.running is None:
            self.start()
        return self.server.url

    def stop(self) -> None:
        if self.running is not None:
            self.running.close()
            self.running = None


@pytest.fixture(scope="module")
def cut_off(chromium):
    """``CutOff``: both actions sent and cut off by one server stop, then a fresh server running
    (one slow server and one fresh start serve both tests below)."""
    cut = CutOff(chromium, free_port())
    click, enter = cut.pages["click"], cut.pages["enter"]
    try:
        with streamlit_server(port=cut.port, env={SLOW_ENV: str(SLOW_S)}) as before:
            click.goto(before.url + f"step_by_step?sentence=the+dog+sat+on+it&token=3&step=2&lang={CLICK_LANG}&{TOY}")
            enter.goto(before.url + f"step_by_step?sentence=the+dog+sat+on+the+mat&token=5&step=3&{TOY}")
            for page in (click, enter):
                wait_for_app(page)
                no_exception(page)
            box = enter.locator(testid("stSidebar")).get_by_label("Sentence", exact=True)
            box.fill(NEW_SENTENCE)
            box.press("Enter")
            click.locator(f"{testid('stMain')} .st-key-step_next button").click()
            for page in (click, enter):
                page.wait_for_function(f"() => document.documentElement.hasAttribute('{WAITING_ATTR}')")
            time.sleep(1)  # both runs are under way (each sleeps SLOW_S) when the server dies
        # The canary of CONNECTION_STATUS: Streamlit shows it while the page is not connected.
        for page in (click, enter):
            page.wait_for_selector(CONNECTION_STATUS, timeout=30_000)
        cut.start()
        yield cut
    finally:
        cut.stop()
        for context in cut.contexts:
            context.close()


def test_an_enter_cut_off_by_a_dropped_connection_is_replayed(cut_off):
    """A new sentence is applied with Enter, and the server dies while that run is under way: the
    fresh session would show the address bar's old sentence, and Enter again would send nothing
    (the box takes its text as applied), so the page loads itself with the new sentence.
    (Before the next test, which stops this fresh server.)"""
    cut_off.url()  # running (the stuck page's test stops it)
    page = cut_off.pages["enter"]
    for _ in range(150):
        if query(page).get("sentence") == [NEW_SENTENCE]:
            break
        page.wait_for_timeout(200)
    wait_for_app(page)
    assert query(page).get("sentence") == [NEW_SENTENCE], page.url
    assert query(page).get("token") is None and query(page).get("step") == ["3"], page.url
    chosen = page.locator(f'{testid("stMain")} {testid("stButtonGroup")} button[aria-checked="true"]')
    assert chosen.first.inner_text().strip() == "1: a", "the new sentence is the one shown"
    no_exception(page)


def test_a_click_cut_off_by_a_dropped_connection_is_asked_for_again(cut_off):
    """Next is pressed, and the server dies while its run is under way: the page reconnects to a
    fresh server at the old step, and a note in the learner's language asks for the click again,
    until the next click, which counts. A click whose run had ended before the server went away
    asks for nothing. (In Chinese here: ``CLICK_LANG``.)"""
    cut_off.url()  # running (the stuck page's test stops it)
    page = cut_off.pages["click"]
    page.wait_for_function(f"() => document.documentElement.hasAttribute('{LOST_ATTR}')", timeout=60_000)
    wait_for_app(page)
    assert query(page).get("step") == ["2"], "the click was lost: the page is back at the old step"
    want = translate(CLICK_LANG, "shell.click_lost")
    assert lost_note(page) == json.dumps(want, ensure_ascii=False), "the note says the catalog's words"
    page.locator(f"{testid('stMain')} .st-key-step_next button").click()
    for _ in range(50):
        wait_for_app(page)
        if query(page).get("step") == ["3"]:
            break
        page.wait_for_timeout(200)
    assert query(page).get("step") == ["3"], page.url
    assert lost_note(page) == "", "the next click takes the note away"
    no_exception(page)
    cut_off.stop()
    page.wait_for_selector(CONNECTION_STATUS, timeout=30_000)  # gone again, after a click that counted
    cut_off.start()
    page.wait_for_selector(CONNECTION_STATUS, state="detached", timeout=60_000)
    wait_for_app(page)
    page.wait_for_timeout(1500)  # longer than the script's three idle looks
    assert lost_note(page) == "", "nothing was in flight: nothing to ask for"
    assert query(page).get("step") == ["3"]


KEEP_SOCKETS_JS = """(() => {
  window.__ws = [];
  const NativeWS = window.WebSocket;
  window.WebSocket = class extends NativeWS {
    constructor(...args) { super(...args); window.__ws.push(this); }
  };
})();"""


def marker_gone(page, timeout_s: float) -> bool:
    """True once ``window.__marker`` is gone (the page was loaded again) within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if page.evaluate("() => window.__marker === undefined"):
                return True
        except Exception:  # noqa: BLE001 - the page is being reloaded under us
            pass
        time.sleep(0.5)
    return False


def test_a_page_stuck_disconnected_from_a_live_server_is_reloaded_with_its_view(chromium, cut_off):
    """Streamlit's websocket code gives up for good on an error it calls fatal (here: a text
    message where it expects binary), and the page never reconnects. The server answers, so the
    watchdog (``attention_ui.watchdog``) reloads the page: the same view comes back, connected.
    A page whose server is really gone is not reloaded. (On the fresh server of ``cut_off``,
    which this test stops: one server start less; the tests above start it again if needed.)"""
    context = chromium.new_context()
    context.add_init_script(COUNT_RUNS_JS)
    context.add_init_script(KEEP_SOCKETS_JS)
    page = context.new_page()
    view = f"step_by_step?sentence=the+dog+sat+on+it&token=3&step=3&{TOY}"
    try:
        page.goto(cut_off.url() + view)
        wait_for_app(page)
        page.evaluate("() => { window.__marker = 1; }")
        page.evaluate("() => window.__ws.at(-1).dispatchEvent(new MessageEvent('message', {data: 'text'}))")
        page.wait_for_selector(CONNECTION_STATUS, timeout=10_000)
        time.sleep(CHECK_S * 2)
        assert page.evaluate("() => window.__marker") == 1, "not reloaded at once: Streamlit may recover"
        assert marker_gone(page, STUCK_S + 30), "the page stuck disconnected was never reloaded"
        wait_for_app(page)
        page.wait_for_selector(CONNECTION_STATUS, state="detached", timeout=30_000)
        assert query(page).get("step") == ["3"] and query(page).get("token") == ["3"], page.url
        no_exception(page)
        page.evaluate("() => { window.__marker = 2; }")
        cut_off.stop()
        page.wait_for_selector(CONNECTION_STATUS, timeout=30_000)  # the server is gone for good
        assert not marker_gone(page, STUCK_S + 2 * CHECK_S + 3), "reloaded though the server does not answer"
    finally:
        context.close()
