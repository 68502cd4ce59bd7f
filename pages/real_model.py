"""Real model heads: every head of all-MiniLM-L6-v2, one of them step by step, checked
against the model's own attention weights."""

import streamlit as st

from attention_core import MAX_TOKENS, clean_text, explain
from attention_core.model import (
    ModelEmbedder,
    ModelUnavailable,
    head_projections,
    max_weight_difference,
    model_all_weights,
    model_attention,
    model_info,
)
from attention_ui.figures import token_matrix, vectors_matrix, weights_bar
from attention_ui.model_figures import heads_grid
from attention_ui.safe import escape_markdown
from attention_ui.shell import page_start, url_int
from attention_ui.steps import fmt_vec

WORD_PIECES = MAX_TOKENS  # word pieces per sentence, [CLS] and [SEP] come on top (the lessons' cap)


def _pieces(text: str) -> int:
    """How many word pieces the model's tokenizer makes of ``text`` (without [CLS]/[SEP])."""
    try:
        return len(ModelEmbedder().embed(text).tokens)
    except ValueError:  # nothing the tokenizer keeps
        return 0


def _largest_fitting(n: int, fits) -> int:
    """The largest m in 0..n with fits(m) (fits(0) is true; fits grows false with m)."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def cut_to_pieces(text: str, limit: int) -> tuple[str, int]:
    """(the longest start of ``text`` the model reads as at most ``limit`` word pieces,
    cut after a whole word where possible; the number of pieces of the whole text)."""
    total = _pieces(text)
    if total <= limit:
        return text, total
    words = text.split(" ")
    m = _largest_fitting(len(words), lambda k: _pieces(" ".join(words[:k])) <= limit)
    if m > 0:
        return " ".join(words[:m]), total
    first = words[0]  # one "word" longer than the limit (e.g. Chinese without spaces)
    c = _largest_fitting(len(first), lambda k: _pieces(first[:k]) <= limit)
    return first[:max(c, 1)], total


def terms(values, fmt: str, sep: str = ",\\ ", n_max: int = 6) -> str:
    """One LaTeX term per key j; long rows show the first three and the last two."""
    items = [fmt.format(j=j, v=v) for j, v in enumerate(values)]
    return sep.join(items if len(items) <= n_max else items[:3] + ["\\dots"] + items[-2:])


def picker(label: str, name: str, count: int, fmt, default: int = 0) -> int:
    """A segmented control whose choice lives in the URL as ?name= (via shell.url_int)."""
    value = url_int(name, count, default)
    chosen = st.segmented_control(label, list(range(count)), format_func=fmt, key=f"{name}_picker",
                                  default=value, selection_mode="single")
    if chosen is not None and chosen != value:
        st.session_state[name] = value = int(chosen)
        st.query_params[name] = str(value)
    return value


lesson, _ = page_start("real_model")
st.title("🤖 Real model heads")
if lesson is None:
    st.stop()

try:
    with st.spinner("Loading the real model (all-MiniLM-L6-v2) — only the first time, a few seconds…"):
        info = model_info()
        text, total = cut_to_pieces(clean_text(lesson.text), min(WORD_PIECES, info.max_tokens - 2))
        tokens, weights = model_all_weights(text)  # weights (L, H, T, T)
        difference = max_weight_difference(text)
except (ModelUnavailable, MemoryError) as exc:
    st.warning(f"The real model is not available here, so this page cannot show its heads ({exc}). "
               "The other pages still work with the toy embedder.")
    st.stop()
except ValueError as exc:
    st.info(f"The model's tokenizer cannot read this sentence: type another one in the sidebar ({exc}).")
    st.stop()

T = len(tokens)
st.markdown(
    f"Everything on this page is the trained model **all-MiniLM-L6-v2**: {info.n_layers} layers × "
    f"{info.n_heads} heads, hidden size {info.d_model}, so each head works in d_k = {info.d_head} dimensions. "
    "We take its learned W^Q, W^K, W^V and its hidden states out of the model and run our own attention code "
    "on them. (The sidebar's toy embedder, d_k, seed and toggles do not apply here.)"
)
st.caption("The model's tokenizer adds two special tokens: `[CLS]` (\"classification\") at the start and `[SEP]` "
           "(\"separator\") at the end; they are attended to like every word, and many heads park most of their "
           "attention on them when nothing else in the sentence fits.")
if total > T - 2:
    if not (lesson.truncated and lesson.real_embeddings):  # else the shell has just said the same
        st.info(f"Your sentence has {total} word pieces; this page runs the model on the first {T - 2} "
                "so that every matrix stays readable.")
    st.caption(f"The part the model reads here ({T - 2} word pieces, plus [CLS] and [SEP]):")
    st.code(text, language=None, wrap_lines=True)
unknown = ModelEmbedder().embed(text).unknown
if unknown:
    st.warning(f"{len(unknown)} of {T - 2} word pieces are [UNK]: the model's vocabulary is English and does not "
               "know them, so their attention carries little meaning.")

st.subheader("✅ Check: our numbers are the model's")
c_metric, c_text = st.columns([1, 3])
c_metric.metric("Largest difference", f"{difference:.1e}",
                help="max |our α̂ − the model's α̂| over every layer, head, query i and key j")
c_text.markdown(
    f"**Largest difference between our recomputed weights and the model's own: {difference:.1e}.** "
    f"We compared all {info.n_layers} × {info.n_heads} × {T} × {T} attention weights α̂ that our code computes "
    "with the probabilities the model computes itself. "
    + ("A difference this small is rounding: the model calculates in 32-bit floats, we in 64-bit. A wrong formula "
       "(no ÷√d_k, a missing bias, a transposed W) would be off by 0.01 or more." if difference < 1e-5 else
       "⚠️ That is more than rounding (under 1e-5): our recomputation and the model disagree here.")
)

st.subheader(f"All {info.n_layers * info.n_heads} heads at a glance")
grid = st.container()  # drawn after the layer/head pickers, so the frame shows this run's choice
st.caption("Each small square is one head's T × T matrix, like the one below. Some heads look at the next or the "
           "previous word (a diagonal line beside the main one), some at [CLS] or [SEP] (a bright first or last "
           "column), some spread out. Hover for the numbers; the framed square is the head chosen below.")

st.subheader("One head, step by step")
c_layer, c_head = st.columns([1, 2])
with c_layer:
    layer = picker("Layer", "layer", info.n_layers, str)
with c_head:
    head = picker("Head", "head", info.n_heads, str)
grid.plotly_chart(heads_grid(weights, selected=(layer, head),
                             title="Weights α̂ of every head (rows = query token i, columns = key token j; "
                                   "dark = 0, yellow = 1)"), key="fig_grid")

tokens, trace = model_attention(text, layer, head)  # weights (T, T), outputs (T, d_head)
p = head_projections(layer, head)
d_model, d_k = p.w_q.shape
d_v = p.w_v.shape[1]
source = ("the embeddings (word + position + segment, layer-normalised)" if layer == 0
          else f"the output of layer {layer - 1}")

c_tokens, c_formulas = st.columns([1, 2])
with c_tokens:
    st.dataframe({"i": list(range(T)), "token": tokens}, hide_index=True, height=min(38 + 35 * T, 420))
with c_formulas:
    st.markdown(f"**Layer {layer}, head {head}.** Its inputs a_i are {source}: {T} vectors of size {d_model}. "
                "Its own learned matrices and biases turn them into queries, keys and values:")
    st.latex(r"q_i = a_i W^Q + b^Q,\quad k_i = a_i W^K + b^K,\quad v_i = a_i W^V + b^V")
    st.latex(rf"W^Q, W^K \in \mathbb{{R}}^{{{d_model} \times {d_k}}},\quad "
             rf"W^V \in \mathbb{{R}}^{{{d_model} \times {d_v}}},\quad a_i \in \mathbb{{R}}^{{{d_model}}},\quad "
             rf"q_i, k_i \in \mathbb{{R}}^{{{d_k}}},\quad v_i \in \mathbb{{R}}^{{{d_v}}}")
    st.latex(rf"\mathrm{{Attention}}(Q, K, V) = \mathrm{{softmax}}\!\left(\frac{{QK^\top}}{{\sqrt{{{d_k}}}}}\right)V,"
             rf"\qquad \frac{{1}}{{\sqrt{{{d_k}}}}} = {trace.scale:.4f}")
    st.markdown(f"The {info.n_heads} heads of a layer each produce a {d_v}-number output per token; the model "
                f"joins them side by side ({info.n_heads} × {d_v} = {info.d_model}) and mixes them with "
                "one more learned matrix before the next layer.")

with st.expander(f"q, k and v of every token ({T} × {d_k})"):
    for tab, matrix, name, symbol in zip(st.tabs(["Q (queries)", "K (keys)", "V (values)"]),
                                         (trace.q, trace.k, trace.v), ("Q (queries)", "K (keys)", "V (values)"),
                                         "qkv"):
        tab.plotly_chart(vectors_matrix(matrix, tokens, title=f"{name}, layer {layer} head {head}", symbol=symbol),
                         key=f"fig_{symbol}")

st.caption("In every attention matrix: **rows = query token i, columns = key token j.** The tabs follow the formula "
           "from left to right.")
tab_scores, tab_scaled, tab_weights, tab_outputs = st.tabs(
    ["1 · Scores α = QKᵀ", f"2 · Scaled ÷ √{d_k}", "3 · Weights α̂ = softmax", "4 · Outputs B = α̂V"])
tab_scores.plotly_chart(token_matrix(trace.scores, tokens, tokens, diverging=True,
                                     title=f"Scores α = QKᵀ, layer {layer} head {head}"), key="fig_scores")
tab_scaled.plotly_chart(token_matrix(trace.scaled, tokens, tokens, diverging=True,
                                     title=f"Scaled α / √{d_k} (× {trace.scale:.4f}), layer {layer} head {head}"),
                        key="fig_scaled")
tab_weights.plotly_chart(token_matrix(trace.weights, tokens, tokens, zmin=0.0, zmax=1.0,
                                      title=f"Weights α̂ = softmax, layer {layer} head {head} (each row sums to 1)"),
                         key="fig_weights")
tab_outputs.plotly_chart(vectors_matrix(trace.outputs, tokens, symbol="b",
                                        title=f"Outputs B = α̂ V ({T} × {d_v}), layer {layer} head {head}"),
                         key="fig_outputs")

st.subheader("One query token's row")
i = picker("Query token i (the token whose attention we follow)", "model_token", T,
           lambda n: f"{n}: {escape_markdown(tokens[n])}", default=1)
e = explain(trace, i)
st.latex(rf"\alpha_{{{i},j}} = q_{{{i}}} \cdot k_j:\quad " + terms(e.scores, r"\alpha_{{%d,{j}}} = {v:.2f}" % i))
st.latex(rf"\frac{{\alpha_{{{i},j}}}}{{\sqrt{{{d_k}}}}}:\quad " + terms(e.scaled, "{v:.3f}"))
st.latex(rf"\hat\alpha_{{{i},j}} = \frac{{e^{{s_j - m}}}}{{\sum_{{j'}} e^{{s_{{j'}} - m}}}},\quad m = {e.row_max:.3f},"
         rf"\ \sum_j e^{{s_j - m}} = {e.row_sum:.4f}:\quad " + terms(e.weights, "{v:.3f}"))
st.latex(rf"b_{{{i}}} = \sum_j \hat\alpha_{{{i},j}} v_j = "
         + terms(e.weights, r"{v:.2f}\,v_{{{j}}}", sep=" + "))
st.latex(rf"b_{{{i}}} = {fmt_vec(e.output)} \in \mathbb{{R}}^{{{d_v}}}")
st.markdown(f"In this head, token {i} gives **{e.weights[e.top_key]:.1%}** of its attention to token {e.top_key}; "
            f"its output b_{i} (the {d_v} numbers above, shortened) is the blend of all {T} values with these "
            "weights.")
st.plotly_chart(weights_bar(e.weights, tokens, highlight=e.top_key,
                            title=f"α̂_{i}j: how much token {i} attends to each key j (layer {layer}, head {head})"),
                key="fig_weights_row")
