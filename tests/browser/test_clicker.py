"""A presenter's remote at a projector (1024 × 768, presentation mode): → and PageDown go one step
on, ← and PageUp one step back, → moves through the views of Attention matrices, and no key does
anything while the teacher types in the sentence box (attention_ui/clicker.py)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from attention_ui.internals import testid
from harness import TOY, no_exception, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

PROJECTOR = {"width": 1024, "height": 768}


def step_number(page) -> int:
    text = page.locator(f"{testid('stMain')} {testid('stProgress')}").inner_text()
    return int(re.search(r"(\d+)", text).group(1))


def press(page, key: str) -> None:
    page.keyboard.press(key)
    wait_for_app(page)
    no_exception(page)


def test_the_remote_walks_the_steps_and_the_views(tab, server):
    page = tab(viewport=PROJECTOR)
    page.goto(server + f"step_by_step?sentence=the+dog+sat+on+it&present=true&{TOY}")
    wait_for_app(page)
    page.locator(f"{testid('stMain')} h1").first.click()  # the focus on the page, not in a box
    assert step_number(page) == 1
    press(page, "ArrowRight")
    assert step_number(page) == 2
    press(page, "PageDown")
    assert step_number(page) == 3
    press(page, "ArrowLeft")
    assert step_number(page) == 2
    press(page, "PageUp")
    assert step_number(page) == 1

    box = page.locator(f'{testid("stSidebar")} input[type="text"], {testid("stSidebar")} textarea').first
    box.focus()  # the teacher is typing a sentence: the arrow keys move the cursor, not the lesson
    press(page, "ArrowRight")
    assert step_number(page) == 1
    page.keyboard.press("End")
    page.keyboard.type(" again")
    press(page, "Enter")  # applied: the remote goes on, the focus still in the box
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    assert parse_qs(urlparse(page.url).query)["sentence"] == ["the dog sat on it again"]
    press(page, "PageDown")
    assert step_number(page) == 2
    press(page, "ArrowLeft")
    assert step_number(page) == 1
    page.keyboard.type("!")  # typing again: the keys are the box's once more
    press(page, "ArrowRight")
    assert step_number(page) == 1

    page.goto(server + f"matrices?sentence=the+dog+sat&present=true&{TOY}")
    wait_for_app(page)
    page.locator(f"{testid('stMain')} h1").first.click()
    before = parse_qs(urlparse(page.url).query).get("matrix", ["weights"])
    press(page, "ArrowRight")
    after = parse_qs(urlparse(page.url).query).get("matrix")
    assert before == ["weights"] and after == ["outputs"], page.url  # the view after the weights


def test_the_page_tells_the_browser_its_language(open_app):
    page = open_app("?lang=zh")
    assert page.evaluate("document.documentElement.lang") == "zh"
    page.locator(f"{testid('stSidebar')} {testid('stButtonGroup')} button").filter(has_text="English").click()
    wait_for_app(page)
    assert page.evaluate("document.documentElement.lang") == "en"
