"""95 % intervals and the best of many coins (attention_core.estimates), held to SciPy and to a
simulation written here."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from attention_core.estimates import Z95, best_of_coins, binomial_cdf, mean_interval, wilson


@pytest.mark.parametrize(("k", "n"), [(0, 48), (1, 48), (36, 40), (46, 48), (48, 48), (7, 40), (26, 29)])
def test_wilson_is_scipys_wilson_interval(k, n):
    ours = wilson(k, n)
    theirs = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high), abs=1e-12)
    assert ours.value == k / n and ours.count == k and ours.n == n


def test_wilson_refuses_impossible_counts():
    for k, n in [(5, 4), (-1, 4), (1, 0), (1.5, 4)]:
        with pytest.raises(ValueError, match="0 <= k <= n"):
            wilson(k, n)


def test_mean_interval_is_the_normal_interval_of_a_mean():
    values = np.random.default_rng(0).uniform(0.6, 1.0, size=40)  # (40,) per-sentence shares
    e = mean_interval(float(values.mean()), float(values.std(ddof=1)), len(values))
    half = stats.norm.ppf(0.975) * stats.sem(values)
    assert (e.low, e.high) == pytest.approx((values.mean() - half, values.mean() + half), abs=1e-12)
    assert Z95 == pytest.approx(stats.norm.ppf(0.975), abs=1e-12)
    assert mean_interval(0.99, 0.2, 4).high == 1.0  # cut to [0, 1]


@pytest.mark.parametrize(("n", "p"), [(52, 0.25), (40, 0.5), (48, 0.5)])
def test_best_of_coins_is_the_maximum_of_independent_binomials(n, p):
    for k in (0, n // 3, n):
        assert binomial_cdf(k, n, p) == pytest.approx(stats.binom.cdf(k, n, p), abs=1e-12)
    best = best_of_coins(n, p, 72)
    below = stats.binom.cdf(np.arange(n + 1), n, p) ** 72  # P(max <= k)
    assert best.typical == int(np.argmax(below >= 0.5)) and best.top == int(np.argmax(below >= 0.95))
    assert best.mean == pytest.approx(float((1 - below[:-1]).sum()), abs=1e-9)
    simulated = np.random.default_rng(1).binomial(n, p, size=(4000, 72)).max(axis=1)  # (4000,) best of 72 coins
    assert abs(np.median(simulated) - best.typical) <= 1 and abs(simulated.mean() - best.mean) < 0.15
