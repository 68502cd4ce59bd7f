"""Fixtures for the browser tests: a real Streamlit server and Debian's Chromium.

The helpers (wait_for_app, plotly_data, no_exception, fresh_server) live in the harness package
(``harness/``), which the benches and scripts/screenshots.py share; test files import them from
``harness``.

On a developer machine without Chromium or Playwright these tests skip. In CI (the
``CI`` environment variable is set, as ``.ci/run`` does) they must run: a missing
browser fails loudly, and any skipped browser test is turned into a failure.
"""

from __future__ import annotations

import contextlib
import os

import pytest

from harness import CHROMIUM, COUNT_RUNS_JS, VIEWPORT, launch_browser, streamlit_server, wait_for_app

IN_CI = bool(os.environ.get("CI"))


def _missing_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the playwright package is not installed ({exc}); run `bash scripts/test.sh`"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM}; run `bash scripts/test.sh` (it installs Debian's chromium)"
    return None


def _skip_or_fail(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"browser tests must run in CI, but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI a skipped browser test is a failed one (whatever skipped it)."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and item.get_closest_marker("browser") and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"browser test skipped in CI (CI={os.environ['CI']!r}): {report.longrepr}"


class _Shared:
    """One Streamlit server and one Chromium for a run of browser tests in a row.

    Starting a server (and its first load of the model) and a browser costs seconds each; the
    tests that use ``server`` or ``chromium`` need neither fresh (those that need a fresh
    server's first request start their own: ``harness.fresh_server``). Both are closed after the
    last browser test of a row (``pytest_runtest_teardown`` below), so the AppTest tests that
    follow run with no Playwright and no server beside them, and opened again if another
    browser test comes later (xdist may hand a worker such tests in any order).
    """

    def __init__(self) -> None:
        self.stack: contextlib.ExitStack | None = None
        self.srv = None
        self.browser = None
        self.free: dict[str, list] = {}  # pages given back, by their context's options (``take``)
        self.deploy = None  # deploy/serve.sh for the tests that drive it (``deployment``)

    def _stack(self) -> contextlib.ExitStack:
        if self.stack is None:
            self.stack = contextlib.ExitStack()
        return self.stack

    def server_url(self) -> str:
        if self.srv is not None and self.srv.process.poll() is not None:
            self.close()  # the server died: start another rather than fail every test after
        if self.srv is None:
            self.srv = self._stack().enter_context(streamlit_server())
        return self.srv.url

    def chromium(self):
        if self.browser is not None and not self.browser.is_connected():
            self.close()
        if self.browser is None:
            self.browser = self._stack().enter_context(launch_browser())
        return self.browser

    def deployment(self):
        """The serve.sh deployment of tests/browser/deployment.py, made on first use."""
        if self.deploy is None:
            from tests.browser.deployment import Deployment

            self.deploy = Deployment()
        return self.deploy

    def take(self, viewport: dict = VIEWPORT, timeout: float = 60_000, **options):
        """A page for one test, in a browser context of its own made with ``options``
        (``new_context``'s arguments) and the run counter ``wait_for_app`` reads
        (``COUNT_RUNS_JS``); a page an earlier test gave back (``give_back``) when one with the
        same options is free.

        Why: a new tab costs Chromium a renderer process and a cold start of Streamlit's scripts,
        about 4.3 core-seconds and 2.6 s a page load on this 2-core machine, against 1.9 core-s and
        1.2 s for a load in a tab that has shown the app before (measured: 6 loads of /matrices).
        """
        key = repr(sorted(options.items()))
        pool = self.free.setdefault(key, [])
        page = None
        while pool and page is None:
            candidate = pool.pop()
            if not candidate.is_closed():
                page = candidate
        if page is None:
            context = self.chromium().new_context(viewport=viewport, **options)
            context.add_init_script(COUNT_RUNS_JS)  # the run counter wait_for_app reads
            page = context.new_page()
        page.set_viewport_size(viewport)
        page.set_default_timeout(timeout)
        page.pool_key = key
        return page

    def give_back(self, page) -> None:
        """Take the page back for a later test: its session ended (about:blank), its context's
        cookies, storage and other tabs gone. A page that fails any of that is closed instead."""
        if page.is_closed() or self.browser is None or not self.browser.is_connected():
            return
        context = page.context
        try:
            for other in context.pages:
                if other is not page:
                    other.close()
            if page.url.startswith("http"):
                page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            page.goto("about:blank")
            context.clear_cookies()
            context.clear_permissions()
        except Exception:  # a page left in a state we cannot undo: a fresh one next time
            context.close()
            return
        self.free.setdefault(page.pool_key, []).append(page)

    def close(self) -> None:
        self.free = {}
        deploy, self.deploy = self.deploy, None
        if deploy is not None:
            deploy.close()
        stack, self.stack, self.srv, self.browser = self.stack, None, None, None
        if stack is not None:
            stack.close()


_shared = _Shared()


def pytest_sessionfinish(session, exitstatus):
    """A run cut short (Ctrl-C, -x) leaves no shared server or Chromium behind."""
    _shared.close()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After the last browser test of a row (the module fixtures are torn down by now): close
    the shared server and Chromium."""
    if nextitem is None or nextitem.get_closest_marker("browser") is None:
        _shared.close()


@pytest.fixture(scope="module")
def server():
    """The shared server's base URL (``http://127.0.0.1:<port>/``): one server for the browser
    tests in a row, not one per module (``_Shared``)."""
    yield _shared.server_url()


@pytest.fixture()
def deployment():
    """deploy/serve.sh with two app processes behind nginx, shared by the tests that drive it
    (``tests/browser/deployment.py``): kept running from one test to the next, started again by
    ``running()`` when a test stopped it."""
    return _shared.deployment()


# Our fixture names avoid pytest-playwright's ("browser", "page", ...): that plugin is
# installed too, and would otherwise parametrize every test over its --browser option and
# keep its session-wide Playwright running under the AppTest tests that follow.


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium, headless, shared by the browser tests in a row (``_Shared``). The
    browser contexts (and pages) a module leaves open are closed after it, as closing a browser
    of its own did, except the pages given back for later tests (``tab``)."""
    missing = _missing_browser()
    if missing:
        _skip_or_fail(missing)
    browser = _shared.chromium()
    before = set(browser.contexts)
    yield browser
    if browser.is_connected():
        pooled = {page.context for pages in _shared.free.values() for page in pages}
        for context in browser.contexts:
            if context not in before and context not in pooled:
                context.close()


@pytest.fixture(scope="module")
def views(chromium, request):
    """``views(name)``: a page in a browser context made with the test module's
    ``VIEWS[name]`` (new_context's arguments: viewport, touch …), opened on first use and kept
    for the module."""
    opened = {}

    def view(name: str):
        if name not in opened:
            opened[name] = _shared.take(timeout=90_000, **request.module.VIEWS[name])
        return opened[name]

    yield view
    for page in opened.values():
        _shared.give_back(page)


@pytest.fixture()
def tab(chromium):
    """``tab(**options)``: a page in a browser context of its own (own cookies, storage and
    Streamlit session), made with ``new_context``'s ``options`` (viewport 1400×900 unless given);
    given back for later tests when this one ends (``_Shared.take``)."""
    taken = []

    def _tab(**options):
        taken.append(_shared.take(**options))
        return taken[-1]

    yield _tab
    for page in taken:
        _shared.give_back(page)


@pytest.fixture()
def app_page(tab):
    """A 1400×900 page in its own browser context (own cookies, own session)."""
    pg = tab()
    errors: list[str] = []

    def record(exc):
        errors.append(str(exc))

    pg.on("pageerror", record)
    pg.js_errors = errors  # uncaught JavaScript errors, for tests that want to look
    yield pg
    pg.remove_listener("pageerror", record)


@pytest.fixture()
def open_app(app_page, server):
    """``open_app("matrices?x=1")`` loads a path of the shared server and waits for it."""

    def _open(path: str = ""):
        app_page.goto(server + path.lstrip("/"))
        wait_for_app(app_page)
        return app_page

    return _open
