"""The sentence box (attention_ui/sentence_box.py), the waiting note (attention_ui/busy.py) and
which URL parameters a new sentence takes with it (url_state.SENTENCE_POSITIONS).

What only a browser shows (Enter applies, Shift+Enter does not, the note comes and goes) is in
tests/browser/test_sentence_browser.py; a new sentence after a server restart in
tests/browser/test_reconnect.py.
"""

from __future__ import annotations

import re

import pytest

from attention_core import MAX_CHARS, MAX_TOKENS, clean_text
from attention_ui import busy, preload, sentence_box, watchdog
from attention_ui.i18n import LANGS, translate
from attention_ui.internals import APP_ROOT, CONNECTION_STATUS, INPUT_INSTRUCTIONS, key_class
from attention_ui.registry import NOTHING, PAGES
from attention_ui.safe import escape_markdown
from attention_ui.sidebar import CLIENT_SCRIPT
from attention_ui.url_state import SENTENCE_POSITIONS
from tests.helpers import open_link

HOSTILE = "\"'}</style><script>alert(1)</script>\\ 猫…"


def css_string_value(css: str) -> str:
    """The text of the one CSS string in ``content: "…";`` of ``css``, read as a browser reads it
    (CSS Syntax 4.3.5: a backslash and 1 to 6 hex digits is that code point, one following space is
    eaten), written independently of ``busy.css_string``."""
    found = re.findall(r'content: "((?:[^"\\]|\\.)*)";', css)
    assert len(set(found)) == 1, found
    raw = found[0]
    return re.sub(
        r"\\([0-9a-fA-F]{1,6}) ?|\\(.)", lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), raw
    )


# --------------------------------------------------------------------------- the box


@pytest.mark.parametrize("lang", LANGS)
def test_the_sentence_box_is_a_text_area_bound_to_the_link(lang):
    sentence = "the cat <b>sat</b> 在垫子上 😀"
    at = open_link("pages/step_by_step.py", lang=lang, sentence=sentence)
    box = at.text_area(key="sentence")
    assert box.value == sentence
    assert box.label == translate(lang, "shell.sentence")
    assert box.max_chars == MAX_CHARS
    assert box.help == translate(lang, "shell.sentence_help", max_tokens=MAX_TOKENS)
    assert not at.text_input  # the one-line box is gone from the sidebar (the page has none either)
    box.set_value("a dog barked").run()  # (the browser writes it into the link: tests/browser)
    assert not at.exception and at.button_group(key="token_picker").options[-1].endswith("barked")


def test_a_new_line_in_the_sentence_is_a_space():
    """Shift+Enter still makes a new line in the box (tests/browser): the lesson reads it as a space."""
    at = open_link("pages/step_by_step.py", sentence="the dog\nsat")
    labels = [o for o in at.button_group(key="token_picker").options]
    assert len(labels) == 3, labels


def test_the_box_css_and_the_enter_script_are_constants_about_this_box():
    css, script = sentence_box.BOX_CSS, sentence_box.ENTER_SCRIPT
    assert f".{key_class('sentence')} {INPUT_INSTRUCTIONS} {{ display: none; }}" in css
    assert css.count("<style>") == 1 and css.rstrip().endswith("</style>") and "<script" not in css
    assert script.startswith("<script>") and script.rstrip().endswith("</script>") and script.count("<script") == 1
    assert f"'.{key_class('sentence')} textarea'" in script  # this box only
    for guard in ("event.shiftKey", "event.ctrlKey", "event.isComposing", "event.keyCode === 229"):
        assert guard in script, guard  # Shift+Enter, Ctrl+Enter and an input method keep their Enter
    assert CLIENT_SCRIPT == (
        busy.BUSY_SCRIPT + script + sentence_box.PHONE_SCRIPT + preload.PRELOAD_SCRIPT + watchdog.WATCHDOG_SCRIPT
    )


@pytest.mark.parametrize("lang", LANGS)
def test_a_phone_line_shows_the_sentence_as_text_and_its_button_not_in_presentation_mode(lang):
    sentence = 'the cat <img src=x onerror="alert(1)"> sat'
    at = open_link("pages/step_by_step.py", lang=lang, sentence=sentence)
    line = f'<div class="{sentence_box.PHONE_CLASS}">'
    lines = [h.proto.body for h in at.get("html") if h.proto.body.startswith(line)]
    assert len(lines) == 1, lines
    assert "<img" not in lines[0] and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in lines[0]
    assert f">{translate(lang, 'shell.change_sentence')}</button>" in lines[0]
    assert "<script" not in lines[0]  # the line carries learner text: no script rides with it
    present = open_link("pages/step_by_step.py", lang=lang, sentence=sentence, present="true")
    assert not [h for h in present.get("html") if h.proto.body.startswith(line)]


# --------------------------------------------------------------------------- presentation mode


@pytest.mark.parametrize("lang", LANGS)
def test_presentation_mode_shows_the_sentence_large_under_the_title(lang):
    sentence = "the **cat** <b>sat</b> $x$ 猫"
    at = open_link("pages/step_by_step.py", lang=lang, sentence=sentence, present="true")
    shown = [m.value for m in at.markdown]
    assert escape_markdown(clean_text(sentence)) in shown, shown
    main = [node.value for node in at.main if node.type in ("title", "markdown")]  # what a learner reads
    assert main[:2] == [translate(lang, "step_by_step.title"), escape_markdown(clean_text(sentence))], main[:3]
    off = open_link("pages/step_by_step.py", lang=lang, sentence=sentence)
    assert escape_markdown(clean_text(sentence)) not in [m.value for m in off.markdown]


@pytest.mark.parametrize("page", [entry.id for entry in PAGES if entry.needs == NOTHING])
def test_pages_that_do_not_teach_on_the_sentence_do_not_show_it(page):
    sentence = "a sentence nobody else writes"
    at = open_link(f"pages/{page}.py", sentence=sentence, present="true")
    assert escape_markdown(sentence) not in [m.value for m in at.markdown]


# --------------------------------------------------------------------------- the waiting note


@pytest.mark.parametrize("lang", LANGS)
def test_the_waiting_note_says_the_catalog_words_and_nothing_else(lang):
    words = translate(lang, "shell.busy")
    css = busy.busy_css(words)
    assert css_string_value(css) == words
    assert css.count("<") == 2 and css.startswith("<style>") and css.rstrip().endswith("</style>")


def test_no_text_can_leave_the_waiting_notes_css_string():
    css = busy.busy_css(HOSTILE)
    assert css_string_value(css) == HOSTILE
    assert css.count("<") == 2 and "<script" not in css.lower()
    assert re.fullmatch(r'"(?:[A-Za-z0-9]|\\[0-9a-f]{6})*"', busy.css_string(HOSTILE))  # letters, digits, escapes


@pytest.mark.parametrize("lang", LANGS)
def test_the_lost_click_note_says_the_catalog_words_apart_from_the_waiting_note(lang):
    words, lost = translate(lang, "shell.busy"), translate(lang, "shell.click_lost")
    css = busy.busy_css(words, lost)
    again, _, waiting = css.partition("}\n")  # the lost-click rule comes first
    assert f"html[{busy.LOST_ATTR}] {APP_ROOT}::before" in again and css_string_value(again) == lost
    assert css_string_value(waiting) == words and busy.LOST_ATTR not in waiting
    assert "pointer-events: none" in again and "max-width: calc(100vw" in again  # fits a phone
    assert css.count("<") == 2 and css.startswith("<style>") and css.rstrip().endswith("</style>")
    assert busy.LOST_ATTR not in busy.busy_css(words), "no second note without its words"


def test_the_script_asks_again_only_after_a_drop_at_the_same_address():
    """The lost-click note's conditions, as written in the script (the browser tests act them out:
    tests/browser/test_reconnect.py): set only by ``look``, once the page is back and idle, when
    the address at the drop was still the one the action was made at; cleared by the next action."""
    script = busy.BUSY_SCRIPT
    assert script.count(f'setAttribute("{busy.LOST_ATTR}"') == 1
    assert "const lost = pending.atDrop === pending.where" in script  # its effect had not arrived
    assert "if (!pending.dropped) pending.atDrop = here();" in script  # the address when it dropped
    assert CONNECTION_STATUS in script and "pending.dropped = true" in script
    # An Enter is replayed through the address: its sentence, and no positions in the old one.
    assert 'url.searchParams.set("sentence", sentence)' in script
    assert all(repr(name) in script for name in SENTENCE_POSITIONS)
    assert "expectRun(area.value)" in sentence_box.ENTER_SCRIPT
    expect = script[script.index("expectRun(sentence = null)") :]
    assert expect.index(f'removeAttribute("{busy.LOST_ATTR}")') < expect.index("pending = {where: here()")


def test_the_waiting_note_waits_half_a_second_and_never_takes_a_click():
    css = busy.busy_css("Working…")
    assert busy.DELAY_S == 0.5
    assert f"ease-out {busy.DELAY_S}s both" in css  # invisible (opacity 0) until the delay is over
    assert "pointer-events: none" in css and "prefers-reduced-motion" in css
    for state in ("running", "rerunRequested"):
        assert f'data-test-script-state="{state}"]::after' in css
    assert f"html[{busy.WAITING_ATTR}]" in css


def test_a_slow_run_only_when_asked(monkeypatch):
    slept = []
    monkeypatch.setattr(busy.time, "sleep", slept.append)
    for value, expected in ((None, []), ("", []), ("abc", []), ("0", []), ("1.5", [1.5]), ("999", [])):
        slept.clear()
        if value is None:
            monkeypatch.delenv(busy.SLOW_ENV, raising=False)
        else:
            monkeypatch.setenv(busy.SLOW_ENV, value)
        busy.slow_run()
        assert slept == expected, value


# --------------------------------------------------------------------------- positions in the sentence


def test_the_positions_in_the_sentence_are_the_pickers_parameters():
    """Every parameter a token picker or the window keeps is dropped from the URL with its
    sentence (by the box's script: tests/browser/test_reconnect.py); the step, no place in the
    sentence, is not."""
    import ast

    from tests.helpers import ROOT

    params = {"token", "first"}
    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "attention_ui").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "token_picker":
                params |= {k.value.value for k in node.keywords if k.arg == "param"}
    assert params == set(SENTENCE_POSITIONS)
    assert "step" not in SENTENCE_POSITIONS
    assert f"positions = {list(SENTENCE_POSITIONS)!r}" in sentence_box.ENTER_SCRIPT
