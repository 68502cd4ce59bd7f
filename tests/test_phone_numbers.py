"""Issue 43, item 6: what a class reads off a phone or a projector. The step charts name the
query token by its word, not only by its position (a class looks for "she", not "token 10");
a row's bars print the values that matter, at any width."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import LessonSettings, ToyEmbedder, build_lesson
from attention_core.encoder import encode
from attention_core.lesson import unknown_texts
from attention_core.model import ModelEmbedder
from attention_ui.i18n import LANGS
from attention_ui.vector_figures import PHONE_PLOT_PX, WIDE_PLOT_PX, key_bars
from tests.helpers import charts, open_link, title_text

SENTENCE = "the teacher said that the boy was late because she had waited"
STEP_CHARTS = {4: 2, 5: 1, 6: 1, 7: 1}  # step (from 1) → its charts, each naming the query token


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_step_charts_name_the_query_token_by_its_word(lang):
    tokens = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings()).tokens
    i = tokens.index("she")
    for step, n_charts in STEP_CHARTS.items():
        at = open_link("step_by_step", lang, sentence=SENTENCE, token=str(i + 1), step=str(step))
        titles = [title for title in charts(at) if "she" in title]
        assert len(titles) == n_charts, (step, list(charts(at)))
        assert all(str(i + 1) in title for title in titles)  # the position stays beside the word


def test_the_real_model_row_names_the_query_token():
    tokens = encode(SENTENCE).tokens
    i = tokens.index("she")
    at = open_link("real_model", sentence=SENTENCE, token=str(i + 1), toy=False)
    assert any("“she”" in title for title in charts(at)), list(charts(at))


def _rows(percent: bool) -> list[np.ndarray]:
    """Rows as the step charts show them: every query's weights (``percent``) or scores of the
    sentence on the trained head, and random rows of 5 to 40 keys."""
    lesson = build_lesson(SENTENCE, ModelEmbedder(), LessonSettings(projection="trained"))
    rng = np.random.default_rng(43)
    if percent:
        return [*lesson.trace.weights, *(rng.dirichlet(np.full(n, 0.3)) for n in (5, 14, 24, 40))]
    return [*lesson.trace.scaled, *(rng.normal(0, 3, n) for n in (5, 14, 24, 40))]


def _px(text: str, size: float) -> float:
    """A printed value's width: digits 0.55 em, "%" 0.85 em, a sign or point 0.3 em (Source Sans
    draws them narrower)."""
    return size * sum(0.55 if c.isdigit() else 0.85 if c == "%" else 0.3 for c in text)


@pytest.mark.parametrize("percent", [True, False])
def test_the_largest_values_are_printed_and_printed_values_never_meet(percent):
    """Chromium hid "42.6%" and printed "0.8%" (issue 43: Plotly shrinks a value to its bar and
    hides what would go under 11 px, so the widest, the largest, went first). Now the largest
    value is printed at every width; a value left out always has a larger printed one next to
    it; printed values keep apart on a projector's plot (460 px) and, without those a phone
    hides, on a phone's (260 px)."""
    for row in _rows(percent):
        fig = key_bars(row, [f"t{j}" for j in range(len(row))], title="α̂", percent=percent)
        texts = list(fig.data[0].text)
        size = fig.data[0].textfont.size
        assert fig.data[0].constraintext == "none" and size >= 11  # never shrunk to a bar's width
        printed = [j for j, text in enumerate(texts) if text]
        on_phone = [j for j in printed if j not in fig.phone_values]
        largest = int(np.argmax(np.abs(row)))
        assert largest in on_phone
        for room, shown in ((WIDE_PLOT_PX, printed), (PHONE_PLOT_PX, on_phone)):
            pitch = room / len(row)
            for a, b in zip(shown, shown[1:]):
                assert (b - a) * pitch >= (_px(texts[a], size) + _px(texts[b], size)) / 2, (room, texts[a], texts[b])
        for j in set(range(len(row))) - set(printed):
            near = [k for k in printed if abs(k - j) * (WIDE_PLOT_PX / len(row)) < 2 * _px("-00.000%", size)]
            assert any(abs(row[k]) >= abs(row[j]) for k in near), (j, texts)


ZH = "他感谢老师 because she helped"


def _reference_replaced(text: str, window: int | None = None, first: int = 0) -> list[str]:
    """The text behind each of the model's [UNK] pieces in order, by transformers' own tokenizer
    of the bundled model (its offsets), an implementation apart from the app's."""
    from transformers import AutoTokenizer

    from attention_core.model_files import bundled_path

    tokenizer = AutoTokenizer.from_pretrained(str(bundled_path()))
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    pieces = list(zip(encoded["input_ids"], encoded["offset_mapping"], strict=True))
    pieces = pieces[first : first + window] if window else pieces
    return [text[a:b] for token_id, (a, b) in pieces if token_id == tokenizer.unk_token_id]


@pytest.mark.parametrize("projection", ["trained", "random"])
def test_each_unknown_token_knows_the_text_it_replaced(projection):
    lesson = build_lesson(ZH, ModelEmbedder(), LessonSettings(projection=projection))
    replaced = unknown_texts(lesson)
    assert sorted(replaced) == list(lesson.unknown) and all(lesson.tokens[i] == "[UNK]" for i in replaced)
    assert [replaced[i] for i in sorted(replaced)] == _reference_replaced(ZH) == list("他感谢老师")
    long = "word " * 30 + ZH  # a window over a long sentence: 24 pieces from the 21st
    lesson = build_lesson(long, ModelEmbedder(), LessonSettings(projection=projection, first_piece=20))
    replaced = unknown_texts(lesson)
    assert [replaced[i] for i in sorted(replaced)] == _reference_replaced(long, 24, lesson.first)
    assert unknown_texts(build_lesson(ZH, ToyEmbedder(dim=8), LessonSettings())) == {}  # knows every token


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_token_buttons_show_the_character_beside_each_unk(lang):
    """Chinese on the English model: the buttons read "2: [UNK] 他", not "2: [UNK]" five times."""
    at = open_link("step_by_step", lang, sentence=ZH, toy=False)
    options = [option.replace("\\", "") for option in at.button_group(key="token_picker").options]  # Markdown escapes
    assert options[1:6] == [f"{n}: [UNK] {c}" for n, c in zip(range(2, 7), "他感谢老师", strict=True)], options
    assert options[6] == "7: because"


PICKERS = {  # page → (its token picker's key, URL parameters that show it)
    "similarity": ("sim_token_picker", {}),
    "after_attention": ("after_token_picker", {"layer_step": "norm_1"}),
    "real_model": ("model_token_picker", {}),
}


@pytest.mark.parametrize("w", ["trained", "random"])
@pytest.mark.parametrize("page", list(PICKERS))
def test_every_token_picker_shows_the_character_beside_each_unk(page, w):
    """The pickers of Similarity, After attention and Real model read "[UNK] 他" too; with a
    random W the model's pages list [CLS] first where the lesson's tokens do not."""
    key, params = PICKERS[page]
    at = open_link(page, "zh", sentence=ZH, toy=False, w=w, **params)
    options = [option.replace("\\", "") for option in at.button_group(key=key).options]
    unknown = [option for option in options if "[UNK]" in option]
    assert [option.split(": ", 1)[1] for option in unknown] == [f"[UNK] {c}" for c in "他感谢老师"], options
    assert not any(option.endswith("[UNK]") for option in options)


def test_the_heads_grids_keep_the_width_their_numbers_need():
    """A phone scrolls the 6 × 12 grids sideways rather than shrinking them below their numbers."""
    from attention_ui.heads_figures import census_grid, outcome_grid

    for fig in (census_grid(np.full((6, 12), 0.98), title="t", chance=0.5), outcome_grid(np.ones((6, 12)), title="t")):
        assert fig.numbers_px and fig.min_width >= fig.numbers_px


@pytest.mark.parametrize("lang", list(LANGS))
def test_no_step_chart_title_ends_on_a_word_alone(lang):
    """In presentation mode a step chart's title wrapped into lines never leaves its last word
    alone ("…attends to each" / "j"): the word before it goes down too (``figures.wrap_title``)."""
    from attention_ui.figures import _words

    tokens = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings()).tokens
    wrapped = 0
    for i in (0, tokens.index("she"), len(tokens) - 1):
        for step in STEP_CHARTS:
            at = open_link("step_by_step", lang, sentence=SENTENCE, token=str(i + 1), step=str(step), present="true")
            for spec in charts(at).values():
                lines = title_text(spec, breaks=True).split("<br>")
                wrapped += len(lines) > 1
                assert len(lines) == 1 or len(_words(lines[-1])) >= 2, lines
    assert wrapped, "no title was wrapped: the check proves nothing"


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_step_charts_name_an_unknown_query_token_by_its_character(lang):
    """A step chart's title names the query token as its picker does: "[UNK] 他", not "[UNK]"."""
    at = open_link("step_by_step", lang, sentence=ZH, toy=False, token="2", step="4", present="true")
    titles = [title_text(spec).replace("\\", "") for spec in charts(at).values()]
    assert titles and all("[UNK] 他" in title for title in titles), titles


def test_the_exercise_on_the_lesson_names_an_unknown_query_token_by_its_character():
    """Exercises on the learner's sentence: "the query token is [UNK] 老 (position 5)", whichever
    [UNK] the seed draws, so that a class knows which word is asked about."""
    asked = []
    for seed in range(12):
        at = open_link(
            "exercises", "zh", sentence=ZH, toy=False, ex_source="lesson", ex_kind="attend", ex_seed=str(seed)
        )
        task = next(m.value for m in at.markdown if "查询（query）词元是" in m.value).replace("\\", "")
        asked.append(task)
    unknown = [task for task in asked if "[UNK]" in task]
    assert unknown, "no seed drew an [UNK] as the query: the check proves nothing"
    assert all(any(f"[UNK] {c}**" in task for c in "他感谢老师") for task in unknown), unknown


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_scores_chart_names_an_unknown_key_token_by_its_character(lang):
    """Step 4's scores chart names the key picked above as its picker does: key 5, "[UNK] 老",
    not "[UNK]" alone (the query already read "[UNK] 他")."""
    at = open_link("step_by_step", lang, sentence=ZH, toy=False, token="2", step="4")
    at.selectbox(key="key_j").set_value(4).run()  # key 5: the fourth [UNK], 老
    assert not at.exception
    scores = [title for title in charts(at) if "α_2j = q_2·k_j" in title.replace("\\", "")]
    assert len(scores) == 1, list(charts(at))
    title = scores[0].replace("\\", "")
    assert "[UNK] 他" in title and "[UNK] 老" in title, title
