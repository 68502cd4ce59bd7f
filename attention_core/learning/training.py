"""Training the decoder with Adam, and what a run keeps: the loss, the held-out accuracy, and
the attention weights of one fixed example at a few steps (``Snapshot``) to replay.

    >>> history = train("reverse", steps=3, seed=0)
    >>> history.loss.shape, [s.step for s in history.snapshots]
    ((3,), [0, 3])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..arrays import frozen
from ..seeds import check_seed
from .model import _accuracy_of, _backprop, _check_task_fits, forward, init_params
from .tasks import DEFAULT_TASK, EXAMPLE_STREAM, HELD_OUT_STREAM, TRAIN_STREAM, Task, _batch, get_task

SNAPSHOT_STEPS = (0, 10, 30, 100, 300, 1000, 3000, 10000)
"""Steps at which training keeps the attention weights of its fixed example (and the last step)."""

ADAM_BETAS = (0.9, 0.98)
ADAM_EPS = 1e-8


def accuracy(params: dict[str, np.ndarray], task: Task | str, n: int = 1000, seed: int = 0) -> float:
    """Held-out accuracy: the fraction of scored positions where the most probable next token
    is the right one, on ``n`` held-out examples (never in a training batch; drawn from
    ``default_rng([seed, HELD_OUT_STREAM])``). Each position sees the true tokens before it.

    >>> acc = accuracy(init_params("reverse", seed=0), "reverse", n=200)
    >>> 0.0 <= acc < 0.5  # random W: about one in eight letters right by chance
    True
    """
    task = get_task(task)
    _check_task_fits(params, task)
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a whole number of examples >= 1, got {n!r}")
    inputs, targets = _batch(task, int(n), [check_seed(seed), HELD_OUT_STREAM], held_out=True)
    return _accuracy_of(forward(params, inputs), targets)


@dataclass(frozen=True)
class Snapshot:
    """The model at one step of training, seen on the fixed example.

    step : int                    Adam updates done so far (0: the random initial W)
    params : dict of arrays       the weights at that step (read-only)
    weights : (n_layers, H, T, T) attention weights of every layer and head on the example
    probs : (T, V)                next-token probabilities on the example
    """

    step: int
    params: dict[str, np.ndarray]
    weights: np.ndarray
    probs: np.ndarray


@dataclass(frozen=True)
class History:
    """A training run.

    Attributes
    ----------
    task : Task
    seed : int
    lr : float
    batch_size : int
    loss : (steps,)      the training batch's loss at each step, before that step's update
    accuracy : (steps,)  the training batch's accuracy (scored positions right) at each step
    params : dict        the final weights (read-only)
    example : (T,) int   the fixed held-out example the snapshots are taken on
    snapshots : tuple of Snapshot
        At the steps of ``SNAPSHOT_STEPS`` reached, and at the last step.
    """

    task: Task
    seed: int
    lr: float
    batch_size: int
    loss: np.ndarray
    accuracy: np.ndarray
    params: dict[str, np.ndarray]
    example: np.ndarray
    snapshots: tuple[Snapshot, ...]

    @property
    def steps(self) -> int:
        """The number of Adam updates done."""
        return int(self.loss.shape[0])


class Trainer:
    """Adam on one task, resumable in slices: ``Trainer("reverse").run(50)`` and later ``.run(50)``
    again gives the same weights as one ``.run(100)``, so a page can train a few steps per rerun.

    The state is the weights, Adam's first and second moments (``adam_m``, ``adam_v``) and the step
    count; the batch of step s comes from ``default_rng([seed, TRAIN_STREAM, s])`` whatever the
    slicing. Adam (β₁, β₂ = ``ADAM_BETAS``): m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g²,
    W ← W − lr · m̂ / (√v̂ + ε), with m̂, v̂ the bias-corrected moments.

    >>> trainer = Trainer("copy", seed=0).run(2)
    >>> trainer.step, len(trainer.run(3).history().loss)
    (2, 5)
    """

    def __init__(
        self,
        task: Task | str = DEFAULT_TASK,
        seed: int = 0,
        *,
        lr: float | None = None,
        batch_size: int | None = None,
        **model_sizes: int,
    ) -> None:
        self.task = get_task(task)
        self.seed = check_seed(seed)
        self.lr = float(self.task.lr if lr is None else lr)
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"the learning rate must be a positive number, got {lr!r}")
        self.batch_size = self.task.batch_size if batch_size is None else batch_size
        if not (isinstance(self.batch_size, int) and self.batch_size >= 1):
            raise ValueError(f"batch_size must be a whole number >= 1, got {batch_size!r}")
        self.params = init_params(self.task, self.seed, **model_sizes)
        self.adam_m = {key: np.zeros_like(w) for key, w in self.params.items()}
        self.adam_v = {key: np.zeros_like(w) for key, w in self.params.items()}
        self.step = 0
        self.example = _batch(self.task, 1, [self.seed, EXAMPLE_STREAM], held_out=True)[0][0]  # (T,)
        self.losses: list[float] = []
        self.accuracies: list[float] = []
        self.snapshots: list[Snapshot] = [self._snapshot()]

    def _snapshot(self) -> Snapshot:
        fwd = forward(self.params, self.example)
        return Snapshot(
            step=self.step,
            params={key: frozen(w) for key, w in self.params.items()},
            weights=frozen(fwd.weights, copy=False),  # (L, H, T, T)
            probs=fwd.probs,  # (T, V)
        )

    def run(self, n: int) -> Trainer:
        """Do ``n`` more Adam updates; returns the trainer itself."""
        if int(n) != n or n < 0:
            raise ValueError(f"the number of steps must be a whole number >= 0, got {n!r}")
        beta1, beta2 = ADAM_BETAS
        for _ in range(int(n)):
            t = self.step + 1
            inputs, targets = _batch(self.task, self.batch_size, [self.seed, TRAIN_STREAM, self.step], held_out=False)
            try:
                with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, once
                    loss, grads, fwd = _backprop(self.params, inputs, targets)
            except ValueError as error:  # the weights have grown past float64: NaN or inf in q, k, v
                raise ValueError(
                    f"training diverged at step {t} (lr = {self.lr:g}): try a smaller learning rate"
                ) from error
            updated = {}
            for key, g in grads.items():
                m = beta1 * self.adam_m[key] + (1 - beta1) * g  # first moment: the gradient's running mean
                v = beta2 * self.adam_v[key] + (1 - beta2) * g * g  # second moment: its running mean square
                m_hat = m / (1 - beta1**t)  # bias-corrected (both moments start at 0)
                v_hat = v / (1 - beta2**t)
                updated[key] = (self.params[key] - self.lr * m_hat / (np.sqrt(v_hat) + ADAM_EPS), m, v)
            if not all(np.isfinite(w).all() for w, _, _ in updated.values()):
                raise ValueError(f"training diverged at step {t} (lr = {self.lr:g}): try a smaller learning rate")
            for key, (w, m, v) in updated.items():
                self.params[key], self.adam_m[key], self.adam_v[key] = w, m, v
            self.step = t
            self.losses.append(loss)
            # the batch's accuracy before the update, from the forward pass that gave the loss
            self.accuracies.append(_accuracy_of(fwd, targets))
            if self.step in SNAPSHOT_STEPS:
                self.snapshots.append(self._snapshot())
        return self

    def history(self) -> History:
        """The run so far, read-only, with a snapshot of the current step last."""
        snapshots = list(self.snapshots)
        if snapshots[-1].step != self.step:
            snapshots.append(self._snapshot())
        return History(
            task=self.task,
            seed=self.seed,
            lr=self.lr,
            batch_size=self.batch_size,
            loss=frozen(self.losses),
            accuracy=frozen(self.accuracies),
            params={key: frozen(w) for key, w in self.params.items()},
            example=frozen(self.example, dtype=None),
            snapshots=tuple(snapshots),
        )


def train(
    task: Task | str = DEFAULT_TASK,
    steps: int | None = None,
    seed: int = 0,
    *,
    lr: float | None = None,
    batch_size: int | None = None,
    **model_sizes: int,
) -> History:
    """Train a decoder on ``task`` for ``steps`` Adam updates (default: the task's recipe).

    ``Trainer(task, seed, ...).run(steps).history()``.

    >>> h = train("copy", steps=20, seed=0)
    >>> h.steps, [s.step for s in h.snapshots], h.snapshots[-1].weights.shape
    (20, [0, 10, 20], (1, 2, 10, 10))
    """
    task = get_task(task)
    steps = task.steps if steps is None else steps
    return Trainer(task, seed, lr=lr, batch_size=batch_size, **model_sizes).run(steps).history()
