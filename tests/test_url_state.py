"""URL state (attention_ui.url_state): the one module that reads and writes st.query_params,
the ids it keeps in the URL, and the links made before a choice had its id."""

from __future__ import annotations

import re
import subprocess
from collections import UserDict

import pytest

from attention_ui.registry import PAGES
from attention_ui.url_state import OLD_LINKS, keep_in_url, parse_choice, usable
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
    # The repository's files, committed or new, without what .gitignore leaves out (.venv's
    # thousands of installed packages, caches): none of those is the project's text.
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    paths = [ROOT / name for name in listed if name.endswith((".py", ".md", ".toml", ".sh"))]
    assert len(paths) > 100, len(paths)  # the listing found the project's files
    found = [
        str(path.relative_to(ROOT))
        for path in paths
        if path.is_file() and cited.search(path.read_text(encoding="utf-8", errors="replace"))
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
    assert not any(v in UNUSABLE for v in left), left
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


# --------------------------------------------------------------------------- every parameter, every page

HOSTILE_FORMS = {  # values of no form the parameter takes: dropped before the run, on any page
    "flag": ("maybe", "1", "<b>on</b>"),
    "whole": ("4e15", "0x10", "٣", "1_000", " 5", "9" * 40),
    "number": ("nan", "0x1p3", "٣.5", "1e999", "--1", "1,5"),
    "position": ("4e15", "0x10", "٣", "-1", "abc", "2.0"),
    "id": ("../../etc/passwd", "<script>alert(1)</script>", "a b", "x" * 80, "é"),
}
HOSTILE_VALUES = {"whole": "9999999", "number": "999", "position": "999", "id": "zzz"}
"""Values of the right form that no page can use: out of every range, no choice's id."""
SIDEBAR_READS = ("w", "cjk", "layer", "head", "d_k", "seed", "lang")  # on every page, with ?toy=true
PAGE_READS = {  # what each page reads beyond the sidebar, on the view a link opens (and ``REVEAL``)
    "home": (),
    "intuition": ("eye_x", "eye_y", "eye_r", "read_beta", "budget_beta"),
    "tailor_shop": ("imp_cut", "want_cut", "match", "sharpness"),
    "step_by_step": ("token", "step"),
    "matrices": ("matrix",),
    "after_attention": ("layer_step", "layers_view", "vector_view"),
    "why_scaling": ("exp_d_k", "sweep"),
    "similarity": ("q_angle", "q_length", "k_angle", "k_length", "token", "vectors"),
    "cross_attention": ("self_of",),
    "multi_head": ("heads",),
    "learn": ("task", "steps", "train_seed", "snapshot", "learn_head", "qk", "learn_query", "learn_step")
    + ("gen_step", "temperature", "sample_seed", "write_from"),
    "real_model": ("model_token", "model_matrix"),
    "heads": ("heads_view", "measure"),
    "exercises": ("ex_kind", "ex_source", "ex_seed"),
    "code": ("token",),
    "class": (),  # ?class= and ?teacher= are checked by the page itself (tests/test_class_page.py)
}
REVEAL = {"learn": {"trained": "true"}}  # a trained run: the learn page's later parts read their parameters


def _named(at, name: str) -> list[str]:
    """The notes on the page about ``?name=``."""
    from attention_ui.safe import escape_markdown

    shown = f" {escape_markdown(name)} = "
    return [box.value for box in at.info if shown in box.value and "link" in box.value]


def _open_with(page_id: str, params: dict[str, str]):
    from streamlit.testing.v1 import AppTest

    from tests.helpers import APP

    at = AppTest.from_file(APP, default_timeout=300)
    at.switch_page(f"pages/{page_id}.py")
    for name, value in {"toy": "true", **REVEAL.get(page_id, {}), **params}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, f"{page_id} with {params}: {at.exception}"
    return at


def _left(at, name: str) -> list[str]:
    values = at.query_params[name] if name in at.query_params else []
    return [values] if isinstance(values, str) else list(values)


@pytest.mark.parametrize("page_id", [entry.id for entry in PAGES])
@pytest.mark.parametrize("round_", [0, 1])
def test_values_of_no_form_a_parameter_takes_are_dropped_with_a_note(page_id, round_):
    """Every parameter a page reads (all of URL_PARAMS at once), each with a value of no form it
    takes (``?first=0x10``, ``?seed=٣``, ``?model=../../etc/passwd``): gone from the URL, and the
    page says so for each."""
    from attention_ui.url_state import URL_PARAMS

    sent = {}
    for n, (key, form) in enumerate(URL_PARAMS.items()):
        if form in HOSTILE_FORMS:
            values = HOSTILE_FORMS[form]
            sent[key.replace("*", "cut")] = values[(n + round_ * 3) % len(values)]
    at = _open_with(page_id, sent)
    for name, value in sent.items():
        assert value not in _left(at, name), f"{page_id} kept ?{name}={value!r}"
        assert _named(at, name), f"{page_id} dropped ?{name}={value!r} without a note"
    at.run()  # and the page runs on
    assert not at.exception


@pytest.mark.parametrize("page_id", [entry.id for entry in PAGES])
def test_values_of_the_right_form_a_page_cannot_use_are_dropped_with_a_note(page_id):
    """Out of range, no choice's id: every parameter the page reads, at once. Dropped or
    corrected (a layer out of range shows the last layer), with a note each."""
    from attention_ui.url_state import param_form

    names = SIDEBAR_READS + PAGE_READS[page_id]
    sent = {name: HOSTILE_VALUES[param_form(name)] for name in names if name != "lang"} | {"lang": "xx"}
    at = _open_with(page_id, sent)
    for name, value in sent.items():
        assert value not in _left(at, name), f"{page_id} kept ?{name}={value!r}"
        assert _named(at, name), f"{page_id} dropped ?{name}={value!r} without a note"


def test_page_reads_name_every_page():
    assert set(PAGE_READS) == {entry.id for entry in PAGES}


def test_a_view_behind_another_reads_its_parameter_too():
    at = _open_with("after_attention", {"layer_step": "norm_1", "after_token": "999"})
    assert "999" not in _left(at, "after_token") and _named(at, "after_token")


def test_the_issues_links_are_cleaned():
    """The four values of issue 44, which stayed in the address bar and the share link."""
    for name, value in (("first", "4e15"), ("first", "0x10"), ("seed", "٣"), ("model", "../../etc/passwd")):
        at = _open_with("step_by_step", {name: value, "sentence": "the cat sat on the mat"})
        assert name not in at.query_params, (name, value, dict(at.query_params))
        assert _named(at, name)


def test_good_values_stay_without_a_note():
    good = {"seed": "42", "d_k": "8", "w": "random", "token": "2", "step": "3", "lang": "zh", "present": "true"}
    at = _open_with("step_by_step", {**good, "sentence": "the cat sat on the mat"})
    assert not [box.value for box in at.info if "链接" in box.value or "link asked" in box.value]
    for name, value in good.items():
        assert _left(at, name) == [value], (name, dict(at.query_params))
    assert usable("seed", "42") and not usable("seed", "٣")


def test_auto_model_is_the_shells():
    from attention_ui import settings, url_state

    assert url_state.AUTO_MODEL == settings.AUTO_MODEL


def _params_in_code() -> set[str]:
    """Every URL parameter the code reads: widgets bound to the URL (their keys), and the names
    given to url_state's readers (url_choice, url_tabs, url_int, url_picker, token_picker,
    url_value, keep_in_url). A key written as a name is looked up in its module; an f-string
    gives its literal start (``imp_{group}`` → ``imp_*``)."""
    import ast
    import importlib

    readers = {"url_choice": 1, "url_tabs": 0, "url_int": 0, "url_picker": 1, "url_value": 0, "keep_in_url": 0}
    found = set()
    files = [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "attention_ui").glob("*.py"))]
    for path in files:
        if path.name == "url_state.py":
            continue
        module = f"attention_ui.{path.stem}" if path.parent.name == "attention_ui" else None
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            keywords = {k.arg: k.value for k in node.keywords}
            if "bind" in keywords:
                arg = keywords.get("key")
            elif called == "token_picker":
                arg = keywords.get("param", ast.Constant("token"))
            elif called in readers and len(node.args) > readers[called]:
                arg = node.args[readers[called]]
            else:
                continue
            if isinstance(arg, ast.Constant):
                found.add(arg.value)
            elif isinstance(arg, ast.JoinedStr):
                found.add(arg.values[0].value + "*")
            elif isinstance(arg, ast.Name) and module:
                found.add(getattr(importlib.import_module(module), arg.id))
            else:
                raise AssertionError(f"{path.name}: a URL parameter named by {ast.unparse(arg)}: add a case here")
    return found


def test_every_parameter_in_the_code_has_a_form():
    from attention_ui.url_state import URL_PARAMS, param_form

    in_code = _params_in_code()
    assert len(in_code) > 60
    missing = sorted(name for name in in_code if param_form(name.replace("*", "x")) is None)
    assert not missing, f"read by the code, not in url_state.URL_PARAMS: {missing}"
    unused = sorted(set(URL_PARAMS) - in_code)
    assert not unused, f"in url_state.URL_PARAMS, read nowhere: {unused}"
