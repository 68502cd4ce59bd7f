"""Text in: cleaning and a CJK-aware fallback tokenizer.

The real model brings its own tokenizer (see ``model.py``). This one serves the toy
embedder and any text the model cannot read: words and numbers stay whole, punctuation
and emoji stand alone. Chinese has no spaces between words, so a run of CJK characters is
cut either into single characters (``cjk="chars"``, the default) or into words by rjieba
(``cjk="words"``). rjieba is jieba's segmenter — its dictionary and HMM for unknown words —
compiled from Rust (jieba-rs); it cuts as jieba 0.42.1 did on every Chinese sentence of the
tests and catalogs (bench/bench_segmenter.py has the timings). One known difference: rare
characters outside U+4E00–U+9FD5 (CJK extensions such as 㐀 or 𠀀) side by side stay one
token, where jieba gave one per character. rjieba is imported on first use (building its
dictionary then takes ~0.15 s and ~33 MB); if it is missing the characters are used instead
— ``word_segmenter_available()`` says which.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

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
_CJK_RUN = re.compile(f"[{_CJK}]+")
CJK_MODES = ("chars", "words")
"""How a run of Chinese characters is cut: one token per character, or one per word (rjieba)."""


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
        "" if unicodedata.category(c) == "Cf" else " " if unicodedata.category(c).startswith("C") else c for c in text
    )
    return " ".join(text.split())


def has_cjk(text: str) -> bool:
    """True when ``text`` contains at least one CJK character.

    >>> has_cjk("the 猫"), has_cjk("the cat")
    (True, False)
    """
    return _CJK_RUN.search(text or "") is not None


@lru_cache(maxsize=1)
def _rjieba():
    """The rjieba module, imported on first use, or None.

    Not at module level: importing rjieba builds its dictionary, and ``import attention_core``
    stays light (tests/test_layering.py).
    """
    try:
        import rjieba
    except Exception:  # not installed, or broken: the caller falls back to characters
        return None
    return rjieba


def word_segmenter_available() -> bool:
    """Whether ``cjk="words"`` really cuts words (rjieba importable) or falls back to characters."""
    return _rjieba() is not None


def _cjk_words(run: str) -> list[str]:
    """A run of CJK characters cut into words by rjieba (jieba's default, accurate mode, with the HMM)."""
    rjieba = _rjieba()
    if rjieba is None:
        return list(run)
    return [w for w in rjieba.cut(run, hmm=True) if w.strip()]


def simple_tokenize(text: str, cjk: str = "chars") -> list[str]:
    """Split cleaned text into words, CJK characters or words, punctuation and symbols.

    ``cjk`` is "chars" (every CJK character is a token) or "words" (each run of CJK
    characters is segmented into words by rjieba; characters if rjieba is unavailable).

    >>> simple_tokenize("The cat's mat, 2 cats!")
    ['The', "cat's", 'mat', ',', '2', 'cats', '!']
    >>> simple_tokenize("我爱猫 ok")
    ['我', '爱', '猫', 'ok']
    >>> simple_tokenize("注意力很重要", cjk="words") if word_segmenter_available() else ['注意力', '很', '重要']
    ['注意力', '很', '重要']
    """
    if cjk not in CJK_MODES:
        raise ValueError(f"cjk must be one of {CJK_MODES}, got {cjk!r}")
    cleaned = clean_text(text)
    if cjk == "chars" or not has_cjk(cleaned):
        return [t for t in _TOKEN.findall(cleaned) if not t.isspace()]
    tokens: list[str] = []
    start = 0
    for run in _CJK_RUN.finditer(cleaned):
        tokens += [t for t in _TOKEN.findall(cleaned[start : run.start()]) if not t.isspace()]
        tokens += _cjk_words(run.group())
        start = run.end()
    tokens += [t for t in _TOKEN.findall(cleaned[start:]) if not t.isspace()]
    return tokens
