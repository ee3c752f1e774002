"""A stone stood alone on the base stands where it was put (the fast preset's shortcut,
``PhysicsSpec.settle_lone_stands``): the engine, asked to settle the same stone, leaves it within
tens of micrometres and hundredths of a degree of that pose; a stone within contact reach of
another, or stacked, is still settled by the engine."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from sim.sun.geometry.specs import PRESETS
from sim.sun.players.thrower import PlaceNoise
from sim.sun.table.layout import load_layout
from sim.sun.table.sun_table import SunTable

LAYOUTS = Path(__file__).resolve().parents[2] / "scenarios" / "sun" / "layouts"


def _tilt_deg(quat: tuple[float, ...]) -> float:
    """Angle (degrees) between the stone's axis and the vertical."""
    return math.degrees(2.0 * math.asin(min(1.0, math.hypot(quat[0], quat[1]))))


def _stand_all(settle: bool, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Nine stones stood far apart on the empty table with seeded noise: (standing, steps,
    pose) of each."""
    monkeypatch.setitem(PRESETS["fast"], "settle_lone_stands", settle)
    rng = np.random.default_rng(7)
    out = []
    with SunTable.from_layout(load_layout(LAYOUTS / "empty.toml")) as t:
        assert t.physics.settle_lone_stands is settle
        for k in range(9):
            noise = PlaceNoise(float(rng.normal(0, 0.002)), float(rng.normal(0, 0.002)), float(rng.normal(0, 0.05)))
            r = t.stand_stone(("pillar", "block", "slab")[k % 3], k * 0.7, noise)
            s = t.stone(r.stone)
            out.append((r.standing, r.cause, r.disturbed, r.steps, s.pos, s.quat))
    return out


def test_a_lone_stone_stands_where_the_engine_would_settle_it(monkeypatch: pytest.MonkeyPatch) -> None:
    settled = _stand_all(True, monkeypatch)
    put = _stand_all(False, monkeypatch)
    for (ok_s, cause_s, dist_s, steps_s, pos_s, quat_s), (ok_p, cause_p, dist_p, steps_p, pos_p, quat_p) in zip(settled, put):
        assert ok_s and ok_p and cause_s is cause_p is None and dist_s == dist_p == []
        assert steps_s > 0 and steps_p == 0  # the engine settled one, not the other
        assert math.dist(pos_s[:2], pos_p[:2]) < 5e-5  # m: the engine moved it a few tens of um
        assert -5e-5 < pos_s[2] - pos_p[2] <= 0.0  # and sank it slightly into the base
        assert _tilt_deg(quat_p) == 0.0 and _tilt_deg(quat_s) < 0.1
        yaw_s, yaw_p = (2.0 * math.atan2(q[2], q[3]) for q in (quat_s, quat_p))
        assert abs((yaw_s - yaw_p + math.pi) % (2 * math.pi) - math.pi) < 1e-3


def test_a_stone_near_another_or_stacked_is_settled_by_the_engine() -> None:
    with SunTable.from_layout(load_layout(LAYOUTS / "empty.toml")) as t:
        assert not t.physics.settle_lone_stands
        a = t.stand_stone("pillar", 0.0)
        assert a.standing and a.steps == 0  # alone on the empty base
        # 1 mm beside the first (pillars 20 mm wide across the ring's tangent at r = 130 mm): within
        # contact reach, so the engine settles it
        near = t.stand_stone("pillar", 0.021 / t.table.ring_radius)
        assert near.standing and near.steps > 0
        top = t.stack_stone("slab", a.stone)
        assert top.standing and top.steps > 0
        # a stand whose footprint would hang over the disc's edge is not taken as standing untested
        edge = t.stand_stone("block", math.pi, PlaceNoise(0.0, 0.015, 0.0))
        assert edge.steps > 0


def test_the_horizontal_extent_bounds_every_corner() -> None:
    """Every corner of a box at a random orientation lies within ``horizontal_extent`` of its
    centre's vertical; upright, the bound is the footprint's half-diagonal exactly."""
    from sim.sun.table.state import rotation_matrix
    from sim.sun.geometry.specs import DEFAULT_SHAPES
    from sim.sun.table.world import horizontal_extent

    rng = np.random.default_rng(3)
    corners = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=float)
    for shp in DEFAULT_SHAPES.values():
        half = 0.5 * np.array([shp.depth, shp.width, shp.height])
        assert horizontal_extent(shp, (0.0, 0.0, 0.0, 1.0)) == pytest.approx(0.5 * math.hypot(shp.width, shp.depth))
        worst = 0.0
        for _ in range(2000):
            q = rng.normal(size=4)
            q /= np.linalg.norm(q)
            pts = (corners * half) @ np.asarray(rotation_matrix(tuple(q))).T
            reach = float(np.max(np.hypot(pts[:, 0], pts[:, 1])))
            bound = horizontal_extent(shp, tuple(q))
            assert reach <= bound + 1e-12
            worst = max(worst, reach / bound)
        assert worst > 0.9  # the bound is not loose everywhere


def test_a_clean_pass_between_two_stones_moves_neither() -> None:
    """A pass's first active set is the stones it is aimed into: two pillars 44 mm apart (centres
    32 mm from the ball's line, their footprint circles 19.5 mm: more than the ball's 17.5 mm
    radius) stay static, so a pass between them hands both poses back bit for bit. Loaded dynamic,
    as when the set took the stones within 5 mm more, the ball's bounding box woke them and they
    settled anew (this test then fails)."""
    with SunTable.from_layout(load_layout(LAYOUTS / "empty.toml")) as t:
        half_gap_rad = math.asin(0.5 * (0.044 + 0.020) / t.table.ring_radius)  # 44 mm between 20 mm pillars
        assert t.stand_stone("pillar", half_gap_rad).standing
        assert t.stand_stone("pillar", -half_gap_rad).standing
        before = t.stone_poses()
        r = t.pass_ball(0.0)
        assert r.clean and not r.penalties
        assert t.stone_poses() == before
