"""A presenter's remote and the keyboard: → / PageDown / Space go on, ← / PageUp go back.

A teacher at a projector holds a clicker, which sends →, ←, PageDown and PageUp (some send Space
too). On Step by step they press Next and Back; on a page with one row of views (Attention
matrices) they move to the next or the previous view. At the last step or view, and on a page
with neither (or with several rows of views, where a key could not say which row it means),
they follow the lesson path's Next or Back link (``lesson_path``) to the next or previous page.
Never while the focus is in a text box, a select or on a control that the key already works
(Space on a focused button presses it); but once Enter has applied the sentence box, its keys move
the lesson until the teacher types again (``APPLIED``), so that a teacher can type a
sentence, press Enter and go on with the remote.

Streamlit's ``st.button(shortcut=…)`` takes one key per button, and a clicker needs two or three;
so this is a small script (``st.html`` with JavaScript) that clicks the same buttons and links a
learner clicks, through the page structure ``internals`` names.

>>> "ArrowRight" in CLICKER_SCRIPT and "PageDown" in CLICKER_SCRIPT
True
"""

from __future__ import annotations

import streamlit as st

from .internals import key_class, key_prefix, testid

FORWARD = ("ArrowRight", "PageDown", " ")
BACKWARD = ("ArrowLeft", "PageUp")
NEXT_KEY, BACK_KEY = "step_next", "step_back"
"""The Streamlit keys of Step by step's Next and Back buttons."""
PATH_KEY, PATH_NEXT_KEY, PATH_BACK_KEY = "lesson_path", "path_next", "path_back"
"""The keys of the lesson path's row (``lesson_path``; the print style sheet leaves it out) and of
the containers of its Next and Back links."""
APPLIED = "applied"
"""The sentence box's ``data-applied`` is "true" from the moment Enter applies the sentence until the
learner types again (``sentence_box.ENTER_SCRIPT`` sets and clears it): the keys then move the
lesson, not the cursor."""
VIEWS_SUFFIX = "_tab"
"""``url_state.url_tabs`` keys its row of views ``<name>_tab``."""

CLICKER_SCRIPT = f"""<script>
(() => {{
  if (window.attentionLabClicker) return;
  window.attentionLabClicker = true;
  const forward = {list(FORWARD)!r}, backward = {list(BACKWARD)!r};
  const typing = (el) => el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  document.addEventListener("keydown", (event) => {{
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const ahead = forward.includes(event.key), behind = backward.includes(event.key);
    if (!ahead && !behind) return;
    const focus = document.activeElement;
    if (typing(focus) && (focus.dataset.{APPLIED} !== "true" || event.key === " ")) return;  // typing (a space too)
    if (event.key === " " && focus && focus.closest("button, a, [role=radio], [role=slider]")) return;
    const main = document.querySelector('{testid("stMain")}');
    if (!main) return;
    const go = (el) => {{ event.preventDefault(); if (el && !el.disabled) el.click(); }};
    const step = main.querySelector(ahead ? '.{key_class(NEXT_KEY)} button' : '.{key_class(BACK_KEY)} button');
    if (step && !step.disabled) return go(step);
    const rows = main.querySelectorAll('{key_prefix("")}[class*="{VIEWS_SUFFIX}"] {testid("stButtonGroup")}');
    if (!step && rows.length === 1) {{  // several rows: which one would be meant? The page moves on
      const options = [...rows[0].querySelectorAll("button")];
      const now = options.findIndex((b) => b.getAttribute("aria-checked") === "true");
      const next = now < 0 ? null : options[now + (ahead ? 1 : -1)];
      if (next) return go(next);
    }}
    const page = main.querySelector(ahead ? '.{key_class(PATH_NEXT_KEY)} a' : '.{key_class(PATH_BACK_KEY)} a');
    if (page || step) go(page);  // the first or last step: the page before or after it
  }}, true);
}})();
</script>"""


def clicker() -> None:
    """Add the clicker's script to the page (once per run; the script installs itself once)."""
    st.html(CLICKER_SCRIPT, unsafe_allow_javascript=True)
