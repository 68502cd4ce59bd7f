"""Canaries for what the app assumes about Streamlit's and Plotly's insides (attention_ui/internals.py).

Each test reads the installed package (or the frontend bundle Streamlit serves) and fails with a
message that names the assumption, the value and what to do, so that an upgrade which changes
one breaks this file and not, silently, the look of every chart. What only a browser can tell
(the theme Streamlit gives its own charts, the width of its font's letters, how Chromium writes
Plotly's colours) is checked in tests/browser/test_internals_browser.py.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.metadata import version
from pathlib import Path

import pytest
import streamlit
from streamlit.testing.v1 import AppTest

from attention_ui import internals

STATIC_JS = Path(streamlit.__file__).parent / "static" / "static" / "js"
UPGRADE = (
    "Streamlit {streamlit} / Plotly {plotly} are installed; attention_ui/internals.py was checked with "
    f"{internals.CHECKED_WITH}. "
)


def _versions() -> dict:
    return {name: version(name) for name in internals.CHECKED_WITH}


def _upgrade() -> str:
    return UPGRADE.format(**_versions())


@cache
def bundle(pattern: str = "*.js") -> str:
    """The text of Streamlit's frontend files that match ``pattern`` (minified JavaScript)."""
    files = sorted(STATIC_JS.glob(pattern))
    assert files, f"no {pattern} under {STATIC_JS}: Streamlit's frontend moved; find its bundle and fix STATIC_JS"
    return "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in files)


def test_the_installed_versions_are_the_ones_checked():
    """A gate, not a check of a value: after an upgrade, run this file and the browser canaries,
    fix what they name, then write the new versions into ``internals.CHECKED_WITH``."""
    assert _versions() == internals.CHECKED_WITH, _upgrade() + (
        "Run tests/test_internals.py and tests/browser/test_internals_browser.py, then update CHECKED_WITH."
    )


@pytest.mark.parametrize("name", internals.TEST_IDS)
def test_each_data_testid_the_app_names_is_in_streamlit_s_frontend(name):
    """Each name as a string of the bundle, or the start of a template (``stAlertContent${kind}``)."""
    text = bundle()
    assert re.search(rf"[`\"']{name}([`\"']|\$\{{)", text), _upgrade() + (
        f'Streamlit\'s frontend no longer names an element data-testid="{name}": the style sheets, the '
        "sentence box, the waiting note, the browser tests or the benches select it (grep for testid). Find its "
        "new name in the page and change TEST_IDS."
    )


SELECTING = ("tests", "bench", "scripts", "harness")
"""The folders whose code selects Streamlit's elements in a browser besides the app's own."""


def test_tests_benches_and_scripts_name_each_data_testid_through_internals():
    """Every ``data-testid`` a test, bench or script selects is one of ``TEST_IDS``, whose canary
    above watches it, and is named only there: Python writes ``testid("stMain")``, JavaScript
    ``testid(stMain)`` (``harness.js``); no selector spells ``[data-testid="…"]`` out."""
    root = Path(__file__).resolve().parents[1]
    spelled, named = [], set()
    for folder in SELECTING:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".py", ".js") or path == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            for n, (before, line) in enumerate(zip(["", *lines], lines), start=1):
                example = ">>>" in before or ">>>" in line  # a doctest shows what testid writes
                if re.search(r"""data-testid=\\?["'`]""", line) and not example:
                    spelled.append(f"{path.relative_to(root)}:{n}")
            named |= set(re.findall(r"""testid\(["']?((?:st|Input)[A-Z]\w*)""", text))
    assert not spelled, f"spelled out, not through internals.testid: {spelled}"
    assert named and named <= set(internals.TEST_IDS), sorted(named - set(internals.TEST_IDS))


def test_the_app_root_still_says_whether_a_script_runs():
    text = bundle()
    assert re.search(rf"[`\"']{internals.SCRIPT_STATE}[`\"']", text) and "`stApp`" in text, _upgrade() + (
        f"Streamlit's app root no longer carries {internals.SCRIPT_STATE!r}: the waiting note (busy.py) shows "
        "while it says a script runs, and the browser tests' idle check reads it. Find how the page marks a run."
    )
    for name, value in (("RUNNING", "running"), ("RERUN_REQUESTED", "rerunRequested"), ("NOT_RUNNING", "notRunning")):
        assert f"{name}=`{value}`" in text, _upgrade() + (
            f"Streamlit's ScriptRunState {name} is no longer {value!r}: update internals.RUNNING_STATES and busy.py."
        )
    assert set(internals.RUNNING_STATES) == {"running", "rerunRequested"}


def test_a_text_area_still_applies_on_ctrl_enter_and_when_it_loses_the_focus():
    """The sentence box's Enter script blurs the box to apply it (sentence_box.ENTER_SCRIPT)."""
    text = bundle("TextArea.*.js")
    assert "onBlur:" in text and "stTextArea" in text, _upgrade() + (
        "Streamlit's text area no longer handles a blur: the sentence box's Enter may no longer apply it. "
        "Check tests/browser/test_sentence_browser.py and change sentence_box.ENTER_SCRIPT."
    )
    assert "InputInstructions" in text, _upgrade() + "the text area draws its instructions elsewhere now"


def test_a_bound_widget_still_builds_the_url_from_the_address_bar():
    """The sentence box's script drops the old sentence's ?token= … from the address bar just
    before Streamlit writes the new ?sentence= (sentence_box.ENTER_SCRIPT): that works because
    Streamlit reads the address bar's query at that moment to build the new URL and the run."""
    text = bundle()
    reads_address_bar = r"updateUrlParam\(\w+,\w+,\w+\)\{let \w+=\w+\.parse\(window\.location\.search"
    assert re.search(reads_address_bar, text), _upgrade() + (
        "Streamlit no longer builds a bound widget's URL from window.location.search: the sentence box's "
        "script may no longer drop the old sentence's positions. Check tests/browser/test_reconnect.py "
        "(test_a_new_sentence_typed_after_a_restart_drops_the_old_sentences_token) and sentence_box.ENTER_SCRIPT."
    )


def test_a_keyed_element_still_gets_the_st_key_class():
    assert re.search(r"`st-key-`\+", bundle()), _upgrade() + (
        "Streamlit no longer gives an element made with key=k the class st-key-k: the cell-number "
        "container queries, the tailor's grid and the heads grid's frame select it (internals.KEY_CLASS)."
    )


def test_the_sidebar_still_keeps_a_learner_s_own_choice_and_its_button_only_while_open():
    """Why presentation mode folds the sidebar with a click (``internals.fold_sidebar_script``):
    Streamlit keeps the learner's choice in localStorage ahead of ``initial_sidebar_state``, and
    draws the « button only while the sidebar is open. If the first stops, the page config alone
    may fold it again (tests/browser/test_lesson_path_browser.py says whether it does)."""
    text = bundle("index.*.js")
    assert f"`{internals.SIDEBAR_CHOICE_KEY}${{" in text and "localStorage.getItem" in text, _upgrade() + (
        f"Streamlit no longer keeps the sidebar's state under {internals.SIDEBAR_CHOICE_KEY!r}: check "
        "whether st.set_page_config(initial_sidebar_state='collapsed') now folds an opened sidebar on "
        "the next page, and drop or fix fold_sidebar_script."
    )
    assert re.search(r"&&!\w+&&\w+\(\w+,\{showSidebarCollapse:\w+,\"data-testid\":`stSidebarCollapseButton`", text), (
        _upgrade() + "Streamlit's « button (stSidebarCollapseButton) is no longer drawn only while the sidebar "
        "is open: fold_sidebar_script would fold it by a click only when it is open; fix the script."
    )


def test_streamlit_s_breakpoints():
    text = bundle()
    for name, px in internals.BREAKPOINTS.items():
        assert f"{name}:`{px}px`" in text, _upgrade() + (
            f"Streamlit's {name!r} breakpoint is no longer {px} px: the style sheet's phone rules and the "
            "sidebar script use it (internals.PHONE_PX, SIDEBAR_OVERLAY_PX)."
        )


THEME_COLOURS = {
    "text": internals.TEXT,
    "chart title": internals.TITLE,
    "legend": internals.LEGEND,
    "lines": internals.LINE,
    "paper": internals.PAPER,
    "hover border": internals.HOVER_BORDER,
    **{f"dark {n}": colour for n, colour in enumerate(internals.DARK.values())},
    **{f"colorway {n}": colour for n, colour in enumerate(internals.COLORWAY)},
    **{f"sequential {n}": colour for n, colour in enumerate(internals.SEQUENTIAL)},
    **{f"diverging {n}": colour for n, colour in enumerate(internals.DIVERGING)},
    "table line": internals.TABLE_LINE[0],
    "dark table line": internals.TABLE_LINE[1],
}


@pytest.mark.parametrize("name", THEME_COLOURS)
def test_each_copied_theme_colour_is_one_of_streamlit_s(name):
    colour = THEME_COLOURS[name]
    assert colour.lower() in bundle("utils.*.js").lower(), _upgrade() + (
        f"Streamlit's theme no longer has the colour {colour} ({name}) that internals.py copied. "
        "Read the new value from a chart Streamlit draws (tests/browser/test_internals_browser.py prints it)."
    )


THEME_SHAPE = {
    "colour bar": r"coloraxis:\{colorbar:\{thickness:16,xpad:\w+\(\w+\.spacing\.twoXL\),ticklabelposition:`outside`,"
    r"outlinecolor:\w+\.transparent,outlinewidth:8,len:\.75,y:\.5745",
    "layout font": r"font:\{color:\w+\(\w+\),family:\w+\.bodyFont,size:\w+\(\w+\.twoSm\)",
    "margin": r"margin:\{pad:\w+\(\w+\.spacing\.sm\),r:0,l:0\}",
    "y axis title": r"standoff:\w+\(\w+\.spacing\.twoXL\)",
    "x axis title": r"standoff:\w+\(\w+\.spacing\.xl\)",
}


@pytest.mark.parametrize("part", THEME_SHAPE)
def test_streamlit_s_plotly_theme_still_has_the_shape_copied(part):
    """The values internals.LAYOUT / AXES / COLORAXIS copied, as Streamlit's chart component
    writes them (names of minified variables left open)."""
    assert re.search(THEME_SHAPE[part], bundle("PlotlyChart.*.js")), _upgrade() + (
        f"Streamlit's Plotly theme changed its {part}: compare internals.LAYOUT, AXES and COLORAXIS with "
        "what tests/browser/test_internals_browser.py reads from a chart Streamlit themes, and update them."
    )


@pytest.mark.parametrize("name", internals.PLOTLY_CLASSES)
def test_each_plotly_class_the_app_names_is_in_plotly_s_bundle(name):
    assert name in bundle("PlotlyChart.*.js"), _upgrade() + (
        f"The Plotly that Streamlit serves no longer draws elements of class {name!r}: the style sheet "
        "selects them (internals.py). Find the new class in a drawn chart and update it."
    )


def test_the_drawing_pass_mark_is_one_small_function():
    text = bundle("PlotlyChart.*.js")
    assert text.count(internals.DRAW_PASS_MARK) == 1, _upgrade() + (
        f"{internals.DRAW_PASS_MARK!r} is no longer in Plotly's bundle exactly once: "
        "tests/browser/test_drawn_once.py counts Plotly's drawing passes by it. Find what _doPlot calls once "
        "per pass in the new bundle."
    )


SENT_SCRIPT = """
import streamlit as st
from attention_ui.internals import SentAsIs
st.plotly_chart(SentAsIs({"data": [{"type": "bar", "y": [1, 2]}], "layout": {"height": 123}}), theme=None)
"""


def test_streamlit_sends_a_figure_s_dict_as_it_is():
    """st.plotly_chart asks a Plotly figure for to_dict() and sends that, unvalidated."""
    at = AppTest.from_string(SENT_SCRIPT, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    sent = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert sent == {"data": [{"type": "bar", "y": [1, 2]}], "layout": {"height": 123}}, _upgrade() + (
        "st.plotly_chart no longer sends a figure's to_dict() as it is (it validated it, or added a template): "
        "internals.SentAsIs relies on it, and every chart would be drawn twice. Read streamlit/elements/"
        "plotly_chart.py for how it turns a figure into its spec now."
    )


def test_the_charts_chunk_is_one_file_that_the_main_bundle_imports_beside_itself():
    """attention_ui/preload.py imports Streamlit's chart chunk early, by its file name, resolved
    against the main bundle's address: it must be one file, imported by the main bundle from
    its own folder (the same module the app imports later)."""
    chunk = internals.plotly_chunk()
    assert chunk, _upgrade() + (
        f"no single PlotlyChart.*.js under {internals.STATIC_JS}: the early load of the charts' code "
        "(attention_ui/preload.py) does nothing. Find the chunk that draws st.plotly_chart and fix plotly_chunk."
    )
    assert re.search(rf"[\"'`]\./{re.escape(chunk)}[\"'`]", bundle("index.*.js")), _upgrade() + (
        f"Streamlit's main bundle no longer imports ./{chunk}: preload.py would load a second copy."
    )
