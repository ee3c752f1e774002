"""Standing, stacking and gates on the table; the ring read back from poses; the thrower's noise."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from sim.core.errors import InputError
from sim.sun.table.layout import load_layout
from sim.sun.geometry.ring import Geometry
from sim.sun.table.sun_table import SunTable
from sim.sun.players.thrower import SKILLS, PlaceNoise, skill

LAYOUTS = Path(__file__).resolve().parents[2] / "scenarios" / "sun" / "layouts"
HALF_GATE_DEG = 14.98  # two pillars at +-14.98 deg leave a 44 mm gap


@pytest.fixture()
def empty() -> SunTable:
    t = SunTable.from_layout(load_layout(LAYOUTS / "empty.toml"))
    yield t
    t.close()


def test_stand_stack_and_gate_then_pass_through_the_gate(empty: SunTable) -> None:
    t = empty
    a = t.stand_stone("pillar", math.radians(HALF_GATE_DEG))
    b = t.stand_stone("pillar", math.radians(-HALF_GATE_DEG))
    assert a.standing and b.standing and a.cause is None
    s = t.stand_stone("block", math.radians(90.0))
    top = t.stack_stone("block", s.stone)
    assert top.standing and t.stone(top.stone).role == "stack"
    g = t.make_gate((a.stone, b.stone), shape="slab")
    assert g.standing, g.cause
    gate = t.stone(g.stone)
    assert gate.role == "gate" and set(gate.on) == {a.stone, b.stone}
    # The ring read back from poses: the gated gap is passable, its gate 70 mm up.
    ring = t.gaps()
    gated = [i for i in range(ring.n) if ring.under[i] is not None]
    assert len(gated) == 1 and ring.under[gated[0]] == pytest.approx(0.070, abs=0.001)
    assert ring.passable(gated[0], Geometry(t.table, t.ball, dict(t.shapes)))
    stack_pos = [p for p in t.positions() if len(p.ids) == 2]
    assert stack_pos and stack_pos[0].top_z == pytest.approx(0.100, abs=0.001)
    r = t.pass_ball(0.0)
    assert r.clean and r.through_aim_gap


def test_gate_from_a_standing_stone_moves_it(empty: SunTable) -> None:
    t = empty
    a = t.stand_stone("pillar", math.radians(HALF_GATE_DEG)).stone
    b = t.stand_stone("pillar", math.radians(-HALF_GATE_DEG)).stone
    spare = t.stand_stone("slab", math.radians(200.0)).stone
    res = t.make_gate((a, b), stone=spare)
    assert res.standing and res.stone == spare and t.stone(spare).role == "gate"
    assert len(t.positions()) == 2
    with pytest.raises(InputError):
        t.make_gate((a, b), stone=a)


def test_a_gate_across_a_too_wide_gap_falls(empty: SunTable) -> None:
    t = empty
    a = t.stand_stone("pillar", math.radians(22.0)).stone
    b = t.stand_stone("pillar", math.radians(-22.0)).stone
    res = t.make_gate((a, b), shape="slab")
    assert not res.standing and res.cause in ("fell_from_support", "toppled")
    assert res.state is None and res.stone not in {s.id for s in t.stones()}


def test_blocked_placement_changes_nothing(empty: SunTable) -> None:
    t = empty
    t.stand_stone("block", 0.0)
    snap = t.snapshot()
    res = t.stand_stone("block", math.radians(3.0))
    assert not res.standing and res.cause == "blocked"
    assert t.snapshot() == snap


def test_noisy_placement_stays_near_its_target(empty: SunTable) -> None:
    t = empty
    rng = np.random.default_rng(3)
    res = t.stand_stone("block", math.radians(60.0), skill("casual").draw_place(rng))
    assert res.standing
    st = t.stone(res.stone)
    assert math.degrees(st.angle) == pytest.approx(60.0, abs=3.0)
    assert st.pos[2] == pytest.approx(0.025, abs=0.0005)


def test_place_stone_dispatches_on_level(empty: SunTable) -> None:
    t = empty
    s = t.place_stone("block", math.radians(45.0), 1)
    top = t.place_stone("slab", math.radians(45.0), 2)
    assert top.standing and t.stone(top.stone).on == (s.stone,)
    with pytest.raises(InputError):
        t.place_stone("slab", math.radians(200.0), 2)
    with pytest.raises(InputError):
        t.place_stone("menhir", 0.0, 1)


def test_remove_stone_and_snapshot_restore(empty: SunTable) -> None:
    t = empty
    a = t.stand_stone("pillar", 0.0).stone
    snap = t.snapshot()
    t.remove_stone(a)
    assert t.stones() == []
    t.restore(snap)
    assert [s.id for s in t.stones()] == [a]
    assert t.snapshot() == snap  # poses and next id too


def test_skills_and_common_random_numbers() -> None:
    assert {"perfect", "expert", "steady", "casual", "child"} <= set(SKILLS)
    with pytest.raises(InputError, match="allowed"):
        skill("pro")
    p0 = skill("perfect").draw_pass(np.random.default_rng(1))
    assert p0.aim == 0.0 and (p0.push_x, p0.push_y) == (0.0, 0.0)
    e = skill("expert").draw_pass(np.random.default_rng(1))
    c = skill("casual").draw_pass(np.random.default_rng(1))
    # Same standard normals scaled by the sigmas (4x for the aim).
    assert c.aim == pytest.approx(4 * e.aim)
    kid = skill("child").draw_place(np.random.default_rng(2))
    assert isinstance(kid, PlaceNoise)
    # placements too: the same three normals, scaled by each skill's sigmas
    calm = skill("steady").draw_place(np.random.default_rng(2))
    assert kid.along == pytest.approx(3.5 * calm.along) and kid.across == pytest.approx(3.5 * calm.across)
    assert kid.yaw_rad == pytest.approx(4 * calm.yaw_rad) and calm.yaw_rad != 0.0


def test_chosen_ids_and_layout_round_trip(tmp_path: Path) -> None:
    from sim.sun.table.layout import dump_layout_toml

    with SunTable.from_layout(load_layout(LAYOUTS / "full-32.toml")) as t:
        lay = t.to_layout()
        assert len(lay.stones) == 28 and len(lay.gates) == 4
        f = tmp_path / "again.toml"
        f.write_text(dump_layout_toml(lay, "again"), encoding="utf-8")
        again = load_layout(f)  # validates: stacks at their support's angle, gates between neighbours
        assert [s.shape for s in again.stones] == [s.shape for s in lay.stones]
        assert len(again.gates) == 4
    with SunTable.from_layout(load_layout(LAYOUTS / "empty.toml")) as e:
        res = e.stand_stone("block", 0.0, stone_id=41)
        assert res.stone == 41 and e.stone(41).shape == "block"
        with pytest.raises(InputError):
            e.stand_stone("block", 1.0, stone_id=41)


def test_a_placement_world_without_the_idle_ball_gives_the_same_results_bit_for_bit(empty: SunTable) -> None:
    """A placement builds its world without the ball (sim/sun/table/world.py, ``rebuild``): the idle ball
    collides with nothing and its motor has no force, so every placement must end exactly as in a
    world that has it: stands a hair from a neighbour and stacks thrown off by a shaky hand."""
    from sim.sun.geometry.ring import sep_for_width

    t = empty
    rng = np.random.default_rng(3)
    hand = skill("child")
    for a in range(0, 360, 45):
        t.stand_stone("block", math.radians(a))
    outcomes = set()
    for k in range(14):
        start = t.snapshot()
        pos = t.positions()
        anchor = pos[int(rng.integers(len(pos)))]
        shape = ("pillar", "block", "slab")[k % 3]
        n = hand.draw_place(rng)
        stack = k % 2 == 1 and anchor.top < 0
        if not stack:  # a stand leaving 0.5-4 mm to the anchor
            sign = float(rng.choice([-1.0, 1.0]))
            d = sep_for_width(anchor, t.table.ring_radius, t.shapes[shape], float(rng.uniform(0.0005, 0.004)), sign > 0)
            assert d is not None
            ang = anchor.angle + sign * d
        results = []
        for with_ball in (False, True):
            t.restore(start)
            if with_ball:
                t.rebuild(ball=True)  # a clean world with the ball: the placement keeps it
            if stack:
                r = t.stack_stone(shape, anchor.id, PlaceNoise(3 * n.along, 3 * n.across, n.yaw_rad))
            else:
                r = t.stand_stone(shape, ang, n)
            results.append((r.standing, r.cause, [(x.stone, x.cause) for x in r.disturbed], r.steps,
                            [(s.id, s.pos, s.quat) for s in t.stones()]))
        assert results[0] == results[1]
        outcomes.add(results[0][1])
    assert {None, "blocked"} <= outcomes and outcomes - {None, "blocked"}  # stood, refused and fell
