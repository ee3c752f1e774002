"""Board facts of Knizia's Stonehenge, checked against plane geometry (not against a typed table)."""

from __future__ import annotations

import math
from collections import Counter

from sim.druids.geometry import LINE_DIRECTION, LINE_LENGTH, LINES, NUM_LINES, NUM_POINTS, POINT_LINES, POINTS, point_xy
from sim.druids.pieces import STONES


def test_eighteen_points_fifteen_lines() -> None:
    assert NUM_POINTS == 18
    assert NUM_LINES == 15
    assert len(set(POINTS)) == 18
    # 18 stones (9 per seat) fill the board exactly
    assert 2 * len(STONES) == NUM_POINTS


def test_five_lines_per_direction_with_lengths_2_3_4_4_5() -> None:
    by_dir: dict[int, list[int]] = {}
    for d, n in zip(LINE_DIRECTION, LINE_LENGTH):
        by_dir.setdefault(d, []).append(n)
    assert sorted(by_dir) == [0, 1, 2]
    for lengths in by_dir.values():
        assert sorted(lengths) == [2, 3, 4, 4, 5]


def test_every_point_on_exactly_three_lines_one_per_direction() -> None:
    for p in range(NUM_POINTS):
        lines = [L for L in range(NUM_LINES) if p in LINES[L]]
        assert len(lines) == 3
        assert sorted(LINE_DIRECTION[L] for L in lines) == [0, 1, 2]
        assert tuple(lines) == POINT_LINES[p]


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def test_points_form_a_side_5_triangle_without_corners() -> None:
    xy = [point_xy(p) for p in range(NUM_POINTS)]
    # nearest neighbours at unit distance; the triangle's corners are missing
    for i, a in enumerate(xy):
        near = min(_dist(a, b) for j, b in enumerate(xy) if j != i)
        assert math.isclose(near, 1.0)
    # corners of the full triangle (apex (0,0), base ends (-2.5, -5 sqrt3/2), (2.5, ...))
    h = -5 * math.sqrt(3) / 2
    for corner in ((0.0, 0.0), (-2.5, h), (2.5, h)):
        assert all(_dist(corner, p) > 0.5 for p in xy)


def test_lines_are_maximal_collinear_unit_spaced_runs_in_three_directions() -> None:
    xy = [point_xy(p) for p in range(NUM_POINTS)]
    angles = Counter()
    for pts in LINES:
        ordered = sorted(pts, key=lambda p: (xy[p][0], xy[p][1]))
        a, b = xy[ordered[0]], xy[ordered[1]]
        ang = round(math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 180.0, 6)
        angles[ang] += 1
        for p, q in zip(ordered, ordered[1:]):
            assert math.isclose(_dist(xy[p], xy[q]), 1.0)
            ang_pq = round(math.degrees(math.atan2(xy[q][1] - xy[p][1], xy[q][0] - xy[p][0])) % 180.0, 6)
            assert ang_pq == ang
        # maximal: no board point continues the run at either end
        ux, uy = b[0] - a[0], b[1] - a[1]  # unit step along the run, in sorting order
        first, last = xy[ordered[0]], xy[ordered[-1]]
        for end, sign in ((first, -1), (last, 1)):
            nxt = (end[0] + sign * ux, end[1] + sign * uy)
            assert all(_dist(nxt, xy[r]) > 1e-6 for r in range(NUM_POINTS))
    assert sorted(angles.values()) == [5, 5, 5]
    assert sorted(angles) == [0.0, 60.0, 120.0]


def test_every_collinear_adjacent_pair_lies_on_a_line() -> None:
    xy = [point_xy(p) for p in range(NUM_POINTS)]
    for p in range(NUM_POINTS):
        for q in range(p + 1, NUM_POINTS):
            if math.isclose(_dist(xy[p], xy[q]), 1.0):
                assert any(p in pts and q in pts for pts in LINES)
    # and the lines cover 54 point-line incidences: 18 points x 3 lines
    assert sum(LINE_LENGTH) == 54
