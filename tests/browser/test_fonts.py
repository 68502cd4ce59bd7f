"""The fonts that only some pages use (KaTeX's large brackets and ℝ, Source Code Pro) are fetched
while the learner reads the first page (asked for by ``style.SIDEBAR_SCRIPT``),
not during the first visit of a page that needs them: a font that arrives late makes Chromium lay
the page out again while the learner waits."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

FONTS = ["16px KaTeX_AMS", "16px KaTeX_Size1", "16px KaTeX_Size2", "16px KaTeX_Size4", "16px 'Source Code Pro'"]
ON_THE_FIRST_PAGE_MS = 60_000
"""How long the test waits on the first page, never leaving it (a learner reading it): in a full run
on the two busy cores 15 s was once not enough (the fonts are asked for 1 s after the page opens)."""


def test_the_fonts_of_later_pages_are_loaded_on_the_first_page(open_app):
    page = open_app("?lang=en")  # Home: a formula or two, no large brackets, no code
    all_loaded = "(fonts) => fonts.every((font) => document.fonts.check(font))"
    page.wait_for_function(all_loaded, arg=FONTS, timeout=ON_THE_FIRST_PAGE_MS)
    loaded = page.evaluate(
        "() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family.replaceAll('\"', ''))"
    )
    assert {"KaTeX_AMS", "KaTeX_Size1", "KaTeX_Size2", "KaTeX_Size4", "Source Code Pro"} <= set(loaded), loaded


CHUNK_FETCHES_JS = (
    "(chunk) => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/' + chunk)).length"
)


def test_the_charts_code_is_loaded_on_a_page_without_charts_once(open_app):
    """attention_ui/preload.py: Home draws no chart, yet the chart chunk arrives while it is
    read; a page with charts opened next fetches it no second time."""
    from attention_ui.internals import plotly_chunk, testid

    chunk = plotly_chunk()
    page = open_app("?lang=en")
    assert page.locator(".js-plotly-plot").count() == 0, "Home drew a chart: pick a page without one"
    page.wait_for_function(f"(chunk) => ({CHUNK_FETCHES_JS})(chunk) > 0", arg=chunk, timeout=ON_THE_FIRST_PAGE_MS)
    page.locator(f'{testid("stSidebar")} a[href*="why_scaling"]').first.click()
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    assert page.evaluate(CHUNK_FETCHES_JS, chunk) == 1, "the chart chunk was fetched twice"
