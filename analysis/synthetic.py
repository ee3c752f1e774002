"""Hand-made and synthetic result stores, for tests of the metrics and for timing reports.

No game is played: :func:`write_store` writes given :class:`~sim.core.store.GameResult` rows into a
real store (the same code path the runner uses), and :func:`synthetic_store` fills a store of any
registered game with random but well-formed results (its own columns and detail tables included),
e.g. to measure how long the report of a 10,000-game study takes.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from sim.core.game import Column, GameSpec
from sim.core.store import GameResult, Store
from sim.games import get_game


def toy_spec(
    name: str = "toy",
    columns: tuple[Column, ...] = (),
    detail_tables: Mapping[str, tuple[Column, ...]] | None = None,
    max_players: int = 4,
) -> GameSpec:
    """A GameSpec for a game that does not exist, just to give a store its tables."""
    return GameSpec(name=name, title=f"{name} (synthetic)", min_players=2, max_players=max_players,
                    result_columns=columns, detail_tables=dict(detail_tables or {}))


def result(
    game_index: int,
    winners: list[int],
    *,
    point: int = 0,
    scores: list[float] | None = None,
    labels: list[str] | None = None,
    agents: list[str] | None = None,
    length: int = 10,
    termination: str = "normal",
    leads: list[list[int]] | None = None,
    sweep: Mapping[str, Any] | None = None,
    columns: dict[str, Any] | None = None,
    rows: dict[str, list[dict[str, Any]]] | None = None,
    n_seats: int = 2,
    seed: int = 1,
    players: list[int] | None = None,
) -> GameResult:
    """One GameResult with defaults for everything a test does not care about (``seed``: the
    study's seed; the store keys each game's random stream by it and the game's index)."""
    labels = labels or ["random"] * n_seats
    agents = agents or [lab.split("(")[0] for lab in labels]
    n = len(labels)
    scores = scores if scores is not None else [1.0 if s in winners else 0.0 for s in range(n)]
    rets = [1.0 / len(winners) if s in winners else 0.0 for s in range(n)] if winners else [1.0 / n] * n
    return GameResult(
        point=point, game_index=game_index, seed=seed, sweep=dict(sweep or {}), agents=agents, labels=labels,
        scores=scores, winners=sorted(winners), returns=rets, length=length, termination=termination,
        wall_s=0.01, version="test", columns=dict(columns or {}), rows=dict(rows or {}), leads=leads or [],
        players=list(players) if players is not None else list(range(n)),
    )


def write_store(
    out: str | Path,
    spec: GameSpec,
    results: Iterable[GameResult],
    *,
    points: Iterable[tuple[int, Mapping[str, Any]]] = ((0, {}),),
    scenario: Mapping[str, Any] | None = None,
    seed: int = 1,
    games: int | None = None,
) -> Path:
    """Write ``results`` into a new store in folder ``out``; returns the folder."""
    results = list(results)
    scenario = dict(scenario or {"name": "hand-made", "game": spec.name, "seed": seed})
    meta = {
        "name": str(scenario.get("name", "hand-made")), "game": spec.name, "fingerprint": "test",
        "scenario_json": json.dumps(scenario, sort_keys=True), "source": "", "seed": str(seed),
        "games": str(games if games is not None else len(results)), "version": "test",
    }
    store = Store.create(out, spec, meta, force=True)
    try:
        store.set_points(points)
        for r in results:
            store.add(r)
    finally:
        store.close()
    return Path(out)


def _fill(col: Column, rng: np.random.Generator) -> Any:
    if col.sqltype == "INTEGER":
        return int(rng.integers(0, 6))
    if col.sqltype == "REAL":
        return float(rng.random())
    return str(rng.choice(["a", "b", "c"]))


def synthetic_store(
    out: str | Path,
    game: str,
    n_games: int,
    *,
    n_seats: int | None = None,
    rows_per_table: int = 16,
    sweep: Mapping[str, list[Any]] | None = None,
    seed: int = 0,
) -> Path:
    """A store of ``n_games`` random results of registered game ``game`` (per sweep point when
    ``sweep`` maps keys to value lists, like a scenario's ``[sweep]``); returns the folder."""
    spec = get_game(game).spec
    n = n_seats or spec.min_players
    rng = np.random.default_rng(seed)
    keys = list((sweep or {}).keys())
    grid = list(itertools.product(*[(sweep or {})[k] for k in keys])) if keys else [()]
    points = [(i, dict(zip(keys, vals))) for i, vals in enumerate(grid)]
    labels = ["mcts(iterations=100)"] + ["random"] * (n - 1)

    def gen() -> Iterable[GameResult]:
        for p, values in points:
            for i in range(n_games):
                length = int(rng.integers(10, 60))
                k = rng.random()
                winners = [] if k < 0.05 else [int(rng.integers(n)) if k < 0.5 else 0]
                lead_at = sorted(set(int(x) for x in rng.integers(1, length + 1, size=int(rng.integers(1, 6)))))
                leads = [[a, int(rng.integers(-1, n))] for a in lead_at]
                cols = {c.name: _fill(c, rng) for c in spec.result_columns}
                rows = {t: [{c.name: _fill(c, rng) for c in cols_} for _ in range(rows_per_table)]
                        for t, cols_ in spec.detail_tables.items()}
                yield result(i, winners, point=p, labels=labels, length=length, leads=leads, sweep=values,
                             columns=cols, rows=rows, scores=[float(x) for x in rng.integers(0, 20, n)],
                             termination="turn_cap" if k > 0.98 else "normal")

    scenario = {"name": f"synthetic-{game}", "game": game, "seed": seed, "games": n_games,
                "seats": [{"agent": "mcts", "iterations": 100}] + [{"agent": "random"}] * (n - 1)}
    if keys:
        scenario["sweep"] = dict(sweep or {})
    return write_store(out, spec, gen(), points=points, scenario=scenario, seed=seed, games=n_games)
