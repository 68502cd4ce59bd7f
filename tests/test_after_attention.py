"""The "After attention" page (pages/after_attention.py) and its core (attention_core/after_attention.py).

References, each independent of the code under test:
* ``SentenceTransformer.encode`` (sentence-transformers and PyTorch, the model's own library) for
  every sentence vector, and ``sentence_transformers.util.cos_sim`` on its vectors for every
  similarity the page shows: within 1e-5;
* loops written here over Python floats for the LayerNorm statistics, the pooling, the cosines,
  the heads' mean attention and GELU's share of negative inputs.

The page's figures are then held to the core's arrays (``encode`` and ``after_attention``),
tab by tab; the core's intermediate values of a layer are held to transformers' own in
tests/test_encoder.py.
"""

from __future__ import annotations

import math
import re
import tomllib
import unicodedata

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_core import MAX_TOKENS
from attention_core import after_attention as aa
from attention_core.encoder import encode
from attention_core.lesson import TRAINED_HEAD
from attention_ui.i18n import LANGS, LOCALES, translate
from attention_ui.registry import PAGES
from attention_ui.settings import DEFAULTS
from tests.helpers import ROOT, english_prose, figures_by_key, open_link, page_texts, plotly_array, z_of
from tests.helpers import tables as page_tables

PAGE = "pages/after_attention.py"
SENTENCE = "The cat sat on the mat because it was tired"  # in the links of open_page()
OTHER = "A tired cat rested on the rug"
LONG = " ".join(["The tailor measured the customer's shoulders and cut the plaid cloth."] * 25)  # > 254 pieces
TABLE = [SENTENCE, OTHER, "Stock prices fell sharply this morning", "猫坐在垫子上，因为它累了", LONG]
ST_TOL = 1e-5


@pytest.fixture(scope="module")
def st_model():
    """all-MiniLM-L6-v2 as sentence-transformers loads it (CPU, offline)."""
    from attention_core.model_reference import load_model

    return load_model()


def library_vectors(model, texts) -> np.ndarray:
    """SentenceTransformer.encode: tokenizer, BERT, mean pooling and normalisation, all theirs."""
    return model.encode(list(texts), convert_to_numpy=True, batch_size=8).astype(np.float64)  # (n, 384)


def library_cosines(model, texts) -> np.ndarray:
    from sentence_transformers import util

    vectors = model.encode(list(texts), convert_to_tensor=True)
    return util.cos_sim(vectors, vectors).double().numpy()  # (n, n)


# --------------------------------------------------------------------------- the core, against references


def test_sentence_vectors_and_their_cosines_equal_sentence_transformers(st_model):
    expected = library_vectors(st_model, TABLE)
    for text, theirs in zip(TABLE, expected):
        ours = aa.sentence_vector(text)
        np.testing.assert_allclose(ours.embedding, theirs, rtol=0, atol=ST_TOL, err_msg=text[:40])
    long = aa.sentence_vector(LONG)
    assert long.truncated and long.n_read == 254 and long.n_pieces > 254  # sentence-transformers' own cut, too
    pair = aa.compare_sentences(aa.sentence_vector(SENTENCE), aa.sentence_vector(OTHER))
    assert pair.cosine == pytest.approx(library_cosines(st_model, [SENTENCE, OTHER])[0, 1], abs=ST_TOL)
    assert pair.cosine == pytest.approx(float(pair.products.sum()), abs=1e-12)  # the sum the page writes out


def test_the_tables_matrix_equals_util_cos_sim_and_skips_what_it_says(st_model):
    lines = [SENTENCE, "", OTHER, "   ", "\u200b", TABLE[2], TABLE[3], LONG, "one too many", ""]
    table = aa.sentence_table("\n".join(lines))
    assert table.lines == (1, 3, 6, 7, 8) and table.empty == (2, 4) and table.unreadable == (5,)
    assert table.dropped == (9,)  # the 6th sentence; the trailing empty line is no row at all
    used = [lines[n - 1] for n in table.lines]
    np.testing.assert_allclose(table.matrix, library_cosines(st_model, used), rtol=0, atol=ST_TOL)
    r, s, best = aa.closest_pair(table.matrix)
    pairs = [(table.matrix[a, b], a, b) for a in range(len(used)) for b in range(a + 1, len(used))]
    assert (best, r, s) == max(pairs)
    assert (r, s) == (0, 1)  # the paraphrase, not the Chinese translation: the model learned English


def test_bad_rows_and_text_the_tokenizer_cannot_read():
    assert aa.sentence_table("").matrix.shape == (0, 0)
    assert aa.sentence_table("\n\n\n").empty == ()  # only trailing blank lines: nothing to report
    one = aa.sentence_table("only one\n\n")
    assert one.lines == (1,) and one.matrix.shape == (1, 1)
    surrogate = aa.sentence_table("a cat\n\ud800 lone\nthe dog")
    assert surrogate.unreadable == (2,) and surrogate.lines == (1, 3)
    with pytest.raises(ValueError):
        aa.sentence_vector("\u200b\u200b")
    with pytest.raises(ValueError):
        aa.sentence_table("a", max_rows=0)
    emoji = aa.sentence_vector("😀" * 1000)  # one "word" of 1000 symbols: one [UNK] piece
    assert emoji.unknown == emoji.n_read == 1
    spaced = aa.sentence_vector("😀 " * 500)
    assert spaced.unknown == spaced.n_read == 254 and spaced.n_pieces == 500 and spaced.truncated


def test_pooling_and_normalisation_by_a_loop():
    trace = encode(SENTENCE)
    vector = aa.sentence_vector(SENTENCE)
    rows = trace.hidden[-1].tolist()  # T lists of 384 floats
    mean = [sum(row[c] for row in rows) / len(rows) for c in range(len(rows[0]))]
    norm = math.sqrt(sum(x * x for x in mean))
    np.testing.assert_allclose(vector.mean, mean, rtol=0, atol=1e-12)
    assert vector.norm == pytest.approx(norm, abs=1e-12)
    np.testing.assert_allclose(vector.embedding, [x / norm for x in mean], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(vector.last_hidden, trace.hidden[-1])


def test_layer_norm_statistics_and_the_worked_example_by_a_loop():
    trace = encode(SENTENCE, max_pieces=MAX_TOKENS)
    layer = trace.layer(3)
    norms = aa.layer_norms(trace, 3)
    for norm, (gamma, beta) in ((layer.norm_1, norms.norm_1), (layer.norm_2, norms.norm_2)):
        for i, row in enumerate(norm.inputs.tolist()):
            mu = sum(row) / len(row)
            var = sum((x - mu) ** 2 for x in row) / len(row)  # the biased variance, over d
            assert norm.mean[i] == pytest.approx(mu, abs=1e-12) and norm.var[i] == pytest.approx(var, abs=1e-12)
            c = 17
            e = aa.norm_example(norm, (gamma, beta), norms.eps, i, c)
            by_hand = (row[c] - mu) / math.sqrt(var + norms.eps) * float(gamma[c]) + float(beta[c])
            assert e.output == pytest.approx(by_hand, abs=1e-9)  # the model's number, from the trace
            assert e.standardized * e.gamma + e.beta == pytest.approx(e.output, abs=1e-9)  # the page's last line
    assert norms.eps == 1e-12


def _cos(a, b) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def test_cosines_mean_attention_and_gelu_by_loops():
    trace = encode("the cat sat", max_pieces=MAX_TOKENS)  # 5 tokens
    hidden = trace.hidden.tolist()  # (L+1) × T × 384
    change, cosines = aa.layer_change(trace), aa.token_cosines(trace)
    for layer in range(len(hidden) - 1):
        for i in range(len(hidden[0])):
            assert change[layer, i] == pytest.approx(_cos(hidden[layer][i], hidden[layer + 1][i]), abs=1e-12)
    for layer, h in enumerate(hidden):
        for i in range(len(h)):
            for j in range(len(h)):
                assert cosines[layer, i, j] == pytest.approx(_cos(h[i], h[j]), abs=1e-12)
    pairs = [[cosines[n, i, j] for i in range(5) for j in range(5) if i != j] for n in range(len(hidden))]
    np.testing.assert_allclose(aa.mean_pair_cosine(cosines), [sum(p) / len(p) for p in pairs], atol=1e-12)
    weights = trace.weights.tolist()  # L × H × T × T
    averaged = aa.mean_attention(trace)
    for layer, heads in enumerate(weights):
        for i in range(5):
            for j in range(5):
                by_hand = sum(head[i][j] for head in heads) / len(heads)
                assert averaged[layer, i, j] == pytest.approx(by_hand, abs=1e-12)
    layer = trace.layer(2)
    z = layer.ffn_hidden.ravel().tolist()
    effect = aa.gelu_effect(layer)
    assert effect.negative_share == sum(1 for x in z if x < 0) / len(z)
    assert effect.lowest == pytest.approx(min(x / 2 * (1 + math.erf(x / math.sqrt(2))) for x in z), abs=1e-12)


# --------------------------------------------------------------------------- the page


def open_page(lang: str = "en", *, sentence: str = SENTENCE, toy: bool = False, **params) -> AppTest:
    """The page from a shared link with ``sentence``, on the real model unless ``toy``."""
    return open_link(PAGE, lang, toy=toy, sentence=sentence, **params)


def strips(fig: dict) -> np.ndarray:
    return z_of(fig)


def assert_strip(fig: dict, expected) -> None:
    """Strips carry float32: equal to the core's float64 to float32's precision."""
    np.testing.assert_allclose(strips(fig), np.asarray(expected), rtol=1e-6, atol=1e-6)


def metric_value(at, lang: str = "en") -> float:
    label = translate(lang, "after_attention.cosine_metric")
    return float(next(m.value for m in at.metric if m.label == label))


def latex(at) -> str:
    return " ".join(x.value for x in at.latex)


def test_page_is_registered_right_after_the_matrices():
    pages = [entry.id for entry in PAGES]
    assert pages[pages.index("matrices") + 1] == "after_attention"
    assert (ROOT / PAGE).is_file()


def test_default_view_shows_the_cores_numbers_and_the_libraries_similarity(st_model):
    at = open_page()
    figs = figures_by_key(at)
    assert set(figs) == {"fig_concat", "fig_wo", "fig_change", "fig_pooling"}, list(figs)  # the first view of each
    trace = encode(SENTENCE, max_pieces=MAX_TOKENS)
    layer = trace.layer(TRAINED_HEAD[0])  # the sidebar's default layer
    assert_strip(figs["fig_concat"], layer.concat)
    assert_strip(figs["fig_wo"], layer.attention_output)
    assert figs["fig_concat"]["layout"]["yaxis"]["ticktext"][0] == "1: [CLS]"
    np.testing.assert_allclose(z_of(figs["fig_change"]), aa.layer_change(trace), rtol=0, atol=1e-12)
    vector = aa.sentence_vector(SENTENCE)
    assert_strip(figs["fig_pooling"], np.vstack([vector.last_hidden, vector.mean]))
    assert "\\mathrm{LayerNorm}" in latex(at) and "W^O" in latex(at)
    assert f"{vector.norm:.4f}" in latex(at)  # ‖m‖, before normalisation

    at = open_page(vector_view="compare")  # ③ 2: sentence B's default
    figs = figures_by_key(at)
    assert "fig_pooling" not in figs and "fig_table" not in figs
    other = aa.sentence_vector(OTHER)
    assert_strip(figs["fig_pair"], [vector.embedding, other.embedding])
    cosine = library_cosines(st_model, [SENTENCE, OTHER])[0, 1]
    assert metric_value(at) == pytest.approx(cosine, abs=1e-4)  # printed with 4 decimals
    assert f"{aa.compare_sentences(vector, other).cosine:.4f}" in latex(at)

    at = open_page(vector_view="table")  # ③ 3: the default sentences
    table = z_of(figures_by_key(at)["fig_table"])
    defaults = at.text_area(key="sentences").value.splitlines()
    np.testing.assert_allclose(table, library_cosines(st_model, defaults), rtol=0, atol=ST_TOL)


@pytest.mark.parametrize(
    "step, keys",
    [
        ("norm_1", ["fig_input", "fig_sum_1", "fig_stats_1", "fig_norm_1"]),
        ("ffn", ["fig_ffn_hidden", "fig_ffn_gelu", "fig_ffn_output"]),
        ("norm_2", ["fig_sum_2", "fig_stats_2", "fig_output"]),
    ],
)
def test_each_step_of_the_layer_shows_the_cores_numbers(step, keys):
    at = open_page(layer="3", layer_step=step, layers_view="attention")  # layer 3 on the page: index 2
    figs = figures_by_key(at)
    assert [k for k in figs if k not in ("fig_mean_attention", "fig_pooling", "fig_pair", "fig_table")] == keys
    trace = encode(SENTENCE, max_pieces=MAX_TOKENS)
    layer = trace.layer(2)
    expected = {
        "fig_input": layer.inputs,
        "fig_sum_1": layer.norm_1.inputs,
        "fig_norm_1": layer.norm_1.outputs,
        "fig_ffn_hidden": layer.ffn_hidden,
        "fig_ffn_gelu": layer.ffn_activation,
        "fig_ffn_output": layer.ffn_output,
        "fig_sum_2": layer.norm_2.inputs,
        "fig_output": trace.hidden[3],  # layer 2's output is the input of layer 3
    }
    for key in keys:
        if key.startswith("fig_stats"):
            norm = layer.norm_1 if key.endswith("1") else layer.norm_2
            bars = figs[key]["data"]
            np.testing.assert_allclose(plotly_array(bars[0]["x"]), norm.mean, rtol=0, atol=1e-12)
            np.testing.assert_allclose(plotly_array(bars[1]["x"]), norm.var, rtol=0, atol=1e-12)
            assert bars[1]["text"] == [f"{v:.3f}" for v in norm.var]
        else:
            assert_strip(figs[key], expected[key])
    if step == "ffn":  # 1536 numbers per token, drawn as strips of float32
        assert strips(figs["fig_ffn_hidden"]).shape == (len(trace.tokens), 1536)
        assert figs["fig_ffn_hidden"]["data"][0]["z"]["dtype"] == "f4"
    if step.startswith("norm"):  # the worked example for "it", component 0, ends on the model's number
        i = trace.tokens.index("it")
        norm = layer.norm_1 if step == "norm_1" else layer.norm_2
        assert f"= {norm.outputs[i, 0]:.4f}" in latex(at)
    np.testing.assert_allclose(
        np.stack([plotly_array(t["z"]) for t in figs["fig_mean_attention"]["data"]]),
        aa.mean_attention(trace),
        rtol=0,
        atol=1e-12,
    )
    assert at.query_params["layer_step"] == step and at.query_params["layer"] == "3"


def test_the_wide_csv_exports_hold_every_number_when_clicked(monkeypatch):
    """The strips' CSVs are written on click (show_figure's defer_csv): the callable holds every
    digit of the core's float64 numbers, not the float32 the chart draws."""
    import csv
    import io

    from streamlit.runtime.media_file_manager import MediaFileManager

    deferred = {}
    original = MediaFileManager.add_deferred

    def spy(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        deferred[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name=file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    open_page(layer="5", layer_step="ffn")  # layer 5 on the page: index 4
    assert {"ffn_hidden_layer5.csv", "ffn_gelu_layer5.csv", "sentence_vector_a.csv"} <= set(deferred)
    rows = list(csv.reader(io.StringIO(deferred["ffn_hidden_layer5.csv"]().decode("utf-8-sig"))))
    trace = encode(SENTENCE, max_pieces=MAX_TOKENS)
    assert rows[0][1:] == [f"z[{c}]" for c in range(1, 1537)] and [r[0] for r in rows[1:]] == list(trace.tokens)
    np.testing.assert_array_equal(np.array([[float(x) for x in r[1:]] for r in rows[1:]]), trace.layer(4).ffn_hidden)


def test_the_token_cosines_view_and_the_layer_picker_without_trained_w():
    at = open_page(w="random", layers_view="cosines")
    trace = encode(SENTENCE, max_pieces=MAX_TOKENS)  # the model runs whatever W the sidebar says
    grid = figures_by_key(at)["fig_cosines"]["data"]
    np.testing.assert_allclose(np.stack([plotly_array(t["z"]) for t in grid]), aa.token_cosines(trace), atol=1e-12)
    picker = at.button_group(key="after_layer_picker")  # the sidebar shows none for random W
    picker.set_value(4).run()
    assert not at.exception
    assert_strip(figures_by_key(at)["fig_concat"], trace.layer(4).concat)
    assert at.query_params["layer"] == "5"  # index 4 is layer 5 on the page and in the link
    assert at.subheader[0].value == translate("en", "after_attention.h_layer", layer=5)
    picker.set_value(DEFAULTS["layer"]).run()  # the default layer (2): left out of the link
    assert not at.exception and "layer" not in at.query_params
    assert_strip(figures_by_key(at)["fig_concat"], trace.layer(DEFAULTS["layer"]).concat)


def test_the_second_sentence_and_the_table_come_from_the_url(st_model):
    sentence_b = "Stocks dropped quickly before noon"
    rows = "A dog barked at the mailman\nThe postman was chased by a dog\nRain is expected tomorrow"
    at = open_page(compare=sentence_b, sentences=rows, vector_view="compare")
    assert at.text_input(key="compare").value == sentence_b
    cosine = library_cosines(st_model, [SENTENCE, sentence_b])[0, 1]
    assert metric_value(at) == pytest.approx(cosine, abs=1e-4)
    typed = "The kitten slept on the carpet"  # (the browser writes it into the link: tests/browser)
    at.text_input(key="compare").set_value(typed).run()
    assert not at.exception
    assert metric_value(at) == pytest.approx(library_cosines(st_model, [SENTENCE, typed])[0, 1], abs=1e-4)
    at.button_group(key="vector_view_tab").set_value("table").run()  # the learner picks ③ 3
    assert not at.exception and at.query_params["vector_view"] == "table"
    np.testing.assert_allclose(
        z_of(figures_by_key(at)["fig_table"]), library_cosines(st_model, rows.splitlines()), atol=ST_TOL
    )
    at.button_group(key="vector_view_tab").set_value("compare").run()  # and back: sentence B is kept
    assert at.text_input(key="compare").value == typed and at.query_params["compare"] == typed


def test_bad_input_gets_a_clear_message_and_nothing_breaks():
    at = open_page(compare="   ", vector_view="compare")
    assert translate("en", "after_attention.no_compare") in [box.value for box in at.info]
    assert "fig_pair" not in figures_by_key(at)
    at = open_page(sentences="first sentence\n\nthird sentence\n\u200b\n" + "\n".join("x" * 6), vector_view="table")
    infos = [box.value for box in at.info]
    assert translate("en", "after_attention.table_empty", lines="2") in [c.value for c in at.caption]
    assert translate("en", "after_attention.table_unreadable", lines="4") in [c.value for c in at.caption]
    assert translate("en", "after_attention.table_dropped", max_rows=5, lines="8, 9, 10") in infos
    words = " ".join(["word"] * 300)  # 300 pieces: the model reads 254
    at = open_page(compare=words, vector_view="compare")
    assert translate("en", "after_attention.vector_cut", name="Sentence B", total=300, read=254) in [
        b.value for b in at.info
    ]
    at = open_page(sentences="one line only", vector_view="table")
    assert translate("en", "after_attention.table_too_few") in [b.value for b in at.info]
    assert "fig_table" not in figures_by_key(at)
    emoji = "😀" * 1000
    at = open_page(sentence=emoji, compare=emoji, vector_view="compare")  # both sentences are one [UNK]
    warnings = [w.value for w in at.warning]
    assert translate("en", "after_attention.vector_unknown", name="Sentence B", unknown=1, total=1) in warnings
    assert any("[UNK]" in w for w in warnings if "Sentence B" not in w)  # the sidebar sentence, too
    assert metric_value(at) == pytest.approx(1.0, abs=1e-6)  # the same single [UNK]: the same vector


def test_hand_typed_tabs_fall_back_and_a_long_row_says_it_was_cut():
    at = open_page(layer_step="<script>", layers_view="99", vector_view="-1", sentences=f"{SENTENCE}\n{LONG}")
    figs = figures_by_key(at)
    assert {"fig_concat", "fig_wo", "fig_change", "fig_pooling"} <= set(figs)  # the first view of each
    assert not {"layer_step", "layers_view", "vector_view"} & set(at.query_params)  # the defaults
    at.button_group(key="vector_view_tab").set_value("table").run()
    long = aa.sentence_vector(LONG)
    header = translate("en", "after_attention.col_note")
    (sentences,) = [table for table in page_tables(at) if header in table.columns]
    cut = translate("en", "after_attention.note_cut", read=254, total=long.n_pieces)
    assert sentences[header].tolist() == ["", cut]


def test_a_sentence_longer_than_the_lesson_is_cut_for_the_layers_not_for_the_vector():
    at = open_page(sentence=LONG[:990])
    assert any(f"reads pieces 1–{MAX_TOKENS} here (plus [CLS] and [SEP])" in box.value for box in at.info)  # the window
    assert translate("en", "after_attention.cut_vector", limit=254) in [c.value for c in at.caption]
    vector = aa.sentence_vector(at.text_area(key="sentence").value)
    assert strips(figures_by_key(at)["fig_concat"]).shape[0] == MAX_TOKENS + 2
    assert strips(figures_by_key(at)["fig_pooling"]).shape[0] == len(vector.tokens) + 1 > MAX_TOKENS + 3


@pytest.mark.parametrize("lang", list(LANGS))
def test_both_languages_and_presentation_mode(lang):
    at = open_page(lang, present="true")
    assert at.title[0].value == translate(lang, "after_attention.title")
    figs = figures_by_key(at)
    assert "fig_concat_present" in figs  # presentation mode draws the charts afresh, larger
    assert figs["fig_concat_present"]["layout"]["font"]["size"] == 18
    if lang == "zh":
        allowed = [SENTENCE, OTHER, *TABLE, "LayerNorm", "sentence-transformers", "SentenceTransformer.encode"]
        prose = english_prose(page_texts(at), allowed_words=allowed)
        assert not prose, prose


def test_model_unavailable_gives_a_warning_not_a_crash(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTENTION_LAB_MODEL", str(tmp_path / "no-model-here"))
    at = open_page(toy=True)
    assert any(translate("en", "after_attention.unavailable", reason="")[:30] in w.value for w in at.warning)
    assert not at.get("plotly_chart")


def test_bold_spans_in_the_chinese_catalogs_close():
    """CommonMark does not close ** after punctuation when a letter follows ("**数据：**本页"
    shows its asterisks): keep full-width punctuation outside bold spans."""
    bad = []
    for path in sorted((LOCALES / "zh").glob("*.toml")):
        for key, text in tomllib.loads(path.read_text(encoding="utf-8")).items():
            for m in re.finditer(r"\*\*(.+?)\*\*(.?)", text):
                inner, after = m.group(1), m.group(2)
                if unicodedata.category(inner[-1]).startswith("P") and after.strip():
                    if not unicodedata.category(after).startswith("P"):
                        bad.append(f"{path.stem}.{key}: {m.group(0)[-16:]}")
    assert not bad, bad


@pytest.mark.parametrize(("sentence", "falls"), [(SENTENCE, []), (OTHER, [5])])
def test_the_cosines_text_says_where_the_mean_falls_instead_of_layer_after_layer(sentence, falls):
    """The mean cosine of two different tokens is higher after the last layer than in the embeddings,
    but it need not rise at every layer (on OTHER it falls at layer 5): the page says which, from the
    core's numbers, checked here against a loop."""
    at = open_page(sentence=sentence, layers_view="cosines")
    means = aa.mean_pair_cosine(aa.token_cosines(encode(sentence, max_pieces=MAX_TOKENS)))  # (7,)
    assert [layer for layer in range(1, len(means)) if means[layer] < means[layer - 1]] == falls
    assert means[-1] > means[0]
    trend = (
        translate("en", "after_attention.cosines_falls", layers=", ".join(map(str, falls)))
        if falls
        else translate("en", "after_attention.cosines_rises")
    )
    text = translate("en", "after_attention.cosines_text", first=means[0], last=means[-1], n_layers=6)
    assert f"{text} {trend}" in [m.value for m in at.markdown]
