"""The summary of a run that `stonelab run` prints (table or JSON), computed from the store with
the same functions and outcome definitions as the report (:mod:`analysis.metrics`)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from analysis import metrics as M
from analysis.load import games_frame
from sim.core.store import Store


def _block(games: pd.DataFrame, seats: pd.DataFrame, n_seats: int) -> dict[str, Any]:
    """Games, per-seat figures, draws, shared wins and mean length of one slice of the games."""
    rates = M.seat_win_rates(games, seats, n_seats)
    e = M.endings(games)
    return {
        "games": int(len(games)),
        "seats": [
            {"seat": int(r.seat), "agent": _agent(seats, int(r.seat)), "label": r.label, "wins": int(r.wins),
             "win_rate": 0.0 if r.rate != r.rate else float(r.rate), "ci95": [_num(r.lo, 0.0), _num(r.hi, 1.0)],
             "shared_wins": int(r.shared), "score": _num(r.score, 0.0),
             "score_ci95": [_num(r.score_lo, 0.0), _num(r.score_hi, 1.0)]}
            for r in rates.itertuples()
        ],
        "draws": e["draws"],
        "shared_wins": e["shared"],
        "mean_length": float(games["length"].mean()) if len(games) else 0.0,
    }


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
        "mean_length", "wall_s", "out", "points": [...]}``; the top-level figures pool every sweep
        point (a seat's ``label`` then lists its labels, joined by " / "); each point has the
        same figures and ``values`` (the swept keys and values).
    """
    meta = store.meta()
    games = games_frame(store)
    games["winners"] = games["winners_json"].map(json.loads) if not games.empty else pd.Series(dtype=object)
    seats = pd.read_sql_query("SELECT point, game_index, seat, agent, label FROM seats", store.conn)
    n_seats = int(games["num_players"].max()) if not games.empty else 0
    points = store.query("SELECT point, values_json FROM points ORDER BY point")
    total = _block(games, seats, n_seats)
    out: dict[str, Any] = {
        "scenario": meta.get("name", ""),
        "game": meta.get("game", ""),
        "games": total["games"],
        "seed": int(meta.get("seed", 0)),
        "seats": total["seats"],
        "draws": total["draws"],
        "shared_wins": total["shared_wins"],
        "mean_length": total["mean_length"],
        "wall_s": wall_s,
        "out": str(store.path.parent),
    }
    if len(points) > 1:
        out["points"] = []
        for p, v in points:
            g = games[games["point"] == p] if not games.empty else games
            st = seats[seats["point"] == p] if not seats.empty else seats
            out["points"].append({"point": p, "values": json.loads(v), **_block(g, st, n_seats)})
    return out
