"""Why divide by √d_k: random queries and keys, measured, then the learner's own sentence."""

from dataclasses import replace

import streamlit as st

from attention_core import build_lesson
from attention_core.scaling import D_KS, row_statistics, scaling_experiment, scaling_sweep
from attention_ui.figures import token_matrix
from attention_ui.scaling_figures import (
    entropy_sweep,
    example_row_weights,
    jacobian_sweep,
    max_weight_sweep,
    score_histograms,
    variance_sweep,
)
from attention_ui.shell import get_embedder, honesty_banner, page_start

lesson, source = page_start("why_scaling")
st.title("📏 Why divide by √d_k?")
st.markdown(
    "Attention divides every score $q \\cdot k$ by $\\sqrt{d_k}$ before the softmax. Here is an experiment "
    "that shows why: draw random queries and keys whose $d_k$ components all have mean 0 and variance 1, "
    "score each query against 16 keys, and compare the softmax **without** and **with** the division."
)

d_k = st.select_slider("d_k (size of the query and key vectors)", options=list(D_KS), value=64, key="exp_d_k",
                       bind="query-params")
result = scaling_experiment(d_k)
sweep = scaling_sweep()
raw, scaled = result.raw_stats, result.scaled_stats

st.subheader("1 · The spread of the scores")
st.latex(rf"\mathrm{{Var}}(q \cdot k) = \sum_{{i=1}}^{{d_k}} \mathrm{{Var}}(q_i k_i) = d_k = {d_k}"
         rf"\qquad \text{{measured: }} {result.raw_variance:.2f}")
st.latex(rf"\mathrm{{Var}}\!\left(\frac{{q \cdot k}}{{\sqrt{{d_k}}}}\right) = \frac{{d_k}}{{d_k}} = 1"
         rf"\qquad \text{{measured: }} {result.scaled_variance:.3f}")
st.markdown(
    f"Each score adds up $d_k$ products $q_i k_i$, and each product has variance 1, so the variances add up "
    f"to $d_k$. Measured over {result.n_samples:,} queries × {result.n_keys} keys = "
    f"{result.n_samples * result.n_keys:,} scores, the raw scores have variance **{result.raw_variance:.2f}** "
    f"(theory {d_k}); divided by $\\sqrt{{{d_k}}}$ they have variance **{result.scaled_variance:.3f}** "
    "(theory 1). Move the slider: the orange histogram widens as $d_k$ grows, the blue one never does."
)
c1, c2 = st.columns([3, 2])
c1.plotly_chart(score_histograms(result.raw, result.scaled, d_k=d_k, raw_variance=result.raw_variance,
                                 scaled_variance=result.scaled_variance), key="fig_hist")
c2.plotly_chart(example_row_weights(result.raw_weights[0], result.scaled_weights[0], d_k=d_k), key="fig_row")
c2.caption("The first of the random queries. Raise d_k: without scaling the orange weights collapse onto "
           "one key; with scaling the blue weights stay spread over several keys.")

st.subheader("2 · What the softmax does with them")
st.markdown(
    f"| averaged over {result.n_samples:,} rows of {result.n_keys} keys, $d_k = {d_k}$ "
    "| without ÷√d_k | with ÷√d_k | uniform weights |\n"
    "|---|---:|---:|---:|\n"
    f"| largest weight $\\hat\\alpha$ in a row | {raw.max_weight:.3f} | {scaled.max_weight:.3f} "
    f"| {sweep.uniform_weight:.4f} |\n"
    f"| entropy of a row (nats) | {raw.entropy:.3f} | {scaled.entropy:.3f} | {raw.max_entropy:.3f} |\n"
    f"| size of the softmax Jacobian $\\lVert \\mathrm{{diag}}(\\hat\\alpha) - \\hat\\alpha\\hat\\alpha^\\top "
    f"\\rVert_F$ | {raw.jacobian_norm:.3f} | {scaled.jacobian_norm:.3f} | |"
)
st.markdown(
    "The softmax turns big gaps between scores into near-certain choices: a weight of almost 1 for one key "
    "and almost 0 for the rest (the softmax **saturates**, its entropy falls towards 0). A saturated softmax "
    "hardly moves when a score moves — its Jacobian $\\partial\\hat\\alpha/\\partial\\alpha = "
    "\\mathrm{diag}(\\hat\\alpha) - \\hat\\alpha\\hat\\alpha^\\top$ shrinks towards zero — so almost no "
    "gradient reaches $W^Q$ and $W^K$, and training stalls. Dividing by $\\sqrt{d_k}$ keeps the scores at "
    "variance 1 for every $d_k$, and the weights stay soft enough to learn from."
)

st.subheader(f"3 · Every d_k at once ({', '.join(str(d) for d in D_KS)})")
c1, c2 = st.columns(2)
c1.plotly_chart(variance_sweep(sweep.d_ks, sweep.raw_variance, sweep.scaled_variance, highlight=d_k),
                key="fig_variance")
c2.plotly_chart(max_weight_sweep(sweep.d_ks, sweep.raw_max_weight, sweep.scaled_max_weight,
                                 uniform_weight=sweep.uniform_weight, highlight=d_k), key="fig_max_weight")
c1, c2 = st.columns(2)
c1.plotly_chart(entropy_sweep(sweep.d_ks, sweep.raw_entropy, sweep.scaled_entropy,
                              max_entropy=sweep.max_entropy, highlight=d_k), key="fig_entropy")
c2.plotly_chart(jacobian_sweep(sweep.d_ks, sweep.raw_jacobian_norm, sweep.scaled_jacobian_norm, highlight=d_k),
                key="fig_jacobian")
st.caption(f"Each point: {sweep.n_samples:,} random queries against {sweep.n_keys} random keys (seed {sweep.seed}). "
           "The dotted line marks the d_k of the slider.")

st.subheader("4 · On your own sentence")
if lesson is None:
    st.info("Type a sentence in the sidebar to compare its attention weights with and without ÷√d_k.")
else:
    honesty_banner(lesson)
    embedder, _ = get_embedder(source)
    other = build_lesson(lesson.text, embedder, replace(lesson.settings, scaled=not lesson.settings.scaled))
    with_scaling, without_scaling = (lesson, other) if lesson.settings.scaled else (other, lesson)
    st.markdown(
        f"Your sentence's attention weights, computed with $d_k = {lesson.trace.d_k}$ (set in the sidebar), once "
        "with and once without the division. Its q and k are not unit-variance random vectors, so the numbers "
        "differ from the experiment above, but the direction is the same: without ÷√d_k the rows are sharper. "
        "In both matrices: **rows = query token i, columns = key token j.**"
    )
    columns = st.columns(2)
    for column, variant, name, key in ((columns[0], with_scaling, "With ÷√d_k", "fig_own_scaled"),
                                       (columns[1], without_scaling, "Without ÷√d_k", "fig_own_raw")):
        stats = row_statistics(variant.trace.weights)
        current = " (the sidebar's setting)" if variant is lesson else ""
        column.plotly_chart(token_matrix(variant.trace.weights, variant.tokens, variant.tokens,
                                         title=f"{name}: weights α̂{current}", zmin=0.0, zmax=1.0), key=key)
        column.markdown(f"Largest weight: **{stats.peak_weight:.3f}**; largest weight per row, on average: "
                        f"**{stats.max_weight:.3f}**; mean entropy of a row: **{stats.entropy:.3f}** nats "
                        f"(uniform: {stats.max_entropy:.3f}).")
