"""Benchmarks of whole Sun games (for ``stonelab bench``; the table's pass figures are in bench.py).

``game_s``: wall seconds of a whole 2-player game on the real table (32 stones, fast preset, the
main job's seats: a careful and an aggressive player with adult hands, as in
``scenarios/sun/classic-2p.toml``), median over several seeded games on one core.
``game_cpu_s``: the same games in CPU seconds of the process (median): PyBullet, the rules and the
agents share one thread, so on a machine shared with other jobs this is the figure to compare.
``game_overhead_ratio``: for the same games, their wall time divided by the wall time spent inside
PyBullet's ``stepSimulation`` during them (``sim.sun.table.sun_table.stepping_wall_s``): 1.0 would mean the
rules, the agents and the bookkeeping cost nothing beside the physics. Goal <= 1.3.
``game_world_build_ratio``: for the same games, the wall time spent building PyBullet worlds from
the poses before each physics call (``sim.sun.table.world.building_wall_s``) over the stepping time: the
part of the overhead that the rebuild-per-call design costs (docs/sun-physics.md), beside the
rules' and the agents'.
``game_table_ratio``: for the same games, the wall time spent inside the PyBullet table's ``place``
and ``throw`` (``sim.sun.physics_table.table_wall_s``: loading the poses, building the world, stepping,
reading back and judging) over the stepping time: the overhead ratio a game would have if the rules
and the agents cost nothing, the floor under ``game_overhead_ratio`` that the rebuild-per-call
design sets (docs/sun-physics.md).
``game_stepping_s``, ``game_build_s``, ``game_table_other_s``, ``game_rules_s``, ``game_agents_s``: where
those games' wall time goes, seconds per game (mean): inside ``stepSimulation``, loading worlds from
the poses, the rest of the table's place and throw, the remainder (the game less the table and the
agents: the rules, the play loop, observations and stream draws), the agents' ``act``.
``rules_actions_per_s``: random playouts of the rules alone on the scripted test double (no
physics): legal_actions + apply_action + chance sampling; 20 games after a warm-up of two others.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import replace
from typing import Any

import numpy as np

from sim.core.agents import make_agent
from sim.core.play import play, play_random
from sim.core.seeding import game_streams
from sim.sun.game import GAME
from sim.sun.physics_table import table_wall_s
from sim.sun.rules.state import SunState
from sim.sun.table.world import building_wall_s, stepping_wall_s

MAIN_SEATS = ({"agent": "careful", "skill": "casual"}, {"agent": "aggressive", "skill": "casual"})


class _Timed:
    """An agent whose ``act`` calls are timed into ``spent[0]`` (wall seconds)."""

    def __init__(self, agent: Any, spent: list[float]) -> None:
        self._agent = agent
        self._spent = spent
        self.reads_observation = getattr(agent, "reads_observation", True)

    def act(self, observation: Any, legal: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self._agent.act(observation, legal)
        finally:
            self._spent[0] += time.perf_counter() - t0


def whole_game(index: int, seed: int = 1, seats: tuple[dict, ...] = MAIN_SEATS
               ) -> tuple[float, float, int, float, float, float]:
    """(wall seconds, wall seconds inside PyBullet stepping, length, wall seconds loading PyBullet
    worlds, wall seconds inside the table's place and throw, wall seconds inside the agents' ``act``)
    of game ``index``."""
    base = GAME.config(len(seats))
    cfg = replace(base, seats=tuple({**base.seats[i], "skill": s["skill"]} for i, s in enumerate(seats)))
    st = game_streams(seed, index, len(seats))
    spent = [0.0]
    agents = [_Timed(make_agent(GAME, s["agent"], {}, seat=i, rng=st.seats[i], config=cfg), spent)
              for i, s in enumerate(seats)]
    t0, s0, b0, w0 = time.perf_counter(), stepping_wall_s(), building_wall_s(), table_wall_s()
    s = play(GAME, cfg, agents, st.chance).state
    return (time.perf_counter() - t0, stepping_wall_s() - s0, s.length(), building_wall_s() - b0,
            table_wall_s() - w0, spent[0])


def rules_playouts(games: int = 5, first: int = 0) -> tuple[float, float]:
    """(actions per second, games per second) of random playouts on the scripted table, the games
    seeded ``first`` to ``first + games - 1``."""
    n_actions = 0
    # the generators are made before the clock starts: the first one imports numpy.random (about
    # 10 ms, once per process), which is no part of the rules' speed
    rngs = [np.random.default_rng(g) for g in range(first, first + games)]
    t0 = time.perf_counter()
    for g in range(games):
        # every step counts, chance included; the state is made in the clock, as before
        n_actions += play_random(GAME, None, rngs[g], state=SunState.new(2), leads=False).steps
    dt = time.perf_counter() - t0
    return n_actions / dt, games / dt


def benchmarks(quick: bool = False) -> list[dict]:
    """``game_s`` (median of 3 or 7 games) and the rules-only playout rates."""
    _ = whole_game(99)  # warm-up: imports, PyBullet connection
    games, cpu = [], []
    for i in range(3 if quick else 7):
        # CPU seconds beside the wall ones: PyBullet, the rules and the agents run on this one
        # thread, and on a shared machine the CPU time is what the load does not inflate
        c0 = time.process_time()
        games.append(whole_game(i))
        cpu.append(time.process_time() - c0)
    # warm-up on other seeds (the first playouts of a process run about 13 % slower: memos and
    # caches are being filled), then 20 games: a steadier figure than 5 (games differ in length)
    _ = rules_playouts(2, first=1000)
    aps, gps = rules_playouts(4 if quick else 20)
    n = len(games)
    step_s, build_s, table_s, agents_s = (sum(g[k] for g in games) / n for k in (1, 3, 4, 5))
    game_mean = sum(g[0] for g in games) / n
    split = [  # where a game's wall time goes, seconds per game (mean of the same games)
        ("game_stepping_s", step_s, "inside stepSimulation"),
        ("game_build_s", build_s, "loading PyBullet worlds from the poses"),
        ("game_table_other_s", table_s - step_s - build_s,
         "the rest of the table's place and throw: the active set, contact watch, rest checks, read-back, judging"),
        ("game_rules_s", game_mean - table_s - agents_s,
         "the remainder: the game less the table and the agents (the rules' apply_action, legal_actions, "
         "observations, and the play loop and stream draws)"),
        ("game_agents_s", agents_s, "inside the agents' act"),
    ]
    return [
        {"game": "sun", "metric": "game_s", "value": statistics.median(g[0] for g in games), "unit": "s",
         "note": "whole 2-player game, 32 stones, fast preset, careful vs aggressive, casual hands, one core (median)"},
        {"game": "sun", "metric": "game_cpu_s", "value": statistics.median(cpu), "unit": "s",
         "note": "the same games in CPU seconds of this process (median): the figure to compare on a loaded machine"},
        {"game": "sun", "metric": "game_overhead_ratio", "value": sum(g[0] for g in games) / sum(g[1] for g in games),
         "unit": "ratio", "note": "wall time of those games / wall time inside stepSimulation in them"},
        {"game": "sun", "metric": "game_world_build_ratio", "value": sum(g[3] for g in games) / sum(g[1] for g in games),
         "unit": "ratio", "note": "wall time building PyBullet worlds from poses in those games / their stepping time"},
        {"game": "sun", "metric": "game_table_ratio", "value": sum(g[4] for g in games) / sum(g[1] for g in games),
         "unit": "ratio", "note": "wall time inside the table's place and throw in those games / their stepping time "
                                  "(game_overhead_ratio's floor with free rules and agents)"},
        *({"game": "sun", "metric": m, "value": v, "unit": "s", "note": f"{note}, seconds per game (mean)"}
          for m, v, note in split),
        {"game": "sun", "metric": "rules_actions_per_s", "value": aps, "unit": "actions/s",
         "note": "random playouts of the rules on the scripted table (no physics)"},
        {"game": "sun", "metric": "rules_games_per_s", "value": gps, "unit": "games/s"},
    ]


if __name__ == "__main__":
    for row in benchmarks():
        print(row)
