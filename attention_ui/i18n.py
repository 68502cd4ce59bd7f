"""Every string a learner sees, in English and in Chinese: the catalogs and ``t()``.

The catalogs are TOML files, one per part of the app and per language:
``attention_ui/locales/<lang>/<namespace>.toml``. A key is ``"<namespace>.<name>"``, e.g.
``t("shell.sentence")`` reads ``name = "sentence"`` from ``locales/en/shell.toml`` (or
``zh/shell.toml``). Values are ``str.format`` templates with named fields, so a literal
brace is written ``{{`` / ``}}`` (LaTeX belongs in code, not in catalogs, where it can).

Example:
    >>> translate("en", "shell.tokens_shown", shown=3, total=5).startswith("Your sentence has 5")
    True
    >>> translate("zh", "shell.nav_home")
    '首页'

``tests/test_i18n.py`` fails when a key exists in one language and not the other, or when
their placeholders differ.
"""

from __future__ import annotations

import string
import tomllib
from functools import cache
from pathlib import Path

LANGS = {"en": "English", "zh": "中文"}
"""Language code → its own name, as the language switch shows it."""
DEFAULT_LANG = "en"
LOCALES = Path(__file__).with_name("locales")


@cache
def catalog(lang: str) -> dict[str, str]:
    """All strings of ``lang`` as {"namespace.name": template}, read once per process."""
    out: dict[str, str] = {}
    for path in sorted((LOCALES / lang).glob("*.toml")):
        with path.open("rb") as f:
            for name, value in tomllib.load(f).items():
                out[f"{path.stem}.{name}"] = value
    return out


def placeholders(template: str) -> set[str]:
    """The named fields of a template: ``placeholders("{n} of {total}") == {"n", "total"}``."""
    return {
        field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(template) if field is not None
    }


def translate(lang: str, key: str, **values) -> str:
    """The string ``key`` in ``lang`` with ``values`` filled in.

    An unknown language falls back to English; a key missing from the catalogs raises
    KeyError (a bug, caught by the tests), never a silent blank on screen.
    """
    table = catalog(lang if lang in LANGS else DEFAULT_LANG)
    return table[key].format(**values)


def choose_lang(url_value: str | None, browser_locale: str | None) -> str:
    """The language for a new session: the URL's ``?lang=`` if valid, else the browser's.

    >>> choose_lang("zh", "en-US"), choose_lang("xx", "zh-CN"), choose_lang(None, None)
    ('zh', 'zh', 'en')
    """
    if url_value in LANGS:
        return url_value
    if browser_locale and browser_locale.lower().startswith("zh"):
        return "zh"
    return DEFAULT_LANG


def current_lang() -> str:
    """The session's language (set by the sidebar's switch); English outside a session."""
    import streamlit as st

    try:
        lang = st.session_state.get("lang", DEFAULT_LANG)
    except Exception:  # no session (bare import, doctest)
        return DEFAULT_LANG
    return lang if lang in LANGS else DEFAULT_LANG


def t(key: str, **values) -> str:
    """``translate`` in the session's current language — what pages call."""
    return translate(current_lang(), key, **values)
