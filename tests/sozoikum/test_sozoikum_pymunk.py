"""The pymunk implementation of the house physics (``house.PymunkWorld``) against analytic results."""

from __future__ import annotations

import math

import pytest

from sim.sozoikum.house import GRAVITY, HouseParams, Pose, PymunkWorld
from sim.sozoikum.shapes import Vertices

DT = HouseParams().dt


def block(w: float, h: float) -> Vertices:
    return ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))


def run(world: PymunkWorld, seconds: float) -> None:
    for _ in range(int(round(seconds / DT))):
        world.step(DT)


def test_a_block_resting_on_the_ground_stays() -> None:
    w = PymunkWorld(HouseParams())
    w.add("A1", block(4.0, 2.0), Pose(0.0, 1.0, 0.0))
    run(w, 2.0)
    p = w.poses()["A1"]
    # analytically it stays put; the iterative solver lets it sink a little past its allowed
    # overlap (0.02 cm) and jitter by micrometres, far below the house tolerance (1 cm)
    assert abs(p.x) < 0.01 and abs(p.angle) < math.radians(0.3) and 1.0 - 0.05 < p.y <= 1.0
    speed, spin = w.motion()["A1"]
    assert speed < 0.01 and spin < 1e-3


def test_free_fall_follows_the_integrator_and_gravity() -> None:
    w = PymunkWorld(HouseParams())
    w.add("roof", block(2.0, 1.0), Pose(0.0, 20.0, 0.0))
    n = 12
    run(w, n * DT)
    drop = 20.0 - w.poses()["roof"].y
    # pymunk (Chipmunk) moves each body with its velocity before the step's gravity, then updates
    # the velocity: after step k the speed is g k dt, and the drop after n steps g dt^2 n (n - 1) / 2 ...
    assert drop == pytest.approx(GRAVITY * DT**2 * n * (n - 1) / 2, rel=1e-9)
    # ... which is g t^2 / 2 up to the factor (1 - 1/n)
    t = n * DT
    assert drop == pytest.approx(0.5 * GRAVITY * t**2 * (1 - 1 / n), rel=1e-9)
    assert w.motion()["roof"][0] == pytest.approx(GRAVITY * t, rel=1e-9)


@pytest.mark.parametrize("overhang", [-0.6, -0.3, 0.3, 0.6])
def test_a_block_overhanging_its_support_topples_iff_its_centre_of_mass_is_past_the_edge(overhang: float) -> None:
    """A 4 x 1 cm block on a 4 x 2 cm block whose right edge is at x = 2: with its centre of mass
    ``overhang`` cm right of that edge it topples (overhang > 0) or stays (overhang < 0)."""
    w = PymunkWorld(HouseParams())
    w.add("A1", block(4.0, 2.0), Pose(0.0, 1.0, 0.0))
    run(w, 0.3)
    top_y = w.poses()["A1"].y + 1.0
    w.add("A2", block(4.0, 1.0), Pose(2.0 + overhang, top_y + 0.5 + 0.001, 0.0))
    run(w, 2.0)
    p = w.poses()["A2"]
    if overhang > 0:
        assert abs(p.angle) > math.radians(30.0) or p.y < top_y - 0.5
    else:
        assert abs(p.angle) < math.radians(0.5) and abs(p.x - (2.0 + overhang)) < 0.02
        assert w.poses()["A1"].x == pytest.approx(0.0, abs=0.02)
