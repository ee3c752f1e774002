"""A reused PyBullet world gives the very results of a fresh one (sim/sun/table/world.py, ``rebuild``).

The table keeps one world and loads each state into it (pool bodies, poses reset, every body taken
out of and put back into the collision world in a fixed order). A pass or a placement must stay a
pure function of (poses, parameters, command, noise): here every call made on a table with a long
history is made again on a new table holding only the start state, and every bit must agree.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from sim.sun.table.layout import load_layout
from sim.sun.table.sun_table import SunTable
from sim.sun.players.thrower import skill

ROOT = Path(__file__).resolve().parents[2]
FULL = ROOT / "scenarios" / "sun" / "layouts" / "full-32.toml"


def _pass_key(r):
    return ([(x.stone, x.cause) for x in r.penalties], r.steps, r.swing_steps, r.invalid,
            [(c.angle, c.inbound, c.t) for c in r.crossings], r.catch_pos, [(s.id, s.pos, s.quat) for s in r.final])


def _place_key(r, t: SunTable):
    return (r.standing, r.cause, [(x.stone, x.cause) for x in r.disturbed], r.steps,
            [(s.id, s.pos, s.quat) for s in t.stones()])


def _drop_unsupported(t: SunTable) -> None:
    """Take off the table every stone that rested on a stone no longer there."""
    for s in list(t.stones()):
        if s.on and any(o not in {x.id for x in t.stones()} for o in s.on):
            t.remove_stone(s.id)


def test_a_reused_world_gives_the_results_of_a_fresh_one() -> None:
    layout = load_layout(FULL, "fast")
    rng = np.random.default_rng(5)
    hand = skill("child")
    with SunTable.from_layout(layout) as t:
        start = t.snapshot()
        kinds = []
        for k in range(14):
            if k % 5 == 4:
                t.restore(start)  # back to a full ring now and then: more hits
            snap = t.snapshot()
            if k % 3 == 2 and t.stones():
                # a stand next to a standing stone: the pool's bodies change roles and ranks
                q = t.positions()[int(rng.integers(len(t.positions())))]
                shape = ("pillar", "block", "slab")[k % 3]
                noise = hand.draw_place(rng)
                t.remove_stone(q.ids[-1])
                snap = t.snapshot()
                r = t.stand_stone(shape, q.angle, noise)
                got = _place_key(r, t)
                with SunTable(layout, snap.stones, snap.next_id) as fresh:
                    want = _place_key(fresh.stand_stone(shape, q.angle, noise), fresh)
                kinds.append("place")
            else:
                aim = float(rng.uniform(0, 2 * math.pi))
                noise = hand.draw_pass(rng)
                got = _pass_key(t.pass_ball(aim, noise=noise))
                with SunTable(layout, snap.stones, snap.next_id) as fresh:
                    want = _pass_key(fresh.pass_ball(aim, noise=noise))
                kinds.append("pass")
            assert got == want, (k, kinds[-1])
        assert "place" in kinds and "pass" in kinds


def test_a_world_left_awake_or_shaken_loads_the_same() -> None:
    """wake_all and shake leave bodies awake for good and stones moved; the next load forgets it."""
    layout = load_layout(FULL, "fast")
    with SunTable.from_layout(layout) as t:
        snap = t.snapshot()
        t.wake_all()
        t.step(30)
        t.shake(0.05, 0.0)
        t.restore(snap)
        got = _pass_key(t.pass_ball(math.radians(40.0)))
        with SunTable(layout, snap.stones, snap.next_id) as fresh:
            want = _pass_key(fresh.pass_ball(math.radians(40.0)))
        assert got == want
        assert got[0]  # a hitting pass: stones were lost


@pytest.mark.parametrize("spare", [0, 1, 3])
def test_a_pool_refitted_in_the_middle_keeps_the_fresh_worlds_order(spare: int, monkeypatch) -> None:
    """The world holds the stones' bodies and a few idle ones per shape, shapes in sorted order.
    Stones of a shape with no idle body left make that shape's bodies, and every body after them,
    again; going back to a snapshot and placing other shapes refits the pool from a shape in the
    middle. A body made out of the order a fresh world has (Bullet orders its pairs and contacts by
    the bodies' broadphase handles) would change the results of the stacks placed here, whose two
    stones touch. With no idle body kept, each placement refits the pool."""
    from sim.sun.table import world

    monkeypatch.setattr(world, "SPARE_BODIES", spare)
    layout = load_layout(FULL, "fast")
    rng = np.random.default_rng(11)
    hand = skill("casual")
    with SunTable.from_layout(layout) as t:
        blocks = [s.id for s in t.stones() if s.role == "stand" and s.shape == "block"]
        gone = [t.remove_stone(i) for i in blocks[::2]]  # the widest: any shape stands in their place
        _drop_unsupported(t)
        start = t.snapshot()
        free = [math.atan2(s.pos[1], s.pos[0]) for s in gone]  # where the stones taken off stood
        rounds = [("pillar", "slab"), ("slab", "slab"), ("block", "pillar"), ("pillar", "block")]
        for k, pair in enumerate(rounds):
            t.restore(start)
            for j, shape in enumerate(pair):  # a stand, and a stone stacked on it: their bodies touch
                snap = t.snapshot()
                noise = hand.draw_place(rng)

                def put(table: SunTable):
                    if j == 0:
                        return table.stand_stone(shape, free[0], noise)
                    return table.stack_stone(shape, start.next_id, noise)

                r = put(t)
                assert r.standing and r.stone == start.next_id + j, (k, shape, r.cause)
                got = _place_key(r, t)
                with SunTable(layout, snap.stones, snap.next_id) as fresh:
                    want = _place_key(put(fresh), fresh)
                assert got == want, (k, shape)
            for aim in (free[0], free[1]):
                noise = hand.draw_pass(rng)
                snap = t.snapshot()
                got = _pass_key(t.pass_ball(aim + math.pi, noise=noise))
                with SunTable(layout, snap.stones, snap.next_id) as fresh:
                    assert got == _pass_key(fresh.pass_ball(aim + math.pi, noise=noise)), k


def test_a_world_holds_a_body_per_stone_and_few_idle_ones() -> None:
    """Bodies cost stepping whether they move or not: the world holds the base, the floor, the ball
    and one body per stone, plus at most 2 * SPARE_BODIES idle bodies per shape."""
    from sim.sun.table.world import SPARE_BODIES

    layout = load_layout(FULL, "fast")
    with SunTable.from_layout(layout) as t:
        t.ensure_world()
        assert t.stone_bodies == len(t.stones())
        ids = [s.id for s in t.stones()]
        counts = []
        for k, sid in enumerate(ids[:24]):
            if sid in {s.id for s in t.stones()}:
                t.remove_stone(sid)
            _drop_unsupported(t)
            t.ensure_world()
            n = t.stone_bodies
            counts.append(n)
            assert len(t.stones()) <= n <= len(t.stones()) + 2 * SPARE_BODIES * len(layout.shapes), k
        assert min(counts) < len(ids) - 12  # the world did shrink
        snap = t.snapshot()
        got = _pass_key(t.pass_ball(math.radians(40.0)))
        with SunTable(layout, snap.stones, snap.next_id) as fresh:
            assert got == _pass_key(fresh.pass_ball(math.radians(40.0)))
