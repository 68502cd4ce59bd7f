"""AppTest for every page: renders without exception, and the numbers on the page are the
numbers attention_core computes for the same sentence and settings."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention_core import LessonSettings, ToyEmbedder, build_lesson, explain
from attention_core.lesson import TRAINED_HEAD
from attention_core.model_choice import BUNDLED_LABEL
from attention_ui.i18n import LANGS, translate
from tests.helpers import (
    CJK,
    chart_words,
    charts,
    english_prose,
    figures_by_key,
    follow_link,
    matrix_tables,
    open_link,
    page_texts,
    plotly_array,
)
from tests.helpers import tables as page_tables

LAYER_SHOWN, HEAD_SHOWN = (n + 1 for n in TRAINED_HEAD)  # the default head, as the pages count

MY_PAGES = ["home", "step_by_step", "matrices", "why_scaling", "real_model"]  # the pages of issue #6


def test_default_page_uses_real_model_and_says_so():
    at = open_link("pages/matrices.py", toy=False)
    captions = " ".join(c.value for c in at.caption)
    assert (
        translate("en", "shell.honest_trained", model=BUNDLED_LABEL, layer=LAYER_SHOWN, head=HEAD_SHOWN, d_k=32)
        in captions
    )
    assert "seeded random" not in captions


def test_matrices_numbers_equal_the_core():
    """Each tab (opened through ?matrix=, as a shared link would) shows only its own matrices,
    and their numbers are the core's: the token × token ones as tables that print every number,
    Q, K, V and the outputs as charts."""
    sentence = "the dog chased the cat"
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    at = open_link("pages/matrices.py", sentence=sentence)  # the weights tab by default
    assert not charts(at)
    tables = matrix_tables(at)
    assert list(tables) == [translate("en", "matrices.weights_title")], "lazy tabs: only the open tab is drawn"
    weights = tables[translate("en", "matrices.weights_title")]
    np.testing.assert_array_equal(weights["z"], lesson.trace.weights)
    np.testing.assert_allclose(weights["z"].sum(axis=1), 1.0, atol=1e-12)
    assert weights["texts"] == [[f"{x:.2f}" for x in row] for row in lesson.trace.weights.tolist()]
    assert weights["rows"] == weights["cols"] == ["1: the", "2: dog", "3: chased", "4: the", "5: cat"]  # two "the" rows
    for tab, keys in [
        ("qkv", [("qkv_title", (lesson.trace.q, lesson.trace.k, lesson.trace.v))]),  # one chart, three panels
        ("outputs", [("outputs_title", lesson.trace.outputs)]),
    ]:
        at = open_link("pages/matrices.py", sentence=sentence, matrix=tab)
        figs = charts(at)
        assert len(figs) == len(keys) and not matrix_tables(at), (tab, list(figs))
        for key, expected in keys:
            fig = figs[translate("en", f"matrices.{key}")]
            expected = expected if isinstance(expected, tuple) else (expected,)
            assert len(fig["data"]) == len(expected)
            for trace, matrix in zip(fig["data"], expected, strict=True):
                np.testing.assert_allclose(plotly_array(trace["z"]), matrix, atol=1e-12)
    for tab, matrix in [("scores", lesson.trace.scores), ("scaled", lesson.trace.scaled)]:
        at = open_link("pages/matrices.py", sentence=sentence, matrix=tab)
        (table,) = matrix_tables(at).values()
        np.testing.assert_array_equal(table["z"], matrix)
        at = open_link("pages/matrices.py", sentence=sentence, matrix=tab, chart="true")  # the interactive chart
        (fig,) = charts(at).values()
        np.testing.assert_allclose(plotly_array(fig["data"][0]["z"]), matrix, atol=1e-12)
        assert fig["layout"]["yaxis"]["ticktext"] == ["1: the", "2: dog", "3: chased", "4: the", "5: cat"]


@pytest.mark.parametrize("w", ["random", "trained"])
def test_step_qkv_panels_and_their_csv_hold_the_core_numbers(w, captured_files):
    """Step 3 draws W^Q | W^K | W^V (when small enough) and q | k | v of every token as one chart
    each; every panel and the CSV of all three are the lesson's numbers."""
    import csv
    import io

    sentence = "the dog chased the cat"
    at = open_link("pages/step_by_step.py", sentence=sentence, step="3", w=w, toy=w == "random")
    figs = figures_by_key(at)
    if w == "random":
        lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
        p = lesson.projections
        for trace, matrix in zip(figs["fig_w"]["data"], (p.w_q, p.w_k, p.w_v), strict=True):
            np.testing.assert_allclose(plotly_array(trace["z"]), matrix, atol=1e-12)
    else:
        from attention_core.lesson import TRAINED_HEAD
        from attention_core.model import model_attention

        lesson = None
        assert "fig_w" not in figs  # 384 × 32: too large, said in words
    trace_qkv = lesson.trace if lesson else model_attention(sentence, *TRAINED_HEAD)[1]
    panels = figs["fig_qkv"]["data"]
    for trace, matrix in zip(panels, (trace_qkv.q, trace_qkv.k, trace_qkv.v), strict=True):
        np.testing.assert_allclose(plotly_array(trace["z"]), matrix, atol=1e-6 if lesson is None else 1e-12)
    file = [f for f in captured_files if f["filename"] == "Q_K_V.csv"][-1]  # the last run's
    rows = list(csv.reader(io.StringIO(file["data"].decode("utf-8-sig"))))
    d_k = trace_qkv.q.shape[1]
    assert rows[0][1] == "q[1]" and rows[0][1 + d_k] == "k[1]" and rows[0][-1] == f"v[{trace_qkv.v.shape[1]}]"
    numbers = np.array([[float(x) for x in r[1:]] for r in rows[1:]])  # (T, 2 d_k + d_v)
    np.testing.assert_allclose(numbers, np.hstack([trace_qkv.q, trace_qkv.k, trace_qkv.v]), atol=1e-12)


def test_matrices_weights_csv_download_holds_the_core_numbers(captured_files):
    import csv
    import io

    sentence = "the dog chased the cat"
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    open_link("pages/matrices.py", sentence=sentence)
    files = [f for f in captured_files if f["filename"] == "weights.csv"]
    assert files, [f["filename"] for f in captured_files]
    rows = list(csv.reader(io.StringIO(files[-1]["data"].decode("utf-8-sig"))))
    assert rows[0][1:] == lesson.tokens and [r[0] for r in rows[1:]] == lesson.tokens
    np.testing.assert_array_equal(np.array([[float(x) for x in r[1:]] for r in rows[1:]]), lesson.trace.weights)


def test_matrices_bad_tab_in_url_opens_the_weights():
    at = open_link("pages/matrices.py", matrix="<script>")
    assert list(matrix_tables(at)) == [translate("en", "matrices.weights_title")]


@pytest.mark.parametrize("value", ["maybe", "<script>", "", "1"])
def test_matrices_bad_chart_value_in_url_gives_the_table(value):
    at = open_link("pages/matrices.py", chart=value)
    assert at.toggle(key="chart").value is False and list(matrix_tables(at)) and not at.get("plotly_chart")


def test_step_page_walks_to_the_end_with_core_numbers():
    sentence = "attention mixes every word"
    at = open_link("pages/step_by_step.py", sentence=sentence)
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    e = explain(lesson.trace, 0)
    for _ in range(6):
        assert not at.exception
        at.button(key="step_next").click()
        at.run()
    assert not at.exception
    figs = charts(at)
    contrib = figs[translate("en", "step_by_step.contributions_title", i=1, token=lesson.tokens[0])]  # token 1: index 0
    bars = np.stack([plotly_array(trace["y"]) for trace in contrib["data"][:-1]])  # (T, d_v)
    np.testing.assert_allclose(bars, e.contributions, atol=1e-12)
    np.testing.assert_allclose(plotly_array(contrib["data"][-1]["y"]), e.output, atol=1e-12)


def test_a_long_sentence_is_read_through_a_window_the_learner_moves():
    words = [f"w{n}" for n in range(100)]
    at = open_link("pages/matrices.py", sentence=" ".join(words))
    note = translate("en", "shell.tokens_window", total=100, first=1, last=24, shown=24)
    assert note in [i.value for i in at.info]
    at.slider(key="first_picker").set_value(51).run()  # the learner moves the window
    assert not at.exception
    assert translate("en", "shell.tokens_window", total=100, first=51, last=74, shown=24) in [i.value for i in at.info]
    (weights,) = matrix_tables(at).values()
    ticks = weights["rows"]
    assert ticks[0] == "1: w50" and ticks[-1] == "24: w73"  # the window's tokens, counted from 1 within it
    assert at.query_params["first"] == "51"
    lesson = build_lesson(" ".join(words), ToyEmbedder(dim=8), LessonSettings(first_piece=50))
    np.testing.assert_array_equal(weights["z"], lesson.trace.weights)


# --------------------------------------------------------------------------- both languages


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("page", MY_PAGES)
def test_every_page_in_both_languages(page, lang):
    """No exception; the title is the catalog's; in Chinese the page is Chinese throughout."""
    sentence = "the dog chased the cat"
    at = open_link(f"pages/{page}.py", sentence=sentence, lang=lang)
    assert at.title[0].value == translate(lang, f"{page}.title")
    texts = page_texts(at) + chart_words(at)
    if lang == "zh":
        assert sum(bool(CJK.search(text)) for text in texts) >= 3, texts
        left = english_prose(texts, allowed_words=sentence.split())
        assert not left, f"English prose on the Chinese page {page}: {left}"
    else:
        assert not any(CJK.search(text) for text in texts if "中文" not in text), texts


def test_chinese_numbers_are_the_same_numbers():
    """Language changes words, never numbers: the zh weights chart equals the core's weights."""
    sentence = "the dog chased the cat"
    at = open_link("pages/matrices.py", sentence=sentence, lang="zh")
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    weights = matrix_tables(at)[translate("zh", "matrices.weights_title")]
    np.testing.assert_array_equal(weights["z"], lesson.trace.weights)
    at = open_link("pages/matrices.py", sentence=sentence, lang="zh", chart="true")
    weights = charts(at)[translate("zh", "matrices.weights_title")]
    np.testing.assert_allclose(plotly_array(weights["data"][0]["z"]), lesson.trace.weights, atol=1e-12)
    assert weights["layout"]["yaxis"]["title"]["text"] == translate("zh", "figures.query_axis")


# --------------------------------------------------------------------------- Chinese text

ZH = "我爱北京天安门"


def _step0_tokens(at) -> list[str]:
    frame = page_tables(at)[0]  # as a learner reads them: the HTML's entities decoded
    return list(frame[frame.columns[1]])


def test_step0_table_shows_markup_tokens_as_text():
    """Tokens go into the table's HTML escaped: markup in the sentence shows literally, never as markup."""
    sentence = "**b** [x](javascript:alert) <i> <img src=x onerror=alert(1)>"
    at = open_link("pages/step_by_step.py", sentence=sentence)
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    assert _step0_tokens(at) == list(lesson.tokens)
    (body,) = [h.value for h in at.html if 'class="num-table"' in h.value]
    assert "<i>" not in body and "<img" not in body and "<td>&lt;</td>" in body


def test_chinese_characters_by_default_and_words_on_request():
    at = open_link("pages/step_by_step.py", sentence=ZH)
    assert _step0_tokens(at) == list(ZH)
    at.button_group(key="cjk").set_value("words").run()
    assert not at.exception, at.exception
    assert _step0_tokens(at) == ["我", "爱", "北京", "天安门"]  # rjieba's cut (and jieba's)
    assert at.query_params["cjk"] in ("words", ["words"])
    lesson = build_lesson(ZH, ToyEmbedder(dim=8), LessonSettings(cjk="words"))
    picker = at.button_group(key="token_picker")
    assert len(picker.options) == 4 == len(lesson.tokens)


def test_cjk_choice_is_carried_to_another_page_and_hidden_for_english():
    at = open_link("pages/step_by_step.py", cjk="words", sentence=ZH)
    assert at.button_group(key="cjk").value == "words"
    at = follow_link(at, "matrices")
    weights = matrix_tables(at)[translate("en", "matrices.weights_title")]
    assert weights["rows"] == ["1: 我", "2: 爱", "3: 北京", "4: 天安门"]
    at = open_link("pages/step_by_step.py", sentence="the cat sat")
    assert not [r for r in at.button_group if r.key == "cjk"], "the CJK choice is shown only for CJK text"


@pytest.mark.parametrize("value", ["xyz", "<script>", ""])
def test_bad_cjk_url_value_falls_back_to_characters(value):
    at = open_link("pages/step_by_step.py", sentence=ZH, cjk=value)
    assert _step0_tokens(at) == list(ZH)


def _unknown_to_the_model(text: str) -> list[str]:
    """Independent of attention_core's ModelEmbedder: the Hugging Face tokenizer of the loaded
    SentenceTransformer, one character at a time."""
    from attention_core.model_reference import load_model

    tokenizer = load_model().tokenizer
    out = []
    for ch in dict.fromkeys(text):
        if tokenizer.unk_token in tokenizer.tokenize(ch):
            out.append(ch)
    return out


@pytest.mark.parametrize("lang", list(LANGS))
def test_chinese_on_the_real_model_names_the_unknown_tokens_and_offers_the_toy(lang):
    sentence = "注意力机制很重要"
    unknown = _unknown_to_the_model(sentence)
    assert unknown, "the bundled English model should not know some of these characters"
    at = open_link("pages/matrices.py", sentence=sentence, lang=lang, toy=False)
    warning = next(w.value for w in at.warning if "[UNK]" in w.value)
    assert translate(lang, "shell.list_sep").join(unknown) in warning
    assert any("ATTENTION_LAB_MODEL" in c.value for c in at.caption)
    at.button(key="use_toy").click().run()
    assert not at.exception, at.exception
    assert at.session_state["toy"] is True and not [w for w in at.warning if "[UNK]" in w.value]
    weights = matrix_tables(at)[translate(lang, "matrices.weights_title")]
    assert len(weights["rows"]) == len(sentence)  # one token per character


def test_an_emoji_in_an_english_sentence_gets_no_hint_about_chinese_text():
    """The emoji is an [UNK] and is named, and the toy is offered, but the multilingual-model
    hint is for Chinese text only."""
    at = open_link("pages/matrices.py", sentence="I love pizza 🍕 so much", toy=False)
    warning = next(w.value for w in at.warning if "[UNK]" in w.value)
    assert "🍕" in warning and "unknown token" in warning
    assert not any("ATTENTION_LAB_MODEL" in c.value for c in at.caption)
    assert at.button(key="use_toy")


def test_real_model_page_lists_unknown_chinese_tokens():
    sentence = "注意力机制很重要"
    at = open_link("pages/real_model.py", sentence=sentence, lang="zh", toy=False)
    warning = next(w.value for w in at.warning if "[UNK]" in w.value)
    assert "、".join(_unknown_to_the_model(sentence)) in warning


@pytest.mark.parametrize("text", ["我爱北京天安门", "注意力机制很重要", "Hello 世界，attention 很重要！"])
def test_simple_tokenize_cjk_modes_against_rjieba_and_list(text):
    """characters: exactly list() of each CJK run; words: exactly rjieba's own cut of each run."""
    import rjieba

    from attention_core.text import simple_tokenize

    runs = re.findall(r"[\u4e00-\u9fff]+", text)
    chars = [tok for tok in simple_tokenize(text, cjk="chars") if CJK.search(tok)]
    words = [tok for tok in simple_tokenize(text, cjk="words") if CJK.search(tok)]
    assert chars == [ch for run in runs for ch in run]
    assert words == [w for run in runs for w in rjieba.cut(run, hmm=True)]
    latin = [tok for tok in simple_tokenize(text, cjk="words") if not CJK.search(tok)]
    assert latin == [tok for tok in simple_tokenize(text) if not CJK.search(tok)]  # the rest is unchanged
    with pytest.raises(ValueError):
        simple_tokenize(text, cjk="sentences")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("我爱北京天安门", ["我", "爱", "北京", "天安门"]),
        ("注意力机制很重要", ["注意力", "机制", "很", "重要"]),
        ("Hello 世界，attention 很重要！", ["Hello", "世界", "，", "attention", "很", "重要", "！"]),
        ("猫坐在垫子上，因为它累了", ["猫", "坐在", "垫子", "上", "，", "因为", "它", "累", "了"]),
        ("他在2024年考上了清华大学。", ["他", "在", "2024", "年", "考上", "了", "清华大学", "。"]),
        ("南京市长江大桥", ["南京市", "长江大桥"]),
    ],
)
def test_words_are_the_cuts_jieba_gave(text, words):
    """The words the app showed with jieba 0.42.1, pinned: a new rjieba or dictionary that cuts
    these differently fails here rather than changing the lessons unnoticed."""
    from attention_core.text import simple_tokenize, word_segmenter_available

    assert word_segmenter_available()
    assert simple_tokenize(text, cjk="words") == words


def test_words_fall_back_to_characters_without_rjieba(monkeypatch):
    from attention_core import text as text_module

    monkeypatch.setattr(text_module, "_rjieba", lambda: None)
    assert not text_module.word_segmenter_available()
    assert text_module.simple_tokenize(ZH, cjk="words") == list(ZH)


def test_chinese_key_labels_stay_horizontal():
    """A long row of Chinese key tokens is written index over token, not tilted."""
    sentence = "注意力机制很重要" * 2  # 16 characters
    at = open_link("pages/matrices.py", sentence=sentence, lang="zh", chart="true")
    xaxis = charts(at)[translate("zh", "matrices.weights_title")]["layout"]["xaxis"]
    assert xaxis["ticktext"] == [f"{n}<br>{ch}" for n, ch in enumerate(sentence, start=1)]
    assert xaxis.get("tickangle", 0) == 0


@pytest.mark.parametrize("step", ["4", "7"])
def test_the_step_page_counts_tokens_from_1_in_labels_formulas_and_url(step):
    """A link ?token=2&step=… opens the second token (Python index 1) at that step: the picker,
    the chart labels and every subscript of the formulas count from 1, and agree."""
    from tests.helpers import open_link

    sentence = "attention mixes every word"
    at = open_link("pages/step_by_step.py", sentence=sentence, token="2", step=step)
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    T = len(lesson.tokens)
    picker = at.button_group(key="token_picker")
    assert picker.value == 1 and at.query_params["token"] in ("2", ["2"])
    assert picker.options == [f"{n}: {token}" for n, token in enumerate(lesson.tokens, start=1)]
    formulas = " ".join(x.value for x in at.latex)
    numbers = {int(n) for n in re.findall(r"_\{(\d+)", formulas)}
    assert numbers and numbers <= set(range(1, T + 1)), (numbers, formulas)
    assert 2 in numbers and "_{0" not in formulas and "_0" not in formulas  # token 2, never a token 0
    for spec in charts(at).values():
        ticks = spec["layout"].get("yaxis", {}).get("ticktext") or []
        numbered = [int(tick.split(":")[0]) for tick in ticks if re.match(r"\d+: ", str(tick))]
        assert not numbered or numbered == list(range(1, len(numbered) + 1)), ticks
    e = explain(lesson.trace, 1)
    if step == "7":  # the output b_2 is token 2's row, index 1
        assert r"b_{2}" in formulas and f"{e.weights[0]:.2f}" in formulas
