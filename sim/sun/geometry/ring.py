"""The ring of *Stonehenge and the Sun*: the one geometry module for gaps, gates and mark areas.

Every part of the project that asks "how wide is this gap", "can the ball pass under this gate",
"where may a stone stand" uses this module: the layout checks (``sim.sun.table.layout``), the rules
(``sim.sun.rules.state``), the agents, the PyBullet table's ring view (``sim.sun.table.sun_table``), the stability
tool and the viewer. Units: metres and radians.

Conventions
    A *position* (:class:`Pos`) is a stone standing on the base, possibly with a second stone
    stacked on it; it is described by its angle, the radius of its centre, its footprint and the
    height of its top. Its angle and radius, and the angular extent its gaps' openings are cut
    by, are those of its footprint (:func:`footprint`), the least box aligned with the ring that
    covers the horizontal projection of all its stones as they stand (a stacked stone's own offset
    and turn, a stone's yaw and lean). Clearances and gap widths are measured on the stones' real
    outlines, not on that box: each side of a position is the corners of its stones' rectangles as
    they stand (``Pos.ccw``, ``Pos.cw``: ``sim.sun.geometry.gaps.Side``), so a stone turned on the ring costs
    no ring space it does not occupy; and the clearance between stones (``min_clearance``:
    :func:`clear_width`) counts a stack's top only against a neighbour tall enough to reach it.
    Gap ``i`` of a :class:`Ring` runs counter-clockwise from position ``i`` to position ``i + 1``.
Gap width
    Measured perpendicular to the ray through the gap's middle (the path of a pass through the
    middle: a pendulum released from rest swings through the centre): each stone's clearance from
    that ray is ``(r - depth/2) sin(d/2) - (width/2) cos(d/2)`` for an angular separation ``d``
    for a stone standing as intended, which counts the stones' inner corners; for any stone, the
    least over its outline's corners ``(x, y)`` (along and across its ray) of ``x sin h - y cos h``
    (the gap kernel, ``sim.sun.geometry.gaps``, writes it once). A gap wider than a half turn is always
    wide enough.
Passable
    Width at least ball diameter + ``pass_clearance`` and, under a gate, the gate's underside at
    least ``pass_clearance`` above the top of the ball where a pendulum through the centre crosses
    the ring, taken at the ring's outer face (the highest point of the ball under the lintel):
    :attr:`Geometry.gate_clear_z`. Layouts, rules and the table all use this one definition.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from typing import Any, Hashable, Mapping, Sequence

import numpy as np

from sim.core.quaternions import quat_yaw as quat_yaw  # re-exported: the one helper lives in sim/core
from sim.sun.geometry.gaps import (Side, crossing_clearance, gap_matrix, gate_clear, matrix_clearances, outline_sides,
                                   passable, seps_for_widths, upright_side, width_between)
from sim.sun.geometry.specs import DEFAULT_SHAPES, SHAPE_NAMES, TAU, BallSpec, ShapeSpec, TableSpec

_ANGLE = attrgetter("angle")

Pose = tuple[float, float, float, float, float, float, float]
"""``(x, y, z, qx, qy, qz, qw)``: centre (m) and orientation (unit quaternion) of a body."""

# ------------------------------------------------------------------------------------------------
# Geometry
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """The physical parameters the rules need (defaults of docs/sun-physics.md, via ``sim.sun.geometry.specs``).

    Frozen: the derived sizes below are computed once (the rules read them in their hot loops).
    """

    table: TableSpec = field(default_factory=TableSpec)
    ball: BallSpec = field(default_factory=BallSpec)
    shapes: Mapping[str, ShapeSpec] = field(default_factory=lambda: dict(DEFAULT_SHAPES))

    @cached_property
    def pass_width(self) -> float:
        """Least clear width (m) of a passable gap."""
        return self.ball.diameter + self.table.pass_clearance

    @cached_property
    def gate_clear_z(self) -> float:
        """Least gate underside height (m) for a passable gate."""
        t = self.table
        rho = min(t.ring_radius + 0.5 * max(s.depth for s in self.shapes.values()), 0.999 * self.ball.string_length)
        return self.ball.centre_z_at(rho) + self.ball.radius + t.pass_clearance

    @cached_property
    def min_release(self) -> float:
        """Least release distance (m) outside the base edge: a hand span."""
        return self.table.hand_span

    @cached_property
    def max_release(self) -> float:
        """Largest release distance (m) outside the base edge the rules accept (the release point
        at most half the string from the axis)."""
        return max(self.min_release, 0.5 * self.ball.string_length - self.table.base_radius)

    def stone_shapes(self) -> list[str]:
        """Shape of each stone id: pillars, then blocks, then slabs (counts from the shapes)."""
        out: list[str] = []
        for name in SHAPE_NAMES:
            if name in self.shapes:
                out.extend([name] * self.shapes[name].count)
        return out


def pose_yaw(p: Pose) -> float:
    """Heading (rad) of the body's local x axis projected on the base."""
    x, y, z, w = p[3], p[4], p[5], p[6]
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def _zrow(p: Pose) -> tuple[float, float, float]:
    x, y, z, w = p[3], p[4], p[5], p[6]
    return (2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y))


def pose_top(p: Pose, s: ShapeSpec) -> float:
    """Highest point (m) of a stone of shape ``s`` at pose ``p``."""
    a, b, c = _zrow(p)
    return p[2] + 0.5 * (abs(a) * s.depth + abs(b) * s.width + abs(c) * s.height)


def pose_bottom(p: Pose, s: ShapeSpec) -> float:
    """Lowest point (m) of a stone of shape ``s`` at pose ``p``."""
    a, b, c = _zrow(p)
    return p[2] - 0.5 * (abs(a) * s.depth + abs(b) * s.width + abs(c) * s.height)


def pose_tilt(p: Pose) -> float:
    """Angle (rad) between the body's local z axis and the vertical."""
    return math.acos(max(-1.0, min(1.0, _zrow(p)[2])))


def _half_axes(p: Pose, s: ShapeSpec) -> tuple[float, float, float, float, float, float, float, float]:
    """``(cx, cy, dx, dy, wx, wy, hx, hy)``: the base-plane centre of a stone of shape ``s`` at
    pose ``p`` and the base-plane parts of its three half-extent vectors (m): half its depth along
    its local x, half its width along y, half its height along z (the layout's and the table's
    convention; the columns of its rotation matrix, scaled)."""
    x, y, z, w = p[3], p[4], p[5], p[6]
    hd, hw, hh = 0.5 * s.depth, 0.5 * s.width, 0.5 * s.height
    return (p[0], p[1], (1.0 - 2.0 * (y * y + z * z)) * hd, 2.0 * (x * y + w * z) * hd,
            2.0 * (x * y - w * z) * hw, (1.0 - 2.0 * (x * x + z * z)) * hw,
            2.0 * (x * z + w * y) * hh, 2.0 * (y * z - w * x) * hh)


def _extent(p: Pose, s: ShapeSpec, ex: float, ey: float) -> tuple[float, float]:
    """(least, greatest) of ``x ex + y ey`` over the stone of shape ``s`` at pose ``p`` (its
    support function along the unit base direction ``(ex, ey)``, m): its horizontal extent."""
    cx, cy, dx, dy, wx, wy, hx, hy = _half_axes(p, s)
    c = cx * ex + cy * ey
    h = abs(dx * ex + dy * ey) + abs(wx * ex + wy * ey) + abs(hx * ex + hy * ey)
    return c - h, c + h


def footprint(stones: Sequence[tuple[Pose, ShapeSpec]]) -> tuple[float, float, float, float]:
    """``(angle rad in [0, 2 pi), radius m, width m, depth m)`` of the least box aligned with the
    ring (``depth`` along the ray through ``angle``, ``width`` across it, symmetric about the ray)
    that covers the horizontal projection of every stone in ``stones`` (a position's stones,
    bottom first): where the rules put a position and the extent its gaps' openings are cut by
    (docs/rules-sun.md, "What the rules take as a stone's footprint"); its clearances are measured
    on the stones' real outlines instead (:func:`position_of`). The ray is put where the stones'
    extent across it is balanced (one correction from the bottom stone's centre; the rest of the
    imbalance widens the box, so it still covers them). A stone standing upright at the ring radius, turned to face the
    centre, gets its own centre, width and depth back (to rounding)."""
    return _footprint_of([_half_axes(p, s) for p, s in stones])


def _footprint_of(boxes: Sequence[tuple[float, float, float, float, float, float, float, float]]
                  ) -> tuple[float, float, float, float]:
    """:func:`footprint` of stones given by their :func:`_half_axes` (bottom first)."""
    th = math.atan2(boxes[0][1], boxes[0][0])
    if len(boxes) == 1:
        # one stone: a box is point-symmetric about its centre, which lies on this ray, so the
        # extent across it is balanced already (the common case: a hot path of the rules)
        cx, cy, dx, dy, wx, wy, hx, hy = boxes[0]
        c, s_ = math.cos(th), math.sin(th)
        hu = abs(dx * c + dy * s_) + abs(wx * c + wy * s_) + abs(hx * c + hy * s_)
        hv = abs(dy * c - dx * s_) + abs(wy * c - wx * s_) + abs(hy * c - hx * s_)
        u = cx * c + cy * s_
        return th % TAU, u, 2.0 * hv, 2.0 * hu
    for k in range(2):
        c, s_ = math.cos(th), math.sin(th)
        lo = u_lo = math.inf
        hi = u_hi = -math.inf
        for box in boxes:
            u, v, hu, hv = _ray_terms(box, c, s_)
            lo, hi = min(lo, v - hv), max(hi, v + hv)
            u_lo, u_hi = min(u_lo, u - hu), max(u_hi, u + hu)
        mid = 0.5 * (lo + hi)
        if k == 1 or abs(mid) < 1e-12:
            break
        th += math.atan2(mid, 0.5 * (u_lo + u_hi))  # turn the ray onto the middle of the extent
    return th % TAU, 0.5 * (u_lo + u_hi), 2.0 * max(hi, -lo), u_hi - u_lo


def _ray_terms(box: tuple[float, float, float, float, float, float, float, float], c: float, s_: float
               ) -> tuple[float, float, float, float]:
    """``(u, v, hu, hv)`` (m) of a stone given by its :func:`_half_axes` ``box`` and the ray at
    angle ``atan2(s_, c)``: its centre along the ray (outwards) and across it (counter-clockwise),
    and its half extents along and across it (its support function)."""
    cx, cy, dx, dy, wx, wy, hx, hy = box
    return (cx * c + cy * s_, cy * c - cx * s_,
            abs(dx * c + dy * s_) + abs(wx * c + wy * s_) + abs(hx * c + hy * s_),
            abs(dy * c - dx * s_) + abs(wy * c - wx * s_) + abs(hy * c - hx * s_))


#: m: a stack's top stone counts against a neighbour whose top is at most this far below its
#: underside (as ``Ring.lintel_clash`` counts a lintel: touching, not merely passing above)
REACH_MARGIN = 0.001


def _corners(box: tuple[float, float, float, float, float, float, float, float], c: float, sn: float
             ) -> list[tuple[float, float]]:
    """The corners of a stone given by its :func:`_half_axes` ``box``, projected on the base, in
    the frame of the ray at angle ``atan2(sn, c)`` (m: along the ray, counter-clockwise across
    it): eight, or four for a stone standing upright."""
    cx, cy, dx, dy, wx, wy, hx, hy = box
    # in the ray's frame first (a rotation: the same corners), then the eight sums
    u, v = cx * c + cy * sn, cy * c - cx * sn
    du, dv = dx * c + dy * sn, dy * c - dx * sn
    wu, wv = wx * c + wy * sn, wy * c - wx * sn
    hu, hv = hx * c + hy * sn, hy * c - hx * sn
    if abs(hu) < 1e-15 and abs(hv) < 1e-15:  # upright: the height axis projects to a point
        return [(u - du - wu, v - dv - wv), (u - du + wu, v - dv + wv), (u + du - wu, v + dv - wv),
                (u + du + wu, v + dv + wv)]
    return _corners8(u, v, du, dv, wu, wv, hu, hv)


def _corners8(u: float, v: float, du: float, dv: float, wu: float, wv: float, hu: float, hv: float
              ) -> list[tuple[float, float]]:
    """:func:`_corners` of a stone not upright: its eight corners from its centre ``(u, v)`` and
    half-extent vectors (m, in the ray's frame). Its own function: the comprehension in
    :func:`_corners` made its eight terms closure cells, made anew at every call."""
    return [(u + a * du + b * wu + e * hu, v + a * dv + b * wv + e * hv)
            for a in (-1.0, 1.0) for b in (-1.0, 1.0) for e in (-1.0, 1.0)]


def position_of(stone: int, stones: Sequence[tuple[Pose, ShapeSpec]], top: int = -1, first: Pos | None = None) -> Pos:
    """The ring position of bottom stone ``stone`` carrying ``top`` (-1: none): the
    :func:`footprint` of ``stones`` (its stones' poses and shapes, bottom first, as they stand:
    its angle, radius and the box its opening is cut by), the height of its highest point (m),
    and the sides the gap kernel measures clearances on: the real outline of each stone as it
    stands (``gaps.outline_sides``), per stone with its height range (``Pos.layers``). The one
    place a position is made from poses: the rules (``sim.sun.rules.cache``, ``sim.sun.rules.legality``) and
    the table's ring view call it.

    ``first``: a position this function made of the bottom stone alone (``stones[0]``, the very
    pose and shape objects: it keeps them in its memo). Where this position's footprint has the
    same angle, the bottom stone's corners and layer are that position's, the same numbers (they
    depend on the stone and the angle only), and are taken from it (a stack on a position)."""
    known = first.memo.get(_OUTLINE) if first is not None else None
    if known is not None and (known[0] is not stones[0][0] or known[1] is not stones[0][1]):
        known = None  # made of another pose or shape: nothing to take from it
    if known is not None and first is not None and len(stones) == 2:
        made = _stacked_on(stone, first, known, stones[1], top)
        if made is not None:
            return made
    boxes = []  # (a loop: a comprehension would make ``known`` a closure cell, new at every call)
    for k, (p, s) in enumerate(stones):
        boxes.append(known[3] if k == 0 and known is not None else _half_axes(p, s))
    ang, rad, w, d = _footprint_of(boxes)
    c, sn = math.cos(ang), math.sin(ang)
    layers = []
    corners: list[tuple[float, float]] = []
    if known is not None and first is not None and first.angle != ang:
        known = None  # another frame: the bottom stone's corners are computed in it
    for (p, s), box in zip(stones, boxes):
        if known is not None and first is not None:
            corners.extend(known[2])
            layers.append(first.layers[0])
            known = None
            continue
        own = _corners(box, c, sn)
        corners.extend(own)
        ccw, cw = outline_sides(own)
        # pose_bottom and pose_top, their one vertical half extent computed once
        za, zb, zc = _zrow(p)
        hz = 0.5 * (abs(za) * s.depth + abs(zb) * s.width + abs(zc) * s.height)
        layers.append((p[2] - hz, p[2] + hz, ccw, cw))
    top_z = layers[0][1] if len(layers) == 1 else max(lay[1] for lay in layers)
    if len(layers) == 1:
        ccw, cw = layers[0][2], layers[0][3]
    else:
        ccw, cw = outline_sides(corners)
    made = _made_pos(stone, ang, rad, w, d, top_z, top, ccw, cw, tuple(layers))
    if len(stones) == 1:
        made.memo[_OUTLINE] = (stones[0][0], stones[0][1], corners, boxes[0], c, sn)
    return made


#: ``Pos.memo`` key of a one-stone position made by :func:`position_of`: (its stone's pose, shape,
#: corners in the position's frame, ``_half_axes``, the cosine and sine of its angle)
_OUTLINE = "outline"
#: ``Pos.memo`` key of such a position's first footprint pass (:func:`_stacked_on`): the ray
#: through its stone's centre (rad, cosine, sine) and the stone's extents across and along it (m)
_BOTTOM_TERMS = "bottom terms"


def _stacked_on(stone: int, first: Pos, known: tuple[Any, ...], upper: tuple[Pose, ShapeSpec], top: int) -> Pos | None:
    """:func:`position_of` of ``first``'s stone carrying a second stone (``upper``: its pose and
    shape), where ``known`` is ``first``'s ``_OUTLINE`` memo; None where the footprint is not
    balanced on the bottom stone's own ray at once (the caller then runs the general code).

    The same arithmetic, in the same order, as the general code (so the same floats): the
    footprint's first pass from the bottom stone's ray (``_footprint_of``, its bottom-stone terms
    computed again from the same box), and, the angle being ``first``'s, the bottom stone's corners,
    layer and frame taken from ``first``; only the upper stone's box, corners and sides and the
    union's sides are computed (a stack's candidate: the rules make one per base and shape)."""
    # the footprint's first pass over the bottom stone: its ray and extents, which depend on its
    # box only, kept with ``first`` (a position is stacked on with each shape in turn)
    bottom_terms = first.memo.get(_BOTTOM_TERMS)
    if bottom_terms is None:
        box0 = known[3]
        th = math.atan2(box0[1], box0[0])
        c, s_ = math.cos(th), math.sin(th)
        u, v, hu, hv = _ray_terms(box0, c, s_)
        # (min and max with the first pass's start values written out, as below: the same floats)
        x0, x1, x2, x3 = v - hv, v + hv, u - hu, u + hu
        bottom_terms = first.memo[_BOTTOM_TERMS] = (th, c, s_, x0 if x0 < math.inf else math.inf,
                                                     x1 if x1 > -math.inf else -math.inf,
                                                     x2 if x2 < math.inf else math.inf,
                                                     x3 if x3 > -math.inf else -math.inf)
    th, c, s_, lo, hi, u_lo, u_hi = bottom_terms
    p, s = upper
    box1 = _half_axes(p, s)
    u, v, hu, hv = _ray_terms(box1, c, s_)
    # min(a, b) and max(a, b) written out (b if b < a else a; b if b > a else a: the builtins' own
    # choice, ties included), without the builtins' calls: a stack's candidate is made per base and shape
    x0, x1, x2, x3 = v - hv, v + hv, u - hu, u + hu
    lo, hi = (x0 if x0 < lo else lo), (x1 if x1 > hi else hi)
    u_lo, u_hi = (x2 if x2 < u_lo else u_lo), (x3 if x3 > u_hi else u_hi)
    if not abs(0.5 * (lo + hi)) < 1e-12:
        return None  # _footprint_of turns the ray: the general code
    ang = th % TAU
    if ang != first.angle:
        return None
    own = _corners(box1, known[4], known[5])
    ccw, cw = outline_sides(own)
    za, zb, zc = _zrow(p)
    hz = 0.5 * (abs(za) * s.depth + abs(zb) * s.width + abs(zc) * s.height)
    bottom = first.layers[0]
    upper_layer = (p[2] - hz, p[2] + hz, ccw, cw)
    u_ccw, u_cw = outline_sides([*known[2], *own])
    return _made_pos(stone, ang, 0.5 * (u_lo + u_hi), 2.0 * (-lo if -lo > hi else hi), u_hi - u_lo,
                     upper_layer[1] if upper_layer[1] > bottom[1] else bottom[1], top, u_ccw, u_cw, (bottom, upper_layer))


def _made_pos(stone: int, ang: float, rad: float, w: float, d: float, top_z: float, top: int, ccw: Side,
              cw: Side, layers: tuple[tuple[float, float, Side, Side], ...]) -> Pos:
    """``Pos(stone, ang, rad, w, d, top_z, top, ccw=ccw, cw=cw, layers=layers)`` with both sides and
    the layers given (non-empty): the fields set as ``Pos.__init__`` and ``__post_init__`` set
    them, without the dataclass machinery (``position_of`` makes a few positions every turn)."""
    p = _NEW(Pos)
    s_id, s_ang, s_rad, s_w, s_d, s_top_z, s_top, s_ccw, s_cw, s_layers, s_half, s_memo = _POS_SETTERS
    s_id(p, stone)
    s_ang(p, ang)
    s_rad(p, rad)
    s_w(p, w)
    s_d(p, d)
    s_top_z(p, top_z)
    s_top(p, top)
    s_ccw(p, ccw)
    s_cw(p, cw)
    s_layers(p, layers)
    x = 0.5 * w / (1e-9 if 1e-9 > rad else rad)  # (min and max written out, as in _stacked_on)
    s_half(p, math.asin(x if x < 1.0 else 1.0))
    s_memo(p, {})
    return p


@dataclass(frozen=True, slots=True)
class Pos:
    """A ring position: bottom stone ``id`` (and ``top`` stone id or -1), where it is and its size."""

    id: int
    angle: float
    radius: float
    width: float
    depth: float
    top_z: float
    top: int = -1
    #: its counter-clockwise and clockwise sides in the gap kernel (``sim.sun.geometry.gaps.Side``, m): the
    #: corners of its stones' real outline (``position_of``); None: a stone standing as intended,
    #: upright at its ``radius`` and facing the centre (``gaps.upright_side`` of its depth, width)
    #: when not given (empty)
    ccw: Side = field(default=(), repr=False, compare=False)
    cw: Side = field(default=(), repr=False, compare=False)
    #: per stone, bottom first: (lowest z, highest z, ccw side, cw side) (m); not given (empty):
    #: one stone from z = 0 to ``top_z`` with the position's sides
    layers: tuple[tuple[float, float, Side, Side], ...] = field(default=(), repr=False, compare=False)
    #: half its angular width (rad) at its radius (computed once: the rings' hot path reads it)
    half: float = field(init=False, repr=False, compare=False)
    #: results that depend only on this position's fields (and on what the key names), kept with
    #: it: a position recurs on ring after ring while its stones do not move (``sep_for_widths``)
    memo: dict[Hashable, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "half", math.asin(min(1.0, 0.5 * self.width / max(self.radius, 1e-9))))
        if not self.ccw or not self.cw:
            side = upright_side(self.radius, self.depth, self.width)
            object.__setattr__(self, "ccw", side)
            object.__setattr__(self, "cw", side)
        if not self.layers:
            object.__setattr__(self, "layers", ((0.0, self.top_z, self.ccw, self.cw),))
        object.__setattr__(self, "memo", {})

    def side(self, ccw: bool) -> Side:
        """Its counter-clockwise (``ccw``) or clockwise side (``sim.sun.geometry.gaps.Side``)."""
        return self.ccw if ccw else self.cw

    def reach_side(self, ccw: bool, height: float) -> Side:
        """Its side as a stone ``height`` m tall standing on the base beside it meets it: of its
        stones only those whose underside is lower than that stone's top plus
        :data:`REACH_MARGIN` (a stack's top overhanging a lower stone passes above it). The whole
        side for a position of one stone."""
        if len(self.layers) == 1:
            return self.ccw if ccw else self.cw
        key = ("reach", ccw, height)
        known: Side | None = self.memo.get(key)
        if known is None:
            known = self.memo[key] = self._reach_side(ccw, height)
        return known

    def _reach_side(self, ccw: bool, height: float) -> Side:
        """:meth:`reach_side` computed (its memo's miss; its own method, so that its comprehensions
        do not make closure cells at every call of the memo's hits)."""
        reached = [lay[2] if ccw else lay[3] for lay in self.layers if lay[0] < height + REACH_MARGIN]
        if len(reached) == len(self.layers):
            return self.ccw if ccw else self.cw
        if len(reached) == 1:
            return reached[0]
        # (the corners back in the position's frame: a clockwise side keeps (x, -y))
        both = outline_sides([(p, q if ccw else -q) for side in reached for p, q in side])
        return both[0] if ccw else both[1]

    @property
    def ids(self) -> tuple[int, ...]:
        """Stone ids of the position, bottom first."""
        return (self.id,) if self.top < 0 else (self.id, self.top)


_NEW = object.__new__
#: the slots' own setters, in ``_made_pos``'s order (a frozen dataclass is set through them too)
_POS_SETTERS = tuple(getattr(Pos, name).__set__ for name in
                     ("id", "angle", "radius", "width", "depth", "top_z", "top", "ccw", "cw", "layers", "half", "memo"))


def _new_gap(a: Pos, b: Pos) -> tuple[float, float, float]:
    """(start, end, clear width) of the gap from position ``a`` counter-clockwise to ``b`` on a
    ring of two or more positions, as ``Ring.__init__`` computes them (inlined there: its hot loop)."""
    sep = (b.angle - a.angle) % TAU
    return a.angle + a.half, a.angle + sep - b.half, width_between(a.angle, a.ccw, b.angle, b.cw)


class Ring:
    """Positions sorted by angle and the gaps between them.

    Gap ``i`` runs counter-clockwise from position ``i`` to ``i+1`` (its ``key`` is the pair of
    bottom stone ids). With one position there is one gap (from it round to itself); with none,
    :attr:`empty` is true and every angle is open.
    """

    __slots__ = ("pos", "angles", "n", "start", "end", "width", "under", "keys", "index", "lintels", "_arrays", "memo", "_gap_of",
                 "_nearest", "empty")

    def __init__(self, positions: Sequence[Pos], gates: Mapping[tuple[int, int], float],
                 lintels: Sequence[tuple[float, float, float, float]] = (), reuse: Ring | None = None) -> None:
        """``reuse``: a ring whose gaps between the very same :class:`Pos` objects (identical, not
        merely equal) are copied rather than recomputed (a ring one stone away from this one: the
        same values, since a gap depends only on its two positions; its ``under`` is looked up anew).
        Such a gap also shares its :attr:`memo`."""
        #: (start angle, angular span, underside z, top z) of each gate's footprint
        self.lintels = list(lintels)
        self._arrays: tuple[np.ndarray, np.ndarray, int] | None = None
        #: gap_of_angle and nearest_gap answers by angle (a ring never changes; markers are asked often)
        self._gap_of: dict[float, int | None] = {}
        self._nearest: dict[float, int | None] = {}
        self.pos = sorted(positions, key=_ANGLE)
        self.n = n = len(self.pos)
        #: True with no position on the base (``n == 0``: an attribute, not a property, as the
        #: rules ask it thousands of times a game and a ring never changes)
        self.empty: bool = n == 0
        self.angles = [p.angle for p in self.pos]
        self.index = {p.id: i for i, p in enumerate(self.pos)}
        self.start: list[float] = []
        self.end: list[float] = []
        self.width: list[float] = []
        self.under: list[float | None] = []
        self.keys: list[tuple[int, int]] = []
        #: per gap, a memo for results that depend only on the gap's two positions (the very
        #: objects) and on what the memo's key names; a ring reusing the gap shares it
        self.memo: list[dict[Hashable, Any]] = []
        src = reuse if reuse is not None and reuse.n > 1 and n > 1 else None
        s_index: dict[int, int] = src.index if src is not None else {}
        s_pos = src.pos if src is not None else []
        s_start = src.start if src is not None else []
        s_end = src.end if src is not None else []
        s_width = src.width if src is not None else []
        s_memo = src.memo if src is not None else []
        s_n = len(s_pos)
        start, end, width, memo, keys, under = self.start, self.end, self.width, self.memo, self.keys, self.under
        pos = self.pos
        for i in range(n):
            a, b = pos[i], pos[(i + 1) % n]
            k = s_index.get(a.id, -1)
            if k >= 0 and s_pos[k] is a and s_pos[(k + 1) % s_n] is b:
                start.append(s_start[k])
                end.append(s_end[k])
                width.append(s_width[k])
                memo.append(s_memo[k])
            else:
                memo.append({})
                sep = (b.angle - a.angle) % TAU if n > 1 else TAU
                start.append(a.angle + a.half)
                end.append(a.angle + sep - b.half)
                # (a lone position has no gap to itself: inf, as a separation of a whole turn)
                width.append(width_between(a.angle, a.ccw, b.angle, b.cw) if n > 1 else math.inf)
            key = (a.id, b.id)
            keys.append(key)
            under.append(gates.get(key))

    def _spliced(self, pos: list[Pos], angles: list[float]) -> Ring:
        """A new ring of positions ``pos`` (sorted, with their ``angles``) and this ring's lintels,
        fresh caches; its gap lists are for the caller (``plus``, ``minus``) to splice."""
        r = object.__new__(Ring)
        r.lintels = list(self.lintels)
        r._arrays = None
        r._gap_of = {}
        r._nearest = {}
        r.pos = pos
        r.n = len(pos)
        r.empty = r.n == 0
        r.angles = angles
        r.index = {p.id: i for i, p in enumerate(pos)}
        return r

    def plus(self, new: Pos) -> Ring:
        """This ring with one more position (a stand): the same ring as ``Ring(self.pos + [new],
        gates, self.lintels, reuse=self)`` with this ring's gates, built by splicing this ring's
        gap lists (only the two gaps beside ``new`` are computed, as ``__init__`` computes them).

        Raises:
            ValueError: fewer than two positions here (``__init__`` then reuses nothing), or
                ``new``'s stone is already on the ring."""
        n = self.n
        if n < 2 or new.id in self.index:
            raise ValueError("plus() needs a ring of two or more positions and a stone not on it")
        k = bisect_right(self.angles, new.angle)  # where the stable sort by angle puts it
        a, b = self.pos[k - 1], self.pos[k % n]
        r = self._spliced(self.pos[:k] + [new] + self.pos[k:], self.angles[:k] + [new.angle] + self.angles[k:])
        two = [_new_gap(a, new), _new_gap(new, b)]  # (start, end, width) of gaps a -> new and new -> b
        # gap k - 1 (a -> b) gives way to the two new ones; with k == 0 they sit at both ends
        for name, vals in (("start", [t[0] for t in two]), ("end", [t[1] for t in two]),
                           ("width", [t[2] for t in two]), ("memo", [{}, {}]),
                           ("keys", [(a.id, new.id), (new.id, b.id)]), ("under", [None, None])):
            old = getattr(self, name)
            setattr(r, name, old[:k - 1] + vals + old[k:] if k > 0 else [vals[1]] + old[:n - 1] + [vals[0]])
        return r

    def minus(self, stone: int) -> Ring:
        """This ring without the position of bottom stone ``stone`` (a position with no top): the
        same ring as ``Ring([p for p in self.pos if p.id != stone], gates, self.lintels,
        reuse=self)`` with this ring's gates, built by splicing this ring's gap lists (only the gap
        that the two around the stone merge into is computed, as ``__init__`` computes a gap; no
        gate spans it, since its two positions were no neighbours here). A gate check asks it for
        the ring once a stone is taken, and then its nearest gaps: the ring's own, ties included.

        Raises:
            ValueError: fewer than three positions here (``__init__`` then reuses nothing), or
                ``stone`` is no position's bottom, or that position has a top."""
        n = self.n
        k = self.index.get(stone, -1)
        if n < 3 or k < 0 or self.pos[k].top >= 0:
            raise ValueError("minus() needs a ring of three or more positions and a position with no top")
        a, b = self.pos[k - 1], self.pos[(k + 1) % n]
        start, end, w = _new_gap(a, b)
        r = self._spliced(self.pos[:k] + self.pos[k + 1:], self.angles[:k] + self.angles[k + 1:])
        # gaps k - 1 (a -> stone) and k (stone -> b) give way to a -> b; with k == 0 it is the last gap
        for name, val in (("start", start), ("end", end), ("width", w), ("memo", {}),
                          ("keys", (a.id, b.id)), ("under", None)):
            old = getattr(self, name)
            setattr(r, name, old[:k - 1] + [val] + old[k + 1:] if k > 0 else old[1:n - 1] + [val])
        return r

    def replaced(self, new: Pos) -> Ring | None:
        """This ring with the position of ``new``'s bottom stone replaced by ``new`` (a stack laid on
        it, or its top taken), where ``new`` keeps that position's place in the angle order, its
        angle strictly between its neighbours' (else None: the caller builds the ring): the same
        ring as ``Ring`` of the positions with ``new`` swapped in, this ring's gates and lintels and
        ``reuse=self``, built by splicing this ring's gap lists (only the two gaps beside ``new`` are
        computed, as ``__init__`` computes a gap; the keys, and so the gates' ``under``, are unchanged)."""
        n = self.n
        k = self.index.get(new.id, -1)
        angles = self.angles
        if n < 2 or k < 0 or (k > 0 and not angles[k - 1] < new.angle) or (k < n - 1 and not new.angle < angles[k + 1]):
            return None
        r = self._spliced(self.pos[:k] + [new] + self.pos[k + 1:], angles[:k] + [new.angle] + angles[k + 1:])
        start, end, width, memo = list(self.start), list(self.end), list(self.width), list(self.memo)
        for i in ((k - 1) % n, k):
            start[i], end[i], width[i] = _new_gap(r.pos[i], r.pos[(i + 1) % n])
            memo[i] = {}
        r.start, r.end, r.width, r.memo, r.keys, r.under = start, end, width, memo, list(self.keys), list(self.under)
        return r

    def gap_of_angle(self, angle: float) -> int | None:
        """Index of the gap whose opening contains ``angle`` (rad), None on a stone or empty ring."""
        if self.n == 0:
            return None
        known = self._gap_of.get(angle, -1)
        if known != -1:
            return known
        i = (bisect_right(self.angles, angle % TAU) - 1) % self.n
        out = i if self.opening_contains(i, angle) else None
        self._gap_of[angle] = out
        return out

    def opening_contains(self, i: int, angle: float) -> bool:
        """Whether ``angle`` lies in gap ``i``'s clear opening."""
        span = self.end[i] - self.start[i]
        return span >= 0.0 and ((angle - self.start[i]) % TAU) <= span

    def nearest_gap(self, angle: float) -> int | None:
        """The gap containing ``angle``, else the one whose opening is angularly nearest (ties:
        counter-clockwise first); None for an empty ring."""
        g = self.gap_of_angle(angle)
        if g is not None or self.n == 0:
            return g
        if angle in self._nearest:
            return self._nearest[angle]
        best, best_d = None, math.inf
        for i in range(self.n):
            if self.end[i] < self.start[i]:
                continue
            d = min((self.start[i] - angle) % TAU, (angle - self.end[i]) % TAU)
            if d < best_d - 1e-12:
                best, best_d = i, d
        self._nearest[angle] = best
        return best

    def middle(self, i: int) -> float:
        """Angle (rad, in [0, 2 pi)) of the middle of gap ``i``'s opening."""
        return (0.5 * (self.start[i] + self.end[i])) % TAU

    def lintel_clash(self, lo: float, span: float, top_z: float, margin: float = 0.001,
                     skip: int = -1) -> int:
        """Index of a lintel whose footprint overlaps the arc [lo, lo + span] (rad) lower than
        ``top_z`` + ``margin``, or -1."""
        for k, (a, sp, under, _top) in enumerate(self.lintels):
            if k == skip or under > top_z + margin:
                continue
            if arcs_overlap(lo, span, a, sp):
                return k
        return -1

    def passable(self, i: int, g: Geometry) -> bool:
        """Whether the ball fits through gap ``i`` (width, and height under a gate: ``gaps.passable``)."""
        return passable(self.width[i], self.under[i], g.pass_width, g.gate_clear_z)

    def clearance_at(self, angle: float, g: Geometry) -> float:
        """Clear distance (m) between a ball crossing the ring at ``angle`` (on a line through the
        centre) and the nearest stone of the gap it crosses; negative when it would touch, -1 on a
        stone or under an impassable gate, +1 on an empty ring."""
        if self.n == 0:
            return 1.0
        i = self.gap_of_angle(angle)
        if i is None:
            return -1.0
        if not gate_clear(self.under[i], g.gate_clear_z):
            return -1.0
        a, b = self.pos[i], self.pos[(i + 1) % self.n]
        return crossing_clearance(angle, a.angle, a.ccw, b.angle, b.cw, g.ball.radius)

    def gap_arrays(self, g: Geometry) -> tuple[np.ndarray, np.ndarray, int]:
        """The ring as arrays for :meth:`clearances` (and the agents' batched mark areas,
        ``measures.prefetch_rings``): its angles and the ``gaps.gap_matrix`` of
        its gaps (gap ``i`` from position ``i`` to ``i + 1``: the start and span of its opening,
        whether a gate too low closes it, the first position's angle and counter-clockwise side,
        the second's angle and clockwise side), built once per ring (a ring never changes)."""
        if self._arrays is None:
            gz = g.gate_clear_z
            pos = self.pos
            rows = [(s, e - s, not gate_clear(u, gz), a.angle, a.ccw, b.angle, b.cw)
                    for s, e, u, a, b in zip(self.start, self.end, self.under, pos, pos[1:] + pos[:1])]
            mat, kc = gap_matrix(rows)
            self._arrays = (np.array(self.angles), mat, kc)
        return self._arrays

    def clearances(self, angles: np.ndarray, g: Geometry) -> np.ndarray:
        """:meth:`clearance_at` for many angles at once (rad in, m out; ``gaps.matrix_clearances``):
        the agents' hot path, which scores hundreds of candidate lines per decision."""
        if self.n == 0:
            return np.ones_like(angles)
        at, rows, kc = self.gap_arrays(g)
        i = (np.searchsorted(at, np.mod(angles, TAU), side="right") - 1) % self.n
        return matrix_clearances(angles, rows[i], kc, g.ball.radius)


def others_gaps(ring: Ring, markers: Sequence[Sequence[float]], seat: int) -> list[tuple[float, int]]:
    """``(marker angle, its gap)`` of every marker of the seats other than ``seat`` on ``ring``
    (its nearest gap: a marker is always in some gap's area; none on an empty ring)."""
    out = []
    for s, ms in enumerate(markers):
        if s == seat:
            continue
        for m in ms:
            gi = ring.nearest_gap(m)
            if gi is not None:
                out.append((m, gi))
    return out


def others_areas(ring: Ring, markers: Sequence[Sequence[float]], seat: int) -> set[tuple[int, int]]:
    """The other seats' mark areas on ``ring``, as gap keys (:func:`others_gaps`)."""
    keys = ring.keys
    out = set()  # (a loop: a comprehension would make ``ring`` a closure cell)
    for _, gi in others_gaps(ring, markers, seat):
        out.add(keys[gi])
    return out


def arcs_overlap(s1: float, span1: float, s2: float, span2: float) -> bool:
    """Whether arcs [s1, s1 + span1] and [s2, s2 + span2] (rad) overlap."""
    return ((s2 - s1) % TAU) <= span1 or ((s1 - s2) % TAU) <= span2


def lintel_footprint(g: Geometry, shape: str, centre: Sequence[float], axis_xy: Sequence[float]
                     ) -> tuple[float, float]:
    """(start angle, angular span) in rad covered by a lintel seen from the centre: its two ends
    along ``axis_xy`` (unit), padded by half its radial depth."""
    s = g.shapes[shape]
    h = 0.5 * s.lintel_length
    # its two ends, at -h and +h along the axis (written out: gate checks make one per new pair of supports)
    cx, cy, ux, uy = centre[0], centre[1], axis_xy[0], axis_xy[1]
    x0, y0 = cx + -1.0 * h * ux, cy + -1.0 * h * uy
    x1, y1 = cx + 1.0 * h * ux, cy + 1.0 * h * uy
    r = max(min(math.hypot(x0, y0), math.hypot(x1, y1)), 1e-6)
    pad = math.asin(min(1.0, 0.5 * s.lintel_depth / r))
    a0, a1 = math.atan2(y0, x0), math.atan2(y1, x1)
    span = (a1 - a0) % TAU
    if span > math.pi:
        a0, span = a1, TAU - span
    return (a0 - pad) % TAU, span + 2 * pad


def lintel_overlaps(g: Geometry, shape: str, centre_a: Sequence[float], centre_b: Sequence[float],
                    top_a: tuple[Pose, ShapeSpec], top_b: tuple[Pose, ShapeSpec]) -> tuple[float, float]:
    """How far (m) a lintel of ``shape`` laid along the chord from ``centre_a`` to ``centre_b``
    (base-plane points: its supports' bottom stones' centres), centred between them as the table
    lays it (``physics.nominal_pose``), overlaps each support's top stone (``top_a``, ``top_b``:
    pose and shape, as they stand) along its length; negative: it falls short of that stone.
    Measured on the stones' real footprints (a support turned or shifted by a pass may offer a
    lintel much less than its gap width suggests)."""
    ax, ay = centre_b[0] - centre_a[0], centre_b[1] - centre_a[1]
    n = math.hypot(ax, ay) or 1.0
    ex, ey = ax / n, ay / n
    m = 0.5 * ((centre_a[0] + centre_b[0]) * ex + (centre_a[1] + centre_b[1]) * ey)
    h = 0.5 * g.shapes[shape].lintel_length
    a0, a1 = _extent(top_a[0], top_a[1], ex, ey)
    b0, b1 = _extent(top_b[0], top_b[1], ex, ey)
    return min(a1, m + h) - max(a0, m - h), min(b1, m + h) - max(b0, m - h)


def arc_intersection(s1: float, e1: float, s2: float, e2: float) -> tuple[float, float] | None:
    """The first part of the intersection of arcs [s1, e1] and [s2, e2] (rad, e >= s), or None."""
    if e1 < s1 or e2 < s2:
        return None
    if e1 - s1 >= TAU:
        return (s2, e2)
    if e2 - s2 >= TAU:
        return (s1, e1)
    off = (s2 - s1) % TAU
    lo, hi = off, off + (e2 - s2)
    for shift in (0.0, -TAU):
        a, b = max(0.0, lo + shift), min(e1 - s1, hi + shift)
        if b >= a:
            return (s1 + a, s1 + b)
    return None



def sep_for_width(p: Pos, ring_radius: float, s: ShapeSpec, width: float, ccw: bool) -> float | None:
    """Angular separation (rad) from ``p`` at which a new stone of shape ``s`` standing on the ring
    as intended, on ``p``'s counter-clockwise side (``ccw``) or its clockwise side, leaves a gap of
    ``width`` metres (None if impossible below a half turn): ``gaps.seps_for_widths``."""
    return sep_for_widths(p, ring_radius, s, (width,), ccw)[0]


def sep_for_widths(p: Pos, ring_radius: float, s: ShapeSpec, widths: Sequence[float], ccw: bool,
                   side: Side | None = None) -> list[float | None]:
    """:func:`sep_for_width` for each of ``widths`` (m) at once; ``side``: the side of ``p`` to
    measure on, when not its whole ``ccw`` or clockwise side (``Pos.reach_side``)."""
    own = p.side(ccw) if side is None else side
    return seps_for_widths(own, upright_side(ring_radius, s.depth, s.width), widths)


def gap_width(a: Pos, b: Pos) -> float:
    """Clear width (m) between positions ``a`` then ``b`` counter-clockwise (``gaps.width_between``)."""
    return width_between(a.angle, a.ccw, b.angle, b.cw)


def clear_width(a: Pos, b: Pos) -> float:
    """Clear width (m) between the stones of positions ``a`` then ``b`` counter-clockwise that
    meet: :func:`gap_width` over each pair of their stones (``Pos.layers``) whose heights overlap
    (within :data:`REACH_MARGIN`), the least; a stack's top overhanging a lower neighbour does not
    narrow it. What the rules' clearance between stones (``min_clearance``) is measured on."""
    if len(a.layers) == 1 and len(b.layers) == 1:
        return width_between(a.angle, a.ccw, b.angle, b.cw)
    best = math.inf
    for lo_a, hi_a, ccw, _ in a.layers:
        for lo_b, hi_b, _, cw in b.layers:
            if lo_a < hi_b + REACH_MARGIN and lo_b < hi_a + REACH_MARGIN:
                w = width_between(a.angle, ccw, b.angle, cw)
                if w < best:  # (min(best, w), as the builtin chooses)
                    best = w
    return best


def orbit_arc(ring: Ring, g1: int, g2: int) -> tuple[float, float] | None:
    """Release azimuths whose line crosses gap ``g1`` at the release side and ``g2`` opposite."""
    return arc_intersection(ring.start[g1], ring.end[g1], ring.start[g2] - math.pi, ring.end[g2] - math.pi)




def gate_span(pa: Pos, pb: Pos) -> tuple[float, float]:
    """Inner and outer span (m) along the chord between two neighbouring positions.

    The inner span is the clear gap a lintel must bridge (:func:`gap_width`, the short way round);
    the outer span runs from the far edge of one support to the far edge of the other (a longer
    lintel overhangs into the next gaps).
    """
    inner = min(gap_width(pa, pb), gap_width(pb, pa))
    sep = (pb.angle - pa.angle) % TAU
    if sep > math.pi:
        sep = TAU - sep
    r = 0.5 * (pa.radius + pb.radius)
    outer = 2.0 * r * math.sin(0.5 * sep) + 0.5 * (pa.width + pb.width) * math.cos(0.5 * sep)
    return inner, outer


def inside_opening(ring: Ring, i: int | None, angle: float, margin: float) -> bool:
    """Whether ``angle`` (rad) lies in gap ``i``'s opening at least ``margin`` (rad) from both sides."""
    if i is None:
        return False
    off = (angle - ring.start[i]) % TAU
    return margin <= off <= (ring.end[i] - ring.start[i]) - margin
