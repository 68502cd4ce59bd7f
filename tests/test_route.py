"""One route: every script run draws app.py's navigation and sidebar, whoever started it.

The Streamlit behaviour this answers (``shell.legacy_page_run``): with a ``pages/`` folder beside
the entry point, Streamlit 1.67 runs a page file by itself on the first request of a fresh server
process, and AppTest does so on every ``run()``. The first test shows that Streamlit still does
it, with a tiny app of its own; when it fails, Streamlit changed, and the legacy branch of
``shell.page_start`` can go. The others show that our pages nevertheless run the one route.
"""

from __future__ import annotations

import textwrap

import pytest
from streamlit.testing.v1 import AppTest

from attention_ui import route
from attention_ui.settings import DEFAULT_SENTENCE
from tests.helpers import APP, matrix_tables, open_link


@pytest.mark.legacy_router
def test_streamlit_still_runs_a_page_file_alone_when_a_pages_folder_exists(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "app.py").write_text(
        textwrap.dedent(
            """
            import streamlit as st
            st.session_state["entry_runs"] = st.session_state.get("entry_runs", 0) + 1
            st.navigation([st.Page("pages/home.py", default=True), st.Page("pages/inner.py")]).run()
            """
        )
    )
    (tmp_path / "pages" / "home.py").write_text("import streamlit as st\nst.write('home')\n")
    (tmp_path / "pages" / "inner.py").write_text("import streamlit as st\nst.write('inner')\n")
    at = AppTest.from_file(str(tmp_path / "app.py"))
    at.switch_page("pages/inner.py")
    at.run()
    assert not at.exception
    assert at.markdown[0].value == "inner"
    assert "entry_runs" not in at.session_state, (
        "Streamlit now runs the entry point for a page of the pages/ folder: "
        "shell.legacy_page_run's workaround is no longer needed"
    )


def test_every_run_of_a_page_draws_the_sidebar_of_the_one_route(monkeypatch):
    """A page opened from a link and every later run: app.py's sidebar, once per run."""
    drawn = []
    sidebar = route.sidebar
    monkeypatch.setattr(route, "sidebar", lambda page: drawn.append(page) or sidebar(page))
    at = open_link("pages/matrices.py", sentence="the cat sat")
    assert drawn == ["matrices"]
    at.toggle(key="scaled").set_value(False).run()
    assert not at.exception, at.exception
    assert drawn == ["matrices", "matrices"]
    at.switch_page("pages/step_by_step.py").run()
    assert not at.exception, at.exception
    assert drawn[-1] == "step_by_step" and len(drawn) == 3
    assert at.toggle(key="scaled").value is False  # the sidebar's setting survived the page switch


def test_the_entry_point_is_the_one_route():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["toy"] = "true"
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value  # Home, with the sidebar
    assert at.text_area(key="sentence").value == DEFAULT_SENTENCE


@pytest.mark.legacy_router
def test_a_page_run_by_the_legacy_router_takes_the_one_route_in_place(monkeypatch):
    """A fresh server's first request for an inner page: the page file runs alone, and
    page_start runs app.py's route around it in the same run (no rerun that could drop a click)."""
    drawn = []
    sidebar = route.sidebar
    monkeypatch.setattr(route, "sidebar", lambda page: drawn.append(page) or sidebar(page))
    at = open_link("pages/matrices.py", sentence="the cat sat")
    assert drawn == ["matrices"]  # the sidebar, once, from the one route
    assert at.title[0].value.endswith("Attention matrices") and len(at.title) == 1  # the page, once
    assert matrix_tables(at)


def test_apptest_runs_the_warm_route():
    """The conftest fixture answers AppTest's reset of PagesManager.uses_pages_directory: if
    Streamlit renames or drops that flag, this fails and the fixture must change."""
    from streamlit.runtime.pages_manager import PagesManager

    assert hasattr(PagesManager, "uses_pages_directory")
    at = open_link("pages/matrices.py", sentence="the cat sat")
    assert PagesManager.uses_pages_directory is False
    assert matrix_tables(at)
