"""Issue 43, item 6: what a class reads off a phone or a projector. The step charts name the
query token by its word, not only by its position (a class looks for "she", not "token 10")."""

from __future__ import annotations

import pytest

from attention_core import LessonSettings, ToyEmbedder, build_lesson
from attention_core.encoder import encode
from attention_ui.i18n import LANGS
from tests.helpers import charts, open_link

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
