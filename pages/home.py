"""Home: what the app teaches, the formula, and the way in."""

import streamlit as st

from attention_ui.i18n import t
from attention_ui.lesson_notes import honesty_banner
from attention_ui.notation import OUTPUT, SCORE, WEIGHT, attention_formula
from attention_ui.presentation import handout
from attention_ui.registry import PAGES, page_link
from attention_ui.release import VERSION
from attention_ui.route import page_start, run_app
from attention_ui.settings import link_params

LESSONS = [entry.id for entry in PAGES[1:]]  # every page after Home, in menu order


def render() -> None:
    lesson, _ = page_start("home")
    st.markdown(t("home.intro"))
    st.latex(attention_formula())
    st.markdown(t("home.per_token", score=SCORE, weight=WEIGHT, output=OUTPUT))
    st.caption(t("home.d2l"))  # the same letters mean other things in d2l: say which
    with st.expander(t("home.mistakes")):
        st.markdown(t("home.mistakes_list"))
    st.subheader(t("home.path"))
    params = link_params()  # a card keeps the sentence and settings, as the sidebar's links do
    for row in range(0, len(LESSONS), 3):  # the lesson path, in menu order, three cards a row
        for column, page_id in zip(st.columns(3), LESSONS[row : row + 3]):
            with column.container(border=True):
                page_link(page_id, params)
                st.caption(t(f"home.about_{page_id}"))
    if lesson is not None:
        handout(lesson, "home")  # the sentence and settings on top of a printed page
        honesty_banner(lesson)
    st.caption(t("home.release", version=VERSION))  # the release a school runs, to name when asking for help


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
