"""Text in: cleaning and a CJK-aware fallback tokenizer.

The real model brings its own tokenizer (see ``model.py``). This one serves the toy
embedder and any text the model cannot read: words and numbers stay whole, punctuation
and emoji stand alone, and Chinese/Japanese/Korean characters become one token each
(Chinese has no spaces, so a whole sentence would otherwise be a single token).
"""

from __future__ import annotations

import re
import unicodedata

import regex

MAX_CHARS = 1000
"""Longest sentence the app accepts; the text input enforces it too."""

MAX_TOKENS = 24
"""Most tokens a lesson shows: beyond this a T×T matrix of numbers is unreadable."""

_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_CJK = (
    r"\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf"
    r"\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff"
)
_WORD_CHAR = rf"(?:(?![{_CJK}])[\w\p{{M}}])"
# One CJK character, or a word (letters, digits, combining marks; inner apostrophes), or any
# other single user-perceived character (\X keeps ❤️ and 👍🏽 whole).
_TOKEN = regex.compile(rf"[{_CJK}]|{_WORD_CHAR}+(?:['’]{_WORD_CHAR}+)*|\X")


def clean_text(text: str) -> str:
    """Normalise what a learner typed: NFC, no control or zero-width characters, single spaces.

    >>> clean_text("  the\\u200b cat\\n\\tsat  ")
    'the cat sat'
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    text = unicodedata.normalize("NFC", text)
    text = _INVISIBLE.sub("", text)
    # Format characters (soft hyphen, joiners) vanish; other controls become spaces.
    text = "".join(
        "" if unicodedata.category(c) == "Cf" else " " if unicodedata.category(c).startswith("C") else c
        for c in text
    )
    return " ".join(text.split())


def is_cjk(char: str) -> bool:
    """True for a single Chinese, Japanese or Korean character.

    >>> is_cjk("猫"), is_cjk("a")
    (True, False)
    """
    return re.fullmatch(f"[{_CJK}]", char) is not None


def simple_tokenize(text: str) -> list[str]:
    """Split cleaned text into words, single CJK characters, punctuation and symbols.

    >>> simple_tokenize("The cat's mat, 2 cats!")
    ['The', "cat's", 'mat', ',', '2', 'cats', '!']
    >>> simple_tokenize("我爱猫 ok")
    ['我', '爱', '猫', 'ok']
    """
    return [t for t in _TOKEN.findall(clean_text(text)) if not t.isspace()]
