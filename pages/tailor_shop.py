"""The tailor shop: the customer's request is the query, the samples' labels are the keys, the
samples are the values, and the made-to-measure shirt is the attention output — real numbers."""

import numpy as np
import streamlit as st

from attention_core.tailor import (
    ATTRIBUTES,
    DEFAULT_SHARPNESS,
    FEATURES,
    GROUPS,
    IMPORTANCE_RANGE,
    SAMPLES,
    SHARPNESS_STEPS,
    SIMILARITY_MEASURES,
    Request,
    fit,
    transformer_sharpness,
)
from attention_ui.exports import show_figure
from attention_ui.formulas import blend_terms, kept_terms, sharpened_softmax, tailor_mapping_symbols, tailor_score
from attention_ui.i18n import t
from attention_ui.notation import shown
from attention_ui.registry import page_link
from attention_ui.route import page_start, run_app
from attention_ui.style import PAIRS_KEY, SAMPLES_KEY
from attention_ui.tables import number_table
from attention_ui.tailor_figures import horizontal_bars, shirt_svg
from attention_ui.url_state import url_choice

DEFAULT_WISH = {"cut": "mens", "pattern": "plaid", "fabric": "cotton", "style": "casual"}
DEFAULT_IMPORTANCE = {"cut": 2.0, "pattern": 3.0, "fabric": 2.0, "style": 1.0}
ANY = "any"


def label_text(label: dict[str, str]) -> str:
    return t("tailor.label_sep").join(t(f"tailor.opt_{label[g]}") for g in GROUPS)


def sharpness_label(beta: float) -> str:
    if beta == SHARPNESS_STEPS[0]:
        return t("tailor.sharp_even", beta=f"{beta:g}")
    if beta == SHARPNESS_STEPS[-1]:
        return t("tailor.sharp_best", beta=f"{beta:g}")
    return f"{beta:g}"


SHOWN = 4  # samples drawn in the picture equation; the rest are summed up in words


def render() -> None:
    page_start("tailor_shop")
    st.markdown(t("tailor.intro"))

    # 1 · The request (the query q): one choice and one importance per feature group.
    st.subheader(t("tailor.request_header"))
    st.markdown(t("tailor.request_text"))
    choices, importance = {}, {}
    for column, group in zip(st.columns(len(GROUPS)), GROUPS):
        with column.container(border=True):
            picked = url_choice(
                t(f"tailor.group_{group}"),
                f"want_{group}",
                (*GROUPS[group], ANY),
                DEFAULT_WISH[group],
                lambda o: t(f"tailor.opt_{o}"),
            )
            choices[group] = picked if picked in GROUPS[group] else None
            importance[group] = st.slider(
                t("tailor.importance"),
                *IMPORTANCE_RANGE,
                DEFAULT_IMPORTANCE[group],
                step=0.5,
                key=f"imp_{group}",
                bind="query-params",
                help=t("tailor.importance_help"),
                disabled=choices[group] is None,
            )
    measure_col, sharp_col = st.columns([1, 2], gap="large")
    with measure_col:
        measure = url_choice(
            t("tailor.match"),
            "match",
            SIMILARITY_MEASURES,
            "dot",
            lambda m: t(f"tailor.match_{m}"),
            help=t("tailor.match_help"),
        )
    with sharp_col:
        own_beta, below, above = transformer_sharpness()  # 1/√d_k, which the slider's steps surround
        beta = url_choice(
            t("tailor.sharpness"),
            "sharpness",
            SHARPNESS_STEPS,
            DEFAULT_SHARPNESS,
            sharpness_label,
            widget=st.select_slider,
            help=t("tailor.sharpness_help", beta=own_beta, below=below, above=above),
        )

    request = Request(**choices, importance=importance)
    fitted = fit(request, sharpness=float(beta), similarity=measure)
    scores, weights, blend = fitted.scores, fitted.weights, fitted.blend  # (n,), (n,), (d_v,)
    q_text = ", ".join(f"{x:g}" for x in fitted.query)
    st.markdown(t("tailor.query_line", q=q_text, d_k=len(FEATURES)))
    if not fitted.query.any():
        st.info(t("tailor.no_wish"))

    # 2 · The shop: every sample's label (key) and the garment itself (value), with its weight.
    st.subheader(t("tailor.shop_header"))
    st.markdown(t("tailor.shop_text"))
    best = int(weights.argmax())
    for column, j in zip(st.container(key=SAMPLES_KEY).columns(len(SAMPLES)), range(len(SAMPLES))):
        with column:
            st.image(shirt_svg(SAMPLES[j].value), width="stretch", alt=t(f"tailor.sample_{SAMPLES[j].id}"))
            st.markdown(f"**{shown(j)}** · **{100 * weights[j]:.1f} %**")  # sample number and weight α̂_j
            st.caption(label_text(SAMPLES[j].label))

    # 3 · Step by step: match -> weights -> blend.
    st.subheader(t("tailor.steps_header"))
    labels = [f"{shown(j)} · {label_text(s.label)}" for j, s in enumerate(SAMPLES)]
    left, right = st.columns(2, gap="large")
    with left:
        st.latex(kept_terms(tailor_score(measure)))
        show_figure(
            horizontal_bars(labels, scores, title=t("tailor.step1_title"), colour="#7c8db5", highlight=best),
            "fig_scores",
            matrix=scores,
            row_labels=[t("tailor.csv_request")],
            col_labels=labels,
            filename="tailor_scores",
            alt=t("tailor.step1_title"),
        )
        st.caption(t(f"tailor.step1_text_{measure}"))
    with right:
        st.latex(kept_terms(sharpened_softmax(beta)))
        show_figure(
            horizontal_bars(
                labels, weights, title=t("tailor.step2_title"), colour="#e0a100", percent=True, highlight=best
            ),
            "fig_weights",
            matrix=weights,
            row_labels=[t("tailor.csv_request")],
            col_labels=labels,
            filename="tailor_weights",
            alt=t("tailor.step2_title"),
        )
        st.caption(t("tailor.step2_text", total=f"{100 * weights.sum():.1f}"))

    st.subheader(t("tailor.result_header"))
    order = sorted(range(len(SAMPLES)), key=lambda j: -weights[j])  # samples by weight, largest first
    st.latex(kept_terms(blend_terms(weights, order[:SHOWN], more=len(SAMPLES) > SHOWN)))
    st.markdown(t("tailor.result_text"))
    shirt_col, *term_cols = st.container(key=PAIRS_KEY).columns([2.2] + [1] * SHOWN, gap="medium")
    with shirt_col:
        st.image(shirt_svg(blend, size=360), width="stretch", alt=t("tailor.result_alt"))
        st.markdown(t("tailor.result_label"))
    for n, (column, j) in enumerate(zip(term_cols, order)):
        with column:
            st.markdown(f"### {'=' if n == 0 else '+'} {weights[j]:.2f} ×")  # the picture equation's sign
            st.image(shirt_svg(SAMPLES[j].value), width="stretch", alt=t(f"tailor.sample_{SAMPLES[j].id}"))
            st.caption(label_text(SAMPLES[j].label))
    rest = order[SHOWN:]
    if rest:
        st.caption(t("tailor.term_rest", n=len(rest), weight=f"{100 * weights[rest].sum():.1f}"))
    rgb = lambda x: "(" + ", ".join(f"{c:.2f}" for c in x) + ")"  # noqa: E731
    attributes = {t("tailor.attr_colour"): rgb(blend[0:3]), t("tailor.attr_accent"): rgb(blend[3:6])}
    attributes.update(
        {
            t(f"tailor.attr_{name}"): f"{blend[ATTRIBUTES.index(name)]:.2f}"
            for name in ("plaid", "stripes", "sheen", "texture", "sleeve", "taper")
        }
    )
    number_table({name: [value] for name, value in attributes.items()}, index=["b"])
    st.caption(t("tailor.result_caption"))

    vectors = st.expander(t("tailor.vectors_expander"), key="tailor_vectors_open", on_change="rerun")
    if vectors.open:  # closed, its two tables are neither built nor sent (a page switch draws less)
        with vectors:
            names = [t(f"tailor.opt_{f}") for f in FEATURES]
            st.markdown(t("tailor.keys_table_title"))
            keys = np.array([fitted.query] + [s.key() for s in SAMPLES])  # (1 + samples, features)
            number_table(
                {name: keys[:, c] for c, name in enumerate(names)},
                index=[t("tailor.row_request")] + [f"k_{shown(j)}" for j in range(len(SAMPLES))],
                number="{:g}",
            )
            attr_names = [t(f"tailor.attr_{a}") for a in ATTRIBUTES]
            values = np.array([s.value for s in SAMPLES] + [blend])  # (samples + 1, attributes)
            st.markdown(t("tailor.values_table_title"))
            number_table(
                {"α̂": np.append(weights, weights.sum()), **{name: values[:, c] for c, name in enumerate(attr_names)}},
                index=[f"v_{shown(j)}" for j in range(len(SAMPLES))] + [t("tailor.row_result")],
                number="{:.3f}",
            )

    # 4 · The story and the formula, side by side.
    st.subheader(t("tailor.mapping_header"))
    top_weights = ", ".join(f"{100 * w:.1f} %" for w in sorted(weights, reverse=True)[:3])
    q_i, k_j, v_j, score, weight, output = tailor_mapping_symbols()
    st.markdown(
        f"| {t('tailor.mapping_story')} | {t('tailor.mapping_formula')} | {t('tailor.mapping_now')} |\n"
        "|---|:---:|---|\n"
        f"| {t('tailor.map_customer')} | {q_i} | q = ({q_text}) |\n"
        f"| {t('tailor.map_labels')} | {k_j} | {t('tailor.map_labels_now', n=len(SAMPLES))} |\n"
        f"| {t('tailor.map_samples')} | {v_j} | {t('tailor.map_samples_now', n=len(SAMPLES), d_v=len(ATTRIBUTES))} |\n"
        f"| {t('tailor.map_match')} | {score} | {', '.join(f'{s:.2f}' for s in scores)} |\n"
        f"| {t('tailor.map_percent')} | {weight} | {top_weights}, … |\n"
        f"| {t('tailor.map_result')} | {output} | {t('tailor.map_result_now')} |\n"
    )
    st.markdown(t("tailor.mapping_note", d_k=len(FEATURES), d_v=len(ATTRIBUTES)))  # d_v ≠ d_k; cross, not self
    st.caption(t("tailor.honest"))
    page_link("step_by_step", label=t("tailor.link_step"))


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
