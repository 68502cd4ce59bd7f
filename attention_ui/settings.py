"""The settings every page shares: their defaults, the session's language, and the URL parameters
a link to another page carries so that it opens with the same settings.

The sidebar (``sidebar.sidebar``) draws the settings' widgets; each keeps its value in the URL
parameter of its name. What the URL keeps, and how, is ``attention_ui.url_state``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from attention_core import MAX_TOKENS, LessonSettings
from attention_core.lesson import TRAINED_HEAD
from attention_ui.i18n import LANGS, choose_lang
from attention_ui.url_state import keep_in_url, remembered, url_position, url_value

DEFAULT_SENTENCE = "The boy thanked the girl because she had helped him"
AUTO_MODEL = "auto"
"""The model choice's default: the installed model that reads the sentence best."""

DEFAULTS: dict[str, Any] = {  # values of several types, each read where its widget is
    "sentence": DEFAULT_SENTENCE,
    "toy": False,
    "w": "trained",
    "layer": TRAINED_HEAD[0],
    "head": TRAINED_HEAD[1],
    "d_k": 4,
    "seed": 0,
    "scaled": True,
    "positional": True,
    "cjk": "chars",
    "model": AUTO_MODEL,
}
"""The shared settings and their defaults; each is bound to the URL parameter of its name."""


def default_settings() -> LessonSettings:
    """The lesson's settings as the sidebar gives them before anyone changes one (``DEFAULTS``):
    what the warm-up computes ahead (``warm.py``) and the benches expect.

    >>> default_settings().projection, default_settings().d_k
    ('trained', 4)
    """
    return LessonSettings(
        projection=DEFAULTS["w"],
        layer=DEFAULTS["layer"],
        head=DEFAULTS["head"],
        d_k=DEFAULTS["d_k"],
        seed=DEFAULTS["seed"],
        scaled=DEFAULTS["scaled"],
        positional=DEFAULTS["positional"],
        max_tokens=MAX_TOKENS,
        cjk=DEFAULTS["cjk"],
    )


BOUND = ("sentence", "toy", "d_k", "seed", "scaled", "positional")
"""The shared settings whose sidebar widget is bound to the URL (``bind="query-params"``): drawn
on every page, Streamlit keeps their parameters itself, so links to other pages leave them out
(given twice, Streamlit would write them twice: ``?toy=true&toy=true``)."""
POSITIONS = ("layer", "head")
"""The shared settings that are positions: 0-based here, in the URL as the number shown (from 1)."""


def init_lang() -> str:
    """Fix the session's language on its first run (URL ``?lang=``, else the browser's) and
    keep it in the URL. Safe to call more than once per run."""
    state = st.session_state
    if state.get("lang") not in LANGS:
        state["lang"] = choose_lang(url_value("lang"), st.context.locale)
    keep_in_url("lang", state["lang"])
    return state["lang"]


def url_text(name: str, value) -> str:
    """A shared setting as the page links carry it: ``true``/``false``, a position as shown.

    >>> url_text("scaled", False), url_text("layer", 0), url_text("d_k", 8)
    ('false', '1', '8')
    """
    if isinstance(value, bool):
        return str(value).lower()
    return url_position(value) if name in POSITIONS else str(value)


def link_params(*, same_page: bool = False, **overrides) -> dict[str, str]:
    """The URL parameters of a link to another page that keeps this session's shared settings
    (the values that differ from ``DEFAULTS``) with ``overrides`` on top, and the language.

    A link to another page leaves out the ``BOUND`` settings: on a page change Streamlit writes
    their parameters itself. A link to the page on screen (``same_page``) keeps them: there
    Streamlit takes the link's parameters as they are.
    Example: ``registry.page_link("matrices", link_params(w="trained", layer=1, head=3))``."""
    values = {name: remembered(name, default) for name, default in DEFAULTS.items()} | overrides
    shared = {k: url_text(k, v) for k, v in values.items() if v != DEFAULTS[k] and (same_page or k not in BOUND)}
    shared["lang"] = init_lang()
    return shared
