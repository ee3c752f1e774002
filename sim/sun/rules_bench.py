"""Benchmarks of whole Sun games (for ``stonelab bench``; the table's pass figures are in bench.py).

``game_s``: wall seconds of a whole 2-player game on the real table (32 stones, fast preset,
``careful`` agents, steady hands), median over several seeded games on one core. Goal: < 1.5 s.
``rules_actions_per_s``: random playouts of the rules alone on the scripted test double (no
physics): legal_actions + apply_action + chance sampling.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from sim.core.agents import make_agent
from sim.core.game import CHANCE
from sim.core.seeding import game_streams


def whole_game_s(index: int, agent: str = "careful", seed: int = 1) -> tuple[float, int]:
    """Wall seconds and length of game ``index`` (careful vs careful by default)."""
    from sim.sun.game import GAME

    cfg = GAME.config(2)
    st = game_streams(seed, index, 2)
    agents = [make_agent(GAME, agent, {}, seat=i, rng=st.seats[i], config=cfg) for i in range(2)]
    t0 = time.perf_counter()
    s = GAME.new_initial_state(cfg)
    while not s.is_terminal():
        p = s.current_player()
        if p == CHANCE:
            s.apply_action(s.sample_chance(st.chance))
        else:
            s.apply_action(agents[p].act(s.observation(p), s.legal_actions(p)))
    return time.perf_counter() - t0, s.length()


def rules_playouts(games: int = 5) -> tuple[float, float]:
    """(actions per second, games per second) of random playouts on the scripted table."""
    from sim.sun import rules as R

    n_actions = 0
    t0 = time.perf_counter()
    for g in range(games):
        rng = np.random.default_rng(g)
        s = R.SunState.new(2)
        while not s.is_terminal():
            if s.current_player() == CHANCE:
                s.apply_action(s.sample_chance(rng))
            else:
                la = s.legal_actions()
                s.apply_action(la[int(rng.integers(len(la)))])
            n_actions += 1
    dt = time.perf_counter() - t0
    return n_actions / dt, games / dt


def benchmarks(quick: bool = False) -> list[dict]:
    """``game_s`` (median of 3 or 7 games) and the rules-only playout rates."""
    _ = whole_game_s(99)  # warm-up: imports, PyBullet connection
    times = [whole_game_s(i)[0] for i in range(3 if quick else 7)]
    aps, gps = rules_playouts(2 if quick else 5)
    return [
        {"game": "sun", "metric": "game_s", "value": statistics.median(times), "unit": "s",
         "note": "whole 2-player game, 32 stones, fast preset, careful agents, one core (median)"},
        {"game": "sun", "metric": "rules_actions_per_s", "value": aps, "unit": "actions/s",
         "note": "random playouts of the rules on the scripted table (no physics)"},
        {"game": "sun", "metric": "rules_games_per_s", "value": gps, "unit": "games/s"},
    ]


if __name__ == "__main__":
    for row in benchmarks():
        print(row)
