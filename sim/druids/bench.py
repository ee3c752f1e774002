"""Speed figures of the druid game for ``stonelab bench`` (one core, medians of several runs).

* ``actions_per_s`` / ``games_per_s``: random playouts from the initial state (legal_actions, a
  seeded ``numpy`` choice, apply_action; claims included), default rules. Goal: >= 50,000 actions/s.
* ``facedown_actions_per_s``: the same in the face-down variant.
* ``clone_per_s``, ``determinize_per_s``: what tree search pays per iteration (mid-game position).
* ``mcts_iterations_per_s``: the shared MCTS agent's iterations on the opening position.
* ``greedy_decisions_per_s``: the greedy agent's decisions on the opening position.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable, cast

import numpy as np

from sim.core.agents import make_agent
from sim.core.play import play_random
from sim.druids.game import GAME
from sim.druids.rules import DruidsState


def _rate(work: Callable[[], int], seconds: float, repeats: int) -> tuple[float, float]:
    """Median (units/s, calls/s) over ``repeats`` runs of about ``seconds``."""
    units_rates, calls_rates = [], []
    for _ in range(repeats):
        units = calls = 0
        t0 = time.perf_counter()
        while True:
            units += work()
            calls += 1
            dt = time.perf_counter() - t0
            if dt >= seconds:
                break
        units_rates.append(units / dt)
        calls_rates.append(calls / dt)
    return statistics.median(units_rates), statistics.median(calls_rates)


def _mid_game(rules: dict[str, Any], seed: int = 3, plies: int = 8) -> DruidsState:
    return cast(DruidsState, play_random(GAME, GAME.config(2, **rules), np.random.default_rng(seed), steps=plies).state)


def benchmarks(quick: bool = False) -> list[dict[str, Any]]:
    """The figures listed in the module docstring, as ``{"game", "metric", "value", "unit"}``."""
    seconds, repeats = (0.3, 3) if quick else (1.0, 5)
    out: list[dict[str, Any]] = []

    def add(metric: str, value: float, unit: str) -> None:
        out.append({"game": "druids", "metric": metric, "value": float(value), "unit": unit})

    for rules, prefix in (({}, ""), ({"face_down": True}, "facedown_")):
        config = GAME.config(2, **rules)
        rng = np.random.default_rng(12345)
        aps, gps = _rate(lambda: play_random(GAME, config, rng, leads=False).steps, seconds, repeats)
        add(f"{prefix}actions_per_s", aps, "actions/s")
        add(f"{prefix}games_per_s", gps, "games/s")

    mid = _mid_game({})
    add("clone_per_s", _rate(lambda: (mid.clone(), 1)[1], seconds / 2, repeats)[0], "clones/s")
    obs = _mid_game({"face_down": True}).observation(0)
    drng = np.random.default_rng(7)
    add("determinize_per_s", _rate(lambda: (GAME.determinize(obs, drng), 1)[1], seconds / 2, repeats)[0], "states/s")

    config = GAME.config(2)
    start = GAME.new_initial_state(config)
    iters = 100 if quick else 300
    mcts = make_agent(GAME, "mcts", {"iterations": iters}, seat=0, rng=np.random.default_rng(1), config=config)
    ips, _ = _rate(lambda: (mcts.act(start.observation(0), start.legal_actions()), iters)[1], seconds, 1 if quick else 3)
    add("mcts_iterations_per_s", ips, "iterations/s")
    greedy = make_agent(GAME, "greedy", {}, seat=0, rng=np.random.default_rng(1), config=config)
    add(
        "greedy_decisions_per_s",
        _rate(lambda: (greedy.act(start.observation(0), start.legal_actions()), 1)[1], seconds / 2, repeats)[0],
        "decisions/s",
    )
    return out


if __name__ == "__main__":  # pragma: no cover - manual use: python -m sim.druids.bench
    for r in benchmarks():
        print(f"{r['metric']:>26}: {r['value']:12,.0f} {r['unit']}")
