"""`stonelab bench`: performance figures, measured on one core, reported as medians.

For every game: random-playout speed (``actions_per_s``, ``games_per_s``), measured on the
state interface alone (legal actions, a seeded random choice, apply; chance sampled) so the
figure is the rules engine's. A game adds its own figures through the benchmarks its plug-in
declares (``GamePlugin.benches``: functions ``benchmarks(quick) -> list[dict]``), e.g. the Sun's
pass times and overhead ratio; a game declared ``slow`` (physics) gets no random-playout loop, its
own benchmarks cover it. Benchmarks are not timed tests: the machine is shared and noisy, so games
also report ratios against a baseline measured in the same run.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import numpy as np

from sim.core.game import Game
from sim.core.play import play_random
from sim.core.registry import resolve
from sim.games import REGISTRY


def random_playout(game: Game, num_players: int, seed: int) -> int:
    """Play one random game on the state interface (the shared loop, :func:`sim.core.play.play_random`);
    returns the number of steps applied (chance outcomes included: they are work the engine does)."""
    return play_random(game, game.config(num_players), np.random.default_rng(seed), leads=False).steps


def playout_speed(game: Game, *, seconds: float = 1.0, repeats: int = 5) -> list[dict[str, Any]]:
    """Random-playout speed of ``game``: medians over ``repeats`` runs of about ``seconds`` each."""
    players = game.spec.min_players
    aps, gps = [], []
    seed = 0
    for _ in range(repeats):
        actions = games = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            actions += random_playout(game, players, seed)
            games += 1
            seed += 1
        dt = time.perf_counter() - t0
        aps.append(actions / dt)
        gps.append(games / dt)
    name = game.spec.name
    return [
        {"game": name, "metric": "actions_per_s", "value": statistics.median(aps), "unit": "actions/s"},
        {"game": name, "metric": "games_per_s", "value": statistics.median(gps), "unit": "games/s"},
    ]


def run_benchmarks(names: list[str], *, quick: bool = False, progress: bool = True) -> list[dict[str, Any]]:
    """All figures for the named games (playout speed, then each game's own benchmarks).

    Raises:
        InputError: a name is not a registered game.
    """
    results: list[dict[str, Any]] = []
    for name in names:
        game = REGISTRY.get(name)
        plugin = REGISTRY.plugin(name)
        if progress:
            print(f"bench: {name} ...", file=sys.stderr, flush=True)
        own: list[dict[str, Any]] = []
        for ref in plugin.benches:
            # a bench that does not know its game's name (the viewer's) gets it here
            own += [{"game": name, **row} for row in resolve(ref)(quick=quick)]
        have = {r["metric"] for r in own}
        if not plugin.slow and "actions_per_s" not in have:
            results += playout_speed(game, seconds=0.3 if quick else 1.0, repeats=3 if quick else 5)
        results += own
    return results
