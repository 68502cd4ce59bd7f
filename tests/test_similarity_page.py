"""The "Similarity measures" page: it renders in English and Chinese, and every number it draws
equals an independent computation written here (loops, math.fsum, scipy's cosine distance).

The 2-D demo is driven through its sliders, and its numbers are checked against plain
trigonometry: cos(angle between) and |q| |k| cos(angle between).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.spatial import distance

from attention_core import LessonSettings, ToyEmbedder, build_lesson
from attention_core.similarity import compare_similarities, polar_vector
from attention_ui.i18n import translate
from attention_ui.registry import PAGES
from tests.helpers import ROOT, open_link, plotly_array, title_text

PAGE = "pages/similarity.py"
SENTENCE = "the tailor cut the cloth for the customer"
ORDER = ["cosine", "dot", "scaled_dot"]


def figures(at) -> dict[str, dict]:
    """Plotly figures by their Streamlit key (the element id ends with it)."""
    return {chart.proto.id.rsplit("-", 1)[-1]: json.loads(chart.proto.spec) for chart in at.get("plotly_chart")}


def metrics(at) -> dict[str, float]:
    return {m.label: float(m.value) for m in at.metric}


def lesson_for(sentence: str):
    return build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())


# --------------------------------------------------------------------------- references, written here


def cosine_ref(a, b) -> np.ndarray:
    """1 − scipy's cosine distance, pair by pair."""
    return np.array([[1.0 - distance.cosine(x, y) for y in b] for x in a])


def dot_ref(a, b) -> np.ndarray:
    return np.array([[math.fsum(p * r for p, r in zip(x, y)) for y in b.tolist()] for x in a.tolist()])


def softmax_ref(rows) -> np.ndarray:
    out = []
    for row in np.asarray(rows).tolist():
        top = max(row)
        exps = [math.exp(x - top) for x in row]
        total = math.fsum(exps)
        out.append([e / total for e in exps])
    return np.array(out)


def references(a, b) -> dict[str, np.ndarray]:
    dot = dot_ref(a, b)
    return {"cosine": cosine_ref(a, b), "dot": dot, "scaled_dot": dot / math.sqrt(a.shape[1])}


# --------------------------------------------------------------------------- registration and languages


def test_page_is_registered_after_why_scaling():
    pages = [entry.id for entry in PAGES]
    assert pages[pages.index("why_scaling") + 1] == "similarity"
    assert (ROOT / PAGE).is_file()
    for lang in ("en", "zh"):
        assert translate(lang, "shell.nav_similarity").strip()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_renders_in_each_language(lang):
    at = open_link(PAGE, sentence=SENTENCE, lang=lang)
    assert at.title[0].value == translate(lang, "similarity.title")
    headers = [h.value for h in at.subheader]
    for key in ("demo_header", "sentence_header", "weights_header", "token_header"):
        assert translate(lang, f"similarity.{key}") in headers
    labels = {m.label for m in at.metric}
    assert labels == {translate(lang, f"similarity.name_{name}") for name in ORDER}
    figs = figures(at)
    measures = figs["fig_measures"]["layout"]
    assert title_text({"layout": measures}) == translate(lang, "similarity.heatmaps_title", d=4, d_name="d_k")
    assert [note["text"].replace("<br>", "") for note in measures["annotations"]] == [
        translate(lang, f"similarity.heatmap_{name}", d=4) for name in ORDER
    ]
    assert measures["xaxis2"]["title"]["text"] == translate(lang, "similarity.key_axis")  # under the middle panel


# --------------------------------------------------------------------------- the sentence's numbers


def test_heatmaps_equal_independent_computation():
    at = open_link(PAGE, sentence=SENTENCE)
    lesson = lesson_for(SENTENCE)
    q, k = lesson.trace.q, lesson.trace.k  # (T, d_k)
    want = references(q, k)
    figs = figures(at)
    for n, name in enumerate(ORDER):  # one chart of three panels for the measures, one for their weights
        got = plotly_array(figs["fig_measures"]["data"][n]["z"])
        np.testing.assert_allclose(got, want[name], rtol=1e-12, atol=1e-12, err_msg=name)
        weights = plotly_array(figs["fig_weights"]["data"][n]["z"])
        np.testing.assert_allclose(weights, softmax_ref(want[name]), rtol=1e-12, atol=1e-14, err_msg=name)
        np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
    # the dot-product map is the attention score matrix, the scaled one what goes into its softmax
    np.testing.assert_allclose(want["dot"], lesson.trace.scores, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(softmax_ref(want["scaled_dot"]), lesson.trace.weights, rtol=1e-12, atol=1e-14)
    ticks = figs["fig_measures"]["layout"]["yaxis"]["ticktext"]
    assert ticks[0] == "1: the" and ticks[3] == "4: the"  # repeated words stay separate rows, counted from 1
    cosine, dot, scaled = figs["fig_measures"]["data"]
    assert cosine["zmin"] == -1 and cosine["zmax"] == 1
    assert dot["zmax"] == pytest.approx(np.abs(want["dot"]).max())  # each measure on its own symmetric scale
    assert scaled["zmax"] == pytest.approx(np.abs(want["scaled_dot"]).max())
    assert (
        figs["fig_weights"]["layout"]["coloraxis"]["cmin"] == 0
        and figs["fig_weights"]["layout"]["coloraxis"]["cmax"] == 1
    )


@pytest.mark.parametrize("how", ["click", "url"])
def test_inputs_choice_compares_the_inputs(how):
    if how == "click":
        at = open_link(PAGE, sentence=SENTENCE)
        at.button_group(key="sim_vectors").set_value("inputs").run()
    else:
        at = open_link(PAGE, sentence=SENTENCE, vectors="inputs")
    assert not at.exception, at.exception
    assert at.query_params["vectors"] in ("inputs", ["inputs"])  # the link reopens this view
    lesson = lesson_for(SENTENCE)
    want = references(lesson.inputs, lesson.inputs)  # (T, T), d = d_model
    figs = figures(at)
    for n, name in enumerate(ORDER):
        np.testing.assert_allclose(
            plotly_array(figs["fig_measures"]["data"][n]["z"]), want[name], rtol=1e-12, atol=1e-11
        )
    np.testing.assert_allclose(np.diag(want["cosine"]), 1.0, atol=1e-12)


def test_one_query_token_rows_and_their_softmax():
    i = 4
    at = open_link(PAGE, sentence=SENTENCE)
    at.button_group(key="sim_token_picker").set_value(i).run()
    assert not at.exception, at.exception
    lesson = lesson_for(SENTENCE)
    want = references(lesson.trace.q, lesson.trace.k)
    figs = figures(at)
    rows = figs["fig_rows"]["data"]
    softmax_rows = figs["fig_softmax_rows"]["data"]
    assert len(rows) == len(softmax_rows) == 3
    for n, name in enumerate(ORDER):
        np.testing.assert_allclose(plotly_array(rows[n]["y"]), want[name][i], rtol=1e-12, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(
            plotly_array(softmax_rows[n]["y"]), softmax_ref(want[name])[i], rtol=1e-12, atol=1e-14, err_msg=name
        )
    # the sentence names each measure's best key, as computed here
    text = " ".join(m.value for m in at.markdown)
    for name in ORDER:
        j = int(np.argmax(want[name][i]))
        assert f"**{j + 1}: " in text  # token j + 1 on the page is row j
    assert np.argmax(want["dot"][i]) == np.argmax(want["scaled_dot"][i])  # ÷√d_k keeps the ranking
    norm = math.sqrt(math.fsum(x * x for x in lesson.trace.q[i]))
    assert f"{norm:.3f}" in text


def test_the_rows_table_is_sent_only_when_opened_and_holds_the_same_numbers():
    i = 2
    at = open_link(PAGE, sentence=SENTENCE)
    at.button_group(key="sim_token_picker").set_value(i).run()
    assert not at.exception and not at.dataframe  # closed: not built, not sent
    at.session_state["sim_table_open"] = True  # the learner opens the expander
    at.run()
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    lesson = lesson_for(SENTENCE)
    want = references(lesson.trace.q, lesson.trace.k)
    name = lambda key: translate("en", f"similarity.{key}")  # noqa: E731
    norms = [math.sqrt(math.fsum(x * x for x in k)) for k in lesson.trace.k.tolist()]
    np.testing.assert_allclose(frame[name("col_norm")], norms, rtol=1e-12)
    for measure in ORDER:
        shown = frame[name(f"name_{measure}")]
        np.testing.assert_allclose(shown, want[measure][i], rtol=1e-12, atol=1e-12, err_msg=measure)
        weight = frame[translate("en", "similarity.col_weight", measure=name(f"name_{measure}"))]
        np.testing.assert_allclose(weight, softmax_ref(want[measure])[i], rtol=1e-12, atol=1e-14, err_msg=measure)


# --------------------------------------------------------------------------- the 2-D demo


def set_demo(at, **values):
    for key, value in values.items():
        at.slider(key=key).set_value(value)
    at.run()
    assert not at.exception, at.exception
    return metrics(at)


def expected_demo(q_angle, q_length, k_angle, k_length) -> dict[str, float]:
    cos = math.cos(math.radians(k_angle - q_angle))
    dot = q_length * k_length * cos
    return {"cosine": cos, "dot": dot, "scaled_dot": dot / math.sqrt(2)}


@pytest.mark.parametrize(
    "demo",
    [
        {"q_angle": 30, "q_length": 2.0, "k_angle": 90, "k_length": 1.0},
        {"q_angle": 0, "q_length": 0.5, "k_angle": 180, "k_length": 3.0},
        {"q_angle": 355, "q_length": 1.7, "k_angle": 10, "k_length": 0.1},
    ],
)
def test_demo_numbers_follow_the_sliders(demo):
    at = open_link(PAGE, sentence=SENTENCE)
    shown = set_demo(at, **demo)
    want = expected_demo(**demo)
    for name in ORDER:
        assert shown[translate("en", f"similarity.name_{name}")] == pytest.approx(want[name], abs=5e-4)
    tips = figures(at)["fig_vectors_2d"]["data"][0]
    q_tip = (
        demo["q_length"] * math.cos(math.radians(demo["q_angle"])),
        demo["q_length"] * math.sin(math.radians(demo["q_angle"])),
    )
    k_tip = (
        demo["k_length"] * math.cos(math.radians(demo["k_angle"])),
        demo["k_length"] * math.sin(math.radians(demo["k_angle"])),
    )
    np.testing.assert_allclose(plotly_array(tips["x"]), [q_tip[0], k_tip[0]], atol=1e-12)
    np.testing.assert_allclose(plotly_array(tips["y"]), [q_tip[1], k_tip[1]], atol=1e-12)


def test_demo_longer_key_changes_dot_not_cosine():
    at = open_link(PAGE, sentence=SENTENCE)
    cos_name, dot_name, scaled_name = (translate("en", f"similarity.name_{n}") for n in ORDER)
    before = set_demo(at, q_angle=20, q_length=1.0, k_angle=50, k_length=1.0)
    after = set_demo(at, k_length=3.0)
    assert after[cos_name] == before[cos_name]
    assert after[dot_name] == pytest.approx(3 * before[dot_name], abs=2e-3)
    assert after[scaled_name] == pytest.approx(3 * before[scaled_name], abs=2e-3)
    right_angle = set_demo(at, k_angle=110)
    assert right_angle[cos_name] == 0 and right_angle[dot_name] == 0 and right_angle[scaled_name] == 0


# --------------------------------------------------------------------------- bad input


def test_empty_sentence_keeps_the_demo():
    at = open_link(PAGE, sentence="")
    assert any(i.value == translate("en", "similarity.no_sentence") for i in at.info)
    assert "fig_vectors_2d" in figures(at) and len(at.metric) == 3


def test_markup_in_the_sentence_is_escaped():
    at = open_link(PAGE, sentence="<b>bold</b> <script>x</script>")
    for spec in figures(at).values():
        for axis in ("xaxis", "yaxis"):
            for tick in spec["layout"].get(axis, {}).get("ticktext", []):
                assert "<" not in str(tick), tick


@pytest.mark.parametrize(
    "params", [{"q_angle": "999", "k_length": "-4"}, {"q_length": "abc", "token": "77"}, {"vectors": "nonsense"}]
)
def test_hand_typed_url_parameters_are_safe(params):
    at = open_link(PAGE, **params)
    assert len(at.metric) == 3


# --------------------------------------------------------------------------- the core helpers the page uses


def test_compare_similarities_and_polar_vector_against_references():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(4, 6)), rng.normal(size=(3, 6))  # (T_a, d), (T_b, d)
    c = compare_similarities(a, b)
    want = references(a, b)
    for name in ORDER:
        np.testing.assert_allclose(c.measure(name), want[name], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(c.norms_b, [math.sqrt(math.fsum(x * x for x in row)) for row in b], rtol=1e-14)
    assert c.d == 6 and c.best_key("dot", 2) == int(np.argmax(want["dot"][2]))
    with pytest.raises(ValueError):
        c.measure("euclid")
    v = polar_vector(135.0, 2.0)
    np.testing.assert_allclose(v, [-math.sqrt(2), math.sqrt(2)], rtol=1e-14)
    with pytest.raises(ValueError):
        polar_vector(10.0, -1.0)


def test_with_the_real_model_the_heatmaps_are_its_queries_and_keys():
    from attention_core.model import ModelEmbedder

    at = open_link(PAGE, sentence=SENTENCE, toy=False)
    lesson = build_lesson(SENTENCE, ModelEmbedder(), LessonSettings(projection="trained"))  # the app's default
    assert lesson.trained and lesson.trace.d_k == 32
    want = references(lesson.trace.q, lesson.trace.k)
    figs = figures(at)
    for n, name in enumerate(ORDER):
        np.testing.assert_allclose(
            plotly_array(figs["fig_measures"]["data"][n]["z"]), want[name], rtol=1e-12, atol=1e-12
        )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_a_trained_head_the_inputs_are_the_hidden_states_entering_its_layer(lang):
    """In trained mode a_i is the hidden state entering the layer, not a word embedding plus a
    positional encoding: the text says so and the maps compare exactly those vectors."""
    from attention_core.model import ModelEmbedder

    at = open_link(PAGE, sentence=SENTENCE, lang=lang, vectors="inputs", toy=False)
    lesson = build_lesson(SENTENCE, ModelEmbedder(), LessonSettings(projection="trained"))
    layer = lesson.settings.layer
    np.testing.assert_array_equal(lesson.inputs, lesson.encoded.hidden[layer])
    want = references(lesson.inputs, lesson.inputs)
    np.testing.assert_allclose(plotly_array(figures(at)["fig_measures"]["data"][0]["z"]), want["cosine"], atol=1e-12)
    intro = translate(lang, "similarity.sentence_intro_hidden", d=384, t=len(lesson.tokens), layer=layer + 1)
    assert intro in [m.value for m in at.markdown]
    assert translate(lang, "similarity.sentence_intro_inputs", d=384, t=len(lesson.tokens)) not in [
        m.value for m in at.markdown
    ]
