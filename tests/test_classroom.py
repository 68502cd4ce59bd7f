"""The classroom screen (issue 31) without a browser: a matrix drawn as an HTML table prints the
lesson's own numbers (checked against the core's array formatted here), escapes what the learner
typed and colours its cells as the heatmap does; step 2's strips each have a scale of their own;
bars never print a value below 11 px and thin their labels on a phone; every chart says in words
what it shows; a printed page starts with the sentence and the settings. In Chromium:
tests/browser/test_classroom_browser.py."""

from __future__ import annotations

import json
import re
from functools import partial

import numpy as np
import plotly.colors as pc
import pytest

from attention_core import MAX_TOKENS, LessonSettings, ToyEmbedder, build_lesson
from attention_ui.axes import PHONE_TILTED_LABELS
from attention_ui.charts import describe
from attention_ui.heatmaps import STRIP_QUANTILE, strip_bound, strips, token_matrix
from attention_ui.i18n import translate
from attention_ui.presentation import handout_html
from attention_ui.tables import MATRIX_CLASS, PRINT_SHADES, cell_colours, matrix_html
from attention_ui.vector_figures import BAR_TEXT_PX, MIN_TEXT_PX, key_bars
from tests.helpers import MatrixReader, open_link

SENTENCE = "The quick brown fox jumps over the lazy dog while the small cat sleeps nearby"


def read(page: str) -> list[dict]:
    reader = MatrixReader()
    reader.feed(page)
    return reader.tables


@pytest.fixture(scope="module")
def lesson():
    return build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings(d_k=4, seed=3))


def test_the_table_prints_every_weight_of_the_lesson(lesson):
    """Every cell prints the core's α̂_ij to 2 places and keeps it exactly; the labels are the
    numbered tokens; 15 words, 15 × 15 numbers."""
    w = np.asarray(lesson.trace.weights)  # (T, T)
    (table,) = read(matrix_html(token_matrix(w, lesson.tokens, lesson.tokens, title="α̂").cells))
    assert w.shape == (15, 15) and len(table["cells"]) == 15
    assert table["rows"] == table["cols"] == [f"{j + 1}: {token}" for j, token in enumerate(lesson.tokens)]
    shown = [[text for text, _, _ in row] for row in table["cells"]]
    kept = np.array([[value for _, value, _ in row] for row in table["cells"]])  # (T, T)
    assert shown == [[f"{x:.2f}" for x in row] for row in w.tolist()]
    np.testing.assert_array_equal(kept, w)


def test_every_window_a_lesson_reads_has_a_table_and_a_longer_matrix_none():
    """26 tokens (24 word pieces and the two markers) print every number in a table, though a
    chart of them prints none; a 27th row (no lesson shows one) gives no table."""
    tokens = [f"w{j}" for j in range(MAX_TOKENS + 2)]
    matrix = token_matrix(np.full((26, 26), 1 / 26), tokens, tokens, title="α̂")
    assert matrix.chart().numbers_px == 0 and matrix.cells is not None  # the chart: no numbers; the table: all
    (table,) = read(matrix_html(matrix.cells))
    assert len(table["cells"]) == 26 and {text for row in table["cells"] for text, _, _ in row} == {"0.04"}
    more = [*tokens, "w26"]
    assert token_matrix(np.full((27, 27), 1 / 27), more, more, title="α̂").cells is None


def test_masked_scores_leave_blank_uncoloured_cells():
    scores = np.array([[1.5, -np.inf], [0.25, -3.0]])  # (2, 2) a causal mask's −∞
    (table,) = read(matrix_html(token_matrix(scores, ["a", "b"], ["a", "b"], title="s").cells))
    (first, masked), (third, _) = table["cells"]
    assert masked[2] is None and masked[1] == -np.inf and first[2] and third[0] == "0.25"


def test_what_the_learner_typed_is_escaped():
    tokens = ['<img src=x onerror="alert(1)">', "<b>bold</b>", "&amp;"]
    cells = token_matrix(np.eye(3), tokens, tokens, title="Weights of <script>").cells
    page = matrix_html(cells, spotlight=1, description="<i>d</i>")
    assert "<img" not in page and "<b>" not in page and "<script" not in page and "<i>" not in page
    table, spot = read(page)
    assert table["rows"] == [f"{j + 1}: {token}" for j, token in enumerate(tokens)]  # read back as typed
    assert [text for text, _, _ in spot["cells"][0]] == ["0.00", "1.00", "0.00"]  # the spotlight: row 2
    assert len(re.findall(r'class="cm-spot"', page)) == 1
    assert f'class="{MATRIX_CLASS}-box"' in page and "print-only" not in page
    assert "print-only" in matrix_html(cells, print_only=True)


def test_cells_take_the_heatmaps_colours():
    """The colour of each cell is Plotly's colour scale sampled at the cell's place between zmin
    and zmax (written here from the scale's stops), with dark text on light cells."""
    z = np.array([[0.0, 0.3, 1.0]])
    colours = cell_colours(z, "Cividis", 0.0, 1.0)[0]
    stops = pc.get_colorscale("Cividis")
    for value, (background, _) in zip(z[0], colours):
        k = max(i for i, (at, _) in enumerate(stops) if at <= value)
        (a, low), (b, high) = stops[k], stops[min(k + 1, len(stops) - 1)]
        frac = 0.0 if b == a else (value - a) / (b - a)
        rgb = [(1 - frac) * c0 + frac * c1 for c0, c1 in zip(pc.hex_to_rgb(low), pc.hex_to_rgb(high))]
        assert background == "#{:02x}{:02x}{:02x}".format(*(round(c) for c in rgb))
    assert [text for _, text in colours] == ["#ffffff", "#ffffff", "#1a1a1a"]  # dark blue, grey, yellow


@pytest.mark.parametrize("scale", ["Cividis", "RdBu_r"])
def test_cell_colours_equal_plotlys_own_sampling_of_the_scale(scale):
    """Against Plotly's ``sample_colorscale``, cell by cell, and the WCAG luminance written here
    in a loop: random values in and beyond [zmin, zmax], −∞ and NaN left blank."""
    rng = np.random.default_rng(5)
    z = rng.uniform(-1.5, 1.5, size=(9, 11))  # (rows, cols)
    z[2, 3], z[4, 0] = -np.inf, np.nan
    got = cell_colours(z, scale, -1.0, 1.0)
    for r in range(z.shape[0]):
        for c in range(z.shape[1]):
            if not np.isfinite(z[r, c]):
                assert got[r][c] is None
                continue
            (colour,) = pc.sample_colorscale(pc.get_colorscale(scale), [min(max((z[r, c] + 1) / 2, 0.0), 1.0)])
            rgb = [float(x) for x in colour[colour.index("(") + 1 : -1].split(",")]
            assert got[r][c][0] == "#{:02x}{:02x}{:02x}".format(*(round(x) for x in rgb))
            linear = [x / 255 / 12.92 if x / 255 <= 0.04045 else ((x / 255 + 0.055) / 1.055) ** 2.4 for x in rgb]
            luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
            assert got[r][c][1] == ("#ffffff" if luminance < 0.45 else "#1a1a1a"), (r, c, luminance)


@pytest.mark.parametrize("diverging", [False, True])
def test_printed_cells_get_a_light_shade_by_their_place_on_the_scale(diverging):
    """Each cell of a table carries its print shade (issue 43: no dark fills on paper): its place
    between zmin and zmax (from the middle when diverging) in PRINT_SHADES steps, written here
    cell by cell; the side says which hue; the lowest step, a blank cell and the middle stay white."""
    rng = np.random.default_rng(43)
    z = rng.uniform(-2.0, 2.0, size=(6, 7)) if diverging else rng.dirichlet(np.ones(7), size=6)  # (6, 7)
    z[1, 2] = -np.inf
    matrix = token_matrix(z, list("abcdef"), list("abcdefg"), title="m", diverging=diverging)
    cells = matrix.cells
    page = matrix_html(cells)
    found = [re.search(r'class="([^"]*)"', td) for td in re.findall(r"<td[^>]*data-value[^>]*>", page)]
    shades = [[n for n in (m.group(1).split() if m else []) if n != "dk"] for m in found]
    for (r, c), got in zip(np.ndindex(z.shape), shades):
        if not np.isfinite(z[r, c]):
            assert got == []
            continue
        place = min(max((z[r, c] - cells.zmin) / (cells.zmax - cells.zmin), 0.0), 1.0)
        signed = 2 * place - 1 if diverging else place
        step = int(np.rint(abs(signed) * PRINT_SHADES))
        want = [("l" if signed < 0 else "h") + str(step)] if step else []
        assert got == want, (r, c, z[r, c], got, want)
    assert any(shade for shade in shades), "no cell shaded: the check proves nothing"


def test_each_strip_has_its_own_scale(lesson):
    """Step 2's rows (the word vector, its position, the sum) differ by orders of magnitude; each
    strip ends at its own bound (the largest |value|, or the 95 % quantile beyond 16 columns), so no
    strip is left nearly white, and its label says the bound."""
    i = 2
    rows = np.stack([lesson.embed_scale * lesson.word_vectors[i], lesson.positional[i], lesson.inputs[i]])  # (3, d)
    fig = strips(rows, ["x", "PE", "a"], [f"[{c + 1}]" for c in range(rows.shape[1])], title="t")
    for trace, row, label in zip(fig.data, rows, fig.layout.yaxis.ticktext):
        assert trace.zmax == -trace.zmin == np.abs(row).max()
        assert label.endswith(f"(±{np.abs(row).max():.3g})")
        assert np.mean(np.abs(row) / trace.zmax > 0.2) > 0.3  # a colour, not white, in most cells
    wide = np.random.default_rng(0).normal(size=384)
    wide[7] = 40.0  # one outlier, as a trained model's LayerNorm keeps
    assert strip_bound(wide) == pytest.approx(np.quantile(np.abs(wide), STRIP_QUANTILE))
    assert strips([wide], ["h"], [str(c) for c in range(384)], title="t").phone_ticks is False


def test_bars_never_shrink_a_value_and_a_phone_thins_tilted_labels():
    words = [f"word{j}" for j in range(2 * PHONE_TILTED_LABELS + 1)]
    fig = key_bars(np.full(len(words), 1 / len(words)), words, title="α̂")
    assert fig.data[0].constraintext == "none" and fig.data[0].textfont.size == BAR_TEXT_PX >= MIN_TEXT_PX == 11
    assert 0 < sum(bool(text) for text in fig.data[0].text) < len(words)  # 17 equal values: some, spaced
    assert fig.layout.xaxis.tickangle == -45 and fig.phone_step == 3
    assert key_bars([0.5, 0.5], ["a", "b"], title="α̂").phone_step == 1
    tokens = SENTENCE.split()  # 15 tilted key labels under a weights matrix: a phone shows 1, 3, 5, …
    assert token_matrix(np.eye(15), tokens, tokens, title="α̂").chart().phone_step == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_chart_says_what_it_shows(lang):
    tr = partial(translate, lang)
    matrix = describe(token_matrix(np.eye(3) / 3, list("abc"), list("abc"), title="w", tr=tr).chart().to_dict(), tr=tr)
    assert tr("charts.heatmap", rows=3, cols=3, row_axis=tr("figures.query_axis"), col_axis=tr("figures.key_axis"))
    assert matrix.startswith(tr("charts.heatmap", rows=3, cols=3, row_axis="", col_axis="")[:6])
    assert tr("charts.numbers_in_cells") in matrix and tr("charts.numbers_hover") in matrix
    bars = describe(key_bars([0.5, 0.5], ["a", "b"], title="α̂", tr=tr).to_dict(), tr=tr)
    assert tr("charts.numbers_on_bars") in bars and "2" in bars


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_printed_page_starts_with_the_sentence_and_settings(lang, monkeypatch):
    import attention_ui.presentation as presentation

    monkeypatch.setattr(presentation, "t", partial(translate, lang))
    typed = 'the <b>cat</b> & "dog"'
    lesson = build_lesson(typed, ToyEmbedder(dim=8), LessonSettings(d_k=4, seed=7, scaled=False))
    page = handout_html(lesson, "matrices")
    assert "<b>cat" not in page and "the &lt;b&gt;cat&lt;/b&gt; &amp; &quot;dog&quot;" in page
    assert page.startswith('<div class="print-only handout">')
    tr = partial(translate, lang)
    for part in (
        tr("presentation.handout", page=tr("shell.nav_matrices")),
        tr("presentation.handout_embedder_toy"),
        tr("presentation.handout_w_random", seed=7, d_k=4),
        tr("presentation.handout_scaled", state=tr("presentation.off")),
        tr("presentation.handout_tokens", shown=len(lesson.tokens), total=lesson.n_tokens),
    ):
        assert part.replace('"', "&quot;") in page


def _matrices(at) -> list[str]:
    """The matrices drawn as HTML tables on the page (not the style sheet that names their class)."""
    return [h.proto.body for h in at.get("html") if h.proto.body.startswith(f'<div class="{MATRIX_CLASS}-box')]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_presentation_mode_draws_the_weights_as_a_table_of_the_lessons_numbers(lang):
    """Attention matrices with ?present=true: the weights are a table (no Plotly heatmap of them)
    whose every cell is the page's lesson's α̂_ij; the spotlight choice is there; off, the
    heatmap is drawn with its table for print only."""
    at = open_link("pages/matrices.py", lang=lang, present="true", sentence=SENTENCE)
    lesson = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings())  # the toy embedder's defaults (test_pages)
    tables = _matrices(at)
    assert len(tables) == 1 and "print-only" not in tables[0]
    (table,) = read(tables[0])
    w = np.asarray(lesson.trace.weights)  # (T, T)
    assert [[text for text, _, _ in row] for row in table["cells"]] == [[f"{x:.2f}" for x in row] for row in w.tolist()]
    assert not any("heatmap" in json.dumps(json.loads(c.proto.spec)["data"]) for c in at.get("plotly_chart"))
    assert at.selectbox(key="fig_weights_spotlight").value is None
    at.selectbox(key="fig_weights_spotlight").select_index(3).run()  # row 3 (option 0 is none)
    _, spot = read(_matrices(at)[0])
    assert [text for text, _, _ in spot["cells"][0]] == [f"{x:.2f}" for x in w[2].tolist()]


def test_the_interactive_chart_is_a_heatmap_with_a_print_twin():
    """Attention matrices with "Interactive chart" on: the Plotly heatmap, and its table for print
    only; switched off again, the table alone."""
    at = open_link("pages/matrices.py", sentence=SENTENCE)
    assert at.toggle(key="chart").value is False and not at.get("plotly_chart")
    formats = lambda: [g for g in at.get("button_group") if g.key == "fig_weights_format"]  # noqa: E731
    assert not formats() and at.get("download_button"), "a table's menu: the CSV, no image format"
    at.toggle(key="chart").set_value(True).run()
    assert formats(), "the chart's menu: PNG or SVG"
    assert not at.exception, at.exception
    twins = _matrices(at)
    assert len(twins) == 1 and "print-only" in twins[0]
    assert any(json.loads(c.proto.spec)["data"][0]["type"] == "heatmap" for c in at.get("plotly_chart"))
    at.toggle(key="chart").set_value(False).run()
    assert not at.get("plotly_chart") and len(_matrices(at)) == 1 and "print-only" not in _matrices(at)[0]
    linked = open_link("pages/matrices.py", sentence=SENTENCE, chart="true")  # a link with ?chart=true
    assert linked.toggle(key="chart").value is True and "print-only" in _matrices(linked)[0]
