"""Parts of a page that rerun alone (attention_ui/fragments.py) leave nothing stale.

A click inside a part (Step by step's Next, Back and query token) reruns only that part: the
page counts a fragment run, not a run of the whole app. What the part changes is everywhere it
shows: the step and its chart, the URL, and the sidebar's "Link to this view" while it is open
(which the part cannot redraw itself: the app runs once more). A setting of the sidebar changed
after such a click still applies to the step the learner is on. No time is asserted.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from attention_ui.i18n import translate
from attention_ui.internals import testid
from harness import EARLY_FOR_RERUN, FRAGMENT_RUN, FULL_RUN, TOY, no_exception, wait_for_app
from harness import runs_of as harness_runs_of

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

FULL, FRAGMENT = FULL_RUN, FRAGMENT_RUN


def runs_of(page, act) -> list[int]:
    """``harness.runs_of``, and no exception on the page after it."""
    statuses = harness_runs_of(page, act)
    no_exception(page)
    return statuses


def step_number(page) -> int:
    text = page.locator(f"{testid('stMain')} {testid('stProgress')}").inner_text()
    return int(re.search(r"(\d+)", text).group(1))


def url_param(page, name: str) -> str | None:
    return parse_qs(urlparse(page.url).query).get(name, [None])[0]


def shared_link(page) -> dict:
    code = page.locator(f"{testid('stSidebar')} {testid('stCode')}")
    code.first.wait_for(timeout=30_000)
    return parse_qs(urlparse(code.first.inner_text().strip()).query)


def next_button(page):
    return page.locator(f"{testid('stMain')} .st-key-step_next button")


def test_next_back_and_a_token_rerun_only_their_part(tab, server):
    page = tab()
    page.goto(server + f"step_by_step?sentence=the+dog+sat+on+the+mat&{TOY}")
    wait_for_app(page)
    no_exception(page)
    assert step_number(page) == 1

    assert runs_of(page, lambda: next_button(page).click()) == [FRAGMENT]
    assert step_number(page) == 2 and url_param(page, "step") == "2", page.url
    main = page.locator(testid("stMain"))
    assert runs_of(page, lambda: main.locator(".st-key-step_back button").click()) == [FRAGMENT]
    assert step_number(page) == 1 and url_param(page, "step") is None, page.url  # the default leaves the URL
    token = main.locator(f".st-key-token_picker {testid('stButtonGroup')} button").nth(3)
    assert runs_of(page, token.click) == [FRAGMENT]
    assert url_param(page, "token") == "4", page.url
    assert main.locator(".st-key-token_picker button[aria-checked='true']").inner_text().startswith("4:")


def test_the_link_to_this_view_follows_a_part(tab, server):
    page = tab()
    page.goto(server + f"step_by_step?sentence=the+dog+sat+on+the+mat&{TOY}")
    wait_for_app(page)
    sidebar = page.locator(testid("stSidebar"))
    summary = sidebar.locator(f"{testid('stExpander')} summary").filter(has_text=translate("en", "shell.share"))
    summary.click()
    wait_for_app(page)
    assert "step" not in shared_link(page)

    statuses = runs_of(page, lambda: next_button(page).click())
    assert shared_link(page).get("step") == ["2"], shared_link(page)  # the link names the step shown
    assert statuses == [EARLY_FOR_RERUN, FULL], statuses  # the part, then the app once more for the link
    assert step_number(page) == 2
    next_button(page).click()
    wait_for_app(page)
    assert shared_link(page)["step"] == ["3"] and url_param(page, "step") == "3"


def test_a_setting_after_a_part_keeps_the_step(tab, server):
    page = tab()
    page.goto(server + f"step_by_step?sentence=the+dog+sat+on+the+mat&{TOY}")
    wait_for_app(page)
    for _ in range(2):
        runs_of(page, lambda: next_button(page).click())
    assert step_number(page) == 3
    scaled = page.locator(f"{testid('stSidebar')} .st-key-scaled label").first
    assert runs_of(page, scaled.click) == [FULL]  # a setting: the whole app, the sidebar included
    assert step_number(page) == 3 and url_param(page, "step") == "3", page.url
    assert url_param(page, "scaled") == "false", page.url


def test_a_view_and_a_spotlight_rerun_only_their_part(tab, server):
    page = tab()
    page.goto(server + f"matrices?sentence=the+dog+sat+on+the+mat&{TOY}")
    wait_for_app(page)
    no_exception(page)
    main = page.locator(testid("stMain"))
    views = main.locator(f".st-key-matrix_tab {testid('stButtonGroup')} button")
    assert runs_of(page, views.nth(1).click) == [FRAGMENT]  # the scores
    assert url_param(page, "matrix") == "scores", page.url
    assert main.locator(".st-key-fig_scores_spotlight").count() == 1
    assert main.locator(".st-key-fig_weights_spotlight").count() == 0  # the weights' matrix is gone

    chosen = []

    def spotlight_row_3():
        # A matrix's choice drawn by the run before does not open on its first click (main too,
        # without fragments: Streamlit's combobox takes it as focus); a second click opens it.
        for _ in range(3):
            main.locator(".st-key-fig_scores_spotlight input").first.click()
            page.wait_for_timeout(500)
            if page.get_by_role("option").count():
                break
        option = page.get_by_role("option").nth(3)  # row 3 (option 0 is "no row")
        chosen.append(option.inner_text())
        option.click()

    assert runs_of(page, spotlight_row_3) == [FRAGMENT]
    spot = main.locator(".cm-spotlight caption span").last  # the row's label
    assert spot.inner_text() and spot.inner_text() in chosen[0], (spot.inner_text(), chosen)
    assert runs_of(page, views.nth(3).click) == [FRAGMENT]  # the weights again
    assert url_param(page, "matrix") is None and main.locator(".cm-spotlight").count() == 0, page.url


def test_the_snapshot_slider_reruns_only_its_part(tab, server):
    page = tab()
    page.goto(server + f"learn?{TOY}&task=reverse&trained=true")  # a link to a trained view trains it as it opens
    wait_for_app(page)
    no_exception(page)
    main = page.locator(testid("stMain"))
    thumb = main.locator("[class*='st-key-snapshot_'] input[type='range']").first
    thumb.wait_for(state="attached", timeout=120_000)  # a visually hidden input
    last = thumb.get_attribute("aria-valuetext")
    title = main.locator("h1").first.inner_text()
    assert runs_of(page, lambda: thumb.press("ArrowLeft")) == [FRAGMENT]
    earlier = thumb.get_attribute("aria-valuetext")
    assert earlier != last and url_param(page, "snapshot") is not None, (last, earlier, page.url)
    assert url_param(page, "snapshot") in earlier, (earlier, page.url)  # the URL names the snapshot shown
    assert main.locator("h1").first.inner_text() == title  # the page around the part is still there
    assert url_param(page, "trained") == "true", page.url
