"""The summary of a run that `stonelab run` prints (table or JSON), computed from the store."""

from __future__ import annotations

import json
from typing import Any

from analysis.stats import wilson
from sim.core.store import Store


def summarize(store: Store, wall_s: float | None = None) -> dict[str, Any]:
    """Win rates by seat with Wilson 95 % intervals, draws, mean length, per sweep point.

    A shared win or a draw counts as a draw, not a win, for every seat.

    Returns:
        ``{"scenario", "game", "games", "seed", "seats": [{"seat", "agent", "wins", "win_rate",
        "ci95"}], "draws", "mean_length", "wall_s", "out", "points": [...]}``; the top-level
        figures pool every sweep point.
    """
    meta = store.meta()
    n_seats = store.query("SELECT MAX(num_players) FROM games")[0][0] or 0
    points = store.query("SELECT point, values_json FROM points ORDER BY point")

    def block(where: str, args: tuple[Any, ...]) -> dict[str, Any]:
        games, draws, mean_len = store.query(
            f"SELECT COUNT(*), COALESCE(SUM(draw), 0), AVG(length) FROM games {where}", args
        )[0]
        seats = []
        for s in range(n_seats):
            agent_row = store.query(
                f"SELECT agent, label FROM seats WHERE seat=? {where.replace('WHERE', 'AND')} LIMIT 1", (s, *args)
            )
            wins = store.query(f"SELECT COUNT(*) FROM games WHERE winner=? {where.replace('WHERE', 'AND')}", (s, *args))[0][0]
            rate = wins / games if games else 0.0
            lo, hi = wilson(wins, games)
            seats.append(
                {
                    "seat": s,
                    "agent": agent_row[0][0] if agent_row else "",
                    "label": agent_row[0][1] if agent_row else "",
                    "wins": wins,
                    "win_rate": rate,
                    "ci95": [lo, hi],
                }
            )
        return {"games": games, "seats": seats, "draws": draws, "mean_length": mean_len or 0.0}

    total = block("", ())
    out: dict[str, Any] = {
        "scenario": meta.get("name", ""),
        "game": meta.get("game", ""),
        "games": total["games"],
        "seed": int(meta.get("seed", 0)),
        "seats": total["seats"],
        "draws": total["draws"],
        "mean_length": total["mean_length"],
        "wall_s": wall_s,
        "out": str(store.path.parent),
    }
    if len(points) > 1:
        out["points"] = [
            {"point": p, "values": json.loads(v), **block("WHERE point=?", (p,))} for p, v in points
        ]
    return out
