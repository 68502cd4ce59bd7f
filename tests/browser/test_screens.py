"""Every page fits the screen it is on (issue 16): an old projector at 1024 × 768 with the
sidebar open, and a touch phone at 390 × 844, in English and 中文, with a 15-word sentence.

On every view ``SCREEN_CHECKS`` (JavaScript, in the page) looks for what a learner saw there:
the page scrolling sideways, a button label cut with "…", a button outside the page's
column or scrolled out of its row of choices, a formula wider than its box, tick or title
text outside its chart, a chart's toolbar over its title, and tick labels or cell numbers
that run into each other. Plus: presentation mode at 1024 × 768 shows the main chart on the
first screen, a 13-token weights matrix at 1400 px prints all 169 numbers, and on a phone
the sidebar closes after a page is picked.

One server and one browser for the module; each view is one browser context whose page
visits every page in turn (58 page loads, plus 4 for the other tests). ``python -m pytest
tests/browser/test_screens.py`` took 3 min 10 s on the shared 2-core machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_core.lesson import STEPS
from attention_ui import internals
from attention_ui.shell import NAV
from attention_ui.tables import MATRIX_CLASS
from tests.browser.harness import no_exception, wait_for_app

pytestmark = pytest.mark.browser

SENTENCE = "The quick brown fox jumps over the lazy dog while the small cat sleeps nearby"
"""15 words: 17 word pieces with [CLS] and [SEP]."""
VIEWS = {
    "projector": {"viewport": {"width": 1024, "height": 768}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
EXTRA = {"step_by_step": [f"step={STEPS.index('softmax')}", f"step={STEPS.index('output')}", "step=2"]}
"""Pages visited more than once on the phone (where they are hardest to fit): the step-by-step
page at its widest formulas and charts."""

_CHECKS_FILE = (Path(__file__).parent / "screen_checks.js").read_text(encoding="utf-8")
SCREEN_CHECKS = _CHECKS_FILE[_CHECKS_FILE.index("() =>") :]  # without the comment above the function
"""A list of what is wrong with the page in front of us (empty when it fits)."""


def page_urls(lang: str, extra_views: bool = True) -> list[str]:
    """Every page of NAV (and, with ``extra_views``, the extra views of some) with the
    15-word sentence."""
    common = f"sentence={SENTENCE.replace(' ', '+')}&lang={lang}"
    urls = []
    for page, _ in NAV:
        path = "" if page == NAV[0][0] else page
        for extra in [""] + (EXTRA.get(page, []) if extra_views else []):
            urls.append(f"{path}?{common}" + (f"&{extra}" if extra else ""))
    return urls


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_every_page_fits_the_screen(views, server, view, lang):
    page = views(view)
    problems = []
    for url in page_urls(lang, extra_views=view == "phone"):
        page.goto(server + url)
        wait_for_app(page, settle=200)
        no_exception(page)
        problems += [f"{url.split('?')[0] or 'home'} ({url.split('&')[-1]}): {p}" for p in page.evaluate(SCREEN_CHECKS)]
    assert not problems, f"{view} × {lang}: {len(problems)} problems\n" + "\n".join(problems)


@pytest.mark.parametrize("url", ["matrices", f"step_by_step?step={STEPS.index('softmax')}"])
def test_presentation_mode_shows_the_main_chart_on_the_first_screen(views, server, url):
    page = views("projector")
    page.goto(server + url + ("&" if "?" in url else "?") + f"present=true&sentence={SENTENCE.replace(' ', '+')}")
    wait_for_app(page, settle=200)
    main = f"{internals.PLOT}, .{MATRIX_CLASS}-wrap:not(.cm-spotlight)"  # a matrix is a table on a projector
    chart = page.locator(main).first.bounding_box()
    assert chart is not None, "no chart"
    assert chart["y"] + min(chart["height"], 300) <= 768, f"the chart starts at {chart['y']:.0f} px of a 768 px screen"


def test_a_13_token_weights_matrix_prints_all_169_numbers(chromium, server):
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    sentence = "the cat sat on the mat and the dog lay down"  # 11 words, 13 tokens with [CLS] and [SEP]
    page.goto(server + f"matrices?matrix=weights&sentence={sentence.replace(' ', '+')}")
    wait_for_app(page)
    numbers = page.evaluate(
        """() => [...document.querySelectorAll('.heatmap-label')]
                  .filter(t => getComputedStyle(t).display !== 'none' && t.getBoundingClientRect().width > 0)
                  .map(t => t.textContent)"""
    )
    context.close()
    assert len(numbers) == 169 and all(n.startswith("0.") or n == "1.00" for n in numbers), numbers[:20]


def test_on_a_phone_the_sidebar_closes_after_a_page_is_picked(views, server):
    page = views("phone")
    page.goto(server + "?lang=en")
    wait_for_app(page, settle=200)
    sidebar = page.locator(internals.testid("stSidebar"))
    if sidebar.get_attribute("data-collapsed") == "true":
        page.locator(internals.testid("stExpandSidebarButton")).click()
    page.wait_for_function(
        f"""() => document.querySelector('{internals.testid("stSidebar")}').dataset.collapsed === 'false'"""
    )
    page.locator(f'{internals.testid("stSidebar")} {internals.testid("stPageLink")} a[href*="matrices"]').first.click()
    page.wait_for_url("**/matrices*")
    wait_for_app(page, settle=200)
    page.wait_for_function(
        f"""() => document.querySelector('{internals.testid("stSidebar")}').dataset.collapsed === 'true'""",
        timeout=5_000,
    )
