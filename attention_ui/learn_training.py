"""Watch a head learn, its first part: the training controls and the training itself. A small
decoder (``attention_core.learning``) is trained for real, in NumPy, in slices of a fraction of a
second, while its loss and accuracy curves grow.

Training runs inside the page's script run, one slice (``Trainer.run``) at a time: after each
slice the progress bar and the curves are redrawn, and a click anywhere stops the run at the next
slice; the next run goes on from there. A run is shared by every learner of this server and kept
by (task, seed, steps) in ``st.cache_resource`` (``shared_run``): it is trained once, and a second
learner pressing Train for it watches its curves replayed. The cache is here, not in the shell:
nothing but this page reads it, and what it keeps is a live object (a trainer and its lock), not
something other pages share. What the page shows of a finished run is ``learn_sections``.

Example: ``run, replayed = train_here("reverse", 0, 300, pressed, status, curves)``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np
import streamlit as st

from attention_core.learning import (
    DEFAULT_TASK,
    TASKS,
    HeadReport,
    History,
    Task,
    Trainer,
    accuracy,
    decode,
    head_report,
)
from attention_ui.charts import draw
from attention_ui.exports import show_figure
from attention_ui.i18n import t
from attention_ui.learn_figures import training_curves
from attention_ui.notation import shown
from attention_ui.presentation import is_presenting
from attention_ui.safe import escape_markdown
from attention_ui.url_state import forget, url_choice

STEP_CHOICES = (10, 30, 100, 200, 300, 400, 600, 1000)  # Adam updates a learner can pick; every task's recipe is one
SEED_RANGE = (0, 999)
DEFAULT_PROMPT = {"reverse": "cabhe|", "copy": "cabhe|", "sort": "40718|", "induction": "cafbed|b"}  # up to the answer
HELD_OUT = 500  # held-out examples (never in a training batch) behind every accuracy the page quotes
SLICE_SECONDS = (
    0.15  # about what one slice computes: the page redraws after each; a learner waiting on the lock waits this
)
FIRST_SLICE = 5  # updates in the first slice, which measures how long one takes
DRAW_EVERY = 0.3  # seconds between two drawings of the growing curves (Chromium takes ~0.1 s to draw a chart)
REPLAY_SECONDS = (0.4, 2.0)  # a run trained before is replayed in about the time it took, within these bounds
REPLAY_FRAMES = 8
CURVES_PX, CURVES_PX_PRESENTING = 440, 330
"""The curves' height (before presentation mode grows it by 30 %): on a projector they sit beside
the Train button and end, with their menu, on the first 768 px of the screen."""
RUNS = "_learn_runs"  # session key: the (task, seed, steps) this learner has pressed Train for, in order


class Run:
    """One training run, shared by every session of the server: a Trainer advanced one slice at
    a time under a lock, the held-out accuracy of each snapshot, and, once done, the history and
    the heads' report."""

    def __init__(self, task: str, seed: int, steps: int):
        self.task, self.seed, self.steps = task, seed, steps
        self.lock = threading.Lock()
        self.trainer: Trainer | None = None
        self.per_step: float | None = None  # seconds per update, measured on the last slice
        self.seconds = 0.0  # computing time so far, all slices
        self.held_out: dict[int, float] = {}  # updates done -> held-out accuracy then
        self.history: History | None = None
        self.report: HeadReport | None = None

    @property
    def done(self) -> bool:
        return self.history is not None

    def advance(self) -> None:
        """Train one slice (or wait for the session that is training one): about SLICE_SECONDS."""
        with self.lock:
            if self.done:
                return
            start = time.perf_counter()
            if self.trainer is None:
                self.trainer = Trainer(self.task, self.seed)
            trainer = self.trainer
            n = FIRST_SLICE if self.per_step is None else max(1, round(SLICE_SECONDS / self.per_step))
            n = min(n, self.steps - trainer.step)
            before = time.perf_counter()
            trainer.run(n)
            self.per_step = max((time.perf_counter() - before) / max(n, 1), 1e-6)
            for snapshot in trainer.snapshots:
                if snapshot.step not in self.held_out:
                    self.held_out[snapshot.step] = accuracy(snapshot.params, self.task, HELD_OUT, self.seed)
            if trainer.step >= self.steps:
                history = trainer.history()
                for snapshot in history.snapshots:
                    if snapshot.step not in self.held_out:
                        self.held_out[snapshot.step] = accuracy(snapshot.params, self.task, HELD_OUT, self.seed)
                self.report = head_report(history.params, self.task, HELD_OUT, self.seed)
                self.trainer = None  # Adam's moments are not needed any more
                self.history = history
            self.seconds += time.perf_counter() - start

    def finished(self) -> tuple[History, HeadReport]:
        """The history and the heads' report of a run that is done (a ValueError otherwise)."""
        if self.history is None or self.report is None:
            raise ValueError(f"the run of {self.task!r}, seed {self.seed}, is not finished")
        return self.history, self.report

    def progress(self) -> tuple[int, list[float], list[float], dict[int, float]]:
        """(updates done, losses, accuracies, held-out accuracies) as they are now."""
        with self.lock:
            if self.history is not None:
                h = self.history
                return h.steps, list(h.loss), list(h.accuracy), dict(self.held_out)
            if self.trainer is None:
                return 0, [], [], {}
            return self.trainer.step, list(self.trainer.losses), list(self.trainer.accuracies), dict(self.held_out)


@st.cache_resource(show_spinner=False, max_entries=32)  # a finished run keeps its snapshots: ~0.1-0.6 MB
def shared_run(task: str, seed: int, steps: int) -> Run:
    """The run of (task, seed, steps) on this server: made once, trained by whoever comes first."""
    return Run(task, seed, steps)


TASK_VIEW = ("snapshot", "write_from", "gen_step", "learn_head", "learn_query")
"""The URL parameters of a view into one task's run (a snapshot, a head, a query position): a new
task opens without them, at its own final snapshot and its own lead head."""


def task_changed() -> None:
    """A new task starts from its own recipe's number of updates and its own prompt, at its own
    final snapshot (``TASK_VIEW``: the old task's "after 100 updates" would be half of induction's 400)."""
    state = st.session_state
    if state.get("task") in TASKS:
        state["steps"] = TASKS[state["task"]].steps
        state["prompt"] = DEFAULT_PROMPT[state["task"]]
        forget(*TASK_VIEW)


def head_name(layer: int, head: int, *, start: bool = False) -> str:
    """ "layer 1, head 2", as every page names a head ("Layer 1, head 2" to start a label or a sentence)."""
    return t("learn.head_name_start" if start else "learn.head_name", layer=shown(layer), head=shown(head))


def percent(x: float) -> str:
    return f"{100 * x:.1f} %"


@dataclass(frozen=True)
class View:
    """What every section after training reads: the task, its finished run and names for its heads."""

    task_id: str
    seed: int
    steps: int
    run: Run

    @property
    def task(self) -> Task:
        return TASKS[self.task_id]

    @property
    def history(self) -> History:
        """The finished run's history: its snapshots, curves, final weights and example."""
        return self.run.finished()[0]

    @property
    def report(self) -> HeadReport:
        """What the finished run's heads do, measured on held-out examples (``head_report``)."""
        return self.run.finished()[1]

    @property
    def heads(self) -> list[tuple[int, int]]:
        return [(layer, h) for layer in range(self.task.n_layers) for h in range(self.task.n_heads)]

    @property
    def names(self) -> list[str]:
        return [head_name(layer, h, start=True) for layer, h in self.heads]

    @property
    def tokens(self) -> list[str]:
        return list(decode(self.task, self.history.example))

    @property
    def predicting(self) -> list[int]:
        """The input positions whose next token is scored (0-based)."""
        return [s - 1 for s in self.task.scored]

    @property
    def answer_layer(self) -> int:
        """The layer whose heads read the answer: the last one."""
        return self.task.n_layers - 1

    @property
    def lead(self) -> int:
        """The head of the answer layer that puts the most weight on the answer."""
        return int(np.argmax(self.report.on_answer[self.answer_layer]))


# ---------------------------------------------------------------- training, in slices


def controls(about=None, *, narrow: bool = False) -> tuple[str, int, int, bool]:
    """The task, the seed, the number of updates and whether Train was pressed in this run.

    The task's description (and the model's line, when ``narrow``) go in ``about`` (by default
    where the controls are). ``narrow``: a column beside the curves (presentation mode), where the
    seed and the updates share a row and Train takes the next one; otherwise all three share one.
    """
    about = about or st.container()
    task_id = url_choice(
        t("learn.task"), "task", tuple(TASKS), DEFAULT_TASK, lambda i: t(f"learn.task_{i}"), on_change=task_changed
    )
    task = TASKS[task_id]
    about.markdown(t(f"learn.about_{task_id}", tokens=escape_markdown(task.alphabet)))
    if narrow:
        seed_col, steps_col = st.columns([2, 3], vertical_alignment="bottom")
        train_col = st.container()
    else:
        seed_col, steps_col, train_col = st.columns([1, 2, 1], vertical_alignment="bottom")
    with seed_col:
        seed = st.number_input(
            t("learn.seed"),
            *SEED_RANGE,
            SEED_RANGE[0],
            step=1,
            key="train_seed",
            bind="query-params",
            help=t("learn.seed_help"),
        )
    with steps_col:
        steps = url_choice(
            t("learn.steps"),
            "steps",
            STEP_CHOICES,
            task.steps,
            str,
            widget=st.select_slider,
            help=t("learn.steps_help", steps=task.steps),
        )
    with train_col:
        pressed = st.button(
            t("learn.train"), type="primary", key="train", icon=":material/play_arrow:", width="stretch"
        )
    (about if narrow else st).caption(
        t(
            "learn.model_line",
            layers=task.n_layers,
            heads=task.n_heads,
            d_model=task.d_model,
            d_k=task.d_model // task.n_heads,
            batch=task.batch_size,
            lr=f"{task.lr:g}",
        )
    )
    return task_id, int(seed) if seed is not None else SEED_RANGE[0], int(steps), pressed


def curves_figure(task_id: str, seed: int, steps: int, losses, accuracies, held: dict[int, float]):
    return training_curves(
        losses,
        accuracies,
        total_steps=steps,
        vocab_size=TASKS[task_id].vocab_size,
        title=t("learn.curves_title", task=t(f"learn.task_{task_id}"), seed=seed, steps=steps),
        held_out_steps=list(held),
        held_out=list(held.values()),
        plot_height=CURVES_PX_PRESENTING if is_presenting() else CURVES_PX,
        tr=t,
    )


def train_here(task_id: str, seed: int, steps: int, pressed: bool, status, curves) -> tuple[Run, bool]:
    """Train the run of (task, seed, steps) a slice at a time, redrawing the progress bar and the
    curves as they grow; a run trained before is replayed when Train was pressed for it (nothing
    computed) and shown at once otherwise. Returns the finished run and whether it was replayed."""
    run = shared_run(task_id, seed, steps)

    def frame(k: int, done_steps: int, losses, accuracies, held, key: str) -> None:
        status.progress(done_steps / steps, text=t(key, step=done_steps, steps=steps))
        with curves.container():
            draw(curves_figure(task_id, seed, steps, losses, accuracies, held), f"fig_curves_live{k}")

    if not run.done:
        k, drawn = 0, 0.0
        while not run.done:
            run.advance()
            done_steps, losses, accuracies, held = run.progress()
            if run.done:
                break
            if time.perf_counter() - drawn > DRAW_EVERY:
                frame(k, done_steps, losses, accuracies, held, "learn.training")
                k, drawn = k + 1, time.perf_counter()
            else:
                status.progress(done_steps / steps, text=t("learn.training", step=done_steps, steps=steps))
        return run, False
    if not pressed:
        return run, False
    _, losses, accuracies, held = run.progress()
    pause = min(max(run.seconds, REPLAY_SECONDS[0]), REPLAY_SECONDS[1]) / REPLAY_FRAMES
    for k in range(1, REPLAY_FRAMES):
        upto = steps * k // REPLAY_FRAMES
        shown_held = {s: a for s, a in held.items() if s <= upto}
        frame(k, upto, losses[:upto], accuracies[:upto], shown_held, "learn.replaying")
        time.sleep(pause)
    return run, True


def show_result(view: View, replayed: bool, status, curves) -> None:
    """The finished run's numbers in place of the progress bar, and its curves."""
    run, history, held = view.run, view.history, view.run.held_out
    with status.container():
        st.markdown(
            t(
                "learn.result",
                steps=history.steps,
                seconds=f"{run.seconds:.2f}",
                accuracy=percent(held[history.steps]),
                before=percent(held[0]),
                n=HELD_OUT,
                loss=f"{history.loss[-1]:.3g}",
            )
        )
        if replayed:
            st.caption(t("learn.replayed"))
    with curves.container():
        show_figure(
            curves_figure(view.task_id, view.seed, view.steps, history.loss, history.accuracy, held),
            "fig_curves",
            matrix=np.stack([history.loss, history.accuracy]),
            row_labels=[t("learn.fig_loss_name"), t("learn.fig_train_name")],
            col_labels=[str(s) for s in range(1, history.steps + 1)],
            filename=f"training_{view.task_id}_seed{view.seed}_{view.steps}",
            corner=t("learn.csv_corner"),
        )
    V = view.task.vocab_size
    st.caption(t("learn.curves_text", V=V, uniform=f"{np.log(V):.2f}", n=HELD_OUT))
