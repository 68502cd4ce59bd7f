"""How wide a chart's text is drawn: the app's one model of it.

Every decision that depends on the width of a label (where a title breaks, whether column
labels lie flat or tilt, how wide a heatmap must be for its cell numbers, how much margin a
chart's labels push) measures it here, with ``text_px``: the advance widths of Source Sans,
Streamlit's chart font, as Chromium draws it (``internals.TEXT_EM``), 1 em for a CJK letter,
0 for a combining mark. Text is a Plotly label: ``<br>`` breaks lines, other tags (``<b>``,
``<sub>``) take no room, an entity (``&lt;``) is one letter.

>>> round(text_px("8: because"), 1), text_px("中文"), text_px("α̂") == text_px("α")
(53.9, 24.0, True)
"""

from __future__ import annotations

import re
import unicodedata

from .internals import LINE_EM, OTHER_EM, TEXT_EM, TICK_FONT_PX, WIDE_EM

TAG = re.compile(r"<[^>]*>")
"""A tag of Plotly's label markup (``<b>``, ``<br>``, ``<sub>``)."""
_ENTITY = re.compile(r"&[#\w]+;")


def plain(text: str) -> str:
    """A label without its markup: tags dropped, surrounding space stripped.

    >>> plain(" Weights α̂ <b>row 2</b> ")
    'Weights α̂ row 2'
    """
    return TAG.sub("", str(text)).strip()


def em(ch: str) -> float:
    """The advance width of one letter in ems.

    >>> em("m"), em("中"), em("\u0302")
    (0.948, 1.0, 0.0)
    """
    if ch in TEXT_EM:
        return TEXT_EM[ch]
    if unicodedata.combining(ch):
        return 0.0
    if unicodedata.east_asian_width(ch) in "WF":
        return WIDE_EM
    return OTHER_EM


def has_wide(text: str) -> bool:
    """Whether ``text`` has a letter drawn 1 em wide (Chinese, Japanese, Korean).

    >>> has_wide("1: 猫"), has_wide("1: cat")
    (True, False)
    """
    return any(em(ch) == WIDE_EM and not ch.isspace() for ch in str(text))


def text_px(text: str, size: float = TICK_FONT_PX) -> float:
    """The width (px) of the widest line of a Plotly label in Source Sans at ``size`` px.

    >>> text_px("ab<br>abc") == text_px("abc"), text_px("&lt;b&gt;", 10) == text_px("xbx", 10)
    (True, True)
    """
    widths = [0.0]
    for line in str(text).split("<br>"):
        line = _ENTITY.sub("x", TAG.sub("", line))
        widths.append(sum(em(ch) for ch in line) * size)
    return max(widths)


def lines(text: str) -> int:
    """How many lines a Plotly label takes.

    >>> lines("1<br>中"), lines("a")
    (2, 1)
    """
    return str(text).count("<br>") + 1


def line_px(size: float = TICK_FONT_PX) -> float:
    """The height (px) of one line of a label at ``size`` px, as Plotly spaces them."""
    return LINE_EM * size


def row_px(labels, size: float = TICK_FONT_PX, gap: float = 0.0) -> float:
    """The width (px) of ``labels`` side by side at ``size`` px, ``gap`` px after each.

    >>> row_px(["ab", "ab"], 10, gap=2) == 2 * text_px("ab", 10) + 4
    True
    """
    return sum(text_px(label, size) + gap for label in labels)
