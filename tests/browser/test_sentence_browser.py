"""The page's own text boxes in a real browser: Sentence B (Self vs cross attention) and the
compare box (After attention) come back when the learner returns to their page. They are bound
to the URL, which Streamlit keeps per page; no ``persist_state`` is needed.
"""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

import pytest

from tests.browser.harness import TOY, no_exception, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def sidebar_link(page, label: str):
    return page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"] a').filter(has_text=label)


def test_sentence_b_comes_back_after_a_page_switch(open_app):
    page = open_app(f"cross_attention?{TOY}")
    box = page.locator(".st-key-sentence_b input")
    box.fill("un deux trois")
    box.press("Enter")
    wait_for_app(page)
    for _ in range(25):  # the browser writes the link after the run
        if query(page).get("sentence_b") == ["un deux trois"]:
            break
        page.wait_for_timeout(200)
    sidebar_link(page, "Attention matrices").click()
    wait_for_app(page)
    assert "sentence_b" not in query(page)
    sidebar_link(page, "Self vs cross attention").click()
    wait_for_app(page)
    no_exception(page)
    assert box.input_value() == "un deux trois"
    assert query(page).get("sentence_b") == ["un deux trois"], page.url


def test_the_compare_box_comes_back_after_a_page_switch(open_app):
    typed = "Interest rates rose again this year"
    page = open_app(f"after_attention?vector_view=compare&compare={quote('A kitten slept')}")
    box = page.locator(".st-key-compare input")
    assert box.input_value() == "A kitten slept"
    box.fill(typed)
    box.press("Enter")
    wait_for_app(page)
    sidebar_link(page, "Step by step").click()
    wait_for_app(page)
    sidebar_link(page, "After attention").click()
    wait_for_app(page)
    no_exception(page)
    assert box.input_value() == typed
    assert query(page).get("compare") == [typed], page.url
