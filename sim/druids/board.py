"""Knizia's *Stonehenge*: the board (points, lines derived from the triangular grid) and the
pieces (a seat's stones, hands as one integer code and the tables indexed by it). No state, no I/O.

The module docstring of :mod:`sim.druids.rules` draws the board; ``docs/rules-druids.md`` states
the rules.
"""

from __future__ import annotations

import math

# --------------------------------------------------------------------------------------------
# board geometry
# --------------------------------------------------------------------------------------------

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


def _derive_lines() -> tuple[tuple[int, tuple[int, ...]], ...]:
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


_LINES_DERIVED = _derive_lines()
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

# --------------------------------------------------------------------------------------------
# pieces
# --------------------------------------------------------------------------------------------

#: one seat's druid stones
STONES: tuple[int, ...] = (1, 1, 2, 2, 3, 3, 4, 5, 6)
#: megaliths per seat; placing the last one wins
MEGALITHS = 8
MAX_VALUE = max(STONES)

# A hand (multiset of unplaced stones) is one int in a mixed radix: digit v counts the stones of
# value v. Tables indexed by that code replace per-turn sorting and counting in the hot path.
_COUNT_MAX = tuple(STONES.count(v) for v in range(MAX_VALUE + 1))
_WEIGHT: list[int] = [0] * (MAX_VALUE + 1)
_w = 1
for _v in range(1, MAX_VALUE + 1):
    _WEIGHT[_v] = _w
    _w *= _COUNT_MAX[_v] + 1
NUM_HAND_CODES = _w
WEIGHT: tuple[int, ...] = tuple(_WEIGHT)
FULL_HAND = sum(WEIGHT[v] for v in STONES)


def hand_counts(code: int) -> tuple[int, ...]:
    """Counts of each value 0..6 (index 0 unused, always 0) in the hand ``code``."""
    out = [0] * (MAX_VALUE + 1)
    for v in range(1, MAX_VALUE + 1):
        out[v] = code // WEIGHT[v] % (_COUNT_MAX[v] + 1)
    return tuple(out)


def _best_prefix(code: int) -> tuple[int, ...]:
    """best[k] = sum of the k highest stones of the hand (k = 0..longest line), saturating."""
    vals = sorted((v for v in range(MAX_VALUE, 0, -1) for _ in range(hand_counts(code)[v])), reverse=True)
    longest = max(LINE_LENGTH)
    out, s = [0], 0
    for k in range(longest):
        if k < len(vals):
            s += vals[k]
        out.append(s)
    return tuple(out)


#: per hand code: the distinct values held, ascending
HAND_VALUES: tuple[tuple[int, ...], ...] = tuple(
    tuple(v for v in range(1, MAX_VALUE + 1) if hand_counts(c)[v]) for c in range(NUM_HAND_CODES)
)
#: per hand code: best-k prefix sums
HAND_BEST: tuple[tuple[int, ...], ...] = tuple(_best_prefix(c) for c in range(NUM_HAND_CODES))
#: per hand code: number of stones
HAND_SIZE: tuple[int, ...] = tuple(sum(hand_counts(c)) for c in range(NUM_HAND_CODES))
