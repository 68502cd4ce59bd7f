"""Watch a head learn: a small decoder (attention_core.learning) trained for real, in NumPy, in
slices of a fraction of a second, while its loss and accuracy curves grow; the attention maps it
passes through, its W^Q·W^Kᵀ, one row step by step, and the model writing with a temperature.

The training and its controls are attention_ui.learn_training (a run is trained once per server
and shared: ``shared_run``); what the page shows of a finished run, section by section, is
attention_ui.learn_sections. This page says which run the learner asked for and lays them out.
"""

import streamlit as st

from attention_ui.charts import draw
from attention_ui.i18n import t
from attention_ui.learn_sections import learned_section, qk_section, row_section, snapshots_section, write_section
from attention_ui.learn_training import RUNS, View, controls, curves_figure, show_result, train_here
from attention_ui.presentation import about_box, is_presenting, parse_flag
from attention_ui.route import page_start, run_app
from attention_ui.style import BESIDE_KEY
from attention_ui.url_state import keep_in_url, url_value


def render() -> None:
    page_start("learn")
    presenting = is_presenting()
    about, (left, right) = first_screen(presenting)
    with left:
        task_id, seed, steps, pressed = controls(about, narrow=presenting)
    wanted = (task_id, seed, steps)
    runs = st.session_state.setdefault(RUNS, [])
    if not runs and parse_flag(url_value("trained")):  # a link to a trained view trains it as it opens
        runs.append(wanted)
    if pressed and wanted not in runs:
        runs.append(wanted)
    trained = wanted in runs
    keep_in_url("trained", "true" if trained else "false", "false")
    status = left.empty()  # the progress bar while training, the run's numbers after
    curves = right.empty()  # the growing curves, then the finished chart
    if not trained:
        status.info(t("learn.press_train"), icon=":material/play_arrow:")
        with curves.container():  # the empty axes the curves will grow on (and Plotly loaded before Train)
            draw(curves_figure(task_id, seed, steps, [], [], {}), "fig_curves_empty")
    else:
        run, replayed = train_here(task_id, seed, steps, pressed, status, curves)
        view = View(task_id, seed, steps, run)
        show_result(view, replayed, status, curves)
        snapshots_section(view)
        layer, head = qk_section(view)
        row_section(view, layer, head)
        write_section(view)
        learned_section(view, runs)


def first_screen(presenting: bool):
    """Where the first screen's parts go: (the box for the intro and the task's description,
    (the box for the controls and the progress, the box for the curves)).

    On a projector (presentation mode) the intro and the description fold into an expander and the
    controls sit beside the curves, so that the Train button and the curves that move while it
    trains are both on a 1024 × 768 screen; otherwise they follow one another, the intro first.
    """
    about = about_box(t("learn.about_fold"), presenting)
    about.markdown(t("learn.intro"))
    if presenting:
        return about, st.container(key=BESIDE_KEY).columns([2, 3], gap="medium")
    return about, (about, st.container())


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
