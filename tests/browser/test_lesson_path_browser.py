"""A teacher at a 1024 × 768 projector in presentation mode walks the lesson from Home to Exercises
with Next alone, in both languages: each page opens with the sidebar folded (also after the teacher
opened it once), the sentence and presentation mode kept. The clicker (→) moves to the next page
at the last step and on a page without steps (attention_ui/lesson_path.py, clicker.py)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from attention_ui.i18n import translate
from attention_ui.lesson_path import lesson_pages
from attention_ui.registry import page as registered
from harness import no_exception, testid, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

PROJECTOR = {"width": 1024, "height": 768}
WALK = lesson_pages()[: lesson_pages().index("exercises") + 1]
OPEN_AT = "step_by_step"
"""Where the teacher opens the sidebar once, to see that the next page folds it again."""
SENTENCE = {"en": "the teacher thanked the student because she had helped", "zh": "老师感谢学生因为她帮了忙"}


def sidebar_right(page) -> float:
    """Where the sidebar ends on screen, in px (≤ 0: folded away)."""
    return page.evaluate(f"() => document.querySelector('{testid('stSidebar')}').getBoundingClientRect().right")


def opened_page(page) -> str:
    """The page id in the address bar (Home is ``/``)."""
    return urlparse(page.url).path.strip("/") or "home"


def params(page) -> dict:
    return {name: values[0] for name, values in parse_qs(urlparse(page.url).query).items()}


def title(page) -> str:
    return page.locator(f"{testid('stMain')} h1").first.inner_text().strip()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_next_walks_the_lesson_from_home_to_exercises_on_a_projector(tab, server, lang):
    page = tab(viewport=PROJECTOR)
    page.goto(server + f"?present=true&lang={lang}&sentence={SENTENCE[lang]}")
    wait_for_app(page)
    for page_id in WALK:
        no_exception(page)
        assert opened_page(page) == page_id
        assert title(page) == translate(lang, registered(page_id).title_key)
        assert sidebar_right(page) <= 0, f"{page_id}: the sidebar is open over the page"
        kept = params(page)
        assert (kept.get("present"), kept.get("lang"), kept.get("sentence")) == ("true", lang, SENTENCE[lang])
        if page_id == OPEN_AT:  # the teacher opens the sidebar once (Streamlit keeps that choice)
            page.locator(testid("stExpandSidebarButton")).click()
            page.wait_for_function(
                f"() => document.querySelector('{testid('stSidebar')}').getBoundingClientRect().right > 200"
            )
        if page_id == WALK[-1]:
            break
        following = page.locator(".st-key-path_next a")
        label = translate(
            lang, "shell.path_next", page=translate(lang, registered(WALK[WALK.index(page_id) + 1]).nav_key)
        )
        assert following.inner_text().splitlines()[0].strip() == label  # then the arrow (an icon font)
        following.click()
        wait_for_app(page)
    assert opened_page(page) == "exercises"


def test_the_clicker_moves_to_the_next_page_at_the_last_step(tab, server):
    page = tab(viewport=PROJECTOR)
    page.goto(server + "step_by_step?step=7&present=true&toy=true&sentence=the+dog+sat")
    wait_for_app(page)
    page.locator(f"{testid('stMain')} h1").first.click()  # the focus on the page, not in a box
    page.keyboard.press("ArrowLeft")  # a step back: not the page before
    wait_for_app(page)
    assert opened_page(page) == "step_by_step" and params(page).get("step") == "6"
    page.keyboard.press("ArrowRight")
    wait_for_app(page)
    assert opened_page(page) == "step_by_step" and params(page).get("step") == "7"
    page.keyboard.press("ArrowRight")  # the last step: the next page
    wait_for_app(page)
    no_exception(page)
    assert opened_page(page) == "matrices"
    assert params(page).get("present") == "true" and params(page).get("sentence") == "the dog sat"

    page.goto(server + "intuition?present=true")  # no steps, no views: the page moves on
    wait_for_app(page)
    page.locator(f"{testid('stMain')} h1").first.click()
    page.keyboard.press("PageDown")
    wait_for_app(page)
    assert opened_page(page) == "tailor_shop"
    page.locator(f"{testid('stMain')} h1").first.click()
    page.keyboard.press("ArrowLeft")
    wait_for_app(page)
    assert opened_page(page) == "intuition"
