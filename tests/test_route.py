"""One route: every script run draws the app's navigation and sidebar around the page, whoever
started it, by construction (``attention_ui.registry``).

With a ``pages/`` folder beside the entry point, Streamlit 1.67 runs a page file by itself on the
first request of a fresh server process, and AppTest does so on every ``run()``. The first test
shows that Streamlit still does it, with a tiny app of its own; the day it fails, the pages' last
line (``if __name__ == "__main__": run_app()``) is no longer needed. The others show that our
pages run the one route anyway.
"""

from __future__ import annotations

import ast
import textwrap

import pytest
from streamlit.testing.v1 import AppTest

from attention_ui import route
from attention_ui.registry import PAGES
from attention_ui.settings import DEFAULT_SENTENCE
from attention_ui.sidebar import sidebar as draw_sidebar
from tests.helpers import APP, ROOT, follow_link, matrix_tables, open_link


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
    (tmp_path / "pages" / "inner.py").write_text("import streamlit as st\nst.write(__name__)\n")
    at = AppTest.from_file(str(tmp_path / "app.py"))
    at.switch_page("pages/inner.py")
    at.run()
    assert not at.exception
    assert at.markdown[0].value == "__main__"  # the file ran as the script, so its __main__ branch runs
    assert "entry_runs" not in at.session_state, (
        "Streamlit now runs the entry point for a page of the pages/ folder: the pages' "
        '`if __name__ == "__main__": run_app()` can go'
    )


@pytest.fixture
def sidebars(monkeypatch) -> list[str]:
    """The pages for which the shared sidebar was drawn, one entry per drawing."""
    drawn: list[str] = []
    monkeypatch.setattr(route, "sidebar", lambda page: drawn.append(page) or draw_sidebar(page))
    return drawn


@pytest.mark.parametrize("page", ["step_by_step", "matrices"])
def test_a_page_file_run_alone_draws_the_whole_route_once(page, sidebars):
    """What a fresh server's first request and every AppTest run do: the page file runs alone,
    and the app's route runs around it in the same run (no rerun that could drop a click), the
    sidebar and the page once each."""
    at = open_link(page, sentence="the cat sat")
    assert sidebars == [page]
    assert [title.value for title in at.title] == [at.title[0].value] and at.title[0].value
    assert at.text_area(key="sentence").value == "the cat sat"
    at.toggle(key="scaled").set_value(False).run()  # a click: the next run takes the same route
    assert not at.exception, at.exception
    assert sidebars == [page, page] and len(at.title) == 1


def test_a_link_from_the_sidebar_keeps_the_settings(sidebars):
    at = open_link("matrices", sentence="the cat sat")
    at.toggle(key="scaled").set_value(False).run()
    at = follow_link(at, "step_by_step")
    assert sidebars[-1] == "step_by_step"
    assert at.toggle(key="scaled").value is False  # the sidebar's setting reached the other page
    assert matrix_tables(follow_link(at, "matrices"))  # and back


def test_the_entry_point_is_the_one_route():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["toy"] = "true"
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value  # Home, with the sidebar
    assert at.text_area(key="sentence").value == DEFAULT_SENTENCE


def _top_level(page) -> tuple[set[str], list[ast.stmt]]:
    tree = ast.parse((ROOT / page.file).read_text(encoding="utf-8"))
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    return defined, tree.body


@pytest.mark.parametrize("page", PAGES, ids=[entry.id for entry in PAGES])
def test_every_page_file_is_what_the_registry_says(page):
    """A page draws nothing when imported (only ``render`` does) and ends by running the route
    when Streamlit runs its file alone."""
    defined, body = _top_level(page)
    assert "render" in defined, f"{page.file} has no render()"
    last = body[-1]
    assert ast.unparse(last.test) == "__name__ == '__main__'" and ast.unparse(last.body) == "run_app()", page.file
    for node in body[:-1]:  # the rest of the top level: imports, constants, definitions
        assert isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef | ast.Assign | ast.Expr)
        if isinstance(node, ast.Expr):
            assert node is body[0] and isinstance(node.value, ast.Constant), f"{page.file}:{node.lineno} runs code"
        if isinstance(node, ast.Assign):
            calls = [n for n in ast.walk(node.value) if isinstance(n, ast.Call)]
            assert not any("st" in ast.unparse(c.func).split(".")[:1] for c in calls), f"{page.file}:{node.lineno}"
