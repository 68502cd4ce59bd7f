"""The lesson's notation (attention_ui.notation): one home for the LaTeX of α, α̂, b, the formula
and the step formulas, which every page uses."""

from __future__ import annotations

import doctest
import re

import numpy as np
import pytest

from attention_ui import notation
from attention_ui.notation import (
    OUTPUT,
    SCORE,
    WEIGHT,
    alpha,
    alpha_hat,
    attention_formula,
    b,
    bias,
    output_row,
    scaled_qk,
    scaled_row,
    scores_row,
    softmax_row,
    terms,
)
from tests.helpers import ROOT


def test_the_doctests_run():
    failures, tries = doctest.testmod(notation, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failures == 0 and tries >= 6


@pytest.mark.parametrize(
    ("written", "latex"),
    [
        (alpha("i", "j"), r"\alpha_{ij}"),
        (alpha_hat("j"), r"\hat\alpha_j"),
        (alpha(3, "j"), r"\alpha_{3,j}"),
        (alpha_hat(1, 12), r"\hat\alpha_{1,12}"),  # never \hat\alpha_{112}
        (alpha(np.int64(2), 0), r"\alpha_{2,0}"),
        (b(), "b"),
        (b("i"), "b_i"),
        (b(4), "b_{4}"),
        (bias("Q"), "c^Q"),  # a bias is never b, the output
        (bias(1), "c_1"),
        (SCORE, r"\alpha_{ij} = q_i \cdot k_j"),
        (WEIGHT, r"\hat\alpha_{ij} = \mathrm{softmax}_j(\alpha_{ij}/\sqrt{d_k})"),
        (OUTPUT, r"b_i = \sum_j \hat\alpha_{ij} v_j"),
        (
            attention_formula(),
            r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V",
        ),
        (scaled_qk("Q_h", "K_h"), r"\frac{Q_h K_h^\top}{\sqrt{d_k}}"),
        (scaled_qk(scaled=False), r"QK^\top"),
    ],
)
def test_symbols(written, latex):
    assert written == latex


def test_step_formulas_carry_the_numbers():
    """The row formulas take the token's Python index and write it, and every key, counted from 1."""
    scores, weights = np.array([1.0, -2.5]), np.array([0.75, 0.25])
    assert scores_row(3, scores) == r"\alpha_{4,j} = q_{4} \cdot k_j:\quad \alpha_{4,1} = 1.000,\ \alpha_{4,2} = -2.500"
    assert scaled_row(3, scores / 2, 4) == (
        r"\frac{\alpha_{4,j}}{\sqrt{d_k}} = \frac{\alpha_{4,j}}{\sqrt{4}}:\quad 0.500,\ -1.250"
    )
    assert scaled_row(3, scores / 2, 4, symbolic=False).startswith(r"\frac{\alpha_{4,j}}{\sqrt{4}}:\quad")
    row = softmax_row(3, weights, 0.5, 1.3333)
    assert row.startswith(r"\hat\alpha_{4,j} = \frac{e^{s_j - s_{\max}}}")
    assert r"s_j = \frac{\alpha_{4,j}}{\sqrt{d_k}}" in row  # s_j is defined where it is used
    assert r"s_{\max} = 0.500,\ \sum_j e^{s_j - s_{\max}} = 1.3333:\quad 0.750,\ 0.250" in row
    assert r"s_j = \alpha_{4,j}," in softmax_row(3, weights, 0.5, 1.3333, scaled=False)
    assert output_row(3, weights) == r"b_{4} = \sum_j \hat\alpha_{4,j} v_j = 0.75\,v_{1} + 0.25\,v_{2}"


def test_positions_count_from_one():
    """One conversion from Python's 0-based index to the number a learner sees."""
    assert [notation.shown(i) for i in (0, 1, np.int64(11))] == [1, 2, 12]
    assert notation.component_labels("q", 2) == ["q[1]", "q[2]"]
    assert terms([5.0, 6.0], lambda j, v: f"{j}:{v:g}") == r"1:5,\ 2:6"


def test_the_positional_encoding_formula_is_the_one_the_core_adds():
    """notation.POSITIONAL_ENCODING, read literally (token i and pair n from 1, p = i − 1),
    gives attention_core.positional's table; a loop, not the core's vectorised code."""
    from attention_core.positional import sinusoidal_encoding

    tex = notation.POSITIONAL_ENCODING
    assert r"\sin\frac{i - 1}{10000^{2(n-1)/d_{model}}}" in tex and r"\mathrm{PE}_{i,\,2n-1}" in tex
    assert r"\cos\frac{i - 1}{10000^{2(n-1)/d_{model}}}" in tex and r"\mathrm{PE}_{i,\,2n}" in tex
    d, T = 10, 7
    table = sinusoidal_encoding(T, d)
    for i in range(1, T + 1):
        for n in range(1, d // 2 + 1):
            angle = (i - 1) / 10000 ** (2 * (n - 1) / d)
            assert table[i - 1, 2 * n - 2] == pytest.approx(np.sin(angle), abs=1e-12)  # component 2n − 1
            assert table[i - 1, 2 * n - 1] == pytest.approx(np.cos(angle), abs=1e-12)  # component 2n


def test_long_rows_are_shortened_in_the_middle():
    written = terms(range(10), lambda j, v: str(v))
    assert written == r"0,\ 1,\ 2,\ \dots,\ 8,\ 9"


def _strings(path):
    """(line, text) of every string a module's code writes, its docstrings (and their examples) aside."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_page_writes_the_notation_itself():
    """α, α̂ and the softmax are written by attention_ui/notation.py; pages, figures and the page
    formulas (attention_ui/formulas.py) call it."""
    spelled = re.compile(r"\\alpha|\\mathrm\{+softmax")
    files = [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "attention_ui").glob("*.py"))]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in files
        if path.name != "notation.py"
        for n, text in _strings(path)
        if spelled.search(text)
    ]
    assert not found, found


# --------------------------------------------------------------------------- one index convention

ZERO_BASED = re.compile(
    r"\(from 0\)|count(?:s|ed|ing)? from 0|从 ?0 ?(?:开始|数起)"  # "counted from 0" (not a seed "from 0 to 9")
    r"|(?:(?<![\w\\])[xaqkvbα]\u0302?|\\(?:hat\\)?alpha)(?:_\{?0(?![.\d])|₀)"  # x_0, a₀, q_{0}, α̂_0j, \alpha_{0,j}
    r"|\b(?:token|row|column|head|layer|key|query|step) 0(?![.\d])"  # "token 0", "layer 0"
    r"|第 ?0 ?(?:层|个|行|列|步)|(?:词元|头|行|列|键|查询) ?0(?![.\d])"
)
"""A position counted from 0, as a learner would read it in a catalog or a formula."""
EXPLAINS_PYTHON = {"code.zero_based"}  # the one sentence that says Python counts from 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_catalog_counts_from_zero(lang):
    """Every position a catalog names counts from 1: no "token 0", no x₀ or α_{0,j}, no "from 0"
    (only the code page says that Python counts from 0)."""
    from attention_ui.i18n import catalog

    found = {
        key: match.group(0)
        for key, text in catalog(lang).items()
        if key not in EXPLAINS_PYTHON
        for match in [ZERO_BASED.search(text)]
        if match
    }
    assert not found, found


def test_the_zero_based_pattern_finds_what_it_should():
    """The pattern above is not blind: it finds each way of counting from 0 and leaves alone
    what is not a position (h⁽⁰⁾ the embeddings, weights between 0 and 1, m = 0)."""
    zero_based = ("x₀ … x_T", r"\alpha_{0,j}", "α̂_0j", "token 0", "Layer (from 0)", "counted from 0", "第 0 层", "头 0")
    for text in (*zero_based, "q_0 · k"):
        assert ZERO_BASED.search(text), text
    for text in ("h⁽⁰⁾_i", "between 0 and 1", "token 10", "0.5", "m = 0", "x_10", "(0 to 3)", "β = 0"):
        assert not ZERO_BASED.search(text), text


def test_formulas_and_labels_count_alike():
    """The same token, Python index 0, is "1: …" in a label and carries subscript 1 in every
    formula: labels and formulas cannot disagree on the convention."""
    from attention_ui.safe import numbered_labels, token_labels

    scores, weights = np.array([0.5, -1.0, 2.0]), np.array([0.2, 0.3, 0.5])
    labels = numbered_labels(["the", "cat", "sat"])
    assert labels[0].split(":")[0] == "1" and token_labels(["the"])[0].startswith("1:")
    subscripts = set()
    for formula in (
        scores_row(0, scores),
        scaled_row(0, scores, 4),
        softmax_row(0, weights, 2.0, 1.5),
        output_row(0, weights),
    ):
        subscripts |= {int(n) for n in re.findall(r"_\{(\d+)", formula)}
        assert not ZERO_BASED.search(formula), formula
    assert min(subscripts) == 1 and max(subscripts) == len(labels), subscripts
    assert {int(label.split(":")[0]) for label in labels} == {1, 2, 3}


# --------------------------------------------------------------------------- no LaTeX in the pages

PAGES_OWNED_ELSEWHERE = {"intuition.py"}
"""Pages whose formulas move to attention_ui with their own rework; every other page is checked."""
LATEX = re.compile(r"\\|\$|[_^]\{")
"""What only LaTeX writes: a command (any backslash, once Python has read its escapes: "\\n" is a
newline, r"\\alpha" a backslash), Markdown math ($…$), or a braced sub- or superscript."""


def test_pages_hold_no_latex_of_their_own():
    """Every formula of a page comes from attention_ui.formulas or attention_ui.notation: no string
    of a page (docstrings aside) writes a LaTeX command, inline math or a braced index itself."""
    found = [
        f"{path.relative_to(ROOT)}:{n}: {text!r}"
        for path in sorted((ROOT / "pages").glob("*.py"))
        if path.name not in PAGES_OWNED_ELSEWHERE
        for n, text in _strings(path)
        if LATEX.search(text)
    ]
    assert not found, "\n".join(found)


def test_the_latex_check_finds_what_it_should():
    """The pattern above is not blind: each way a page could write LaTeX is found, and what pages
    write for other reasons (Markdown tables, code, CSV labels) is not."""
    for text in (r"\mathbb{R}", "h^{(1)}", "x_{i,m}", "$q_i$", r"a \\ b", r"\,"):
        assert LATEX.search(text), text
    for text in ("|---|:---:|\n", "q, k, v = project(a, projections)\n", "k_", "sigma^2", "e_A*e_B", "b_1"):
        assert not LATEX.search(text), text


def test_the_page_formulas_run_their_examples():
    from attention_ui import formulas

    failures, tries = doctest.testmod(formulas, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failures == 0 and tries >= 30


def test_real_space_writes_every_dimension():
    assert notation.real_space(384) == r"\mathbb{R}^{384}"
    assert notation.real_space(12, 384) == r"\mathbb{R}^{12 \times 384}"
    assert notation.real_space("T", "d_k") == r"\mathbb{R}^{T \times d_k}"


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_a_vector_never_breaks_inside(seed):
    """A phone wrapped the by-hand exercise's vectors mid-vector ("k_2 = (2," / "-1)"): a line may
    break between the terms of ``kept_terms`` only, and every vector lies whole inside one term."""
    from attention_core import exercises as ex
    from attention_ui.formulas import by_hand_vectors, kept_terms

    e = ex.by_hand_exercise(seed)
    tex = kept_terms(by_hand_vectors(e.q, e.k, ex.BY_HAND_D_K))
    pieces = tex.split(r"\allowbreak")
    assert len(pieces) == 1 + len(e.k) + 1  # q, each k_j, d_k: a break between them only
    for piece in pieces:
        assert piece.count("(") == piece.count(")"), piece
    vectors = [(e.q[0], e.q[1])] + [(x, y) for x, y in e.k]
    for x, y in vectors:
        assert any(rf"({int(x)},\ {int(y)})" in piece for piece in pieces), (x, y, tex)


@pytest.mark.parametrize(("embedder", "query", "key"), [("model", 1, 0), ("model", 3, 5), ("toy", 2, 1)])
def test_step_4s_line_breaks_only_between_whole_pieces(embedder, query, key):
    """Step 4's line q_i ⊙ k_j = […] ⇒ α_ij = Σ = score, with 老师说她很忙: three pieces in braces,
    a break allowed only before the "=" and the "⇒"; its products and score are q_i[c] · k_j[c]
    and their sum as a loop over the model's (or the toy's) q and k gives them."""
    from attention_core import LessonSettings, ToyEmbedder, build_lesson, explain
    from attention_core.model import ModelEmbedder
    from attention_ui.formulas import products_and_score

    if embedder == "model":
        lesson = build_lesson("老师说她很忙", ModelEmbedder(), LessonSettings(projection="trained"))
    else:
        lesson = build_lesson("老师说她很忙", ToyEmbedder(dim=8), LessonSettings(projection="random", d_k=8))
    e = explain(lesson.trace, query)
    tex = products_and_score(query + 1, key + 1, e.products[key], e.scores[key])
    pieces = tex.split(r"\allowbreak ")
    assert len(pieces) == 3, tex
    for piece in pieces:  # each one group: its first brace closes at its end, so KaTeX keeps it whole
        depth = [piece[: k + 1].count("{") - piece[: k + 1].count("}") for k in range(len(piece))]
        assert piece.startswith("{") and depth[-1] == 0 and 0 not in depth[:-1], piece
    assert pieces[0] == rf"{{q_{{{query + 1}}} \odot k_{{{key + 1}}}}}"
    assert pieces[1].startswith("{{} = [") and pieces[2].startswith(r"{{}\quad\Rightarrow\quad")
    q, k = lesson.trace.q[query], lesson.trace.k[key]  # (d_k,) each
    products = [float(q[c]) * float(k[c]) for c in range(len(q))]
    cells = re.findall(r"-?\d+\.\d{3}", pieces[1])
    shown_cells = products if len(products) <= 5 else products[:3] + products[-2:]  # at most 5 fit a phone
    assert cells == [f"{p:.3f}" for p in shown_cells], (cells, shown_cells)
    assert pieces[2].endswith(f"= {sum(products):.4f}}}"), pieces[2]
