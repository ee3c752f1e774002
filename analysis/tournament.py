"""Ratings of a tournament's entrants: Bradley-Terry fitted by maximum likelihood, a win-rate
matrix, the report's tournament section and the terminal table of ``stonelab tournament``.

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
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.sparse.csgraph import connected_components

from analysis.catalogue import distinct_records, game_keys, repeat_note
from analysis.load import load_run
from analysis.metrics import comparisons, endings
from analysis.plots import Plot, Section, new_figure, wrap
from analysis.stats import json_float
from sim.core.console import console, print_labelled_table, print_prose

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


# --- reading a run -------------------------------------------------------------------------------
def is_tournament(run: Any) -> bool:
    """True when the run's scenario has a ``[tournament]`` table (``run``: a RunData)."""
    return isinstance(run.scenario, dict) and isinstance(run.scenario.get("tournament"), dict)


def run_ratings(run: Any) -> tuple[Pairwise, Ratings]:
    """The comparisons and the fit of a loaded run (:class:`analysis.load.RunData`), on its
    distinct games (:func:`analysis.catalogue.game_keys`): each copy of one game weighs ``1 /
    copies``, so the ratings and their Wald intervals come from a fit in which every distinct
    game counts once (``n`` then holds the distinct games' comparisons)."""
    keys = pd.Series(game_keys(run).to_numpy()) if not run.games.empty else pd.Series(dtype=object)
    weights = (1.0 / keys.map(keys.value_counts())).to_numpy(float) if len(keys) else None
    pw = pairwise(run.games, weights=weights)
    return pw, fit_bradley_terry(pw)


def _sized_table(run: Any, r: Ratings) -> pd.DataFrame:
    """The ratings table; no intervals when the run holds one distinct game (its copies count
    once: nothing measures the spread)."""
    tab = r.table()
    if len(tab) and distinct_records(run)[1] < 2 <= len(run.games):
        tab = tab.copy()
        tab["lo"] = tab["hi"] = math.nan
    return tab


def summary(run_dir: str | Path) -> dict[str, Any]:
    """The ratings of a run as plain data for the CLI (JSON-ready).

    Returns:
        ``{"games", "draws", "shared_wins" (outcomes as :func:`sim.core.game.outcome_kind` defines
        them), "ratings": [{"rank", "entrant", "rating", "ci95", "score", "games"}], "prior",
        "connected", "matrix": {"entrants", "score", "n"}}``; ratings in Elo points, mean 0;
        ``matrix.score[i][j]``: entrant i's score against j (None where they never met).

    Raises:
        InputError: no store in ``run_dir``.
    """
    run = load_run(run_dir)
    pw, r = run_ratings(run)
    tab = _sized_table(run, r)
    order = r.order()
    e = endings(run.games)
    return {
        "games": int(e["games"]), "distinct_games": distinct_records(run)[1], "draws": int(e["draws"]),
        "shared_wins": int(e["shared"]),
        "ratings": [{"rank": int(x.rank), "entrant": x.entrant, "rating": json_float(x.rating),
                     "ci95": [json_float(x.lo), json_float(x.hi)],
                     "score": json_float(x.score), "games": int(x.games)} for x in tab.itertuples()],
        "prior": r.prior,
        "connected": r.connected,
        "matrix": {
            "entrants": [pw.labels[i] for i in order],
            "score": [[None if pw.n[i, j] == 0 else float(pw.wins[i, j] / pw.n[i, j]) for j in order] for i in order],
            "n": [[int(round(pw.n[i, j])) for j in order] for i in order],
        },
    }


def print_summary(s: dict[str, Any]) -> None:
    """The ratings table on the terminal (rich)."""
    con = console()  # the shared console: piped output keeps copyable lines whole
    rows = []
    for r in s["ratings"]:
        lo, hi = r["ci95"]
        rows.append([str(r["rank"]), _elo(r["rating"]), f"[{_elo(lo)}, {_elo(hi)}]",
                     "n/a" if r["score"] is None else f"{100 * r['score']:.0f} %", str(r["games"])])
    heads = ["rank", "rating", "95 % interval", "score", "games"]
    # entrants too long for what the other columns leave are named in full below the table
    print_labelled_table(con, heads, rows, [str(r["entrant"]) for r in s["ratings"]], "entrant",
                         [str(r["rank"]) for r in s["ratings"]], border=4,
                         title="Bradley-Terry ratings (Elo scale, mean 0; 95 % intervals)", title_justify="left")
    print_prose(con, _caveat(s["prior"], s["connected"]) + "score: share of comparisons won (draws and shared wins "
                     "half).")
    if s.get("distinct_games") is not None and s["distinct_games"] < s["games"]:
        print_prose(con, f"{s['games']} games, {s['distinct_games']} distinct: identical games (the same record, and the same "
                  "random streams where the rules draw by chance) count once; the ratings are fitted on the distinct games.")


def _elo(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{x:+.0f}"


def _caveat(prior: float, connected: bool) -> str:
    out = ""
    if prior:
        out += (f"Some entrants won or lost every comparison against the rest, so the plain fit has no finite "
                f"maximum: {prior:g} virtual draw per pair that met keeps the ratings finite. ")
    if not connected:
        out += "Some entrants never met, directly or through others: their ratings are not comparable. "
    return out


# --- the report section --------------------------------------------------------------------------
def matrix_plot(pw: Pairwise, r: Ratings) -> Any:
    """A heat map of each entrant's score (row) against each other (column), best first, with
    the number of comparisons in each cell."""
    order = [i for i in r.order() if pw.games[i] > 0]
    m = len(order)
    size = min(2.0 + 0.9 * m, 11.0)
    fig, ax = new_figure(size + 3.0, size + 0.8)
    ax.grid(False)
    mat = np.full((m, m), np.nan)
    for a, i in enumerate(order):
        for c, j in enumerate(order):
            if pw.n[i, j] > 0:
                mat[a, c] = pw.wins[i, j] / pw.n[i, j]
    im = ax.imshow(mat, cmap="RdBu", vmin=0.0, vmax=1.0)
    font = 9 if m <= 6 else 7
    for a in range(m):
        for c in range(m):
            if a == c:
                ax.add_patch(_square(a, "#dddddd"))
            elif not np.isnan(mat[a, c]):
                v = mat[a, c]
                ax.text(c, a, f"{100 * v:.0f} %\nn={round(pw.n[order[a], order[c]])}", ha="center", va="center",
                        fontsize=font, color="white" if abs(v - 0.5) > 0.3 else "black")
    names = [wrap(pw.labels[i], 18) for i in order]
    ax.set_xticks(range(m), names, rotation=40, ha="right", fontsize=font)
    ax.set_yticks(range(m), names, fontsize=font)
    ax.set_xlabel("against (column)")
    ax.set_ylabel("entrant (row)")
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label("row's score against column")
    cb.ax.yaxis.set_major_formatter(_pct_formatter())
    return fig


def _square(k: int, color: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((k - 0.5, k - 0.5), 1, 1, facecolor=color, edgecolor="none")


def _pct_formatter() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0, decimals=0, symbol=" %")


def section(run: Any) -> Section | None:
    """The report's tournament section: the ratings table and the win-rate matrix (None for a run
    that is not a tournament, or without games)."""
    if not is_tournament(run) or run.games.empty:
        return None
    pw, r = run_ratings(run)
    tab = _sized_table(run, r)
    sec = Section("Tournament", "A round-robin: every combination of entrants played in every rotation of the seats, "
                               "on the same seeds. Bradley-Terry ratings on the Elo scale (mean 0) with 95 % Wald "
                               "intervals; each game counts as pairwise comparisons of its seats (a draw or shared "
                               "win half a win each; two seats that both lost to a third are not compared).")
    best, worst = tab.iloc[0], tab.iloc[-1]
    i_best, i_next = (r.order() + [None])[:2]
    f = (f"{best.entrant} is rated highest ({best.rating:+.0f} [{best.lo:+.0f}, {best.hi:+.0f}]) and "
         f"{worst.entrant} lowest ({worst.rating:+.0f}), over {len(run.games)} games.")
    # here, not at the top: analysis.power imports scipy.stats, 0.9 s more at the start of `stonelab
    # tournament`, which prints the ratings without this section (python -X importtime)
    from analysis.power import MIN_GAMES, too_few

    if int(best.games) < MIN_GAMES:
        # a rating from a handful of games orders nothing (analysis/power.py)
        f = (f"{best.entrant} is rated highest ({best.rating:+.0f} [{best.lo:+.0f}, {best.hi:+.0f}]), but "
             f"{too_few(int(best.games), 0.5)} per pairing, so the order is not settled.")
    elif i_next is not None and len(tab) > 1:
        second = tab.iloc[1]
        sep = "its interval clears the runner-up's" if best.lo > second.hi else \
            f"its interval overlaps the runner-up's ({second.entrant}), so their order is not settled"
        f += f" {sep[0].upper()}{sep[1:]}."
    caveat = _caveat(r.prior, r.connected)
    if caveat:
        f += " " + caveat.strip()
    rep = repeat_note(run)
    if rep:
        f += " " + rep
    sec.findings.append(f)
    sec.plots.append(Plot("tournament_matrix", "Win-rate matrix", matrix_plot(pw, r), f,
                          "Each cell: the row entrant's score against the column entrant over their comparisons "
                          "(wins plus half the draws and shared wins), both seat orders pooled; n: comparisons. "
                          "Blue: the row entrant is stronger."))
    show = pd.DataFrame({
        "rank": tab["rank"], "entrant": tab["entrant"], "rating (Elo)": tab["rating"].map(_elo),
        "95 % interval": [f"[{_elo(lo)}, {_elo(hi)}]" for lo, hi in zip(tab["lo"], tab["hi"])],
        "score": tab["score"].map(lambda x: "n/a" if x != x else f"{100 * x:.0f} %"), "games": tab["games"],
    })
    sec.tables.append(("Bradley-Terry ratings", show))
    return sec
