"""How many games a verdict needs, and the verdict words sized to the sample (docs/compare.md).

Every finding that judges a share against a reference (a seat's or a player's share of decisive
games against an equal share, a stronger agent's score against the no-skill score, one run's rate
against another's) goes through :func:`judge`, so one rule decides its words everywhere:

- below :data:`MIN_GAMES` games no verdict word at all: "too few games to tell (n = 4; about 194
  needed for a difference of 10 points)" (:func:`too_few`). Under 20 games Wilson's interval and the
  exact binomial test disagree (4 wins of 4: Wilson [51, 100] excludes 50 %, the exact p is 0.125).
- an effect (*higher* or *lower*) needs the interval to exclude the reference **and** the test's
  p below :data:`ALPHA`. Its size word is read from the interval's end nearer the reference, so
  the interval supports it: *strongly* when even that end is :data:`STRONG` (30 points) or more
  away, *clearly* from :data:`CLEAR` (10 points), else *slightly*.
- *no detectable difference* needs the games a standard power calculation asks for to find a
  difference of :data:`DIFF` (10 points) at :data:`POWER` (80 %) and two-sided :data:`ALPHA`
  (5 %); with fewer, the finding says "too few games to tell" with that number.

:func:`games_needed` is the usual normal-approximation sample size for a proportion (one-sample:
``n = ((z_a sqrt(p0 q0) + z_b sqrt(p1 q1)) / d)^2``; two independent samples, per run:
``n = (z_a sqrt(2 pbar qbar) + z_b sqrt(p1 q1 + p2 q2))^2 / d^2``; Fleiss, Levin & Paik,
*Statistical Methods for Rates and Proportions*, 3rd ed., 2003, ch. 2 and 4), with the alternative
``p1`` taken on the side of ``p0`` nearer 50 % (the larger, safer ``n``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

#: two-sided significance level of every verdict
ALPHA = 0.05
#: chance to find a difference of :data:`DIFF` that the "no difference" verdict asks for
POWER = 0.80
#: the difference (a share, 0.10 = 10 percentage points) a study is sized to find
DIFF = 0.10
#: fewest games (decisive games for seat and player shares) behind any verdict word
MIN_GAMES = 20
#: size words, by the distance of the interval's nearer end from the reference
STRONG, CLEAR = 0.30, 0.10


def games_needed(p0: float, diff: float = DIFF, *, two_sample: bool = False, alpha: float = ALPHA,
                 power: float = POWER) -> int:
    """Games needed to tell a share ``p0`` from ``p0 +- diff`` (two-sided ``alpha``, ``power``).

    Args:
        p0: the reference share (e.g. 0.5, an equal share of two seats), in [0, 1].
        diff: the difference to find, as a share (0.10: 10 percentage points), in (0, 1).
        two_sample: games per run for a difference between two independent runs, instead of one
            sample against a known ``p0``.

    Raises:
        ValueError: ``p0`` outside [0, 1] or ``diff`` outside (0, 1).
    """
    if not 0.0 <= p0 <= 1.0 or not 0.0 < diff < 1.0:
        raise ValueError(f"need 0 <= p0 <= 1 and 0 < diff < 1, got p0 = {p0}, diff = {diff}")
    p1 = p0 + diff if (p0 <= 0.5 and p0 + diff <= 1.0) or p0 - diff < 0.0 else p0 - diff
    p1 = min(max(p1, 0.0), 1.0)
    za, zb = norm.ppf(1 - alpha / 2), norm.ppf(power)
    if two_sample:
        pbar = (p0 + p1) / 2
        n = (za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(p0 * (1 - p0) + p1 * (1 - p1))) ** 2 / diff ** 2
    else:
        n = ((za * math.sqrt(p0 * (1 - p0)) + zb * math.sqrt(p1 * (1 - p1))) / diff) ** 2
    return max(int(math.ceil(n)), 2)


def too_few(n: int, p0: float, diff: float = DIFF, *, two_sample: bool = False, what: str = "games") -> str:
    """``"too few games to tell (n = 4; about 194 needed for a difference of 10 points)"``."""
    need = games_needed(p0, diff, two_sample=two_sample)
    per = " per run" if two_sample else ""
    return (f"too few {what} to tell (n = {n}; about {need}{per} needed for a difference of "
            f"{100 * diff:.0f} points)")


@dataclass(frozen=True)
class Judgement:
    """What a share says against its reference (:func:`judge`).

    Attributes:
        kind: ``"too few"``, ``"higher"``, ``"lower"`` or ``"none"`` (no detectable difference,
            with enough games to have found one of :data:`DIFF`).
        word: ``"strongly"``, ``"clearly"`` or ``"slightly"`` for ``higher``/``lower``, else "".
        text: for ``too few``, the :func:`too_few` sentence; else "".
    """

    kind: str
    word: str = ""
    text: str = ""

    @property
    def effect(self) -> bool:
        """True for ``higher`` or ``lower``."""
        return self.kind in ("higher", "lower")


def judge(n: int, lo: float, hi: float, expected: float, p: float | None = None, *, two_sample: bool = False,
          what: str = "games") -> Judgement:
    """Judge a share with Wilson interval ``[lo, hi]`` from ``n`` games against ``expected`` (or a
    difference's interval against 0 when ``two_sample``; ``expected`` is then the pooled share the
    power calculation starts from), with the test's p-value ``p`` when there is one. Rules in the
    module docstring."""
    ref = 0.0 if two_sample else expected
    if n < MIN_GAMES or lo != lo or hi != hi:
        text = too_few(n, expected, two_sample=two_sample, what=what)
        if n < MIN_GAMES and p is not None and p == p and p < ALPHA:
            # a small test's p next to "too few to tell" read as a contradiction: say it is the rule
            text = text[:-1] + f"; fewer than {MIN_GAMES} {what} give no verdict, whatever the test's p-value)"
        return Judgement("too few", text=text)
    significant = p is None or p < ALPHA
    if lo > ref and significant:
        gap = lo - ref
        return Judgement("higher", "strongly" if gap >= STRONG else ("clearly" if gap >= CLEAR else "slightly"))
    if hi < ref and significant:
        gap = ref - hi
        return Judgement("lower", "strongly" if gap >= STRONG else ("clearly" if gap >= CLEAR else "slightly"))
    if n < games_needed(expected, two_sample=two_sample):
        return Judgement("too few", text=too_few(n, expected, two_sample=two_sample, what=what))
    return Judgement("none")
