"""Step by step: one query token's walk from its word to its output b_i."""

import numpy as np
import streamlit as st

from attention_core import explain
from attention_core.lesson import STEPS, default_query
from attention_ui.clicker import clicker
from attention_ui.exports import show_figure
from attention_ui.formulas import products_and_score
from attention_ui.fragments import page_part
from attention_ui.heatmaps import VECTOR_TICKED_COLS, heatmap, heatmap_row
from attention_ui.i18n import t
from attention_ui.lesson_notes import honesty_banner, listed_tokens
from attention_ui.notation import component_labels, shown
from attention_ui.presentation import explained_around, handout, is_presenting, screen_only
from attention_ui.route import page_start, run_app
from attention_ui.safe import escape_label, numbered_labels
from attention_ui.steps import show_embedding, show_step_formula, step_name
from attention_ui.tables import number_table
from attention_ui.url_state import token_picker, url_int
from attention_ui.vector_figures import contributions_bar, key_bars, qkv_columns, qkv_row

MOVED = "_step_moved"  # set by the buttons' callback in the run it ran


def step_by(delta: int) -> None:
    """Next (+1) or Back (−1): the buttons' callback, run before the page is drawn."""
    state = st.session_state
    state["step"] = min(max(state.get("step", 0) + delta, 0), len(STEPS) - 1)
    state[MOVED] = True


def clicked_without_callback(clicked: bool, delta: int) -> None:
    """A click that came before this session knew the buttons' callback (the first action after
    a reconnect to a new session): Streamlit runs no callback then, but the button returns True.
    Take the step here, and draw the page again for it."""
    moved = st.session_state.pop(MOVED, False)
    if clicked and not moved:
        step_by(delta)
        st.session_state.pop(MOVED, None)
        st.rerun()


def render() -> None:
    lesson, _ = page_start("step_by_step")
    if lesson is not None:
        handout(lesson, "step_by_step")  # the sentence and settings on top of a printed page
        honesty_banner(lesson)
        walk(lesson)
    screen_only("keys").caption(t("step_by_step.keys_help"))  # last: on a projector the chart comes first


@page_part("step_walk")
def walk(lesson) -> None:
    """The query token, Back / Next and the step's content: a part of the page that reruns alone
    (``fragments.page_part``) when the learner picks a token or moves a step, which changes
    nothing else on the page (only ``?token=`` and ``?step=`` in the URL)."""
    tokens = lesson.tokens
    T = len(tokens)
    trace = lesson.trace

    presenting = is_presenting()
    first, second = st.container(), st.container()
    # on a projector the step and its chart come first (the first screen), the query token under them
    picker_box, stage = (second, first) if presenting else (first, second)
    with picker_box:
        listed = listed_tokens(lesson)  # "[UNK] 他": the word behind each unknown token
        i = token_picker(t("step_by_step.query_picker"), listed, default=default_query(tokens))

    step = url_int("step", len(STEPS))

    with stage:
        with st.container(horizontal=True, vertical_alignment="center", gap="small"):  # buttons as wide as their words
            back = st.button(t("step_by_step.back"), on_click=step_by, args=(-1,), disabled=step == 0, key="step_back")
            st.progress(
                (step + 1) / len(STEPS),
                text=t("step_by_step.progress", n=step + 1, total=len(STEPS), name=step_name(step)),
            )
            forward = st.button(
                t("step_by_step.next"),
                on_click=step_by,
                args=(1,),
                disabled=step == len(STEPS) - 1,
                key="step_next",
            )
        clicked_without_callback(back or forward, 1 if forward else -1)
        clicker()  # → / PageDown / Space and ← / PageUp: a presenter's remote presses Next and Back

        e = explain(trace, i)
        n = shown(i)  # token i as the learner sees it, from 1
        word = escape_label(listed[i])  # the query token by name in the charts' titles ("she", "[UNK] 他")
        with explained_around(lambda: show_step_formula(step, lesson, e)):  # under the chart when presenting
            if step == 0:
                number_table(
                    {
                        "i": [shown(j) for j in range(T)],
                        t("step_by_step.col_token"): listed,
                        t("step_by_step.col_known"): [
                            t("step_by_step.known_no") if k in lesson.unknown else t("step_by_step.known_yes")
                            for k in range(T)
                        ],
                    }
                )
            elif step == 1:
                show_embedding(lesson, i)
            elif step == 2:
                p = lesson.projections
                if p.d_model <= 16:
                    show_figure(
                        heatmap_row(
                            [("W^Q", p.w_q), ("W^K", p.w_k), ("W^V", p.w_v)],
                            component_labels("a", p.d_model),
                            title=t("step_by_step.w_title", d_model=p.d_model),
                            tr=t,
                        ),
                        "fig_w",
                        matrix=np.hstack([p.w_q, p.w_k, p.w_v]),  # (d_model, 2 d_k + d_v)
                        row_labels=component_labels("a", p.d_model),
                        col_labels=qkv_columns(p.d_k, p.d_v),
                        filename="W_Q_K_V",
                    )
                else:
                    st.caption(t("step_by_step.w_too_large", d_model=p.d_model, d_k=p.d_k, d_v=p.d_v))
                show_figure(
                    qkv_row(trace.q, trace.k, trace.v, tokens, title=t("step_by_step.qkv_title"), tr=t),
                    "fig_qkv",
                    matrix=np.hstack([trace.q, trace.k, trace.v]),  # (T, 2 d_k + d_v)
                    row_labels=tokens,
                    col_labels=qkv_columns(trace.d_k, trace.v.shape[1]),
                    filename="Q_K_V",
                )
            elif step == 3:
                labels = numbered_labels(listed)
                j = st.selectbox(
                    t("step_by_step.key_picker"), list(range(T)), format_func=labels.__getitem__, key="key_j"
                )
                st.latex(products_and_score(n, shown(j), e.products[j], e.scores[j]))  # breaks before = and ⇒ only
                show_figure(
                    heatmap(
                        e.products,
                        labels,
                        component_labels("", trace.d_k),
                        title=t("step_by_step.products_title", i=n, token=word),
                        diverging=True,
                        y_title=t("figures.key_axis_short"),
                        max_ticked=VECTOR_TICKED_COLS,  # [1], [8], [16] …: 32 labels ran into each other on a phone
                        tr=t,
                    ),
                    "fig_products",
                )
                show_figure(
                    key_bars(
                        e.scores,
                        tokens,
                        title=t(
                            "step_by_step.scores_title",
                            i=n,
                            j=shown(j),
                            token=word,
                            key_word=escape_label(listed[j]),  # "[UNK] 他", as the picker names it
                        ),
                        highlight=j,
                        percent=False,
                        tr=t,
                    ),
                    "fig_scores_row",
                    matrix=e.scores,
                    row_labels=[tokens[i]],
                    col_labels=tokens,
                    filename=f"scores_row_{n}",
                )
            elif step == 4:
                show_figure(
                    key_bars(
                        np.where(np.isfinite(e.scaled), e.scaled, 0.0),
                        tokens,
                        percent=False,
                        title=t("step_by_step.scaled_title", i=n, scale=e.scale, token=word),
                        tr=t,
                    ),
                    "fig_scaled_row",
                )
            elif step == 5:
                show_figure(
                    key_bars(
                        e.weights,
                        tokens,
                        title=t("step_by_step.weights_title", i=n, token=word),
                        highlight=e.top_key,
                        tr=t,
                    ),
                    "fig_weights_row",
                    matrix=e.weights,
                    row_labels=[tokens[i]],
                    col_labels=tokens,
                    filename=f"weights_row_{n}",
                )
                st.metric(t("step_by_step.row_sum"), f"{e.weights.sum():.6f}")
            elif step == 6:
                show_figure(
                    contributions_bar(
                        e.contributions,
                        tokens,
                        e.output,
                        title=t("step_by_step.contributions_title", i=n, token=word),
                        tr=t,
                    ),
                    "fig_contributions",
                    matrix=e.contributions,
                    row_labels=tokens,
                    col_labels=component_labels("v", e.contributions.shape[1]),
                    filename=f"contributions_{n}",
                )


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
