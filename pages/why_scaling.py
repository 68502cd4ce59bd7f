"""Why divide by √d_k: random queries and keys, measured, then the learner's own sentence."""

from dataclasses import replace

import numpy as np
import streamlit as st

from attention_core import build_lesson
from attention_core.scaling import D_KS, row_statistics, scaling_experiment, scaling_sweep
from attention_ui.exports import show_figure
from attention_ui.formulas import scaled_score_variance, score_variance
from attention_ui.heatmaps import heatmap_row
from attention_ui.i18n import t
from attention_ui.lesson_notes import honesty_banner
from attention_ui.model_access import get_embedder
from attention_ui.presentation import handout
from attention_ui.route import page_start, run_app
from attention_ui.safe import numbered_labels
from attention_ui.scaling_figures import (
    entropy_sweep,
    example_row_weights,
    jacobian_sweep,
    max_weight_sweep,
    score_histograms,
    variance_sweep,
)
from attention_ui.url_state import url_tabs

SWEEPS = ("variance", "max_weight", "entropy", "jacobian")  # the tabs of section 3, one sweep each


@st.fragment
def experiment(d_k_help: str) -> None:
    """Random queries and keys at the chosen d_k, and the sweep over every d_k. Its slider reruns
    only this function: the learner's own sentence below does not depend on it. ``d_k_help`` says
    which d_k section 4 uses."""
    d_k = st.select_slider(
        t("why_scaling.d_k_slider"),
        options=list(D_KS),
        value=64,
        key="exp_d_k",
        bind="query-params",
        help=d_k_help,  # section 4's d_k is another one: say which, and its value
    )
    result = scaling_experiment(d_k)
    sweep = scaling_sweep()
    raw, scaled = result.raw_stats, result.scaled_stats

    st.subheader(t("why_scaling.h_spread"))
    measured = t("why_scaling.measured")  # plain words set as text in the formula: no LaTeX specials in the catalog
    st.latex(score_variance(d_k, measured, result.raw_variance))
    st.latex(scaled_score_variance(measured, result.scaled_variance))
    st.markdown(
        t(
            "why_scaling.spread_text",
            n_samples=result.n_samples,
            n_keys=result.n_keys,
            n_scores=result.n_samples * result.n_keys,
            raw_variance=result.raw_variance,
            d_k=d_k,
            scaled_variance=result.scaled_variance,
        )
    )
    c1, c2 = st.columns([3, 2])
    with c1:
        show_figure(
            score_histograms(
                result.raw,
                result.scaled,
                d_k=d_k,
                raw_variance=result.raw_variance,
                scaled_variance=result.scaled_variance,
                tr=t,
            ),
            "fig_hist",
        )
    with c2:
        show_figure(example_row_weights(result.raw_weights[0], result.scaled_weights[0], d_k=d_k, tr=t), "fig_row")
    c2.caption(t("why_scaling.row_caption"))

    st.subheader(t("why_scaling.h_softmax"))
    st.markdown(
        "| "
        + t("why_scaling.table_head", n_samples=result.n_samples, n_keys=result.n_keys, d_k=d_k)
        + " | "
        + t("figures.raw_name")
        + " | "
        + t("figures.scaled_name")
        + " | "
        + t("why_scaling.table_uniform")
        + " |\n|---|---:|---:|---:|\n"
        f"| {t('why_scaling.table_max_weight')} | {raw.max_weight:.3f} | {scaled.max_weight:.3f} "
        f"| {sweep.uniform_weight:.4f} |\n"
        f"| {t('why_scaling.table_entropy')} | {raw.entropy:.3f} | {scaled.entropy:.3f} | {raw.max_entropy:.3f} |\n"
        f"| {t('why_scaling.table_jacobian')} | {raw.jacobian_norm:.3f} | {scaled.jacobian_norm:.3f} | |"
    )
    st.markdown(t("why_scaling.softmax_text"))

    st.subheader(t("why_scaling.h_sweep", d_ks=", ".join(str(d) for d in D_KS)))
    tabs = url_tabs("sweep", SWEEPS, lambda sweep_id: t(f"why_scaling.tab_{sweep_id}"))  # only the open one is drawn
    figures = {  # built only for the open tab
        "variance": lambda: variance_sweep(sweep.d_ks, sweep.raw_variance, sweep.scaled_variance, highlight=d_k, tr=t),
        "max_weight": lambda: max_weight_sweep(
            sweep.d_ks,
            sweep.raw_max_weight,
            sweep.scaled_max_weight,
            uniform_weight=sweep.uniform_weight,
            highlight=d_k,
            tr=t,
        ),
        "entropy": lambda: entropy_sweep(
            sweep.d_ks, sweep.raw_entropy, sweep.scaled_entropy, max_entropy=sweep.max_entropy, highlight=d_k, tr=t
        ),
        "jacobian": lambda: jacobian_sweep(
            sweep.d_ks, sweep.raw_jacobian_norm, sweep.scaled_jacobian_norm, highlight=d_k, tr=t
        ),
    }
    for sweep_id, build in figures.items():
        if tabs[sweep_id].open:
            with tabs[sweep_id]:
                show_figure(build(), f"fig_{sweep_id}")
    st.caption(t("why_scaling.sweep_caption", n_samples=sweep.n_samples, n_keys=sweep.n_keys, seed=sweep.seed))


def own_name(name: str, current: bool) -> str:
    """A panel's title: with or without ÷√d_k, and which of the two the sidebar has chosen."""
    return t(f"why_scaling.{name}") + (t("why_scaling.own_current") if current else "")


def render() -> None:
    lesson, source = page_start("why_scaling")
    st.markdown(t("why_scaling.intro"))

    help_text = t("why_scaling.d_k_help")
    if lesson is not None:  # section 4's d_k: the trained head's own, the sidebar's, or d_model
        source_of_d_k = t(f"why_scaling.own_d_k_{lesson.projections.kind}")  # model, random or identity
        help_text += " " + t("why_scaling.d_k_help_now", d_k=lesson.trace.d_k, d_k_source=source_of_d_k)
    experiment(help_text)

    st.subheader(t("why_scaling.h_own"))
    if lesson is None:
        st.info(t("why_scaling.own_empty"))
    else:
        handout(lesson, "why_scaling")  # the sentence and settings on top of a printed page
        honesty_banner(lesson)
        embedder, _ = get_embedder(source)
        other = build_lesson(lesson.text, embedder, replace(lesson.settings, scaled=not lesson.settings.scaled))
        with_scaling, without_scaling = (lesson, other) if lesson.settings.scaled else (other, lesson)
        st.markdown(t("why_scaling.own_text", d_k=lesson.trace.d_k, d_k_source=source_of_d_k))
        if lesson.trained:  # the argument of section 1 is about random weights: what learned ones give
            scores = np.asarray(lesson.trace.scores)  # (T, T), the same raw scores with and without ÷√d_k
            st.markdown(
                t(
                    "why_scaling.own_trained",
                    low=f"{scores.min():.1f}",
                    high=f"{scores.max():.1f}",
                    variance=float(scores.var()),
                    d_k=lesson.trace.d_k,
                )
            )
        variants = ((with_scaling, "own_with"), (without_scaling, "own_without"))
        show_figure(
            heatmap_row(
                [
                    (
                        t(f"why_scaling.{name}") + (t("why_scaling.own_current") if variant is lesson else ""),
                        variant.trace.weights,
                    )
                    for variant, name in variants
                ],
                numbered_labels(lesson.tokens),
                title=t("why_scaling.own_title"),
                y_title=t("figures.query_axis"),
                scale=(0.0, 1.0),
                tr=t,
            ),
            "fig_own",
        )
        for column, (variant, name) in zip(st.columns(2), variants):  # on a phone one under the other: named
            stats = row_statistics(variant.trace.weights)
            column.markdown(
                f"**{own_name(name, variant is lesson)}** — "
                + t(
                    "why_scaling.own_stats",
                    peak=stats.peak_weight,
                    max_weight=stats.max_weight,
                    entropy=stats.entropy,
                    max_entropy=stats.max_entropy,
                )
            )


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
