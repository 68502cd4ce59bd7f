"""AppTest for the "Real model heads" page: it renders, and its numbers are the core's.

Every expected value comes from attention_core.model for the same text, layer and head; the
page must show exactly those arrays. The core's numbers are held to the model run by
transformers in tests/test_encoder.py; here the page's own "Check against PyTorch" button is
pressed once and must report differences under 1e-5.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attention_core import MAX_TOKENS, explain
from attention_core.encoder import encode
from attention_core.lesson import TRAINED_HEAD
from attention_core.model import model_all_weights, model_attention
from attention_ui.heatmaps import COLORSCALE
from attention_ui.i18n import LANGS, translate
from attention_ui.model_figures import FRAME_HIDDEN
from attention_ui.registry import PAGES
from attention_ui.safe import escape_markdown
from attention_ui.style import selected_frame_css
from tests.helpers import (
    ROOT,
    charts,
    figures_by_key,
    grid_geometry,
    grid_thumbnails,
    matrix_tables,
    open_link,
    plotly_array,
)

PAGE = "pages/real_model.py"
SENTENCE = "the tailor cut the cloth because the customer wanted a plaid shirt"


def figure(at, prefix: str) -> dict:
    found = [spec for title, spec in charts(at).items() if title.startswith(prefix)]
    assert found, f"no figure titled {prefix!r}… among {list(charts(at))}"
    return found[0]


def table(at, prefix: str) -> dict:
    """A token × token matrix the page draws as a table, by the start of its title."""
    found = [m for shown_title, m in matrix_tables(at).items() if shown_title.startswith(prefix)]
    assert found, f"no table titled {prefix!r}… among {list(matrix_tables(at))}"
    return found[0]


def difference_shown(at, lang: str = "en") -> float | None:
    metric = next((m for m in at.metric if m.label == translate(lang, "real_model.difference")), None)
    return None if metric is None else float(metric.value)


def title(lang: str, name: str, layer: int, head: int, **fields) -> str:
    """A chart title of one head as the catalog writes it, for the 0-based ``layer`` and ``head``:
    the page counts from 1, so title(…, 3, 5) names "layer 4, head 6"."""
    where = translate(lang, "real_model.where", layer=layer + 1, head=head + 1)
    return translate(lang, f"real_model.{name}", where=where, **fields)


def test_page_is_registered_in_app_and_sidebar():
    assert "real_model" in [entry.id for entry in PAGES], "add the page to attention_ui.registry.PAGES"
    assert (ROOT / PAGE).is_file()


def test_page_renders_with_the_real_model_and_checks_itself_on_request():
    at = open_link(PAGE, sentence=SENTENCE, toy=False)
    assert at.title and "Real model" in at.title[0].value
    assert any("[CLS]" in c.value and "[SEP]" in c.value for c in at.caption)
    tokens, weights = model_all_weights(SENTENCE)  # (6, 12, T, T)
    grid = figure(at, translate("en", "real_model.grid_title"))
    assert len(grid["data"]) == 2  # one heatmap, its blocks the 72 heads, and a click target on each
    targets = np.asarray(plotly_array(grid["data"][1]["customdata"])).reshape(-1, 2)
    assert targets.tolist() == [[layer, head] for layer in range(6) for head in range(12)]
    np.testing.assert_allclose(grid_thumbnails(grid, 6, 12), weights, rtol=0, atol=1e-7)  # thumbnails carry float32
    cividis = go.Figure(go.Heatmap(z=[[0.0]], colorscale=COLORSCALE)).to_dict()["data"][0]["colorscale"]
    assert grid["data"][0]["colorscale"] == cividis  # heatmaps.COLORSCALE, as Plotly sends it
    assert table(at, "Weights α̂ = softmax")["rows"][0] == "1: [CLS]"  # one head's weights: a table of numbers
    assert grid["data"][0]["zmin"] == 0 and grid["data"][0]["zmax"] == 1

    assert difference_shown(at) is None  # PyTorch is loaded only when asked for
    at.button(key="torch_check").click().run()
    assert not at.exception, at.exception
    assert difference_shown(at) < 1e-5
    hidden = next(m for m in at.metric if m.label == translate("en", "real_model.difference_hidden"))
    assert float(hidden.value) < 1e-4


@pytest.mark.parametrize("lang", list(LANGS))
def test_layer_and_head_from_the_url_show_that_head(lang):
    at = open_link(PAGE, sentence=SENTENCE, layer="4", head="6", lang=lang, toy=False)  # as shown: index 3 and 5
    tokens, trace = model_attention(SENTENCE, 3, 5)
    weights = table(at, title(lang, "weights_title", 3, 5))
    np.testing.assert_array_equal(weights["z"], trace.weights)
    ticks = weights["rows"]
    assert len(ticks) == len(tokens) and ticks[0] == "1: [CLS]" and ticks[-1] == f"{len(tokens)}: [SEP]"
    scores_title = title(lang, "scores_title", 3, 5)
    assert not any(shown.startswith(scores_title) for shown in [*charts(at), *matrix_tables(at)])  # a closed tab
    for tab, expected, fields in [  # each tab opened by its link
        ("scores", trace.scores, {}),
        ("scaled", trace.scaled, {"d_k": trace.q.shape[1], "scale": trace.scale}),
        ("outputs", trace.outputs, {"T": len(tokens), "d_v": trace.v.shape[1]}),
    ]:
        # layer 4, head 6 as shown: index 3 and 5
        opened = open_link(PAGE, sentence=SENTENCE, layer="4", head="6", lang=lang, model_matrix=tab, toy=False)
        prefix = title(lang, f"{tab}_title", 3, 5, **fields)
        shown = table(opened, prefix)["z"] if tab != "outputs" else plotly_array(figure(opened, prefix)["data"][0]["z"])
        np.testing.assert_allclose(shown, expected, rtol=0, atol=1e-12)
    # "Interactive chart"
    opened = open_link(PAGE, sentence=SENTENCE, layer="4", head="6", lang=lang, chart="true", toy=False)
    chart = figure(opened, title(lang, "weights_title", 3, 5))
    np.testing.assert_allclose(plotly_array(chart["data"][0]["z"]), trace.weights, rtol=0, atol=1e-12)
    assert chart["layout"]["yaxis"]["ticktext"] == ticks
    row = figure(at, title(lang, "row_title", 3, 5, i=2, token=tokens[1]))  # default query: token 2, after [CLS]
    np.testing.assert_allclose(plotly_array(row["data"][0]["y"]), explain(trace, 1).weights, rtol=0, atol=1e-12)
    assert "384" in " ".join(str(x.value) for x in at.get("markdown")) + " ".join(x.value for x in at.latex)
    assert at.query_params["layer"] == "4" and at.query_params["head"] == "6"

    at.button_group(key="head_picker").set_value(7)  # the learner picks another head
    at.run()
    assert not at.exception, at.exception
    _, trace7 = model_attention(SENTENCE, 3, 7)
    np.testing.assert_array_equal(table(at, title(lang, "weights_title", 3, 7))["z"], trace7.weights)
    assert at.query_params["head"] == "8"  # index 7, shown as head 8


def test_out_of_range_layer_and_head_are_clamped_and_the_page_says_so():
    """A number of the right form out of range shows the nearest head that exists, with a note."""
    at = open_link(PAGE, toy=False, sentence=SENTENCE, layer="99", head="13")
    _, trace = model_attention(SENTENCE, 5, 11)
    np.testing.assert_array_equal(table(at, title("en", "weights_title", 5, 11))["z"], trace.weights)
    assert at.query_params["layer"] == "6" and at.query_params["head"] == "12"
    notes = [box.value for box in at.info if "does not exist" in box.value]
    assert len(notes) == 2 and "showing 6" in notes[0] and "showing 12" in notes[1], notes
    assert "(1 to 6)" in notes[0] and "(1 to 12)" in notes[1], notes


def test_values_that_are_no_positions_give_the_default_head_and_a_note():
    """``-1``, ``abc``: not of a position's form, so left out of the link (url_state's rule for
    every parameter), and the page shows the default head; a token out of range is clamped."""
    at = open_link(PAGE, toy=False, sentence=SENTENCE, layer="abc", head="-1", model_token="500")
    _, trace = model_attention(SENTENCE, *TRAINED_HEAD)
    np.testing.assert_array_equal(table(at, title("en", "weights_title", *TRAINED_HEAD))["z"], trace.weights)
    assert "layer" not in at.query_params and "head" not in at.query_params
    dropped = [box.value for box in at.info if "cannot use" in box.value]
    assert dropped == [
        translate("en", "url.unusable", name="layer", got="abc"),
        translate("en", "url.unusable", name="head", got=escape_markdown("-1")),
    ]
    clamped = [box.value for box in at.info if "does not exist" in box.value]
    assert len(clamped) == 1 and "(1 to 14)" in clamped[0], clamped


def test_the_jump_goes_to_the_head_where_the_token_looks_most_at_another_word():
    sentence = "The animal didn't cross the street because it was too tired"
    at = open_link(PAGE, sentence=sentence, toy=False)
    tokens, weights = model_all_weights(sentence)
    i = tokens.index("it")  # the default query token
    best = max(  # a loop written here: every layer, head and other word
        (weights[layer, head, i, j], layer, head)
        for layer in range(6)
        for head in range(12)
        for j, token in enumerate(tokens)
        if j != i and token not in ("[CLS]", "[SEP]")
    )
    _, layer, head = best
    at.button(key="jump_head").click().run()
    assert not at.exception, at.exception
    assert at.query_params["layer"] == str(layer + 1) and at.query_params["head"] == str(head + 1)
    _, trace = model_attention(sentence, layer, head)
    np.testing.assert_allclose(table(at, title("en", "weights_title", layer, head))["z"], trace.weights, atol=1e-12)
    assert not at.get("button") or all(b.key != "jump_head" for b in at.button)  # already there


@pytest.mark.parametrize("sentence", ["word " * 100, "注意力机制很重要" * 30], ids=["100 words", "240 CJK, no spaces"])
def test_long_sentences_are_cut_with_a_message(sentence):
    at = open_link(PAGE, sentence=sentence, toy=False)
    table_ = table(at, "Weights α̂ = softmax")  # the whole window, 26 rows, every number printed
    weights = table_["z"]
    assert (
        weights.shape[0] == MAX_TOKENS + 2 and len(table_["texts"][-1]) == MAX_TOKENS + 2
    )  # the word pieces shown, plus [CLS] and [SEP]
    assert any("1–24" in box.value for box in at.info)  # which pieces the model reads


def test_a_link_opens_a_window_of_a_long_sentence_in_the_models_numbers():
    sentence = "The tailor measured the shoulders, chose a soft plaid cotton and cut the cloth. " * 3
    at = open_link(PAGE, toy="false", sentence=sentence, first="20")  # a shared link: sentence and window
    trace = encode(sentence, max_pieces=MAX_TOKENS, first_piece=19)  # the model reads pieces 20-43 alone
    weights = table(at, "Weights α̂ = softmax")["z"]
    np.testing.assert_allclose(weights, trace.weights[TRAINED_HEAD[0], TRAINED_HEAD[1]], atol=1e-12)
    assert any("20–43" in box.value for box in at.info)


def test_model_unavailable_gives_a_warning_not_a_crash(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTENTION_LAB_MODEL", str(tmp_path / "no-model-here"))
    at = open_link(PAGE, sentence=SENTENCE)
    assert any("not available" in w.value for w in at.warning)
    assert not at.get("plotly_chart")


def test_the_q_k_v_matrices_are_built_only_when_their_expander_is_open():
    """A closed expander and closed tabs cost nothing: their figures are neither built nor sent."""
    # layer 3, head 5 as shown: index 2 and 4
    at = open_link(PAGE, sentence=SENTENCE, layer="3", head="5", model_qkv="v", toy=False)
    assert not {"fig_q", "fig_k", "fig_v"} & set(figures_by_key(at))
    at.session_state["model_qkv_open"] = True  # the learner opens the expander: its V tab, from the link
    at.run()
    assert not at.exception, at.exception
    shown = figures_by_key(at)
    assert "fig_q" not in shown and "fig_k" not in shown
    _, trace = model_attention(SENTENCE, 2, 4)
    np.testing.assert_allclose(plotly_array(shown["fig_v"]["data"][0]["z"]), trace.v, rtol=0, atol=1e-12)


def frame_styles(at) -> list[str]:
    """The page's st.html bodies that colour a frame of the heads grid."""
    return [el.proto.body for el in at.get("html") if ".shape-group" in el.proto.body]


def test_a_pick_frames_the_head_with_a_style_and_leaves_the_grid_as_it_was():
    at = open_link(PAGE, sentence=SENTENCE, layer="4", head="6", toy=False)  # as shown: index 3 and 5
    grid = figure(at, translate("en", "real_model.grid_title"))
    t, gap = grid_geometry(grid, 6, 12)
    shapes = grid["layout"]["shapes"]
    assert len(shapes) == 6 * 12 and {s["line"]["color"] for s in shapes} == {FRAME_HIDDEN}
    for layer in range(6):  # shape number layer·12 + head frames that head's thumbnail: centred on it
        for head in range(12):
            s = shapes[layer * 12 + head]
            assert (s["x0"] + s["x1"]) / 2 == head * (t + gap) + (t - 1) / 2
            assert (s["y0"] + s["y1"]) / 2 == layer * (t + gap) + (t - 1) / 2
    assert frame_styles(at) == [selected_frame_css("fig_grid", 3 * 12 + 5)]
    at.button_group(key="head_picker").set_value(7).run()
    assert not at.exception, at.exception
    assert figure(at, translate("en", "real_model.grid_title")) == grid  # unchanged: not drawn again
    assert frame_styles(at) == [selected_frame_css("fig_grid", 3 * 12 + 7)]
