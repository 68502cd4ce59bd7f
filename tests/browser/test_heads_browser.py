""" "What do heads do?" in Chromium: a click on a head of the census grid puts it under the
microscope (the click reaches Python through the grid's invisible click targets), the link to
Step by step opens that head there, and the page works in both languages and on a projector."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from attention_core.heads import census
from attention_ui.head_claims import head_summary
from attention_ui.i18n import translate
from attention_ui.internals import testid
from harness import no_exception, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


def query(page) -> dict:
    return parse_qs(urlparse(page.url).query)


def click_head(page, key: str, layer: int, head: int, n_heads: int = 12) -> None:
    """Click the cell of (layer, head), 0-based, of the census grid under key ``key``."""
    point = page.locator(f".st-key-{key} .scatterlayer .point").nth(layer * n_heads + head)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    assert box is not None, "the grid's click targets are not drawn"
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def summary_shown(page, lang: str, layer: int, head: int) -> bool:
    """Is the measured summary of (layer, head) on the page, as the catalog words it?"""
    from functools import partial

    expected = head_summary(census(), layer, head, tr=partial(translate, lang)).replace("**", "")
    return expected[:60] in page.locator(testid("stMain")).inner_text()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_click_on_the_grid_chooses_the_head_and_the_link_opens_it(open_app, lang):
    page = open_app(f"heads?lang={lang}")
    no_exception(page)
    assert summary_shown(page, lang, 1, 3)  # the default head: layer 2, head 4
    click_head(page, "fig_census", 0, 2)  # layer 1, head 3: the previous-token head
    for _ in range(50):
        wait_for_app(page)
        if query(page).get("layer") == ["1"] and query(page).get("head") == ["3"]:
            break
        page.wait_for_timeout(200)
    no_exception(page)
    assert query(page).get("layer") == ["1"] and query(page).get("head") == ["3"]
    assert summary_shown(page, lang, 0, 2)
    page.get_by_role("link", name=translate(lang, "heads.open_step_by_step")).click()
    page.wait_for_url("**/step_by_step?**")
    wait_for_app(page)
    no_exception(page)
    assert query(page).get("layer") == ["1"] and query(page).get("head") == ["3"]
    assert query(page).get("w", ["trained"]) == ["trained"]


def test_a_shared_link_to_the_contrast_view_opens_it_on_a_projector(open_app):
    page = open_app("heads?lang=zh&heads_view=contrast&present=true&layer=6&head=12")
    no_exception(page)
    text = page.locator(testid("stMain")).inner_text()
    assert translate("zh", "heads.contrast_text")[:20] in text
    assert page.locator(".st-key-fig_outcome_present .js-plotly-plot").count() == 1  # the projector's chart key
    assert summary_shown(page, "zh", 5, 11)


@pytest.mark.parametrize(
    "path, key, layer, head, index",
    [
        ("real_model?lang=en", "fig_grid", 3, 5, 3 * 12 + 5),
        ("multi_head?lang=en&layer=3", "fig_trained_heads", 2, 7, 7),
    ],
    ids=["real model: 72 heads", "multi-head: one layer"],
)
def test_a_click_on_a_thumbnail_chooses_that_head(open_app, path, key, layer, head, index):
    page = open_app(path)
    no_exception(page)
    point = page.locator(f".st-key-{key} .scatterlayer .point").nth(index)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(50):
        wait_for_app(page)
        if query(page).get("head") == [str(head + 1)]:
            break
        page.wait_for_timeout(200)
    no_exception(page)
    assert query(page).get("layer") == [str(layer + 1)] and query(page).get("head") == [str(head + 1)]
