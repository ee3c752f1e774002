"""A tournament's ratings as the commands and the report show them: the ratings of a run's
distinct games (the fit is :mod:`analysis.bradley_terry`), a win-rate matrix, the report's
tournament section and the terminal table of ``stonelab tournament``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle
from matplotlib.ticker import PercentFormatter

from analysis.bradley_terry import Pairwise, Ratings, fit_bradley_terry, pairwise
from analysis.catalogue import distinct_records, entrant_scores, game_keys, repeat_note
from analysis.load import load_run
from analysis.metrics import endings
from analysis.plots import Plot, Section, new_figure, wrap
from analysis.stats import json_float
from sim.core.console import console, print_labelled_table, print_prose


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
    """The ratings table, each entrant's score the catalogue's ``pair_score`` (:func:`analysis.catalogue.entrant_scores`);
    no intervals when the run holds one distinct game (its copies count once: nothing measures the spread)."""
    tab = r.table()
    if len(tab):
        # an entrant's score is the catalogue's (pair_score: comparisons won over its distinct games)
        scores = entrant_scores(run)
        tab = tab.assign(score=[scores[e].value if e in scores else math.nan for e in tab["entrant"]])
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
    return Rectangle((k - 0.5, k - 0.5), 1, 1, facecolor=color, edgecolor="none")


def _pct_formatter() -> Any:
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
    # start-up: scipy.stats (analysis.power) adds 0.9 s to `stonelab tournament`, which prints the
    # ratings without this section (python -X importtime, load 11)
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
