"""The exact legal stand angles (``SunState.stand_intervals``) against a brute-force sweep.

The engine's intervals are compared with the placement check itself at every 0.05 degrees for every
shape in the field, on positions taken from random games (2-4 players, standard and orbit mode,
open and random field) and from careful players' games, all on the scripted table (no physics).
Two failures are possible, and both are checked:

* the sweep finds a legal stand outside every interval (the engine would miss it, and could call a
  stalemate that is none), unless it lies within a hair (0.002 degrees) of an interval's end;
* an angle inside an interval fails the placement check.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable

import numpy as np
import pytest
from sun_variants import variant_state

from sim.core.game import GameConfig
from sim.core.play import PlayedGame, play, play_random
from sim.sun.actions import Stand
from sim.sun.agents.policies import AGENTS
from sim.sun.game import GAME
from sim.sun.rules.legality import check_marker_after, gate_candidates, stack_marker_fast
from sim.sun.physics import ScriptedTable
from sim.sun.geometry.ring import Geometry
from sim.sun.rules.state import SunState
from sim.sun.geometry.specs import TAU
from sim.sun.rules.stand_angles import check_stand
from sim.sun.players.thrower import SKILLS

G = Geometry()
STEP_DEG = 0.05
EDGE_DEG = 0.002


def _placements(player: Callable[..., PlayedGame], *args: Any, **kwargs: Any) -> list[SunState]:
    """Copies of the placement positions of the game ``player(*args, **kwargs)`` plays."""
    seen: list[SunState] = []
    player(*args, **kwargs, before_step=lambda st, _step: seen.append(st.clone()) if st.phase == "place" else None)
    return seen


def _random_positions(n_games: int, seed0: int = 100):
    for seed in range(seed0, seed0 + n_games):
        rng = np.random.default_rng(seed)
        s = variant_state(seed)
        yield from _placements(play_random, GAME, GameConfig(num_players=s.num_players), rng, state=s)


def _careful_positions(n_games: int):
    for k in range(n_games):
        cfg = GameConfig(num_players=2, seats=({"agent": "careful"}, {"agent": "careful"}))
        s = SunState.new(2, table=ScriptedTable(G), throwers=[SKILLS["steady"]] * 2)
        rng = np.random.default_rng(k)
        agents = [AGENTS["careful"].factory(game=GAME, seat=i, rng=np.random.default_rng(k * 10 + i), config=cfg)
                  for i in range(2)]
        yield from _placements(play, GAME, cfg, agents, rng, state=s)


def _inside(intervals: list[tuple[float, float]], a: float, pad: float) -> bool:
    return any((a - (lo - pad)) % TAU <= (hi - lo) + 2 * pad for lo, hi in intervals)


def _compare(s: SunState) -> int:
    """Check one position; returns the number of legal sweep angles found."""
    found = 0
    for shape in s.available_shapes():
        iv = s.stand_intervals(shape)
        for lo, hi in iv:
            assert lo <= hi
            for f in (0.0, 0.37, 0.5, 1.0):
                ang = math.degrees((lo + f * (hi - lo)) % TAU)
                assert check_stand(s.ctx, Stand(shape, ang)) is None, (s.to_notation(), shape, ang)
        for k in range(int(360 / STEP_DEG)):
            ang = k * STEP_DEG
            if check_stand(s.ctx, Stand(shape, ang)) is None:
                found += 1
                assert _inside(iv, math.radians(ang), math.radians(EDGE_DEG)), (s.to_notation(), shape, ang, iv)
        # the finite candidates offered to agents are legal and inside the intervals
        for ang in s.stand_samples(shape):
            assert check_stand(s.ctx, Stand(shape, ang)) is None
    return found


@pytest.mark.slow
def test_intervals_equal_a_brute_force_sweep_on_300_positions() -> None:
    positions = 0
    legal = 0
    gens = [_random_positions(40), _careful_positions(4)]
    for gen in gens:
        for k, s in enumerate(gen):
            if k % 3:  # every third placement position of each game: spread over the game
                continue
            legal += _compare(s)
            positions += 1
    assert positions >= 300
    assert legal > 0


def test_intervals_equal_a_brute_force_sweep_quick() -> None:
    positions = 0
    for k, s in enumerate(_random_positions(4, seed0=7)):
        if k % 5 == 0:
            _compare(s)
            positions += 1
    assert positions >= 5


def test_stalemate_only_when_no_stand_stack_or_gate_is_legal() -> None:
    # Random games until the end: a stalemate is only declared where the sweep finds no legal
    # stand of any shape left (and no stack or gate is offered).
    ended = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        s = SunState.new(2, {"field": "random" if seed % 2 else "open"}, table=ScriptedTable(G),
                           throwers=[SKILLS["casual"]] * 2)
        play_random(GAME, GameConfig(num_players=2), rng, state=s)
        if s.over == "stalemate":
            ended += 1
            for shape in s.available_shapes():
                for k in range(int(360 / 0.1)):
                    assert check_stand(s.ctx, Stand(shape, k * 0.1)) is not None
            assert not gate_candidates(s.ctx, s.ring())
    assert ended >= 10  # random play ends in stalemate: the check above ran


def test_fast_stack_marker_check_agrees_with_the_full_ring() -> None:
    # The stack check's local shortcut (standard mode, no marker under the stack) gives the same
    # verdict as the marker options computed on the whole ring after the stack.
    checked = 0
    for s in _random_positions(12, seed0=40):
        if s.rules.mode != "standard" or s.is_free_turn() or s.ring().n < 3:
            continue
        ring = s.ring()
        for shape in s.available_shapes():
            stone = s.stone_for(shape)
            for p in ring.pos:
                if p.top >= 0:
                    continue
                new = replace(s.stacked_pos(p, shape), top=stone)  # the footprint of both stones
                if any(abs((m - new.angle + math.pi) % TAU - math.pi) <= new.half for ms in s.markers for m in ms) \
                        and (new.width != p.width or new.angle != p.angle):
                    continue
                fast = stack_marker_fast(s.ctx, ring, ring.index[p.id], new)
                full = check_marker_after(s.ctx, stone, new_pos=new) is None
                assert fast == full, (s.to_notation(), shape, p.id)
                checked += 1
    assert checked >= 100


def test_vectorised_line_clearances_equal_the_scalar_ones() -> None:
    # the agents' hot path (Ring.clearances) gives clearance_at's values for every angle, on rings
    # with stacks, gates and impassable gaps from random games
    rng = np.random.default_rng(0)
    rings = 0
    for k, s in enumerate(_random_positions(4, seed0=60)):
        if k % 4:
            continue
        ring = s.ring()
        a = rng.uniform(-7.0, 7.0, 60)
        want = np.array([ring.clearance_at(x, G) for x in a])
        assert np.array_equal(ring.clearances(a, G), want)
        rings += 1
    assert rings >= 5
