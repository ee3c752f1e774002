"""The summary of a run that `stonelab run` prints (table or JSON), computed from the store with
the same functions and outcome definitions as the report (:mod:`analysis.metrics`)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from analysis.catalogue import distinct_records, distinct_run, estimates, point_run, to_json
from analysis.load import load_run
from analysis.metrics import endings, seat_win_rates
from analysis.run_data import RunData
from sim.core.store import Store


def _block(run: RunData, n_seats: int) -> dict[str, Any]:
    """Games, per-seat and per-player figures, draws, shared wins, mean length and the game's own
    metrics of one slice of the games; every rate and interval is the catalogue's
    (:mod:`analysis.catalogue`), the counts (wins, draws, shared wins) are of the distinct games
    (each identical game once, as the rates count them; ``games`` counts every game)."""
    games, seats = run.games, run.seats
    dr = distinct_run(run)
    rates = seat_win_rates(dr.games, dr.seats, n_seats)
    e = endings(dr.games)
    est = estimates(run) if not games.empty else {}

    def rate(name: str, fallback: tuple[float, float, float]) -> tuple[float, float, float]:
        x = est.get(name)
        return (x.value, x.lo, x.hi) if x is not None else fallback

    rows = []
    for r in rates.itertuples():
        seat = f"seat {int(r.seat)}"
        w, wl, wh = rate(f"sole_win_rate[{seat}]", (r.rate, r.lo, r.hi))
        sc, sl, sh = rate(f"score[{seat}]", (r.score, r.score_lo, r.score_hi))
        rows.append({"seat": int(r.seat), "agent": _agent(seats, int(r.seat)), "label": r.label, "wins": int(r.wins),
                     "win_rate": _num(w, 0.0), "ci95": [_ci(wl), _ci(wh)], "shared_wins": int(r.shared),
                     "score": _num(sc, 0.0), "score_ci95": [_ci(sl), _ci(sh)]})
    players = []
    rotated = seats.groupby("label")["seat"].nunique().gt(1).any() if not seats.empty else False
    for x in est.values():
        if x.metric.name.startswith("score[") and not x.metric.group.startswith("seat "):
            players.append({"player": x.metric.group, "games": x.games, "distinct_games": x.distinct,
                            "score": _num(x.value, 0.0), "score_ci95": [_ci(x.lo), _ci(x.hi)]})
    # p0, p1, ... in the terminal are the scenario's players in order (the store's ``player``: the
    # [[seats]] entry), not the labels' alphabetical order
    who = "player" if "player" in seats else "seat"
    first = seats.groupby("label")[who].min().to_dict() if not seats.empty else {}
    players.sort(key=lambda p: (first.get(p["player"], 10**6), p["player"]))
    n_games, distinct = distinct_records(run) if not games.empty else (0, 0)
    return {
        "games": int(len(games)),
        "distinct_games": distinct,
        "seats": rows,
        "players": players if rotated else [],
        "draws": e["draws"],
        "shared_wins": e["shared"],
        "mean_length": _num(est["mean_length"].value, 0.0) if "mean_length" in est else 0.0,
        "metrics": [to_json(x) for x in est.values() if x.metric.group == "game"],
        # the player effect of a slice: the declared-stronger players' score against the weaker
        "stronger": to_json(est["stronger_score"]) if "stronger_score" in est else None,
    }


def _ci(x: float) -> float | None:
    """An interval end for JSON: None where no interval was computed (one distinct game), as
    :func:`analysis.catalogue.to_json` writes it."""
    return None if x != x else float(x)


def _num(x: float, empty: float) -> float:
    """A float for JSON (``empty`` in place of NaN, which JSON cannot hold)."""
    return empty if x != x else float(x)


def _agent(seats: pd.DataFrame, s: int) -> str:
    names = seats.loc[seats["seat"] == s, "agent"].unique().tolist() if not seats.empty else []
    return " / ".join(map(str, names))


def summarize(store: Store, wall_s: float | None = None) -> dict[str, Any]:
    """Per seat: sole wins with Wilson 95 % intervals, shared wins and score (share of the win);
    draws (no winner), shared wins (two or more winners) and mean length; per sweep point.

    Returns:
        ``{"scenario", "game", "games", "seed", "seats": [{"seat", "agent", "label", "wins",
        "win_rate", "ci95", "shared_wins", "score", "score_ci95"}], "draws", "shared_wins",
        "mean_length", "distinct_games", "players": [{"player", "games", "distinct_games", "score",
        "score_ci95"}] (when seats rotate), "metrics": [catalogue estimates of the game-wide metrics,
        analysis.catalogue.to_json], "wall_s", "out", "points": [...]}``; the top-level figures pool every sweep
        point (a seat's ``label`` then lists its labels, joined by " / "); each point has the
        same figures and ``values`` (the swept keys and values).
    """
    meta = store.meta()
    run = load_run(store.path)
    n_seats = run.n_seats
    points = store.query("SELECT point, values_json FROM points ORDER BY point")
    total = _block(run, n_seats)
    out: dict[str, Any] = {
        "scenario": meta.get("name", ""),
        "game": meta.get("game", ""),
        "games": total["games"],
        "seed": int(meta.get("seed", 0)),
        "seats": total["seats"],
        "draws": total["draws"],
        "shared_wins": total["shared_wins"],
        "mean_length": total["mean_length"],
        "distinct_games": total["distinct_games"],
        "players": total["players"],
        "metrics": total["metrics"],
        "wall_s": wall_s,
        "out": str(store.path.parent),
    }
    if len(points) > 1:
        out["points"] = []
        for p, v in points:
            out["points"].append({"point": p, "values": json.loads(v), **_block(point_run(run, p), n_seats)})
    return out
