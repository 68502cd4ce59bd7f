"""The sentence box: the learner's sentence, whole, while it is edited, and on a projector.

The sidebar's sentence is a text area that wraps and grows with its text (``height="content"``:
one line for a short sentence, up to about six), so a class sees every word it says, and a phone
sees the end of what it typed. It stays what a text input was to a learner and to a link:

* bound to the URL as ``?sentence=`` under the key ``sentence``, with the same ``max_chars``;
* **Enter applies it.** A text area takes Enter as a new line and applies on Ctrl+Enter or when
  it loses the focus; a sentence has no lines (``clean_text`` reads a new line as a space), so a
  small script (``ENTER_SCRIPT``) turns Enter without Shift, in this one box, into "apply": the
  box loses the focus and takes it back at once. An input method that is still composing (pinyin
  for 中文: Enter there confirms a word) keeps its Enter. Shift+Enter and Ctrl+Enter do what
  they always do. After Enter, a clicker's keys move the lesson until the learner types again
  (``clicker.APPLIED``): a teacher types a sentence, presses Enter and goes on with the remote;
* **another sentence takes the old one's positions with it.** The URL's ``?token=``, ``?first=``
  … (``url_state.SENTENCE_POSITIONS``) name places in the sentence they were chosen on. When the
  learner applies another sentence, the script drops them from the address bar just before
  Streamlit writes the new ``?sentence=`` there and sends the run (Streamlit builds both from the
  address bar as it is then). Within a session the pickers would go back to their default anyway;
  the first run of a NEW session (after a server restart, or a session that expired) has nothing
  else to tell it that ``?token=5`` was the old sentence's 5th token;
* no instruction text over the sentence: Streamlit writes "Press Ctrl+Enter to apply" and a
  character count over the text's last line while the box has the focus; ``BOX_CSS`` hides
  them in this box (the box's help says "Press Enter to apply").

On a phone the sidebar is folded away and the page gave no hint of the box: under the title each
page that reads the sentence shows it with a button that opens the sidebar with the box focused
(``show_on_phone``; nothing of it above ``PHONE_MAX_PX``).

In presentation mode the page shows the sentence large under its title (``show_presented``):
the sidebar is folded away on a projector, and the room must see whether it says "big" or
"small". What the CSS and the script assume of Streamlit's page is in ``internals``.

>>> "Enter" in ENTER_SCRIPT and key_class(KEY) in ENTER_SCRIPT
True
"""

from __future__ import annotations

from html import escape

import streamlit as st

from attention_core import MAX_CHARS, clean_text

from .clicker import APPLIED
from .internals import INPUT_INSTRUCTIONS, key_class, testid
from .safe import escape_markdown
from .url_state import SENTENCE_POSITIONS

KEY = "sentence"
"""The box's key, and its URL parameter."""
PRESENTED_KEY = "presented_sentence"
"""Key of the container that shows the sentence large in presentation mode."""
PRESENTED_REM = 1.45
"""The presented sentence's size, in the root font size of presentation mode (22 px: 32 px)."""
PRESENTED_PHONE_REM = 1.0
"""Its size on a screen narrower than 640 px, where 32 px would fill the screen with one sentence."""
BOX_MAX_REM = 16
PHONE_MAX_PX = 640
"""Below this width the page shows the sentence and a button to the box (``show_on_phone``)."""
PHONE_CLASS = "phone-sentence"
"""The class of that line's ``<div>``."""
OPEN_ATTR = "data-open-sentence"
"""The attribute of its button, which the script (``PHONE_SCRIPT``) answers."""
"""The box grows with its text up to this height (about ten lines), then scrolls."""

BOX_CSS = f"""<style>
.{key_class(KEY)} {INPUT_INSTRUCTIONS} {{ display: none; }}
.{key_class(KEY)} textarea {{ overflow-wrap: anywhere; }}
@supports (field-sizing: content) {{
  .{key_class(KEY)} textarea {{
    field-sizing: content; height: auto !important; min-height: 0 !important; max-height: {BOX_MAX_REM}rem !important;
  }}
}}
.{key_class(PRESENTED_KEY)} {{ margin-bottom: 0.5rem; }}
.{key_class(PRESENTED_KEY)} p {{
  font-size: {PRESENTED_REM}rem; line-height: 1.3; font-weight: 600; margin: 0; overflow-wrap: anywhere;
}}
@media (max-width: 640px) {{ .{key_class(PRESENTED_KEY)} p {{ font-size: {PRESENTED_PHONE_REM}rem; }} }}
@media (min-width: {PHONE_MAX_PX}px) {{ {testid("stElementContainer")}:has(.{PHONE_CLASS}) {{ display: none; }} }}
.{PHONE_CLASS} {{ display: flex; align-items: center; gap: 0.6rem; }}
.{PHONE_CLASS} span {{
  flex: 1 1 auto; min-width: 0; overflow: hidden; display: -webkit-box; -webkit-box-orient: vertical;
  -webkit-line-clamp: 2; overflow-wrap: anywhere; font-weight: 600;
}}
.{PHONE_CLASS} button {{
  flex: 0 0 auto; font: inherit; font-size: 0.95rem; padding: 0.35rem 0.75rem; border-radius: 0.5rem;
  border: 1px solid rgba(49, 51, 63, 0.25); background: transparent; color: inherit; cursor: pointer;
}}
@media print {{ {testid("stElementContainer")}:has(.{PHONE_CLASS}) {{ display: none !important; }} }}
</style>"""
"""The box without Streamlit's instructions over its text, and always as tall as its text at the
width it has now (``field-sizing``, where the browser knows it: Streamlit measures the text once
per change, and a box measured while the sidebar was folded away stayed ten lines tall on a
phone); the presented sentence large. A constant: no learner text goes into the CSS."""

ENTER_SCRIPT = f"""<script>
(() => {{
  if (window.attentionLabSentenceBox) return;
  window.attentionLabSentenceBox = true;
  const box = '.{key_class(KEY)} textarea', positions = {list(SENTENCE_POSITIONS)!r};
  let applied = null;  // the text when the learner last applied it (or came into the box)
  const forgetPositions = (area) => {{  // another sentence: its token, its window are void
    if (area.value === applied) return;
    applied = area.value;
    const url = new URL(window.location.href);
    if (!positions.some((name) => url.searchParams.has(name))) return;
    positions.forEach((name) => url.searchParams.delete(name));
    window.history.replaceState(window.history.state, "", url.toString());
  }};
  document.addEventListener("focusin", (event) => {{
    if (event.target.matches && event.target.matches(box)) applied = event.target.value;
  }}, true);
  document.addEventListener("focusout", (event) => {{  // before Streamlit applies the text
    if (event.target.matches && event.target.matches(box)) forgetPositions(event.target);
  }}, true);
  document.addEventListener("input", (event) => {{  // typing again: the keys are the box's
    if (event.target.matches && event.target.matches(box)) delete event.target.dataset.{APPLIED};
  }}, true);
  document.addEventListener("keydown", (event) => {{
    const area = event.target;
    if (event.key !== "Enter" || !area.matches || !area.matches(box)) return;
    if (event.isComposing || event.keyCode === 229) return;  // an input method confirming a word
    if (event.ctrlKey || event.metaKey) {{ forgetPositions(area); area.dataset.{APPLIED} = "true"; return; }}
    if (event.shiftKey || event.altKey) return;  // a new line
    event.preventDefault();  // no new line: a sentence has none
    const changed = area.value !== applied;
    area.blur();  // a text area applies its text when it loses the focus
    area.focus();  // and the learner goes on typing, as in a one-line box
    area.dataset.{APPLIED} = "true";  // until the next keystroke that types, the clicker's keys work
    if (changed && window.attentionLabBusy) window.attentionLabBusy.expectRun(area.value);
  }}, true);
}})();
</script>"""
"""Enter without Shift applies the sentence box; applying another sentence drops the URL's
positions in the old one (see the module's docstring). A constant."""


def sentence_box(label: str, default: str, help_text: str) -> str:
    """Draw the sentence box (inside the sidebar) and return what it holds."""
    st.html(BOX_CSS)  # only <style>: Streamlit puts it in the event container, no space taken
    return st.text_area(
        label,
        value=default,
        height="content",
        max_chars=MAX_CHARS,
        key=KEY,
        bind="query-params",
        help=help_text,
    )


PHONE_SCRIPT = f"""<script>
(() => {{
  if (window.attentionLabPhoneSentence) return;
  window.attentionLabPhoneSentence = true;
  document.addEventListener("click", (event) => {{
    if (!event.target.closest || !event.target.closest("[{OPEN_ATTR}]")) return;
    const expand = document.querySelector('{testid("stExpandSidebarButton")}');
    const button = expand && (expand.matches("button") ? expand : expand.querySelector("button"));
    if (button) button.click();
    let tries = 30;
    const focus = () => {{  // once the sidebar is drawn open
      const area = document.querySelector('.{key_class(KEY)} textarea');
      if (area && area.getBoundingClientRect().right > 0) {{
        area.focus();
        area.setSelectionRange(area.value.length, area.value.length);
      }} else if (tries-- > 0) setTimeout(focus, 100);
    }};
    focus();
  }});
}})();
</script>"""
"""A click on the phone line's button opens the sidebar (Streamlit's own » button) and puts the
cursor at the end of the sentence box. Sent with the sidebar's scripts (``sidebar.CLIENT_SCRIPT``),
apart from the line, which carries learner text. A constant: no learner text in it."""


def show_on_phone(sentence: str, button: str) -> None:
    """Under the title, on a phone only (CSS: nothing above ``PHONE_MAX_PX``): the sentence, cut to
    two lines, and ``button`` ("Change the sentence"), which opens the sidebar with the box
    focused (``PHONE_SCRIPT``). The sentence is escaped: a learner's ``<b>`` is text. No script
    here: the line goes through Streamlit's sanitiser like any learner text.

    >>> "data-open-sentence" in PHONE_SCRIPT
    True
    """
    text = escape(clean_text(sentence or ""))
    label = escape(button)
    st.html(f'<div class="{PHONE_CLASS}"><span>{text}</span><button type="button" {OPEN_ATTR}>{label}</button></div>')


def show_presented(sentence: str) -> None:
    """The sentence, large, where the page's content begins (presentation mode); nothing for a
    sentence with nothing readable in it. Shown as plain text: escaped for Markdown."""
    text = clean_text(sentence or "")
    if text:
        with st.container(key=PRESENTED_KEY):
            st.markdown(escape_markdown(text))
