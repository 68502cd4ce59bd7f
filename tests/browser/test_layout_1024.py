"""Nothing cut or broken inside a word or a term (issue 31, item 8), and a heads grid a learner
can read (item 10): at 1024 px with the sidebar open (Streamlit opens it at that width), and on a
390 px phone, in English and 中文.

* every page link of the sidebar shows its whole label ("Self vs cross attentior", "自注意力与交叉注意"
  were cut): the label's text is no wider than its box;
* a formula's line never ends with a relation whose value starts the next line ("1/√32 = / 0.1768"
  on Real model heads): ``formulas.kept_terms`` keeps each short term on one line;
* the heads grids (Multi-head's 12 heads, Real model heads' 72) keep each head at least
  ``model_figures.HEAD_MIN_PX`` wide and scroll sideways where the page is narrower.
"""

from __future__ import annotations

import pytest

from attention_ui.model_figures import grid_min_width
from tests.browser.harness import no_exception, wait_for_app

pytestmark = pytest.mark.browser

SENTENCE = "The quick brown fox jumps over the lazy dog while the small cat sleeps nearby"
VIEWS = {
    "1024": {"viewport": {"width": 1024, "height": 768}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}

CUT_LINKS = """() => {
  const bar = document.querySelector('[data-testid="stSidebar"]');
  if (!bar || bar.getAttribute('aria-expanded') === 'false' || bar.getBoundingClientRect().right < 50) return null;
  const cut = [];
  for (const link of bar.querySelectorAll('[data-testid="stPageLink"] a')) {
    for (const el of [link, ...link.querySelectorAll('span, p')]) {
      const text = el.innerText.trim();
      if (text && !/^[a-z_]+$/.test(text) && el.scrollWidth > el.clientWidth + 1) {
        cut.push(`${text}: ${el.scrollWidth} > ${el.clientWidth} px`);
        break;
      }
    }
  }
  return cut;
}"""
"""The sidebar's page links whose label is wider than its box (null: the sidebar is closed).
A Material icon's ligature name (lower case, "_") is no label."""

BROKEN_TERMS = """() => {
  const broken = [];
  for (const math of document.querySelectorAll('.katex-display')) {
    const bases = [...math.querySelectorAll('.katex-html > .base')];
    for (let k = 1; k < bases.length; k++) {
      if (bases[k].getBoundingClientRect().top <= bases[k - 1].getBoundingClientRect().top + 4) continue;
      const last = [...bases[k - 1].children].filter(el => !el.classList.contains('mspace')).pop();
      const next = bases[k].textContent.trim();
      if (last && last.classList.contains('mrel') && last.textContent !== ':' && /^[−-]?[0-9]/.test(next)) {
        broken.push(`${bases[k - 1].textContent.trim().slice(-24)} / ${next.slice(0, 24)}`);
      }
    }
  }
  return broken;
}"""
"""Lines of a formula that end with =, ∈ … while the value stands alone at the start of the next
(a list after a colon may start a line: "α_{2,j}/√32:" then the numbers)."""

GRID = """(key) => {
  const box = document.querySelector(`[class*="st-key-wide"]:has(.st-key-${key})`);
  const chart = box && box.querySelector('[data-testid="stPlotlyChart"]');
  if (!chart) return null;
  const width = chart.getBoundingClientRect().width;
  return {width, scroll: box.scrollWidth, client: box.clientWidth, overflow: getComputedStyle(box).overflowX};
}"""
"""The heads grid keyed ``key``: its chart's width and whether its frame scrolls."""


def _open(page, server, path: str, lang: str) -> None:
    join = "&" if "?" in path else "?"
    page.goto(f"{server}{path}{join}lang={lang}&sentence={SENTENCE.replace(' ', '+')}")
    wait_for_app(page, settle=200)
    no_exception(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_at_1024_px_the_open_sidebar_shows_every_page_link_whole(views, server, lang):
    page = views("1024")
    _open(page, server, "multi_head", lang)
    cut = page.evaluate(CUT_LINKS)
    assert cut is not None, "Streamlit no longer opens the sidebar at 1024 px"
    assert cut == [], f"page links cut in the sidebar ({lang}): {cut}"


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_formulas_break_between_terms_never_before_a_value(views, server, view, lang):
    page = views(view)
    broken = []
    for path in ("real_model", "multi_head", "exercises?ex_kind=by_hand"):
        _open(page, server, path, lang)
        broken += [f"{path}: {b}" for b in page.evaluate(BROKEN_TERMS)]
    assert broken == [], f"{view} × {lang}: formulas broken inside a term\n" + "\n".join(broken)


@pytest.mark.parametrize(
    ("path", "key", "n_heads"), [("multi_head", "fig_trained_heads", 12), ("real_model", "fig_grid", 12)]
)
def test_on_a_phone_the_heads_grid_keeps_its_heads_readable_and_scrolls(views, server, path, key, n_heads):
    page = views("phone")
    _open(page, server, path, "en")
    grid = page.evaluate(GRID, key)
    assert grid is not None, "no heads grid in a scrolling frame"
    assert grid["width"] >= grid_min_width(n_heads) - 1, grid  # HEAD_MIN_PX a head and the margins
    assert grid["overflow"] == "auto" and grid["scroll"] > grid["client"], grid
