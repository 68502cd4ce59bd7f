"""Every page fits the screen it is on (issue 16): an old projector at 1024 × 768 with the
sidebar open, and a touch phone at 390 × 844, in English and 中文, with a 15-word sentence.

On every view ``SCREEN_CHECKS`` (JavaScript, in the page) looks for what a learner saw there:
the page scrolling sideways, a button label cut with "…", a button outside the page's
column or scrolled out of its row of choices, a formula wider than its box, tick or title
text outside its chart, a chart's toolbar over its title, and tick labels or cell numbers
that run into each other. Plus: presentation mode at 1024 × 768 shows the main chart on the
first screen, a 13-token weights matrix at 1400 px prints all 169 numbers, and on a phone
the sidebar closes after a page is picked.

The same walk checks what nothing may cut inside a word or a term (issue 31, item 8) and the
heads grids a learner can read (item 10), on the pages where they are (these checks were
tests/browser/test_layout_1024.py, whose visits were the same pages in the same views):

* at 1024 px, where Streamlit opens the sidebar, every page link shows its whole label
  ("Self vs cross attentior", "自注意力与交叉注意" were cut): the label's text is no wider
  than its box (``CUT_LINKS``, on Multi-head);
* a formula's line never ends with a relation whose value starts the next line ("1/√32 = /
  0.1768" on Real model heads): ``formulas.kept_terms`` keeps each short term on one line
  (``BROKEN_TERMS``, on Real model heads, Multi-head and the by-hand exercise, in both views);
* on the phone the heads grids (Multi-head's 12 heads, Real model heads' 72) keep each head
  at least ``model_figures.HEAD_MIN_PX`` wide and scroll sideways where the page is narrower
  (``GRID``).

One server and one browser; each view is one browser context whose two pages visit every
page in turn, side by side (16 to 19 page loads a walk, plus 4 for the other tests).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_core.lesson import STEPS
from attention_ui import internals
from attention_ui.i18n import translate
from attention_ui.model_figures import grid_min_width
from attention_ui.registry import PAGES
from attention_ui.tables import MATRIX_CLASS
from harness import js, load_side_by_side, no_exception, wait_for_app

pytestmark = pytest.mark.browser

SENTENCE = "The quick brown fox jumps over the lazy dog while the small cat sleeps nearby"
"""15 words: 17 word pieces with [CLS] and [SEP]."""
VIEWS = {
    "projector": {"viewport": {"width": 1024, "height": 768}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
EXTRA = {"step_by_step": [f"step={STEPS.index('softmax')}", f"step={STEPS.index('output')}", "step=2"]}
"""Pages visited more than once on the phone (where they are hardest to fit): the step-by-step
page at its widest formulas and charts."""
EXTRA_EVERYWHERE = {"exercises": ["ex_kind=by_hand"]}
"""Views visited in both views: the by-hand exercise writes its sums as formulas."""
FORMULA_PAGES = ("real_model", "multi_head", "exercises")
"""The pages whose formulas ``BROKEN_TERMS`` reads (their long sums of numbers)."""
GRIDS = {"multi_head": ("fig_trained_heads", 12), "real_model": ("fig_grid", 12)}
"""The heads grids read on the phone: page -> (the chart's key, its number of heads)."""

_CHECKS_FILE = (Path(__file__).parent / "screen_checks.js").read_text(encoding="utf-8")
SCREEN_CHECKS = js(_CHECKS_FILE[_CHECKS_FILE.index("() =>") :])  # without the comment above the function
"""A list of what is wrong with the page in front of us (empty when it fits)."""

CUT_LINKS = js("""() => {
  const bar = document.querySelector('testid(stSidebar)');
  if (!bar || bar.getAttribute('aria-expanded') === 'false' || bar.getBoundingClientRect().right < 50) return null;
  const cut = [];
  for (const link of bar.querySelectorAll('testid(stPageLink) a')) {
    for (const el of [link, ...link.querySelectorAll('span, p')]) {
      const text = el.innerText.trim();
      if (text && !/^[a-z_]+$/.test(text) && el.scrollWidth > el.clientWidth + 1) {
        cut.push(`${text}: ${el.scrollWidth} > ${el.clientWidth} px`);
        break;
      }
    }
  }
  return cut;
}""")
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

FORMULA_LINES = """() => [...document.querySelectorAll('.katex-display')].map(math => {
  const lines = [];
  for (const base of math.querySelectorAll('.katex-html > .base')) {
    const top = base.getBoundingClientRect().top;
    if (!lines.length || top > lines[lines.length - 1].top + 4) lines.push({top, text: ''});
    lines[lines.length - 1].text += base.textContent;
  }
  return lines.map(line => line.text.trim());
})"""
"""Each displayed formula's lines of text, as laid out (a line: the bases that start at one height)."""

GRID = js("""(key) => {
  const box = document.querySelector(`[class*="st-key-wide"]:has(.st-key-${key})`);
  const chart = box && box.querySelector('testid(stPlotlyChart)');
  if (!chart) return null;
  const width = chart.getBoundingClientRect().width;
  return {width, scroll: box.scrollWidth, client: box.clientWidth, overflow: getComputedStyle(box).overflowX};
}""")
"""The heads grid keyed ``key``: its chart's width and whether its frame scrolls."""


def page_urls(lang: str, extra_views: bool = True) -> list[str]:
    """Every page of ``registry.PAGES`` (and, with ``extra_views``, the extra views of some; the views of
    ``EXTRA_EVERYWHERE`` always) with the 15-word sentence."""
    common = f"sentence={SENTENCE.replace(' ', '+')}&lang={lang}"
    urls = []
    for page in [entry.id for entry in PAGES]:
        path = "" if page == PAGES[0].id else page
        extras = EXTRA_EVERYWHERE.get(page, []) + (EXTRA.get(page, []) if extra_views else [])
        for extra in [""] + extras:
            urls.append(f"{path}?{common}" + (f"&{extra}" if extra else ""))
    return urls


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_every_page_fits_the_screen(views, tab, server, view, lang):
    page = views(view)
    tabs = [page, tab(timeout=90_000, **VIEWS[view])]  # two pages of the view, loading side by side
    urls = page_urls(lang, extra_views=view == "phone")
    problems, broken, links_read, grids_read, read = [], [], 0, set(), 0
    for shown, url in load_side_by_side(tabs, [server + url for url in urls], settle=200):
        url = url.removeprefix(server)
        read += 1
        no_exception(shown)
        where = f"{url.split('?')[0] or 'home'} ({url.split('&')[-1]})"
        problems += [f"{where}: {p}" for p in shown.evaluate(SCREEN_CHECKS)]
        name = url.split("?")[0]
        if name == "multi_head" and view == "projector":
            cut = shown.evaluate(CUT_LINKS)
            assert cut is not None, "Streamlit no longer opens the sidebar at 1024 px"
            problems += [f"{where}: a page link cut in the sidebar: {c}" for c in cut]
            links_read += 1
        if name in FORMULA_PAGES and (name != "exercises" or "ex_kind=by_hand" in url):
            broken.append(name)
            problems += [f"{where}: a formula broken inside a term: {b}" for b in shown.evaluate(BROKEN_TERMS)]
        if name in GRIDS and view == "phone" and lang == "en":
            key, n_heads = GRIDS[name]
            grid = shown.evaluate(GRID, key)
            assert grid is not None, f"{name}: no heads grid in a scrolling frame"
            assert grid["width"] >= grid_min_width(n_heads) - 1, (name, grid)  # HEAD_MIN_PX a head and the margins
            assert grid["overflow"] == "auto" and grid["scroll"] > grid["client"], (name, grid)
            grids_read.add(name)
    assert read == len(urls)
    assert sorted(broken) == sorted(FORMULA_PAGES), broken  # every formula page was read
    assert links_read == (view == "projector")
    assert grids_read == (set(GRIDS) if view == "phone" and lang == "en" else set())
    assert not problems, f"{view} × {lang}: {len(problems)} problems\n" + "\n".join(problems)


@pytest.mark.parametrize("url", ["matrices", f"step_by_step?step={STEPS.index('softmax')}"])
def test_presentation_mode_shows_the_main_chart_on_the_first_screen(views, server, url):
    page = views("projector")
    page.goto(server + url + ("&" if "?" in url else "?") + f"present=true&sentence={SENTENCE.replace(' ', '+')}")
    wait_for_app(page, settle=200)
    main = f"{internals.PLOT}, .{MATRIX_CLASS}-wrap:not(.cm-spotlight)"  # a matrix is a table on a projector
    chart = page.locator(main).first.bounding_box()
    assert chart is not None, "no chart"
    assert chart["y"] + min(chart["height"], 300) <= 768, f"the chart starts at {chart['y']:.0f} px of a 768 px screen"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", ["trained", "toy"])
def test_in_presentation_mode_multi_head_shows_its_heads_on_the_first_screen(views, server, lang, model):
    """Multi-head at 1024 × 768 in presentation mode: the first screen was all text (the intro, the
    measured heads' paragraph, the formula and the paragraph on the heads), the 12 heads began at
    ~1,000 px. Now the intro is folded and the heads' formula and paragraph come under them: the
    first chart (the trained layer's 12 heads, or the toy's seeded heads side by side) starts on the
    first screen, with at least 300 px of it (or all of it) in sight."""
    page = views("projector")
    toy = "&toy=true" if model == "toy" else ""
    page.goto(server + f"multi_head?present=true&lang={lang}{toy}&sentence={SENTENCE.replace(' ', '+')}")
    wait_for_app(page, settle=200)
    no_exception(page)
    chart = page.locator(internals.PLOT).first.bounding_box()
    assert chart is not None, "no chart"
    assert chart["y"] + min(chart["height"], 300) <= 768, f"the first chart starts at {chart['y']:.0f} px of 768"
    about = translate(lang, "multi_head.about_fold")  # "About this page": the intro, folded
    assert page.locator(f"{internals.testid('stExpander')} details:not([open])", has_text=about).count() == 1


STEP_4_SENTENCE = "老师说她很忙"
STEP_4_VIEWS = [("phone", 390, 844), ("projector", 1024, 768), ("projector", 1400, 900)]
"""Where Step 4's line "q₂ ⊙ k₁ = […] ⇒ α₂,₁ = Σ = 24.8028" is read: a phone, a projector, a laptop."""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_step_4s_formula_fits_and_breaks_only_between_its_pieces(views, server, lang):
    """Step 4 with 老师说她很忙 on the trained head and on the toy embedder (its d_k = 8 products
    printed whole), each at 390, 1024 and 1400 px, with and without presentation mode. On the old
    line the products ran off a phone (367 px in a 358 px box) and a projector's second line began
    with the score alone ("= / 24.8028"). Now no formula is wider than its box, no line ends
    with a relation before its value, and every line holds whole vectors (its brackets balance)."""
    problems, read = [], 0
    for view, width, height in STEP_4_VIEWS:
        page = views(view)
        page.set_viewport_size({"width": width, "height": height})
        for present in ("false", "true"):
            for model in ("", "&toy=true&w=random&d_k=8"):
                url = f"step_by_step?step=4&token=2&lang={lang}&present={present}{model}&sentence={STEP_4_SENTENCE}"
                page.goto(server + url)
                wait_for_app(page, settle=200)
                no_exception(page)
                where = f"{width} px, present={present}{model}"
                lines = [line for math in page.evaluate(FORMULA_LINES) for line in math if "⊙" in "".join(math)]
                assert any("⊙" in line for line in lines), f"{where}: no step 4 formula"
                read += 1
                problems += [f"{where}: {p}" for p in page.evaluate(SCREEN_CHECKS) if p.startswith("formula")]
                problems += [f"{where}: broken after a relation: {b}" for b in page.evaluate(BROKEN_TERMS)]
                problems += [
                    f"{where}: a vector broken across lines: {line}"
                    for line in lines
                    if line.count("[") != line.count("]") or line.count("(") != line.count(")")
                ]
    assert read == 2 * 2 * len(STEP_4_VIEWS)
    assert not problems, "\n".join(problems)


TWO_LINE_TITLES = ["real_model", "after_attention", f"step_by_step?step={STEPS.index('softmax') + 1}"]
"""Pages whose charts' titles take two lines in presentation mode's larger type at 1024 px: the
72-head grid (its head numbers on the plot's top edge), the six layers' vectors, a row's bars."""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_in_presentation_mode_a_two_line_chart_title_runs_into_nothing(views, server, lang):
    """``margins.fit_margins`` sets each title at the chart's top with a top margin for its lines at
    their size and what stands on the plot's edge: on the old margins (a title's baseline in the
    middle of the top margin, 20 px a line at the screen's size) the grid's two-line title ran
    10 px into "head 1 2 3 …" and the layers' chart's into its plot."""
    page = views("projector")
    problems = []
    for url in TWO_LINE_TITLES:
        page.goto(
            server
            + url
            + ("&" if "?" in url else "?")
            + f"present=true&lang={lang}&sentence={SENTENCE.replace(' ', '+')}"
        )
        wait_for_app(page, settle=200)
        no_exception(page)
        titles = page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].map(t => t.textContent)"
        )
        assert titles, f"{url}: no chart title"
        problems += [f"{url}: {p}" for p in page.evaluate(SCREEN_CHECKS)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("view", ["table", "chart"])
def test_a_13_token_weights_matrix_prints_all_169_numbers(tab, server, view):
    """The table, and the interactive chart at 1400 px: every number printed in its cell."""
    page = tab()
    sentence = "the cat sat on the mat and the dog lay down"  # 11 words, 13 tokens with [CLS] and [SEP]
    chart = "&chart=true" if view == "chart" else ""
    page.goto(server + f"matrices?matrix=weights{chart}&sentence={sentence.replace(' ', '+')}")
    wait_for_app(page)
    cells = (
        f".{MATRIX_CLASS}-box:not(.print-only) > .{MATRIX_CLASS}-wrap tbody td" if view == "table" else ".heatmap-label"
    )
    numbers = page.evaluate(
        """(cells) => [...document.querySelectorAll(cells)]
                  .filter(t => getComputedStyle(t).display !== 'none' && t.getBoundingClientRect().width > 0)
                  .map(t => t.textContent)""",
        cells,
    )
    assert len(numbers) == 169 and all(n.startswith("0.") or n == "1.00" for n in numbers), numbers[:20]


def test_on_a_phone_the_sidebar_closes_after_a_page_is_picked(views, server):
    """On a phone the sidebar lies over the page: a tap on a page link opens the page and folds
    the sidebar away (``style.SIDEBAR_SCRIPT``), so the learner sees the page they picked."""
    from playwright.sync_api import expect

    page = views("phone")
    page.goto(server + "?lang=en")
    wait_for_app(page, settle=200)
    sidebar = page.locator(internals.testid("stSidebar"))
    if sidebar.get_attribute("data-collapsed") == "true":
        page.locator(internals.testid("stExpandSidebarButton")).click()
    expect(sidebar).to_have_attribute("data-collapsed", "false")  # open, over the page
    page.locator(f'{internals.testid("stSidebar")} {internals.testid("stPageLink")} a[href*="matrices"]').first.click()
    page.wait_for_url("**/matrices*")
    wait_for_app(page, settle=200)
    expect(sidebar).to_have_attribute("data-collapsed", "true", timeout=5_000)  # folded away after the tap
    assert page.locator("h1").first.inner_text().startswith("Attention matrices")  # the page picked
