"""The Similarity measures and The code pages in a real browser: the main control moved by
keyboard, what Chromium draws afterwards, and a fresh server's first request to a shared
link of the similarity page."""

from __future__ import annotations

import math
from urllib.parse import parse_qs, urlparse

import pytest

from attention_ui.i18n import translate
from attention_ui.internals import testid
from harness import TOY, fresh_server, no_exception, plotly_data, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def heading(page) -> str:
    return page.locator(f"{testid('stMain')} h1").first.inner_text()


def metrics(page) -> dict[str, str]:
    boxes = page.locator(testid("stMetric"))
    return {
        boxes.nth(n).locator(testid("stMetricLabel")).inner_text().strip(): boxes.nth(n)
        .locator(testid("stMetricValue"))
        .inner_text()
        .strip()
        for n in range(boxes.count())
    }


def slider_thumb(page, label: str):
    return page.locator(testid("stSlider")).filter(has_text=label).locator('input[type="range"]')


def test_longer_key_changes_the_dot_product_not_the_cosine(open_app):
    page = open_app(f"similarity?{TOY}&lang=en&q_angle=0&q_length=1.0&k_angle=60&k_length=1.0")
    no_exception(page)
    assert "Similarity" in heading(page)
    before = metrics(page)
    assert float(before["Cosine"]) == pytest.approx(0.5, abs=1e-3)
    assert float(before["Dot product"]) == pytest.approx(0.5, abs=1e-3)
    thumb = slider_thumb(page, "Length of k")
    thumb.focus()
    for _ in range(10):  # step 0.1: 1.0 → 2.0
        thumb.press("ArrowRight")
    for _ in range(50):  # each key press may start its own rerun: wait until the last one has landed
        wait_for_app(page)
        shown = parse_qs(urlparse(page.url).query).get("k_length", ["nan"])[0]
        if float(shown) == 2.0 and float(metrics(page)["Dot product"]) == pytest.approx(1.0, abs=1e-3):
            break
        page.wait_for_timeout(200)
    no_exception(page)
    after = metrics(page)
    assert after["Cosine"] == before["Cosine"]
    assert float(after["Dot product"]) == pytest.approx(1.0, abs=1e-3)
    assert float(after["Scaled dot"]) == pytest.approx(1.0 / math.sqrt(2), abs=1e-3)
    assert float(parse_qs(urlparse(page.url).query)["k_length"][0]) == 2.0  # the view is a shareable link
    plane = next(f for f in plotly_data(page) if f["title"] == "q and k in the plane")
    assert plane["data"][0]["x"][1] == pytest.approx(2 * math.cos(math.radians(60)), abs=1e-9)
    assert plane["data"][0]["y"][1] == pytest.approx(2 * math.sin(math.radians(60)), abs=1e-9)


def test_code_page_in_chinese_shows_source_and_the_torch_check(open_app):
    page = open_app(f"code?{TOY}&lang=zh")
    no_exception(page)
    assert heading(page) == "代码"
    code = " ".join(page.locator(testid("stCode")).all_inner_texts())
    for name in ("attention", "softmax", "cosine_similarity", "torch_attention"):  # the five lines first
        assert f"def {name}(" in code, name
    assert float(metrics(page)["与 scaled_dot_product_attention 的最大差异"]) < 1e-12
    assert "与我们结果的最大差异" not in metrics(page)  # PyTorch runs only on request
    page.get_by_role("button", name="在 PyTorch 中运行同样的计算").click()
    wait_for_app(page)
    no_exception(page)
    assert float(metrics(page)["与我们结果的最大差异"]) < 1e-12
    # what the app runs is behind an expander, drawn when opened
    page.locator(f"{testid('stExpander')} summary").filter(has_text="scaled_dot_product_attention").click()
    runs = page.locator(f"{testid('stExpander')} {testid('stCode')}")
    runs.filter(has_text="def scaled_dot_product_attention(").first.wait_for(timeout=30_000)


def test_fresh_server_first_request_is_a_shared_similarity_link(app_page):
    page = app_page
    with fresh_server() as srv:
        page.goto(srv.url + f"similarity?{TOY}&lang=zh&q_angle=0&k_angle=90&sentence=hello+world+hello")
        wait_for_app(page)
        no_exception(page)
        assert page.get_by_text("Page not found").count() == 0
        assert heading(page) == "相似度度量"
        assert float(metrics(page)["余弦相似度"]) == 0.0  # a right angle, as the link says
        title = translate("zh", "similarity.heatmaps_title", d=4, d_name="d_k")  # cosine, dot, scaled: one chart
        heatmap = next(f for f in plotly_data(page) if f["title"] == title.replace("<br>", ""))
        assert heatmap["layout"]["yaxis"]["ticktext"] == ["1: hello", "2: world", "3: hello"]
