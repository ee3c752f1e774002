"""The generic suite every registered game passes: seeded random games with invariants checked at
every step (sim.core.testing.random_sim_test), and same seed, same game."""

from __future__ import annotations

import pytest

from sim.core.game import Termination
from sim.core.testing import random_sim_test
from sim.games import REGISTRY, game_names, get_game

# Games whose plug-in declares them slow (physics) are expensive per step: fewer games, checks
# spaced out, marked slow.
SLOW_GAMES = {n for n in game_names() if REGISTRY.plugin(n).slow}


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
        out = final.outcome()
        # a member of the game's own ending enum, not merely an equal string
        assert out is not None and isinstance(out.termination, spec.terminations), (
            f"{name}: termination {out and out.termination!r} is not a member of the declared "
            f"{spec.terminations.__name__} {sorted(spec.termination_values())}")


@pytest.mark.parametrize("name", game_names())
def test_the_game_declares_its_endings_and_score(name: str) -> None:
    """Every game names its ways to end (a Termination subclass with members, python-chess style)
    and what its score counts; each ending's value is a short snake_case word the store keeps."""
    spec = get_game(name).spec
    assert issubclass(spec.terminations, Termination) and spec.terminations is not Termination
    values = spec.termination_values()
    assert values and all(v.isidentifier() and v == v.lower() for v in values)
    assert spec.score_unit.strip()


@pytest.mark.parametrize("name", _params())
def test_same_seed_same_game(name: str) -> None:
    game = get_game(name)
    players = game.spec.min_players
    a = random_sim_test(game, game.config(players), seed=7, check_every=10_000)
    b = random_sim_test(game, game.config(players), seed=7, check_every=10_000)
    assert a.history() == b.history()
    assert a.outcome() == b.outcome()


@pytest.mark.parametrize("name", [n for n in game_names() if n not in SLOW_GAMES])
def test_search_with_the_games_greedy_rollouts_picks_a_legal_action(name: str) -> None:
    """`rollout_agent = "greedy"`: the shared search plays its rollouts with the game's own agent."""
    import numpy as np

    from sim.core.agents import make_agent
    from sim.core.play import FirstAgent, play

    game = get_game(name)
    if "greedy" not in game.agents or "ismcts" not in game.agents:
        pytest.skip("no greedy or ismcts agent")
    cfg = game.config(game.spec.min_players)
    rng = np.random.default_rng(3)
    state = game.new_initial_state(cfg)
    # chance and simultaneous set-up steps through the shared loop, up to the first decision
    state = play(game, cfg, [FirstAgent()] * cfg.num_players, rng, state=state, leads=False,
                 until=lambda st: st.current_player() >= 0 or st.is_terminal()).state
    seat = state.current_player()
    agent = make_agent(game, "ismcts", {"iterations": 20, "rollout_agent": "greedy", "rollout_limit": 30},
                       seat=seat, rng=rng, config=cfg)
    assert getattr(agent, "search", agent)._policy is not None  # sozoikum wraps the shared search
    legal = state.legal_actions(seat)
    assert agent.act(state.observation(seat), legal) in legal


@pytest.mark.parametrize("name", _params())
def test_every_agent_refuses_an_empty_choice_naming_its_seat(name: str) -> None:
    """An agent asked to act with no legal action (a caller's bug: a terminal or chance state) says
    so with its seat instead of failing somewhere inside its policy."""
    import numpy as np

    from sim.core.agents import make_agent

    game = get_game(name)
    config = game.config(game.spec.min_players)
    observation = game.new_initial_state(config).observation(1)
    for agent in game.agents:
        a = make_agent(game, agent, {}, seat=1, rng=np.random.default_rng(0), config=config)
        with pytest.raises(ValueError, match=r"seat 1: no legal action"):
            a.act(observation, [])
