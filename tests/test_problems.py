"""Errors in the learner's language (attention_ui/problems.py, attention_core/unreadable.py): every
reason the core raises has its sentence in both catalogs, a page shows that sentence with the
learner's words escaped, and no page shows Python's exception text; the contrast test on a
Chinese pair says what is wrong in Chinese."""

from __future__ import annotations

import re

import pytest

from attention_core.contrast import pair_test
from attention_core.unreadable import Unreadable
from attention_ui.i18n import LANGS, catalog, translate
from attention_ui.problems import NAMESPACE, problem_text
from attention_ui.safe import escape_markdown
from tests.helpers import ROOT, open_link

RAISED = re.compile(r"Unreadable\(\s*\"(\w+)\"")
PAGE_CATCHES = re.compile(r"except [^:]*Error[^:]* as (\w+):")
DRAWS = re.compile(r"\bst\.\w+\(|\bt\(")


def raised_keys() -> set[str]:
    return {key for path in (ROOT / "attention_core").glob("*.py") for key in RAISED.findall(path.read_text())}


def test_every_reason_the_core_gives_has_its_sentence_in_every_language():
    keys = raised_keys()
    assert {"not_a_word", "differ_in_words", "too_long"} <= keys  # the scan finds the raises
    for lang in LANGS:
        written = {key.split(".", 1)[1] for key in catalog(lang) if key.startswith(f"{NAMESPACE}.")}
        assert keys <= written, f"{lang}: no sentence for {sorted(keys - written)}"
        assert written - keys == {"unknown"}, (
            f"{lang}: sentences no code raises: {sorted(written - keys - {'unknown'})}"
        )


def test_no_page_shows_an_exception_s_text():
    """What a page caught goes through ``problem_text``, never ``str(exc)`` or the exception itself,
    on a line that draws (``st.…``) or says (``t(…)``) something; the server's log may have it."""
    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "attention_ui").glob("*.py")]:
        source = path.read_text()
        for name in set(PAGE_CATCHES.findall(source)):
            text_of = re.compile(rf"(?:str|repr)\({name}\)|\{{{name}[!}}]|st\.\w+\({name}\b")
            shown = [line.strip() for line in source.splitlines() if text_of.search(line) and DRAWS.search(line)]
            assert not shown, f"{path.name} shows the text of {name}: {shown}"


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_learner_s_words_are_escaped_and_the_rest_is_the_catalog_s(lang, monkeypatch):
    monkeypatch.setattr("attention_ui.problems.current_lang", lambda: lang)
    monkeypatch.setattr("attention_ui.i18n.current_lang", lambda: lang)
    with pytest.raises(Unreadable) as caught:
        pair_test("The stone broke the window.", "The stone broke the door.", "**she**")
    said = problem_text(caught.value)
    words = escape_markdown("The stone broke the window .")  # what Markdown then shows as it is
    assert said == translate(lang, "problems.not_a_word", word=r"\*\*she\*\*", words=words)
    assert problem_text(RuntimeError("Traceback: x")) == translate(lang, "problems.unknown")


def test_the_contrast_test_on_a_chinese_pair_says_it_in_chinese():
    at = open_link(
        "heads", "zh", toy=False, sentence="老师感谢学生", heads_view="contrast",
        pair_a="老师 感谢 学生", pair_b="老师 感谢 孩子", pair_word="他",
    )  # fmt: skip
    said = [box.value for box in at.info if "他" in box.value]
    reason = translate("zh", "problems.not_a_word", word="他", words="老 师 感 谢 学 生")
    assert said == [translate("zh", "heads.contrast_unreadable", reason=reason)], said
    texts = " ".join(box.value for box in [*at.info, *at.warning, *at.error])
    assert "is not" not in texts and "'他'" not in texts and "Error" not in texts


def test_a_pair_that_differs_in_two_words_says_which_in_english():
    at = open_link(
        "heads", toy=False, heads_view="contrast", pair_a="The cat slept.", pair_b="The dog barked.", pair_word="it"
    )
    reason = translate("en", "problems.differ_in_words", n=2, words=escape_markdown("cat → dog, slept. → barked."))
    assert translate("en", "heads.contrast_unreadable", reason=reason) in [box.value for box in at.info]
