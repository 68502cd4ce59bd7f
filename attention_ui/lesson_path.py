"""The lesson path: the lesson pages in the registry's order, each ending with a link to the page
before it and to the page after it ("Back: Step by step", "Next: Attention matrices") that keeps
the learner's sentence and settings (``settings.link_params``).

``route.run_app`` draws the two links (``path_links``) once for every page, under the page, so no
page draws them itself; a page that stops early (no sentence, no model) keeps them. The clicker
(``clicker``) follows them at a page's last step. In presentation mode the sidebar folds after
every navigation (``fold_after_navigation``), so that a teacher walks the lesson on a projector
with Next alone, the page at full width.

A page that is not a lesson step (``registry.Page.lesson`` False: the Class page) has no links,
and the lesson pages skip it.

>>> lesson_pages()[:3], neighbours("home"), neighbours("exercises"), neighbours("class")
(('home', 'intuition', 'tailor_shop'), (None, 'intuition'), ('heads', 'code'), (None, None))
>>> neighbours("code")
('exercises', None)
"""

from __future__ import annotations

from typing import Literal

import streamlit as st

from attention_ui.clicker import CLICKER_SCRIPT, PATH_BACK_KEY, PATH_KEY, PATH_NEXT_KEY
from attention_ui.i18n import t
from attention_ui.internals import fold_sidebar_script
from attention_ui.registry import PAGES, page, page_link
from attention_ui.settings import link_params

_SHOWN = "_lesson_path_shown"  # session key: (page, presenting) of the last run, and how many folds
BACK_ICON, NEXT_ICON = ":material/arrow_back:", ":material/arrow_forward:"


def lesson_pages() -> tuple[str, ...]:
    """The ids of the lesson pages, in the registry's (the menu's) order."""
    return tuple(entry.id for entry in PAGES if entry.lesson)


def neighbours(page_id: str) -> tuple[str | None, str | None]:
    """The lesson pages before and after ``page_id`` (None at either end, or both for a page
    that is not a lesson step)."""
    path = lesson_pages()
    if page_id not in path:
        return None, None
    at = path.index(page_id)
    return (path[at - 1] if at > 0 else None), (path[at + 1] if at + 1 < len(path) else None)


def path_links(page_id: str) -> None:
    """The row "Back: <page>" … "Next: <page>" under page ``page_id``, each link carrying the
    session's shared settings (``settings.link_params``; Streamlit carries the sentence and the
    other settings bound to the URL, presentation mode among them). Nothing for a page that is
    not a lesson step."""
    back, forward = neighbours(page_id)
    if back is None and forward is None:
        return
    params = link_params()
    side: Literal["distribute", "right", "left"] = "distribute" if back and forward else "right" if forward else "left"
    with st.container(key=PATH_KEY, horizontal=True, horizontal_alignment=side, vertical_alignment="center"):
        if back is not None:
            with st.container(key=PATH_BACK_KEY, width="content"):
                page_link(back, params, label=t("shell.path_back", page=t(page(back).nav_key)), icon=BACK_ICON)
        if forward is not None:
            with st.container(key=PATH_NEXT_KEY, width="content"):
                page_link(
                    forward,
                    params,
                    label=t("shell.path_next", page=t(page(forward).nav_key)),
                    icon=NEXT_ICON,
                    icon_position="right",
                )


def fold_after_navigation(page_id: str, presenting: bool) -> int | None:
    """In presentation mode, on a run that opened another page (or turned presentation mode on):
    the number of this fold, for ``internals.fold_sidebar_script``, which folds the sidebar; else
    None. A rerun of the same page leaves the sidebar as the teacher left it."""
    state = st.session_state
    last, folds = state.get(_SHOWN, (None, 0))
    now = (page_id, presenting)
    fold = presenting and now != last
    state[_SHOWN] = (now, folds + fold)
    return folds + 1 if fold else None


def path_scripts(fold: int | None) -> str:
    """The scripts every page gets from the route: the clicker's (``clicker``) and, when ``fold``
    is a number (``fold_after_navigation``), the one that folds the sidebar."""
    return CLICKER_SCRIPT + (fold_sidebar_script(fold) if fold is not None else "")
