"""The model choice: which models a server offers, which one reads a sentence, and that every
page then shows the chosen model's own numbers.

The second model is ``tests/chinese_model.py``: a small random BERT that knows the Chinese
characters the bundled model turns into [UNK]. Every expected number comes from
``attention_core.encoder.encode`` on that model's directory, which tests/test_encoder.py holds
to transformers for another BERT directory; the unknown-piece counts are checked against
transformers' own tokenizer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attention_core.encoder import encode
from attention_core.heads import census, measure_scores
from attention_core.model_choice import (
    BUNDLED_LABEL,
    MODELS_ENV,
    InstalledModel,
    best_for,
    installed_models,
    is_bundled,
    reading,
)
from attention_core.model_files import MODEL_ENV, bundled_path
from attention_ui.i18n import LANGS, translate
from tests.chinese_model import CHINESE, SIZES, make_chinese_model
from tests.helpers import figures_by_key, follow_link, matrix_tables, open_link, plotly_array, z_of

ZH = "小猫没有过马路，因为它太累了"
EN = "The boy thanked the girl because she had helped him"
ZH_ID = "zh-test-model"


@pytest.fixture(scope="module")
def zh_model(tmp_path_factory):
    return make_chinese_model(tmp_path_factory.mktemp("models") / ZH_ID)


@pytest.fixture
def two_models(zh_model, monkeypatch):
    """This server has the bundled model (the default) and the Chinese one."""
    monkeypatch.delenv(MODEL_ENV, raising=False)
    monkeypatch.setenv(MODELS_ENV, str(zh_model))
    return zh_model


def test_each_installed_model_is_listed_once_the_default_first(zh_model, monkeypatch, tmp_path):
    monkeypatch.delenv(MODEL_ENV, raising=False)
    monkeypatch.setenv(MODELS_ENV, f"{tmp_path / 'not-here'}:{bundled_path()}:{zh_model}::{zh_model}/")
    models = installed_models()
    assert [m.label for m in models] == [BUNDLED_LABEL, ZH_ID]  # the missing one is left out, the others once
    assert [m.id for m in models] == ["all-minilm-l6-v2", ZH_ID]
    monkeypatch.setenv(MODEL_ENV, str(zh_model))  # the named model becomes the default
    assert [m.label for m in installed_models()] == [ZH_ID, BUNDLED_LABEL]
    monkeypatch.delenv(MODELS_ENV)
    monkeypatch.delenv(MODEL_ENV)
    assert [m.label for m in installed_models()] == [BUNDLED_LABEL]
    assert is_bundled(models[0].name) and not is_bundled(models[1].name)


@pytest.mark.parametrize("text", [ZH, EN, "emoji 🙂 and 中文 mixed", "x"])
def test_unknown_pieces_are_counted_as_the_models_own_tokenizer_counts_them(text, zh_model):
    from transformers import PreTrainedTokenizerFast

    for model in _both(zh_model):
        theirs = PreTrainedTokenizerFast(tokenizer_file=str(Path(model.name) / "tokenizer.json"), unk_token="[UNK]")
        ids = theirs(text, add_special_tokens=False)["input_ids"]
        got = reading(text, model)
        assert (got.unknown, got.pieces) == (ids.count(theirs.unk_token_id), len(ids)), model.label


def test_the_bundled_model_lacks_ten_of_fourteen_pieces_of_the_chinese_sentence(zh_model):
    bundled, zh = _both(zh_model)
    assert (reading(ZH, bundled).unknown, reading(ZH, bundled).pieces) == (10, 14)
    assert reading(ZH, zh).unknown == 0


def test_a_sentence_goes_to_the_model_that_lacks_fewest_of_its_pieces_ties_to_the_first(zh_model):
    bundled, zh = _both(zh_model)
    assert best_for(ZH, [bundled, zh]).model == zh
    assert best_for(EN, [bundled, zh]).model == bundled  # both know every piece: the first, the default
    assert best_for(EN, [zh, bundled]).model == zh
    assert best_for(CHINESE + " the cat", [bundled, zh]).model == zh


def test_one_model_means_no_choice_in_the_sidebar(monkeypatch):
    monkeypatch.delenv(MODELS_ENV, raising=False)
    monkeypatch.delenv(MODEL_ENV, raising=False)
    at = open_link("pages/step_by_step.py", sentence=EN, toy=False)
    assert not [r for r in at.radio if r.key == "model"]
    assert "model" not in at.query_params


@pytest.mark.parametrize("lang", list(LANGS))
def test_a_chinese_sentence_is_read_by_the_model_that_knows_its_characters(two_models, lang):
    at = open_link("pages/real_model.py", sentence=ZH, lang=lang, toy=False)
    choice = at.radio(key="model")
    assert choice.value == "auto" and list(choice.options) == [
        translate(lang, "shell.model_auto"),
        BUNDLED_LABEL,
        ZH_ID,
    ]
    assert "model" not in at.query_params  # automatic is the default: not in the link
    why = translate(lang, "shell.model_auto_why", label=ZH_ID, unknown=0, pieces=14)
    assert why in [c.value for c in at.caption]
    trace = encode(ZH, name=str(two_models))  # (L, H, T, T) = (2, 4, 16, 16)
    assert trace.weights.shape[:2] == (SIZES["n_layers"], SIZES["n_heads"])
    grid = figures_by_key(at)["fig_grid"]
    assert np.asarray(plotly_array(grid["data"][1]["customdata"])).reshape(-1, 2).tolist() == [
        [layer, head] for layer in range(2) for head in range(4)
    ]
    layer, head = 1, 3  # the default head, inside this model's 2 × 4
    shown = [m["z"] for m in matrix_tables(at).values()]  # the head's weights: a table of numbers
    assert any(np.allclose(z, trace.weights[layer, head], rtol=0, atol=1e-12) for z in shown)
    assert not [w for w in at.warning if "[UNK]" in w.value]  # this model knows every piece
    intro = translate(lang, "real_model.intro", model=ZH_ID, n_layers=2, n_heads=4, d_model=16, d_head=4)
    assert intro in [m.value for m in at.markdown]


def test_an_english_sentence_stays_on_the_default_model(two_models):
    at = open_link("pages/matrices.py", sentence=EN, toy=False)
    assert at.radio(key="model").value == "auto"
    assert translate("en", "shell.model_auto_why", label=BUNDLED_LABEL, unknown=0, pieces=10) in [
        c.value for c in at.caption
    ]
    (weights,) = matrix_tables(at).values()
    np.testing.assert_allclose(weights["z"], encode(EN).head(1, 3).weights, rtol=0, atol=1e-12)


def test_a_chosen_model_is_kept_in_the_link_and_the_unknown_notice_offers_the_better_one(two_models):
    # a link that chose the bundled model
    at = open_link("pages/real_model.py", sentence=ZH, model="all-minilm-l6-v2", toy=False)
    assert at.radio(key="model").value == "all-minilm-l6-v2" and at.query_params["model"] == "all-minilm-l6-v2"
    notice = [w.value for w in at.warning if "[UNK]" in w.value]
    assert notice and notice[0].startswith("10 of 14 word pieces are [UNK]") and BUNDLED_LABEL in notice[0]
    offer = at.button(key=f"use_model_{ZH_ID}")
    assert offer.label == translate("en", "shell.use_model", label=ZH_ID, unknown=0, pieces=14)
    offer.click().run()
    assert not at.exception, at.exception
    assert at.radio(key="model").value == ZH_ID and at.query_params["model"] == ZH_ID
    assert not [w for w in at.warning if "[UNK]" in w.value]
    at = follow_link(at, "heads")  # another page keeps the choice: its link carries it
    assert at.radio(key="model").value == ZH_ID and at.query_params["model"] == ZH_ID
    assert figures_by_key(at)["fig_census"]["data"][0]["z"] is not None
    at.radio(key="model").set_value("auto").run()  # back to automatic: out of the link
    assert "model" not in at.query_params


def test_a_link_naming_a_model_this_server_lacks_falls_back_to_automatic(two_models):
    at = open_link("step_by_step", toy=False, model="<b>no-such-model</b>", sentence=ZH)
    assert at.radio(key="model").value == "auto" and "model" not in at.query_params


def test_the_heads_census_is_measured_on_the_chosen_model(two_models):
    at = open_link("pages/heads.py", sentence=ZH, toy=False)
    found = census(str(two_models))
    assert found.roles["previous"].shape == (2, 4)
    np.testing.assert_allclose(
        z_of(figures_by_key(at)["fig_census"]), 100 * measure_scores(found, "agreement"), atol=1e-9
    )


def _both(zh_model) -> tuple[InstalledModel, InstalledModel]:
    """The two models of this module, bundled first."""
    return InstalledModel("all-minilm-l6-v2", str(bundled_path()), BUNDLED_LABEL), InstalledModel(
        ZH_ID, str(zh_model), ZH_ID
    )


def test_a_model_the_encoder_would_misread_is_refused_with_its_own_reason(zh_model, monkeypatch, tmp_path):
    """A model that is not BERT (here the Chinese model relabelled XLM-RoBERTa, which counts
    positions differently) is refused as "unsupported", and the pages say so in those words."""
    import json
    import shutil

    other = tmp_path / "xlmr-model"
    shutil.copytree(zh_model, other)
    config = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps(dict(config, model_type="xlm-roberta")))
    monkeypatch.delenv(MODELS_ENV, raising=False)
    monkeypatch.setenv(MODEL_ENV, str(other))
    reason = translate("en", "shell.problem_unsupported")
    at = open_link("pages/real_model.py", sentence=EN, toy=False)
    assert [w.value for w in at.warning] == [translate("en", "real_model.unavailable", reason=reason)]
    at = follow_link(at, "step_by_step")
    assert translate("en", "shell.model_fallback", problem=reason) in [w.value for w in at.warning]
