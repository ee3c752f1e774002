"""Knizia's *Stonehenge*: the board's geometry (points of the triangular grid, the lines derived from
it, the lines through each point). No state, no I/O.

The module docstring of :mod:`sim.druids.rules` draws the board; ``docs/rules-druids.md`` states
the rules. The pieces are in :mod:`sim.druids.pieces`.
"""

from __future__ import annotations

import math

#: side of the triangular grid in segments
SIDE = 5
#: the triangle's corners, absent from the board
CORNERS = frozenset({(0, 0), (SIDE, 0), (SIDE, SIDE)})
#: board points as (row, column) with 0 <= column <= row <= SIDE, corners removed, row-major
POINTS: tuple[tuple[int, int], ...] = tuple(
    (r, c) for r in range(SIDE + 1) for c in range(r + 1) if (r, c) not in CORNERS
)
NUM_POINTS = len(POINTS)
POINT_NAMES = "abcdefghijklmnopqr"
POINT_INDEX = {ch: i for i, ch in enumerate(POINT_NAMES)}


def point_xy(point: int) -> tuple[float, float]:
    """Cartesian position of ``point`` (unit spacing, apex row up, y decreasing downwards)."""
    r, c = POINTS[point]
    return (c - r / 2.0, -r * math.sqrt(3.0) / 2.0)


def derive_lines() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The board's lines as (direction, points) from the triangular grid.

    A grid line is the set of points sharing one of the three barycentric-like coordinates: the row
    ``r`` (direction 0), the column ``c`` (direction 1) or ``r - c`` (direction 2). A line of the
    game is such a set with at least 2 points (the corners' removal leaves the apex's three lines
    with 0 or 1 point). Ordered by direction, then coordinate; points in row-major order.
    """
    keys = (lambda r, c: r, lambda r, c: c, lambda r, c: r - c)
    out: list[tuple[int, tuple[int, ...]]] = []
    for d, key in enumerate(keys):
        groups: dict[int, list[int]] = {}
        for i, (r, c) in enumerate(POINTS):
            groups.setdefault(key(r, c), []).append(i)
        out.extend((d, tuple(groups[k])) for k in sorted(groups) if len(groups[k]) >= 2)
    return tuple(out)


_LINES_DERIVED = derive_lines()
#: points of each line
LINES: tuple[tuple[int, ...], ...] = tuple(pts for _, pts in _LINES_DERIVED)
#: direction (0, 1, 2) of each line
LINE_DIRECTION: tuple[int, ...] = tuple(d for d, _ in _LINES_DERIVED)
LINE_LENGTH: tuple[int, ...] = tuple(len(pts) for pts in LINES)
NUM_LINES = len(LINES)
LINE_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:NUM_LINES]
LINE_INDEX = {ch: i for i, ch in enumerate(LINE_NAMES)}
#: lines through each point
POINT_LINES: tuple[tuple[int, ...], ...] = tuple(
    tuple(L for L, pts in enumerate(LINES) if p in pts) for p in range(NUM_POINTS)
)
