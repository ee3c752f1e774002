"""Bradley-Terry ratings fitted by maximum likelihood: a run's games as summed pairwise
comparisons (:func:`pairwise`) and the fit (:func:`fit_bradley_terry`), read by the tournament
report (:mod:`analysis.tournament`) and the skill index (:mod:`analysis.skill`).

**Comparisons.** Every game is split into pairwise comparisons of its seats' entrants, scored
with :func:`analysis.metrics.win_share` (the one definition of draws and shared wins): the seat
with the larger share of the win scores 1 against the other, equal shares score half each (a
draw, or two seats sharing a win), and two seats that both lost (share 0 while a third seat won)
are not compared: a loss to someone else says nothing about the two of them. In a two-player game
every game is one comparison: a win 1, a loss 0, a draw half.

**Model.** Bradley-Terry: entrant ``i`` scores against ``j`` with probability
``p_ij = 1 / (1 + exp(b_j - b_i))``. The strengths ``b`` (natural-log odds units) maximise
``sum_ij W_ij log p_ij`` (``W_ij``: ``i``'s summed score against ``j``, halves included), centred
on a mean of 0, fitted with ``scipy.optimize.minimize`` (trust-region Newton with the analytic
Hessian). The table shows them on the Elo scale, ``400 / ln 10`` points per nat (a 200-point gap
means the stronger scores 76 %). For two entrants the fit is exact: ``p = w / n``.

**Intervals.** Wald 95 % intervals from the observed information: the covariance of the centred
strengths is the pseudo-inverse of the Hessian of the negative log-likelihood, a weighted graph
Laplacian ``H_ij = -n_ij p_ij (1 - p_ij)`` (for two entrants ``var(b_1 - b_2) = 1 / (n p q)``).
Comparisons from one game of three or more seats are not independent, so there the intervals are
somewhat too narrow. Identical games (:func:`analysis.catalogue.game_keys`) count once: each copy
weighs ``1 / copies`` in the sums, so ratings and intervals come from the distinct games' fit.

**No finite maximum.** When some group of entrants never scored against the rest (an entrant won
or lost every game; Zermelo's condition: the graph of "scored against" is not strongly connected)
the likelihood grows without bound. The fit then adds one virtual draw to every pair that met (a
prior in the manner of BayesElo), which keeps the ratings finite and their order; the table says
so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.sparse.csgraph import connected_components

from analysis.metrics import comparisons

#: Elo points per nat of Bradley-Terry strength (an Elo gap of 400 is odds of 10 to 1)
ELO_PER_NAT = 400.0 / math.log(10.0)
#: the two-sided 95 % normal quantile
Z95 = 1.959963984540054
#: virtual draws added to each pair that met when the maximum-likelihood fit has no finite maximum
PRIOR_DRAWS = 1.0


@dataclass
class Pairwise:
    """Summed pairwise results of a tournament.

    Attributes:
        labels: the entrants, in order of first appearance.
        wins: ``wins[i, j]``: ``i``'s summed score against ``j`` (1 a win, 0.5 a draw or shared win).
        n: ``n[i, j]``: comparisons of ``i`` with ``j`` (symmetric; ``wins + wins.T == n``).
        games: games each entrant played.
    """

    labels: list[str]
    wins: np.ndarray
    n: np.ndarray
    games: np.ndarray


@dataclass
class Ratings:
    """A Bradley-Terry fit.

    Attributes:
        labels: the entrants (the order of :class:`Pairwise`).
        strength: centred strengths in nats (NaN for an entrant without comparisons).
        se: their standard errors in nats (NaN where undefined).
        score: each entrant's mean score over its comparisons (draws and shared wins half).
        comparisons: comparisons per entrant.
        games: games per entrant.
        prior: virtual draws added per pair that met (0: the plain maximum-likelihood fit).
        connected: every entrant with comparisons is linked to every other through games played;
            False means ratings of unlinked groups are not comparable.
    """

    labels: list[str]
    strength: np.ndarray
    se: np.ndarray
    score: np.ndarray
    comparisons: np.ndarray
    games: np.ndarray
    prior: float
    connected: bool

    @property
    def elo(self) -> np.ndarray:
        """Strengths on the Elo scale (mean 0)."""
        return self.strength * ELO_PER_NAT

    @property
    def elo_lo(self) -> np.ndarray:
        """Lower ends of the 95 % intervals, Elo points."""
        return (self.strength - Z95 * self.se) * ELO_PER_NAT

    @property
    def elo_hi(self) -> np.ndarray:
        """Upper ends of the 95 % intervals, Elo points."""
        return (self.strength + Z95 * self.se) * ELO_PER_NAT

    def order(self) -> list[int]:
        """Entrant indices from the highest rating to the lowest (unrated last)."""
        key = np.where(np.isnan(self.strength), -np.inf, self.strength)
        return sorted(range(len(self.labels)), key=lambda i: (-key[i], i))

    def table(self) -> pd.DataFrame:
        """One row per entrant, best first: ``rank, entrant, rating, lo, hi, score, games``."""
        rows = []
        for rank, i in enumerate(self.order(), start=1):
            rows.append({"rank": rank, "entrant": self.labels[i], "rating": float(self.elo[i]),
                         "lo": float(self.elo_lo[i]), "hi": float(self.elo_hi[i]), "score": float(self.score[i]),
                         "games": int(self.games[i])})
        return pd.DataFrame(rows, columns=["rank", "entrant", "rating", "lo", "hi", "score", "games"])


# --- comparisons ---------------------------------------------------------------------------------
def pairwise(games: pd.DataFrame, entrants: Sequence[str] | None = None,
             weights: Sequence[float] | None = None) -> Pairwise:
    """Sum the comparisons of every game.

    Args:
        games: one row per game with ``labels`` (entrant per seat) and ``winners`` (lists), as
            :func:`analysis.load.load_run` gives them.
        entrants: the entrants' order; default: order of first appearance in ``games``.
        weights: per game, the weight of its comparisons (default 1 each); :func:`run_ratings`
            gives each copy of one game ``1 / copies``, so that a game counts once.

    Raises:
        ValueError: a game names an entrant not in ``entrants``.
    """
    order = list(entrants) if entrants is not None else []
    if entrants is None:
        for labs in games["labels"] if len(games) else []:
            for lab in labs:
                if lab not in order:
                    order.append(lab)
    idx = {lab: i for i, lab in enumerate(order)}
    m = len(order)
    wins = np.zeros((m, m))
    n = np.zeros((m, m))
    played = np.zeros(m, dtype=int)
    ws = [1.0] * len(games) if weights is None else [float(x) for x in weights]
    if len(ws) != len(games):
        raise ValueError(f"{len(ws)} weights for {len(games)} games")
    for labs, won, wt in zip(games["labels"] if len(games) else [], games["winners"] if len(games) else [], ws):
        for lab in labs:
            if lab not in idx:
                raise ValueError(f"entrant {lab!r} is not among {order}")
        for lab in set(labs):
            played[idx[lab]] += 1
        for a, b, s in comparisons(labs, won):
            i, j = idx[a], idx[b]
            if i == j:
                continue  # an entrant against itself (a game seating one entrant twice) rates nothing
            wins[i, j] += wt * s
            wins[j, i] += wt * (1.0 - s)
            n[i, j] += wt
            n[j, i] += wt
    return Pairwise(order, wins, n, played)


# --- the fit -------------------------------------------------------------------------------------
def _nll(b: np.ndarray, w: np.ndarray) -> float:
    d = b[:, None] - b[None, :]
    # -sum W_ij log sigma(b_i - b_j) + (sum b)^2 / 2 (the last term only centres b: it is 0 at the optimum)
    return float(np.sum(w * np.logaddexp(0.0, -d)) + 0.5 * b.sum() ** 2)


def _grad(b: np.ndarray, w: np.ndarray) -> np.ndarray:
    n = w + w.T
    p = 1.0 / (1.0 + np.exp(-(b[:, None] - b[None, :])))
    return np.asarray(-(w - n * p).sum(axis=1) + b.sum())


def _hess_ll(b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Hessian of the negative log-likelihood alone (a weighted Laplacian)."""
    p = 1.0 / (1.0 + np.exp(-(b[:, None] - b[None, :])))
    h = -n * p * (1.0 - p)
    np.fill_diagonal(h, 0.0)
    np.fill_diagonal(h, -h.sum(axis=1))
    return h


def fit_bradley_terry(pw: Pairwise, prior: float | None = None) -> Ratings:
    """Fit Bradley-Terry strengths with 95 % Wald intervals (module docstring).

    Args:
        pw: the summed comparisons.
        prior: virtual draws added to each pair that met; None: 0 when the maximum-likelihood fit
            has a finite maximum, else :data:`PRIOR_DRAWS`.

    Raises:
        ValueError: ``pw`` is inconsistent (``wins + wins.T != n``) or ``prior`` is negative.
    """
    m = len(pw.labels)
    if not np.allclose(pw.wins + pw.wins.T, pw.n):
        raise ValueError("wins[i, j] + wins[j, i] must equal n[i, j]")
    if prior is not None and prior < 0:
        raise ValueError(f"prior must be >= 0, got {prior}")
    nan = np.full(m, np.nan)
    comps = pw.n.sum(axis=1)
    score = np.divide(pw.wins.sum(axis=1), comps, out=nan.copy(), where=comps > 0)
    act = np.flatnonzero(comps > 0)
    if act.size < 2:
        return Ratings(pw.labels, np.where(comps > 0, 0.0, np.nan), nan.copy(), score, comps, pw.games,
                       0.0, True)
    w = pw.wins[np.ix_(act, act)]
    n = pw.n[np.ix_(act, act)]
    n_comp, _ = connected_components(n > 0, directed=False)
    strong, _ = connected_components(w > 0, directed=True, connection="strong")
    if prior is None:
        prior = 0.0 if strong == 1 else PRIOR_DRAWS
    met = (n > 0).astype(float)
    w = w + 0.5 * prior * met
    n = n + prior * met
    res = minimize(_nll, np.zeros(act.size), args=(w,), jac=_grad, hess=lambda b, w: _hess_ll(b, w + w.T)
                   + np.ones((b.size, b.size)), method="trust-exact", options={"gtol": 1e-10})
    b = res.x - res.x.mean()
    cov = np.linalg.pinv(_hess_ll(b, n))
    strength = nan.copy()
    se = nan.copy()
    strength[act] = b
    se[act] = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return Ratings(pw.labels, strength, se, score, comps, pw.games, float(prior), n_comp == 1)
