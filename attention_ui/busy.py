"""Waiting for the server: a calm "Working…" note while a rerun takes long (issue 34).

When a class of 80 presses Enter together, or the server freezes for a moment, a rerun can take
seconds, and a learner who sees nothing happen presses again, or thinks the app ignored them.
So, half a second into a wait, a small note says "Working…" at the top of the window, in the
band of Streamlit's header where no content is, and it goes when the wait is over. A rerun that
ends sooner never shows it, so fast clicks do not flash.

Two signals, one note (``BUSY_CSS``, built for the session's language):

* **A script runs.** Streamlit marks its app root while the session's script runs
  (``internals.SCRIPT_STATE`` = ``running``); the style sheet alone shows the note then, after
  ``DELAY_S`` (a CSS animation delay: a run shorter than that ends before the note appears).
* **A run was asked for and has not begun.** A frozen or saturated server may not even start the
  run: the root still says ``notRunning``. ``BUSY_SCRIPT`` marks the page as waiting
  (``WAITING_ATTR`` on ``<html>``) when the learner does something that always asks for a run
  (applies a changed sentence with Enter, clicks a button, a page link or an option not yet
  chosen), and unmarks it when a run has begun and ended, or after ``GIVE_UP_S``.

A click in flight when the connection drops (the server process died, a restart) is lost: the
page reconnects to a new session, which shows the view of the address bar, and a button's press
is not carried over. ``BUSY_SCRIPT`` remembers the page's address at each action and looks at
Streamlit's connection status (``internals.CONNECTION_STATUS``: shown only while the page is not
connected) until the action's run has ended. If the status appears first and the address is
still the one the action was made at (its effect had not arrived), then once the page is back
and idle it sets ``LOST_ATTR`` on ``<html>``, and the style sheet asks the learner, in their
language, to do it again (``t("shell.click_lost")``), until their next action. An Enter in the
sentence box is replayed instead: the fresh session shows the address bar's sentence, and the
box, which takes its text as applied, would not send it again, so the page is loaded with the
box's sentence in the address (and no positions in the old one).

The notes are CSS generated content, never in the way of a click (``pointer-events: none``); with
``prefers-reduced-motion`` it does not pulse. ``ATTENTION_LAB_SLOW_RUN`` (seconds, ``SLOW_ENV``)
makes every run that long on purpose: for the browser test that watches the note come and go
(``tests/browser/test_sentence_browser.py``), and for trying the note by hand.

>>> css = busy_css("Working…", "Click again")
>>> "running" in css and "\\\\002026" in css and "Click\\\\000020again" in css
True
"""

from __future__ import annotations

import os
import time

import streamlit as st

from .internals import APP_ROOT, BUTTON, CONNECTION_STATUS, RUNNING_STATES, SCRIPT_STATE, testid
from .url_state import SENTENCE_POSITIONS

DELAY_S = 0.5
"""How long a wait lasts before the note shows."""
GIVE_UP_S = 60
"""A run asked for that has not begun and ended after this long: the note goes (Streamlit's own
connection status speaks for a server that is gone)."""
WAITING_ATTR = "data-attention-lab-waiting"
"""Set on ``<html>`` by ``BUSY_SCRIPT`` between an action that asks for a run and its end."""
LOST_ATTR = "data-attention-lab-lost"
"""Set on ``<html>`` by ``BUSY_SCRIPT`` when an action was cut off by a dropped connection and the
page came back at the same address: the note asks the learner to do it again."""
POLL_MS = 200
"""How often ``BUSY_SCRIPT`` looks at the connection while an action waits for its run."""
SLOW_ENV = "ATTENTION_LAB_SLOW_RUN"
"""Seconds every run sleeps, on purpose (tests, demonstrations); unset or 0 in a classroom."""


def css_string(text: str) -> str:
    """``text`` as a CSS string whose every character but ASCII letters and digits is a hex
    escape, so nothing in it can end the string or the rule. Spaces too: a browser takes the one
    space after a hex escape as the escape's end, and would drop it.

    >>> css_string('Wait "now"…')
    '"Wait\\\\000020\\\\000022now\\\\000022\\\\002026"'
    """
    return '"' + "".join(c if c.isascii() and c.isalnum() else f"\\{ord(c):06x}" for c in text) + '"'


def busy_css(words: str, lost: str = "") -> str:
    """The style sheet of the waiting note, which says ``words``, and of the note that asks for a
    lost click again, which says ``lost`` (catalog strings; no second note without ``lost``)."""
    busy = ", ".join(f'{APP_ROOT}[{SCRIPT_STATE}="{state}"]::after' for state in RUNNING_STATES)
    waiting = f"html[{WAITING_ATTR}] {APP_ROOT}::after"
    again = (
        f"""html[{LOST_ATTR}] {APP_ROOT}::before {{
  content: {css_string(lost)};
  position: fixed; top: 0.6rem; left: 50%; transform: translateX(-50%); z-index: 1000003;
  pointer-events: none; text-align: center; width: max-content; max-width: calc(100vw - 5rem);
  padding: 0.3rem 1rem; border-radius: 1rem; font-size: 0.9rem; line-height: 1.4; font-weight: 600;
  color: #1d1f27; background-color: #ffd27a; box-shadow: 0 1px 4px rgb(0 0 0 / 0.25);
}}
"""
        if lost
        else ""
    )
    return f"""<style>
{again}
{busy}, {waiting} {{
  content: {css_string(words)};
  position: fixed; top: 0.6rem; left: 50%; transform: translateX(-50%); z-index: 1000002;
  pointer-events: none; white-space: nowrap;
  padding: 0.25rem 0.9rem; border-radius: 1rem; font-size: 0.875rem; line-height: 1.5; font-weight: 600;
  color: light-dark(#ffffff, #1d1f27); background-color: light-dark(#3b4a63, #c9d6ea);
  box-shadow: 0 1px 4px rgb(0 0 0 / 0.2);
  animation: attention-lab-appear 0.2s ease-out {DELAY_S}s both,
             attention-lab-pulse 2s ease-in-out {DELAY_S + 0.2}s infinite;
}}
@keyframes attention-lab-appear {{ from {{ opacity: 0; }} to {{ opacity: 1; }} }}
@keyframes attention-lab-pulse {{ 50% {{ opacity: 0.7; }} }}
@media (prefers-reduced-motion: reduce) {{
  {busy}, {waiting} {{ animation: attention-lab-appear 0s linear {DELAY_S}s both; }}
}}
</style>"""


ACTIONS = (
    BUTTON,
    f"{testid('stPageLink')} a",
    f'{testid("stButtonGroup")} button[aria-checked="false"]',
)
"""What a learner clicks that always asks for a run: a button, a page link, an option of a
segmented control or pills that is not chosen yet."""

BUSY_SCRIPT = f"""<script>
(() => {{
  if (window.attentionLabBusy) return;
  const root = document.documentElement, running = {list(RUNNING_STATES)!r};
  const positions = {list(SENTENCE_POSITIONS)!r};  // places in the old sentence
  let app = null, observer = null, started = false, timer = null, pending = null;
  const done = () => {{ root.removeAttribute("{WAITING_ATTR}"); clearTimeout(timer); timer = null; }};
  const runs = () => running.includes(app.getAttribute("{SCRIPT_STATE}"));
  const here = () => location.pathname + location.search;
  const down = () => document.querySelector('{CONNECTION_STATUS}') !== null;
  // An action waits for its run: if the connection drops first, ask again once the page is back
  // (connected, idle for three looks in a row) at the address it had when the action was made.
  const look = () => {{
    if (!pending) return;
    if (down()) {{
      if (!pending.dropped) pending.atDrop = here();  // what the page showed when it dropped
      pending.dropped = true;
      pending.idle = 0;
    }}
    else if (!pending.dropped) {{ if (!root.hasAttribute("{WAITING_ATTR}")) {{ pending = null; return; }} }}
    else if (app && runs()) pending.idle = 0;
    else if (++pending.idle >= 3) {{
      const lost = pending.atDrop === pending.where, sentence = pending.sentence;
      pending = null;
      if (!lost) return;
      if (sentence == null) {{ root.setAttribute("{LOST_ATTR}", ""); return; }}
      // An Enter: the fresh session showed the address bar's sentence, and the box, which
      // thinks its text applied, would not send it again: load the page with it instead.
      const url = new URL(location.href);
      url.searchParams.set("sentence", sentence);
      positions.forEach((name) => url.searchParams.delete(name));
      location.assign(url.toString());
      return;
    }}
    if (Date.now() - pending.since > {GIVE_UP_S * 1000}) {{ pending = null; return; }}
    setTimeout(look, {POLL_MS});
  }};
  const watch = () => {{
    const now = document.querySelector('{APP_ROOT}');
    if (!now || now === app) return;
    if (observer) observer.disconnect();
    app = now;
    observer = new MutationObserver((records) => {{
      // a run that began and ended between two callbacks shows only in the records' old values
      if (records.some((r) => running.includes(r.oldValue)) || runs()) started = true;
      if (started && !runs()) {{ started = false; done(); }}
    }});
    observer.observe(app, {{attributes: true, attributeOldValue: true, attributeFilter: ["{SCRIPT_STATE}"]}});
  }};
  window.attentionLabBusy = {{
    waitingAt() {{ return pending ? pending.where : null; }},  // an action not answered yet: its address
    expectRun(sentence = null) {{  // a run was asked for (an Enter: with its sentence): wait for it
      watch();
      root.removeAttribute("{LOST_ATTR}");
      if (!app) return;
      const first = !pending;
      pending = {{where: here(), since: Date.now(), dropped: false, idle: 0, atDrop: null, sentence}};
      if (first) setTimeout(look, {POLL_MS});
      started = runs();  // a run under way now is stopped and followed by the one asked for
      root.setAttribute("{WAITING_ATTR}", "");
      clearTimeout(timer);
      timer = setTimeout(done, {GIVE_UP_S * 1000});
    }},
  }};
  document.addEventListener("click", (event) => {{
    if (event.button || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    const hit = event.target.closest && event.target.closest({", ".join(ACTIONS)!r});
    if (hit && !hit.disabled) window.attentionLabBusy.expectRun();
  }}, true);
}})();
</script>"""
"""Marks the page as waiting from an action that asks for a run until that run has ended, and as
having lost that action when the connection dropped first. A constant: no learner text in it."""


def busy_note(words: str, lost: str) -> None:
    """Add the notes' style sheet to this run (early in the sidebar, which every run draws first);
    ``words`` is what the waiting note says (``t("shell.busy")``), ``lost`` what the note after a
    lost click says (``t("shell.click_lost")``). ``BUSY_SCRIPT`` goes in the sidebar's script
    element (``sidebar.sidebar``)."""
    st.html(busy_css(words, lost))  # only <style>: Streamlit puts it in the event container, no space taken


def slow_run() -> None:
    """Sleep ``$ATTENTION_LAB_SLOW_RUN`` seconds (a slow run on purpose); nothing when unset."""
    try:
        seconds = float(os.environ.get(SLOW_ENV) or 0)
    except ValueError:
        return
    if 0 < seconds <= 30:
        time.sleep(seconds)
