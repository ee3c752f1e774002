"""The core interface on the toy game: generic invariants, seeding, MCTS against known theory."""

from __future__ import annotations

import numpy as np
import pytest

from sim.core.agents import make_agent
from sim.core.errors import IllegalActionError
from sim.core.game import Outcome, Termination
from sim.core.play import play
from sim.core.seeding import game_streams, stream
from sim.core.testing import random_sim_test
from toy_game import GAME, Add


@pytest.mark.parametrize("coin", [False, True])
@pytest.mark.parametrize("players", [2, 3])
def test_toy_game_passes_generic_suite(coin: bool, players: int) -> None:
    for seed in range(5):
        end = random_sim_test(GAME, GAME.config(players, coin=coin), seed)
        assert end.is_terminal() and end.total >= 10


def test_illegal_action_names_action_seat_and_state() -> None:
    s = GAME.new_initial_state(GAME.config(2))
    with pytest.raises(IllegalActionError) as e:
        s.apply_action(Add(3))
    msg = str(e.value)
    assert "Add(3)" in msg and "seat 0" in msg and s.to_notation() in msg
    assert s.total == 0


class _End(Termination):
    NORMAL = "normal"
    TURN_CAP = "turn_cap"


def test_outcome_returns() -> None:
    assert Outcome(_End.NORMAL, (1,), (0, 1, 0)).returns() == (0.0, 1.0, 0.0)
    assert Outcome(_End.NORMAL, (0, 2), (1, 0, 1)).returns() == (0.5, 0.0, 0.5)
    assert Outcome(_End.TURN_CAP, (), (0, 0)).returns() == (0.5, 0.5)


def test_outcome_termination_is_an_ending_member() -> None:
    # a bare string is refused: every ending is a member of a declared enum, stored as its value
    with pytest.raises(TypeError, match="Termination member"):
        Outcome("normal", (1,), (0, 1))  # type: ignore[arg-type]
    assert Outcome(_End.TURN_CAP, (), (0, 0)).termination == "turn_cap"


def test_streams_depend_only_on_root_and_index() -> None:
    a = game_streams(42, 7, 3)
    b = game_streams(42, 7, 2)  # fewer seats: the shared streams are the same
    assert a.chance.integers(1 << 60) == b.chance.integers(1 << 60)
    assert a.seats[1].integers(1 << 60) == b.seats[1].integers(1 << 60)
    x = stream(42, 7, 0).integers(1 << 60, size=4)
    y = stream(42, 8, 0).integers(1 << 60, size=4)
    z = stream(43, 7, 0).integers(1 << 60, size=4)
    assert not np.array_equal(x, y) and not np.array_equal(x, z)


@pytest.mark.parametrize("total, best", [(8, 2), (9, 1), (5, 2), (6, 1)])
def test_mcts_finds_the_theoretical_winning_move(total: int, best: int) -> None:
    # target 10, two players: move to a total of 10, 7, 4 or 1 (10 mod 3) to win
    cfg = GAME.config(2)
    s = GAME.new_initial_state(cfg)
    s.total = total
    agent = make_agent(GAME, "mcts", {"iterations": 400}, seat=0, rng=np.random.default_rng(1), config=cfg)
    assert agent.act(s.observation(0), s.legal_actions()) == Add(best)


def test_ismcts_with_chance_beats_random() -> None:
    cfg = GAME.config(2, coin=True, target=21)
    wins = 0
    for g in range(30):
        streams = game_streams(5, g, 2)
        agents = [
            make_agent(GAME, "ismcts", {"iterations": 150}, seat=0, rng=streams.seats[0], config=cfg),
            make_agent(GAME, "random", {}, seat=1, rng=streams.seats[1], config=cfg),
        ]
        s = play(GAME, cfg, agents, streams.chance).state
        wins += s.outcome().winners == (0,)
    assert wins >= 20, wins


def test_cut_rollout_is_won_by_the_running_leader() -> None:
    from sim.core.mcts import _cut_returns

    s = GAME.new_initial_state(GAME.config(3))
    s.to_move = 2  # the toy game's provisional score: 1 for the seat to move
    assert _cut_returns(s) == (0.0, 0.0, 1.0)

    class NoScore(type(s)):
        def provisional_scores(self):  # noqa: ANN202
            return None

    t = NoScore(3, 10, False)
    assert _cut_returns(t) == (1 / 3, 1 / 3, 1 / 3)


def test_mcts_with_a_rollout_agent_still_finds_the_winning_move() -> None:
    cfg = GAME.config(2)
    s = GAME.new_initial_state(cfg)
    s.total = 5
    agent = make_agent(
        GAME, "mcts", {"iterations": 400, "rollout_agent": "random", "rollout_limit": 3}, seat=0,
        rng=np.random.default_rng(2), config=cfg,
    )
    assert agent.act(s.observation(0), s.legal_actions()) == Add(2)
