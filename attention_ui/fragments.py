"""Parts of a page that rerun alone: a click that changes one part redraws only that part.

A Streamlit fragment (``st.fragment``) reruns by itself when a widget inside it changes: the
sidebar, the page's title, the sentence's notes and the rest of the page stay as they are, and
the script run costs only the part. ``page_part`` makes such a part; Step by step's Next, Back,
query token and step content is one (``pages/step_by_step.py``).

What a part changes must not leave the rest of the page stale. A part may change what only it
shows and the URL (``url_state``: ``?step=``, ``?token=``); the one other place that reads the
URL is the sidebar's "Link to this view" (``route.share_link``), drawn only while its expander
is open. So a part that changed the URL while that link is shown runs the whole app once more
(``st.rerun()``), which redraws the link. A part must never change a value that something
outside it reads (a setting of the sidebar): such a widget belongs outside every part.

``full_run`` marks the whole app's runs (``route.run_app``), so that a part knows whether it
runs alone (a fragment rerun) or inside the app's run.

Example::

    @page_part("step_stage")
    def walk(lesson):
        step = url_int("step", 7)  # Next and Back rerun only this
        ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st

from attention_ui.busy import slow_run
from attention_ui.url_state import url_params

_FULL_RUN = "_full_run_going"  # session key: True while route.run_app runs the whole app
LINK_OPEN_KEY = "share_open"
"""The session key of the sidebar's "Link to this view" expander (``route.SHARE_KEY``): True
while it is open, and its link names the URL's parameters."""


@contextmanager
def full_run() -> Iterator[None]:
    """Around the whole app's run: the parts drawn inside it know that they do not run alone."""
    st.session_state[_FULL_RUN] = True
    try:
        yield
    finally:
        st.session_state[_FULL_RUN] = False


def runs_alone() -> bool:
    """Whether this script run is a part's own rerun (not the whole app's)."""
    return not st.session_state.get(_FULL_RUN, False)


def page_part(key: str | None = None) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorator: ``draw`` becomes a part of the page that reruns alone (``st.fragment``, named
    ``key``, unique on the page, when given) when a widget inside it changes; a part may hold
    parts. After such a
    rerun, when the URL changed and the sidebar's link to this view is shown, the whole app runs
    once more, so that the link names the view now shown."""

    def decorate(draw: Callable[..., None]) -> Callable[..., None]:
        @st.fragment(key=key)
        @functools.wraps(draw)
        def part(*args: Any, **kwargs: Any) -> None:
            alone = runs_alone()
            if alone:
                slow_run()  # every run sleeps $ATTENTION_LAB_SLOW_RUN (busy.py), a part's own too
            before = url_params() if alone else None
            draw(*args, **kwargs)
            if alone and st.session_state.get(LINK_OPEN_KEY) and url_params() != before:
                st.rerun()  # the whole app: the link in the sidebar says the view now shown

        return part

    return decorate
