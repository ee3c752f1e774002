"""Skill against chance: how much of a study's outcome the players' declared skill decides.

**What the paper does.** Duersch, Lambrecht and Oechssler ("Measuring skill and chance in games",
*European Economic Review* 127, 103472, 2020; discussion paper 0643, University of Heidelberg,
2017) rate all players of a game with a "best-fit" Elo algorithm fitted to large data sets of
repeated two-player play (chess, poker, backgammon and others): the wider the distribution of the
players' ratings, the more the game is skill. To read a spread on a scale they build benchmark
games from chess, "``p``-chess", in which a share ``1 - p`` of the chess results is replaced by a
coin flip, and ask which ``p``-chess spreads its players as widely as the game does; "50 %-chess"
is their threshold for a game that depends predominantly on chance (the legal criterion). Poker,
for example, comes out near 25 %-chess ("chess when 3 out of 4 games are replaced by a coin flip").
(This summary rests on the paper's published abstract; the exact spread statistic, the fitting of
the ratings and which players are kept were not checked against the full text.)

**What this module does, and where it differs.** A study here has a handful of seated players of
*declared* skill (a ladder, a tournament), not a population of people, so the paper's population
spread cannot be reproduced; this module gives two figures in its spirit:

- **Skill index** ``p`` (this project's, not the paper's statistic): the ``p`` of a
  ``p``-benchmark game in which, with probability ``p``, the declared-stronger player wins for
  sure and otherwise a fair coin decides. Such a game gives the stronger player a score of
  ``(1 + p) / 2``, so ``p = 2 s - 1``, where ``s`` is the declared-stronger players' pooled score
  against the declared-weaker ones (pairwise comparisons of :func:`analysis.metrics.comparisons`:
  a win 1, a draw or shared win half). It differs from the paper's ``p``-chess in two ways: the
  skill part is "the stronger always wins" rather than real chess results (in which the stronger
  player also loses some games), so for the same score the index here is *lower* than the ``p`` of
  a ``p``-chess benchmark; and it is read from the score of ordered pairs, not from a rating spread.
  Which player is stronger comes from the scenario (:mod:`analysis.strength`: agent tier, search
  effort, the game's seat skill such as the Sun's skill levels), never from the results. The
  index is ``2 s - 1`` of the catalogue's ``stronger_score`` (:mod:`analysis.catalogue`): a share
  of the comparisons, clustered by game (the comparisons of one game share it; Wilson on the
  effective sample), on the distinct games. "This layout is 60 % skill
  for these hands" reads ``p = 0.6``: six games in ten are decided by the skill difference, the
  other four as by a coin. A negative ``p`` means the declared-weaker players do better.
- **Rating spread** (the paper's quantity, on this study's few players): the standard deviation of
  the players' Bradley-Terry ratings (maximum likelihood on all comparisons, the "best-fit" rating;
  Elo scale, :func:`analysis.bradley_terry.fit_bradley_terry`): the catalogue's ``skill_spread_elo``,
  on the distinct games with a bootstrap interval over them,
  beside the spread the same pairings give when a fair coin decides every comparison (the
  paper's ``p = 0`` end: sampling noise alone spreads ratings a little). No ``p``-chess benchmark
  is built (this project has no chess data), so the spread is not mapped onto the paper's scale.

Both rest on the players the study seats: they measure the skill difference between *them*, not
the game's over a population. Defined for studies whose players differ in declared skill (a skill
ladder, a tournament, or a plain study of a strong and a weak seat); None otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.catalogue import distinct_run, estimates, rating_spread, skill_index_of
from analysis.metrics import comparisons
from analysis.run_data import RunData
from analysis.strength import label_strengths, strongest

#: coin-flip replays behind the rating spread's baseline
RESAMPLES = 200


@dataclass(frozen=True)
class SkillIndex:
    """A study's skill against chance (see the module docstring).

    Attributes:
        p: the skill index ``2 s - 1`` (0 coin flip, 1 skill alone).
        p_lo, p_hi: its interval.
        score: ``s``, the stronger players' pooled score against the weaker ones.
        comparisons: the comparisons ``s`` rests on.
        pairs: the ordered pairs, ``(stronger, weaker, score, comparisons)``.
        spread_elo: standard deviation of the Bradley-Terry ratings, Elo points.
        spread_lo, spread_hi: its bootstrap interval over the distinct games (NaN: none).
        chance_spread_elo: the median spread when a fair coin decides every comparison.
        conf_level: the intervals' confidence level.
    """

    p: float
    p_lo: float
    p_hi: float
    score: float
    comparisons: int
    pairs: tuple[tuple[str, str, float, int], ...]
    spread_elo: float
    spread_lo: float
    spread_hi: float
    chance_spread_elo: float
    conf_level: float = 0.95

    def sentence(self) -> str:
        """One sentence for a report or a terminal."""
        spread = (f"interval {self.spread_lo:.0f} to {self.spread_hi:.0f}" if self.spread_lo == self.spread_lo
                  else "no interval")
        pct = f"{100 * self.p:.0f} % skill (interval {100 * self.p_lo:.0f} to {100 * self.p_hi:.0f} %)"
        return (f"Skill index {pct}: the stronger player scores {100 * self.score:.0f} % against the weaker over "
                f"{self.comparisons} comparisons, as in a game where the stronger player wins {100 * max(self.p, 0):.0f} % of "
                f"games outright and a coin decides the rest (this project's index, after the coin-flip benchmark "
                f"of Duersch, Lambrecht and Oechssler 2020). Rating spread "
                f"{self.spread_elo:.0f} Elo ({spread}); a coin flip "
                f"with these pairings spreads them {self.chance_spread_elo:.0f}.")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"p": self.p, "interval": [self.p_lo, self.p_hi], "score": self.score,
                "comparisons": self.comparisons,
                "pairs": [{"stronger": a, "weaker": b, "score": s, "comparisons": n} for a, b, s, n in self.pairs],
                "spread_elo": self.spread_elo, "spread_interval": [self.spread_lo, self.spread_hi],
                "chance_spread_elo": self.chance_spread_elo, "conf_level": self.conf_level}


def skill_index(run: RunData, conf_level: float = 0.95, seed: int = 0) -> SkillIndex | None:
    """The skill index of a study, or None when no two of its players differ in declared skill
    (or none of them met).

    The index and the rating spread, with their intervals, are the catalogue's
    (:mod:`analysis.catalogue`: ``stronger_score`` and ``skill_spread_elo``, on the distinct games);
    the ordered pairs and the coin-flip baseline read the distinct games too. ``seed`` seeds the
    baseline's coin flips (the same run gives the same sentence).
    """
    if run.games.empty:
        return None
    est = estimates(run, ["stronger_score", "skill_spread_elo"])
    ss, sp = est.get("stronger_score"), est.get("skill_spread_elo")
    if ss is None or ss.distinct == 0:
        return None
    p_, lo_p, hi_p = skill_index_of(ss)[:3]
    # the ordered pairs of the table: the declared-stronger player's score against each weaker one
    g = distinct_run(run).games
    strengths = label_strengths(run.game, run.scenario, run.points, run.sweep_keys, run.seats)
    sums: dict[tuple[str, str], list[float]] = {}
    for labs, won in zip(g["labels"], g["winners"]):
        for a, b, s in comparisons(labs, won):
            if a != b:
                sums.setdefault((a, b), []).append(float(s))
                sums.setdefault((b, a), []).append(1.0 - float(s))
    pairs = []
    for (a, b), v in sums.items():
        best, _ = strongest([a, b], strengths)
        if best == a:
            pairs.append((a, b, math.fsum(v) / len(v), len(v)))
    # the coin-flip baseline: the same comparisons of the distinct games, each decided by a fair coin
    items = sp.items if sp is not None else ()
    rng = np.random.default_rng(seed)
    chance = [rating_spread([tuple((a, b, float(rng.random() < 0.5)) for a, b, _ in comps) for comps in items])
              for _ in range(RESAMPLES)] if items else []
    chance_f = [c for c in chance if math.isfinite(c)]
    nan = float("nan")
    return SkillIndex(p=p_, p_lo=lo_p, p_hi=hi_p, score=(p_ + 1) / 2, comparisons=int(round(ss.den)),
                      pairs=tuple(pairs),
                      spread_elo=sp.value if sp is not None else nan,
                      spread_lo=sp.lo if sp is not None else nan, spread_hi=sp.hi if sp is not None else nan,
                      chance_spread_elo=float(np.median(chance_f)) if chance_f else nan, conf_level=conf_level)


def section(run: RunData) -> Any:
    """The report's "Skill against chance" section (None when the players do not differ in
    declared skill)."""
    # start-up: matplotlib (analysis.plots) adds 1.1 s to `stonelab tune`, which measures the skill
    # index of every trial without drawing (python -X importtime, load 11)
    from analysis.plots import Section

    si = skill_index(run)
    if si is None:
        return None
    sec = Section("Skill against chance",
                  "The study placed on a scale from a coin flip (0 %) to a game that skill alone decides (100 %), "
                  "from how the declared-stronger players score against the declared-weaker ones: this project's "
                  "index, in the spirit of Duersch, Lambrecht and Oechssler (2020), who compare the spread of "
                  "players' ratings with chess whose results are partly replaced by coin flips; where the two "
                  "differ: docs/howto.md, \"Skill against chance\".")
    sec.findings.append(si.sentence())
    sec.tables.append(("Ordered pairs", pd.DataFrame(
        [{"stronger": a, "weaker": b, "stronger's score": f"{100 * sc:.0f} %", "comparisons": k}
         for a, b, sc, k in si.pairs])))
    return sec
