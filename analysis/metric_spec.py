"""What one metric is (:class:`Metric`): the record the catalogue (analysis/catalogue.py) holds and
the games' report hooks (each game's report room, ``sim/<game>/report``) return.

It lives apart from the catalogue so that a game's hook can name the type without importing the
catalogue, which itself asks the games for their metrics: no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import pandas as pd

if TYPE_CHECKING:
    from analysis.run_data import RunData


@dataclass(frozen=True)
class Metric:
    """One number a study reports, defined once.

    Attributes:
        name: the machine name (``stonelab tune`` targets, ``--json``, the export), e.g.
            ``penalties_per_game`` or ``sole_win_rate[seat 0]``.
        words: what the outputs print, e.g. "stones lost to the ball per pass".
        numerator: what is counted, e.g. "stones lost to the ball in the game's passes".
        denominator: what it is counted over, e.g. "passes" or "games" (one per game).
        unit: the unit of the denominator: ``game``, ``decisive game``, ``pass``, ``stone``, ``turn``.
        direction: ``higher``, ``lower`` (better) or ``neither`` (a balance figure, fair at a
            middle value; or a description that is neither good nor bad).
        share: the value is a share in [0, 1] (printed in percent).
        group: where ``stonelab compare`` files the row: ``game``, ``seat N`` or a player's label.
        values: ``run -> frame`` with columns ``point, game_index, num, den`` (one row per game of
            ``run.games``; ``den`` 0 leaves the game out of this metric); a fit's (:attr:`fit`) also
            ``item``, what the game gives the fit (its pairwise comparisons).
        tune: the metric may be a ``stonelab tune`` target under :attr:`name`.
        sensitivity: the metric is a headline output of a sensitivity study
            (:func:`analysis.sensitivity.point_outputs`).
        count: the per-game values count events (non-negative integers: penalty stones, claims);
            a count that never happened gets the exact Poisson upper bound, not a zero-width interval.
        listed: the catalogue's tables (summary, report, compare, export) list it; False: measured
            on request only (a ``tune`` target such as ``beats[a|b]``, too many to list).
        bounds: the range a value can take (``(lo, hi)``), where it is not [0, 1] or [0, inf):
            the interval is clipped to it (the first-player edge of 3 seats lies in [-0.5, 1]).
        decimals: the decimals every output prints a value that is no share with, where the
            output's own (2 in the terminal, 3 in the report) would claim a precision the unit does
            not have: the rating spread in whole Elo points (0). None: the output's own.
        fit: for a value that is no ratio of per-game sums but a model fitted to all the games
            (the Bradley-Terry rating spread): ``items -> value``, the games' ``item`` in, one
            number out; its interval is a bootstrap over the distinct games (scheme ``fit``).
    """

    name: str
    words: str
    numerator: str
    denominator: str
    unit: str
    direction: str
    share: bool
    values: Callable[[RunData], pd.DataFrame] = field(repr=False, compare=False)
    group: str = "game"
    tune: bool = False
    sensitivity: bool = False
    listed: bool = True
    count: bool = False
    bounds: tuple[float, float] | None = None
    decimals: int | None = None
    fit: Callable[[Sequence[Any]], float] | None = field(default=None, repr=False, compare=False)

    @property
    def title(self) -> str:
        """The words with the group: ``seat 0: sole-win rate``; a game-wide metric's words alone."""
        return self.words if self.group == "game" else f"{self.group}: {self.words}"

    @property
    def scheme(self) -> str:
        """``games share``, ``game mean``, ``ratio`` or ``fit``: how the interval is made (set by
        the unit: a share or mean over games, or a ratio over something inside the games; a model
        fitted to the games, :attr:`fit`: a bootstrap over them)."""
        if self.fit is not None:
            return "fit"
        if self.unit in ("game", "decisive game", "player game"):
            return "games share" if self.share else "game mean"
        return "ratio"
