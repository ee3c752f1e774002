"""Stonehenge Rocks! performance figures for ``stonelab bench`` (one core, medians of several runs).

* ``actions_per_s`` / ``games_per_s``: random playouts on the state interface (legal actions, a
  seeded uniform choice, apply; chance draws sampled with ``sample_chance``) for 2 players, as the
  generic bench does. Every applied action counts, chance draws included.
* ``actions_per_s_5p``, ``decisions_per_s`` (player actions only, 2 players).
* ``random_game_actions`` (mean actions per random 2-player game) and ``random_turn_cap_rate_5p``
  (share of random 5-player games that hit ``max_turns``): random play passes often, so this says
  whether random playouts stay short.
* ``determinize_per_s``, ``greedy_decisions_per_s`` and ``ismcts_decision_s`` (seconds per
  decision of the shared ISMCTS with 100 iterations, 2 players, mid-game).
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable, cast

import numpy as np

from sim.core.agents import make_agent
from sim.core.game import CHANCE
from sim.core.play import play_random
from sim.rocks.game import GAME
from sim.rocks.rules import RocksEnd, RocksState


def random_playout(num_players: int, seed: int) -> tuple[int, int, RocksState]:
    """One random game; returns (actions applied incl. chance, player decisions, final state)."""
    played = play_random(GAME, GAME.config(num_players), np.random.default_rng(seed), leads=False)
    return played.steps, played.moves, cast(RocksState, played.state)


def _playout_rates(num_players: int, seconds: float, repeats: int, seed0: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"aps": [], "dps": [], "gps": [], "len": [], "cap": []}
    seed = seed0
    for _ in range(repeats):
        acts = decs = games = caps = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            a, d, s = random_playout(num_players, seed)
            acts, decs, games = acts + a, decs + d, games + 1
            caps += s.outcome().termination == RocksEnd.TURN_CAP  # type: ignore[union-attr]
            seed += 1
        dt = time.perf_counter() - t0
        out["aps"].append(acts / dt)
        out["dps"].append(decs / dt)
        out["gps"].append(games / dt)
        out["len"].append(acts / games)
        out["cap"].append(caps / games)
    return out


def _midgame(seed: int, steps: int = 120) -> RocksState:
    rng = np.random.default_rng(seed)
    config = GAME.config(2)
    s = play_random(GAME, config, rng, steps=steps).state
    # then the chance draws up to the next decision
    return cast(RocksState, play_random(GAME, config, rng, state=s, until=lambda st: st.current_player() != CHANCE).state)


def _calls_per_s(call: Callable[[], object], seconds: float, repeats: int) -> float:
    """The median over ``repeats`` runs of how often ``call()`` completes per second (1/s), each
    run calling it for ``seconds`` of wall time."""
    rates = []
    for _ in range(repeats):
        k = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            call()
            k += 1
        rates.append(k / (time.perf_counter() - t0))
    return statistics.median(rates)


def benchmarks(quick: bool = False) -> list[dict[str, Any]]:
    """All Rocks figures (see the module docstring)."""
    seconds, repeats = (0.3, 3) if quick else (1.0, 5)
    two = _playout_rates(2, seconds, repeats, 0)
    five = _playout_rates(5, seconds, repeats, 100_000)
    med = statistics.median

    def row(metric: str, value: float, unit: str) -> dict[str, Any]:
        return {"game": "rocks", "metric": metric, "value": float(value), "unit": unit}

    results = [
        row("actions_per_s", med(two["aps"]), "actions/s"),
        row("games_per_s", med(two["gps"]), "games/s"),
        row("decisions_per_s", med(two["dps"]), "actions/s"),
        row("actions_per_s_5p", med(five["aps"]), "actions/s"),
        row("random_game_actions", med(two["len"]), "actions"),
        row("random_turn_cap_rate_5p", med(five["cap"]), "fraction"),
    ]

    s = _midgame(3)
    obs = s.observation(s.current_player())
    rng = np.random.default_rng(0)
    rate = _calls_per_s(lambda: GAME.determinize(obs, rng), seconds / 3, repeats)
    results.append(row("determinize_per_s", rate, "states/s"))

    cfg = GAME.config(2)
    greedy = make_agent(GAME, "greedy", {}, seat=s.current_player(), rng=rng, config=cfg)
    legal = s.legal_actions()
    rate = _calls_per_s(lambda: greedy.act(obs, legal), seconds / 3, repeats)
    results.append(row("greedy_decisions_per_s", rate, "decisions/s"))

    search = make_agent(GAME, "ismcts", {"iterations": 100}, seat=s.current_player(), rng=rng, config=cfg)
    times = []
    for i in range(1 if quick else 3):
        t = _midgame(10 + i)
        t0 = time.perf_counter()
        search.act(t.observation(t.current_player()), t.legal_actions())
        times.append(time.perf_counter() - t0)
    results.append(row("ismcts_decision_s", med(times), "s (100 iterations)"))
    return results
