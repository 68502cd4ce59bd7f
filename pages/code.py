"""The code: our own attention_core functions' real source, next to what they return for the
learner's sentence, and the same attention in PyTorch for comparison."""

import numpy as np
import streamlit as st

from attention_core import (
    cosine_similarity,
    dot_similarity,
    explain,
    project,
    scaled_dot_product_attention,
    scaled_dot_similarity,
    self_attention,
    softmax,
)
from attention_core.attention import attention
from attention_core.reference import compare_with_torch, source_of, torch_attention
from attention_ui.checks import fingerprint, pytorch_check
from attention_ui.formulas import attention_times, kept_terms
from attention_ui.i18n import t
from attention_ui.lesson_notes import honesty_banner, listed_tokens
from attention_ui.notation import component_labels, shown
from attention_ui.presentation import handout
from attention_ui.route import page_start, run_app
from attention_ui.safe import numbered_labels
from attention_ui.style import STACK_KEY
from attention_ui.tables import number_table
from attention_ui.url_state import token_picker

SHOWN = {  # section -> the functions whose source it prints, in the order of the data flow
    "project": (project, self_attention),
    "attention": (attention,),
    "runs": (scaled_dot_product_attention,),
    "softmax": (softmax,),
    "explain": (explain,),
    "similarity": (dot_similarity, scaled_dot_similarity, cosine_similarity),
    "torch": (torch_attention,),
}
MAX_COLUMNS = 16  # identity W gives d_k = d_model = 384: show the first components, say how many there are


def torch_comparison(trace, while_waiting):
    """PyTorch on the trace's q, k, v, in a child process; None, after saying so, without torch."""
    comparison = compare_with_torch(trace, while_waiting=while_waiting)
    if comparison is None:
        st.info(t("code.no_torch"))
    return comparison


def matrix(x, row_labels, symbol: str) -> None:
    """A (rows, d) array as a table with columns symbol[1], symbol[2], ... (the first MAX_COLUMNS),
    numbered as every page numbers them: column c − 1 of the array is symbol[c]."""
    width = min(x.shape[1], MAX_COLUMNS)
    number_table(dict(zip(component_labels(symbol, width), x[:, :width].T)), index=row_labels)
    if width < x.shape[1]:
        st.caption(t("code.columns_cut", shown=width, total=x.shape[1]))


def shapes(arrays: dict) -> None:
    """Each array's name and shape, e.g. ``scores (10, 10)``."""
    number_table(
        {t("code.col_array"): list(arrays), t("code.col_shape"): [str(tuple(a.shape)) for a in arrays.values()]}
    )


def section(name: str, *, heading: bool = True):
    """Header, plain words, and the source of the section's functions on the left; returns the right column."""
    if heading:
        st.subheader(t(f"code.header_{name}"))
    st.markdown(t(f"code.about_{name}"))
    left, right = st.container(key=STACK_KEY.format(name=name)).columns([3, 2], gap="large")
    with left:
        for fn in SHOWN[name]:
            src = source_of(fn)
            st.caption(t("code.source_at", file=src.file, line=src.first_line))
            st.code(src.text, language="python", wrap_lines=True)
    right.markdown(f"**{t('code.on_your_sentence')}**")
    return right


def call(text: str) -> None:
    """The call that produced the numbers below it, as code."""
    st.code(text, language="python", wrap_lines=True)


def render() -> None:
    lesson, _ = page_start("code")
    st.markdown(t("code.intro"))
    if lesson is None:
        st.info(t("code.no_sentence"))
        st.stop()
    handout(lesson, "code")  # the sentence and settings on top of a printed page
    honesty_banner(lesson)
    tokens = lesson.tokens
    labels = numbered_labels(tokens)
    trace = lesson.trace
    i = token_picker(t("code.token_picker"), listed_tokens(lesson), key="code_token_picker")
    st.info(t("code.zero_based", n=shown(i), i=i), icon=":material/terminal:")
    scale_arg = "" if lesson.settings.scaled else ", scale=1.0"

    # --------------------------------------------------------------------------- where q, k, v come from
    with section("project"):
        a = lesson.inputs  # (T, d_model)
        q, k, v = project(a, lesson.projections)  # (T, d_k), (T, d_k), (T, d_v)
        call(f"q, k, v = project(a, projections)\ntrace = self_attention(a, projections{scale_arg})")
        shapes(
            {
                "a": a,
                "W^Q": lesson.projections.w_q,
                "W^K": lesson.projections.w_k,
                "W^V": lesson.projections.w_v,
                "q": q,
                "k": k,
                "v": v,
            },
        )
        st.markdown(t("code.q_table"))
        matrix(q, labels, "q")

    # --------------------------------------------------------------------------- the formula as code
    with section("attention"):
        formula = attention(q, k, v)  # (T, d_v), always ÷√d_k
        call("b = attention(q, k, v)")
        matrix(formula, labels, "b")
        checked = scaled_dot_product_attention(q, k, v).outputs  # the same formula, the validated way
        st.metric(t("code.formula_difference"), f"{np.abs(formula - checked).max():.1e}")

    # --------------------------------------------------------------------------- what the app runs
    runs = st.expander(t("code.header_runs"), icon=":material/build:", key="code_runs_open", on_change="rerun")
    if runs.open:  # closed, its source and tables are neither built nor sent (a page switch draws less)
        with runs:
            with section("runs", heading=False):
                result = scaled_dot_product_attention(q, k, v, scale=trace.scale)
                call(f"trace = scaled_dot_product_attention(q, k, v{scale_arg})")
                st.latex(kept_terms(attention_times(trace.scale)))
                shapes(
                    {name: getattr(result, name) for name in ("q", "k", "v", "scores", "scaled", "weights", "outputs")},
                )
                st.markdown(t("code.row_sums"))
                number_table(
                    {t("code.col_row_sum"): result.weights.sum(axis=-1)},
                    index=labels,
                    number="{:.12f}",
                )
                st.markdown(t("code.outputs_table"))
                matrix(result.outputs, labels, "b")
            st.markdown(t("code.weights_table"))
            number_table({label: result.weights[:, j] for j, label in enumerate(labels)}, index=labels)

    # --------------------------------------------------------------------------- one row's softmax
    with section("softmax"):
        row = softmax(trace.scaled[i])  # (T,)
        call(f"softmax(trace.scaled[{i}])")
        number_table({t("code.col_scaled"): trace.scaled[i], t("code.col_weight"): row}, index=labels)
        st.metric(t("code.sum_label"), f"{row.sum():.12f}")

    # --------------------------------------------------------------------------- one token's arithmetic
    with section("explain"):
        e = explain(trace, i)
        call(f"e = explain(trace, {i})")
        number_table(
            {"e.scores": e.scores, "e.scaled": e.scaled, "e.exps": e.exps, "e.weights": e.weights},
            index=labels,
        )
        st.markdown(t("code.explain_sums", row_max=f"{e.row_max:.4f}", row_sum=f"{e.row_sum:.4f}"))
        matrix(e.output[None, :], [f"b_{shown(i)}"], "b")

    # --------------------------------------------------------------------------- the similarity measures
    with section("similarity"):
        q_i = trace.q[i : i + 1]  # (1, d_k)
        call(
            f"q_i = trace.q[{i}:{i + 1}]\ndot_similarity(q_i, trace.k)\n"
            "scaled_dot_similarity(q_i, trace.k)\ncosine_similarity(q_i, trace.k)"
        )
        number_table(
            {
                "dot": dot_similarity(q_i, trace.k)[0],
                "scaled_dot": scaled_dot_similarity(q_i, trace.k)[0],
                "cosine": cosine_similarity(q_i, trace.k)[0],
            },
            index=labels,
        )

    # --------------------------------------------------------------------------- PyTorch
    with section("torch"):
        call(f"weights, outputs, builtin = torch_attention(trace.q, trace.k, trace.v{scale_arg})")
        comparison = pytorch_check(  # PyTorch runs only on request, in a child process (attention_core.isolated)
            "code_torch_button",
            fingerprint(trace.q, trace.k, trace.v, trace.scale),
            lambda while_waiting: torch_comparison(trace, while_waiting),
            button=t("code.torch_button"),
            cost=t("code.torch_cost"),
            running=t("code.torch_running"),
        )
        if comparison is not None:
            st.metric(t("code.torch_largest"), f"{comparison.largest:.1e}")
            number_table(
                {
                    t("code.col_compared"): [t("code.cmp_weights"), t("code.cmp_outputs"), t("code.cmp_builtin")],
                    t("code.col_difference"): [
                        f"{x:.1e}" for x in (comparison.weights, comparison.outputs, comparison.builtin_outputs)
                    ],
                }
            )
            st.caption(t("code.torch_caption", version=comparison.torch_version))


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
