"""A check against PyTorch that the learner asks for and may cancel, with its result kept in the session.

Real model heads and The code offer "Check against PyTorch". The check runs in a child process
(``attention_core.isolated``) and takes seconds; ``pytorch_check`` draws the button, and once
it is pressed runs the check under a spinner with a Cancel button beside it. Streamlit stops a
script run only at its next message to the browser, and a run waiting for a child sends none:
so while the check runs, ``isolated.run_isolated`` calls ``_Beat`` five times a second, which
empties a placeholder (one tiny message). At that message Streamlit raises its rerun (a click
on Cancel, or on anything else on the page) or its stop (the session ends, the server shuts
down), and ``run_isolated`` kills the child before the exception goes on. A check that times out
or whose process dies says so and offers the button again.

Example: ``pytorch_check("torch_check", ids.tobytes(), lambda wait: compare(trace,
while_waiting=wait), button=..., cost=..., running=...)`` returns the comparison once the check
has run on these word pieces, else None.
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from attention_core.isolated import TIMEOUT_S, CheckFailed, checks_enabled
from attention_ui.i18n import t


def fingerprint(*values) -> bytes:
    """What a check ran on, in 32 bytes: the SHA-256 of the values' bytes (arrays or numbers).

    >>> fingerprint(np.eye(2), 0.5) == fingerprint(np.eye(2), 0.5) != fingerprint(np.eye(2), 1.0)
    True
    """
    return hashlib.sha256(b"".join(np.ascontiguousarray(v).tobytes() for v in values)).digest()


class _Beat:
    """``while_waiting`` for a check run from a page: one empty element sent to the browser per
    call, so that Streamlit can stop the run there (a cancel, a page change, a shutdown)."""

    def __init__(self):
        self.slot = st.empty()

    def __call__(self) -> None:
        self.slot.empty()


def _ask(key: str, fingerprint) -> None:
    st.session_state[f"_{key}_asked"] = fingerprint


def _cancel(key: str) -> None:
    st.session_state.pop(f"_{key}_asked", None)
    st.session_state[f"_{key}_cancelled"] = True


def checked(key: str, fingerprint):
    """The result of the check ``key`` on ``fingerprint`` when it has run in this session, else None
    (a page that prints the check only once it has a result asks first).

    >>> checked("torch_check", b"ids") is None  # outside a Streamlit session: nothing kept
    True
    """
    try:
        done = st.session_state.get(f"_{key}_result")
    except Exception:  # no session (bare import)
        return None
    return done[1] if done is not None and done[0] == fingerprint else None


def pytorch_check(key: str, fingerprint, run, *, button: str, cost: str, running: str):
    """The check's result for ``fingerprint`` (what it checks, e.g. the word pieces' bytes)
    once it has run, else None; draws the button (widget key ``key``), or the running check and
    its Cancel button (``<key>_cancel``).

    ``run(while_waiting)`` runs the check (``while_waiting`` goes to ``run_isolated``) and
    returns its result, or None when it could not run (the page has said why): a None is not
    kept, so the button comes back. The result is kept in session state as ``_<key>_result``.
    """
    state = st.session_state
    done = checked(key, fingerprint)
    if done is not None:
        return done
    if not checks_enabled():
        st.caption(t("shell.checks_off"))
        return None
    top, below = st.empty(), st.empty()
    checking = state.get(f"_{key}_asked") == fingerprint
    # The button keeps its place, greyed out while the check runs (a keyed element that left its
    # place would stay on the page, stale, until the run ends); Cancel and the spinner go below.
    top.button(button, icon=":material/science:", key=key, on_click=_ask, args=(key, fingerprint), disabled=checking)
    if not checking:
        below.caption(t("checks.cancelled") if state.pop(f"_{key}_cancelled", False) else cost)
        return None
    beat, result = _Beat(), None
    try:
        with below.container():
            st.button(t("checks.cancel"), icon=":material/cancel:", key=f"{key}_cancel", on_click=_cancel, args=(key,))
            with st.spinner(running, show_time=True):
                result = run(beat)
    except TimeoutError:
        st.warning(t("checks.timeout", seconds=round(TIMEOUT_S)))
    except CheckFailed:
        st.warning(t("checks.failed"))
    finally:
        state.pop(f"_{key}_asked", None)  # also when the run is stopped: the button comes back
    top.empty()
    if result is not None:  # else ``below`` keeps what the page said about why the check could not run
        below.empty()
        state[f"_{key}_result"] = (fingerprint, result)
    return result
