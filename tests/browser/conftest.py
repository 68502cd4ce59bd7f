"""Fixtures for the browser tests: a real Streamlit server and Debian's Chromium.

The helpers (wait_for_app, plotly_data, no_exception, fresh_server) live in harness.py,
which scripts/screenshots.py shares; test files import them from ``tests.browser.harness``.

On a developer machine without Chromium or Playwright these tests skip. In CI (the
``CI`` environment variable is set, as ``.ci/run`` does) they must run: a missing
browser fails loudly, and any skipped browser test is turned into a failure.
"""

from __future__ import annotations

import os

import pytest

from tests.browser.harness import CHROMIUM, VIEWPORT, launch_browser, streamlit_server, wait_for_app

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


@pytest.fixture(scope="module")
def server():
    """One server per test module; yields its base URL (``http://127.0.0.1:<port>/``)."""
    with streamlit_server() as srv:
        yield srv.url


# Our fixture names avoid pytest-playwright's ("browser", "page", ...): that plugin is
# installed too, and would otherwise parametrize every test over its --browser option and
# keep its session-wide Playwright running under the AppTest tests that follow.


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium, headless; closed after the module (before AppTest tests run)."""
    missing = _missing_browser()
    if missing:
        _skip_or_fail(missing)
    with launch_browser() as b:
        yield b


@pytest.fixture(scope="module")
def views(chromium, request):
    """``views(name)``: a page in a browser context made with the test module's
    ``VIEWS[name]`` (new_context's arguments: viewport, touch …), opened on first use and kept
    for the module."""
    opened = {}

    def view(name: str):
        if name not in opened:
            context = chromium.new_context(**request.module.VIEWS[name])
            context.set_default_timeout(90_000)
            opened[name] = context.new_page()
        return opened[name]

    yield view
    for page in opened.values():
        page.context.close()


@pytest.fixture()
def app_page(chromium):
    """A fresh 1400×900 page in its own browser context (own cookies, own session)."""
    context = chromium.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.js_errors = errors  # uncaught JavaScript errors, for tests that want to look
    yield pg
    context.close()


@pytest.fixture()
def open_app(app_page, server):
    """``open_app("matrices?x=1")`` loads a path of the shared server and waits for it."""

    def _open(path: str = ""):
        app_page.goto(server + path.lstrip("/"))
        wait_for_app(app_page)
        return app_page

    return _open
