"""Browser canaries for what attention_ui/internals.py copied from Streamlit, Plotly and Chromium
that only a browser can tell (the rest: tests/test_internals.py).

One page (tests/browser/probe_app.py) holds a chart Streamlit themes itself and one drawn
through the app's chart pipeline. Each test fails with a message naming the value that moved.
"""

from __future__ import annotations

import json

import pytest

from attention_ui import internals
from harness import streamlit_server, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CHANGED = f"(internals.py was checked with {internals.CHECKED_WITH}) "
TRANSPARENT = {"transparent", "rgba(0,0,0,0)"}

THEIR_TEMPLATE_JS = """() => JSON.stringify(
  document.querySelector('.st-key-streamlit_theme .js-plotly-plot').layout.template.layout)"""

GLYPHS_JS = """async (chars) => {
  await document.fonts.load('100px "Source Sans"');
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  document.body.appendChild(svg);
  const out = {};
  for (const ch of chars) {
    const text = document.createElementNS(ns, 'text');
    text.setAttribute('style', 'font-family: "Source Sans", sans-serif; font-size: 100px; white-space: pre;');
    text.textContent = ch;
    svg.appendChild(text);
    out[ch] = text.getComputedTextLength() / 100;
  }
  svg.remove();
  return out;
}"""


@pytest.fixture(scope="module")
def probe():
    with streamlit_server(app="tests/browser/probe_app.py") as srv:
        yield srv.url


def _open(tab, url: str, scheme: str = "light"):
    page = tab(color_scheme=scheme, timeout=90_000)
    page.goto(url)
    wait_for_app(page, settle=500)
    page.wait_for_function(  # Streamlit puts its theme into the chart after drawing it
        "() => document.querySelector('.st-key-streamlit_theme .js-plotly-plot')?.layout?.template?.layout"
    )
    return page


def leaves(tree: dict, path: str = ""):
    """(path, value) of every leaf of a nested dict."""
    for name, value in tree.items():
        if isinstance(value, dict):
            yield from leaves(value, f"{path}.{name}")
        else:
            yield f"{path}.{name}".lstrip("."), value


def at(tree: dict, path: str):
    for name in path.split("."):
        tree = tree.get(name) if isinstance(tree, dict) else None
    return tree


OURS = {
    "": internals.LAYOUT,
    "xaxis": internals.AXES["x"],
    "yaxis": internals.AXES["y"],
    "coloraxis": internals.COLORAXIS,
}
"""Our copy, by where Streamlit's template layout holds each part."""
RENAMED = {"color": "tickcolor"}
"""An axis' tick colour: Streamlit sets ``tickcolor`` (which turns tick marks on everywhere); we set
``color``, which colours them only where Plotly draws some."""


def differences(theirs: dict, dark: bool) -> list[str]:
    """Where our copy (mapped to the dark theme's colours when ``dark``) and Streamlit's differ."""
    found = []
    for where, part in OURS.items():
        for path, ours in leaves(part):
            their_path = RENAMED.get(path, path) if where in ("xaxis", "yaxis") else path
            value = at(theirs, f"{where}.{their_path}".lstrip("."))
            if isinstance(ours, list):
                if dark:
                    continue  # our charts name their own colour scales; the dark theme reverses its own
                expected, value = json.loads(json.dumps(ours)), json.loads(json.dumps(value))
            else:
                expected = internals.DARK.get(ours, ours) if dark else ours
            if isinstance(expected, str) and {expected, value} <= TRANSPARENT:
                continue
            if value != expected:
                found.append(f"{where or 'layout'}.{path}: we copied {expected!r}, Streamlit gives {value!r}")
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_copied_theme_is_the_one_streamlit_gives_its_charts(tab, probe, scheme):
    page = _open(tab, probe, scheme)
    theirs = json.loads(page.evaluate(THEIR_TEMPLATE_JS))
    found = differences(theirs, dark=scheme == "dark")
    assert not found, (
        CHANGED
        + f"Streamlit's {scheme} chart theme moved; update internals.LAYOUT/AXES/COLORAXIS"
        + (" (and DARK)" if scheme == "dark" else "")
        + ":\n"
        + "\n".join(found)
    )


def test_chromium_writes_plotly_s_colours_as_the_dark_rules_expect(tab, probe):
    """``style.chart_dark_rules`` finds what Plotly drew in a light colour by its inline style, as
    Chromium writes it (``internals.styled``)."""
    page = _open(tab, probe)
    found = page.evaluate(
        """(selectors) => selectors.map((s) => !!document.querySelector('[class*="st-key-fig_"] ' + s))""",
        [
            f"text{internals.styled('fill', internals.TEXT)}",
            f"text{internals.styled('fill', internals.TITLE)}",
            f".main-svg{internals.styled('background', internals.PAPER)}",
            f"rect.bg{internals.styled('fill', internals.PAPER)}",  # a legend's box
        ],
    )
    assert all(found), CHANGED + (
        "Chromium (or Plotly) no longer writes a drawn colour as 'fill: rgb(r, g, b)' in the style attribute "
        f"(found {found} for tick text, title, paper, legend box): the dark theme's chart colours "
        "(style.chart_dark_rules) match that text; see internals.styled."
    )


def test_the_glyph_widths_are_source_sans_as_chromium_draws_it(tab, probe):
    """Each letter's table width (``internals.TEXT_EM``, rounded up to its group's widest) is never
    less than Chromium draws it, and no group is much wider than its widest letter."""
    page = _open(tab, probe)
    chars = [*internals.TEXT_EM, "中", "文", "\u0302"]
    drawn = page.evaluate(GLYPHS_JS, chars)
    short = [
        f"{ch!r}: drawn {drawn[ch]:.3f} em > {em} em" for ch, em in internals.TEXT_EM.items() if drawn[ch] > em + 0.002
    ]
    groups: dict[float, float] = {}
    for ch, em in internals.TEXT_EM.items():
        groups[em] = max(groups.get(em, 0.0), drawn[ch])
    loose = [
        f"group {em} em: its widest letter is {widest:.3f} em" for em, widest in groups.items() if em - widest > 0.07
    ]
    cjk = [f"{ch!r}: {drawn[ch]:.3f} em" for ch in "中文" if abs(drawn[ch] - internals.WIDE_EM) > 0.02]
    assert not (short or loose or cjk) and drawn["\u0302"] == 0, CHANGED + (
        "The chart font's letters changed width (Streamlit's font, or Chromium's drawing of it): update "
        "internals.TEXT_EM, WIDE_EM:\n" + "\n".join(short + loose + cjk)
    )


X_LABELS_JS = """(layer) => [...document.querySelectorAll('.st-key-fig_ours ' + layer + ' > g')]
  .map(g => [...g.querySelectorAll('text')].map(t => t.textContent))"""


def test_each_x_label_is_its_own_group_in_plotly_s_axis_layer(tab, probe):
    """The phone's label thinning (style._thin_phone_ticks) hides the text of every group but
    each n-th, counted with :nth-of-type among the axis layer's groups: it needs one ``g`` per
    tick label, in order, as direct children of ``internals.X_AXIS_LAYER``."""
    page = _open(tab, probe)
    groups = page.evaluate(X_LABELS_JS, internals.X_AXIS_LAYER)
    assert groups == [["c"], ["d"]], CHANGED + (
        f"Plotly no longer draws each x tick label as its own <g> under {internals.X_AXIS_LAYER} "
        f"(found {groups}): the phone's label thinning in style.py hides the wrong labels. Find how the "
        "labels are grouped now and change _thin_phone_ticks and internals.X_AXIS_LAYER."
    )


def test_each_bar_value_sits_in_its_own_point_in_order(tab, probe):
    """A phone hides some printed bar values (style.chart_box_css, ``phone_values``) with
    ``internals.BAR_VALUE``: the n-th ``g.point`` of a bar trace holds bar n's ``.bartext``."""
    page = _open(tab, probe)
    texts = page.evaluate(
        "(selectors) => selectors.map(s => document.querySelector('.st-key-fig_bars ' + s)?.textContent ?? null)",
        [internals.BAR_VALUE.format(n=n) for n in (1, 2)],
    )
    assert texts == ["25.0%", "75.0%"], CHANGED + (
        f"Plotly no longer draws bar n's value as {internals.BAR_VALUE} (found {texts}): a phone hides the "
        "wrong values. Find how bar texts are drawn now and change internals.BAR_VALUE."
    )
