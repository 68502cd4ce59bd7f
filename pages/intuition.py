"""What is attention? Human attention (a sharp focus you move, reading) and attention as a budget."""

import streamlit as st

from attention_core.intuition import BUDGET, SCENE_REGIONS, SCENE_RELEVANCE, allocate, marked_units, reading_weights
from attention_ui.charts import draw
from attention_ui.exports import show_figure
from attention_ui.i18n import t
from attention_ui.intuition_figures import HEIGHT, WIDTH, allocation_bars, focus_picture, foveated_scene, reading_html
from attention_ui.notation import SOFTMAX, alpha_hat
from attention_ui.registry import page_link
from attention_ui.route import page_start, run_app


def _focus_from_click(point: dict) -> None:
    """A click on the picture moves the focus: put the clicked point into the two sliders."""
    st.session_state["eye_x"] = int(round(100 * point["x"] / (WIDTH - 1)))
    st.session_state["eye_y"] = int(round(100 * point["y"] / (HEIGHT - 1)))


def render() -> None:
    page_start("intuition")
    st.markdown(t("intuition.intro"))

    # 1 · The eye: a sharp spot the learner moves over the picture.
    st.subheader(t("intuition.eye_header"))
    st.markdown(t("intuition.eye_text"))

    picture, controls = st.columns([3, 1], gap="large")
    with controls:
        fx = st.slider(t("intuition.eye_x"), 0, 100, 78, key="eye_x", bind="query-params")
        fy = st.slider(t("intuition.eye_y"), 0, 100, 84, key="eye_y", bind="query-params")
        radius = st.slider(t("intuition.eye_radius"), 20, 200, 60, step=5, key="eye_r", bind="query-params")
    with picture:
        draw(
            focus_picture(foveated_scene(fx / 100, fy / 100, radius)),
            "eye_picture",
            on_click=_focus_from_click,
            alt=t("intuition.eye_image_alt"),
            config={"displayModeBar": False},  # a picture to click: no toolbar, no downloads
        )
        st.caption(t("intuition.eye_caption"))

    # 2 · Reading: hand-given relevance scores -> softmax weights -> how brightly each word shows.
    st.subheader(t("intuition.read_header"))
    st.markdown(t("intuition.read_text"))
    units = marked_units(t("intuition.reading_text"))
    text_col, read_controls = st.columns([3, 1], gap="large")
    with read_controls:
        beta_read = st.slider(
            t("intuition.read_sharpness"),
            0.0,
            3.0,
            1.0,
            step=0.25,
            key="read_beta",
            help=t("intuition.read_sharpness_help"),
            bind="query-params",
        )
    weights = reading_weights(units, sharpness=beta_read)  # (n_units,), NaN for spaces/punctuation
    with text_col:
        st.markdown(f"**{t('intuition.reading_question')}**")
        st.html(reading_html([(u.text, u.score) for u in units], weights))
    key_words = sorted(((u.text, float(w)) for u, w in zip(units, weights) if u.score), key=lambda tw: -tw[1])
    other_weights = [float(w) for u, w in zip(units, weights) if u.score == 0]  # all equal: the same score 0
    st.markdown(
        t(
            "intuition.read_top",
            top=t("intuition.list_sep").join(f"**{text}** {100 * w:.1f} %" for text, w in key_words),
            n_zero=len(other_weights),
            zero=f"{100 * other_weights[0]:.1f} %" if other_weights else "—",
        )
    )
    n_words = len(key_words) + len(other_weights)
    st.caption(t("intuition.read_honest", n_words=n_words))

    # 3 · The budget: the same total, spread evenly vs by importance, both softmax weights.
    st.subheader(t("intuition.budget_header"))
    st.markdown(t("intuition.budget_text", budget=f"{BUDGET:.0f}"))
    beta = st.slider(
        t("intuition.budget_sharpness"),
        0.0,
        3.0,
        1.0,
        step=0.1,
        key="budget_beta",
        help=t("intuition.budget_sharpness_help"),
        bind="query-params",
    )
    even = allocate(SCENE_RELEVANCE, budget=BUDGET, sharpness=0.0)  # (n_regions,)
    weighted = allocate(SCENE_RELEVANCE, budget=BUDGET, sharpness=beta)  # (n_regions,)
    items = [
        t("intuition.budget_item", name=t(f"intuition.region_{r}"), score=f"{s:g}")
        for r, s in zip(SCENE_REGIONS, SCENE_RELEVANCE)
    ]
    y_max = 1.18 * max(float(even.max()), float(weighted.max()))
    left, right = st.columns(2, gap="large")
    weighted_title = t("intuition.budget_weighted", beta=f"{beta:.1f}")
    with left:
        show_figure(
            allocation_bars(items, even, title=t("intuition.budget_even"), colour="#9aa5b1", y_max=y_max),
            "fig_budget_even",
            alt=t("intuition.budget_even"),
        )
    with right:
        show_figure(
            allocation_bars(items, weighted, title=weighted_title, colour="#f0a400", y_max=y_max),
            "fig_budget_weighted",
            alt=weighted_title,
        )
    st.latex(
        r"\text{share}_j = " + f"{BUDGET:.0f}" + rf"\cdot{alpha_hat('j')},\qquad "
        rf"{alpha_hat('j')} = {SOFTMAX}_j(\beta\, r_j) = \frac{{e^{{\beta r_j}}}}{{\sum_{{j'}} e^{{\beta r_{{j'}}}}}}"
    )
    st.success(t("intuition.budget_softmax"))
    page_link("tailor_shop", label=t("intuition.next_tailor"))


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
