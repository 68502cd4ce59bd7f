"""Exercise (d), no scaling: what changes without the division by √d_k? A multiple choice,
explained with a computed experiment (``scaling.scaling_experiment``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays import frozen
from ..scaling import scaling_experiment
from ..seeds import check_seed
from .common import exercise_rng

CHOICES = ("saturate", "uniform", "nothing", "sum_changes", "negative")
"""Answers to "what changes without √d_k?"; ``"saturate"`` is the right one."""
CORRECT_CHOICE = "saturate"
NO_SCALING_D_KS = (16, 64, 256)
NO_SCALING_KEYS = 8
NO_SCALING_SAMPLES = 400


# --------------------------------------------------------------------------- (d) no scaling


@dataclass(frozen=True)
class NoScalingExercise:
    """ "What changes without √d_k?", with the numbers of a seeded experiment.

    d_k : the dimension asked about
    options : four answer ids from ``CHOICES`` (always including the right one), shuffled
    The experiment (``scaling_experiment(d_k, NO_SCALING_KEYS, NO_SCALING_SAMPLES, seed)``):
    raw_std, scaled_std : spread (standard deviation) of q·k and of q·k/√d_k
    raw_max_weight, scaled_max_weight : mean largest weight of a row, without / with √d_k
    raw_jacobian, scaled_jacobian : mean size of softmax's Jacobian (the gradient path)
    raw_sum_error : largest |Σ_j α̂_j − 1| without √d_k (softmax still sums to 1)
    raw_min_weight : smallest weight without √d_k (still ≥ 0)
    example_raw, example_scaled : (n_keys,) the weights of the first query, without / with
    """

    seed: int
    d_k: int
    options: tuple[str, ...]
    n_keys: int
    n_samples: int
    raw_std: float
    scaled_std: float
    raw_max_weight: float
    scaled_max_weight: float
    raw_jacobian: float
    scaled_jacobian: float
    raw_sum_error: float
    raw_min_weight: float
    example_raw: np.ndarray
    example_scaled: np.ndarray


@dataclass(frozen=True)
class ChoiceResult:
    correct: bool
    choice: str | None
    expected: str = CORRECT_CHOICE


def no_scaling_options(seed: int) -> tuple[int, tuple[str, ...]]:
    """The d_k and the four shuffled answer ids (the right one and three of the others) of the
    question for ``seed``, without its experiment.

    >>> d_k, options = no_scaling_options(0)
    >>> d_k in NO_SCALING_D_KS, CORRECT_CHOICE in options, len(set(options))
    (True, True, 4)
    """
    rng = exercise_rng(seed, "no_scaling")
    d_k = int(NO_SCALING_D_KS[int(rng.integers(len(NO_SCALING_D_KS)))])
    wrong = [c for c in CHOICES if c != CORRECT_CHOICE]
    picked = [wrong[i] for i in rng.choice(len(wrong), size=3, replace=False)]
    options = tuple(picked[i] if i < 3 else CORRECT_CHOICE for i in range(4))
    return d_k, tuple(options[i] for i in rng.permutation(4))


def no_scaling_exercise(seed: int) -> NoScalingExercise:
    """The question for ``seed``: a d_k from ``NO_SCALING_D_KS`` and four shuffled options.

    >>> ex = no_scaling_exercise(0)
    >>> CORRECT_CHOICE in ex.options, ex.raw_max_weight > ex.scaled_max_weight
    (True, True)
    """
    d_k, options = no_scaling_options(seed)
    run = scaling_experiment(d_k, n_keys=NO_SCALING_KEYS, n_samples=NO_SCALING_SAMPLES, seed=check_seed(seed))
    return NoScalingExercise(
        seed=check_seed(seed),
        d_k=d_k,
        options=options,
        n_keys=NO_SCALING_KEYS,
        n_samples=NO_SCALING_SAMPLES,
        raw_std=float(np.sqrt(run.raw_variance)),
        scaled_std=float(np.sqrt(run.scaled_variance)),
        raw_max_weight=run.raw_stats.max_weight,
        scaled_max_weight=run.scaled_stats.max_weight,
        raw_jacobian=run.raw_stats.jacobian_norm,
        scaled_jacobian=run.scaled_stats.jacobian_norm,
        raw_sum_error=float(np.abs(run.raw_weights.sum(axis=1) - 1.0).max()),
        raw_min_weight=float(run.raw_weights.min()),
        example_raw=frozen(run.raw_weights[0]),
        example_scaled=frozen(run.scaled_weights[0]),
    )


def check_no_scaling(ex: NoScalingExercise, choice) -> ChoiceResult:
    """Is ``choice`` the right option?

    >>> check_no_scaling(no_scaling_exercise(0), "saturate").correct
    True
    """
    valid = choice in ex.options
    return ChoiceResult(correct=valid and choice == CORRECT_CHOICE, choice=choice if valid else None)
