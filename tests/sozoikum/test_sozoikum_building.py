"""Building through the rules: roles, the build verdict, winning, collapses, store details."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sozoikum_helpers import draw, fresh, give

from sim.core.errors import IllegalActionError
from sim.core.game import CHANCE
from sim.sozoikum import actions as A
from sim.sozoikum import physics as P
from sim.sozoikum import rules as R
from sim.sozoikum.agents import assignments, simulate_plan
from sim.sozoikum.game import GAME
from sim.sozoikum.options import SozoikumOptions
from sim.sozoikum.shapes import stone_info
from sim.sozoikum.rules import SozoikumEnd


def standing_seeds(skill: float = 1.0) -> tuple[int, ...]:
    """The first five shape seeds (from 0 up) whose best-rated house stands at ``skill``."""
    rules = SozoikumOptions.from_rules({})
    for base in itertools.count(0, 5):
        seeds = tuple(range(base, base + 5))
        s = fresh(2, skills=skill)
        give(s, 0, *seeds)
        plan = assignments(s, s.reserve[0])[0][1]
        if P.build_from_seeds([s.stones[i] for i in plan], skill, 1, rules).stood:
            return tuple(s.stones[i] for i in plan)
    raise AssertionError("unreachable")


def at_building(seeds: tuple[int, ...], skill: float = 1.0) -> R.SozoikumState:
    """Two players, no cards, hidden bid; seat 0 holds ``seeds``; seat 1 wins the fire; seat 0 to
    decide whether to build."""
    s = fresh(2, skills=skill, card_play="never", gathering_rules=["hidden"])
    give(s, 0, *seeds)
    draw(s, 1000, 1001)
    s.apply_actions({0: A.Sealed(0), 1: A.Sealed(1)})
    assert s.phase == "decide" and s.current_player() == 0
    return s


def test_a_standing_house_wins_and_records_the_round() -> None:
    seeds = standing_seeds()
    s = at_building(seeds)
    s.apply_action(A.BuildChoice(True))
    for role, stone in zip(P.ROLES, range(5)):
        assert A.Place(role, stone) in s.legal_actions()
        s.apply_action(A.Place(role, stone))
    assert s.current_player() == CHANCE
    s.apply_action(A.BuildNoise(1))
    assert s.is_terminal() and s.outcome().winners == (0,)
    assert s.outcome().termination is SozoikumEnd.HOUSE
    d = GAME.details(s)
    assert d.columns["house_round"] == 1 and d.columns["builder"] == 0
    assert d.columns["build_attempts"] == 1 and d.columns["collapses"] == 0
    assert d.rows["builds"][0]["stood"] == 1
    assert d.rows["builds"][0]["stones"] == ".".join(map(str, seeds))
    assert d.columns["gems_spent_1"] == 1 and d.columns["gems_spent_2"] is None


def test_a_standing_house_of_bag_stones_stays_still_for_30_seconds() -> None:
    seeds = standing_seeds()
    rules = SozoikumOptions.from_rules({})
    settled = P.build_from_seeds(seeds, 1.0, 1, rules)
    held = P.build_from_seeds(seeds, 1.0, 1, rules, hold_time=30.0)
    assert held.stood
    assert max(abs(a.x - b.x) + abs(a.y - b.y) for a, b in zip(settled.final, held.final)) < 0.05


def test_a_collapse_costs_the_turn_only() -> None:
    seeds = standing_seeds()
    s = at_building(seeds)
    s.apply_action(A.BuildChoice(True))
    # a bad house: the worst-rated assignment that the physics lets fall with noise seed 7
    for _, plan in reversed(assignments(s, s.reserve[0])):
        res = P.build_from_seeds([s.stones[i] for i in plan], 1.0, 7, s.options)
        if not res.stood:
            break
    for role, stone in zip(P.ROLES, plan):
        s.apply_action(A.Place(role, stone))
    stones_before = list(s.reserve[0])
    gems_before = list(s.gems)
    s.apply_action(A.BuildNoise(7))
    assert s.attempts[0] == 1
    assert not res.stood
    assert s.collapses[0] == 1 and not s.is_terminal()
    assert s.reserve[0] == stones_before and s.gems == gems_before
    assert s.round == 2 and s.log[0][3] == 0 and s.log[0][4] == pytest.approx(res.max_displacement, abs=1e-4)


def test_place_roles_in_order_and_only_own_stones() -> None:
    s = at_building(standing_seeds())
    s.apply_action(A.BuildChoice(True))
    with pytest.raises(IllegalActionError):
        s.apply_action(A.Place("roof", 0))
    with pytest.raises(IllegalActionError):
        s.apply_action(A.Place("A1", 5))  # seat 1's stone
    s.apply_action(A.Place("A1", 0))
    with pytest.raises(IllegalActionError):
        s.apply_action(A.Place("A2", 0))  # already placed


def test_no_build_passes_the_turn() -> None:
    s = at_building(standing_seeds())
    s.apply_action(A.BuildChoice(False))
    assert s.round == 2 and s.attempts == [0, 0]


def test_fewer_than_five_stones_cannot_build() -> None:
    s = fresh(2, card_play="never", gathering_rules=["hidden"])
    give(s, 0, 1, 2, 3, 4)
    draw(s, 5, 6)
    s.apply_actions({0: A.Sealed(0), 1: A.Sealed(1)})
    assert s.round == 2 and s.phase == "draw"


def test_first_successful_builder_in_turn_order_wins() -> None:
    seeds = standing_seeds()
    s = fresh(2, skills=1.0, card_play="never", gathering_rules=["hidden"])
    give(s, 1, *seeds)
    give(s, 0, *seeds)
    draw(s, 1000, 1001)
    s.apply_actions({0: A.Sealed(0), 1: A.Sealed(1)})
    assert s.current_player() == 0  # seat 0 starts round 1, so it builds first
    s.apply_action(A.BuildChoice(True))
    for role, stone in zip(P.ROLES, range(5, 10)):
        s.apply_action(A.Place(role, stone))
    s.apply_action(A.BuildNoise(1))
    assert s.outcome().winners == (0,) and s.attempts == [1, 0]


def test_a_search_state_uses_the_quick_verdict() -> None:
    s = at_building(standing_seeds())
    s.physics = P.QUICK_HOUSE  # what the ismcts agent's determinized states are judged by
    s.apply_action(A.BuildChoice(True))
    for role, stone in zip(P.ROLES, range(5)):
        s.apply_action(A.Place(role, stone))
    s.apply_action(A.BuildNoise(3))
    infos = [stone_info(s.stones[i], s.options.stone_size_min, s.options.stone_size_max) for i in range(5)]
    stood = P.quick_verdict(infos, s.skills[0], 3, s.options.wall_gap)
    assert s.log[0][4] == -1.0 and s.log[0][3] == int(stood)


def test_assignments_cover_every_role_split() -> None:
    s = fresh(2)
    give(s, 0, *range(5))
    plans = assignments(s, s.reserve[0])
    assert len(plans) == 60
    assert all(sorted(p) == [0, 1, 2, 3, 4] for _, p in plans)
    assert plans[0][0] >= plans[-1][0]


def test_builder_plan_is_a_valid_assignment() -> None:
    s = fresh(2)
    give(s, 0, *range(6))
    plan = simulate_plan(s, 0, np.random.default_rng(0), candidates=3, sims=1)
    assert len(set(plan)) == 5 and set(plan) <= set(range(6))


def test_round_cap_is_a_draw() -> None:
    s = fresh(2, max_rounds=1, card_play="never", gathering_rules=["hidden"])
    draw(s, 1, 2)
    s.apply_actions({0: A.Sealed(1), 1: A.Sealed(1)})
    s.apply_action(A.Pick(0))
    s.apply_action(A.Pick(1))
    assert s.is_terminal() and s.outcome().termination is SozoikumEnd.ROUND_CAP == "round_cap" and s.outcome().winners == ()
    assert s.returns() == (0.5, 0.5)
    assert GAME.details(s).columns["house_round"] is None


def test_rules_judge_houses_only_through_the_physics_protocol() -> None:
    """With the test double: the rules hand over the stones in role order, the builder's skill and
    the noise seed, and act on the verdict (a collapse costs the turn, a standing house wins)."""
    phys = P.ScriptedHouse(stands=[1], fall_cm=3.5)
    s = R.SozoikumState.new(2, {"card_play": "never", "gathering_rules": ["hidden"]}, [0.6, 0.9], physics=phys)
    give(s, 0, 101, 102, 103, 104, 105)
    give(s, 1, 201, 202, 203, 204, 205)
    draw(s, 1000, 1001)
    s.apply_actions({0: A.Sealed(0), 1: A.Sealed(1)})
    assert s.clone().physics is phys
    s.apply_action(A.BuildChoice(True))
    for role, stone in zip(P.ROLES, (4, 3, 2, 1, 0)):
        s.apply_action(A.Place(role, stone))
    s.apply_action(A.BuildNoise(7))
    assert phys.calls == [((105, 104, 103, 102, 101), 0.6, 7)]
    assert s.collapses == [1, 0] and not s.is_terminal() and s.log[0][3:5] == (0, 3.5)
    assert s.current_player() == 1  # the next builder of the round
    s.apply_action(A.BuildChoice(True))
    for role, stone in zip(P.ROLES, range(5, 10)):
        s.apply_action(A.Place(role, stone))
    s.apply_action(A.BuildNoise(8))
    assert phys.calls[1] == ((201, 202, 203, 204, 205), 0.9, 8)
    assert s.is_terminal() and s.outcome().winners == (1,) and s.outcome().termination is SozoikumEnd.HOUSE


def test_the_game_judges_with_the_pymunk_house() -> None:
    s = GAME.new_initial_state(GAME.config(2))
    assert isinstance(s.physics, P.PymunkHouse)
    seeds, skill, seed = (1564205098, 1801909167, 3208026798, 3411832287, 683127711), 0.834, 1765437307
    v = s.physics.build(seeds, skill, seed, s.options)
    assert not v.stood and v.reason == P.build_from_seeds(seeds, skill, seed, s.options).reason
