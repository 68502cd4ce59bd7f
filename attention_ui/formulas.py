r"""The pages' formulas as LaTeX, one function per formula, named for what it writes.

``notation.py`` holds the symbols and how numbers are written (α, α̂, b, c, h⁽ˡ⁾, ℝ^{a×b},
``signed``, ``short_vec``, the row formulas of one query); this module builds the formulas of
each page from them, with the page's numbers. A page holds no LaTeX of its own: it calls
``st.latex(formulas.layer_equations(...))`` (``tests/test_notation.py`` checks it).

Plain strings, no Streamlit. Positions are passed as the number a learner sees (from 1) unless
a function says it takes a Python index.
"""

from __future__ import annotations

import re

from attention_ui.notation import (
    OUTPUT,
    SCORE,
    SOFTMAX,
    alpha,
    alpha_hat,
    attention_formula,
    b,
    bias,
    fmt_vec,
    gathered,
    hidden,
    inline_math,
    power_of_ten,
    real_space,
    scaled_qk,
    short_vec,
    shown,
    signed,
)

_TERM_SEP = re.compile(r"[,:]?\\qquad ?|[,:]?\\quad ?|,\\ ")
r"""What separates the terms of a formula: a comma or colon and a space (``\quad``, ``\qquad``, ``\ ``)."""
_OPEN_CLOSE = re.compile(r"\\(left|right|begin|end)(?![A-Za-z])")
_DELIMITERS = "()[].|"
SHORT_TERM = 60
"""A term of at most this many characters of LaTeX is kept on one line (``kept_terms``)."""


def kept_terms(tex: str, short: int = SHORT_TERM) -> str:
    r"""``tex`` with each short term kept whole: a line breaks between terms, never inside one.

    KaTeX breaks a displayed formula (the style sheet lets it wrap) after any relation or
    operator, so "1/√32 = 0.1768" could end a line with "=" and start the next with 0.1768. Each
    term (the parts between ``,\quad``-like separators outside any braces, parentheses, brackets
    or ``\left … \right``: a vector "(2,\ -1)" or "[0.5,\ 1.0]" is one term)
    of at most ``short`` characters goes in braces, which KaTeX never breaks, and the line may
    break after its separator (``\allowbreak``). A longer term still breaks at its = and +, and a
    term too wide for the screen scrolls (the style sheet). A formula with an environment
    (``\begin``) is returned as it is.

    >>> print(kept_terms(r"x = 1,\qquad \frac{1}{\sqrt{32}} = 0.1768"))
    {x = 1},\qquad\allowbreak {\frac{1}{\sqrt{32}} = 0.1768}
    >>> print(kept_terms(r"\alpha_{1} = 2.5,\ \alpha_{2} = 1"))
    {\alpha_{1} = 2.5},\ \allowbreak {\alpha_{2} = 1}
    >>> kept_terms(r"f\!\left(a,\ b\right)") == r"{f\!\left(a,\ b\right)}"
    True
    >>> print(kept_terms(r"q = (1,\ 2),\quad k_2 = (2,\ -1)"))
    {q = (1,\ 2)},\quad\allowbreak {k_2 = (2,\ -1)}
    >>> print(kept_terms(r"b_2 = [0.5,\ 1.0],\quad d_v = 2"))
    {b_2 = [0.5,\ 1.0]},\quad\allowbreak {d_v = 2}
    >>> kept_terms(r"M = \begin{cases} 0 & j \le i \\ 1 \end{cases},\quad d = 2").endswith(r"\allowbreak {d = 2}")
    True
    """
    if tex.lstrip().startswith(r"\begin"):  # lines of their own (gathered, aligned)
        return tex
    parts, seps, start, depth, k = [], [], 0, 0, 0
    while k < len(tex):
        if tex.startswith(("\\{", "\\}"), k):
            k += 2
            continue
        if word := _OPEN_CLOSE.match(tex, k):
            depth += 1 if word.group(1) in ("left", "begin") else -1
            k = word.end()
            k += tex[k : k + 1] in _DELIMITERS  # the delimiter of \left( or \right) counts once, with its word
            continue
        if tex[k] in "{([":  # a vector (2, -1) or [0.5, 1.0] is one term: its inner ",\ " is no separator
            depth += 1
        elif tex[k] in "})]":
            depth -= 1
        elif depth == 0 and (m := _TERM_SEP.match(tex, k)):
            parts.append(tex[start:k])
            seps.append(m.group().rstrip())
            start = k = m.end()
            continue
        k += 1
    parts.append(tex[start:])
    terms = [f"{{{part.strip()}}}" if len(part) <= short else part.strip() for part in parts]
    out = terms[0]
    for sep, term in zip(seps, terms[1:], strict=True):
        out += f"{sep}{'' if sep.endswith('quad') else ' '}\\allowbreak {term}"
    return out


def concat_heads(n_heads: int) -> str:
    r"""The heads joined side by side, head 1 to head H.

    >>> print(concat_heads(12))
    \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_{12})
    """
    return rf"\mathrm{{Concat}}(\mathrm{{head}}_1, \dots, \mathrm{{head}}_{{{n_heads}}})"


# --------------------------------------------------------------------------- Step by step


PRODUCTS_SHOWN = 5
"""Step 4's products printed whole up to this many (d_k = 8 took 445 px of a phone's 358)."""


def products_and_score(n: int, j: int, products, score: float) -> str:
    r"""Step 4's line for query ``n`` and key ``j`` (both as shown, from 1): the products
    q_n ⊙ k_j component by component, and their sum, the score α_nj.

    Three pieces, each kept whole (braces): "q_n ⊙ k_j", "= [the products]" and "⇒ α_nj = Σ =
    the score"; a line may break before the "=" and before the "⇒" only. KaTeX breaks after a
    relation, so the score stood alone on a projector's second line ("= / 24.8028"), and the
    products ran off a phone's screen (d_k = 8: 445 px in 358 px); more than ``PRODUCTS_SHOWN``
    products show their first three and last two (the chart under the line shows them all).
    ``{} =`` keeps the spaces of a relation around an "=" that starts its piece.

    >>> for piece in products_and_score(2, 1, [1.5, -2.0], -0.5).split(r"\allowbreak "):
    ...     print(piece)
    {q_{2} \odot k_{1}}
    {{} = [1.500,\ -2.000]}
    {{}\quad\Rightarrow\quad \alpha_{2,1} = \textstyle\sum = -0.5000}
    """
    return (
        rf"{{q_{{{n}}} \odot k_{{{j}}}}}\allowbreak {{{{}} = {fmt_vec(products, longest=PRODUCTS_SHOWN)}}}"
        rf"\allowbreak {{{{}}\quad\Rightarrow\quad {alpha(n, j)} = \textstyle\sum = {score:.4f}}}"
    )


# --------------------------------------------------------------------------- Attention matrices, Code


def attention_with_sizes(T: int, d_k: int, d_v: int) -> str:
    r"""The attention formula and the sizes of this lesson; a narrow screen breaks the line between
    the ``{size = n}``, never inside one.

    >>> print(attention_with_sizes(5, 4, 4).split(r"\qquad")[1])
    \allowbreak {T = 5},\ \allowbreak {d_k = 4},\ \allowbreak {d_v = 4}
    """
    return (
        attention_formula()
        + rf"\qquad\allowbreak {{T = {T}}},\ \allowbreak {{d_k = {d_k}}},"
        + rf"\ \allowbreak {{d_v = {d_v}}}"
    )


def attention_times(scale: float) -> str:
    r"""softmax(QKᵀ × scale) V, the scale as a number: what ``scaled_dot_product_attention`` runs.
    Plain brackets, not \left( \right): the line may wrap at ×.

    >>> print(attention_times(0.5))
    \mathrm{softmax}(QK^\top \times 0.5000)V
    """
    return rf"{SOFTMAX}(QK^\top \times {scale:.4f})V"


# --------------------------------------------------------------------------- After attention


def layer_equations(layer: int, n_heads: int, T: int, d_model: int) -> str:
    r"""One encoder layer in four lines: W^O, the first residual and LayerNorm, the feed-forward
    network, the second residual and LayerNorm. ``layer`` is the 0-based index: the layer reads
    h⁽ˡᵃʸᵉʳ⁾ (h⁽⁰⁾ the embeddings) and writes h⁽ˡᵃʸᵉʳ⁺¹⁾.

    >>> print(layer_equations(0, 12, 5, 384).split(r"\\")[1])
    u &= \mathrm{LayerNorm}\big(h^{(0)} + o\big)
    """
    return (
        rf"\begin{{aligned}}"
        rf"o &= {concat_heads(n_heads)}\,W^O + {bias('O')}\\"
        rf"u &= \mathrm{{LayerNorm}}\big({hidden(layer)} + o\big)\\"
        rf"f &= \mathrm{{GELU}}\big(u W_1 + {bias(1)}\big)\,W_2 + {bias(2)}\\"
        rf"{hidden(layer + 1)} &= \mathrm{{LayerNorm}}\big(u + f\big)\\"
        rf"&o, u, f, {hidden(layer + 1)} \in {real_space(T, d_model)}"
        rf"\end{{aligned}}"
    )


def output_projection(n_heads: int, d_v: int, T: int, d_model: int) -> str:
    r"""The heads concatenated into C, and C mixed by W^O into o, with every shape.

    >>> print(output_projection(12, 32, 5, 384).split(r"\\ ")[1])
    C \in \mathbb{R}^{5 \times 384},\quad 12 \times 32 = 384
    """
    return gathered(
        rf"C = {concat_heads(n_heads)}",
        rf"C \in {real_space(T, d_model)},\quad {n_heads} \times {d_v} = {d_model}",
        rf"o = C\,W^O + {bias('O')} \in {real_space(T, d_model)}",
        rf"W^O \in {real_space(d_model, d_model)},\quad {bias('O')} \in {real_space(d_model)}",
    )


def first_layer_norm(layer: int, T: int, d_model: int, eps: float) -> str:
    r"""The first residual connection x_i = h⁽ˡ⁾_i + o_i and its LayerNorm into u, with γ, δ and ε
    (``layer``: the 0-based index of the layer, which reads h⁽ˡᵃʸᵉʳ⁾).

    >>> print(first_layer_norm(2, 5, 384, 1e-12).split(r"\\ ")[0])
    \begin{gathered}x_i = h^{(2)}_i + o_i
    """
    return gathered(
        rf"x_i = {hidden(layer)}_i + o_i",
        rf"\mu_i = \frac{{1}}{{{d_model}}}\sum_{{m=1}}^{{{d_model}}} x_{{i,m}}",
        rf"\sigma^2_i = \frac{{1}}{{{d_model}}}\sum_{{m=1}}^{{{d_model}}} (x_{{i,m}} - \mu_i)^2",
        r"u_{i,m} = \frac{x_{i,m} - \mu_i}{\sqrt{\sigma^2_i + \varepsilon}}\,\gamma_m + \delta_m",
        rf"\gamma, \delta \in {real_space(d_model)},\quad \varepsilon = {power_of_ten(eps)},\quad "
        rf"u \in {real_space(T, d_model)}",
    )


def feed_forward(T: int, d_model: int, d_ff: int) -> str:
    r"""The feed-forward network: widen to d_ff, GELU, back to d_model, with every shape.

    >>> print(feed_forward(5, 384, 1536).split(r"\\ ")[1])
    g = \mathrm{GELU}(z) = z\,\Phi(z)
    """
    return gathered(
        rf"z = u\,W_1 + {bias(1)} \in {real_space(T, d_ff)}",
        r"g = \mathrm{GELU}(z) = z\,\Phi(z)",
        rf"f = g\,W_2 + {bias(2)} \in {real_space(T, d_model)}",
        rf"W_1 \in {real_space(d_model, d_ff)},\quad W_2 \in {real_space(d_ff, d_model)}",
        r"\Phi(z) = \tfrac{1}{2}\big(1 + \mathrm{erf}(z/\sqrt{2})\big)",
    )


def second_layer_norm(layer: int, T: int, d_model: int) -> str:
    r"""The second residual connection y_i = u_i + f_i and its LayerNorm into the layer's output
    h⁽ˡᵃʸᵉʳ⁺¹⁾ (``layer``: the 0-based index), with its own γ′ and δ′.

    >>> print(second_layer_norm(0, 5, 384).split(r"\\ ")[2])
    h^{(1)} \in \mathbb{R}^{5 \times 384}\end{gathered}
    """
    return gathered(
        r"y_i = u_i + f_i",
        rf"{hidden(layer + 1)}_{{i,m}} = \frac{{y_{{i,m}} - \mu_i}}{{\sqrt{{\sigma^2_i + \varepsilon}}}}"
        r"\,\gamma'_m + \delta'_m",
        rf"{hidden(layer + 1)} \in {real_space(T, d_model)}",
    )


def layer_norm_example(example, token: int, component: int, d: int, symbol: str, out: str) -> str:
    r"""LayerNorm of one number, worked through: the row's mean and variance, then the number
    standardised, scaled by γ and shifted by δ. ``example`` is an ``after_attention.NormExample``;
    ``token`` and ``component`` are the numbers shown (from 1); ``symbol`` names the input (x or y)
    and ``out`` the output (u, or ``hidden(l)``).

    >>> from attention_core.after_attention import NormExample
    >>> e = NormExample(x=1.0, mean=0.5, var=0.25, eps=1e-12, std=0.5, standardized=1.0, gamma=2.0,
    ...                 beta=-0.5, output=1.5)
    >>> print(layer_norm_example(e, 3, 1, 384, "x", "u").split(r"\\ ")[-1])
    = 1.0000 \cdot 2.0000 + (-0.5000) = 1.5000\end{gathered}
    """
    e, n, m = example, token, component
    return gathered(
        rf"\mu_{{{n}}} = \tfrac{{1}}{{{d}}}\textstyle\sum_m {symbol}_{{{n},m}} = {e.mean:.4f}",
        rf"\sigma^2_{{{n}}} = \tfrac{{1}}{{{d}}}\textstyle\sum_m ({symbol}_{{{n},m}} - \mu_{{{n}}})^2"
        rf" = {e.var:.4f}",
        rf"\sqrt{{\sigma^2_{{{n}}} + \varepsilon}} = {e.std:.4f},\quad \varepsilon = {power_of_ten(e.eps)}",
        rf"{out}_{{{n},{m}}} = \frac{{{symbol}_{{{n},{m}}} - \mu_{{{n}}}}}"
        rf"{{\sqrt{{\sigma^2_{{{n}}} + \varepsilon}}}}\,\gamma_{{{m}}} + \delta_{{{m}}}",
        rf"= \frac{{{signed(e.x)} - {signed(e.mean)}}}{{{e.std:.4f}}} \cdot {signed(e.gamma)} + {signed(e.beta)}",
        rf"= {signed(e.standardized)} \cdot {signed(e.gamma)} + {signed(e.beta)} = {e.output:.4f}",
    )


def mean_pooling(T: int, n_layers: int, d_model: int, mean, norm: float, embedding) -> str:
    r"""The sentence vector: the mean h̄ of the last layer's T token vectors, its length, and e_A,
    h̄ scaled to length 1, each with its numbers (the first two and the last).

    >>> print(mean_pooling(4, 6, 3, [0.3, 0.4, 0.0], 0.5, [0.6, 0.8, 0.0]).split(r"\\ ")[0])
    \begin{gathered}\bar h = \frac{1}{4}\sum_{i=1}^{4} h^{(6)}_i \in \mathbb{R}^{3}
    """
    return gathered(
        rf"\bar h = \frac{{1}}{{{T}}}\sum_{{i=1}}^{{{T}}} {hidden(n_layers)}_i \in {real_space(d_model)}",
        rf"\bar h = {short_vec(mean)}",
        rf"\lVert \bar h \rVert = \sqrt{{\textstyle\sum_m \bar h_m^2}} = {norm:.4f}",
        r"e_A = \frac{\bar h}{\lVert \bar h \rVert},\quad \lVert e_A \rVert = 1",
        rf"e_A = {short_vec(embedding)}",
    )


def sentence_cosine(a, b_, d_model: int, cosine: float) -> str:
    r"""cos(e_A, e_B), which for unit vectors is their dot product, with its first two terms.

    >>> print(sentence_cosine([0.6, -0.8], [1.0, 0.0], 2, 0.6).split(r"\\ ")[2])
    = 0.600 \cdot 1.000 + (-0.800) \cdot 0.000 + \dots
    """
    products = [rf"{signed(x, 3)} \cdot {signed(y, 3)}" for x, y in zip(a[:2], b_[:2])]
    return gathered(
        r"\cos(e_A, e_B) = \frac{e_A \cdot e_B}{\lVert e_A \rVert\,\lVert e_B \rVert} = e_A \cdot e_B",
        rf"= \sum_{{m=1}}^{{{d_model}}} e_A[m]\,e_B[m]",
        rf"= {' + '.join(products)} + \dots",
        rf"= {cosine:.4f}",
    )


# --------------------------------------------------------------------------- Real model heads


def biased_projections() -> str:
    r"""q, k and v of token i, each with the model's learned bias (c, never b).

    >>> print(biased_projections())
    q_i = a_i W^Q + c^Q,\quad k_i = a_i W^K + c^K,\quad v_i = a_i W^V + c^V
    """
    return rf"q_i = a_i W^Q + {bias('Q')},\quad k_i = a_i W^K + {bias('K')},\quad v_i = a_i W^V + {bias('V')}"


def head_shapes(d_model: int, d_k: int, d_v: int) -> str:
    r"""The shapes of one head's W^Q, W^K, W^V and of a_i, q_i, k_i, v_i.

    >>> print(head_shapes(384, 32, 32).split(r",\quad ")[0])
    W^Q, W^K \in \mathbb{R}^{384 \times 32}
    """
    return (
        rf"W^Q, W^K \in {real_space(d_model, d_k)},\quad "
        rf"W^V \in {real_space(d_model, d_v)},\quad a_i \in {real_space(d_model)},\quad "
        rf"q_i, k_i \in {real_space(d_k)},\quad v_i \in {real_space(d_v)}"
    )


def attention_with_scale(d_k: int, scale: float) -> str:
    r"""The attention formula with d_k as a number, and 1/√d_k worked out.

    >>> print(attention_with_scale(4, 0.5).split(",")[-1])
    \qquad \frac{1}{\sqrt{4}} = 0.5000
    """
    return attention_formula(d_k) + rf",\qquad \frac{{1}}{{\sqrt{{{d_k}}}}} = {scale:.4f}"


def output_vector(i: int, output, d_v: int) -> str:
    r"""b_i as numbers, for the token of Python index ``i`` (shown as i + 1), and its space.

    >>> print(output_vector(0, [0.5, 1.0], 2))
    b_{1} = [0.500,\ 1.000] \in \mathbb{R}^{2}
    """
    return rf"{b(shown(i))} = {fmt_vec(output)} \in {real_space(d_v)}"


# --------------------------------------------------------------------------- Multi-head attention


def trained_heads(n_heads: int, d_model: int, d_k: int) -> str:
    r"""head_h of a trained layer, and why each head works in d_model / H dimensions.

    >>> print(trained_heads(12, 384, 32).split(r"\qquad ")[-1])
    d_k = \frac{d_{model}}{H} = \frac{384}{12} = 32
    """
    return (
        rf"\mathrm{{head}}_h = {SOFTMAX}\!\left({scaled_qk('Q_h', 'K_h')}\right) V_h,"
        rf"\qquad h = 1, \dots, {n_heads},\qquad d_k = \frac{{d_{{model}}}}{{H}} = \frac{{{d_model}}}{{{n_heads}}}"
        rf" = {d_k}"
    )


def trained_multi_head(n_heads: int, width: int, d_model: int) -> str:
    r"""MultiHead(X): the trained layer's heads concatenated and mixed by W^O, with its bias.

    >>> print(trained_multi_head(12, 384, 384).split(r"\qquad ")[-1])
    W^O \in \mathbb{R}^{384 \times 384}
    """
    return (
        rf"\mathrm{{MultiHead}}(X) = "
        rf"{concat_heads(n_heads)}\,W^O + {bias('O')},"
        rf"\qquad W^O \in {real_space(width, d_model)}"
    )


def seeded_heads(n_heads: int, d_model: int, d_k: int, *, scaled: bool = True) -> str:
    r"""head_h with its own seeded W^Q_h, W^K_h, W^V_h, on two lines (÷√d_k as the sidebar says).

    >>> print(seeded_heads(2, 8, 4, scaled=False).split(r"\qquad ")[0])
    \begin{gathered}\mathrm{head}_h = \mathrm{softmax}\!\left(Q_h K_h^\top\right) V_h,
    """
    return (
        rf"\begin{{gathered}}\mathrm{{head}}_h = {SOFTMAX}\!\left({scaled_qk('Q_h', 'K_h', scaled=scaled)}\right) V_h,"
        rf"\qquad h = 1, \dots, {n_heads} \\ "
        rf"Q_h = X W^Q_h,\ K_h = X W^K_h,\ V_h = X W^V_h,\qquad "
        rf"W^Q_h, W^K_h, W^V_h \in {real_space(d_model, d_k)}\end{{gathered}}"
    )


def concat_shown_heads(n_heads: int, T: int, d_v: int, width: int) -> str:
    r"""C, every head named, and its width n_heads × d_v.

    >>> print(concat_shown_heads(2, 5, 4, 8).split(r"\qquad ")[0])
    C = \mathrm{Concat}(\mathrm{head}_{1},\ \mathrm{head}_{2}) \in \mathbb{R}^{5 \times 8}
    """
    heads = r",\ ".join(rf"\mathrm{{head}}_{{{shown(h)}}}" for h in range(n_heads))
    return (
        rf"C = \mathrm{{Concat}}({heads}) \in {real_space(T, width)}"
        rf"\qquad {n_heads} \times d_v = {n_heads} \times {d_v} = {width}"
    )


def multi_head_output(T: int, width: int, d_model: int) -> str:
    r"""MultiHead(X) = C W^O, back to d_model, with both shapes.

    >>> print(multi_head_output(5, 8, 16))
    \mathrm{MultiHead}(X) = C\,W^O \in \mathbb{R}^{5 \times 16},\qquad W^O \in \mathbb{R}^{8 \times 16}
    """
    return (
        rf"\mathrm{{MultiHead}}(X) = C\,W^O \in {real_space(T, d_model)},"
        rf"\qquad W^O \in {real_space(width, d_model)}"
    )


def causal_weights(*, masked: bool, scaled: bool, scale: float) -> str:
    r"""The weights of a row with the causal mask M added to the scores (``masked``) or without,
    the score scaled by 1/√d_k (``scale``, written as √d_k) when ``scaled``.

    >>> print(causal_weights(masked=False, scaled=True, scale=0.5))
    \hat\alpha_{ij} = \mathrm{softmax}_j\!\left(\frac{\alpha_{ij}}{\sqrt{d_k}}\right),\qquad \sqrt{d_k} = 2.000
    >>> r"M_{ij} = \begin{cases}" in causal_weights(masked=True, scaled=False, scale=1.0)
    True
    """
    if scaled:  # the scaled score, written out: s means only that on every page (notation.softmax_row)
        score = rf"\frac{{{alpha('i', 'j')}}}{{\sqrt{{d_k}}}}"
        d_k = rf",\qquad \sqrt{{d_k}} = {1 / scale:.3f}"
    else:
        score, d_k = alpha("i", "j"), ""
    if masked:
        return (
            rf"{alpha_hat('i', 'j')} = {SOFTMAX}_j\!\left({score} + M_{{ij}}\right),\qquad "
            r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}" + d_k + r",\quad e^{-\infty} = 0"
        )
    return rf"{alpha_hat('i', 'j')} = {SOFTMAX}_j\!\left({score}\right)" + d_k


# --------------------------------------------------------------------------- Self vs cross attention


def cross_projections(asker: str, answerer: str, t_q: int, t_k: int, d_k: int, d_v: int) -> str:
    r"""Q from the asking sentence, K and V from the answering one (``asker``, ``answerer``: "A" or "B").

    >>> print(cross_projections("A", "B", 3, 4, 2, 2).split(r",\quad ")[0])
    Q = X_A W^Q \in \mathbb{R}^{3 \times 2}
    """
    return (
        rf"Q = X_{asker} W^Q \in {real_space(t_q, d_k)},\quad "
        rf"K = X_{answerer} W^K \in {real_space(t_k, d_k)},\quad "
        rf"V = X_{answerer} W^V \in {real_space(t_k, d_v)}"
    )


def cross_attention_shapes(t_q: int, t_k: int, d_v: int, *, scaled: bool = True) -> str:
    r"""The attention formula with the shape of each factor under it: t_q × t_k weights, t_k × d_v values.

    >>> print(cross_attention_shapes(3, 4, 2, scaled=False).split("}_")[0])
    \underbrace{\mathrm{softmax}\!\left(QK^\top\right)
    """
    return (
        rf"\underbrace{{{SOFTMAX}\!\left({scaled_qk(scaled=scaled)}\right)}}_{{{t_q} \times {t_k}}}"
        rf"\underbrace{{V}}_{{{t_k} \times {d_v}}} \in {real_space(t_q, d_v)}"
    )


# --------------------------------------------------------------------------- Similarity measures


def similarity_measures() -> str:
    r"""The three measures side by side: cosine, the dot product and the scaled dot product.

    >>> print(similarity_measures().split(r"\qquad ")[0])
    \cos(q, k) = \frac{q \cdot k}{\lVert q\rVert\,\lVert k\rVert}
    """
    return (
        r"\cos(q, k) = \frac{q \cdot k}{\lVert q\rVert\,\lVert k\rVert}"
        r"\qquad q \cdot k = \sum_{m=1}^{d_k} q_m k_m = \lVert q\rVert\,\lVert k\rVert \cos\theta"
        r"\qquad \frac{q \cdot k}{\sqrt{d_k}}"
    )


def dot_product_2d(norm_q: float, norm_k: float, cosine: float, dot: float, scaled_dot: float) -> str:
    r"""q · k = ‖q‖ ‖k‖ cos θ with the 2-D demo's numbers, and q · k / √2.

    >>> print(dot_product_2d(1.0, 2.0, 0.5, 1.0, 0.7071).split(" = ")[-1])
    0.707
    """
    return (
        rf"q \cdot k = \lVert q\rVert\,\lVert k\rVert \cos\theta = {norm_q:.2f} \times {norm_k:.2f}"
        rf" \times {cosine:.3f} = {dot:.3f}"
        rf"\qquad \frac{{q \cdot k}}{{\sqrt{{2}}}} = {scaled_dot:.3f}"
    )


# --------------------------------------------------------------------------- Why √d_k


def score_variance(d_k: int, measured: str, variance: float) -> str:
    r"""Var(q · k) = d_k for random unit-variance components, and the variance measured.
    ``measured`` is the catalog's word for it, set as text.

    >>> print(score_variance(64, "measured", 63.5))
    \mathrm{Var}(q \cdot k) = \sum_{m=1}^{d_k} \mathrm{Var}(q_m k_m) = d_k = 64\qquad \text{measured } 63.50
    """
    return (
        rf"\mathrm{{Var}}(q \cdot k) = \sum_{{m=1}}^{{d_k}} \mathrm{{Var}}(q_m k_m) = d_k = {d_k}"
        rf"\qquad \text{{{measured} }} {variance:.2f}"
    )


def scaled_score_variance(measured: str, variance: float) -> str:
    r"""Var(q · k / √d_k) = 1, and the variance measured.

    >>> print(scaled_score_variance("measured", 0.998).split(r"\qquad ")[-1])
    \text{measured } 0.998
    """
    return (
        rf"\mathrm{{Var}}\!\left(\frac{{q \cdot k}}{{\sqrt{{d_k}}}}\right) = \frac{{d_k}}{{d_k}} = 1"
        rf"\qquad \text{{{measured} }} {variance:.3f}"
    )


# --------------------------------------------------------------------------- The tailor shop


def tailor_score(measure: str) -> str:
    r"""How the request matches label j: the dot product, or the cosine (``measure``).

    >>> print(tailor_score("dot"))
    \alpha_j = q \cdot k_j
    """
    if measure == "dot":
        return rf"{alpha('j')} = q \cdot k_j"
    return rf"{alpha('j')} = \cos(q, k_j) = \frac{{q \cdot k_j}}{{\lVert q\rVert\,\lVert k_j\rVert}}"


def sharpened_softmax(beta: float) -> str:
    r"""The weights: a softmax of the scores times the sharpness β, with β's value.

    >>> print(sharpened_softmax(2.0))
    \hat\alpha_j = \frac{e^{\beta\,\alpha_j}}{\sum_{j'} e^{\beta\,\alpha_{j'}}},\quad \beta = 2
    """
    a_j, a_other = alpha("j"), alpha("j'")
    return (
        rf"{alpha_hat('j')} = \frac{{e^{{\beta\,{a_j}}}}}{{\sum_{{j'}} e^{{\beta\,{a_other}}}}},"
        rf"\quad \beta = {float(beta):g}"
    )


def blend_terms(weights, listed, *, more: bool) -> str:
    r"""b = Σ_j α̂_j v_j with the weights of the samples of Python index ``listed`` (shown from 1),
    and "+ …" when ``more`` samples are left out.

    >>> print(blend_terms([0.25, 0.75], [1, 0], more=True))
    b = \sum_j \hat\alpha_j\, v_j = 0.75\,v_{2} + 0.25\,v_{1} + \dots
    """
    return (
        rf"{b()} = \sum_j {alpha_hat('j')}\, v_j = "
        + " + ".join(rf"{weights[j]:.2f}\,v_{{{shown(j)}}}" for j in listed)
        + (r" + \dots" if more else "")
    )


def tailor_mapping_symbols() -> tuple[str, ...]:
    r"""The symbols of the story-and-formula table, as Markdown math: q_i, k_j, v_j, the score,
    the weight and the output.

    >>> tailor_mapping_symbols()[:3]
    ('$q_i$', '$k_j$', '$v_j$')
    """
    return tuple(inline_math(tex) for tex in ("q_i", "k_j", "v_j", SCORE, alpha_hat("i", "j"), OUTPUT))


# --------------------------------------------------------------------------- Exercises


def by_hand_vectors(q, keys, d_k: int) -> str:
    r"""The by-hand exercise's query, keys (numbered from 1) and d_k, as integers.

    >>> print(by_hand_vectors([1, 2], [[0, 1], [2, -1]], 2))
    q = (1,\ 2),\quad k_1 = (0,\ 1),\quad k_2 = (2,\ -1),\quad d_k = 2
    """
    listed = r",\quad ".join(rf"k_{shown(j)} = ({int(x)},\ {int(y)})" for j, (x, y) in enumerate(keys))
    return rf"q = ({int(q[0])},\ {int(q[1])}),\quad {listed},\quad d_k = {d_k}"


def by_hand_softmax() -> str:
    r"""What the learner computes: α̂_{1,j}, the softmax of q · k_j / √2.

    >>> print(by_hand_softmax().split(" = ")[0])
    \hat\alpha_{1,j}
    """
    return (
        rf"{alpha_hat(1, 'j')} = {SOFTMAX}_j\!\left(\frac{{q\cdot k_j}}{{\sqrt{{d_k}}}}\right)"
        r" = \frac{e^{\,q\cdot k_j/\sqrt{2}}}{\sum_{j'} e^{\,q\cdot k_{j'}/\sqrt{2}}}"
    )


def by_hand_working(exercise) -> str:
    r"""The working of a by-hand exercise (``exercises.ByHandExercise``), one key a line: the
    score, scaled, its exponential and its weight.

    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> e = SimpleNamespace(q=np.array([1, 0]), k=np.array([[2, 0]]), scores=np.array([2.0]),
    ...                     scaled=np.array([1.414]), exps=np.array([4.113]), total=4.113, weights=np.array([1.0]))
    >>> print(by_hand_working(e).split(r",\quad ")[0])
    q\cdot k_1 = (1)(2) + (0)(0) = 2
    """
    q1, q2 = (int(c) for c in exercise.q)
    lines = []
    for j, (k1, k2) in enumerate(exercise.k):
        score = int(exercise.scores[j])
        lines.append(
            rf"q\cdot k_{shown(j)} = ({q1})({int(k1)}) + ({q2})({int(k2)}) = {score}"
            rf",\quad \tfrac{{{score}}}{{\sqrt 2}} = {exercise.scaled[j]:.3f}"
            rf",\quad e^{{{exercise.scaled[j]:.3f}}} = {exercise.exps[j]:.3f}"
            rf",\quad {alpha_hat(1, shown(j))} = \tfrac{{{exercise.exps[j]:.3f}}}{{{exercise.total:.3f}}}"
            rf" = {exercise.weights[j]:.3f}"
        )
    return r"\\".join(lines)


def exp_sum(exps, total: float) -> str:
    r"""The denominator of the softmax, term by term.

    >>> print(exp_sum([1.0, 2.5], 3.5))
    \textstyle\sum_j e^{\dots} = 1.000 + 2.500 = 3.500
    """
    return r"\textstyle\sum_j e^{\dots} = " + " + ".join(f"{e:.3f}" for e in exps) + f" = {total:.3f}"
