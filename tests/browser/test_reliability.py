"""Reliability in a real browser: keyboard-only use, hand-typed URLs and markup in the sentence
on every page of attention_ui.registry.PAGES (new pages are covered without a change here)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlparse

import pytest

from attention_ui.internals import testid
from attention_ui.registry import PAGES as REGISTERED
from harness import TOY, js, no_exception, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

PAGES = [entry.id for entry in REGISTERED]
BAD_PARAMS = "token=999&d_k=-3&lang=xx&seed=abc&step=-1&layer=99&head=x&toy=maybe"
URL_INDICES = {"step_by_step": ("token", "step"), "real_model": ("layer", "head")}
"""The index parameters a page reads (through url_state.url_int): each must come back clamped."""
MARKUP = "<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script><b>bold</b> [x](javascript:alert(1))"

FOCUSED = js("""() => { const e = document.activeElement; if (!e) return null;
  return {tag: e.tagName, type: e.type || '', text: (e.innerText || '').trim().slice(0, 40),
          label: e.getAttribute('aria-label') || '',
          sidebar: !!e.closest('testid(stSidebar)'), main: !!e.closest('testid(stMain)')}; }""")


def tab_until(page, wanted, limit: int = 80) -> list[dict]:
    """Press Tab until ``wanted(focused)`` holds; return the focus path (fails after ``limit``)."""
    path = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        path.append(focused)
        if focused and wanted(focused):
            return path
    seen = [((f or {}).get("tag"), (f or {}).get("text") or (f or {}).get("label")) for f in path[-15:]]
    raise AssertionError(f"not reachable with Tab in {limit} presses; focus went through {seen}")


def step_number(page) -> int:
    text = page.locator(testid("stProgress")).inner_text()
    m = re.search(r"(\d+)\D+(\d+)", text)
    assert m, f"no step indicator in {text!r}"
    return int(m.group(1))


def is_sentence_box(f: dict) -> bool:
    return f["tag"] == "TEXTAREA" and f["sidebar"]  # the sentence box wraps (sentence_box.py)


def is_next(f: dict) -> bool:
    return f["tag"] == "BUTTON" and f["main"] and "Next" in f["text"]


def test_keyboard_only_reaches_the_sentence_and_operates_next(open_app):
    page = open_app(f"step_by_step?{TOY}&lang=en")
    no_exception(page)
    page.evaluate(
        "() => document.activeElement && document.activeElement.blur()"
    )  # a fresh page: Tab starts at the top
    path = tab_until(page, is_sentence_box)
    assert any(f and f["sidebar"] for f in path), "the sidebar is reachable"
    page.keyboard.press("Control+A")
    page.keyboard.type("keys only please")
    page.keyboard.press("Enter")
    wait_for_app(page)
    no_exception(page)
    labels = page.locator(f"{testid('stMain')} {testid('stButtonGroup')} button").all_inner_texts()
    assert [lab.strip() for lab in labels] == ["1: keys", "2: only", "3: please"], labels

    tab_until(page, is_next)
    before = step_number(page)
    page.keyboard.press("Enter")
    wait_for_app(page)
    assert step_number(page) == before + 1, "Enter on the focused Next button goes one step on"
    # after the rerun the focus may be reset: reach Next again and use Space this time
    focused = page.evaluate(FOCUSED)
    if not (focused and is_next(focused)):
        tab_until(page, is_next)
    page.keyboard.press("Space")
    wait_for_app(page)
    assert step_number(page) == before + 2, "Space on the focused Next button goes one step on"
    no_exception(page)


def test_keyboard_reaches_the_token_picker(open_app):
    page = open_app(f"step_by_step?sentence=the+cat+sat&{TOY}&lang=en")
    path = tab_until(
        page,
        lambda f: (
            f["tag"] == "BUTTON"
            and f["main"]
            and f["text"].startswith("2: cat")
            or f["tag"] == "BUTTON"
            and f["main"]
            and f["text"].startswith("1: the")
        ),
    )
    assert path


@pytest.mark.parametrize("page_id", PAGES)
def test_hand_typed_url_and_markup_sentence_are_safe_on_every_page(open_app, page_id):
    path = "" if page_id == PAGES[0] else page_id  # the default page lives at "/" (st.navigation)
    page = open_app(f"{path}?{BAD_PARAMS}&sentence={quote(MARKUP)}")
    no_exception(page)
    assert page.get_by_text("Page not found").count() == 0
    assert page.locator(f"{testid('stMain')} h1").count() >= 1, f"{page_id} has no title"
    box = page.locator(f"{testid('stSidebar')} textarea").first
    assert box.input_value() == MARKUP, "the markup sentence from the URL is in the box (the test is not vacuous)"
    assert page.evaluate("() => window.__pwned") is None, "input markup ran as script"
    injected = page.evaluate(
        """() => [...document.querySelectorAll('img[src="x"], script, b, a[href^="javascript"]')]
                  .filter(e => e.tagName !== 'SCRIPT' || /__pwned/.test(e.textContent))
                  .filter(e => e.tagName !== 'B' || /bold/.test(e.textContent)).map(e => e.outerHTML.slice(0, 120))"""
    )
    assert injected == [], f"{page_id}: markup from the URL reached the page: {injected}"
    assert not page.js_errors, page.js_errors
    query = parse_qs(urlparse(page.url).query)
    assert query.get("lang") in (["en"], ["zh"]), query.get("lang")
    for name in URL_INDICES.get(page_id, ()):
        if name in query:
            assert re.fullmatch(r"\d+", query[name][0]), f"{page_id}: ?{name}={query[name]}"
