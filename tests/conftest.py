"""Fixtures shared by the test modules; pytest finds them here, no import needed.

Plain helpers (page openers, chart readers) are in ``tests/helpers.py``; the browser
tests' fixtures are in ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import os

import pytest

if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    # Each xdist worker's share of the cores for PyTorch's and the BLAS's thread pools (set before
    # either loads; the servers and checks the tests start inherit it). With their default, a
    # thread per core, two workers on two cores ran four busy-waiting OpenMP threads beside the
    # browser lanes' servers: the same PyTorch comparisons took 90-125 CPU-s instead of 47-49
    # (tests/test_heads.py, test_model.py, test_code_page.py, test_encoder.py with -n 2).
    _threads = str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])))
    for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_name, _threads)

SECOND_BROWSER_LANE = {
    "test_app",
    "test_clicker",
    "test_heads_browser",
    "test_heads_frame",
    "test_internals_browser",
    "test_one_run_per_click",
    "test_reconnect",
    "test_screens",
    "test_sentence_browser",
    "test_similarity_code",
}
"""The browser test modules of the second xdist group; the others are the first. The two took
about the same time in a run of the whole suite (440 s and 425 s, with ``--durations``)."""


ONE_WORKER = {
    "test_accessibility": "accessibility",  # its module fixture draws every page's charts (~20 s)
    "test_after_attention": "after_attention",  # its module fixtures load sentence-transformers (~4 s)
}
"""Modules whose tests stay on one worker (an xdist group each), so that what their module
fixtures build is built once, not by both workers. A group must hold fewer tests than each
browser lane: xdist hands out the groups with the most tests first, and the lanes must start
at once."""


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the group off the marker
def pytest_collection_modifyitems(config, items):
    """The browser tests are two xdist groups: with ``-n 2 --dist loadgroup`` (scripts/test.sh)
    each worker takes one first (the largest units go out first) and runs its tests one after
    another with one server and one Chromium (tests/browser/conftest.py), then both share the
    AppTest and unit tests. Waits on the page (a script run, a drawing) leave a core idle that the
    other lane fills. The modules of ``ONE_WORKER`` are groups too."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("browser-2" if module in SECOND_BROWSER_LANE else "browser-1"))
        elif module in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(ONE_WORKER[module]))


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


@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL server for the session (tests/postgres.py), or a skip where
    PostgreSQL is not installed (a failure in CI)."""
    from tests.postgres import start_or_skip

    server = start_or_skip()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def class_db_url(request, tmp_path):
    """A fresh, empty class database: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'classroom.sqlite3'}"
    return request.getfixturevalue("postgres_server").new_database()
