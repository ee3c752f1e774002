"""The generic suite every registered game passes: seeded random games with invariants checked at
every step (sim.core.testing.random_sim_test), and same seed, same game."""

from __future__ import annotations

import pytest

from sim.core.testing import random_sim_test
from sim.games import game_names, get_game

# Physics-backed games are expensive per step: fewer games, checks spaced out, marked slow.
SLOW_GAMES = {"sun"}


def _params() -> list:
    out = []
    for name in game_names():
        marks = [pytest.mark.slow] if name in SLOW_GAMES else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("name", _params())
def test_random_games_keep_invariants(name: str) -> None:
    game = get_game(name)
    spec = game.spec
    games = 2 if name in SLOW_GAMES else 6
    for i in range(games):
        players = spec.min_players + i % (spec.max_players - spec.min_players + 1)
        final = random_sim_test(game, game.config(players), seed=1000 + i, check_every=1 if name not in SLOW_GAMES else 5)
        assert final.is_terminal()


@pytest.mark.parametrize("name", _params())
def test_same_seed_same_game(name: str) -> None:
    game = get_game(name)
    players = game.spec.min_players
    a = random_sim_test(game, game.config(players), seed=7, check_every=10_000)
    b = random_sim_test(game, game.config(players), seed=7, check_every=10_000)
    assert a.history() == b.history()
    assert a.outcome() == b.outcome()
