"""The one route of every script run (``run_app``: app.py is that call) and the start of a page
(``page_start``, the first call of its ``render``).

``run_app`` declares the pages (``registry.PAGES``), draws the shared sidebar, runs the page and
adds the link to this view after it. A page file that Streamlit runs by itself ends by calling
``run_app`` (see ``registry``), so that run takes this same route.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from attention_core import Lesson, build_lesson, clean_text
from attention_core.model_files import ModelUnavailable
from attention_ui.exports import view_link_expander
from attention_ui.fragments import LINK_OPEN_KEY, full_run
from attention_ui.i18n import LANGS, t
from attention_ui.internals import ask_for_a_run_on_reconnect, keep_streamlit_local
from attention_ui.lesson_notes import window_control, window_start
from attention_ui.lesson_path import fold_after_navigation, path_links, path_scripts
from attention_ui.model_access import get_embedder, model_lost, require_model, warm_up
from attention_ui.presentation import apply_presentation, is_presenting
from attention_ui.registry import MODEL, NOTHING, PAGES, page, st_page
from attention_ui.release import FAVICON
from attention_ui.sentence_box import show_on_phone, show_presented
from attention_ui.settings import init_lang
from attention_ui.sidebar import sidebar
from attention_ui.style import apply_style
from attention_ui.url_state import after_page, drop_unusable_values, url_notes

SHARE_KEY = LINK_OPEN_KEY
"""The share expander's key: its open state, kept by Streamlit, says whether to draw the link
(and whether a part of the page that reran alone must run the app again: ``fragments``)."""
LANG_SCRIPT = {lang: f"<script>document.documentElement.lang = {lang!r};</script>" for lang in LANGS}
"""Tells the browser the page's language (``<html lang>``), so a screen reader reads Chinese as
Chinese and the browser picks Chinese fonts; Streamlit writes ``lang="en"`` whatever the text."""
_SIDEBAR_THIS_RUN = "_sidebar_this_run"  # session key: the sidebar's values, for this run's page_start


def navigation_pages() -> list:
    """The st.Page list handed to st.navigation (``registry.PAGES``), titled in the session's
    language, which this fixes on a session's first run."""
    init_lang()
    return [st_page(entry) for entry in PAGES]


def run_app() -> None:
    """The one route of every script run: the page list, the shared sidebar, the page, the lesson
    path's Back and Next under it (``lesson_path``), and the link to this view after it."""
    keep_streamlit_local()  # Streamlit's lookups of this machine's address never leave it (internals.py)
    with full_run():  # the parts of the page drawn in this run know they do not run alone (fragments)
        page_run = st.navigation(navigation_pages(), position="hidden")
        ask_for_a_run_on_reconnect()  # the browser runs the app on reconnecting, before a click (internals.py)
        drop_unusable_values()  # before any widget reads the URL; after st.navigation, so its rerun keeps the page
        warm_up()
        page_id = page_run.url_path or PAGES[0].id
        try:  # the model checked intact, then damaged while this run read it: explained, never a traceback
            *values, share_box = sidebar(page_id)
            st.session_state[_SIDEBAR_THIS_RUN] = tuple(values)  # handed to the page's page_start
            st.html(
                page_scripts(init_lang(), fold_after_navigation(page_id, is_presenting())), unsafe_allow_javascript=True
            )
            body = st.container()  # the page, above the lesson path's links
            path_links(page_id)  # drawn before the page runs, so that a page that stops early keeps them
            with body:
                page_run.run()
        except ModelUnavailable as exc:
            model_lost(exc)  # runs again, which falls back as at start (model_access.model_lost)
        after_page()  # says which values the page's own widgets could not take
        share_link(share_box)


def page_scripts(lang: str, fold: int | None) -> str:
    """The one script element the route puts above every page: the page's language
    (``LANG_SCRIPT``), the clicker and, on a navigation in presentation mode, the sidebar's fold
    (``lesson_path.path_scripts``). Constant but for the fold's number: no learner text."""
    return LANG_SCRIPT[lang] + path_scripts(fold)


def share_link(box) -> None:
    """What ``run_app`` does after the page: the link to this exact view, in the sidebar's slot
    ``box``, once the page has put its own parameters (token, step, tab …) in the URL; drawn
    only while its expander is open (``exports.view_link_expander``)."""
    view_link_expander(t("shell.share"), SHARE_KEY, box=box)


def page_start(page_id: str) -> tuple[Lesson | None, str]:
    """Page config, the page's title and the lesson for the current sentence, for the page
    ``page_id`` of ``registry.PAGES`` (e.g. "step_by_step"): the first call of its ``render``.

    The title is ``t(Page.title_key)``; in presentation mode the sentence comes under it, large
    (``sentence_box.show_presented``; not on the pages that need ``NOTHING`` of it), then the notes
    on the sentence (cut to the first tokens, the model unavailable, a URL value out of range).
    Returns (lesson, source); lesson is None (and a friendly message is shown) when the sentence
    cannot be used. A page that ``needs`` the ``MODEL`` says so and stops here when the model is
    unavailable (``model_access.require_model``).
    """
    entry = page(page_id)
    init_lang()
    st.set_page_config(page_title=t("shell.page_title", page=t(entry.nav_key)), page_icon=FAVICON, layout="wide")
    sentence, source, settings = st.session_state.pop(_SIDEBAR_THIS_RUN)
    apply_presentation(is_presenting())
    apply_style()
    st.title(t(entry.title_key))
    if is_presenting() and entry.needs != NOTHING:
        show_presented(sentence)  # on a projector the sidebar is folded away: the room reads it here
    elif entry.needs != NOTHING:
        show_on_phone(sentence, t("shell.change_sentence"))  # a phone folds the sidebar away too
    url_notes()
    if entry.needs == MODEL:
        require_model(page_id)
    embedder, warning = get_embedder(source)
    if warning:
        st.warning(warning)
    if settings.projection == "trained" and not embedder.real:
        if not warning:  # the fallback warning has said why already
            st.info(t("shell.trained_needs_model"))
        settings = replace(settings, projection="random")
    settings = replace(settings, first_piece=window_start(sentence))
    try:
        lesson = build_lesson(sentence, embedder, settings)
    except ValueError:  # no tokens: nothing typed, or only spaces, invisible or control characters
        st.info(t("shell.no_sentence") if not clean_text(sentence) else t("shell.nothing_readable"))
        return None, source
    if lesson.truncated:
        window_control(lesson)
    return lesson, source
