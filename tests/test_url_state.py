"""URL state (attention_ui.url_state): the one module that reads and writes st.query_params,
the ids it keeps in the URL, and the links made before a choice had its id."""

from __future__ import annotations

import re
from collections import UserDict

import pytest

from attention_ui.registry import PAGES
from attention_ui.url_state import OLD_LINKS, keep_in_url, parse_choice, unusable_number
from tests.helpers import ROOT, open_link


class _RecordingParams(UserDict):
    """A stand-in for st.query_params (a MutableMapping, so ``pop`` goes through ``__delitem__``)
    that counts the writes: each one is a message to the browser."""

    def __init__(self, **params):
        self.writes = 0
        super().__init__(**params)
        self.writes = 0

    def __setitem__(self, key, value):
        self.writes += 1
        super().__setitem__(key, value)

    def __delitem__(self, key):
        self.writes += 1
        super().__delitem__(key)


def test_keep_in_url_writes_only_what_changed(monkeypatch):
    import streamlit

    params = _RecordingParams(lang="en", step="3")
    monkeypatch.setattr(streamlit, "query_params", params)
    keep_in_url("step", 3)  # the URL already says so: nothing is sent
    keep_in_url("lang", "en")
    assert params.writes == 0 and params == {"lang": "en", "step": "3"}
    keep_in_url("step", 4)
    keep_in_url("token", 0)
    assert params.writes == 2 and params == {"lang": "en", "step": "4", "token": "0"}
    keep_in_url("match", "dot", "dot")  # the default, absent: nothing to drop
    assert params.writes == 2
    keep_in_url("step", 0, 0)  # the default, present: dropped
    assert params.writes == 3 and params == {"lang": "en", "token": "0"}


def test_only_url_state_touches_query_params():
    """Pages, the shell and the other UI modules go through url_state, so what the URL keeps
    and how has one home."""
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "attention_ui").glob("*.py"))]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in files
        if path.name != "url_state.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "st.query_params" in line
    ]
    assert not found, f"these read or write st.query_params outside attention_ui/url_state.py: {found}"


@pytest.mark.parametrize(
    ("raw", "options", "expected"),
    [
        ("cosine", ("dot", "cosine"), "cosine"),
        ("COSINE", ("dot", "cosine"), None),  # ids are exact
        ("5", (0.5, 5.0), 5.0),  # a number matches by value
        ("5.0", (0.5, 5.0), 5.0),
        ("1e99", (0.5, 5.0), None),
        ("nan", (0.5, 5.0), None),
        ("<script>", ("attend", "order"), None),
        (None, ("a",), None),
    ],
)
def test_parse_choice(raw, options, expected):
    assert parse_choice(raw, options) == expected


def test_an_old_identity_link_opens_identity_w():
    """?identity=true, from before the three-way W choice, still opens identity W; the URL is
    rewritten to the id."""
    assert OLD_LINKS["w"] == ("identity", "true", "identity")
    at = open_link("pages/matrices.py", identity="true")
    assert at.session_state["w"] == "identity"
    assert at.query_params["w"] in ("identity", ["identity"])
    assert "identity" not in at.query_params


def test_a_choice_at_its_default_is_left_out_of_the_link():
    at = open_link("pages/tailor_shop.py", match="cosine", want_cut="mens")
    assert at.query_params["match"] in ("cosine", ["cosine"])
    assert "want_cut" not in at.query_params  # "mens" is the default


def test_no_file_cites_a_document_outside_the_repository():
    """A reader has only the repository: no section of a guide that is not in it is cited."""
    cited = re.compile(r"\bGUIDE(\.md)?\s*§")
    found = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if path.suffix in {".py", ".md", ".toml", ".sh"}
        and ".git" not in path.parts
        and cited.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not found, found


NUMERIC_PARAMS = (  # every number a link can carry, on any page (sidebar, pickers, sliders, inputs)
    "seed", "d_k", "token", "step", "layer", "head", "model_token", "after_token", "ex_seed", "heads",
    "exp_d_k", "eye_x", "eye_y", "eye_r", "read_beta", "budget_beta", "sharpness", "q_angle", "q_length",
    "k_angle", "k_length",
)  # fmt: skip
UNUSABLE = ("inf", "-inf", "1e309", "nan", "9" * 5000)


@pytest.mark.parametrize("value", UNUSABLE, ids=["inf", "-inf", "1e309", "nan", "5000 digits"])
@pytest.mark.parametrize("page_id", [entry.id for entry in PAGES])
def test_numbers_no_widget_can_take_are_dropped_on_every_page(page_id, value):
    """?seed=inf once broke every page: Streamlit converted it with int() before its range check."""
    at = open_link(page_id, **dict.fromkeys(NUMERIC_PARAMS, value))
    assert at.title
    notes = [box.value for box in at.info if "not a number this page can use" in box.value]
    assert notes, "the page says which values it dropped"
    left = [v for values in at.query_params.values() for v in ([values] if isinstance(values, str) else values)]
    assert not any(unusable_number(v) for v in left), left
    at.run()
    assert not at.exception


def test_a_position_at_its_default_is_left_out_of_the_link():
    """``url_int`` keeps a position as the number shown, and leaves it out at its default, as
    every default is (issue 30); a link that names the default opens it all the same."""
    at = open_link("pages/step_by_step.py", sentence="the dog sat", step="1", token="1")
    assert at.session_state["step"] == 0 and at.session_state["token"] == 0
    assert "step" not in at.query_params and "token" not in at.query_params
    at = open_link("pages/step_by_step.py", sentence="the dog sat", step="3")
    assert at.session_state["step"] == 2 and at.query_params["step"] in ("3", ["3"])
    at.button_group(key="token_picker").set_value(2).run()  # the third token: ?token=3
    assert at.query_params["token"] in ("3", ["3"])
    at.button_group(key="token_picker").set_value(0).run()  # back to the first, the default
    assert not at.exception and "token" not in at.query_params


def test_the_trained_heads_layer_and_head_are_left_out_at_their_default():
    from attention_ui.settings import DEFAULTS

    at = open_link("pages/matrices.py", layer=str(DEFAULTS["layer"] + 1), head=str(DEFAULTS["head"] + 1))
    assert at.session_state["layer"] == DEFAULTS["layer"] and at.session_state["head"] == DEFAULTS["head"]
    assert "layer" not in at.query_params and "head" not in at.query_params
    at = open_link("pages/matrices.py", layer="9")  # out of range: the last layer, and the page says so
    assert at.query_params["layer"] in ("6", ["6"]) and any("layer" in box.value for box in at.info)
