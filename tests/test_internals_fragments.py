"""Canary of ``internals.rescue_lost_fragment_reruns``: what it assumes about Streamlit's
``AppSession.request_rerun``, checked on the installed package with a bare session.

Streamlit 1.67 drops a learner's rerun request that names a fragment the session does not hold
(a page that reconnected to a new session after a server restart: its first click inside a
part of the page that reruns alone did nothing). The rescue turns such a request into a run of
the whole app with the same widget states. If an upgrade changes the method, what it reads or
the drop itself, these tests fail and say what to do. The browser test that the click counts
is ``tests/browser/test_reconnect.py::test_a_click_inside_a_part_after_a_server_restart_counts``.
"""

from __future__ import annotations

import inspect
import re

import pytest
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime.app_session import AppSession, AppSessionState
from streamlit.runtime.fragment import MemoryFragmentStorage

from attention_ui import internals
from tests.test_internals import bundle

HELD, GONE = "held-fragment", "gone-fragment"
UPGRADE = (
    f"attention_ui/internals.py (rescue_lost_fragment_reruns) was checked with {internals.CHECKED_WITH}: "
    "Streamlit's AppSession.request_rerun changed. "
)


class BareSession(AppSession):
    """An AppSession made without ``__init__``: nothing to shut down when it is collected."""

    def __del__(self) -> None:
        pass


def bare_session() -> tuple[AppSession, list]:
    """An AppSession with only what ``request_rerun`` reads (state, fragments, client state, no
    script runner), whose new script runs are recorded instead of started: their RerunData."""
    session = BareSession.__new__(BareSession)
    session._state = AppSessionState.APP_NOT_RUNNING
    session._fragment_storage = MemoryFragmentStorage()
    session._fragment_storage.register(HELD, lambda: None)
    session._client_state = ClientState()
    session._scriptrunner = None
    runs: list = []
    session._create_scriptrunner = runs.append  # type: ignore[method-assign]
    return session, runs


def click(fragment_id: str, *, auto: bool = False) -> ClientState:
    """A learner's click as the browser sends it: every widget's state, the page, the fragment."""
    state = ClientState(page_script_hash="page-hash", query_string="step=2", fragment_id=fragment_id)
    state.is_auto_rerun = auto
    widget = state.widget_states.widgets.add()
    widget.id = "$$ID-step_next"
    widget.trigger_value = True
    return state


def call(method, session: AppSession, state: ClientState | None) -> None:
    """``method(session, state)``, failing with what to do if it reads something a bare session lacks."""
    try:
        method(session, state)
    except (AttributeError, TypeError) as exc:
        pytest.fail(
            UPGRADE + f"It reads something a bare session lacks ({exc!r}): update bare_session, and check "
            "that a rerun of a fragment the session does not hold still ends where the rescue expects."
        )


def original() -> object:
    internals.rescue_lost_fragment_reruns()
    return inspect.unwrap(AppSession.request_rerun)


def test_streamlit_still_drops_a_rerun_of_a_fragment_the_session_does_not_hold():
    """What the rescue works around: if this fails, Streamlit runs such a request now, and the
    rescue may be needless (check tests/browser/test_reconnect.py without it, then remove it)."""
    session, runs = bare_session()
    call(original(), session, click(GONE))
    assert runs == [], UPGRADE + "It no longer drops a rerun of a fragment the session does not hold: see above."
    call(original(), session, click(HELD))
    assert [run.fragment_id for run in runs] == [HELD], UPGRADE + "A held fragment's rerun no longer starts a run."


def test_the_rescue_runs_the_whole_app_with_the_click_s_widget_states():
    internals.rescue_lost_fragment_reruns()
    session, runs = bare_session()
    call(AppSession.request_rerun, session, click(GONE))
    assert len(runs) == 1, UPGRADE + "The rescued click started no run."
    run = runs[0]
    assert run.fragment_id is None and not run.fragment_id_queue, "a whole-app run, not a fragment's"
    assert [(w.id, w.trigger_value) for w in run.widget_states.widgets] == [("$$ID-step_next", True)]
    assert (run.page_script_hash, run.query_string) == ("page-hash", "step=2")


def test_the_rescue_leaves_a_held_fragment_and_a_timed_rerun_alone():
    internals.rescue_lost_fragment_reruns()
    session, runs = bare_session()
    call(AppSession.request_rerun, session, click(HELD))
    assert [run.fragment_id for run in runs] == [HELD], "a fragment the session holds reruns alone"
    call(AppSession.request_rerun, session, click(GONE, auto=True))
    assert len(runs) == 1, "a timed auto-rerun of a fragment gone is dropped, as Streamlit means"
    AppSession.request_rerun(session, None)  # "rerun with the previous client state": untouched
    assert len(runs) == 2 and runs[1].fragment_id is None


def test_the_rescue_installs_once():
    internals.rescue_lost_fragment_reruns()
    first = AppSession.request_rerun
    internals.rescue_lost_fragment_reruns()
    assert AppSession.request_rerun is first
    assert inspect.unwrap(first) is not first and not getattr(inspect.unwrap(first), "__wrapped__", None)


def test_what_the_rescue_reads_is_where_it_reads_it():
    params = list(inspect.signature(original()).parameters)
    assert params == ["self", "client_state"], UPGRADE + f"Its parameters are now {params}."
    assert callable(getattr(AppSession, "has_fragment", None)), UPGRADE + "AppSession.has_fragment is gone."
    fields = set(ClientState.DESCRIPTOR.fields_by_name)
    missing = {"fragment_id", "is_auto_rerun", "widget_states", "page_script_hash"} - fields
    assert not missing, UPGRADE + f"ClientState lost {missing}."


def test_the_browser_asks_for_a_run_on_reconnecting_while_a_fragment_has_a_timer():
    """What ``internals.ask_for_a_run_on_reconnect`` relies on: Streamlit's frontend, once
    reconnected, asks for a whole run when a fragment has a timer (``autoRerunIntervals``), and
    a timer comes from ``run_every`` (an ``auto_rerun`` message)."""
    text = bundle()
    asks = re.search(
        r"handleConnectionStateChanged=.{0,900}?autoRerunIntervals\.size>0\?"
        r".{0,120}?sendUpdateWidgetsMessage\(void 0\)",
        text,
    )
    assert asks, UPGRADE + (
        "The frontend no longer asks for a run on reconnecting while a fragment has a timer "
        "(handleConnectionStateChanged / autoRerunIntervals): find what makes it run the app on "
        "reconnecting, or the first click inside a fragment after a restart is lost again."
    )
    assert re.search(r"handleAutoRerun=.{0,300}?autoRerunIntervals\.set\(", text), UPGRADE + (
        "The frontend no longer keeps a timer for a fragment's run_every (handleAutoRerun)."
    )
