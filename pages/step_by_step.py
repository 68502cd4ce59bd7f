"""Step by step: one query token's walk from its word to its output b_i."""

import numpy as np
import streamlit as st

from attention_core import explain
from attention_ui.figures import contributions_bar, heatmap, vectors_matrix, weights_bar
from attention_ui.safe import escape_markdown
from attention_ui.shell import honesty_banner, page_start, url_int
from attention_ui.steps import STEPS, fmt_vec, show_embedding, show_step_formula

lesson, _ = page_start("step_by_step")
st.title("👣 Step by step")
if lesson is not None:
    honesty_banner(lesson)
    tokens = lesson.tokens
    T = len(tokens)
    trace = lesson.trace

    i = url_int("token", T)
    chosen = st.segmented_control(
        "Query token i (the word whose attention we follow)", list(range(T)),
        format_func=lambda n: f"{n}: {escape_markdown(tokens[n])}", key="token_picker",
        default=i, selection_mode="single")
    if chosen is not None and chosen != i:
        st.session_state["token"] = i = int(chosen)
        st.query_params["token"] = str(i)

    step = url_int("step", len(STEPS))

    def go(delta: int) -> None:
        st.session_state["step"] = min(max(st.session_state.get("step", 0) + delta, 0), len(STEPS) - 1)

    c_back, c_ind, c_next = st.columns([1, 6, 1])
    c_back.button("◀ Back", on_click=go, args=(-1,), disabled=step == 0, width="stretch")
    c_next.button("Next ▶", on_click=go, args=(1,), disabled=step == len(STEPS) - 1, width="stretch")
    c_ind.progress((step + 1) / len(STEPS), text=f"Step {step + 1} of {len(STEPS)}: {STEPS[step]}")

    e = explain(trace, i)
    show_step_formula(step, lesson, e)
    if step == 0:
        st.dataframe({"i": list(range(T)), "token": tokens,
                      "known to the model": ["no ([UNK])" if n in lesson.unknown else "yes" for n in range(T)]},
                     hide_index=True)
    elif step == 1:
        show_embedding(lesson, i)
    elif step == 2:
        p = lesson.projections
        c1, c2, c3 = st.columns(3)
        if p.d_model <= 16:
            c1.plotly_chart(heatmap(p.w_q, [f"a[{r}]" for r in range(p.d_model)], [f"q[{c}]" for c in range(p.d_k)],
                                    title="W^Q", diverging=True), key="fig_wq")
            c2.plotly_chart(heatmap(p.w_k, [f"a[{r}]" for r in range(p.d_model)], [f"k[{c}]" for c in range(p.d_k)],
                                    title="W^K", diverging=True), key="fig_wk")
            c3.plotly_chart(heatmap(p.w_v, [f"a[{r}]" for r in range(p.d_model)], [f"v[{c}]" for c in range(p.d_v)],
                                    title="W^V", diverging=True), key="fig_wv")
        else:
            st.caption(f"W^Q, W^K are {p.d_model} × {p.d_k} and W^V is {p.d_model} × {p.d_v}: too large to print.")
        c1, c2, c3 = st.columns(3)
        c1.plotly_chart(vectors_matrix(trace.q, tokens, title="q_j for every token", symbol="q"), key="fig_q")
        c2.plotly_chart(vectors_matrix(trace.k, tokens, title="k_j for every token", symbol="k"), key="fig_k")
        c3.plotly_chart(vectors_matrix(trace.v, tokens, title="v_j for every token", symbol="v"), key="fig_v")
    elif step == 3:
        j = st.selectbox("Key token j to multiply out", list(range(T)), format_func=lambda n: f"{n}: {tokens[n]}",
                         key="key_j")
        st.latex(rf"q_{{{i}}} \odot k_{{{j}}} = {fmt_vec(e.products[j])}"
                 rf"\quad\Rightarrow\quad \alpha_{{{i},{j}}} = \textstyle\sum = {e.scores[j]:.4f}")
        st.plotly_chart(heatmap(e.products, [f"{n}: {t}" for n, t in enumerate(tokens)],
                                [f"d={c}" for c in range(trace.d_k)], title=f"q_{i} ⊙ k_j, element by element "
                                "(each row sums to α_ij)", diverging=True, y_title="key token j"), key="fig_products")
        st.plotly_chart(weights_bar(e.scores, tokens, title=f"α_{i}j = q_{i}·k_j for every key j", highlight=j,
                                    percent=False), key="fig_scores_row")
    elif step == 4:
        st.plotly_chart(weights_bar(np.where(np.isfinite(e.scaled), e.scaled, 0.0), tokens, percent=False,
                                    title=f"Scaled scores α_{i}j × {e.scale:.4f}"), key="fig_scaled_row")
    elif step == 5:
        st.plotly_chart(weights_bar(e.weights, tokens, title=f"α̂_{i}j: how much token {i} attends to each j",
                                    highlight=e.top_key), key="fig_weights_row")
        st.metric("Row sum Σ_j α̂_ij", f"{e.weights.sum():.6f}")
    elif step == 6:
        st.plotly_chart(contributions_bar(e.contributions, tokens, e.output,
                                          title=f"b_{i} = Σ_j α̂_{i}j v_j: each bar segment is one α̂_{i}j v_j"),
                        key="fig_contributions")
