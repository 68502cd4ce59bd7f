"""The check against PyTorch as a page offers it (attention_ui/checks.py): the button, the result
kept for what it checked, and what a timeout, a dead child or a check that cannot run leave.

The check itself is a stand-in here (``run`` below); the real ones run in tests/test_isolated.py,
tests/test_code_page.py and tests/test_real_model_page.py, and Cancel in a real browser in
tests/browser/test_stopping.py.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from attention_ui.i18n import translate


def page():
    import streamlit as st

    from attention_core.isolated import CheckFailed
    from attention_ui.checks import pytorch_check

    outcome = st.session_state.get("outcome", "ok")
    beats = st.session_state.setdefault("beats", [])

    def run(while_waiting):
        while_waiting()  # what run_isolated calls while the child runs
        beats.append(1)
        if outcome == "timeout":
            raise TimeoutError("too long")
        if outcome == "failed":
            raise CheckFailed("the child died")
        if outcome == "none":
            st.info("this server cannot run it")
            return None
        return {"largest": 1e-16, "what": st.session_state.get("what", "a")}

    found = pytorch_check(
        "check", st.session_state.get("what", "a").encode(), run, button="Check", cost="It costs", running="Running"
    )
    st.write(f"found: {found}")


def opened(**state) -> AppTest:
    at = AppTest.from_function(page, default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def found(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("found:"))


def test_the_check_runs_on_request_and_is_kept_for_what_it_checked():
    at = opened()
    assert found(at) == "found: None" and at.button(key="check").label == "Check"
    assert [c.value for c in at.caption] == ["It costs"]
    at.button(key="check").click().run()
    assert found(at) == "found: {'largest': 1e-16, 'what': 'a'}"
    assert at.session_state["beats"] == [1]
    assert not [b for b in at.button if b.key == "check"], "done: the button is gone"
    at.run()
    assert found(at).endswith("'what': 'a'}") and at.session_state["beats"] == [1], "kept, not run again"
    at.session_state["what"] = "b"  # another sentence: the button comes back
    at.run()
    assert found(at) == "found: None" and at.button(key="check")


@pytest.mark.parametrize(
    ("outcome", "said"),
    [
        ("timeout", translate("en", "checks.timeout", seconds=300)),
        ("failed", translate("en", "checks.failed")),
        ("none", "this server cannot run it"),
    ],
)
def test_a_check_without_an_answer_says_why_and_offers_the_button_again(outcome, said):
    at = opened(outcome=outcome)
    at.button(key="check").click().run()
    assert not at.exception, at.exception
    assert said in [w.value for w in at.warning] + [i.value for i in at.info]
    assert found(at) == "found: None"
    at.run()
    assert at.button(key="check") and not at.button(key="check").disabled
    assert "_check_result" not in at.session_state


def test_after_a_cancel_the_caption_says_so_once():
    at = opened(_check_cancelled=True)  # what the Cancel button's callback leaves
    assert [c.value for c in at.caption] == [translate("en", "checks.cancelled")]
    at.run()
    assert [c.value for c in at.caption] == ["It costs"]


def test_switched_off_there_is_no_button(monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_PYTORCH_CHECKS", "off")
    at = opened()
    assert not at.button and translate("en", "shell.checks_off") in [c.value for c in at.caption]
