"""Exercises that check themselves, seeded by ?ex_seed= so a class shares them through a link.

The exercises, their answers and the checking are attention_core.exercises; the four kinds are
laid out by attention_ui.exercise_views, which keeps the score of the session (first answer to
each exercise counts). This page picks the seed and the kind.
"""

import streamlit as st

from attention_core import exercises as ex
from attention_ui.class_views import exercise_share, student_class
from attention_ui.exercise_views import next_seed, show_exercise, show_score, start_session
from attention_ui.i18n import t
from attention_ui.route import page_start, run_app
from attention_ui.url_state import url_choice


def render() -> None:
    lesson, _ = page_start("exercises")
    if student_class():  # ?class=<code>: this phone answers its class's question (the Class page)
        st.stop()
    start_session()
    st.caption(t("exercises.intro"))
    top = st.columns([2, 1, 1], vertical_alignment="bottom")
    seed = int(
        top[0].number_input(
            t("exercises.seed"),
            min_value=0,
            max_value=ex.MAX_SEED - 1,
            step=1,
            value=1,
            key="ex_seed",
            bind="query-params",
            help=t("exercises.seed_help", max=ex.MAX_SEED - 1),
        )
    )
    top[1].button(t("exercises.next"), on_click=next_seed, help=t("exercises.next_help"), icon=":material/skip_next:")
    score_box = top[2].empty()  # filled at the end, after this run's answer has been counted
    kind = url_choice(t("exercises.kind"), "ex_kind", ex.KINDS, ex.KINDS[0], lambda k: t(f"exercises.kind_{k}"))
    show_exercise(kind, seed, lesson)
    show_score(score_box)
    exercise_share(kind)


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
