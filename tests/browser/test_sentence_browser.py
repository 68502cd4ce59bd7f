"""The sentence box, the waiting note and the page's own text boxes in a real browser.

The sidebar's sentence is a text area (attention_ui/sentence_box.py): Enter applies it, Shift+Enter
makes a new line and applies nothing, an input method that is composing keeps its Enter, and a
long sentence wraps and grows instead of scrolling. "Working…" (attention_ui/busy.py) shows only
after half a second of waiting, and goes when the run is over. Sentence B (Self vs cross
attention) and the compare box (After attention) come back when the learner returns to their page.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlparse

import pytest

from attention_ui.busy import DELAY_S, SLOW_ENV, WAITING_ATTR
from attention_ui.i18n import translate
from attention_ui.internals import testid
from attention_ui.presentation import FONT_PX
from attention_ui.sentence_box import PRESENTED_REM
from harness import TOY, js, no_exception, streamlit_server, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

BOX = ".st-key-sentence textarea"
NOTE_JS = js("""(what) => getComputedStyle(document.querySelector('testid(stApp)'), '::after')[what]""")
LONG = " ".join(["the quick brown fox jumps over the lazy dog while"] * 3)  # 30 words


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def tokens_shown(page) -> list[str]:
    """The token picker's labels ("1: the", …): the sentence the page teaches on."""
    picker = page.locator(f"{testid('stMain')} .st-key-token_picker {testid('stButtonGroup')} button")
    return [t.strip() for t in picker.all_inner_texts()]


def sidebar_link(page, label: str):
    return page.locator(f"{testid('stSidebar')} {testid('stPageLink')} a").filter(has_text=label)


def test_enter_applies_the_sentence_and_shift_enter_does_not(open_app):
    page = open_app(f"step_by_step?{TOY}")
    box = page.locator(BOX)
    box.fill("the cat sat on the mat")
    assert page.locator(f".st-key-sentence {testid('InputInstructions')}").filter(visible=True).count() == 0
    box.press("Enter")
    wait_for_app(page)
    no_exception(page)
    assert query(page).get("sentence") == ["the cat sat on the mat"], page.url
    assert tokens_shown(page) == ["1: the", "2: cat", "3: sat", "4: on", "5: the", "6: mat"]
    assert box.input_value() == "the cat sat on the mat"  # no new line in the box
    assert page.evaluate("() => document.activeElement && document.activeElement.matches('.st-key-sentence textarea')")

    box.fill("a dog")
    box.press("Shift+Enter")  # a new line, as in any text area: nothing applied
    page.wait_for_timeout(1500)
    wait_for_app(page)
    assert box.input_value() == "a dog\n"
    assert query(page).get("sentence") == ["the cat sat on the mat"], page.url
    assert len(tokens_shown(page)) == 6
    box.press("Enter")
    wait_for_app(page)
    assert tokens_shown(page) == ["1: a", "2: dog"]  # the new line reads as a space

    # An input method composing a word (pinyin: Enter confirms it) keeps its Enter; a plain Enter
    # in the box is taken. dispatchEvent says false when a listener prevented the default.
    kept, taken = page.evaluate(
        """() => {
          const area = document.querySelector('.st-key-sentence textarea');
          const enter = (extra) => area.dispatchEvent(new KeyboardEvent('keydown',
              {key: 'Enter', bubbles: true, cancelable: true, ...extra}));
          return [enter({isComposing: true}), enter({})];
        }"""
    )
    assert kept is True and taken is False
    wait_for_app(page)
    no_exception(page)


def test_another_sentence_takes_its_token_with_it_however_it_is_applied(open_app):
    """Enter, Ctrl+Enter, or a click elsewhere: the link keeps no token of the old sentence; the
    step is no place in the sentence and stays."""
    page = open_app(f"step_by_step?{TOY}&sentence=the+dog+sat+on+the+mat&token=5&step=2")
    box = page.locator(BOX)
    for sentence, apply in (
        ("a cat slept on my bed", lambda: box.press("Enter")),
        ("one two three four five six", lambda: box.press("Control+Enter")),
        ("my warm bed is big and soft", lambda: page.locator(f"{testid('stMain')} h1").click()),
    ):
        page.locator(f"{testid('stMain')} {testid('stButtonGroup')} button").filter(
            has_text=re.compile(r"^5: ")
        ).click()
        wait_for_app(page)
        assert query(page).get("token") == ["5"], page.url
        box.fill(sentence)
        apply()
        wait_for_app(page)
        no_exception(page)
        assert query(page).get("sentence") == [sentence], page.url
        assert query(page).get("token") is None and query(page).get("step") == ["2"], page.url
        assert tokens_shown(page)[0] == f"1: {sentence.split()[0]}"
        chosen = page.locator(f'{testid("stMain")} .st-key-token_picker button[aria-checked="true"]')
        assert chosen.inner_text().strip() == f"1: {sentence.split()[0]}"


def test_a_chinese_sentence_and_a_long_one_in_the_box(open_app):
    page = open_app(f"step_by_step?{TOY}&lang=zh")
    box = page.locator(testid("stSidebar")).get_by_label(translate("zh", "shell.sentence"), exact=True)
    box.fill("我爱猫")
    box.press("Enter")
    wait_for_app(page)
    no_exception(page)
    assert query(page).get("sentence") == ["我爱猫"], page.url
    assert tokens_shown(page) == ["1: 我", "2: 爱", "3: 猫"]

    box.fill(LONG)
    box.press("Enter")
    wait_for_app(page)
    no_exception(page)
    size = page.evaluate(
        """() => { const a = document.querySelector('.st-key-sentence textarea');
                   return [a.scrollWidth, a.clientWidth, a.scrollHeight, a.clientHeight]; }"""
    )
    assert size[0] <= size[1] and size[2] <= size[3] + 1, f"the box wraps and grows, no scroll bar: {size}"
    assert query(page).get("sentence") == [LONG]


def test_presentation_mode_shows_the_sentence_large(open_app):
    page = open_app(f"step_by_step?{TOY}&present=true&sentence=the+dog+sat")
    shown = page.locator(".st-key-presented_sentence p")
    assert shown.inner_text() == "the dog sat"
    px = float(shown.evaluate("p => getComputedStyle(p).fontSize").removesuffix("px"))
    assert px == pytest.approx(PRESENTED_REM * FONT_PX, abs=0.5)


# --------------------------------------------------------------------------- the waiting note

WATCH_JS = js("""(attr) => {
  const app = document.querySelector('testid(stApp)'), html = document.documentElement;
  window.__watch = {frames: [], clicks: [], states: []};
  const state = () => window.__watch.states.push([performance.now(), app.getAttribute('data-test-script-state')]);
  new MutationObserver(state).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  document.addEventListener('click', () => window.__watch.clicks.push(performance.now()), true);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') window.__watch.clicks.push(performance.now());
  }, true);
  const frame = () => {
    const s = getComputedStyle(app, '::after');
    window.__watch.frames.push([performance.now(), s.content === 'none' ? null : +s.opacity, s.content,
                                html.hasAttribute(attr), document.timeline.currentTime]);
    requestAnimationFrame(frame);
  };
  frame();
}""")


def watch(page) -> None:
    page.evaluate(WATCH_JS, WAITING_ATTR)


def watched(page) -> dict:
    return page.evaluate("() => window.__watch")


FRAME_SLACK_MS = 100
"""The note's delay runs on the animation timeline, which starts at the time of the frame in which
the style changed: that frame may have begun before the click's own timestamp, by up to a frame
(16 ms on an idle machine; seen 25 ms on a loaded CI machine). A flash would show at ~0 ms."""


def assert_never_within_the_delay(seen: dict) -> None:
    """The note never appears (a frame with opacity above 0 after one without) less than DELAY_S
    after an action began, counted on the clock the browser animates with. A note already shown
    when an action comes (a run that was slow on a loaded machine, still under way) is not one
    that action made appear.

    That clock is the frame's (``document.timeline``), not the action's (``performance.now()``):
    when the renderer was starved of CPU and made no frame for seconds, the first frame after the
    action still carries the time of the stalled frame, and Chromium starts the note's delay at
    that time, in the past (seen: a click at 15957 ms, its first frame at 16055 ms with the
    timeline at 11248 ms, the note fully shown in the next frame, 134 ms after the click, during a
    run of 2.5 s). Such a stale clock shortens the delay by its lag behind the action, which the
    check allows for; on a clock that keeps time the lag is 0 and the whole delay is checked."""
    frames, shown_before = seen["frames"], False
    for n, (t, opacity, *_) in enumerate(frames):
        if opacity and not shown_before:
            # The action is the one that put the note on the page (its first frame with the note's
            # content, at opacity 0 during the delay), not a later click made while it waited:
            # a token click whose run had not begun 0.5 s later rightly shows the note, even if
            # the learner pressed Enter meanwhile (seen: note put at 5453 ms by a click at 5446,
            # shown at 6023, an Enter at 5862).
            start = n
            while start > 0 and frames[start - 1][1] is not None:
                start -= 1
            action = max((c for c in seen["clicks"] if c <= frames[start][0]), default=float("-inf"))
            first = next((f for f in frames if f[0] >= action), None)
            lag = max(0.0, action - first[4]) if first is not None and first[4] is not None else 0.0
            since = t - action
            assert since >= DELAY_S * 1000 - FRAME_SLACK_MS - lag, (
                f"the note appeared {since:.0f} ms after an action (its animation clock {lag:.0f} ms behind)"
            )
        shown_before = bool(opacity)


def test_a_fast_run_never_shows_the_note(open_app):
    page = open_app(f"step_by_step?{TOY}&sentence=the+dog+chased+the+cat")
    watch(page)
    for label in ("2: dog", "3: chased", "5: cat", "1: the"):
        page.locator(f"{testid('stMain')} {testid('stButtonGroup')} button").filter(
            has_text=re.compile(f"^{re.escape(label)}$")
        ).click()
        wait_for_app(page)
    page.locator(BOX).fill("a cat sat")
    page.locator(BOX).press("Enter")
    wait_for_app(page)
    page.locator(BOX).press("Enter")  # the same sentence again: no run is asked for, no note
    page.wait_for_timeout(DELAY_S * 1000 + 500)
    seen = watched(page)
    assert_never_within_the_delay(seen)
    last = seen["frames"][-1]
    assert last[1] is None and not last[3], f"the note stays after the runs: {last}"


@pytest.mark.parametrize(("lang", "slow"), [("en", 2.0), ("zh", 2.0)])
def test_the_note_comes_while_a_run_is_slow_and_goes(tab, lang, slow):
    with streamlit_server(env={SLOW_ENV: str(slow)}) as srv:
        page = tab()
        page.goto(srv.url + f"step_by_step?{TOY}&lang={lang}&sentence=the+dog+sat")
        wait_for_app(page)
        watch(page)
        page.locator(f"{testid('stMain')} {testid('stButtonGroup')} button").filter(
            has_text=re.compile("^2: dog$")
        ).click()
        words = f'"{translate(lang, "shell.busy")}"'
        # while the 2 s run lasts (waited for, not slept: on a loaded machine the run starts late)
        page.wait_for_function(f"() => ({NOTE_JS})('content') === {words!r}", timeout=15_000, polling=50)
        wait_for_app(page)
        page.locator(BOX).fill("a cat")
        page.locator(BOX).press("Enter")  # Enter too
        page.wait_for_function(f"() => ({NOTE_JS})('opacity') !== '0'", timeout=15_000, polling=50)
        wait_for_app(page)
        page.wait_for_timeout(300)
        seen = watched(page)
        page.goto("about:blank")  # this session ends before its server
    assert_never_within_the_delay(seen)
    shown = [t for t, opacity, *_ in seen["frames"] if opacity and opacity > 0.5]
    assert shown, "the note never showed during a run of 2 s"
    last = seen["frames"][-1]
    assert last[1] is None and not last[3], f"the note stays after the run: {last}"


# --------------------------------------------------------------------------- the pages' own boxes


def test_sentence_b_comes_back_after_a_page_switch(open_app):
    page = open_app(f"cross_attention?{TOY}")
    box = page.locator(".st-key-sentence_b input")
    box.fill("un deux trois")
    box.press("Enter")
    wait_for_app(page)
    for _ in range(25):  # the browser writes the link after the run
        if query(page).get("sentence_b") == ["un deux trois"]:
            break
        page.wait_for_timeout(200)
    sidebar_link(page, "Attention matrices").click()
    wait_for_app(page)
    assert "sentence_b" not in query(page)
    sidebar_link(page, "Self vs cross attention").click()
    wait_for_app(page)
    no_exception(page)
    assert box.input_value() == "un deux trois"
    assert query(page).get("sentence_b") == ["un deux trois"], page.url


def test_the_compare_box_comes_back_after_a_page_switch(open_app):
    typed = "Interest rates rose again this year"
    page = open_app(f"after_attention?vector_view=compare&compare={quote('A kitten slept')}")
    box = page.locator(".st-key-compare input")
    assert box.input_value() == "A kitten slept"
    box.fill(typed)
    box.press("Enter")
    wait_for_app(page)
    sidebar_link(page, "Step by step").click()
    wait_for_app(page)
    sidebar_link(page, "After attention").click()
    wait_for_app(page)
    no_exception(page)
    assert box.input_value() == typed
    assert query(page).get("compare") == [typed], page.url
