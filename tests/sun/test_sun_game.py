"""The sun game bound to the real PyBullet table: spec, agents, whole seeded games (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.core.agents import make_agent
from sim.core.game import CHANCE
from sim.core.seeding import game_streams
from sim.sun.game import GAME, thrower_of
from sim.sun.thrower import SKILLS


def _play(agent: str, seed: int = 5, players: int = 2, upto: int | None = None):
    cfg = GAME.config(players)
    st = game_streams(seed, 0, players)
    agents = [make_agent(GAME, agent, {}, seat=i, rng=st.seats[i], config=cfg) for i in range(players)]
    s = GAME.new_initial_state(cfg)
    steps = 0
    while not s.is_terminal() and (upto is None or steps < upto):
        p = s.current_player()
        if p == CHANCE:
            s.apply_action(s.sample_chance(st.chance))
        else:
            s.apply_action(agents[p].act(s.observation(p), s.legal_actions(p)))
        steps += 1
    return s, st, agents


def test_spec_and_seat_skill():
    assert GAME.spec.name == "sun" and GAME.spec.has_chance
    assert {"random", "careful", "planner"} <= set(GAME.agents)
    assert thrower_of({"skill": "expert", "sigma_aim_deg": -1.0}) == SKILLS["expert"]  # -1: the level's own
    assert thrower_of({"skill": "expert", "sigma_aim_deg": 3.0}).sigma_aim_deg == 3.0
    s = GAME.new_initial_state(GAME.config(3))
    assert s.current_player() == 0 and len(s.markers) == 3


def test_notation_of_a_fresh_game_round_trips():
    s = GAME.new_initial_state(GAME.config(2, mode="orbit", field="random"))
    assert GAME.from_notation(s.to_notation()).to_notation() == s.to_notation()


@pytest.mark.slow
def test_whole_seeded_game_is_identical_when_run_twice():
    a, _, _ = _play("careful")
    b, _, _ = _play("careful")
    assert a.is_terminal()
    assert a.history() == b.history()
    assert a.to_notation() == b.to_notation()
    assert [r["causes"] for r in a.passes] == [r["causes"] for r in b.passes]
    d = GAME.details(a)
    assert d.columns["passes"] == len(d.rows["passes"]) > 0


@pytest.mark.slow
def test_continuing_from_the_notation_is_exact():
    s, st, agents = _play("random", seed=11, upto=60)
    twin = GAME.from_notation(s.to_notation())
    rng_a = np.random.default_rng(1)
    rng_b = np.random.default_rng(1)
    for _ in range(30):
        if s.is_terminal():
            break
        if s.current_player() == CHANCE:
            x = s.sample_chance(rng_a)
            assert twin.sample_chance(rng_b) == x
        else:
            legal = s.legal_actions()
            assert twin.legal_actions() == legal
            x = legal[0]
        s.apply_action(x)
        twin.apply_action(x)
        assert twin.to_notation() == s.to_notation()


@pytest.mark.slow
def test_planner_runs_a_turn():
    s, _, _ = _play("random", seed=2, upto=25)
    if s.is_terminal():
        pytest.skip("game ended early")
    cfg = GAME.config(2)
    p = s.current_player()
    while p == CHANCE:
        s.apply_action(s.sample_chance(np.random.default_rng(0)))
        p = s.current_player()
    agent = make_agent(GAME, "planner", {"candidates": 2, "samples": 1}, seat=p, rng=np.random.default_rng(0), config=cfg)
    before = s.to_notation()
    a = agent.act(s.observation(p), s.legal_actions(p))
    assert s.to_notation() == before  # planning on copies leaves the game alone
    s.apply_action(a)
