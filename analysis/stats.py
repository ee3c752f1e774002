"""Small, exact statistics used across reports, the CLI summary and ``stonelab compare`` (the
two-sample intervals and tests at the end)."""

from __future__ import annotations

import math
from typing import Any, Sequence

from statistics import NormalDist

import numpy as np


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
    # start-up: scipy.special adds 0.3 s to every command that reads a run (python -X importtime, load 9)
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
    from scipy.special import chdtrc  # start-up: scipy.special 0.3 s, see binomial_p

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
    from scipy.special import stdtrit  # start-up: scipy.special 0.3 s, see binomial_p

    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * math.sqrt(var / n)
    return (m, m - half, m + half)


def json_float(x: Any) -> float | None:
    """``x`` as a plain float for JSON, None (null) where it is NaN (JSON has no NaN)."""
    v = float(x)
    return None if v != v else v


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
    from scipy.special import chdtri  # start-up: scipy.special 0.3 s, see binomial_p (inverse upper chi-square tail)

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


# --- two-sample comparisons (stonelab compare) ----------------------------------------------------
#: Bootstrap resamples for the interval of a difference of means (2000 puts the Monte Carlo error
#: of a 95 % percentile bound well below the interval's own width at a few hundred games).
BOOTSTRAP_RESAMPLES = 2000
#: Seed of the bootstrap: the same two runs always print the same intervals.
BOOTSTRAP_SEED = 20260
#: Below this expected count in a cell of the 2 x 2 table the z-test gives way to Fisher's test.
MIN_EXPECTED = 5.0


def newcombe_diff(k_a: float, n_a: int, k_b: float, n_b: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """Difference ``p_b - p_a`` of two independent proportions and Newcombe's hybrid score interval.

    ``lo = d - sqrt((p_b - l_b)^2 + (u_a - p_a)^2)``, ``hi = d + sqrt((u_b - p_b)^2 + (p_a - l_a)^2)``
    with ``(l, u)`` each proportion's Wilson interval (Newcombe 1998, method 10).

    Returns:
        (difference, low, high), all in [-1, 1]; NaNs when either run has no trials.

    Raises:
        ValueError: a count outside [0, n] (from :func:`analysis.stats.wilson`).
    """
    if n_a == 0 or n_b == 0:
        nan = float("nan")
        return (nan, nan, nan)
    pa, pb = k_a / n_a, k_b / n_b
    la, ua = wilson(k_a, n_a, confidence)
    lb, ub = wilson(k_b, n_b, confidence)
    d = pb - pa
    lo = d - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2)
    hi = d + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2)
    return (d, max(-1.0, lo), min(1.0, hi))


def two_proportion_test(k_a: int, n_a: int, k_b: int, n_b: int) -> tuple[float, str]:
    """Two-sided test that two proportions are equal.

    The pooled two-proportion z-test; Fisher's exact test when an expected count of the 2 x 2
    table is below :data:`MIN_EXPECTED` (where the normal approximation is poor).

    Returns:
        (p-value, test name); p = 1 when both runs show the same all-or-nothing outcome (nothing
        varies, so nothing can differ).
    """
    if n_a == 0 or n_b == 0:
        return (float("nan"), "no games")
    k, n = k_a + k_b, n_a + n_b
    pooled = k / n
    if pooled in (0.0, 1.0):
        return (1.0, "z-test (no variation)")
    expected = min(n_a * pooled, n_a * (1 - pooled), n_b * pooled, n_b * (1 - pooled))
    if expected < MIN_EXPECTED:
        from scipy.stats import fisher_exact  # start-up: scipy.stats 1.7 s (python -X importtime, load 9)

        res = fisher_exact([[k_a, n_a - k_a], [k_b, n_b - k_b]], alternative="two-sided")
        return (float(res[1]), "Fisher exact")
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    z = (k_b / n_b - k_a / n_a) / se
    return (math.erfc(abs(z) / math.sqrt(2)), "two-proportion z")


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN entries are left NaN and not counted).

    The i-th smallest of m p-values is multiplied by (m - i), i from 0, then made non-decreasing
    and capped at 1; a hypothesis is rejected at level alpha when its adjusted value is < alpha.
    """
    idx = [i for i, p in enumerate(pvalues) if p == p]
    order = sorted(idx, key=lambda i: pvalues[i])
    m = len(order)
    out = [float("nan")] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def bootstrap_mean_diff(a: np.ndarray, b: np.ndarray, confidence: float = 0.95,
                        resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """Difference of means ``mean(b) - mean(a)`` and its percentile bootstrap interval (each run's
    values resampled with replacement, independently).

    Returns:
        (difference, low, high); NaNs when either sample is empty.
    """
    if a.size == 0 or b.size == 0:
        nan = float("nan")
        return (nan, nan, nan)
    rng = np.random.default_rng(seed)
    # resampled means in blocks: memory stays ~ resamples x 1000 floats at most per block
    def means(x: np.ndarray) -> np.ndarray:
        out = np.empty(resamples)
        step = max(1, 1_000_000 // x.size)
        for s in range(0, resamples, step):
            e = min(resamples, s + step)
            out[s:e] = x[rng.integers(0, x.size, size=(e - s, x.size))].mean(axis=1)
        return out

    diffs = means(b) - means(a)
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(diffs, [tail, 100 - tail])
    return (float(b.mean() - a.mean()), float(lo), float(hi))


def mann_whitney_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Mann-Whitney U test p-value (scipy; 1.0 when every value of both runs is the same,
    NaN when a run has no values)."""
    if a.size == 0 or b.size == 0:
        return float("nan")
    if np.unique(np.concatenate([a, b])).size == 1:
        return 1.0
    from scipy.stats import mannwhitneyu  # start-up: scipy.stats 1.7 s (python -X importtime, load 9)

    return float(mannwhitneyu(b, a, alternative="two-sided").pvalue)
