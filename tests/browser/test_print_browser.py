"""Handouts (issue 43, item 5): Attention matrices printed on A4 in Chromium, a short sentence and
a long one (a window of 24 word pieces over 32), English and Chinese.

* ``page.pdf(format="A4")``, Chromium's own print path, gives exactly one sheet: no blank second
  sheet (the old print had one, with only the "Interactive chart" toggle on it, and a long
  sentence's matrix on sheet 2 under the window slider).
* Laid out with the print style sheet (``emulate_media(media="print")``) at an A4 page's printable
  width: none of Streamlit's controls or its frame shows (the slider and the toggle are in the page,
  hidden), the matrix lies wholly inside the first sheet's height, under the sentence, and no cell
  has a dark fill: every cell's background is light and its number near black.
* What do heads do? (its census: the 72 heads and the two tables of heads) prints on one A4 sheet,
  short sentence or long, English or Chinese: the tables side by side, no head pickers, page links
  or download menu, and no empty box of one left as a gap (at 1,576 px it took two sheets).
* Other pages print no controls either (the style sheet is every page's).

The sheets are counted in the PDF itself, in two ways that must agree: the page objects
(``/Type /Page``) and the page tree's ``/Count`` (Chromium's PDF writer keeps both in plain,
uncompressed dictionaries; no PDF library needed).
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

from attention_ui import internals
from attention_ui.i18n import translate
from attention_ui.style import PRINT_CHROME, PRINT_HEIGHT_PX, PRINT_WIDTH_PX
from attention_ui.tables import MATRIX_CLASS, TABLE_CLASS
from harness import no_exception, wait_for_app

pytestmark = pytest.mark.browser

SHORT = "The cat sat on the mat because it was tired"
LONG = (
    "The quick brown fox jumps over the lazy dog while the small cat sleeps nearby and the old "
    "farmer walks slowly home across the wide green field before the evening rain begins"
)
SENTENCES = pytest.mark.parametrize(
    ("lang", "sentence"),
    [("en", SHORT), ("en", LONG), ("zh", SHORT), ("zh", LONG)],
    ids=["en-short", "en-long", "zh-short", "zh-long"],
)
"""A handout's four cases: a short sentence and a long one, English and Chinese."""
LIGHTEST_PRINTED_FILL = 0.45
"""The darkest cell background a handout may have (relative luminance): the screen's dark cells
(white numbers, ``tables.DARK_BACKGROUND``) lie below it."""


def sheets(pdf: bytes) -> int:
    """The number of pages of a PDF Chromium wrote: its page objects, checked against the root
    page tree's ``/Count``.

    >>> sheets(b"1 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 >> endobj 2 0 obj << /Type /Page >> endobj")
    1
    """
    pages = len(re.findall(rb"/Type\s*/Page(?![A-Za-z])", pdf))
    trees = [obj for obj in re.split(rb"endobj", pdf) if re.search(rb"/Type\s*/Pages\b", obj)]
    counts = [int(m.group(1)) for obj in trees if (m := re.search(rb"/Count\s+(\d+)", obj))]
    assert counts and max(counts) == pages, (pages, counts)
    return pages


# In the print layout: which controls and frame elements are in the page and which show; where the
# handout's sentence and the matrix lie; each printed cell's background and number colour.
SELECTORS = [
    {name: internals.testid(name) for name in internals.CONTROLS},
    {name: internals.testid(name) for name in PRINT_CHROME},
]
"""The controls and the frame a printed page leaves out, by name: the argument of ``PRINT_LAYOUT_JS``."""
PRINT_LAYOUT_JS = f"""([controls, chrome]) => {{
  const shows = e => e.checkVisibility() && e.getBoundingClientRect().height > 0;
  const found = named => Object.fromEntries(Object.entries(named).map(([n, selector]) => {{
    const all = [...document.querySelectorAll(selector)];
    return [n, [all.length, all.filter(shows).length]];
  }}));
  const table = [...document.querySelectorAll('.{MATRIX_CLASS}-wrap')].find(shows);
  const handout = [...document.querySelectorAll('.handout')].find(shows);
  // rgb(r, g, b) in 0–255, or color(srgb r g b) in 0–1 (what a color-mix() computes to)
  const rgb = s => (s.match(/[\\d.]+/g) || []).slice(0, 3).map(Number).map(v => s.startsWith('color(') ? v * 255 : v);
  const cells = table ? [...table.querySelectorAll('tbody td')].map(td => {{
    const cs = getComputedStyle(td);
    return [rgb(cs.backgroundColor), rgb(cs.color), td.textContent];
  }}) : [];
  const box = e => e && e.getBoundingClientRect();
  return {{
    controls: found(controls), chrome: found(chrome), cells,
    table: table && {{top: box(table).top + scrollY, bottom: box(table).bottom + scrollY}},
    handout: handout && {{bottom: box(handout).bottom + scrollY, text: handout.textContent}},
    width: document.documentElement.scrollWidth,
    paper: [document.body, document.querySelector('{internals.testid("stApp")}')]
      .map(e => rgb(getComputedStyle(e).backgroundColor)),
    ink: rgb(getComputedStyle(document.querySelector('{internals.testid("stMain")} h1')).color),
    text: document.querySelector('{internals.testid("stMain")}').innerText,
  }};
}}"""


def luminance(rgb) -> float:
    """WCAG relative luminance of an (r, g, b) colour, 0–255 channels."""
    linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _visible(found: dict) -> dict:
    return {name: shown for name, (_, shown) in found.items() if shown}


def choose_dark_in_streamlit_s_menu(page) -> None:
    """The learner's own choice of the dark theme in Streamlit's main menu (⋮ → the moon), which
    the system's ``prefers-color-scheme`` does not see."""
    page.locator(internals.testid("stMainMenuButton")).click()
    themes = page.locator(internals.testid("stMainMenuList")).get_by_role("menuitemradio")
    assert themes.count() == 3  # System, Light, Dark: icons, in this order
    themes.nth(2).click()
    page.keyboard.press("Escape")
    page.wait_for_timeout(500)


def _on_screen_and_printed(
    tab, url: str, *, menu_dark: bool = False, also: str | None = None, **options
) -> tuple[dict, dict, bytes]:
    """Open ``url`` at 1400 px (a browser context made with ``options``; with ``menu_dark`` the
    dark theme chosen in Streamlit's menu): what the page shows on screen, then in Chromium's
    print to an A4 PDF, then laid out with the print media at the printable width
    (``PRINT_LAYOUT_JS`` each). A browser's print tells the page first (``beforeprint``), which
    ``page.pdf`` does not: the test says it, as the browser does."""
    page = tab(viewport={"width": 1400, "height": 900}, timeout=90_000, **options)
    try:
        page.goto(url)
        wait_for_app(page)
        no_exception(page)
        if menu_dark:
            choose_dark_in_streamlit_s_menu(page)
        screen = page.evaluate(PRINT_LAYOUT_JS, SELECTORS)
        page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
        pdf = page.pdf(format="A4")  # Chromium's print: the print media and the @page margins
        page.emulate_media(media="print")
        page.set_viewport_size({"width": PRINT_WIDTH_PX, "height": PRINT_HEIGHT_PX})
        page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
        printed = page.evaluate(PRINT_LAYOUT_JS, SELECTORS)
        if also:  # more to read of the print layout, under "also"
            printed["also"] = page.evaluate(also)
    finally:
        page.context.close()  # not given back: its media stays print
    return screen, printed, pdf


@SENTENCES
def test_attention_matrices_print_on_one_a4_sheet_without_controls(tab, server, lang, sentence):
    url = server + f"matrices?lang={lang}&sentence={urllib.parse.quote_plus(sentence)}"
    screen, printed, pdf = _on_screen_and_printed(tab, url)
    # what the test looks for is on the page: the toggle (and the long sentence's slider), dark cells
    assert screen["controls"]["stCheckbox"][1] >= 1, screen["controls"]
    if sentence == LONG:
        assert screen["controls"]["stSlider"][1] == 1, "no window slider: the long sentence is not long"
        move = translate(lang, "shell.window_move")  # how to use the slider: on screen, not on paper
        assert move in screen["text"] and move not in printed["text"]
    assert min(luminance(bg) for bg, _, _ in screen["cells"]) < LIGHTEST_PRINTED_FILL
    # one sheet: no blank page, the matrix not pushed to a second
    assert pdf.startswith(b"%PDF")
    assert sheets(pdf) == 1
    # nothing to click, no sidebar or header
    assert not _visible(printed["controls"]), _visible(printed["controls"])
    assert not _visible(printed["chrome"]), _visible(printed["chrome"])
    # the sentence on top, then the whole matrix inside the first sheet, no wider than the page
    assert printed["handout"] is not None and sentence in printed["handout"]["text"]
    table = printed["table"]
    assert table is not None, "no matrix in print"
    assert printed["handout"]["bottom"] <= table["top"] < table["bottom"] <= PRINT_HEIGHT_PX, (
        printed["handout"],
        table,
    )
    assert printed["width"] <= PRINT_WIDTH_PX
    # a light scale: every fill light, every number near black, the numbers the screen showed
    assert [text for _, _, text in printed["cells"]] == [text for _, _, text in screen["cells"]]
    assert min(luminance(bg) for bg, _, _ in printed["cells"]) >= LIGHTEST_PRINTED_FILL
    assert max(luminance(colour) for _, colour, _ in printed["cells"]) < 0.05
    shaded = {tuple(bg) for bg, _, _ in printed["cells"]}
    assert len(shaded) >= 3, "the print scale lost the pattern of the weights"


CONTENT_JS = f"""() => {{
  const main = document.querySelector('{internals.testid("stMain")}');
  const shown = e => e.checkVisibility() && e.getBoundingClientRect().height > 0;
  const boxes = [...main.querySelectorAll('{internals.testid("stElementContainer")}')].filter(shown)
    .map(e => e.getBoundingClientRect());
  const tables = [...main.querySelectorAll('.{TABLE_CLASS}-wrap')].filter(shown).map(e => e.getBoundingClientRect())
    .map(r => ({{top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right}}));
  return {{bottom: Math.max(...boxes.map(r => r.bottom)) + scrollY, tables,
           block: main.querySelector('{internals.testid("stMainBlockContainer")}').getBoundingClientRect().height}};
}}"""
"""Where the printed page's content ends (its last box, and the whole column with its gaps) and
where its tables lie."""


@SENTENCES
def test_what_do_heads_do_prints_on_one_a4_sheet(tab, server, lang, sentence):
    url = server + f"heads?lang={lang}&sentence={urllib.parse.quote_plus(sentence)}"
    screen, printed, pdf = _on_screen_and_printed(tab, url, also=CONTENT_JS)
    content = printed["also"]
    # on screen: the head pickers, the view switch, the measure, the page links, the download menu
    assert {"stButtonGroup", "stPageLink", "stPopover"} <= set(_visible(screen["controls"]))
    assert sheets(pdf) == 1
    assert not _visible(printed["controls"]), _visible(printed["controls"])
    assert not _visible(printed["chrome"]), _visible(printed["chrome"])
    # nothing cut: the whole column within the sheet, no wider than it; the two tables side by side
    assert content["bottom"] <= content["block"] <= PRINT_HEIGHT_PX, content
    assert printed["width"] <= PRINT_WIDTH_PX
    best, reversed_ = content["tables"]
    beside = best["top"] < reversed_["bottom"] and reversed_["top"] < best["bottom"]  # titles may wrap apart
    assert beside and best["right"] <= reversed_["left"], content["tables"]
    assert translate(lang, "heads.h_bench") in printed["text"]


@pytest.mark.parametrize("path", ["step_by_step", "heads", "tailor_shop", "learn"])
def test_other_pages_print_no_controls(tab, server, path):
    screen, printed, _ = _on_screen_and_printed(tab, server + f"{path}?sentence={urllib.parse.quote_plus(SHORT)}")
    assert _visible(screen["controls"]), f"{path} shows no control on screen: the check below proves nothing"
    assert not _visible(printed["controls"]), _visible(printed["controls"])
    if path == "step_by_step":  # a remote's keys: on screen, not on paper
        keys = translate("en", "step_by_step.keys_help")
        assert keys in screen["text"] and keys not in printed["text"]
    assert not _visible(printed["chrome"]), _visible(printed["chrome"])


@pytest.mark.parametrize("chosen", ["system", "menu"])
def test_a_dark_theme_prints_dark_ink_on_white_paper(tab, server, chosen):
    """A learner whose system is dark, or who chose the dark theme in Streamlit's own menu on a
    light system, sees the dark theme; the handout is still white paper with dark ink and the
    light cells (no sheet of solid black toner)."""
    url = server + f"matrices?sentence={urllib.parse.quote_plus(SHORT)}"
    if chosen == "system":
        screen, printed, pdf = _on_screen_and_printed(tab, url, color_scheme="dark")
    else:
        screen, printed, pdf = _on_screen_and_printed(tab, url, color_scheme="light", menu_dark=True)
    assert luminance(screen["paper"][1]) < 0.05 and luminance(screen["ink"]) > 0.5  # the dark theme on screen
    assert sheets(pdf) == 1
    assert all(luminance(paper) > 0.95 for paper in printed["paper"]), printed["paper"]
    assert luminance(printed["ink"]) < 0.05, printed["ink"]
    assert min(luminance(bg) for bg, _, _ in printed["cells"]) >= LIGHTEST_PRINTED_FILL


@SENTENCES
def test_real_model_heads_prints_on_two_a4_sheets_at_most(tab, server, lang, sentence):
    """Real model heads printed on 3 A4 sheets (2,100–2,390 px laid out for print, 1,032 px a
    sheet). Now at most 2, the 72 heads and the chosen head's weights on them, and nothing to
    click: no head pickers, views, token picker, the PyTorch check's button or download menus."""
    url = server + f"real_model?lang={lang}&sentence={urllib.parse.quote_plus(sentence)}"
    screen, printed, pdf = _on_screen_and_printed(tab, url, also=CONTENT_JS)
    content = printed["also"]
    assert {"stButton", "stButtonGroup", "stPopover"} <= set(_visible(screen["controls"]))
    assert sheets(pdf) <= 2, content
    assert content["bottom"] <= content["block"] <= 2 * PRINT_HEIGHT_PX, content
    assert not _visible(printed["controls"]), _visible(printed["controls"])
    assert not _visible(printed["chrome"]), _visible(printed["chrome"])
    assert printed["width"] <= PRINT_WIDTH_PX
    assert printed["table"] is not None, "the head's weights are not printed"
    assert translate(lang, "real_model.h_grid", n=72) in printed["text"]
