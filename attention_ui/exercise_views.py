"""The four kinds of exercise of the Exercises page, each a view drawn for one seed: the
question, its form (Check scores the first answer), the verdict and the working.

The exercises, their answers and the checking are ``attention_core.exercises``; this module lays
them out and keeps the session's answers: ``ATTEMPTS`` (exercise id -> right the first time?) and
``ANSWERS`` (exercise id -> the last checked answer), so a rerun shows the verdict again.
Example: ``show_exercise("order", 7, lesson)`` draws the ordering exercise of seed 7.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core import Lesson
from attention_core import exercises as ex
from attention_core.lesson import STEPS
from attention_ui.exports import show_figure
from attention_ui.formulas import by_hand_softmax, by_hand_vectors, by_hand_working, exp_sum, kept_terms
from attention_ui.heatmaps import heatmap
from attention_ui.i18n import t
from attention_ui.lesson_notes import listed_tokens
from attention_ui.notation import alpha_hat, inline_math, shown
from attention_ui.safe import escape_markdown, numbered_labels
from attention_ui.url_state import url_choice
from attention_ui.vector_figures import key_bars

ATTEMPTS = "ex_attempts"  # session key: exercise id -> right first time?
ANSWERS = "ex_answers"  # session key: exercise id -> the last checked answer


def start_session() -> None:
    """The session's answers, kept from run to run (empty on its first)."""
    st.session_state.setdefault(ATTEMPTS, {})
    st.session_state.setdefault(ANSWERS, {})


def next_seed() -> None:
    """The Next button's callback: the next seed, the next set of exercises."""
    state = st.session_state
    state["ex_seed"] = (int(state.get("ex_seed") or 0) + 1) % ex.MAX_SEED


def _num(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


def _submitted(exercise: str, answer, correct: bool) -> None:
    """Keep the last checked answer to ``exercise``; the first one counts for the score."""
    state = st.session_state
    state[ANSWERS][exercise] = answer
    state[ATTEMPTS] = ex.record_answer(state[ATTEMPTS], exercise, correct)


def _verdict(correct: bool) -> None:
    if correct:
        st.success(t("exercises.right"), icon=":material/check_circle:")
    else:
        st.error(t("exercises.wrong"), icon=":material/cancel:")


def _choose_one(
    form_key: str, question: str, options: list, *, format_func, key: str, ex_id: str, check, horizontal: bool = False
):
    """A one-answer question in a form: the learner picks, presses Check, the first answer is
    scored. Returns ``check(the last checked answer)`` once there is one, else None."""
    with st.form(form_key):
        choice = st.radio(question, options, index=None, horizontal=horizontal, format_func=format_func, key=key)
        if st.form_submit_button(t("exercises.check"), type="primary"):
            if choice is None:
                st.warning(t("exercises.choose_one"))
            else:
                _submitted(ex_id, choice, check(choice).correct)
    answers = st.session_state[ANSWERS]
    if ex_id not in answers:
        return None
    result = check(answers[ex_id])
    _verdict(result.correct)
    return result


def attend_view(seed: int, lesson: Lesson | None) -> None:
    """Which key does token i attend to most? On the lesson's sentence (a trained head drawn by
    the seed) or a generated one."""
    source = url_choice(
        t("exercises.source"),
        "ex_source",
        ("generated", "lesson"),
        "lesson" if lesson is not None and lesson.trained else "generated",  # a trained head first
        lambda s: t(f"exercises.source_{s}"),
    )
    if source == "lesson":
        if lesson is None:
            st.info(t("exercises.need_sentence"))
            return
        exercise = ex.attend_from_lesson(lesson, seed)  # on a trained model: a head drawn by the seed
        tokens = list(exercise.tokens)
        if tokens == list(lesson.tokens):
            tokens = listed_tokens(lesson)  # "[UNK] 他": the word behind each unknown token
        ex_id = ex.exercise_id("attend", seed, "lesson:" + lesson.text)
        if exercise.layer is None:
            st.caption(t("exercises.lesson_note"))
        else:
            st.caption(t("exercises.lesson_note_trained", layer=shown(exercise.layer), head=shown(exercise.head)))
    else:
        exercise = ex.attend_exercise(seed)
        words = t("exercises.vocab").split()
        tokens = [words[w] for w in exercise.word_ids or ()]  # a generated exercise names its words
        ex_id = ex.exercise_id("attend", seed, "generated")
        st.caption(t("exercises.generated_note"))
    i = exercise.query
    labels = numbered_labels(tokens)
    st.markdown(t("exercises.attend_task", token=escape_markdown(tokens[i]), i=shown(i)))
    fig = key_bars(exercise.scores, tokens, title=t("exercises.scores_title", i=shown(i)), tr=t, percent=False)
    show_figure(
        fig,
        f"ex_scores_{seed}",
        matrix=exercise.scores,
        row_labels=[tokens[i]],
        col_labels=tokens,
        filename=f"exercise_{seed}_scores",
        corner=t("exercises.weights_csv_corner"),
    )
    result = _choose_one(
        f"form_attend_{seed}_{source}",
        t("exercises.attend_question"),
        list(range(len(tokens))),
        format_func=lambda j: escape_markdown(labels[j]),
        key=f"ex_attend_answer_{seed}_{source}",
        ex_id=ex_id,
        check=lambda answer: ex.check_attend(exercise, answer),
        horizontal=True,
    )
    if result is None:
        return
    best = result.expected
    if result.correct:
        st.markdown(
            t(
                "exercises.attend_right",
                token=escape_markdown(tokens[result.answer]),
                j=shown(result.answer),
                score=_num(result.chosen_score),
                weight=_num(result.chosen_weight),
            )
        )
    else:
        st.markdown(
            t(
                "exercises.attend_wrong",
                chosen=escape_markdown(tokens[result.answer]),
                j=shown(result.answer),
                chosen_score=_num(result.chosen_score),
                chosen_weight=_num(result.chosen_weight),
                best=escape_markdown(tokens[best]),
                best_j=shown(best),
                best_score=_num(result.best_score),
                best_weight=_num(result.best_weight),
            )
        )
    st.info(t("exercises.attend_why"))
    bar = key_bars(exercise.weights, tokens, title=t("exercises.weights_title", i=shown(i)), tr=t, highlight=best)
    show_figure(
        bar,
        f"ex_weights_{seed}",
        matrix=exercise.weights,
        row_labels=[tokens[i]],
        col_labels=tokens,
        filename=f"exercise_{seed}_weights",
        corner=t("exercises.weights_csv_corner"),
    )


def by_hand_view(seed: int) -> None:
    """The weights of one row, computed by hand from q and k."""
    exercise = ex.by_hand_exercise(seed)
    ex_id = ex.exercise_id("by_hand", seed)
    n = len(exercise.weights)
    st.markdown(t("exercises.by_hand_task", tolerance=ex.BY_HAND_TOLERANCE))
    st.latex(kept_terms(by_hand_vectors(exercise.q, exercise.k, ex.BY_HAND_D_K)))
    st.latex(kept_terms(by_hand_softmax()))
    with st.form(f"form_by_hand_{seed}"):
        cols = st.columns(n)
        entered = [
            cols[j].number_input(
                inline_math(alpha_hat(1, shown(j))), value=None, step=0.01, format="%.3f", key=f"ex_hand_{seed}_{j}"
            )
            for j in range(n)
        ]
        if st.form_submit_button(t("exercises.check"), type="primary"):
            if any(v is None for v in entered):
                st.warning(t("exercises.missing"))
            else:
                _submitted(ex_id, list(entered), ex.check_by_hand(exercise, entered).correct)
    answers = st.session_state[ANSWERS]
    if ex_id not in answers:
        return
    result = ex.check_by_hand(exercise, answers[ex_id])
    _verdict(result.correct)
    for j in range(n):
        fields = {
            "name": inline_math(alpha_hat(1, shown(j))),
            "answer": _num(result.answer[j]),
            "expected": _num(result.expected[j]),
        }
        if not np.isfinite(result.answer[j]):
            st.markdown(t("exercises.per_key_missing", **fields))
        else:
            st.markdown(t("exercises.per_key_right" if result.per_key[j] else "exercises.per_key_wrong", **fields))
    for mistake in result.mistakes:
        if mistake != "missing":
            st.warning(t(f"exercises.mistake_{mistake}", total=_num(result.answer_sum)))
    with st.expander(t("exercises.working"), expanded=not result.correct):
        st.markdown(t("exercises.working_steps"))
        st.latex(kept_terms(by_hand_working(exercise)))
        st.latex(kept_terms(exp_sum(exercise.exps, exercise.total)))


def order_view(seed: int) -> None:
    """The steps of attention, put in order."""
    exercise = ex.order_exercise(seed)
    ex_id = ex.exercise_id("order", seed)
    st.markdown(t("exercises.order_task"))
    with st.form(f"form_order_{seed}"):
        chosen = st.multiselect(
            t("exercises.order_label"),
            list(exercise.shuffled),
            format_func=lambda s: t(f"exercises.step_{s}"),
            key=f"ex_order_{seed}",
            placeholder=t("exercises.order_placeholder"),
            select_all=False,  # "Select all" would put the steps in the shuffled order in one click
        )
        if st.form_submit_button(t("exercises.check"), type="primary"):
            if not chosen:
                st.warning(t("exercises.choose_one"))
            else:
                _submitted(ex_id, list(chosen), ex.check_order(chosen).correct)
    answers = st.session_state[ANSWERS]
    if ex_id not in answers:
        return
    given = answers[ex_id]
    result = ex.check_order(given)
    _verdict(result.correct)
    if result.problem == "incomplete":
        st.warning(t("exercises.order_incomplete", n=len(STEPS), used=len(given)))
    st.markdown(
        "  \n".join(
            t("exercises.order_position", position=p + 1, step=t(f"exercises.step_{step}"), mark="✅" if ok else "❌")
            for p, (step, ok) in enumerate(zip(given, result.per_position))
        )
    )
    if result.first_wrong is not None:  # None only when every step is in its place
        st.markdown(t("exercises.order_first_wrong", position=result.first_wrong + 1))
    st.markdown(t("exercises.order_expected"))
    st.markdown(
        "\n".join(
            f"{p + 1}. **{t(f'exercises.step_{step}')}** — {t(f'exercises.why_{step}')}" for p, step in enumerate(STEPS)
        )
    )


def no_scaling_view(seed: int) -> None:
    """What goes wrong without ÷√d_k."""
    exercise = ex.no_scaling_exercise(seed)
    ex_id = ex.exercise_id("no_scaling", seed)
    st.markdown(t("exercises.no_scaling_task", d_k=exercise.d_k, sqrt_d_k=f"{np.sqrt(exercise.d_k):g}"))
    result = _choose_one(
        f"form_no_scaling_{seed}",
        t("exercises.no_scaling_question"),
        list(exercise.options),
        format_func=lambda c: t(f"exercises.choice_{c}"),
        key=f"ex_choice_{seed}",
        ex_id=ex_id,
        check=lambda answer: ex.check_no_scaling(exercise, answer),
    )
    if result is None:
        return
    if result.choice and result.choice != result.expected:
        st.markdown(
            t(
                f"exercises.why_{result.choice}",
                sum_error=f"{exercise.raw_sum_error:.1e}",
                min_weight=f"{exercise.raw_min_weight:.1e}",
            )
        )
    st.markdown(t("exercises.why_saturate"))
    st.markdown(
        t(
            "exercises.no_scaling_numbers",
            n_samples=exercise.n_samples,
            n_keys=exercise.n_keys,
            d_k=exercise.d_k,
            raw_std=_num(exercise.raw_std, 2),
            scaled_std=_num(exercise.scaled_std, 2),
            raw_max=_num(exercise.raw_max_weight),
            scaled_max=_num(exercise.scaled_max_weight),
            raw_jac=_num(exercise.raw_jacobian),
            scaled_jac=_num(exercise.scaled_jacobian),
        )
    )
    rows = [t("exercises.with_scaling"), t("exercises.without_scaling")]
    cols = [t("exercises.key_label", j=shown(j)) for j in range(exercise.n_keys)]
    matrix = np.stack([exercise.example_scaled, exercise.example_raw])  # (2, n_keys)
    fig = heatmap(matrix, rows, cols, title=t("exercises.example_title"), tr=t, zmin=0.0, zmax=1.0, height=230)
    show_figure(
        fig,
        f"ex_no_scaling_{seed}",
        matrix=matrix,
        row_labels=rows,
        col_labels=cols,
        filename=f"exercise_{seed}_no_scaling",
    )


def show_exercise(kind: str, seed: int, lesson: Lesson | None) -> None:
    """The exercise of ``kind`` (one of ``exercises.KINDS``) for ``seed``, in a bordered box."""
    with st.container(border=True):
        if kind == "attend":
            attend_view(seed, lesson)
        else:
            {"by_hand": by_hand_view, "order": order_view, "no_scaling": no_scaling_view}[kind](seed)


def show_score(box) -> None:
    """The session's score in ``box`` (an ``st.empty`` above the exercise, filled after this run's
    answer was counted), and, once something was answered, that the first answer counts."""
    right, answered = ex.score(st.session_state[ATTEMPTS])
    box.metric(
        t("exercises.score"), t("exercises.score_value", right=right, answered=answered), help=t("exercises.score_help")
    )
    if answered:
        st.caption(t("exercises.first_counts"))
