"""How sure a measured figure is: 95 % intervals, and what the best of many coins would score.

A head's figure over a probe set is a sample: "36 of 40 sentences" could have been 33 or 39 on
other sentences. The heads page prints every figure about a chosen head with its interval, and
the best score of 72 heads beside what the best of 72 coins would reach, since picking the
best of many makes any of them look good.

* ``wilson(k, n)``: the Wilson score interval of a share k / n (Wilson 1927), which stays inside
  [0, 1] and is sensible at 0 / n and n / n, where the textbook ±1.96·√(p(1−p)/n) is not;
* ``mean_interval(mean, sd, n)``: a mean over n sentences ± 1.96 standard errors;
* ``best_of_coins(n, p, coins)``: the largest of ``coins`` independent Binomial(n, p) counts.

Pure Python and NumPy: ``tests/test_estimates.py`` holds them to SciPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054
"""The two-sided 95 % quantile of the standard normal distribution."""


@dataclass(frozen=True)
class Estimate:
    """A measured share with its 95 % interval.

    value : the share (k / n for a count, else a mean), in [0, 1]
    low, high : the interval
    n : how many sentences (or pairs) it was measured on
    count : k for a count of sentences, None for a mean

    >>> wilson(36, 40).value, wilson(36, 40).count
    (0.9, 36)
    """

    value: float
    low: float
    high: float
    n: int
    count: int | None = None


def wilson(k: int, n: int, z: float = Z95) -> Estimate:
    """The share ``k`` / ``n`` with its Wilson score interval.

    The centre is pulled towards ½ by z²/2 pseudo-counts each way, and the width is that of a
    normal interval around it: (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).

    >>> e = wilson(36, 40)
    >>> round(e.low, 3), round(e.high, 3)
    (0.769, 0.96)
    >>> round(wilson(0, 48).high, 3), wilson(0, 48).low
    (0.074, 0.0)
    """
    if not (isinstance(n, int) and n >= 1 and isinstance(k, int) and 0 <= k <= n):
        raise ValueError(f"need whole numbers 0 <= k <= n and n >= 1, got k={k!r}, n={n!r}")
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exactly 0 (1) at 0 / n (n / n), not 1e-17 off
    high = 1.0 if k == n else min(1.0, centre + half)
    return Estimate(value=p, low=low, high=high, n=n, count=k)


def mean_interval(mean: float, sd: float, n: int, z: float = Z95) -> Estimate:
    """A mean over ``n`` sentences with ± ``z`` standard errors (sd / √n), cut to [0, 1].

    >>> e = mean_interval(0.9, 0.05, 25)
    >>> round(e.low, 4), round(e.high, 4), e.count is None
    (0.8804, 0.9196, True)
    """
    if n < 2:
        raise ValueError(f"a spread needs at least 2 sentences, got {n}")
    half = z * sd / math.sqrt(n)
    return Estimate(value=mean, low=max(0.0, mean - half), high=min(1.0, mean + half), n=n)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed exactly.

    >>> binomial_cdf(1, 2, 0.5)
    0.75
    """
    return math.fsum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(0, min(k, n) + 1))


@dataclass(frozen=True)
class BestOfCoins:
    """The largest count among ``coins`` independent Binomial(``n``, ``p``) counts.

    typical : the median of that largest count          top : its 95th percentile
    mean : its expectation
    """

    n: int
    p: float
    coins: int
    typical: int
    top: int
    mean: float


def best_of_coins(n: int, p: float, coins: int = 72) -> BestOfCoins:
    """What the best of ``coins`` coins scores on ``n`` trials, each a success with chance ``p``.

    P(max <= k) = P(X <= k)^coins for independent coins. The baseline for "the best of 72
    heads resolves 11 of 52 pairs": a head that picks at random resolves a pair with p = ¼ (it
    must be right in both sentences), and the best of 72 such heads about 21.

    >>> b = best_of_coins(52, 0.25, 72)
    >>> b.typical, b.top, round(b.mean, 1)
    (21, 24, 20.8)
    """
    if n < 1 or coins < 1 or not 0 <= p <= 1:
        raise ValueError(f"need n >= 1, coins >= 1 and 0 <= p <= 1, got n={n}, p={p}, coins={coins}")
    below = [binomial_cdf(k, n, p) ** coins for k in range(n + 1)]  # P(max <= k)
    typical = next(k for k, c in enumerate(below) if c >= 0.5)
    top = next(k for k, c in enumerate(below) if c >= 0.95)
    mean = math.fsum(1 - c for c in below[:-1])  # E[max] = Σ_k P(max > k)
    return BestOfCoins(n=n, p=p, coins=coins, typical=typical, top=top, mean=mean)
