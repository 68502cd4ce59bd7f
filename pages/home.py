"""Home: what the app teaches, the formula, and the way in."""

import streamlit as st

from attention_ui.i18n import t
from attention_ui.notation import OUTPUT, SCORE, WEIGHT, attention_formula
from attention_ui.presentation import handout
from attention_ui.release import VERSION
from attention_ui.shell import NAV, honesty_banner, page_start

LESSONS = [(page_id, icon) for page_id, icon in NAV if page_id != "home"]

lesson, _ = page_start("home")
st.markdown(t("home.intro"))
st.latex(attention_formula())
st.markdown(t("home.per_token", score=SCORE, weight=WEIGHT, output=OUTPUT))
st.caption(t("home.d2l"))  # the same letters mean other things in d2l: say which
with st.expander(t("home.mistakes")):
    st.markdown(t("home.mistakes_list"))
st.subheader(t("home.path"))
for row in range(0, len(LESSONS), 3):  # the lesson path, in menu order, three cards a row
    for column, (page_id, icon) in zip(st.columns(3), LESSONS[row : row + 3]):
        with column.container(border=True):
            st.page_link(f"pages/{page_id}.py", label=t(f"shell.nav_{page_id}"), icon=icon)
            st.caption(t(f"home.about_{page_id}"))
if lesson is not None:
    handout(lesson, "home")  # the sentence and settings on top of a printed page
    honesty_banner(lesson)
st.caption(t("home.release", version=VERSION))  # the release a school runs, to name when asking for help
