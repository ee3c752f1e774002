"""After a failed placement a Sun agent tries something else (sim/sun/agents/memory.py).

The rules give a failed placement's turn back to the same seat on the position it had before
(docs/rules-sun.md, "Placement outcomes"), so a deterministic agent would make the same choice
again. In a Morris study a careful seat stood a pillar at 177.08 deg sixteen times in one turn
(every failure after the fourth a penalty) until the field was empty. Here a table on which one
spot always fails (as a stack top overhanging a neighbour made it on the PyBullet table) stands
in for that case.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sim.core.game import GameConfig
from sim.sun.agents import policies as A
from sim.sun.actions import Gate, Stack, Stand
from sim.sun.physics import Placement, PlaceResult, ScriptedTable
from sim.sun.players.thrower import PlaceNoise
from sim.sun.geometry.ring import Geometry
from sim.sun.rules.state import SunState
from sim.sun.geometry.specs import TAU
from sim.sun.agents.memory import Tries, avoid, near

G = Geometry()


class _BadSpotTable(ScriptedTable):
    """The scripted table, except that one spot never holds a stone: a stand overlapping angle
    ``spot`` (rad), or with ``on`` set, a stack on that stone."""

    def __init__(self, spot: float | None = None, on: int | None = None) -> None:
        super().__init__(G)
        self.spot, self.on = spot, on

    def place(self, bodies: Any, placement: Placement, noise: Any) -> PlaceResult:
        bad = False
        if placement.kind == "stand" and self.spot is not None:
            half = 0.5 * (G.shapes[placement.shape].width + G.shapes["slab"].width) / G.table.ring_radius
            bad = abs((placement.angle - self.spot + math.pi) % TAU - math.pi) < half
        elif placement.kind == "stack":
            bad = placement.on == self.on
        if bad:
            self.place_calls += 1
            return PlaceResult(False, tuple(b for b in bodies if b.id != placement.stone))
        return super().place(bodies, placement, noise)


def _position(table: ScriptedTable, rules: dict[str, Any]) -> SunState:
    """A mid-game position: six blocks round the ring, seat 1 to place (its marker in a wide gap)."""
    s = SunState.new(2, {"placement_fall": "retry", **rules}, table=table)
    s.set_position([("block", math.radians(a), 1) for a in (0, 40, 80, 200, 250, 300)])
    s.played = [True, True]
    s.seat = 1
    s.markers = [[math.radians(20.0)], [math.radians(140.0)]]
    s._begin_turn()
    return s


def _agent(name: str) -> Any:
    from sim.sun.game import GAME

    cfg = GameConfig(num_players=2, seats=({"agent": name}, {"agent": name}))
    return A.AGENTS[name].factory(game=GAME, seat=1, rng=np.random.default_rng(1), config=cfg)


def _turn_placements(name: str, rules: dict[str, Any]) -> tuple[list[Any], SunState]:
    """The placements seat 1 makes in one turn on a table where its first choice's spot always
    fails, and the state after the turn's placement step."""
    free = _position(ScriptedTable(G), rules)
    first = _agent(name).act(free.observation(1), free.legal_actions())
    if isinstance(first, Stand):
        table = _BadSpotTable(spot=math.radians(first.angle))
    else:
        assert isinstance(first, Stack), first
        table = _BadSpotTable(on=first.on)
    # the planner imagines its turn on the plain scripted table: it does not foresee the failure
    table.simulator = lambda: ScriptedTable(G)  # type: ignore[attr-defined]
    st = _position(table, rules)
    agent = _agent(name)
    made: list[Any] = []
    while st.phase == "place" and st.seat == 1 and len(made) < 30:
        act = agent.act(st.observation(1), st.legal_actions())
        made.append(act)
        st.apply_action(act)
        st.apply_action(PlaceNoise(0.0, 0.0, 0.0))
    return made, st


@pytest.mark.parametrize("name", ["careful", "aggressive", "planner"])
def test_after_a_failed_placement_the_agent_goes_elsewhere(name: str) -> None:
    # (here careful's and the planner's first choice is a stack, aggressive's a stand)
    made, st = _turn_placements(name, {})
    assert {"careful": Stack, "aggressive": Stand, "planner": Stack}[name] is type(made[0])
    assert len(made) == 2, made  # the first fails; the second is elsewhere, and stands
    assert not near(st, made[1], made[0]), made
    assert st.phase in ("marker", "pass")
    assert st.penalties() == [0, 0]


@pytest.mark.parametrize("name", ["careful", "aggressive"])
def test_past_the_attempt_limit_no_stone_is_thrown_away_at_the_same_spot(name: str) -> None:
    # with every failure a penalty, the old agent lost a stone per attempt until the field was empty
    made, st = _turn_placements(name, {"placement_fall": "penalty"})
    assert len(made) == 2, made
    assert st.penalties() == [0, 1]
    assert st.field_stones()


def test_near_and_avoid() -> None:
    st = SunState.new(2, table=ScriptedTable(G))
    r = G.table.ring_radius
    pillar, slab = G.shapes["pillar"].width, G.shapes["slab"].width
    touching = math.degrees(0.5 * (pillar + slab) / r)  # centre distance at which the footprints touch
    a = Stand("pillar", 177.0)
    assert near(st, Stand("slab", 177.0 + 0.9 * touching), a)
    assert not near(st, Stand("slab", 177.0 + 1.1 * touching), a)
    assert near(st, Stand("slab", 359.9), Stand("slab", 0.1))  # across 0 deg
    assert near(st, Stack("slab", 4), Stack("pillar", 4)) and not near(st, Stack("slab", 5), Stack("slab", 4))
    assert near(st, Gate(9, 3, 4), Gate(7, 4, 3)) and not near(st, Gate(9, 3, 5), Gate(9, 3, 4))
    assert not near(st, Stack("slab", 4), Stand("slab", 0.0))
    cands = [Stand("pillar", 177.5), Stand("pillar", 90.0), Stack("block", 2)]
    assert avoid(st, cands, []) == cands
    assert avoid(st, cands, [a]) == cands[1:]
    # every candidate near a failure: those near the fewest
    assert avoid(st, cands[:1], [a]) == cands[:1]
    assert avoid(st, cands[:2], [a, Stand("block", 90.0), Stand("slab", 90.5)]) == cands[:1]


def test_tries_remembers_one_turn_of_one_seat() -> None:
    # the agent's order: start, read the failures, note the choice; a failure raises ``attempts``
    st = SunState.new(2, table=ScriptedTable(G))
    t = Tries()
    t.start(st)
    assert t.failed(st) == []
    t.note(Stand("pillar", 10.0))
    st.attempts = 1  # it failed
    t.start(st)
    assert t.failed(st) == [Stand("pillar", 10.0)]
    t.note(Stand("pillar", 90.0))
    st.attempts = 2  # that failed too
    t.start(st)
    assert t.failed(st) == [Stand("pillar", 10.0), Stand("pillar", 90.0)]
    st.turn += 1
    assert t.failed(st) == []  # another turn
    st.turn -= 1
    st.seat = 1
    assert t.failed(st) == []  # another seat
    st.seat, st.attempts = 0, 0
    t.start(st)  # a turn's first attempt forgets the last turn's
    st.attempts = 1
    assert t.failed(st) == []
