"""On a phone the sidebar is folded away, and with it the sentence box. Under the title of every
page that reads the sentence, a phone shows the sentence and "Change the sentence", which opens
the sidebar with the cursor in the box (attention_ui/sentence_box.py, ``show_on_phone``). A
projector or a laptop shows none of it, and a learner's markup stays text."""

from __future__ import annotations

import pytest

from attention_ui.i18n import translate
from attention_ui.sentence_box import PHONE_CLASS
from harness import TOY, no_exception, testid, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
LINE = f".{PHONE_CLASS}"


def sidebar_right(page) -> float:
    return page.evaluate(f"() => document.querySelector('{testid('stSidebar')}').getBoundingClientRect().right")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_phone_finds_the_sentence_under_the_title_and_opens_the_box(tab, server, lang):
    page = tab(**PHONE)
    page.goto(server + f"step_by_step?lang={lang}&{TOY}&sentence=the+dog+%3Cb%3Esat%3C%2Fb%3E")
    wait_for_app(page)
    no_exception(page)
    line = page.locator(LINE)
    assert line.is_visible()
    assert line.locator("span").inner_text() == "the dog <b>sat</b>"  # text, not markup
    assert line.locator("b").count() == 0
    title_bottom = page.locator(f"{testid('stMain')} h1").first.bounding_box()["y"] + 60
    assert line.bounding_box()["y"] < title_bottom + 120, "the line sits right under the title"
    assert sidebar_right(page) <= 0, "the phone opens with the sidebar folded"
    button = line.locator("button")
    assert button.inner_text() == translate(lang, "shell.change_sentence")
    button.click()
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.tagName === 'TEXTAREA'", timeout=10_000
    )
    page.wait_for_function(  # the sidebar slides open (an animation): wait for it to end open
        f"() => document.querySelector('{testid('stSidebar')}').getBoundingClientRect().right > 200", timeout=10_000
    )
    assert page.evaluate("document.activeElement.value") == "the dog <b>sat</b>"


def test_a_laptop_and_a_projector_show_no_phone_line(tab, server):
    laptop = tab(viewport={"width": 1024, "height": 768})
    laptop.goto(server + f"step_by_step?{TOY}&sentence=the+dog+sat")
    wait_for_app(laptop)
    assert laptop.locator(LINE).count() == 1 and not laptop.locator(LINE).is_visible()
    holder = laptop.locator(f"{testid('stElementContainer')}:has({LINE})")
    assert holder.evaluate("e => getComputedStyle(e).display") == "none", "no gap left where it is hidden"
    projector = tab(viewport={"width": 1024, "height": 768})
    projector.goto(server + f"step_by_step?{TOY}&sentence=the+dog+sat&present=true")
    wait_for_app(projector)
    assert projector.locator(LINE).count() == 0  # the sentence is shown large there instead
