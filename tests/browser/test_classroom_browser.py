"""The classroom screen (issue 31) in Chromium: what a projector, a printed handout and a phone
show of a 15-word sentence (17 word pieces on the default trained head).

* Presentation mode at 1024 × 768 (the sidebar folded away): the weights matrix prints every
  number, the core's α̂_ij to 2 places, at 12 px or more, each cell inside the screen's width;
  its row and column labels are as large as its numbers.
* Printing Attention matrices on A4 (``page.pdf``, and the layout at the page's printable width
  with the print style sheet): no sidebar or buttons, the sentence on top, the whole matrix
  with all its numbers inside the page.
* A phone (390 × 844): the column labels of step 4's charts and of the weights matrix never run
  into each other (tilted ones measured across their slant), and a bar's value is either hidden
  or at least 11 px.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import LessonSettings, build_lesson
from attention_core.model import ModelEmbedder
from attention_ui import internals
from attention_ui.style import PRINT_WIDTH_PX
from attention_ui.tables import MATRIX_CLASS
from attention_ui.vector_figures import MIN_TEXT_PX
from harness import no_exception, wait_for_app

pytestmark = pytest.mark.browser

SENTENCE = "The quick brown fox jumps over the lazy dog while the small cat sleeps nearby"
QUERY = f"sentence={SENTENCE.replace(' ', '+')}"
MIN_PROJECTOR_PX = 12
"""The smallest number a room reads off a 1024 × 768 projector (issue 31)."""


@pytest.fixture(scope="module")
def weights() -> np.ndarray:
    """The core's weights for the sentence on the app's default head."""
    lesson = build_lesson(SENTENCE, ModelEmbedder(), LessonSettings(projection="trained"))
    assert len(lesson.tokens) == 17
    return np.asarray(lesson.trace.weights)  # (T, T)


def _page(tab, width: int, height: int, phone: bool = False):
    return tab(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone, timeout=90_000)


# What a matrix drawn as a table shows: per cell its text, font size and box; the labels' font sizes;
# the width of the frame it sits in.
READ_TABLE_JS = f"""(box) => {{
  const wrap = [...document.querySelectorAll(box + ' .{MATRIX_CLASS}-wrap')]
    .find(w => w.getBoundingClientRect().width > 0 && !w.classList.contains('cm-spotlight'));
  if (!wrap) return null;
  const px = e => parseFloat(getComputedStyle(e).fontSize);
  const rows = [...wrap.querySelectorAll('tbody tr')].map(tr => [...tr.querySelectorAll('td')].map(td => {{
    const r = td.getBoundingClientRect();
    return {{text: td.textContent, px: px(td), left: r.left, right: r.right, fits: td.scrollWidth <= td.clientWidth}};
  }}));
  return {{
    rows,
    rowLabelPx: [...wrap.querySelectorAll('th[scope=row]')].map(px),
    colLabelPx: [...wrap.querySelectorAll('th[scope=col]')].map(px),
    frame: wrap.getBoundingClientRect().toJSON(),
    scrolls: wrap.scrollWidth > wrap.clientWidth + 1,
  }};
}}"""


def _check_numbers(table: dict, weights: np.ndarray, *, min_px: float, right: float) -> None:
    shown = [[cell["text"] for cell in row] for row in table["rows"]]
    assert shown == [[f"{x:.2f}" for x in row] for row in weights.tolist()]
    cells = [cell for row in table["rows"] for cell in row]
    assert min(cell["px"] for cell in cells) >= min_px, min(cell["px"] for cell in cells)
    assert all(cell["fits"] for cell in cells), "a number is cut inside its cell"
    assert max(cell["right"] for cell in cells) <= right + 0.5 and min(cell["left"] for cell in cells) >= 0
    assert not table["scrolls"], "the matrix scrolls sideways: some columns are off screen"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_presentation_at_1024_prints_every_weight_at_12px_or_more(tab, server, weights, lang):
    page = _page(tab, 1024, 768)
    page.goto(server + f"matrices?present=true&lang={lang}&{QUERY}")
    wait_for_app(page)
    no_exception(page)
    sidebar = page.locator(internals.testid("stSidebar"))
    assert sidebar.get_attribute("data-collapsed") == "true" or not sidebar.is_visible()
    table = page.evaluate(READ_TABLE_JS, "")
    assert table is not None, "no matrix drawn as a table in presentation mode"
    _check_numbers(table, weights, min_px=MIN_PROJECTOR_PX, right=1024)
    number_px = table["rows"][0][0]["px"]
    assert min(table["rowLabelPx"] + table["colLabelPx"]) >= number_px  # labels as large as the numbers
    print(f"\n{lang}: the numbers at {number_px:.1f} px, the matrix {table['frame']['width']:.0f} px wide")


@pytest.mark.parametrize("view", ["table", "chart"])
def test_printed_on_a4_the_matrix_has_every_number_and_no_sidebar(tab, server, weights, view):
    """The handout: the print style sheet laid out at an A4 page's printable width (what
    Chromium's print does), then ``page.pdf`` on A4 for the real print path. The page's table
    prints as it is; the interactive chart prints as its table."""
    page = _page(tab, PRINT_WIDTH_PX, 1000)
    page.goto(server + f"matrices?{QUERY}" + ("&chart=true" if view == "chart" else ""))
    wait_for_app(page)
    page.emulate_media(media="print")
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    seen = page.evaluate(
        f"""() => {{
      const shown = e => !!e && getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().width > 0;
      const all = s => [...document.querySelectorAll(s)];
      return {{
        sidebar: all('{internals.testid("stSidebar")}').some(shown),
        buttons: all('{internals.BUTTON}, {internals.testid("stButtonGroup")}').some(shown),
        charts: all('{internals.testid("stPlotlyChart")}').filter(shown).length,
        handout: all('.handout').filter(shown).map(e => e.textContent),
        pageWidth: document.documentElement.scrollWidth,
      }};
    }}"""
    )
    table = page.evaluate(READ_TABLE_JS, ".print-only" if view == "chart" else "")
    pdf = page.pdf(format="A4", print_background=True)
    page.context.close()
    assert not seen["sidebar"] and not seen["buttons"], seen
    assert seen["charts"] == 0, "the heatmap prints instead of its table"
    assert len(seen["handout"]) == 1 and SENTENCE in seen["handout"][0]
    assert seen["pageWidth"] <= PRINT_WIDTH_PX, seen["pageWidth"]
    assert table is not None, "no table in print"
    _check_numbers(table, weights, min_px=7, right=PRINT_WIDTH_PX)
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    print(f"\nprint: numbers at {table['rows'][0][0]['px']:.1f} px in a {table['frame']['width']:.0f} px wide matrix")


# Step 4 on a phone: the visible x tick labels of each chart (text, box, font size, angle) and the
# values printed on bars, found as the SVG texts that read as a bar's text (font size times the
# scale Plotly draws them at, and whether shown).
PHONE_JS = f"""() => [...document.querySelectorAll('{internals.PLOT}')].map(plot => {{
  const title = ((plot.layout || {{}}).title || {{}}).text || '';
  const ticks = [...plot.querySelectorAll('{internals.X_AXIS_LAYER} text')]
    .filter(t => getComputedStyle(t).display !== 'none' && t.getBoundingClientRect().width > 0)
    .map(t => {{
      const r = t.getBoundingClientRect();
      const angle = /rotate\\((-?[\\d.]+)/.exec(t.getAttribute('transform') || '');
      return {{text: t.textContent, x: (r.left + r.right) / 2, left: r.left, right: r.right,
               px: parseFloat(getComputedStyle(t).fontSize), angle: angle ? Math.abs(+angle[1]) : 0}};
    }});
  const barTexts = new Set((plot.data || []).filter(d => d.type === 'bar' && d.text).flatMap(d => [...d.text]));
  const values = [...plot.querySelectorAll('text')].filter(t => barTexts.has(t.textContent)).map(t => {{
    const scale = /scale\\(([\\d.]+)/.exec(t.getAttribute('transform') || '');
    const shown = getComputedStyle(t).display !== 'none' && t.getBoundingClientRect().height > 0;
    return {{px: parseFloat(getComputedStyle(t).fontSize) * (scale ? +scale[1] : 1), shown}};
  }});
  return {{title, ticks, values}};
}})"""


def _overlaps(ticks: list[dict]) -> list[str]:
    """Neighbouring tick labels that run into each other: flat ones side by side, tilted ones
    across their slant (the distance between their parallel baselines under one line's height)."""
    found = []
    for a, b in zip(ticks, ticks[1:]):
        if a["angle"] == 0 and b["angle"] == 0:
            if a["right"] > b["left"] + 0.5:
                found.append(f"{a['text']} | {b['text']}")
        elif abs(b["x"] - a["x"]) * np.sin(np.radians(a["angle"])) < a["px"] * 1.1:
            found.append(f"{a['text']} / {b['text']}")
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_step_4_labels_never_meet_and_values_are_11px_or_hidden(tab, server, lang):
    page = _page(tab, 390, 844, phone=True)
    page.goto(server + f"step_by_step?step=4&lang={lang}&{QUERY}")
    wait_for_app(page)
    no_exception(page)
    charts = page.evaluate(PHONE_JS)
    assert len(charts) >= 2
    problems = [f"{chart['title']}: {pair}" for chart in charts for pair in _overlaps(chart["ticks"])]
    assert not problems, problems
    values = [value for chart in charts for value in chart["values"]]
    assert values, "no bar values"
    assert all(value["px"] >= MIN_TEXT_PX for value in values if value["shown"]), values
    print(f"\n{lang}: {sum(v['shown'] for v in values)} of {len(values)} bar values shown on the phone")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_the_weights_matrix_is_legible_as_a_table_and_as_a_chart(tab, server, weights, lang):
    """The table prints every number at 11 px or more (it scrolls sideways, with its cue, where
    17 columns do not fit 390 px); the interactive chart's key labels never meet."""
    page = _page(tab, 390, 844, phone=True)
    page.goto(server + f"matrices?lang={lang}&{QUERY}")
    wait_for_app(page)
    no_exception(page)
    table = page.evaluate(READ_TABLE_JS, "")
    assert table is not None, "no weights table"
    assert [[cell["text"] for cell in row] for row in table["rows"]] == [
        [f"{x:.2f}" for x in row] for row in weights.tolist()
    ]
    cells = [cell for row in table["rows"] for cell in row]
    assert (
        min(cell["px"] for cell in cells + [{"px": px} for px in table["rowLabelPx"] + table["colLabelPx"]])
        >= MIN_TEXT_PX
    )
    assert all(cell["fits"] for cell in cells), "a number is cut inside its cell"
    page.goto(server + f"matrices?lang={lang}&chart=true&{QUERY}")
    wait_for_app(page)
    no_exception(page)
    (chart,) = page.evaluate(PHONE_JS)
    assert 3 <= len(chart["ticks"]) < 17 and not _overlaps(chart["ticks"]), chart["ticks"]
    assert chart["ticks"][0]["text"] == "1: [CLS]"  # the thinned labels start with the first key
