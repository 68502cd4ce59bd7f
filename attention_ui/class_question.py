"""One exercise as a class sees it: the question (projector and phone), the answer form
(phone), the words of each bar, and what the reveal says.

The exercise is ``attention_core.exercises``'s, with the class's seed; ``attend`` is asked on
the seed's generated sentence (``class_questions.attend_question``), so every phone shows the
same tokens without the model. The words are the Exercises page's own (``exercises.*``) and the
class's (``class.*``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from attention_core import class_questions as cq
from attention_core import exercises as ex
from attention_core.lesson import STEPS
from attention_ui.charts import draw
from attention_ui.formulas import by_hand_softmax, by_hand_vectors, by_hand_working, exp_sum, kept_terms
from attention_ui.i18n import t
from attention_ui.notation import alpha_hat, inline_math, shown
from attention_ui.safe import escape_markdown, numbered_labels
from attention_ui.vector_figures import key_bars


def attend_tokens(seed: int) -> list[str]:
    """The generated sentence's tokens in this run's language (the catalog's word list)."""
    words = t("exercises.vocab").split()
    word_ids = cq.attend_question(seed).word_ids
    assert word_ids is not None  # a class question is always a generated sentence
    return [words[w] for w in word_ids]


def outcome_labels(kind: str, seed: int) -> dict[str, str]:
    """The words of each bar of the question (plain text: the bars escape them)."""
    labels = {}
    if kind == "attend":
        for j, label in enumerate(numbered_labels(attend_tokens(seed))):
            labels[f"key:{j}"] = label
        return labels
    for outcome in cq.outcomes(kind, seed):
        if kind == "no_scaling":
            labels[outcome] = t(f"class.short_{outcome}")
        elif outcome.startswith("wrong_at:"):
            p = int(outcome.split(":")[1])
            labels[outcome] = t("class.outcome_wrong_at", position=p, step=t(f"exercises.step_{STEPS[p - 1]}"))
        else:
            labels[outcome] = t(f"class.outcome_{outcome}")
    return labels


def show_question(kind: str, seed: int, key: str) -> None:
    """The task of the question, with its figure or formulas (no answer widgets)."""
    if kind == "attend":
        exercise = cq.attend_question(seed)
        tokens = attend_tokens(seed)
        i = exercise.query
        st.markdown(t("exercises.attend_task", token=escape_markdown(tokens[i]), i=shown(i)))
        fig = key_bars(exercise.scores, tokens, title=t("exercises.scores_title", i=shown(i)), tr=t, percent=False)
        draw(fig, f"{key}_scores")
        st.caption(t("exercises.generated_note"))
    elif kind == "by_hand":
        hand = cq.by_hand_question(seed)
        st.markdown(t("exercises.by_hand_task", tolerance=ex.BY_HAND_TOLERANCE))
        st.latex(kept_terms(by_hand_vectors(hand.q, hand.k, ex.BY_HAND_D_K)))
        st.latex(kept_terms(by_hand_softmax()))
    elif kind == "order":
        st.markdown(t("exercises.order_task"))
    else:
        d_k, _ = ex.no_scaling_options(seed)
        st.markdown(t("exercises.no_scaling_task", d_k=d_k, sqrt_d_k=f"{np.sqrt(d_k):g}"))


def answer_form(kind: str, seed: int, key: str, *, disabled: bool):
    """The answer widgets in a form; returns the answer (as ``class_questions.judge`` takes it)
    on the run its button was pressed with a complete answer, else None. A press without an
    answer says so."""
    value: Any  # the answer in the form judge takes: a key index, weights, steps or a choice
    with st.form(f"{key}_form", border=True):
        if kind == "attend":
            labels = numbered_labels(attend_tokens(seed))
            value = st.radio(
                t("exercises.attend_question"),
                list(range(len(labels))),
                index=None,
                horizontal=True,
                format_func=lambda j: escape_markdown(labels[j]),
                key=f"{key}_attend",
                disabled=disabled,
            )
        elif kind == "by_hand":
            n = len(cq.by_hand_question(seed).weights)
            cols = st.columns(n)
            typed = [
                cols[j].number_input(
                    inline_math(alpha_hat(1, shown(j))),
                    value=None,
                    step=0.01,
                    format="%.3f",
                    key=f"{key}_hand_{j}",
                    disabled=disabled,
                )
                for j in range(n)
            ]
            value = None if any(v is None for v in typed) else [float(v) for v in typed if v is not None]
        elif kind == "order":
            chosen = st.multiselect(
                t("exercises.order_label"),
                list(ex.order_exercise(seed).shuffled),
                format_func=lambda s: t(f"exercises.step_{s}"),
                key=f"{key}_order",
                placeholder=t("exercises.order_placeholder"),
                disabled=disabled,
            )
            value = list(chosen) or None
        else:
            _, options = ex.no_scaling_options(seed)
            value = st.radio(
                t("exercises.no_scaling_question"),
                list(options),
                index=None,
                format_func=lambda c: t(f"exercises.choice_{c}"),
                key=f"{key}_choice",
                disabled=disabled,
            )
        sent = st.form_submit_button(
            t("class.send"),
            type="primary",
            disabled=disabled,
            icon=":material/send:",
            width="stretch",
            key=f"{key}_send",
        )
    if not sent:
        return None
    if value is None:
        st.warning(t("exercises.missing" if kind == "by_hand" else "exercises.choose_one"))
        return None
    return value


def answer_text(kind: str, seed: int, answer) -> str:
    """A stored answer in words, for the student's "your answer" line (Markdown, escaped)."""
    if kind == "attend":
        return escape_markdown(numbered_labels(attend_tokens(seed))[int(answer)])
    if kind == "no_scaling":
        return t(f"class.short_{answer}")
    if kind == "by_hand":
        return ", ".join(f"{float(x):.3f}" for x in answer)
    return " → ".join(t(f"exercises.step_{s}") for s in answer)


def explain_answer(kind: str, seed: int) -> None:
    """What the reveal shows under the bars: the right answer and why."""
    if kind == "attend":
        exercise = cq.attend_question(seed)
        tokens = attend_tokens(seed)
        j = exercise.answers[0]
        st.markdown(
            t(
                "exercises.attend_right",
                token=escape_markdown(tokens[j]),
                j=shown(j),
                score=f"{exercise.scores[j]:.3f}",
                weight=f"{exercise.weights[j]:.3f}",
            )
        )
        st.caption(t("exercises.attend_why"))
    elif kind == "by_hand":
        hand = cq.by_hand_question(seed)
        st.markdown(
            t(
                "class.by_hand_answer",
                weights=", ".join(
                    f"{inline_math(alpha_hat(1, shown(j)))} = {w:.3f}" for j, w in enumerate(hand.weights)
                ),
            )
        )
        st.latex(kept_terms(by_hand_working(hand)))
        st.latex(kept_terms(exp_sum(hand.exps, hand.total)))
    elif kind == "order":
        st.markdown(t("exercises.order_expected"))
        st.markdown(
            "\n".join(
                f"{p + 1}. **{t(f'exercises.step_{s}')}** — {t(f'exercises.why_{s}')}" for p, s in enumerate(STEPS)
            )
        )
    else:
        st.markdown(t("class.no_scaling_answer", answer=t("exercises.choice_saturate")))
        st.caption(t("exercises.why_saturate"))
