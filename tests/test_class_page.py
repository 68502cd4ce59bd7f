"""The Class page and a student's ?class= view, in AppTest, in both languages.

The store is a SQLite file per test (``ATTENTION_LAB_CLASS_DB``); the numbers on the bars are
checked against the store's own counts and against shares computed here. The teacher's rights
come from the token alone: a student's session (another AppTest, without the token) has no
teacher button, and the store refuses its actions (tests/test_class_store.py)."""

from __future__ import annotations

import re

import pytest

from attention_core import class_questions as cq
from attention_ui.class_db import _store
from attention_ui.class_link import exercise_url, reachable_base, student_url
from attention_ui.i18n import translate
from classroom.config import URL_ENV, database_url
from tests.helpers import open_link


@pytest.fixture
def class_db(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'classroom.sqlite3'}"
    monkeypatch.setenv(URL_ENV, url)
    _store.clear()
    yield _store(database_url())
    _store.clear()


def labels(at) -> list[str]:
    return [b.label for b in at.button]


def html_text(at) -> str:
    return " ".join(str(h.proto.body) for h in at.get("html"))


def start_class(lang: str):
    at = open_link("pages/class.py", lang=lang)
    assert translate(lang, "class.start") in labels(at)
    at.button(key="class_start").click().run()
    assert not at.exception, at.exception
    code = at.query_params["class"]
    return at, code


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_teacher_starts_a_class_and_sees_the_answers(class_db, lang):
    at, code = start_class(lang)
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{6}", code)
    assert "teacher" not in at.query_params  # the token never reaches the address bar
    state = class_db.state(code)
    assert state.round.number == 1 and state.round.kind == "attend"
    assert translate(lang, "class.reveal") in labels(at)
    body = html_text(at)
    assert f"{code[:3]} {code[3:]}" in body and "data:image/svg+xml" in body  # the code and its QR code
    assert student_url("", code).lstrip("/") in body.replace("&amp;", "&")
    # three students answer through the store; the teacher's bars show their shares
    n_keys = len(cq.outcomes("attend", 1))
    for n, j in enumerate([0, 0, 1]):
        class_db.join(code, f"student-{n:04d}")
        assert class_db.submit(code, f"student-{n:04d}", 1, j % n_keys, f"idem-{n:04d}-aa").status == "stored"
    at.run()
    body = html_text(at)
    assert translate(lang, "class.counts", joined=3, answered=3) in body
    assert "67 % <small>(2)</small>" in body and "33 % <small>(1)</small>" in body  # 2/3 and 1/3, as shown
    assert 'class="al-right"' not in body  # not before the reveal
    at.button(key=[b.key for b in at.button if b.label == translate(lang, "class.reveal")][0]).click().run()
    assert class_db.state(code).round.revealed
    assert 'class="al-right"' in html_text(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_student_answers_once_and_may_change_until_the_reveal(class_db, lang, monkeypatch):
    # AppTest formats a radio's options in the test's thread, which has no session language
    import attention_ui.class_question as class_question

    monkeypatch.setattr(class_question, "t", lambda key, **values: translate(lang, key, **values))
    code, token = class_db.create_class("no_scaling", 4)
    at = open_link("pages/exercises.py", lang=lang, **{"class": code})
    assert translate(lang, "class.reveal") not in labels(at)  # no teacher button on a phone
    assert translate(lang, "class.student_heading", code=f"{code[:3]} {code[3:]}", n=1) in [
        h.value for h in at.subheader
    ]
    assert class_db.state(code).students == 1
    options = cq.outcomes("no_scaling", 4)
    wrong = next(o for o in options if o != "saturate")
    at.radio[0].set_value(wrong)
    at.button[[b.label for b in at.button].index(translate(lang, "class.send"))].click().run()
    assert not at.exception, at.exception
    assert class_db.counts(code, 1) == {wrong: 1}
    assert translate(lang, "class.may_change") in [c.value for c in at.caption]
    at.radio[0].set_value("saturate")
    at.button[[b.label for b in at.button].index(translate(lang, "class.send"))].click().run()
    assert class_db.counts(code, 1) == {"saturate": 1}  # changed, still one answer
    class_db.reveal(code, token)
    at.run()
    assert translate(lang, "class.send") not in labels(at)  # answers are closed
    right = translate(lang, "class.yours_right", answer=translate(lang, "class.short_saturate"))
    assert right in [s.value for s in at.success]
    assert class_db.counts(code, 1) == {"saturate": 1}


def test_the_teacher_link_opens_the_teacher_view_and_leaves_the_address_bar(class_db):
    code, token = class_db.create_class("order", 2)
    at = open_link("pages/class.py", **{"class": code, "teacher": token})
    assert translate("en", "class.reveal") in labels(at)
    assert "teacher" not in at.query_params
    at.run()  # the session keeps the token
    assert translate("en", "class.reveal") in labels(at)


def test_a_wrong_token_gives_the_student_view(class_db):
    code, token = class_db.create_class("order", 2)
    at = open_link("pages/class.py", **{"class": code, "teacher": token[:-2] + "xx"})
    assert translate("en", "class.reveal") not in labels(at)
    assert translate("en", "class.send") in labels(at)
    assert not class_db.state(code).round.revealed


@pytest.mark.parametrize("typed", ["ZZZZZZ", "<b>x</b>", "' OR 1=1 --", "", "k" * 300], ids=range(5))
@pytest.mark.parametrize("page", ["pages/exercises.py", "pages/class.py"])
def test_an_unknown_code_says_so_and_offers_the_way_on(class_db, typed, page):
    at = open_link(page, **{"class": typed})
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert errors and errors[0].startswith(translate("en", "class.unknown", code="")[:10]), errors
    assert "<b>" not in errors[0]
    links = [link.proto.page for link in at.get("page_link")][:3]  # the page's own, before the sidebar's
    assert links == ["class", "exercises", ""], links  # join another class, practise alone, home


def test_a_closed_class_is_gone_for_its_students(class_db):
    code, token = class_db.create_class("order", 2)
    at = open_link("pages/exercises.py", **{"class": code})
    class_db.close(code, token)
    at.run()
    assert [e.value for e in at.error][0].startswith(translate("en", "class.unknown", code="")[:10])


@pytest.mark.parametrize("kind", cq.KINDS)
def test_every_kind_of_exercise_can_be_asked_and_answered(class_db, kind):
    code, _ = class_db.create_class(kind, 3)
    at = open_link("pages/exercises.py", **{"class": code})
    assert not at.exception, at.exception
    assert translate("en", "class.send") in labels(at)


def test_the_exercise_link_keeps_only_what_the_exercise_uses():
    params = {
        "ex_seed": ["12"],
        "ex_kind": ["order"],
        "present": ["true"],
        "sentence": ["a sentence the order exercise never reads"],
        "toy": ["true"],
        "lang": ["zh"],
        "token": ["3"],
    }
    link = exercise_url("http://192.168.1.5:8501", params, uses_sentence=False, source=None)
    assert link == "http://192.168.1.5:8501/exercises?ex_seed=12&ex_kind=order&lang=zh"
    lesson = exercise_url("http://h", params | {"ex_kind": ["attend"]}, uses_sentence=True, source="lesson")
    assert "sentence=a+sentence" in lesson and "ex_source=lesson" in lesson and "present" not in lesson


def test_a_loopback_address_becomes_the_network_address_or_a_warning():
    assert reachable_base("http://localhost:8501/exercises?x=1", network_ip="10.1.2.3").base == "http://10.1.2.3:8501"
    assert reachable_base("http://localhost:8501/", server_address="lab.school").base == "http://lab.school:8501"
    assert reachable_base("http://localhost:8501/", base_url="https://lab.example/al/").base == "https://lab.example/al"
    assert reachable_base("http://[::1]:8501/").problem == "no_address"
    assert reachable_base("http://192.168.0.9:8501/class").base == "http://192.168.0.9:8501"
