"""Every string a learner sees, in English and in Chinese: the catalogs and ``t()``.

The catalogs are TOML files, one per part of the app and per language:
``attention_ui/locales/<lang>/<namespace>.toml``. A key is ``"<namespace>.<name>"``, e.g.
``t("shell.sentence")`` reads ``name = "sentence"`` from ``locales/en/shell.toml`` (or
``zh/shell.toml``). Values are ``str.format`` templates with named fields, so a literal
brace is written ``{{`` / ``}}`` (LaTeX belongs in code, not in catalogs, where it can).

Plural forms: a field whose format is ``one=…;other=…`` picks the form of its count's plural
category in the catalog's language (``plural_category``: English has "one" for 1 and "other";
Chinese has only "other", so its catalog needs none). The count itself is written beside it:
``"{n} {n:one=token;other=tokens}"`` reads "1 token", "3 tokens"; a verb agrees the same way
(``"{unknown} of {total} {unknown:one=is;other=are} unknown"``).

Example:
    >>> translate("en", "shell.tokens_shown", shown=3, total=5).startswith("Your sentence has 5")
    True
    >>> translate("en", "learn.written", prompt="a", written="b", n=1).endswith("(1 token).")
    True
    >>> translate("zh", "shell.nav_home")
    '首页'

``tests/test_i18n.py`` fails when a key exists in one language and not the other, or when
their placeholders differ.
"""

from __future__ import annotations

import re
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


PLURAL_CATEGORIES = {"en": ("one", "other"), "zh": ("other",)}
"""The plural categories each language tells apart (Unicode CLDR's, for whole numbers)."""
_PLURAL_FORMS = re.compile(r"^(?:(?:one|other)=[^;=]*;)*other=[^;=]*$")
"""A field's format that is a choice of plural forms, ``other`` last: ``one=token;other=tokens``."""


def plural_category(lang: str, count) -> str:
    """The plural category of ``count`` in ``lang``: "one" or "other" (CLDR's rule for whole
    numbers; a count that is no number is "other").

    >>> plural_category("en", 1), plural_category("en", 0), plural_category("en", 2), plural_category("zh", 1)
    ('one', 'other', 'other', 'other')
    """
    is_count = isinstance(count, int | float) and not isinstance(count, bool)
    return "one" if "one" in PLURAL_CATEGORIES.get(lang, ()) and is_count and count == 1 else "other"


class _CatalogFormatter(string.Formatter):
    """``str.format`` for the catalogs, with plural forms (see the module's docstring)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value, format_spec: str) -> str:
        if not _PLURAL_FORMS.match(format_spec):
            return super().format_field(value, format_spec)
        forms = dict(form.split("=", 1) for form in format_spec.split(";"))
        return forms.get(plural_category(self.lang, value), forms["other"])


@cache
def _has_plurals(template: str) -> bool:
    return any(spec and _PLURAL_FORMS.match(spec) for _, _, spec, _ in string.Formatter().parse(template))


def translate(lang: str, key: str, **values) -> str:
    """The string ``key`` in ``lang`` with ``values`` filled in, and its plural forms chosen.

    An unknown language falls back to English; a key missing from the catalogs raises
    KeyError (a bug, caught by the tests), never a silent blank on screen.
    """
    lang = lang if lang in LANGS else DEFAULT_LANG
    template = catalog(lang)[key]
    if _has_plurals(template):
        return _CatalogFormatter(lang).format(template, **values)
    return template.format(**values)


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
