"""Small, exact statistics used across reports and the CLI summary."""

from __future__ import annotations

import math
from typing import Sequence

from statistics import NormalDist


def wilson(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Args:
        successes: number of successes (may be fractional only if the caller accepts that).
        n: number of trials; n == 0 gives (0.0, 1.0).
        confidence: two-sided confidence level.

    Returns:
        (low, high), both in [0, 1].

    Raises:
        ValueError: successes outside [0, n] or confidence outside (0, 1).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n == 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside [0, {n}]")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)  # stdlib: scipy.stats costs ~2 s to import
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # at p = 0 or 1 the bound is exactly 0 or 1; rounding would leave it a hair off
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def binomial_p(successes: int, n: int, p: float) -> float:
    """Two-sided exact binomial test p-value of ``successes`` in ``n`` trials against rate ``p``.

    Returns 1.0 when ``n == 0`` (no evidence either way).

    Raises:
        ValueError: successes outside [0, n] or p outside [0, 1].
    """
    if n == 0:
        return 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside [0, {n}]")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p}")
    # scipy.stats' two-sided rule (sum of the outcomes no more likely than the observed one),
    # computed here: importing scipy.stats takes seconds, scipy.special a fraction of that
    import numpy as np
    from scipy.special import gammaln

    k, n = int(successes), int(n)
    if p in (0.0, 1.0):
        return 1.0 if k == (0 if p == 0.0 else n) else 0.0
    x = np.arange(n + 1)
    logpmf = gammaln(n + 1) - gammaln(x + 1) - gammaln(n - x + 1) + x * math.log(p) + (n - x) * math.log1p(-p)
    pmf = np.exp(logpmf)
    return float(min(1.0, pmf[pmf <= pmf[k] * (1 + 1e-7)].sum()))


def chisquare_uniform(counts: list[int] | tuple[int, ...]) -> tuple[float, float]:
    """Pearson chi-square test of ``counts`` against equal expected counts.

    Returns:
        (statistic, p-value); (0.0, 1.0) when there are fewer than two categories or no counts.
    """
    if len(counts) < 2 or sum(counts) == 0:
        return (0.0, 1.0)
    from scipy.special import chdtrc

    expected = sum(counts) / len(counts)
    stat = math.fsum((c - expected) ** 2 / expected for c in counts)
    return (stat, float(chdtrc(len(counts) - 1, stat)))


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and its Student-t confidence interval.

    Returns:
        (mean, low, high); NaNs for no values; (mean, mean, mean) for one value or zero spread.

    Raises:
        ValueError: confidence outside (0, 1).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    xs = [float(v) for v in values if v == v]  # drop NaN
    n = len(xs)
    if n == 0:
        nan = float("nan")
        return (nan, nan, nan)
    m = math.fsum(xs) / n
    if n == 1:
        return (m, m, m)
    var = math.fsum((x - m) ** 2 for x in xs) / (n - 1)
    from scipy.special import stdtrit

    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * math.sqrt(var / n)
    return (m, m - half, m + half)


def format_p(p: float) -> str:
    """A p-value for readers, two significant digits: ``p < 0.001``, ``p = 0.0042``,
    ``p = 0.012``, ``p = 0.41``."""
    if p != p:
        return "p = n/a"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.2g}"


def poisson_ci(count: int, exposure: float, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Garwood) confidence interval of a Poisson rate ``count / exposure``.

    Args:
        count: events observed (a non-negative integer).
        exposure: the units they were observed over (e.g. games), > 0.
        confidence: two-sided confidence level.

    Returns:
        (low, high) of the rate per unit of exposure; low is 0 for ``count == 0``, where high is
        ``-ln((1 - confidence) / 2) / exposure`` (3.69 / n at 95 %).

    Raises:
        ValueError: negative or fractional count, exposure <= 0, or confidence outside (0, 1).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if count < 0 or int(count) != count:
        raise ValueError(f"count must be a non-negative integer, got {count}")
    if not exposure > 0:
        raise ValueError(f"exposure must be > 0, got {exposure}")
    from scipy.special import chdtri  # inverse upper chi-square tail; scipy.stats is slow to import

    alpha = 1 - confidence
    k = int(count)
    lo = 0.0 if k == 0 else float(chdtri(2 * k, 1 - alpha / 2)) / 2
    hi = float(chdtri(2 * k + 2, alpha / 2)) / 2
    return (lo / exposure, hi / exposure)


def count_per_game(counts: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean count of an event per game and its confidence interval.

    The interval is Student-t over the games' counts (it follows the spread between games, which
    a Poisson interval would assume away), with the low end clipped at 0 because a count cannot be
    negative. When the event happened in no game, the t interval would be [0, 0]; the exact
    Poisson upper bound for 0 events in n games (:func:`poisson_ci`, 3.69 / n at 95 %) is given
    instead, since never seeing an event in n games does not show that it cannot happen.

    Args:
        counts: the event's count in each game (NaN entries are dropped).
        confidence: two-sided confidence level.

    Returns:
        (mean, low, high); NaNs for no games.

    Raises:
        ValueError: a negative count, or confidence outside (0, 1).
    """
    xs = [float(c) for c in counts if c == c]
    if any(x < 0 for x in xs):
        raise ValueError(f"counts must be >= 0, got {min(xs)}")
    if xs and all(x == 0 for x in xs):
        return (0.0, 0.0, poisson_ci(0, len(xs), confidence)[1])
    m, lo, hi = mean_ci(xs, confidence)
    return (m, max(0.0, lo) if lo == lo else lo, hi)
