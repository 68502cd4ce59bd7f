"""Fixtures shared by the test modules; pytest finds them here, no import needed.

Plain helpers (page openers, chart readers) are in ``tests/helpers.py``; the browser
tests' fixtures are in ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the group off the marker
def pytest_collection_modifyitems(config, items):
    """The browser tests are one xdist group: with ``-n 2 --dist loadgroup`` (scripts/test.sh)
    they run one after another on one worker, which keeps one server and one Chromium for them
    (tests/browser/conftest.py), and their timings free of a second browser on a 2-core machine."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture
def captured_files(monkeypatch):
    """Every file handed to the (test) media storage: (bytes, mimetype, filename), plus its id."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    seen = []
    original = MemoryMediaFileStorage.load_and_get_id

    def spy(self, data, mimetype, kind, filename=None):
        file_id = original(self, data, mimetype, kind, filename)
        seen.append({"data": data, "mimetype": mimetype, "filename": filename, "id": file_id})
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    return seen


@pytest.fixture
def full_error_details():
    """Show the real error in AppTest's exception element (the app's config redacts it)."""
    from streamlit import config as stconfig

    before = stconfig.get_option("client.showErrorDetails")
    stconfig.set_option("client.showErrorDetails", "full")
    yield
    stconfig.set_option("client.showErrorDetails", before)


@pytest.fixture(autouse=True)
def warm_server_route(request, monkeypatch):
    """AppTest runs what a warm server runs: app.py's route on every run.

    AppTest forgets on every ``run()`` that app.py has called st.navigation (it resets
    Streamlit's class-wide ``PagesManager.uses_pages_directory``), so with our ``pages/`` folder
    each of its runs would start in Streamlit's legacy router, which a real server uses for its
    very first request only (``shell.legacy_page_run`` handles that one; the browser tests open a
    fresh server's first request). Tests marked ``legacy_router`` keep AppTest's own behaviour;
    ``tests/test_route.py`` checks both sides of this.
    """
    if request.node.get_closest_marker("legacy_router"):
        return
    from streamlit.runtime.pages_manager import PagesManager

    made = PagesManager.__init__

    def after_navigation(self, *args, **kwargs):
        made(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False  # what st.navigation in app.py sets on a server

    monkeypatch.setattr(PagesManager, "__init__", after_navigation)
