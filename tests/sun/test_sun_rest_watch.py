"""The rest checks' watch leaves unasked only stones no moving body can touch
(sim/sun/table/world.py, ``beyond_frontier_touched``).

At every rest check of real passes and placements (hits that knock stones into their neighbours
included), the filtered check must find exactly the stones that asking every static stone beyond
the frontier finds.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pybullet as p

from sim.sun.players.thrower import skill
from sim.sun.table.layout import load_layout
from sim.sun.table.sun_table import SunTable
from sim.sun.table.world import TableWorld

FULL = Path(__file__).resolve().parents[2] / "scenarios" / "sun" / "layouts" / "full-32.toml"


def test_the_filtered_rest_check_finds_what_asking_every_stone_finds(monkeypatch) -> None:
    filtered = TableWorld.beyond_frontier_touched
    seen = {"checks": 0, "touched": 0}

    def both(self: TableWorld) -> bool:
        before = set(self._touched)
        got = filtered(self)
        got_touched = set(self._touched)
        self._touched = set(before)
        want = self._touched_of(self._beyond)
        assert (got, got_touched) == (want, set(self._touched))
        seen["checks"] += 1
        seen["touched"] += want
        return got

    monkeypatch.setattr(TableWorld, "beyond_frontier_touched", both)
    layout = load_layout(FULL, "fast")
    rng = np.random.default_rng(11)
    hand = skill("child")
    with SunTable.from_layout(layout) as t:
        start = t.snapshot()
        for k in range(16):
            if k % 4 == 3:
                t.restore(start)
            if k % 3 == 2 and t.stones():
                q = t.positions()[int(rng.integers(len(t.positions())))]
                t.remove_stone(q.ids[-1])
                t.stand_stone(("pillar", "block", "slab")[k % 3], q.angle, hand.draw_place(rng))
            else:
                t.pass_ball(float(rng.uniform(0, 2 * math.pi)), noise=hand.draw_pass(rng))
    assert seen["checks"] > 20  # the comparison ran often


def test_a_dynamic_stone_moved_onto_a_far_static_one_is_found() -> None:
    """The positive case: a dynamic stone put where a static stone beyond the frontier stands is in
    contact with it after a step, and the filtered check finds that stone (and only stones the
    unfiltered check finds)."""
    layout = load_layout(FULL, "fast")
    with SunTable.from_layout(layout) as t:
        mover = t.stones()[0].id
        t.load_active({mover})
        beyond = dict(t._beyond)
        assert beyond and 2 * (len(t._dyn_reach) + 1) <= len(beyond)  # the filter is in use
        target = max(beyond, key=lambda sid: math.dist(t.stone(sid).pos, t.stone(mover).pos))
        x, y, z = t.stone(target).pos
        c = t.client
        p.resetBasePositionAndOrientation(t._bodies[mover], (x, y, z + 0.01), (0, 0, 0, 1), physicsClientId=c)
        p.changeDynamics(t._bodies[mover], -1, activationState=p.ACTIVATION_STATE_WAKE_UP, physicsClientId=c)
        p.stepSimulation(physicsClientId=c)
        t._touched = set()
        assert t.beyond_frontier_touched()
        got = set(t._touched)
        t._touched = set()
        t._touched_of(t._beyond)
        assert target in got and got == t._touched
