"""The frame around the chosen head of the heads grid, as Chromium draws it: the grid's frames
are transparent in the figure and a style colours the chosen one (``style.selected_frame_css``),
so a pick changes a style, not the figure. This checks that the style reaches Plotly's drawing
(it names Plotly's shape elements) and that a pick does not draw the grid again."""

from __future__ import annotations

import pytest

from attention_ui import internals
from attention_ui.model_figures import SELECTED
from harness import no_exception, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

GRID = "." + internals.key_class("fig_grid")
STROKES_JS = f"""() => [...document.querySelectorAll('{GRID} .shapelayer path')].map((p) => {{
  const style = getComputedStyle(p);
  return [style.stroke, style.strokeOpacity];
}})"""


def framed(page) -> list[int]:
    """Indices of the grid's frames Chromium draws visibly, in the selected colour."""
    orange = internals.rgb(SELECTED)
    return [n for n, (stroke, opacity) in enumerate(page.evaluate(STROKES_JS)) if stroke == orange and opacity == "1"]


def test_the_chosen_head_is_framed_and_a_pick_does_not_redraw_the_grid(open_app):
    page = open_app("real_model?lang=en&layer=4&head=6")  # as shown: index 3 and 5
    no_exception(page)
    page.wait_for_function(f"document.querySelectorAll('{GRID} .shapelayer path').length === 72")
    assert framed(page) == [3 * 12 + 5]
    page.evaluate(f"document.querySelector('{GRID} .plot-container').dataset.before = 'yes'")
    page.locator(f"{internals.testid('stMain')} .{internals.key_class('head_picker')} button").nth(7).click()
    for _ in range(50):  # the rerun lands with the new style
        wait_for_app(page)
        if framed(page) == [3 * 12 + 7]:
            break
        page.wait_for_timeout(200)
    no_exception(page)
    assert framed(page) == [3 * 12 + 7]
    assert page.evaluate(f"document.querySelector('{GRID} .plot-container').dataset.before") == "yes"


def test_on_a_projector_the_chosen_head_is_framed_too(open_app):
    """Presentation mode draws the grid under another chart key (``charts.draw``: ``_present``);
    the frame's style still reaches it (it showed no frame before)."""
    page = open_app("real_model?lang=en&layer=4&head=6&present=true")
    no_exception(page)
    grid = internals.key_prefix("fig_grid")  # [class*="st-key-fig_grid"]
    page.wait_for_function(f"document.querySelectorAll('{grid} .shapelayer path').length === 72")
    strokes = page.evaluate(STROKES_JS.replace(GRID, grid))
    orange = internals.rgb(SELECTED)
    assert [n for n, (stroke, opacity) in enumerate(strokes) if stroke == orange and opacity == "1"] == [3 * 12 + 5]
