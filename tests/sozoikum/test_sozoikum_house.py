"""House building in pymunk: stability, collapse, determinism, stone shapes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.sozoikum.house import HouseParams, build_house, polygons_touch
from sim.sozoikum.physics import house_quality, quick_verdict
from sim.sozoikum.shapes import rest_angle, rotate, stone_info, stone_shape


def rect(w: float, h: float) -> tuple:
    return ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))


WALL = rect(4.0, 3.0)


def test_well_built_house_stays_still_for_30_seconds() -> None:
    r = build_house([WALL, WALL, WALL, WALL, rect(10.0, 2.0)], 1.0, 1, HouseParams(hold_time=30.0))
    assert r.sim_time >= 30.0
    assert r.stood and r.reason == "stands"
    # nothing crept: only the release drop (0.05 cm) and contact slop remain
    assert r.max_displacement < 0.15
    assert all(abs(f.angle - p.angle) < 1e-2 for f, p in zip(r.final, r.placed))
    # and no creep: the poses after 30 s equal those right after settling (same seed, same steps)
    settled = build_house([WALL, WALL, WALL, WALL, rect(10.0, 2.0)], 1.0, 1, HouseParams())
    for a, b in zip(settled.final, r.final):
        assert math.hypot(a.x - b.x, a.y - b.y) < 0.02 and abs(a.angle - b.angle) < 1e-3


def test_roof_too_short_for_its_walls_falls() -> None:
    params = HouseParams(wall_gap=2.0)
    r = build_house([WALL, WALL, WALL, WALL, rect(1.8, 1.5)], 1.0, 1, params)
    assert not r.stood
    assert r.reason.startswith("roof")
    assert r.displacement[4] > 2.0
    # the same roof over a narrower door stands
    assert build_house([WALL, WALL, WALL, WALL, rect(1.8, 1.5)], 1.0, 1, HouseParams(wall_gap=1.0)).stood


def test_uneven_walls_shed_the_roof() -> None:
    low, high = rect(4.0, 1.0), rect(4.0, 4.0)
    r = build_house([low, low, high, high, rect(6.0, 1.0)], 1.0, 1, HouseParams(friction=0.3))
    assert not r.stood


def test_builds_are_deterministic_for_a_seed() -> None:
    stones = [stone_shape(s) for s in (5, 6, 7, 8, 9)]
    a = build_house(stones, 0.5, 42)
    b = build_house(stones, 0.5, 42)
    assert a.final == b.final and a.placed == b.placed and a.stood == b.stood
    c = build_house(stones, 0.5, 43)
    assert c.placed != a.placed


def test_skill_one_places_without_noise() -> None:
    stones = [WALL, WALL, WALL, WALL, rect(10.0, 2.0)]
    a = build_house(stones, 1.0, 1)
    b = build_house(stones, 1.0, 2)
    assert a.placed == b.placed


def test_low_skill_collapses_more_often() -> None:
    stones = [WALL, WALL, WALL, WALL, rect(6.0, 2.0)]
    params = HouseParams(noise_cm=3.0, noise_deg=15.0)
    skilled = sum(build_house(stones, 0.9, k, params).stood for k in range(12))
    clumsy = sum(build_house(stones, 0.0, k, params).stood for k in range(12))
    assert skilled > clumsy


def test_walls_touching_is_a_collapse_even_if_nothing_moved() -> None:
    r = build_house([WALL, WALL, WALL, WALL, rect(10.0, 2.0)], 1.0, 1, HouseParams(wall_gap=0.02))
    assert r.walls_touch and not r.stood and r.reason == "walls touch"


def test_build_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        build_house([WALL] * 4, 1.0, 1)
    with pytest.raises(ValueError):
        build_house([WALL] * 5, 1.5, 1)


def test_polygons_touch() -> None:
    a = np.array(rect(2, 2))
    assert polygons_touch(a, a + [1.0, 0.0])
    assert polygons_touch(a, a + [2.01, 0.0])  # within the contact margin
    assert not polygons_touch(a, a + [2.5, 0.0])


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_stone_shapes_are_convex_seeded_and_sized(seed: int) -> None:
    v = stone_shape(seed)
    assert v == stone_shape(seed)
    arr = np.asarray(v)
    n = len(arr)
    assert n >= 3
    for i in range(n):
        o, a, b = arr[i], arr[(i + 1) % n], arr[(i + 2) % n]
        assert (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]) > 0  # counter-clockwise, convex
    diam = max(math.dist(p, q) for p in v for q in v)
    assert 3.0 - 1e-6 <= diam <= 8.0 + 1e-6
    # centroid at the origin
    x, y = arr[:, 0], arr[:, 1]
    c = x * np.roll(y, -1) - np.roll(x, -1) * y
    assert abs(((x + np.roll(x, -1)) * c).sum()) < 1e-3 and abs(((y + np.roll(y, -1)) * c).sum()) < 1e-3
    # resting on the longest edge: that edge is at the bottom, horizontal
    r = rotate(v, rest_angle(v))
    bottom = r[:, 1] <= r[:, 1].min() + 1e-6
    assert bottom.sum() >= 2


def test_stone_shape_rejects_bad_seeds() -> None:
    with pytest.raises(ValueError):
        stone_shape(-1)
    with pytest.raises(ValueError):
        stone_shape(2**32)


def test_quick_model_prefers_a_long_roof_and_is_deterministic() -> None:
    infos = [stone_info(s) for s in (5, 6, 7, 8)]
    short = min((stone_info(s) for s in range(40)), key=lambda i: i.width)
    long = max((stone_info(s) for s in range(40)), key=lambda i: i.width)
    assert house_quality(infos + [long], 2.0) >= house_quality(infos + [short], 2.0)
    assert house_quality(infos + [short], short.width + 1.0) == 0.0
    # the verdict is a coin of chance quality * (0.5 + 0.5 * skill), fixed by the noise seed
    q = house_quality(infos + [long], 2.0)
    assert 0.0 < q < 1.0
    for skill in (0.0, 0.7, 1.0):
        verdicts = [quick_verdict(infos + [long], skill, seed, 2.0) for seed in range(2000)]
        assert verdicts == [quick_verdict(infos + [long], skill, seed, 2.0) for seed in range(2000)]
        assert sum(verdicts) / len(verdicts) == pytest.approx(q * (0.5 + 0.5 * skill), abs=0.03)
    assert not any(quick_verdict(infos + [short], 1.0, seed, short.width + 1.0) for seed in range(200))
