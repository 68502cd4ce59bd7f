"""The fonts that only some pages use (KaTeX's large brackets and ℝ, Source Code Pro) are fetched
while the learner reads the first page (asked for by ``style.SIDEBAR_SCRIPT``),
not during the first visit of a page that needs them: a font that arrives late makes Chromium lay
the page out again while the learner waits."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

FONTS = ["16px KaTeX_AMS", "16px KaTeX_Size1", "16px KaTeX_Size2", "16px KaTeX_Size4", "16px 'Source Code Pro'"]


def test_the_fonts_of_later_pages_are_loaded_on_the_first_page(open_app):
    page = open_app("?lang=en")  # Home: a formula or two, no large brackets, no code
    page.wait_for_function("(fonts) => fonts.every((font) => document.fonts.check(font))", arg=FONTS, timeout=15_000)
    loaded = page.evaluate(
        "() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family.replaceAll('\"', ''))"
    )
    assert {"KaTeX_AMS", "KaTeX_Size1", "KaTeX_Size2", "KaTeX_Size4", "Source Code Pro"} <= set(loaded), loaded
