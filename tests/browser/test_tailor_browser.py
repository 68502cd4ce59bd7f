"""The tailor shop and "What is attention?" in a real browser: changing the request changes the
weights the browser draws and the blended shirt it shows, and both equal attention_core's
numbers; a shared link opened as a fresh server's first request reopens the same fitting."""

from __future__ import annotations

import base64
import re
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

from attention_core.tailor import SAMPLES, Request, fit
from attention_ui.i18n import translate
from attention_ui.internals import testid
from harness import TOY, fresh_server, no_exception, plotly_data, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

DEFAULT = Request("mens", "plaid", "cotton", "casual", {"cut": 2.0, "pattern": 3.0, "fabric": 2.0, "style": 1.0})


def weights_on_page(page, lang: str = "en") -> np.ndarray:
    title = translate(lang, "tailor.step2_title")
    found = [f for f in plotly_data(page) if f["title"] == title]
    assert found, f"no weights chart among {[f['title'] for f in plotly_data(page)]}"
    return np.array(found[0]["data"][0]["x"], dtype=float)


def drawn_shirt(page, lang: str = "en") -> dict[str, str]:
    """The made-to-measure shirt as the browser holds it: its SVG's body fill and layer opacities."""
    img = page.locator(f'img[alt="{translate(lang, "tailor.result_alt")}"]')
    assert img.count() == 1, "one made-to-measure shirt on the page"
    src = img.get_attribute("src")
    assert src.startswith("data:image/svg+xml;base64,")
    svg = base64.b64decode(src.split(",", 1)[1]).decode()
    assert img.evaluate("el => el.complete && el.naturalWidth > 0"), "the browser did not draw the SVG"
    out = {"body": re.search(r'id="body" fill="([^"]+)"', svg).group(1)}
    for layer in ("plaid", "stripes", "sheen", "texture"):
        out[layer] = re.search(rf'id="{layer}"[^>]* opacity="([\d.]+)"', svg).group(1)
    return out


def expected_shirt(request: Request, beta: float = 0.5, similarity: str = "dot") -> dict[str, str]:
    from attention_ui.tailor_figures import PLAID_MAX, SHEEN_MAX, STRIPES_MAX, TEXTURE_MAX

    b = sum(
        w * np.array(s.value) for w, s in zip(fit(request, sharpness=beta, similarity=similarity).weights, SAMPLES)
    )  # Σ α̂_j v_j
    return {
        "body": f"rgb({100 * b[0]:.4f}%,{100 * b[1]:.4f}%,{100 * b[2]:.4f}%)",
        "plaid": f"{PLAID_MAX * b[6]:.6f}",
        "stripes": f"{STRIPES_MAX * b[7]:.6f}",
        "sheen": f"{SHEEN_MAX * b[8]:.6f}",
        "texture": f"{TEXTURE_MAX * b[9]:.6f}",
    }


def option(page, label: str):
    """An option button of a segmented control in the main area (not the sidebar's language switch)."""
    return page.locator(f"{testid('stMain')} {testid('stButtonGroup')} button").filter(
        has_text=re.compile(f"^{re.escape(label)}$")
    )


def test_changing_the_request_changes_the_weights_and_the_shirt(open_app):
    page = open_app("tailor_shop?" + TOY)
    no_exception(page)
    before_w, before = weights_on_page(page), drawn_shirt(page)
    np.testing.assert_allclose(before_w, fit(DEFAULT).weights, atol=1e-9)
    assert before == expected_shirt(DEFAULT)

    option(page, "women's").click()
    wait_for_app(page)
    option(page, "striped").click()
    wait_for_app(page)
    no_exception(page)
    request = Request("womens", "striped", "cotton", "casual", DEFAULT.importance)
    after_w, after = weights_on_page(page), drawn_shirt(page)
    np.testing.assert_allclose(after_w, fit(request).weights, atol=1e-9)
    assert after == expected_shirt(request)
    assert after != before and not np.allclose(after_w, before_w)
    assert int(after_w.argmax()) == [s.id for s in SAMPLES].index("breton")  # women's striped (linen) wins
    params = parse_qs(urlparse(page.url).query)
    assert params["want_cut"] == ["womens"] and params["want_pattern"] == ["striped"]  # ids, not labels
    assert not page.js_errors, page.js_errors


def test_fresh_server_opens_a_shared_fitting_in_chinese(app_page):
    with fresh_server() as srv:
        app_page.goto(srv.url + "tailor_shop?lang=zh&want_style=formal&sharpness=50&match=cosine&" + TOY)
        wait_for_app(app_page)
        no_exception(app_page)
        assert app_page.get_by_text("Page not found").count() == 0
        assert app_page.locator(f"{testid('stMain')} h1").first.inner_text().startswith("裁缝铺")
        request = Request("mens", "plaid", "cotton", "formal", DEFAULT.importance)
        np.testing.assert_allclose(
            weights_on_page(app_page, "zh"), fit(request, sharpness=50.0, similarity="cosine").weights, atol=1e-9
        )
        assert drawn_shirt(app_page, "zh") == expected_shirt(request, 50.0, "cosine")
        assert int(weights_on_page(app_page, "zh").argmax()) == [s.id for s in SAMPLES].index("flannel")


def test_intuition_page_moves_the_focus_by_click_and_by_slider(open_app):
    page = open_app("intuition?" + TOY)
    no_exception(page)

    def picture_source() -> str:
        sources = [
            f["data"][0].get("source")
            for f in page.evaluate(
                "() => [...document.querySelectorAll('.js-plotly-plot')]"
                ".map(el => ({data: el.data.map(t => ({source: t.source}))}))"
            )
            if f["data"] and f["data"][0].get("source")
        ]
        assert len(sources) == 1
        return sources[0]

    def focus() -> tuple[int, int]:
        q = parse_qs(urlparse(page.url).query)
        return int(q.get("eye_x", ["78"])[0]), int(q.get("eye_y", ["84"])[0])

    budget = [f for f in plotly_data(page) if f["title"].startswith("Allocated")]
    assert budget and abs(sum(budget[0]["data"][0]["y"]) - 100) < 1e-6
    assert focus() == (78, 84)
    before = picture_source()
    chart = page.locator(testid("stPlotlyChart")).first.bounding_box()
    page.mouse.click(chart["x"] + 0.2 * chart["width"], chart["y"] + 0.3 * chart["height"])  # the house
    wait_for_app(page)
    no_exception(page)
    x, y = focus()
    assert abs(x - 20) <= 3 and abs(y - 30) <= 4, (x, y)
    assert picture_source() != before, "a click redraws the picture around the new focus"

    clicked = picture_source()
    slider = page.locator(f"{testid('stMain')} {testid('stSlider')}").first.get_by_role("slider")
    slider.focus()
    for _ in range(5):
        slider.press("ArrowRight")
    for _ in range(50):  # each key press may start its own rerun: wait until the last one has landed
        wait_for_app(page)
        if focus()[0] == x + 5:
            break
        page.wait_for_timeout(200)
    no_exception(page)
    assert focus()[0] == x + 5, "the slider still moves the focus after a click"
    assert picture_source() != clicked
    assert not page.js_errors, page.js_errors
