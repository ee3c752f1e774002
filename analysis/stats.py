"""Small, exact statistics used across reports and the CLI summary."""

from __future__ import annotations

import math

from scipy import stats as _st


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
    z = float(_st.norm.ppf(0.5 + confidence / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
