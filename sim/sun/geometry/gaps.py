"""The ring's gap kernel: the one place the Sun's gap arithmetic is written (docs/sun-physics.md).

Every question about a gap between two standing positions is answered here, on plain numbers: how
far a stone stands from the ray through the gap's middle (:func:`side_clearance`), how wide the gap
is (:func:`width_between`), which separation leaves a given width (:func:`seps_for_widths`, the
width formula inverted), how much room a ball crossing the ring has (:func:`crossing_clearance`,
and :func:`matrix_clearances` for many crossings at once), whether the ball fits
(:func:`passable`), and the chance that a stand's noise makes it touch a neighbour
(:func:`bump_chance`). The ring (``sim.sun.geometry.ring.Ring``), the rules' legality checks and stand
intervals and the agents' quick scoring (``sim.sun.agents.measures.QuickRing``) all call these functions;
none writes the formula out again. Units: metres and radians.

A position enters the kernel as its angle and, on each side, the corners of its stones' real
outline that can be nearest to a ray on that side (:data:`Side`, made by :func:`outline_sides`
from the stones' corners as they stand, in the frame of the position's ray): a stone turned on the
ring, leant, or a stack whose top is shifted is measured on its true rectangles, not on a box
around them. A corner ``(P, Q)`` stands ``P sin h - Q cos h`` from a ray ``h`` rad off the
position's ray; a stone standing as intended has one corner per side, ``(r - d/2, w/2)`` (its
radius, depth and width: :func:`upright_side`), so its clearance is ``(r - d/2) sin h - (w/2) cos h``.
A gap's width is the sum of its two stones' distances from the ray through its middle.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from sim.sun.geometry.specs import TAU

#: a quarter turn (rad): a stone this far or farther from a crossing is no nearer than the ring's
#: other side, so it does not bound the crossing (:func:`crossing_clearance`)
QUARTER = 0.5 * math.pi


Side = tuple[tuple[float, float], ...]
"""One side of a position, as the kernel sees it: the corners ``(P, Q)`` (m) of its stones' outline
that can be nearest to a ray on that side (:func:`outline_sides`). A corner ``(P, Q)`` stands
``P sin h - Q cos h`` from a ray ``h`` rad (0 to a quarter turn) from the position's ray, on that side;
the side stands the least of its corners' distances (the outline is convex per stone, so its distance
from a ray is that of a corner: exact)."""


def upright_side(radius: float, depth: float, width: float) -> Side:
    """The side (either one) of a stone of ``depth`` and ``width`` (m) standing upright, facing the
    centre, its centre at ``radius`` (m) on the position's ray: its inner corner, ``(radius - depth
    / 2, width / 2)`` (the corner nearest every ray between 0 and a quarter turn)."""
    return ((radius - 0.5 * depth, 0.5 * width),)


#: m: corners of a side within this of a kept corner, along and across, are merged into one that
#: covers them (that corner's ``x``, the greatest ``Q``): a stone that leans a hair (a few hundredths
#: of a degree: its top and bottom corners some microns apart) has the corners of an upright one,
#: not two of each. A side's clearance is then at most this much less than exact, never more
#: (a tenth of ``min_clearance``)
CORNER_MERGE = 5e-5


def outline_sides(corners: Sequence[tuple[float, float]]) -> tuple[Side, Side]:
    """``(ccw side, cw side)`` of an outline given by its ``corners`` (m, in the position's frame:
    ``x`` along its ray, ``y`` counter-clockwise across it): on each side, the corners no other
    corner is nearer a ray on that side than for every ray between 0 and a quarter turn (a corner
    ``(x, y)`` with ``x' <= x`` and ``y' >= y`` for another is never the nearest: dropped). The
    counter-clockwise side keeps ``(x, y)``, the clockwise one ``(x, -y)`` (its rays turn the other
    way, so ``P sin h - Q cos h`` holds for both). Corners within :data:`CORNER_MERGE` of each
    other are merged into one that covers them (conservative by at most that)."""
    return _pareto([(x, -y) for x, y in corners]), _pareto(list(corners))


def _pareto(pts: list[tuple[float, float]]) -> Side:
    """The side of corners ``pts`` given as ``(x, -Q)``: sorted by ``x``, then by the larger ``Q``
    first (the tuples' own order: no key function, a hot path of ``position_of``), a corner kept
    when it reaches farther across than all before; one within :data:`CORNER_MERGE` of the last
    kept corner as first found (along and across) raises that corner's ``Q`` to its own instead,
    so that the kept corner covers it."""
    pts.sort()
    kept: list[tuple[float, float]] = []
    best = -math.inf
    kx = kq0 = 0.0  # the last kept corner's x and its Q as first found
    for x, nq in pts:
        q = -nq
        if q <= best:
            continue
        if kept and x - kx <= CORNER_MERGE and q - kq0 <= CORNER_MERGE:
            kept[-1] = (kx, q)  # the last kept corner covers this one (its x is no larger)
        else:
            kept.append((x, q))
            kx, kq0 = x, q
        best = q
    return tuple(kept)


def side_clearance(side: Side, h: float) -> float:
    """Distance (m) from a position's ``side`` to a ray ``h`` rad (0 to a quarter turn) from its
    ray on that side (negative: the ray cuts a stone)."""
    sn, cs = math.sin(h), math.cos(h)
    if len(side) == 1:
        return side[0][0] * sn - side[0][1] * cs
    return min([p * sn - q * cs for p, q in side])


def clearance_to_bisector(radius: float, depth: float, width: float, half_sep: float) -> float:
    """:func:`side_clearance` of a stone given by its centre's ``radius``, its ``depth`` and
    ``width`` (m), standing upright and facing the centre, ``half_sep`` (rad) off the ray through a
    gap's middle. Each stone is measured at its own radius, so that stones pushed off the ring are
    measured where they are."""
    return side_clearance(upright_side(radius, depth, width), half_sep)


def width_between(a_ang: float, a_side: Side, b_ang: float, b_side: Side) -> float:
    """Clear width (m) of the gap from a position at ``a_ang`` (rad) counter-clockwise to one at
    ``b_ang``: ``a_side`` is the first's counter-clockwise side, ``b_side`` the second's clockwise
    side (:data:`Side`), measured perpendicular to the ray through the gap's middle; inf when they
    are a half turn or more apart (such a gap is always wide enough). Both ends are two distinct
    positions (a lone position has no gap)."""
    sep = (b_ang - a_ang) % TAU
    if sep >= math.pi:
        return math.inf
    h = 0.5 * sep
    sn, cs = math.sin(h), math.cos(h)
    # the rules' hot path: sides of one corner (a stone standing as intended) or two (a turned
    # one) written out, more through a list
    n = len(a_side)
    if n == 1:
        ca = a_side[0][0] * sn - a_side[0][1] * cs
    elif n == 2:
        ca, c2 = a_side[0][0] * sn - a_side[0][1] * cs, a_side[1][0] * sn - a_side[1][1] * cs
        if c2 < ca:
            ca = c2
    else:
        ca = _least(a_side, sn, cs)
    n = len(b_side)
    if n == 1:
        cb = b_side[0][0] * sn - b_side[0][1] * cs
    elif n == 2:
        cb, c2 = b_side[0][0] * sn - b_side[0][1] * cs, b_side[1][0] * sn - b_side[1][1] * cs
        if c2 < cb:
            cb = c2
    else:
        cb = _least(b_side, sn, cs)
    return ca + cb


def _least(side: Side, sn: float, cs: float) -> float:
    """The least of ``P sn - Q cs`` over the corners ``(P, Q)`` of ``side`` (m): a side's distance
    from a ray (sine ``sn`` and cosine ``cs`` of its angle). Its own function, not a list in
    :func:`width_between`: a comprehension there made ``sn`` and ``cs`` closure cells, two new
    objects at every call of that hot function."""
    return min([p * sn - q * cs for p, q in side])


def seps_for_widths(a_side: Side, b_side: Side, widths: Sequence[float]) -> list[float | None]:
    """The separation (rad) at which a position whose counter-clockwise side is ``a_side`` and one
    whose clockwise side is ``b_side`` (:data:`Side`, either order: the width is symmetric in them)
    leave a gap of each of ``widths`` (m): :func:`width_between` inverted. The width is the least,
    over a corner of each side, of ``P sin h - Q cos h = R sin(h - atan2(Q, P))`` (``P``, ``Q`` the
    two corners' sums, ``h`` half the separation), each rising with ``h``, so it reaches a width
    where the last of them does; None where one never does below a half turn."""
    if len(a_side) == 1 and len(b_side) == 1:  # stones standing as intended: one pair (the hot path)
        p, q = a_side[0][0] + b_side[0][0], a_side[0][1] + b_side[0][1]
        r = math.hypot(p, q)
        base = math.atan2(q, p)
        one: list[float | None] = []
        for width in widths:
            x = 2.0 * (base + math.asin(width / r)) if width <= r else math.pi
            one.append(x if x < math.pi else None)
        return one
    # each pair's R and atan2(Q, P), once for all the widths
    polar = []  # (a loop, not a comprehension: that made b_side a closure cell at every call)
    for pa, qa in a_side:
        for pb, qb in b_side:
            polar.append((math.hypot(pa + pb, qa + qb), math.atan2(qa + qb, pa + pb)))
    out: list[float | None] = []
    for width in widths:
        sep: float | None = 0.0
        for r, base in polar:
            if width > r:
                sep = None
                break
            x = 2.0 * (base + math.asin(width / r))
            if x >= math.pi:
                sep = None
                break
            if x > sep:  # type: ignore[operator]
                sep = x
        out.append(sep)
    return out


def crossing_clearance(angle: float, a_ang: float, a_side: Side, b_ang: float, b_side: Side, ball_r: float
                       ) -> float:
    """Clear distance (m) between a ball of radius ``ball_r`` (m) crossing the ring at ``angle``
    (rad, on a line through the centre) inside the gap from the position at ``a_ang`` (its
    counter-clockwise side ``a_side``) to the one at ``b_ang`` (its clockwise side ``b_side``) and
    the nearer of those two stones; a stone a quarter turn or more from the crossing counts as 1 m
    away. Negative: it touches."""
    da = (angle - a_ang) % TAU
    db = (b_ang - angle) % TAU
    ca = side_clearance(a_side, da) if da < QUARTER else 1.0
    cb = side_clearance(b_side, db) if db < QUARTER else 1.0
    return min(ca, cb) - ball_r


def matrix_clearances(x: np.ndarray, rows: np.ndarray, kc: int, ball_r: float) -> np.ndarray:
    """:func:`crossing_clearance` of many crossings at once: ``x`` (rad) with, row by row, the gap
    each one's angle falls in as :func:`gap_matrix` lays it out (``rows``: one per crossing,
    gathered from such a matrix of ``kc`` corners per side): its opening's start and span (rad),
    whether it is shut (no opening, or a gate too low), its two positions' angles and their facing
    sides' corners.
    -1 where the crossing is outside the opening or under a closing gate. The vectorised form of
    the same arithmetic (numpy's element-wise sine and cosine: the agents' hot path, hundreds of
    crossings per decision).

    The rows are turned into one column per crossing first, so that every element-wise operation
    runs along contiguous memory, and both sides are worked out together as two rows of one
    array: the first position's offset ``x - a_ang`` and the second's ``-(x - b_ang)``, which is
    ``b_ang - x`` to the bit (IEEE subtraction rounds symmetrically; a sign change is exact). A
    side's least corner is a minimum over its corners (exact in any order)."""
    cols = np.ascontiguousarray(rows.T)
    m = len(x)
    off = np.mod(x - cols[0], TAU)
    span = cols[1]
    inside = (off <= span) & (cols[2] == 0.0)
    d = np.mod((x - cols[3:5]) * _SIGNS, TAU)  # rows: da, db
    h = np.minimum(d, QUARTER)
    corners = (cols[5:5 + 2 * kc].reshape(2, kc, m) * np.sin(h)[:, None]
               - cols[5 + 2 * kc:].reshape(2, kc, m) * np.cos(h)[:, None])
    c = np.where(d < QUARTER, np.minimum.reduce(corners, axis=1), 1.0)
    return np.where(inside, np.minimum(c[0], c[1]) - ball_r, -1.0)


#: the signs that turn rows ``x - a_ang``, ``x - b_ang`` into ``x - a_ang``, ``b_ang - x``
#: (:func:`matrix_clearances`)
_SIGNS = np.array([[1.0], [-1.0]])


#: A gap as :func:`gap_matrix` reads it: start and span of its opening (rad), closed (a gate too
#: low for the ball), its first position's angle and counter-clockwise side, its second's angle and
#: clockwise side (a ring's gaps as ``Ring.gap_arrays`` and ``measures.prefetch_rings`` read them)
GapRow = tuple[float, float, bool, float, Side, float, Side]


#: a side's corners as :func:`gap_matrix` lays them out, by (``id`` of the side, corner count):
#: the side (kept, so that its id stays its own), its corners' first coordinates and their second
#: ones, padded with its first corner. Positions, and their sides, recur on ring after ring.
#: Bounded: emptied when full.
_LAID_OUT: dict[tuple[int, int], tuple[Side, tuple[float, ...], tuple[float, ...]]] = {}
_LAID_OUT_KEPT = 4096


def _laid_out(side: Side, kc: int) -> tuple[Side, tuple[float, ...], tuple[float, ...]]:
    got = _LAID_OUT.get((id(side), kc))
    if got is None or got[0] is not side:
        if len(_LAID_OUT) >= _LAID_OUT_KEPT:
            _LAID_OUT.clear()
        padded = side + (side[0],) * (kc - len(side)) if len(side) < kc else side
        p, q = zip(*padded)
        got = _LAID_OUT[(id(side), kc)] = (side, p, q)
    return got


def gap_matrix(rows: Sequence[GapRow]) -> tuple[np.ndarray, int]:
    """Gap rows as one matrix (one row per gap, so that the rows of many crossings are one gather)
    and its corner count ``k``: columns start, span, shut (1.0 where the opening is empty, span < 0,
    or a gate too low closes it; else 0.0), a_ang, b_ang, then the
    sides' corners (a_p, b_p, a_q, b_q: the corners' two coordinates, ``k`` columns each; a side of
    fewer corners padded with its first, which leaves a least over its corners unchanged)."""
    kc = max((max(len(r[4]), len(r[6])) for r in rows), default=1)
    flat: list[float] = []
    for start, span, closed, a_ang, a_side, b_ang, b_side in rows:
        _, a_p, a_q = _laid_out(a_side, kc)
        _, b_p, b_q = _laid_out(b_side, kc)
        flat += (start, span, 1.0 if closed or span < 0.0 else 0.0, a_ang, b_ang)
        flat += a_p + b_p + a_q + b_q
    return np.array(flat).reshape(len(rows), 5 + 4 * kc), kc


def gate_clear(under: float | None, gate_clear_z: float) -> bool:
    """Whether a gap whose gate's underside is at ``under`` m (None: no gate) lets the ball
    through, given the least passable underside ``gate_clear_z`` (m, ``Geometry.gate_clear_z``)."""
    return under is None or under >= gate_clear_z


def passable(width: float, under: float | None, pass_width: float, gate_clear_z: float) -> bool:
    """Whether the ball fits through a gap ``width`` m wide under a gate at ``under`` m (None: no
    gate): at least ``pass_width`` wide and :func:`gate_clear` (docs/sun-physics.md)."""
    return width >= pass_width and (under is None or under >= gate_clear_z)


def bump_chance(widths: Sequence[float], min_clearance: float, sigma: float) -> float:
    """Chance (0-1) that a stand leaving clear ``widths`` (m) to its neighbours touches one: the
    along-the-ring placement noise (normal, ``sigma`` m) exceeding the room left beyond
    ``min_clearance`` (m) on either side, the sides summed (capped at 1). Infinite widths count
    nothing; with no noise, a side short of ``min_clearance`` counts 1."""
    out = 0.0
    for w in widths:
        free = w - min_clearance
        if not math.isfinite(free):
            continue
        if sigma <= 0.0:
            out += 1.0 if free < 0.0 else 0.0
        else:
            out += 0.5 * math.erfc(free / (sigma * math.sqrt(2.0)))
    return min(1.0, out)


def pad_corners(mat: np.ndarray, kc: int, to: int) -> np.ndarray:
    """A :func:`gap_matrix` of corner count ``kc`` laid out for ``to`` >= ``kc`` corners: each
    side's columns padded with its first corner, as :func:`gap_matrix` pads (the least over a
    side's corners is unchanged, so :func:`matrix_clearances` gives the same numbers)."""
    if to == kc:
        return mat
    cols = list(range(5))
    for grp in range(4):
        c0 = 5 + grp * kc
        cols += list(range(c0, c0 + kc)) + [c0] * (to - kc)
    return mat[:, cols]
