r"""The lesson's notation as LaTeX: α, α̂ and b, the attention formula and the formula of each
step with its numbers. Every page writes these through here, so the symbols look the same
everywhere and change in one place.

The notation, for query token i and key token j:

    α_ij = q_i · k_j                          the raw score (any real number)
    s_j  = α_ij / √d_k                         the scaled score, what the softmax takes
    α̂_ij = softmax_j(α_ij / √d_k)             the weight (in [0, 1], a row sums to 1)
    b_i  = Σ_j α̂_ij v_j                        the output

Every symbol keeps one meaning on every page (docs/ARCHITECTURE.md lists them): b is only the
output, so a learned bias is c (``bias("Q")`` is c^Q; c_1, c_2 in the feed-forward network);
m is a vector's component (q · k = Σ_m q_m k_m), n a sine–cosine pair of the positional
encoding, s_max the largest s_j of a row.

Indices written as letters run together (``α_ij``); a number is set off by a comma
(``α_{3,j}``), so that token 1 and key 12 never read as key 112.

Counting: every position a learner sees (a token, a key, a layer, a head, a step, a vector's
component) counts from 1, as the paper, the source article ("x_1 is the first word") and most
lectures do; Python counts from 0. ``shown(index)`` is the one conversion: row 0 of
``trace.weights`` is token 1 on every page, in every label, formula, hover, CSV header and URL.
The functions below that take a token's Python index (``scores_row(i, …)``) convert it
themselves; ``alpha``, ``alpha_hat``, ``b`` and ``index`` write what they are given.

Also how a formula writes numbers and spaces: ℝ^{a×b} (``real_space``), h⁽ˡ⁾ (``hidden``), a
number in brackets when negative (``signed``), a long vector shortened (``short_vec``). The pages'
own formulas, built from these, are in ``attention_ui/formulas.py``.

Plain strings, no Streamlit: ``st.latex(notation.attention_formula())``.

>>> alpha_hat("i", "j"), alpha(3, "j"), b(3), shown(0)
('\\hat\\alpha_{ij}', '\\alpha_{3,j}', 'b_{3}', 1)
"""

from __future__ import annotations

import numpy as np

ALPHA = r"\alpha"
ALPHA_HAT = r"\hat\alpha"
SOFTMAX = r"\mathrm{softmax}"
MAX_PRINTED = 8  # vectors with up to this many components are printed whole in formulas
MAX_TERMS = 6  # rows with up to this many terms are printed whole
TIMES = r" \times "  # between the dimensions of a matrix: ℝ^{T × d}

FIRST = 1
"""The number a learner sees for the first position (token, key, layer, head, step, component)."""


def shown(index) -> int:
    """The number a learner sees for the 0-based Python ``index``: token 1 is row 0.

    >>> shown(0), shown(np.int64(11))
    (1, 12)
    """
    return int(index) + FIRST


def component_labels(symbol: str, d: int) -> list[str]:
    """Names of a vector's d components as a learner sees them, ``symbol[1]`` … ``symbol[d]``
    (table columns, tick labels, CSV headers).

    >>> component_labels("q", 3)
    ['q[1]', 'q[2]', 'q[3]']
    """
    return [f"{symbol}[{shown(c)}]" for c in range(d)]


def index(*indices) -> str:
    """A subscript: ``_j`` for one letter, ``_{ij}`` for letters, ``_{3,j}`` once a number is in.

    >>> index("j"), index("i", "j"), index(3, "j"), index(3), index("j'")
    ('_j', '_{ij}', '_{3,j}', '_{3}', "_{j'}")
    """
    if len(indices) == 1 and isinstance(indices[0], str) and len(indices[0]) == 1:
        return f"_{indices[0]}"
    sep = "," if any(isinstance(i, int | np.integer) for i in indices) else ""
    return "_{" + sep.join(str(i) for i in indices) + "}"


def alpha(*indices) -> str:
    """The raw score α with its indices: ``alpha("i", "j")`` is ``\\alpha_{ij}``."""
    return ALPHA + index(*indices)


def alpha_hat(*indices) -> str:
    """The weight α̂ (the softmax of the scaled scores): ``alpha_hat(1, 2)`` is ``\\hat\\alpha_{1,2}``."""
    return ALPHA_HAT + index(*indices)


def b(*indices) -> str:
    """The output b: ``b()`` is ``b``, ``b(3)`` is ``b_{3}``."""
    return "b" + index(*indices) if indices else "b"


BIAS = "c"
"""A learned bias. Not b, which is the output b_i of attention on every page."""


def bias(of) -> str:
    """The bias of a projection: ``bias("Q")`` is ``c^Q`` (W^Q's), ``bias(1)`` is ``c_1`` (W_1's).

    >>> bias("O"), bias(2)
    ('c^O', 'c_2')
    """
    return f"{BIAS}^{of}" if isinstance(of, str) else f"{BIAS}_{of}"


def hidden(layer) -> str:
    r"""The hidden state written by layer ``layer``, its layer always in brackets: h⁽ˡ⁾ (h⁽⁰⁾ the
    embeddings, so the layer of 0-based index l reads ``hidden(l)`` and writes ``hidden(l + 1)``).

    >>> print(hidden(0), hidden(6))
    h^{(0)} h^{(6)}
    """
    return f"h^{{({layer})}}"


def real_space(*dims) -> str:
    r"""ℝ with its dimensions, the space a vector or a matrix lives in: ℝ^d or ℝ^{a×b}.

    >>> print(real_space(384))
    \mathbb{R}^{384}
    >>> print(real_space("T", 32))
    \mathbb{R}^{T \times 32}
    """
    return rf"\mathbb{{R}}^{{{TIMES.join(str(d) for d in dims)}}}"


def inline_math(tex: str) -> str:
    r"""A formula inside Markdown text (a widget's label, a table's cell): ``$…$``.

    >>> inline_math(b("i"))
    '$b_i$'
    """
    return f"${tex}$"


def gathered(*rows: str) -> str:
    r"""LaTeX lines centred one under the other, so that a long formula wraps on a narrow screen.

    >>> print(gathered("a = 1", "b = 2"))
    \begin{gathered}a = 1\\ b = 2\end{gathered}
    """
    return r"\begin{gathered}" + r"\\ ".join(rows) + r"\end{gathered}"


def signed(v: float, digits: int = 4) -> str:
    """A number for a formula, in brackets when negative, so that ``a - (-b)`` reads right.

    >>> signed(0.12345), signed(-0.1, 2)
    ('0.1235', '(-0.10)')
    """
    text = f"{v:.{digits}f}"
    return f"({text})" if v < 0 else text


def short_vec(x, digits: int = 3) -> str:
    r"""A long vector for a line narrow enough for a phone: its first two numbers and its last.

    >>> print(short_vec([0.5, -1.0, 2.0, 0.25]))
    [0.500,\ -1.000,\ \dots,\ 0.250]
    """
    first, second, last = (f"{v:.{digits}f}" for v in (x[0], x[1], x[-1]))
    return rf"[{first},\ {second},\ \dots,\ {last}]"


def power_of_ten(v: float) -> str:
    r"""A small constant such as LayerNorm's ε: 1e-12 as 10^{-12}, 3e-5 as 3 × 10^{-5}.

    >>> print(power_of_ten(1e-12))
    10^{-12}
    >>> print(power_of_ten(3e-5))
    3 \times 10^{-5}
    """
    mantissa, exponent = f"{v:.0e}".split("e")
    power = rf"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else rf"{mantissa} \times {power}"


SCORE = rf"{alpha('i', 'j')} = q_i \cdot k_j"
"""The raw score, defined: α_ij = q_i · k_j."""
WEIGHT = rf"{alpha_hat('i', 'j')} = {SOFTMAX}_j({alpha('i', 'j')}/\sqrt{{d_k}})"
"""The weight, defined: α̂_ij = softmax_j(α_ij / √d_k)."""
OUTPUT = rf"{b('i')} = \sum_j {alpha_hat('i', 'j')} v_j"
"""The output, defined: b_i = Σ_j α̂_ij v_j."""


POSITIONAL_ENCODING = (
    r"\begin{aligned}"
    r"\mathrm{PE}_{i,\,2n-1} &= \sin\frac{i - 1}{10000^{2(n-1)/d_{model}}}\\"
    r"\mathrm{PE}_{i,\,2n} &= \cos\frac{i - 1}{10000^{2(n-1)/d_{model}}}\\"
    r"n &= 1, \dots, \tfrac{d_{model}}{2}"
    r"\end{aligned}"
)
"""The sinusoidal positional encoding of token i (from 1) as the random and identity lessons add
it (``attention_core.positional``): components 2n − 1 and 2n (pair n) are a sine and a cosine
turning at their own rate; the first token's angle is 0. One line each, so that it fits a phone."""


def scaled_qk(q: str = "Q", k: str = "K", *, scaled: bool = True, d_k="d_k") -> str:
    """The scores matrix inside the softmax: ``\\frac{QK^\\top}{\\sqrt{d_k}}``, or ``QK^\\top``
    when the division is switched off. Subscripted names get a space (``Q_h K_h^\\top``).

    >>> scaled_qk(), scaled_qk("Q_h", "K_h", scaled=False)
    ('\\\\frac{QK^\\\\top}{\\\\sqrt{d_k}}', 'Q_h K_h^\\\\top')
    """
    product = f"{q} {k}^\\top" if "_" in q else f"{q}{k}^\\top"
    return rf"\frac{{{product}}}{{\sqrt{{{d_k}}}}}" if scaled else product


def attention_formula(d_k="d_k") -> str:
    """Attention(Q, K, V) = softmax(QKᵀ/√d_k) V, with ``d_k`` a symbol or a number.

    >>> attention_formula(32).endswith(r"\\sqrt{32}}\\right)V")
    True
    """
    return rf"\mathrm{{Attention}}(Q, K, V) = {SOFTMAX}\!\left({scaled_qk(d_k=d_k)}\right)V"


def fmt_vec(x, digits: int = 3, longest: int = MAX_PRINTED) -> str:
    """A vector as a LaTeX row, shortened in the middle (its first three and last two) when it
    has more than ``longest`` components; -inf prints as -∞.

    >>> fmt_vec([1, -np.inf])
    '[1.000,\\\\ -\\\\infty]'
    >>> print(fmt_vec(range(6), digits=0, longest=5))
    [0,\\ 1,\\ 2,\\ \\dots,\\ 4,\\ 5]
    """
    x = np.asarray(x, dtype=np.float64)
    cells = ["-\\infty" if np.isneginf(v) else f"{v:.{digits}f}" for v in x]
    if len(cells) > longest:
        cells = cells[:3] + ["\\dots"] + cells[-2:]
    return "[" + ",\\ ".join(cells) + "]"


def terms(values, term, sep: str = ",\\ ") -> str:
    """One LaTeX term per key, ``term(j, value)`` with j the key's number as shown (from 1),
    joined by ``sep`` (a list with commas, or a sum with ``sep=" + "``); long rows show the
    first three and the last two.

    >>> terms([0.5, 0.25], lambda j, v: f"{alpha_hat(1, j)} = {v:.2f}")
    '\\\\hat\\\\alpha_{1,1} = 0.50,\\\\ \\\\hat\\\\alpha_{1,2} = 0.25'
    """
    items = [term(shown(j), v) for j, v in enumerate(values)]
    return sep.join(items if len(items) <= MAX_TERMS else items[:3] + ["\\dots"] + items[-2:])


# --------------------------------------------------------------------------- one query row, step by step


def scores_row(i: int, scores, digits: int = 3) -> str:
    """α_{i,j} = q_i · k_j for the token of Python index ``i`` (shown as i + 1), and the row's numbers.

    >>> scores_row(0, [2.0])
    '\\\\alpha_{1,j} = q_{1} \\\\cdot k_j:\\\\quad \\\\alpha_{1,1} = 2.000'
    """
    n = shown(i)
    return rf"{alpha(n, 'j')} = q_{{{n}}} \cdot k_j:\quad " + terms(
        scores, lambda j, v: f"{alpha(n, j)} = {v:.{digits}f}"
    )


def scaled_row(i: int, scaled, d_k: int, *, symbolic: bool = True) -> str:
    """α_{i,j} / √d_k with d_k as a number (after the symbol when ``symbolic``), and the row."""
    n = shown(i)
    number = rf"\frac{{{alpha(n, 'j')}}}{{\sqrt{{{d_k}}}}}"
    head = rf"\frac{{{alpha(n, 'j')}}}{{\sqrt{{d_k}}}} = {number}" if symbolic else number
    return head + r":\quad " + terms(scaled, lambda j, v: f"{v:.3f}")


def softmax_row(i: int, weights, row_max: float, row_sum: float, *, scaled: bool = True) -> str:
    """α̂_{i,j} as the stable softmax computes it, with s_j defined: the scaled score
    α_{i,j}/√d_k (α_{i,j} itself when ``scaled`` is off), and s_max the row's largest s_j.
    s is the scaled score on every page and nothing else.

    >>> r"s_j = \\alpha_{1,j}" in softmax_row(0, [1.0], 2.0, 1.0, scaled=False)
    True
    """
    n = shown(i)
    s_j = rf"\frac{{{alpha(n, 'j')}}}{{\sqrt{{d_k}}}}" if scaled else alpha(n, "j")
    return (
        rf"{alpha_hat(n, 'j')} = \frac{{e^{{s_j - s_{{\max}}}}}}{{\sum_{{j'}} e^{{s_{{j'}} - s_{{\max}}}}}},"
        rf"\quad s_j = {s_j},\quad s_{{\max}} = {row_max:.3f},"
        rf"\ \sum_j e^{{s_j - s_{{\max}}}} = {row_sum:.4f}:\quad " + terms(weights, lambda j, v: f"{v:.3f}")
    )


def output_row(i: int, weights) -> str:
    """b_i = Σ_j α̂_{i,j} v_j with the weights as numbers.

    >>> output_row(0, [0.25, 0.75])
    'b_{1} = \\\\sum_j \\\\hat\\\\alpha_{1,j} v_j = 0.25\\\\,v_{1} + 0.75\\\\,v_{2}'
    """
    n = shown(i)
    return rf"{b(n)} = \sum_j {alpha_hat(n, 'j')} v_j = " + terms(
        weights, lambda j, v: rf"{v:.2f}\,v_{{{j}}}", sep=" + "
    )
