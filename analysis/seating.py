"""Seat effect and player effect of a study, kept apart (docs/scenarios.md, "Seat order").

A study whose seats hold different players rotates them (``sim.core.seats.seat_orders``); the
store records per game which ``[[seats]]`` entry (the *player*) sat in which seat (``seats.player``).
Two questions then have separate answers:

- **seat effect** (does the first seat win more?): seat 0's share of the decisive games against
  an equal share ``1/n``; exact binomial test (:func:`analysis.metrics.first_player_advantage`).
- **player effect** (which agent or hand wins more?): each player's share of the decisive games
  against ``1/n``; exact binomial test, and for more than two players a chi-square test of all
  players' wins against equal shares.

With every player in every seat equally often, a player effect adds to each seat's wins alike, so
seat 0's share estimates the seat effect alone (and vice versa); the binomial tests are then
conservative (a mixture of two win chances varies less than one coin). Without rotation the two
are one number: the findings say so and name ``seat_order``. Verdict words follow
:func:`analysis.power.judge`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from analysis.metrics import first_player_advantage, outcome, proportion
from analysis.power import judge
from analysis.stats import binomial_p, chisquare_uniform, format_p
from analysis.wording import plural, pct, pct_ci, seat_name


#: the verdict's size word as an adjective ("a clear first-player advantage")
ADJECTIVE = {"strongly": "strong", "clearly": "clear", "slightly": "slight"}


@dataclass
class Effects:
    """Seat and player effects of a set of games.

    Attributes:
        players: each player's label (index: the ``[[seats]]`` entry).
        differ: two players differ (else there is no player effect to ask about).
        balanced: every player sat in every seat equally often.
        rotated: players sat in more than one seat (the study rotated them).
        seat: :func:`analysis.metrics.first_player_advantage` of the games.
        player: one dict per player: ``label, wins, decisive, rate, lo, hi, expected, p``.
        chi2, p_chi2: all players' wins against equal shares.
    """

    players: list[str]
    differ: bool
    balanced: bool
    rotated: bool
    seat: dict[str, Any]
    player: list[dict[str, Any]]
    chi2: float
    p_chi2: float


def effects(games: pd.DataFrame, seats: pd.DataFrame, n_seats: int) -> Effects:
    """Seat and player effects of ``games`` (a :func:`analysis.load.load_run` games frame, with
    ``winners``, ``labels`` and ``players``; ``seats`` its seats table)."""
    seat = first_player_advantage(games, n_seats)
    labels: dict[int, str] = {}
    if not seats.empty and "player" in seats:
        for p, lab in seats[["player", "label"]].drop_duplicates("player").itertuples(index=False):
            labels[int(p)] = str(lab)
    players = [labels.get(i, f"player {i}") for i in range(max(labels, default=n_seats - 1) + 1)]
    wins = [0] * len(players)
    for ws, ps in zip(games["winners"], games["players"]) if not games.empty else []:
        if outcome(ws) == "sole":
            wins[int(ps[ws[0]])] += 1
    decisive = sum(wins)
    expected = 1.0 / n_seats if n_seats else float("nan")
    rows = []
    for i, lab in enumerate(players):
        pr = proportion(wins[i], decisive)
        rows.append({"label": lab, "wins": wins[i], "decisive": decisive, "rate": pr["rate"], "lo": pr["lo"],
                     "hi": pr["hi"], "expected": expected,
                     "p": binomial_p(wins[i], decisive, expected) if decisive else 1.0})
    chi2, p_chi2 = chisquare_uniform(wins)
    balanced = rotated = False
    if not seats.empty and "player" in seats:
        cross = pd.crosstab(seats["player"], seats["seat"])
        rotated = bool((cross > 0).sum(axis=1).max() > 1)
        balanced = rotated and cross.to_numpy().min() == cross.to_numpy().max()
    return Effects(players=players, differ=len(set(players)) > 1, balanced=balanced, rotated=rotated,
                   seat=seat, player=rows, chi2=chi2, p_chi2=p_chi2)


def seat_finding(e: Effects, n_seats: int) -> str:
    """The seat effect as a sentence: seat 0's share of decisive games, its test and verdict."""
    s = e.seat
    if s["decisive"] == 0:
        return "No game had a sole winner, so seat balance cannot be judged."
    share = pct_ci(s["rate"], s["lo"], s["hi"])
    how = ""
    if e.differ and e.rotated:
        how = (" (every player sat in every seat equally often)" if e.balanced else
               " (players sat in the seats unequally often: games is not a multiple of the seat orders)")
    head = (f"Seat effect{how}: {seat_name(0)} (the first seat) won {share} of the {plural(int(s['decisive']), 'decisive game')} "
            f"against an equal share of {pct(s['expected'])} ({format_p(s['p_binomial'])}, exact binomial test)")
    if e.differ and not e.rotated:
        return (head + "; but each player kept its seat, so this mixes seat order with player strength: rotate "
                "the seats (seat_order = \"rotate\", the default) to tell them apart.")
    j = judge(s["decisive"], s["lo"], s["hi"], s["expected"], s["p_binomial"], what="decisive games")
    if j.kind == "too few":
        out = head + f": {j.text}"
    elif j.effect:
        kind = "advantage" if j.kind == "higher" else "disadvantage"
        out = head + f": a {ADJECTIVE[j.word]} first-player {kind}"
    else:
        out = head + (f": no detectable first-player advantage; the interval bounds any to "
                      f"{100 * (s['hi'] - s['expected']):.0f} percentage points")
    if n_seats > 2:
        out += f". All seats against equal shares: chi-square {s['chi2']:.1f}, {format_p(s['p_chi2'])}"
    return out + "."


def player_finding(e: Effects) -> str | None:
    """The player effect as a sentence (None when every seat holds the same player)."""
    if not e.differ:
        return None
    decisive = e.player[0]["decisive"] if e.player else 0
    if decisive == 0:
        return "No game had a sole winner, so which player wins cannot be judged."
    if not e.rotated:
        return ("Player effect: not measured apart from the seat effect, since each player kept its seat "
                "(seat_order = \"fixed\").")
    best = max(e.player, key=lambda r: r["rate"])
    parts = [f"{r['label']} {pct_ci(r['rate'], r['lo'], r['hi'])}" for r in e.player]
    head = f"Player effect: share of the {plural(int(decisive), 'decisive game')} won, {'; '.join(parts)} (equal share {pct(best['expected'])}"
    if len(e.player) == 2:
        j = judge(decisive, best["lo"], best["hi"], best["expected"], best["p"], what="decisive games")
        test = f"{format_p(best['p'])}, exact binomial test"
    else:
        j = judge(decisive, best["lo"], best["hi"], best["expected"], e.p_chi2, what="decisive games")
        test = f"chi-square {e.chi2:.1f}, {format_p(e.p_chi2)}"
    if j.kind == "too few":
        return f"{head}; {test}): {j.text}."
    if j.kind == "higher":
        return f"{head}; {test}): a {ADJECTIVE[j.word]} player effect, {best['label']} winning more often than an equal share."
    return f"{head}; {test}): no detectable difference between the players."
