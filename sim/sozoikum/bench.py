"""Sozoikum performance figures for ``stonelab bench`` (one core, medians of several runs).

* ``actions_per_s`` / ``games_per_s``: random playouts on the state interface (legal actions, a
  seeded uniform choice, apply; simultaneous steps as one joint action; chance sampled with
  ``sample_chance``), 2 players as the generic bench. Every applied step counts, chance included.
  Random games build houses with random stone assignments, so pymunk builds are part of the cost.
* ``actions_per_s_4p``, ``games_per_s_4p``: the same with 4 players.
* ``house_builds_per_s``: pymunk builds of five stones drawn from the bag (default rules, skill 0.7,
  random role assignment; shapes cached as in a game).
* ``house_stand_rate_random`` / ``house_stand_rate_best``: share of those builds that stand, with a
  random assignment and with the assignment ``house.house_quality`` rates best.
* ``house_verdict_agreement`` / ``house_reference_time_ratio``: :func:`verdict_agreement` on the
  random assignments, random skills in [0.3, 1] (the game's verdict against the at-rest reference,
  and how much longer the reference takes).
* ``builder_decisions_per_s`` (house choice by 6 candidates x 3 simulated builds) and
  ``ismcts_decision_s`` (seconds per ISMCTS card decision, 100 iterations, 4 players).
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Sequence, cast

import numpy as np

from sim.core.agents import make_agent
from sim.core.game import SIMULTANEOUS
from sim.core.play import FirstAgent, play, play_random
from sim.sozoikum.agents import assignments, simulate_plan
from sim.sozoikum.game import GAME
from sim.sozoikum.house import build_house, reference_params
from sim.sozoikum.options import SozoikumOptions
from sim.sozoikum.physics import build_from_seeds, house_params
from sim.sozoikum.rules import NOISE_BOUND, SozoikumState
from sim.sozoikum.shapes import stone_shape


def random_playout(num_players: int, seed: int) -> tuple[int, SozoikumState]:
    """One random game; returns (steps applied incl. chance, final state)."""
    played = play_random(GAME, GAME.config(num_players), np.random.default_rng(seed), leads=False)
    return played.steps, cast(SozoikumState, played.state)


def _playouts(players: int, seconds: float, repeats: int) -> tuple[float, float]:
    aps, gps = [], []
    seed = 0
    for _ in range(repeats):
        acts = games = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            a, _ = random_playout(players, seed)
            acts, games, seed = acts + a, games + 1, seed + 1
        dt = time.perf_counter() - t0
        aps.append(acts / dt)
        gps.append(games / dt)
    return statistics.median(aps), statistics.median(gps)


def _houses(count: int, seed: int) -> tuple[list[tuple], list[tuple]]:
    """``count`` random and best-rated assignments of five bag stones (shape seeds)."""
    rng = np.random.default_rng(seed)
    rand, best = [], []
    for _ in range(count):
        s = SozoikumState.new(2, {}, [0.7, 0.7])
        for x in rng.integers(0, 2**32, 5):
            s.stones.append(int(x))
            s.reserve[0].append(len(s.stones) - 1)
        plans = assignments(s, s.reserve[0])
        pick = plans[int(rng.integers(len(plans)))][1]
        rand.append(tuple(s.stones[i] for i in pick))
        best.append(tuple(s.stones[i] for i in plans[0][1]))
    return rand, best


def verdict_agreement(houses: Sequence[tuple[int, ...]], seed: int = 7) -> dict[str, float]:
    """The game's house verdict against the at-rest reference on ``houses`` (shape seeds in role
    order), each built once with a skill uniform in [0.3, 1] and a noise seed from
    ``default_rng(seed)``.

    The reference simulates every phase to rest with no early stop and four times the caps
    (``house.reference_params``, ``stop_on_fall=False``). Returns ``builds``, ``agree`` (share of
    equal verdicts), ``stood`` / ``stood_reference`` (shares), ``quick_s`` / ``reference_s`` (CPU
    seconds for all builds, shapes excluded) and ``not_at_rest`` (reference builds that hit a cap).
    """
    rules = SozoikumOptions.from_rules({})
    params = house_params(rules)
    ref_params = reference_params(params)
    rng = np.random.default_rng(seed)
    agree = stood = stood_ref = not_at_rest = 0
    quick_s = ref_s = 0.0
    for h in houses:
        skill, noise = float(rng.uniform(0.3, 1.0)), int(rng.integers(NOISE_BOUND))
        stones = [stone_shape(x, rules.stone_size_min, rules.stone_size_max) for x in h]
        t0 = time.process_time()
        q = build_house(stones, skill, noise, params)
        t1 = time.process_time()
        r = build_house(stones, skill, noise, ref_params, stop_on_fall=False)
        t2 = time.process_time()
        quick_s, ref_s = quick_s + t1 - t0, ref_s + t2 - t1
        agree += q.stood == r.stood
        stood += q.stood
        stood_ref += r.stood
        not_at_rest += not r.at_rest
    n = max(1, len(houses))
    return {
        "builds": float(len(houses)),
        "agree": agree / n,
        "stood": stood / n,
        "stood_reference": stood_ref / n,
        "quick_s": quick_s,
        "reference_s": ref_s,
        "not_at_rest": float(not_at_rest),
    }


def benchmarks(quick: bool = False) -> list[dict[str, Any]]:
    """All Sozoikum figures (see the module docstring)."""
    seconds, repeats = (0.3, 3) if quick else (1.0, 5)
    out: list[dict[str, Any]] = []

    def add(metric: str, value: float, unit: str) -> None:
        out.append({"game": "sozoikum", "metric": metric, "value": float(value), "unit": unit})

    aps, gps = _playouts(2, seconds, repeats)
    add("actions_per_s", aps, "actions/s")
    add("games_per_s", gps, "games/s")
    aps4, gps4 = _playouts(4, seconds, repeats)
    add("actions_per_s_4p", aps4, "actions/s")
    add("games_per_s_4p", gps4, "games/s")

    rules = SozoikumOptions.from_rules({})
    n = 40 if quick else 150
    rand, best = _houses(n, 11)
    for h in rand + best:  # shapes are cached in a game too: exclude their generation
        for x in h:
            stone_shape(x, rules.stone_size_min, rules.stone_size_max)
    rates, stood_r, stood_b = [], 0, 0
    for rep in range(repeats):
        t0 = time.perf_counter()
        for k, h in enumerate(rand):
            st = build_from_seeds(h, 0.7, k, rules).stood
            stood_r += st if rep == 0 else 0
        rates.append(len(rand) / (time.perf_counter() - t0))
    stood_b = sum(build_from_seeds(h, 0.7, k, rules).stood for k, h in enumerate(best))
    add("house_builds_per_s", statistics.median(rates), "builds/s")
    add("house_stand_rate_random", stood_r / len(rand), "share")
    add("house_stand_rate_best", stood_b / len(best), "share")
    va = verdict_agreement(rand)
    add("house_verdict_agreement", va["agree"], "share")
    add("house_reference_time_ratio", va["reference_s"] / max(va["quick_s"], 1e-9), "x")

    # the builder's simulated house choice, six stones
    times = []
    for rep in range(repeats):
        s = SozoikumState.new(2, {}, [0.7, 0.7])
        for x in np.random.default_rng(100 + rep).integers(0, 2**32, 6):
            s.stones.append(int(x))
            s.reserve[0].append(len(s.stones) - 1)
        t0 = time.perf_counter()
        simulate_plan(s, 0, np.random.default_rng(rep), candidates=6, sims=3)
        times.append(time.perf_counter() - t0)
    add("builder_decisions_per_s", 1.0 / statistics.median(times), "decisions/s")

    # one ISMCTS card decision, 4 players, round 1
    cfg = GAME.config(4)
    times = []
    for rep in range(1 if quick else 3):
        # the deal and set-up, first legal choices, up to the first card play
        first_play = play(GAME, cfg, [FirstAgent()] * 4, np.random.default_rng(rep),
                          until=lambda st: st.current_player() == SIMULTANEOUS).state
        agent = make_agent(GAME, "ismcts", {"iterations": 100}, seat=0, rng=np.random.default_rng(rep), config=cfg)
        t0 = time.perf_counter()
        agent.act(first_play.observation(0), first_play.legal_actions(0))
        times.append(time.perf_counter() - t0)
    add("ismcts_decision_s", statistics.median(times), "s")
    return out
