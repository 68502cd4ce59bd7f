"""The step-by-step page's text and formulas on a trained head (attention_ui/steps.py): what the
lecturer's read-through of issue 29 corrected, held to the core's numbers."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import LessonSettings, build_lesson
from attention_core.model import ModelEmbedder
from attention_ui.i18n import translate
from attention_ui.settings import DEFAULT_SENTENCE
from tests.helpers import open_link

PAGE = "pages/step_by_step.py"


def trained_lesson():
    """The app's default: the default sentence on the default trained head (layer 2, head 4)."""
    return build_lesson(DEFAULT_SENTENCE, ModelEmbedder(), LessonSettings(projection="trained"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_scale_step_says_the_variance_argument_is_about_initialisation(lang):
    """Step 5 on a trained head: the head's raw scores run far wider than the argument's d_k, and the
    page says so with the range and the variance it computed (not numbers typed into a catalog)."""
    at = open_link(PAGE, lang=lang, step="5", toy=False)
    lesson = trained_lesson()
    scores = np.asarray(lesson.trace.scores)  # (T, T)
    assert lesson.trace.d_k == 32 and scores.var() > 2 * lesson.trace.d_k  # not the variance of random weights
    text = translate(
        lang,
        "steps.scale_trained",
        low=f"{scores.min():.1f}",
        high=f"{scores.max():.1f}",
        variance=float(scores.var()),
        d_k=32,
    )
    assert text in [m.value for m in at.markdown]


def test_the_softmax_step_defines_s_j_and_the_qkv_step_writes_the_biases_as_c():
    """s_j is defined where the softmax uses it; a bias is c^Q, never b (b is the output)."""
    at = open_link(PAGE, step="6", toy=False)
    formulas = " ".join(x.value for x in at.latex)
    assert r"s_j = \frac{\alpha_{" in formulas and r"s_{\max} = " in formulas
    at = open_link(PAGE, step="3", toy=False)
    formulas = " ".join(x.value for x in at.latex)
    assert "W^Q + c^Q" in formulas and "b^Q" not in formulas
    text = " ".join(m.value for m in at.markdown)
    assert "not learned from scratch" in text and "billion sentence pairs" in text
