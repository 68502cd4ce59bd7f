"""Multi-head attention and the causal mask: the sidebar's sentence through several seeded
heads (attention_core.multihead.multi_head_attention), their outputs concatenated, and a
decoder's mask (attention_core.masks.causal_mask) as its own step."""

import streamlit as st

from attention_core import causal_mask, multi_head_attention, self_attention
from attention_ui.exports import panels_csv, show_figure
from attention_ui.figures import clicked_data
from attention_ui.formulas import (
    causal_weights,
    concat_shown_heads,
    kept_terms,
    multi_head_output,
    seeded_heads,
    trained_heads,
    trained_multi_head,
)
from attention_ui.head_claims import jobs_fields, measured_census
from attention_ui.heatmaps import heatmap_row
from attention_ui.i18n import t
from attention_ui.lesson_notes import honesty_banner
from attention_ui.model_access import model_name
from attention_ui.model_figures import frame_index, heads_grid
from attention_ui.multihead_figures import attention_map, concatenated_heads, mask_map
from attention_ui.notation import component_labels, shown
from attention_ui.presentation import HEADS_PER_ROW, about_box, explained_around, handout, is_presenting
from attention_ui.route import page_start, run_app
from attention_ui.safe import numbered_labels
from attention_ui.sidebar import choose_head
from attention_ui.style import show_selected_frame
from attention_ui.vector_figures import vectors_matrix

HEAD_CHOICES = [1, 2, 3, 4]
DEFAULT_HEADS = 2


def render() -> None:
    lesson, _ = page_start("multi_head")
    found = measured_census(model_name())
    jobs = jobs_fields(found) if found is not None else None
    presenting = is_presenting()
    intro_place, banner_place = st.columns([1, 2]) if presenting else (st.container(), st.container())
    with intro_place:
        about = about_box(t("multi_head.about_fold"), presenting)
        about.markdown(t("multi_head.intro"))
        if jobs is not None:
            about.markdown(t("multi_head.intro_measured", **jobs))
    if lesson is None:
        st.stop()
    handout(lesson, "multi_head")  # the sentence and settings on top of a printed page
    with banner_place:  # on a projector, two folds side by side: one line of the first screen
        honesty_banner(lesson)

    tokens = lesson.tokens
    settings = lesson.settings
    d_model = lesson.inputs.shape[1]
    query_axis, key_axis = t("multi_head.query_axis"), t("multi_head.key_axis")

    # ---------------------------------------------------------------- 1 · several heads
    st.subheader(t("multi_head.step1"))
    if lesson.trained and lesson.encoded is not None:  # every head of the chosen layer of the model, and its W^O
        layer_trace = lesson.encoded.layer(settings.layer)
        heads = layer_trace.attention  # weights (H, T, T), outputs (H, T, d_v)
        n_heads, d_k = heads.weights.shape[0], heads.d_k

        def explain_heads() -> None:
            st.latex(kept_terms(trained_heads(n_heads, d_model, d_k)))
            st.markdown(
                t(
                    "multi_head.trained_heads_text",
                    layer=shown(settings.layer),
                    n_heads=n_heads,
                    d_k=d_k,
                    d_model=d_model,
                )
            )

        per_row = HEADS_PER_ROW if presenting else None  # a projector: two rows of six, each head twice as wide
        with explained_around(explain_heads):  # under the heads when presenting: they are the first screen
            show_figure(  # narrower than it needs, it scrolls sideways
                heads_grid(
                    heads.weights[None],
                    first_layer=settings.layer,
                    per_row=per_row,
                    title=t("multi_head.trained_grid_title", layer=shown(settings.layer), n_heads=n_heads),
                    tr=t,
                ),
                "fig_trained_heads",
                on_click=lambda point: choose_head(*clicked_data(point)),
            )
        show_selected_frame("fig_trained_heads", frame_index(settings.layer, settings.head, n_heads, settings.layer))
        st.subheader(t("multi_head.step2"))
        width = layer_trace.concat.shape[1]
        st.latex(kept_terms(trained_multi_head(n_heads, width, d_model)))
        st.markdown(t("multi_head.trained_concat_text", n_heads=n_heads, d_v=d_k, width=width, d_model=d_model))
        show_figure(
            concatenated_heads(
                layer_trace.concat,
                tokens,
                n_heads,
                tr=t,
                y_title=t("multi_head.token_axis"),
                head_labels=[str(shown(h)) for h in range(n_heads)],
                title=t(
                    "multi_head.trained_concat_title",
                    t=len(tokens),
                    width=width,
                    layer=shown(settings.layer),
                    last=n_heads,
                ),
            ),
            "fig_concat",
            matrix=layer_trace.concat,
            row_labels=tokens,
            col_labels=[c for h in range(n_heads) for c in component_labels(f"head{shown(h)}", d_k)],
            filename=f"concat_layer{shown(settings.layer)}",
        )
        after_w_o = st.expander(
            t("multi_head.w_o_expander", t=len(tokens), d_model=d_model), key="mh_w_o_open", on_change="rerun"
        )
        if after_w_o.open:  # closed, its 12 × 384 numbers are neither built nor sent
            with after_w_o:
                show_figure(
                    vectors_matrix(
                        layer_trace.attention_output,
                        tokens,
                        symbol="o",
                        tr=t,
                        title=t("multi_head.w_o_title", t=len(tokens), d_model=d_model, layer=shown(settings.layer)),
                    ),
                    "fig_w_o",
                    matrix=layer_trace.attention_output,
                    row_labels=tokens,
                    col_labels=component_labels("o", d_model),
                    filename=f"w_o_output_layer{shown(settings.layer)}",
                )
        st.caption(t("multi_head.trained_w_o_text", d_model=d_model))
    else:
        n_heads = st.segmented_control(
            t("multi_head.n_heads"),
            HEAD_CHOICES,
            default=DEFAULT_HEADS,
            required=True,
            key="heads",
            bind="query-params",
            # on a projector "H = 2" on each button, no label line: the heads start on the first screen
            format_func=(lambda h: t("multi_head.n_heads_option", h=h)) if presenting else str,
            label_visibility="collapsed" if presenting else "visible",
        )
        n_heads = n_heads if n_heads in HEAD_CHOICES else DEFAULT_HEADS
        if lesson.projections.kind != "random":
            st.info(t("multi_head.identity_note", seed=settings.seed, d_k=settings.d_k))
        result = multi_head_attention(
            lesson.inputs, n_heads, settings.d_k, seed=settings.seed, scale=None if settings.scaled else 1.0
        )
        d_k, d_v = result.heads.d_k, result.heads.v.shape[-1]

        def explain_heads() -> None:
            st.latex(kept_terms(seeded_heads(n_heads, d_model, d_k, scaled=settings.scaled)))
            st.markdown(t("multi_head.heads_text", d_k=d_k, seed=settings.seed, d_model=d_model))

        per_row = 2  # two heatmaps a row: three or more side by side are too small to read on a projector
        with explained_around(explain_heads):  # under the heads when presenting: they are the first screen
            for start in range(0, n_heads, per_row):
                columns = st.columns(per_row)
                for column, h in zip(columns, range(start, min(start + per_row, n_heads))):
                    with column:
                        show_figure(
                            attention_map(
                                result.heads.weights[h],
                                tokens,
                                tokens,
                                tr=t,
                                zmin=0.0,
                                zmax=1.0,
                                title=t("multi_head.head_title", h=shown(h), seed=settings.seed + h),
                                y_title=query_axis,
                                x_title=key_axis,
                            ),
                            f"fig_head_{h}",
                        )

        # ---------------------------------------------------------------- 2 · concatenation
        st.subheader(t("multi_head.step2"))
        width = result.outputs.shape[1]
        st.latex(kept_terms(concat_shown_heads(n_heads, len(tokens), d_v, width)))
        st.markdown(t("multi_head.concat_text", d_v=d_v, width=width))
        show_figure(
            concatenated_heads(
                result.outputs,
                tokens,
                n_heads,
                tr=t,
                y_title=t("multi_head.token_axis"),
                head_labels=[t("multi_head.head_label", h=shown(h)) for h in range(n_heads)],
                title=t("multi_head.concat_title", h=n_heads, t=len(tokens), width=width),
            ),
            "fig_concat",
            matrix=result.outputs,
            row_labels=tokens,
            col_labels=[c for h in range(n_heads) for c in component_labels(f"head{shown(h)}", d_v)],
            filename="multi_head_outputs",
        )
        st.latex(kept_terms(multi_head_output(len(tokens), width, d_model)))
        st.markdown(t("multi_head.w_o_text", width=width, d_model=d_model, seed=settings.seed))
        show_figure(
            vectors_matrix(
                result.attention_output,
                tokens,
                symbol="o",
                tr=t,
                title=t("multi_head.w_o_random_title", t=len(tokens), d_model=d_model),
            ),
            "fig_w_o",
            matrix=result.attention_output,
            row_labels=tokens,
            col_labels=component_labels("o", d_model),
            filename="multi_head_w_o_output",
        )

    # ---------------------------------------------------------------- 3 · the causal mask
    st.subheader(t("multi_head.step3"))
    masked = st.toggle(t("multi_head.causal_toggle"), value=True, key="causal", bind="query-params")
    mask = causal_mask(len(tokens))  # (T, T)
    trace = self_attention(lesson.inputs, lesson.projections, mask=mask if masked else None, scale=lesson.trace.scale)
    st.latex(kept_terms(causal_weights(masked=masked, scaled=settings.scaled, scale=trace.scale)))
    note = st.empty()  # one slot either way: an element that comes and goes would move the charts below
    if lesson.trained and masked:  # to new places on the page, and the browser would draw them afresh
        note.caption(t("multi_head.trained_mask_note"))
    c1, c2 = st.columns(2, vertical_alignment="center")
    with c1:
        show_figure(
            mask_map(
                mask,
                tokens,
                tr=t,
                title=t("multi_head.mask_title"),  # M is the same, added or not: the toggle does not redraw it
                y_title=query_axis,
                x_title=key_axis,
            ),
            "fig_mask",
        )
    c2.markdown(t("multi_head.why_mask"))
    if masked:
        c2.markdown(t("multi_head.first_row"))
    else:
        c2.info(t("multi_head.mask_off"))
    scale = f"{trace.scale:.3f}"
    panels = [
        (t("multi_head.panel_scaled" if masked else "multi_head.panel_scaled_off", scale=scale), trace.scaled),
        (t("multi_head.panel_weights"), trace.weights),
    ]
    csv_matrix, csv_columns = panels_csv(panels, numbered_labels(tokens))  # one CSV of both panels
    show_figure(
        heatmap_row(
            panels,
            numbered_labels(tokens),
            col_labels=numbered_labels(tokens),
            scales=[None, (0.0, 1.0)],
            y_title=query_axis,
            x_title=key_axis,
            title=t("multi_head.masked_title" if masked else "multi_head.masked_title_off"),
            tr=t,
        ),
        "fig_masked",
        matrix=csv_matrix,
        row_labels=tokens,
        col_labels=csv_columns,
        filename="masked_scores_and_weights",
        corner=t("matrices.csv_corner"),
    )


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
