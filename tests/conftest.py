"""Fixtures shared by the test modules; pytest finds them here, no import needed.

Plain helpers (page openers, chart readers) are in ``tests/helpers.py``; the browser
tests' fixtures are in ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import pytest


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
