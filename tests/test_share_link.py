"""The sidebar's link to this view: drawn only once its expander is opened.

The link is a code block (it has a copy button), and Streamlit's code block makes the browser
load its syntax highlighter; drawn in a closed expander on every page, that cost every new
learner's first visit about half a second (``bench_fresh --trace``)."""

from __future__ import annotations

from attention_ui.route import SHARE_KEY
from tests.helpers import open_link


def test_the_link_is_drawn_only_when_its_expander_is_open():
    at = open_link("pages/step_by_step.py", step="3", toy=False)
    assert not at.code, [c.value for c in at.code]  # closed: no code block sent
    at.session_state[SHARE_KEY] = True  # what a click on the expander sets
    at.run()
    assert not at.exception, at.exception
    links = [c.value for c in at.code]
    assert len(links) == 1 and "step=3" in links[0], links  # the page's own parameters, in the link
    at.session_state[SHARE_KEY] = False
    at.run()
    assert not at.code


def test_an_exercises_link_is_drawn_only_when_opened():
    at = open_link("pages/exercises.py", ex_seed="12", toy=False)
    assert not at.code, [c.value for c in at.code]
    at.session_state["exercise_share_open"] = True
    at.run()
    assert not at.exception, at.exception
    assert len(at.code) == 1 and "ex_seed=12" in at.code[0].value, [c.value for c in at.code]
