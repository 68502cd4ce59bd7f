"""One truth in the sidebar: with the toy embedder the W choice offers only what applies to it
(random or identity) and nothing of the sidebar describes a trained head (no layer and head
pickers, no measured caption, no buttons of heads with a job); with Chinese text on the English
model the unknown-token notice is one line in presentation mode, its details folded under it
(attention_ui/sidebar.py ``w_control``, attention_ui/lesson_notes.py ``unknown_tokens_help``)."""

from __future__ import annotations

import pytest

from attention_core.heads import heads_with_a_job
from attention_core.lesson import TRAINED_HEAD
from attention_core.model_choice import installed_models, reading
from attention_ui.head_claims import head_summary, measured_census
from attention_ui.i18n import translate
from tests.helpers import open_link


def w_options(at) -> list[str]:
    (group,) = [g for g in at.sidebar.get("button_group") if g.key == "w"]
    return list(group.options)


def head_words(lang: str) -> list[str]:
    """What the sidebar says only of a trained head: the pickers' labels, the jobs' caption and
    each job button's label."""
    found = measured_census(None)
    jobs = heads_with_a_job(found)
    assert jobs, "no head with a measured job: nothing to look for"
    summary = [head_summary(found, *TRAINED_HEAD, brief=True)] if lang == "en" else []  # t() outside a session: en
    return [
        translate(lang, "shell.layer"),
        translate(lang, "shell.head"),
        translate(lang, "shell.jobs_label"),
        *(translate(lang, f"heads.job_{j.job}", layer=j.layer + 1, head=j.head + 1, score=j.score) for j in jobs),
        *summary,
    ]


def sidebar_texts(at) -> list[str]:
    """Every label, caption and button of the sidebar."""
    texts = [c.value for c in at.sidebar.caption] + [b.label for b in at.sidebar.button]
    return texts + [g.proto.label for g in at.sidebar.get("button_group")]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page_id", ["step_by_step", "matrices", "multi_head"])
def test_the_toy_embedder_s_sidebar_names_no_trained_head(page_id, lang):
    at = open_link(page_id, lang, toy=True, sentence="the cat sat on the mat")
    assert w_options(at) == [translate(lang, f"shell.w_{kind}") for kind in ("random", "identity")]
    said = sidebar_texts(at)
    assert not [word for word in head_words(lang) if word in said], said
    assert at.session_state["_keep_w"] == "random" and at.query_params["w"] == "random"  # what the page uses


def test_the_real_model_s_sidebar_offers_the_trained_head():
    """The other side: the same checks find the trained head when it applies."""
    at = open_link("step_by_step", toy=False, sentence="the cat sat on the mat")
    assert w_options(at) == [translate("en", f"shell.w_{kind}") for kind in ("trained", "random", "identity")]
    said = sidebar_texts(at)
    assert all(word in said for word in head_words("en")), said


def test_identity_is_kept_with_the_toy_embedder():
    at = open_link("matrices", toy=True, w="identity", sentence="the cat sat")
    assert at.session_state["_keep_w"] == "identity" and at.query_params["w"] == "identity"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chinese_on_the_english_model_is_one_line_on_the_projector(lang):
    sentence = "老师感谢学生"
    read = reading(sentence, installed_models()[0])  # the model's own tokenizer counts them
    assert 0 < read.unknown < read.pieces
    at = open_link("step_by_step", lang, toy=False, sentence=sentence, present="true")
    short = translate(lang, "shell.unknown_short", unknown=read.unknown, total=read.pieces, unk="[UNK]")
    (notice,) = [e for e in at.main.expander if e.label == short]
    assert "\n" not in short
    inside = [w.value for w in notice.warning]
    assert len(inside) == 1 and "[UNK]" in inside[0]
    assert len([w for w in at.main.warning if "[UNK]" in w.value]) == 1  # only the folded one
    assert [b.label for b in notice.button] == [translate(lang, "shell.use_toy")]  # the way out, folded with it


def test_off_the_projector_the_notice_is_open():
    at = open_link("step_by_step", "zh", toy=False, sentence="老师感谢学生")
    assert not [e for e in at.main.expander if "[UNK]" in e.label]
    assert any("[UNK]" in w.value for w in at.main.warning)
