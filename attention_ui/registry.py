"""The app's pages, registered once: ``PAGES``, in menu order.

Navigation (``route.run_app``), the sidebar's links, Home's cards, the links of the "needs the
model" warning, presentation mode, the screenshots, the page-state capture and the tests all read
this one list. A page ``id`` lives in ``pages/<id>.py``, its URL is ``/<id>``, its menu label is
``t("shell.nav_<id>")`` and its title ``t("<catalog>.title")``.

A page file defines ``render()``, which the registry hands to ``st.Page`` (``st_page``), and ends
with ``if __name__ == "__main__": run_app()``. Streamlit runs a page file by itself, as
``__main__``, through its legacy ``pages/`` router on a fresh server's first request (and AppTest
on every run); the file then runs the app's whole route around its own page. Run through the
registry, the page is imported as the module ``pages.<id>``, so the same line does nothing. No
run can draw a page without its sidebar, and nothing has to notice which router ran.

>>> [page.id for page in PAGES][:3], page("tailor_shop").title_key, page("heads").needs
(['home', 'intuition', 'tailor_shop'], 'tailor.title', 'model')
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Literal

import streamlit as st

from attention_ui.i18n import t

MODEL = "model"
"""The page teaches with the real model only: without it the page says why and stops."""
LESSON = "lesson"
"""The page teaches on the learner's sentence, with the real model or the toy embedder."""
NOTHING = "nothing"
"""The page teaches on its own examples, not on the learner's sentence."""


@dataclass(frozen=True)
class Page:
    """One page of the app."""

    id: str
    icon: str
    needs: str
    """``MODEL``, ``LESSON`` or ``NOTHING``: what the page cannot teach without."""
    catalog: str = ""
    """The catalog of the page's words, when not its id (its title is ``<catalog>.title``)."""
    instead_of_model: bool = False
    """Offered, with the toy embedder, when the model that a ``MODEL`` page needs is unavailable."""
    head_pickers: bool = False
    """The page draws the layer and head pickers itself, beside its grid of heads (not the sidebar)."""
    lesson: bool = True
    """The page is a step of the lesson path (``lesson_path``): Back and Next at its foot lead to
    the lesson page before and after it. The Class page is not one: a class answers together
    there, beside the lesson, from the Exercises page's links."""

    @property
    def file(self) -> str:
        return f"pages/{self.id}.py"

    @property
    def nav_key(self) -> str:
        """The catalog key of its menu label."""
        return f"shell.nav_{self.id}"

    @property
    def title_key(self) -> str:
        """The catalog key of its title."""
        return f"{self.catalog or self.id}.title"


PAGES = (
    Page("home", ":material/home:", NOTHING),
    Page("intuition", ":material/visibility:", NOTHING),
    Page("tailor_shop", ":material/checkroom:", NOTHING, catalog="tailor"),
    Page("step_by_step", ":material/stairs:", LESSON, instead_of_model=True),
    Page("matrices", ":material/grid_on:", LESSON, instead_of_model=True),
    Page("after_attention", ":material/layers:", MODEL),
    Page("why_scaling", ":material/straighten:", LESSON, instead_of_model=True),
    Page("similarity", ":material/compare_arrows:", LESSON, instead_of_model=True),
    Page("cross_attention", ":material/swap_horiz:", LESSON, instead_of_model=True),
    Page("multi_head", ":material/hub:", LESSON, instead_of_model=True),
    Page("learn", ":material/school:", NOTHING),
    Page("real_model", ":material/smart_toy:", MODEL, head_pickers=True),
    Page("heads", ":material/biotech:", MODEL, head_pickers=True),
    Page("exercises", ":material/quiz:", LESSON, instead_of_model=True),
    Page("class", ":material/groups:", NOTHING, lesson=False),
    Page("code", ":material/code:", LESSON),
)
"""Every page of the app, in menu order; the first is the default (``/``)."""

_BY_ID = {entry.id: entry for entry in PAGES}


def page(page_id: str) -> Page:
    """The registered page ``page_id`` (a KeyError names an unknown one)."""
    return _BY_ID[page_id]


def _renderer(page_id: str):
    """What ``st.Page`` runs for a function page: ``pages.<id>.render()``, imported on its first
    visit (a page's module and what it imports load when a learner opens it, not before)."""

    def render() -> None:
        import_module(f"pages.{page_id}").render()

    render.__name__ = page_id
    return render


def st_page(entry: Page) -> st.Page:
    """``entry`` as ``st.Page``, titled in this session's language. The same page, built again,
    is what ``st.page_link`` takes (``page_link``). No icon: the menu is hidden (the sidebar's
    page links draw the icons), and a page's icon would become the tab's icon, which Streamlit
    fetches from Google's font server for a ``:material/…:`` one."""
    return st.Page(_renderer(entry.id), title=t(entry.nav_key), url_path=entry.id, default=entry is PAGES[0])


def page_link(
    page_id: str,
    query_params: dict[str, str] | None = None,
    *,
    label: str = "",
    icon: str = "",
    icon_position: Literal["left", "right"] = "left",
) -> None:
    """A link to page ``page_id`` carrying ``query_params``, with ``label`` and ``icon`` (on the
    ``icon_position`` side), by default the page's own menu label and icon. (``st.page_link``
    finds a page given by its file only when the file is what ``st.navigation`` runs: a function
    page must be given as itself.)"""
    entry = page(page_id)
    st.page_link(
        st_page(entry),
        label=label or t(entry.nav_key),
        icon=icon or entry.icon,
        icon_position=icon_position,
        query_params=query_params,
    )


def switch_to(page_id: str, query_params: dict[str, str] | None = None) -> None:
    """Open page ``page_id`` with ``query_params`` now (``st.switch_page``), given as the page
    itself, like ``page_link``: a function page has no file Streamlit could look it up by."""
    st.switch_page(st_page(page(page_id)), query_params=query_params)
