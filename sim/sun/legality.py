"""Which moves of the Sun are legal: placements (stand, stack, gate), marker moves and passes.

:class:`SunLegality` adds to a :class:`~sim.sun.board.SunBoard` the checks that say why a move is
illegal (``_check_*``: a reason, or None when legal), the exact legal stand angles
(:meth:`SunLegality.stand_intervals`) and the finite candidate lists offered to agents. Angles are
radians inside, degrees in actions. The turn structure that calls them is ``sim.sun.rules``.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from sim.sun.actions import Gate, MoveMarker, Pass, PlaceAction, Stack, Stand
from sim.sun.board import BASE, GATE, TOP, SunBoard
from sim.sun.specs import ShapeSpec
from sim.sun.ring import (
    TAU, Pos, Ring, arcs_overlap, clearance_to_bisector, gap_width, lintel_footprint, orbit_arc, pose_top, sep_for_width,
)

# The legal stand angles are exact intervals (SunState.stand_intervals); the finite candidate list
# offered to agents samples each interval: its two ends moved inwards by SAMPLE_INSET (m along the
# ring, so that a stone aimed there is not a hair from its neighbour), its middle, and the angles
# leaving a neighbour a passable gap plus PASS_MARGIN (m). Agents may play any other legal angle.
SAMPLE_INSET = 0.002
PASS_MARGIN = 0.004
STAND_EPS = 1e-9  # rad: interval ends are moved this far inwards, so that every angle in them is legal
#: rad: a gap's pass-width breakpoints this far outside its room prove that no piece can leave a
#: passable gap (the widths' rounding errors are ~1e-16 m, their slope ~0.1 m/rad)
NO_PASS_MARGIN = 1e-7
FIRST_ANGLES_DEG = tuple(22.5 + 45.0 * k for k in range(8))
AIM_FRACTIONS = (0.5, 0.3, 0.7, 0.15, 0.85)
RELEASE_EXTRA = (0.0, 0.1)


@lru_cache(maxsize=65536)
def degrees_6(angle: float) -> float:
    """``angle`` (rad) in degrees in [0, 360), rounded to 6 decimals: how candidate actions are
    written. Memoised: the same angles recur from turn to turn, and ``round`` is slow."""
    return round(math.degrees(angle % TAU), 6) % 360.0


@dataclass(slots=True)
class StandFacts:
    """What decides a stand's legality apart from its angle, on one ring (metres, radians)."""

    stone: int
    shape: str
    ring: Ring
    radius: float  #: of the stone's centre (the ring radius), m
    inner: float  #: radius minus half the depth (m): its inner face, for the clearance formula
    half_width: float  #: m
    height: float  #: m
    half: float  #: half its angular width (rad) at ``radius``
    sticks_out: bool  #: it would stick out over the base edge
    min_clearance: float  #: m
    local_marker_check: bool  #: standard mode, 2+ positions, not a free turn: the marker check is local
    others: list[tuple[float, int]]  #: other seats' markers and their gaps (``_others_gaps``)
    before: tuple[int, int] | None  #: the mover's area at the start of the turn
    new_gap_rule: bool  #: marker_change is "new_gap"
    pass_width: float  #: m
    #: per gap index, what the checks of a stand in it share (``SunLegality._stand_gap``), filled as asked
    gaps: dict[int, StandGap] = field(default_factory=dict)


@dataclass(slots=True)
class StandGap:
    """What every stand check in one gap shares (:meth:`SunLegality._stand_gap`)."""

    #: the clockwise neighbour, its radius minus half its depth (m), half its width (m), and the same
    #: of the counter-clockwise neighbour (the terms of ``ring.clearance_to_bisector``)
    sides: tuple[Pos, float, float, Pos, float, float]
    in_gap: list[float]  #: angles (rad) of other seats' markers whose nearest gap this is
    ccw_blocked: bool  #: the new ccw gap may not be the mover's area whatever the angle
    cw_blocked: bool  #: the same for the new cw gap


@dataclass(slots=True)
class PlaceFacts:
    """What every stack and gate check of one position shares (the same ring, seat and markers)."""

    ring: Ring
    supports: set[int]  #: bottom stones that carry a gate
    others: set[tuple[int, int]]  #: the other seats' mark areas (ring keys, ``_others_areas``)
    marker_gaps: list[tuple[int, int | None]]  #: (seat, ``ring.gap_of_angle``) of every marker
    lintels: tuple[tuple[float, float, float, float], ...]  #: ``ring.lintels``
    lintels_token: int  #: ``SunLegality._lintels_token(lintels)``
    standard_turn: bool  #: standard mode and not a free turn (the marker move is checked)
    own_gaps: list[int | None]  #: ``ring.gap_of_angle`` of each of the mover's markers
    #: per stone taken for a gate: the ring without it and the mover's marker gaps on that ring
    #: (filled by :meth:`SunLegality._check_gate`; a gate changes only the ``under`` of its gap)
    removal: dict[int, tuple[Ring, list[int | None]]] = field(default_factory=dict)
    #: the stone a placement of each shape takes (``_stone_for``), filled as asked
    stones: dict[str, int] = field(default_factory=dict)
    #: per (shape, support ids): the supports' positions, why no gate of that shape spans them (or None)
    #: and its footprint (start, span in rad), filled by ``SunLegality._check_gate``
    gate_spans: dict[tuple[str, int, int], tuple[Pos, Pos, str | None, float, float]] = field(default_factory=dict)
    #: per top stone: its position once that stone is taken (``_pos_without``), filled as asked
    reverted: dict[int, Pos] = field(default_factory=dict)


class SunLegality(SunBoard):
    """The legality of moves on a Sun position (see the module docstring)."""

    def _place_facts(self) -> PlaceFacts:
        """:class:`PlaceFacts` of the current ring, seat and markers."""
        ring = self.ring()
        return PlaceFacts(
            ring=ring, supports={x for i, r in enumerate(self.role) if r == GATE for x in self.sup[i]},
            others=self._others_areas(ring),
            marker_gaps=[(x, ring.gap_of_angle(m)) for x, ms in enumerate(self.markers) for m in ms],
            lintels=tuple(ring.lintels),
            lintels_token=self._lintels_token(tuple(ring.lintels)),
            standard_turn=self.rules["mode"] == "standard" and not self._first_turn(),
            own_gaps=[ring.gap_of_angle(m) for m in self.markers[self.seat]],
        )

    def _placement_candidates(self) -> list[PlaceAction]:
        ring = self.ring()
        facts = self._place_facts()
        out: list[PlaceAction] = []
        # the facts found here serve the check of the placement chosen from ``out`` while ``out``
        # is the state's legal list (``_legal``: reset whenever the position changes)
        stand_facts: dict[str, StandFacts] = {}
        self._facts_for_legal = (out, facts, stand_facts)
        self._collect_stand_facts = stand_facts
        # a stack on a stacked position or on a gate's support is refused whatever the shape; so is
        # one (after a free turn) beside two impassable gaps: a stack only makes its position wider
        # and deeper, so both gaps stay impassable and no marker move can follow
        pw = self.geom.pass_width
        narrow = ring.n >= 3 and not self._first_turn()
        bases = [k for k, p in enumerate(ring.pos) if p.top < 0 and p.id not in facts.supports
                 and not (narrow and ring.width[k] < pw and ring.width[k - 1] < pw)]
        for shape in self._available_shapes():
            for ang in self.stand_samples(shape):
                out.append(Stand(shape, ang))
            stone = self._stone_for(shape)
            if stone < 0:
                continue  # (as _check_stack: no stone of that shape to stack)
            for k in bases:  # valid positions (see above) for a valid stone: the geometric part
                if self._stack_geometry_problem(shape, stone, k, facts) is None:
                    out.append(Stack(shape, ring.pos[k].id))
        out.extend(self._gate_candidates(ring, facts))
        self._collect_stand_facts = None
        return out

    def _current_place_facts(self) -> PlaceFacts:
        """:meth:`_place_facts`, those of the candidate list while it is current."""
        known = self._known_facts()
        return known[0] if known is not None else self._place_facts()

    def _known_facts(self) -> tuple[PlaceFacts, dict[str, StandFacts]] | None:
        """The facts of the candidate list, while it is the state's legal list (the position
        unchanged since), else None."""
        known = self._facts_for_legal
        if known is not None and self._legal is not None and known[0] is self._legal:
            return known[1], known[2]
        return None

    def stand_intervals(self, shape: str) -> list[tuple[float, float]]:
        """Every angle at which a :class:`Stand` of ``shape`` is legal now, as closed intervals.

        Exact: the legality of a stand changes only where a geometric constraint is met with
        equality: clear of a neighbour by ``min_clearance``; a new gap exactly passable; the new
        stone's edge at a marker or at a lintel's footprint; in orbit mode, its edge opposite
        another gap's edge. Those breakpoints are computed in closed form (``ring.sep_for_width``
        inverts the gap-width formula), and each piece between two breakpoints is legal as a
        whole or not at all, decided by the placement check at its middle. Intervals are moved
        :data:`STAND_EPS` inwards at each end.

        Returns:
            ``(lo, hi)`` pairs in rad with ``lo <= hi`` (``lo`` may be negative or ``hi`` beyond
            2 pi where an interval wraps through 0; reduce with ``% TAU``), counter-clockwise in
            ring order; empty if no stand of that shape is legal.
        """
        if self.phase != "place" or shape not in self.geom.shapes:
            return []
        stone = self._stone_for(shape)
        if stone < 0:
            return []
        g = self.geom
        s = g.shapes[shape]
        r = g.table.ring_radius
        ring = self.ring()
        facts = self._stand_facts(stone, shape)
        collect = self._collect_stand_facts
        if collect is not None:  # computing the candidates: kept for the check of the chosen stand
            collect[shape] = facts
        half = math.asin(min(1.0, 0.5 * s.width / r))
        orbit = self.rules["mode"] == "orbit"
        # Standard mode, not a free turn: a piece's verdict depends only on the gap's two
        # positions, the shape, the piece's ends, the other seats' markers in that gap, whether the
        # mover's area at the start of the turn is one of the two new gaps, and the lintels, so the
        # legal pieces of a gap are kept in the gap's memo under those (tests/sun/
        # test_sun_stand_intervals.py compares them with a state without memos).
        memo_ok = facts.local_marker_check
        in_gap: dict[int, tuple[float, ...]] = {}
        for m, gi in facts.others:
            in_gap[gi] = (*in_gap.get(gi, ()), m)
        lintels = tuple(ring.lintels)
        lintels_token = self._lintels_token(lintels)
        before = facts.before
        flat = [m for ms in self.markers for m in ms]
        min_clearance, pass_width = g.table.min_clearance, g.pass_width
        two_eps = 2.0 * STAND_EPS
        n = ring.n
        out: list[tuple[float, float]] = []
        gaps: Any = zip(range(n), ring.under, ring.memo) if n else ((-1, None, None),)
        for i, under, memo in gaps:
            if under is not None:
                continue
            if memo is None:
                lo, hi, cuts = 0.0, TAU, []
                c_a, c_b = math.inf, -math.inf
            else:
                geo = memo.get(shape)
                if geo is None:
                    a, b = ring.pos[i], ring.pos[(i + 1) % n]
                    sep = (b.angle - a.angle) % TAU if n > 1 else TAU
                    lo = a.angle + self._stand_limit(a, r, s, min_clearance)
                    hi = a.angle + sep - self._stand_limit(b, r, s, min_clearance)
                    c_a = a.angle + self._stand_limit(a, r, s, pass_width)
                    c_b = a.angle + sep - self._stand_limit(b, r, s, pass_width)
                    # 1: no room for the stone; 2: room, but neither new gap can be passable anywhere
                    # in [lo, hi] (each width grows monotonically away from its neighbour and
                    # reaches the pass width only beyond c_a, before c_b), so the marker check
                    # refuses every piece when it is made (memo_ok): no legal stand here either
                    skip = 1 if hi <= lo else 2 if c_a >= hi + NO_PASS_MARGIN and c_b <= lo - NO_PASS_MARGIN else 0
                    geo = memo[shape] = (lo, hi, c_a, c_b, skip)
                if geo[4] and (geo[4] == 1 or memo_ok):
                    continue
                lo, hi, c_a, c_b, _ = geo
                a, b = ring.pos[i], ring.pos[(i + 1) % n]
                base = a.angle
                cuts = [c_a, c_b]
                for m in flat:
                    m0 = base + (m - base) % TAU
                    cuts += [m0, m0 - half, m0 + half]
                for l0, lsp, _u, _t in lintels:
                    cuts += [l0 - half, l0 + lsp + half]
                if orbit:
                    for j in range(n):
                        for e in (ring.start[j], ring.end[j]):
                            cuts += [e + math.pi - half, e + math.pi + half]
            inner = set()
            for c in cuts:
                c = lo + (c - lo) % TAU  # the copy of the angle at or after lo
                if lo < c < hi:
                    inner.add(c)
            edges = (lo, *sorted(inner), hi)
            key: tuple[Any, ...] | None = None
            pieces: list[tuple[float, float]] | None = None
            if memo_ok and memo is not None:
                key = (shape, edges, in_gap.get(i, ()), lintels_token, facts.new_gap_rule,
                       before == (a.id, stone), before == (stone, b.id))
                pieces = memo.get(key)
            if pieces is None:
                pieces = []
                for x0, x1 in zip(edges, edges[1:]):
                    if x1 - x0 <= two_eps:
                        continue
                    mid = 0.5 * (x0 + x1)
                    if memo_ok and c_b + NO_PASS_MARGIN <= mid <= c_a - NO_PASS_MARGIN:
                        continue  # neither new gap passable here (see above): refused by the marker check
                    certain = self._stand_piece_certain(facts, i, a.angle, mid, lo, hi, c_a, c_b) \
                        if memo_ok and not lintels else None
                    if certain is None:
                        # the placement check itself (its geometric part; the stone is known): the same
                        # degrees round trip as a Stand action, so the piece's verdict is the action's
                        certain = self._stand_check_at(stone, shape, math.radians(math.degrees(mid % TAU)) % TAU,
                                                       facts) is None
                    if certain:
                        pieces.append((x0, x1))
                if key is not None and memo is not None:
                    memo[key] = pieces
            for x0, x1 in pieces:
                if out and abs(out[-1][1] - (x0 + STAND_EPS)) <= 4.0 * STAND_EPS:
                    out[-1] = (out[-1][0], x1 - STAND_EPS)  # joins the previous legal piece
                else:
                    out.append((x0 + STAND_EPS, x1 - STAND_EPS))
        return out

    def _stand_piece_certain(self, f: StandFacts, i: int, a_angle: float, mid: float, lo: float, hi: float,
                             c_a: float, c_b: float) -> bool | None:
        """The verdict of :meth:`_stand_check_at` at ``mid`` (rad, in gap ``i`` whose clockwise
        position is at ``a_angle``; no lintel on the ring; standard mode, the local marker check)
        where it is certain without computing the widths, else None (the caller runs the check).

        Every comparison the check makes is decided here only with :data:`NO_PASS_MARGIN` to
        spare: the stone clears both neighbours strictly inside [lo, hi]; the new clockwise gap
        is passable beyond ``c_a`` and not before, the counter-clockwise one before ``c_b`` and not
        beyond (each width grows monotonically away from its neighbour); another seat's marker
        in the gap blocks the new gap on its side of the stone."""
        m_ = NO_PASS_MARGIN
        if f.sticks_out or not (lo + m_ <= mid <= hi - m_):
            return None
        gap = f.gaps.get(i)
        if gap is None:
            gap = f.gaps[i] = self._stand_gap(f, i)
        split = mid - a_angle  # in (0, the gap's separation): no wrap
        ccw_blocked, cw_blocked = gap.ccw_blocked, gap.cw_blocked
        for m in gap.in_gap:
            rel = (m - a_angle) % TAU
            if abs(rel - split) < m_:
                return None
            if rel < split:
                cw_blocked = True
            else:
                ccw_blocked = True
        ccw_passable = mid <= c_b - m_
        cw_passable = mid >= c_a + m_
        if (not ccw_blocked and ccw_passable) or (not cw_blocked and cw_passable):
            return True
        if (ccw_blocked or mid >= c_b + m_) and (cw_blocked or mid <= c_a - m_):
            return False
        return None

    @staticmethod
    def _stand_limit(p: Pos, r: float, s: ShapeSpec, width: float) -> float:
        """The angular separation (rad) from ``p`` at which a stone of shape ``s`` on the ring of
        radius ``r`` (m) leaves a gap of ``width`` m (a half turn if none below a half turn does)."""
        x = sep_for_width(p, r, s, width)
        return math.pi if x is None else x

    def stand_samples(self, shape: str) -> list[float]:
        """A finite sample (degrees in [0, 360), each one legal) of :meth:`stand_intervals`: per
        interval its ends moved :data:`SAMPLE_INSET` inwards, its middle, and the angles that leave
        either neighbour a passable gap plus :data:`PASS_MARGIN`."""
        g = self.geom
        s = g.shapes.get(shape)
        if s is None:
            return []
        r = g.table.ring_radius
        ring = self.ring()
        out: list[float] = []
        degs: list[float] | None
        for lo, hi in self.stand_intervals(shape):
            if ring.empty:
                degs = [degrees_6(math.radians(d)) for d in FIRST_ANGLES_DEG]
            else:
                i = (bisect_right(ring.angles, (0.5 * (lo + hi)) % TAU) - 1) % ring.n
                memo = ring.memo[i]  # the samples depend on the interval, the gap's positions, the shape
                degs = memo.get((shape, lo, hi))
                if degs is None:
                    inset = min(SAMPLE_INSET / r, 0.25 * (hi - lo))
                    cands = [0.5 * (lo + hi), lo + inset, hi - inset]
                    a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
                    for p, sign in ((a, 1.0), (b, -1.0)):
                        d = sep_for_width(p, r, s, g.pass_width + PASS_MARGIN)
                        if d is not None:
                            x = p.angle + sign * d
                            x = lo + (x - lo) % TAU
                            if lo < x < hi:
                                cands.append(x)
                    degs = memo[(shape, lo, hi)] = [degrees_6(c) for c in cands]
            for deg in degs:
                # inside an exact interval, so legal (tests/sun/test_sun_stand_intervals.py checks it);
                # kept unless within 0.05 deg of one kept before
                for o in out:
                    if not abs((deg - o + 180.0) % 360.0 - 180.0) > 0.05:
                        break
                else:
                    out.append(deg)
        return out

    def _check_place(self, a: object) -> str | None:
        """Why placement ``a`` is illegal now, or None if legal."""
        if isinstance(a, Stand):
            return self._check_stand(a)
        if isinstance(a, Stack):
            return self._check_stack(a)
        if isinstance(a, Gate):
            return self._check_gate(a)
        return "not a placement (Stand, Stack or Gate)"

    def _check_stand(self, a: Stand) -> str | None:
        if a.shape not in self.geom.shapes:
            return f"unknown shape {a.shape!r}"
        if not isinstance(a.angle, (int, float)) or not math.isfinite(a.angle):
            return "angle must be a finite number of degrees"
        stone = self._stone_for(a.shape)
        if stone < 0:
            return f"no {a.shape} available in the field" if self.rules["field"] == "open" else \
                f"the drawn stone is not a {a.shape}"
        known = self._known_facts()
        facts = known[1].get(a.shape) if known is not None else None
        if facts is not None and facts.stone != stone:
            facts = None
        return self._stand_check_at(stone, a.shape, math.radians(a.angle) % TAU, facts)

    def _lintels_token(self, lintels: tuple[tuple[float, float, float, float], ...]) -> int:
        """A small number standing for ``lintels`` in memo keys (equal lintels, equal numbers; a
        number is cheaper to hash than the lintels, which every key would hash again)."""
        return self._lintel_tokens.setdefault(lintels, len(self._lintel_tokens))

    def _stand_facts(self, stone: int, shape: str) -> StandFacts:
        """What :meth:`_stand_check_at` needs for stone ``stone`` of ``shape`` on the current ring,
        whatever the angle (computed once per :meth:`stand_intervals` call, not once per piece)."""
        g = self.geom
        s = g.shapes[shape]
        r = g.table.ring_radius
        ring = self.ring()
        local = self.rules["mode"] == "standard" and ring.n >= 2 and not self._first_turn()
        return StandFacts(
            stone=stone, shape=shape, ring=ring, radius=r, inner=r - 0.5 * s.depth, half_width=0.5 * s.width,
            height=s.height, half=math.asin(min(1.0, 0.5 * s.width / max(r, 1e-9))),
            sticks_out=r + 0.5 * s.depth > g.table.base_radius, min_clearance=g.table.min_clearance,
            local_marker_check=local, others=self._others_gaps(ring) if local else [],
            before=self.area_before[self.seat], new_gap_rule=self.rules["marker_change"] == "new_gap",
            pass_width=g.pass_width,
        )

    def _stand_check_at(self, stone: int, shape: str, ang: float, facts: StandFacts | None = None) -> str | None:
        """The geometric part of :meth:`_check_stand`: stone ``stone`` of ``shape`` at ``ang`` (rad,
        in [0, 2 pi)); :meth:`stand_intervals` calls it once per piece with the stone known and
        ``facts`` (:meth:`_stand_facts`, which must be of this stone, shape and position)."""
        f = self._stand_facts(stone, shape) if facts is None else facts
        if f.sticks_out:
            return "the stone would stick out over the base edge"
        ring = f.ring
        if ring.lintels and ring.lintel_clash(ang - f.half, 2 * f.half, f.height) >= 0:
            return "it would hit a gate"
        if not ring.empty:
            i = (bisect_right(ring.angles, ang) - 1) % ring.n
            if ring.under[i] is not None:
                return "cannot stand a stone under a gate"
            gap = f.gaps.get(i)
            if gap is None:
                gap = f.gaps[i] = self._stand_gap(f, i)
            left, l_inner, l_half_width, right, r_inner, r_half_width = gap.sides
            # the clear widths of the two new gaps (layout.clearance_to_bisector of each stone, summed;
            # inf beyond a half turn, as ring.gap_width): the clearance check and the marker check
            sep = (ang - left.angle) % TAU
            if sep >= math.pi:
                w_cw = math.inf
            else:
                h = 0.5 * sep
                sn, cs = math.sin(h), math.cos(h)
                w_cw = (l_inner * sn - l_half_width * cs) + (f.inner * sn - f.half_width * cs)
                if w_cw < f.min_clearance:
                    return f"not clear of stone #{left.id}"
            sep = (right.angle - ang) % TAU
            if sep >= math.pi:
                w_ccw = math.inf
            else:
                h = 0.5 * sep
                sn, cs = math.sin(h), math.cos(h)
                w_ccw = (r_inner * sn - r_half_width * cs) + (f.inner * sn - f.half_width * cs)
                if w_ccw < f.min_clearance:
                    return f"not clear of stone #{right.id}"
            if f.local_marker_check:
                return None if self._stand_marker_fast(f, gap, ang, w_cw, w_ccw) else \
                    "no legal marker move would follow"
        s = self.geom.shapes[shape]
        return self._check_marker_after(stone, new_pos=Pos(stone, ang, f.radius, s.width, s.depth, s.height))

    def _stand_gap(self, f: StandFacts, i: int) -> StandGap:
        """:class:`StandGap` of gap ``i`` of ``f.ring`` for the stone of ``f``."""
        ring = f.ring
        a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
        k_cw, k_ccw = (a.id, f.stone), (f.stone, b.id)
        others = {ring.keys[g] for m, g in f.others if g != i}
        return StandGap(
            sides=(a, a.radius - 0.5 * a.depth, 0.5 * a.width, b, b.radius - 0.5 * b.depth, 0.5 * b.width),
            in_gap=[m for m, g in f.others if g == i],
            ccw_blocked=k_ccw in others or (k_ccw == f.before and f.new_gap_rule),
            cw_blocked=k_cw in others or (k_cw == f.before and f.new_gap_rule),
        )

    def _others_gaps(self, ring: Ring) -> list[tuple[float, int]]:
        """``(marker angle, its gap on ring)`` for every other seat's marker (none on an empty ring)."""
        out = []
        for s_, ms in enumerate(self.markers):
            if s_ == self.seat:
                continue
            for m in ms:
                g = ring.nearest_gap(m)
                if g is not None:
                    out.append((m, g))
        return out

    def _stand_marker_fast(self, f: StandFacts, gap: StandGap, ang: float, w_cw: float, w_ccw: float) -> bool:
        """Standard mode: is there a legal marker move after standing the stone of ``f`` at ``ang``
        in ``gap``, leaving new gaps of clear widths ``w_cw`` (from the clockwise neighbour) and
        ``w_ccw`` (m)? A new gap is refused when another seat's area is it (their marker in the old
        gap, on its side of the new stone, or another gap with the same key) or, under the new_gap
        rule, it is the mover's area at the start of the turn. Local computation equal to
        :meth:`_marker_options` on the full ring (a test checks this)."""
        a_angle = gap.sides[0].angle
        split_at = (ang - a_angle) % TAU
        ccw_blocked, cw_blocked = gap.ccw_blocked, gap.cw_blocked
        for m in gap.in_gap:
            if (m - a_angle) % TAU < split_at:
                cw_blocked = True
            else:
                ccw_blocked = True
        return (not ccw_blocked and w_ccw >= f.pass_width) or (not cw_blocked and w_cw >= f.pass_width)

    def _check_stack(self, a: Stack, facts: PlaceFacts | None = None) -> str | None:
        """Why stack ``a`` is illegal now, or None. ``facts``: :meth:`_place_facts` of this position,
        when the caller has them (the candidate loop checks many stacks of one position)."""
        return self._stack_problem(a.shape, a.on, facts)

    def _stack_problem(self, shape: str, on: object, facts: PlaceFacts | None = None) -> str | None:
        """:meth:`_check_stack` of ``Stack(shape, on)``."""
        if shape not in self.geom.shapes:
            return f"unknown shape {shape!r}"
        if facts is None:
            stone = self._stone_for(shape)
        else:
            stone = facts.stones.get(shape, -2)
            if stone == -2:
                stone = facts.stones[shape] = self._stone_for(shape)
        if stone < 0:
            return f"no {shape} available"
        if not isinstance(on, int) or not 0 <= on < len(self.role) or self.role[on] != BASE:
            return f"#{on} is not a stone standing on the base"
        ring = self.ring()
        k = ring.index[on]
        p = ring.pos[k]
        if p.top >= 0:
            return "at most two levels"
        if facts is None:
            facts = self._current_place_facts()
        if on in facts.supports:
            return "a gate rests on it"
        return self._stack_geometry_problem(shape, stone, k, facts)

    def _stack_geometry_problem(self, shape: str, stone: int, k: int, facts: PlaceFacts) -> str | None:
        """:meth:`_stack_problem` once the stone (``stone`` of ``shape``) and the position (index
        ``k`` of ``facts.ring``, on the base, no top, no gate on it) are known to be valid."""
        ring = facts.ring
        p = ring.pos[k]
        memo = ring.memo[k]  # of the gap from this position to the next: kept while both are
        dims = memo.get(("stack", shape))
        if dims is None:
            s = self.geom.shapes[shape]
            width = max(p.width, s.width)
            # the stack's width, depth, top (m) and half angular width (rad), as Pos computes them
            dims = memo[("stack", shape)] = (width, max(p.depth, s.depth), p.top_z + s.height,
                                             math.asin(min(1.0, 0.5 * width / max(p.radius, 1e-9))))
        width, depth, top_z, half = dims
        local = facts.standard_turn and ring.n >= 3
        if local and width != p.width:
            for ms in self.markers:
                for m in ms:
                    if abs((m - p.angle + math.pi) % TAU - math.pi) <= half:
                        local = False  # the stack would cover a marker: the full check
        memo_key: tuple[Any, ...] | None = None
        k0 = (k - 1) % ring.n
        if local:
            # the verdict below depends only on the position, its two neighbours (the gap memo is
            # of this position and the next; the previous one is kept with the verdict), the
            # shape, the lintels and the two gaps' gates, other seats' areas and the mover's area
            before = self.area_before[self.seat]
            memo_key = ("stack", shape, facts.lintels_token, ring.under[k], ring.under[k0], ring.keys[k] in facts.others,
                        ring.keys[k0] in facts.others, ring.keys[k] == before, ring.keys[k0] == before,
                        self.rules["marker_change"])
            known = memo.get(memo_key)
            if known is not None and known[0] is ring.pos[k0]:
                return known[1]
        why = self._stack_verdict(ring, p, dims, stone, local, facts)
        if memo_key is not None:
            memo[memo_key] = (ring.pos[k0], why)
        return why

    def _stack_verdict(self, ring: Ring, p: Pos, size: tuple[float, float, float, float], stone: int, local: bool,
                       facts: PlaceFacts) -> str | None:
        """The geometric part of :meth:`_check_stack`: stacking ``stone`` makes position ``p``
        ``size`` = (width m, depth m, top m, half angular width rad); ``local``: the marker check
        may be done locally (:meth:`_stack_marker_fast`)."""
        width, depth, top_z, half = size
        if ring.lintels and ring.lintel_clash(p.angle - half, 2 * half, top_z) >= 0:
            return "the stack would hit a gate"
        if ring.n > 1:
            k = ring.index[p.id]
            for q, sep in ((ring.pos[k - 1], (p.angle - ring.pos[k - 1].angle) % TAU),
                           (ring.pos[(k + 1) % ring.n], (ring.pos[(k + 1) % ring.n].angle - p.angle) % TAU)):
                if q.id == p.id or sep >= math.pi:
                    continue
                h = 0.5 * sep
                if clearance_to_bisector(q.radius, q.depth, q.width, h) + clearance_to_bisector(p.radius, depth, width, h) \
                        < self.geom.table.min_clearance:
                    return f"the stack would not be clear of stone #{q.id}"
        if local:
            return None if self._stack_gaps_ok(ring, ring.index[p.id], p.angle, p.radius, width, depth, facts.others) \
                else "no legal marker move would follow"
        return self._check_marker_after(stone, new_pos=Pos(p.id, p.angle, p.radius, width, depth, top_z, stone))

    def _stack_marker_fast(self, ring: Ring, k: int, new: Pos, others: set[tuple[int, int]] | None = None) -> bool:
        """Standard mode, a stack that covers no marker: is there a legal marker move after it?
        Every marker keeps its gap and the keys are unchanged; only the two gaps beside the
        position get the stack's width and depth. Equal to :meth:`_marker_options` on the full
        ring (tests/sun/test_sun_stand_intervals.py checks it on random games). ``others``: the
        other seats' areas on ``ring`` (:meth:`_others_areas`), when the caller has them."""
        return self._stack_gaps_ok(ring, k, new.angle, new.radius, new.width, new.depth, others)

    def _stack_gaps_ok(self, ring: Ring, k: int, angle: float, radius: float, width: float, depth: float,
                       others: set[tuple[int, int]] | None = None) -> bool:
        """:meth:`_stack_marker_fast` for position ``k`` grown to ``width`` and ``depth`` (m), at
        ``angle`` (rad) and ``radius`` (m): is one of its two gaps, at its new width, passable and
        open to the mover?"""
        if others is None:
            others = self._others_areas(ring)
        new_gap_rule = self.rules["marker_change"] == "new_gap"
        before = self.area_before[self.seat]
        g = self.geom
        nxt, prev = ring.pos[(k + 1) % ring.n], ring.pos[k - 1]
        for gi, q, sep in ((k, nxt, (nxt.angle - angle) % TAU), ((k - 1) % ring.n, prev, (angle - prev.angle) % TAU)):
            key = ring.keys[gi]
            if key in others or (new_gap_rule and key == before):
                continue
            if sep >= math.pi:
                w = math.inf
            else:  # ring.gap_width of the grown position and its neighbour
                h = 0.5 * sep
                w = clearance_to_bisector(radius, depth, width, h) + clearance_to_bisector(q.radius, q.depth, q.width, h) \
                    if gi == k else \
                    clearance_to_bisector(q.radius, q.depth, q.width, h) + clearance_to_bisector(radius, depth, width, h)
            u = ring.under[gi]
            if w >= g.pass_width and (u is None or u >= g.gate_clear_z):
                return True
        return False

    def _ring_with(self, new_pos: Pos | None = None, removed: int = -1,
                   gate: tuple[int, int, float] | None = None) -> Ring:
        ring = self.ring()
        positions = [p for p in ring.pos if p.id != removed and (new_pos is None or p.id != new_pos.id)]
        if removed >= 0 and self.role[removed] == TOP:
            b = self.sup[removed][0]
            positions = [p for p in positions if p.id != b]
            p0 = ring.pos[ring.index[b]]
            s = self.geom.shapes[self.shapes[b]]
            positions.append(replace(p0, width=s.width, depth=s.depth, top_z=pose_top(self.pose[b], s), top=-1))
        if new_pos is not None:
            positions.append(new_pos)
        gates = {ring.keys[i]: u for i, u in enumerate(ring.under) if u is not None}
        if gate is not None:
            gates[(gate[0], gate[1])] = gate[2]
        return Ring(positions, gates, ring.lintels, reuse=ring)

    def _check_marker_after(self, stone: int, new_pos: Pos) -> str | None:
        if self._first_turn():
            return None
        ring = self._ring_with(new_pos=new_pos)
        if not self._marker_options(ring, anchor=new_pos.id):
            return "no legal marker move would follow"
        return None

    def _others_areas(self, ring: Ring) -> set[tuple[int, int]]:
        out = set()
        for s, ms in enumerate(self.markers):
            if s == self.seat:
                continue
            for a in ms:
                g = ring.nearest_gap(a)
                if g is not None:
                    out.add(ring.keys[g])
        return out

    def _marker_options(self, ring: Ring, anchor: int | None = None) -> list[MoveMarker]:
        """Legal marker moves after the stone (position ``anchor``) was stood, on ``ring``."""
        if anchor is None:
            anchor = self._anchor()
        if anchor is None or anchor not in ring.index:
            return []
        g = self.geom
        k = ring.index[anchor]
        sides = [("ccw", k), ("cw", (k - 1) % ring.n)]
        if ring.n == 1:
            sides = sides[:1]
        others = self._others_areas(ring)
        before = self.area_before[self.seat]
        out: list[MoveMarker] = []
        orbit = self.rules["mode"] == "orbit"
        new_gap_rule = self.rules["marker_change"] == "new_gap"
        for m in range(len(self.markers[self.seat])):
            other_gap = None
            if orbit:
                other_gap = ring.nearest_gap(self.markers[self.seat][1 - m])
                if other_gap is None or not ring.passable(other_gap, g):
                    continue
            for side, gi in sides:
                key = ring.keys[gi]
                if key in others or not ring.passable(gi, g):
                    continue
                if not orbit and key == before and new_gap_rule:
                    continue
                if orbit:
                    old = ring.nearest_gap(self.markers[self.seat][m])
                    if old is not None and ring.keys[old] == key and new_gap_rule:
                        continue
                    if not self._line_exists(ring, gi, other_gap):  # type: ignore[arg-type]
                        continue
                out.append(MoveMarker(side, m))
        return out

    @staticmethod
    def _line_exists(ring: Ring, g1: int, g2: int) -> bool:
        return orbit_arc(ring, g1, g2) is not None

    def _anchor(self) -> int | None:
        """Bottom stone id of the position just stood on (the marker's anchor)."""
        if self.placed < 0:
            return None
        return self.sup[self.placed][0] if self.role[self.placed] == TOP else self.placed

    def _gate_candidates(self, ring: Ring, facts: PlaceFacts | None = None) -> list[Gate]:
        """The legal gates now (every stone that may be taken, over every pair of neighbours that
        could carry it). ``facts``: :meth:`_place_facts` of this position, when the caller has them."""
        if ring.n < 3:
            return []
        if facts is None:
            facts = self._place_facts()
        supports = facts.supports
        takeable = [i for i, r in enumerate(self.role)
                    if (r == BASE and i not in supports and ring.pos[ring.index[i]].top < 0)
                    or (r == TOP and self.sup[i][0] not in supports)]
        # Pairs of neighbours that no gate can span whatever stone is taken, unless that stone is
        # the top of one of them: a support carries a gate, a gate spans them, their tops differ by
        # more than level_tolerance, or the gap is wider than the longest lintel allows.
        longest = max(self.geom.shapes[self.shapes[st]].lintel_length for st in takeable) if takeable else 0.0
        most = longest - 2.0 * self.geom.table.gate_min_overlap
        static_ok = []
        tol = self.rules["level_tolerance"]
        for i in range(ring.n):
            pa, pb = ring.pos[i], ring.pos[(i + 1) % ring.n]
            # ring.width[i] is gap_width(pa, pb) (the same formula; the ring has 3+ positions)
            static_ok.append(pa.id not in supports and pb.id not in supports and ring.under[i] is None
                             and abs(pa.top_z - pb.top_z) <= tol and ring.width[i] <= most)
        out = []
        static_gaps = [i for i in range(ring.n) if static_ok[i]]
        widest_of: dict[str, float] = {}  # per shape: the widest gap its lintel spans (m)
        for st in takeable:
            below = self.sup[st][0] if self.role[st] == TOP else -1
            gaps = static_gaps
            if below >= 0:  # the gaps beside the stack's bottom may pass once the top is taken
                kb = ring.index[below]
                gaps = sorted({*static_gaps, (kb - 1) % ring.n, kb})
            pairs = []  # (a, b, the gap between them on this ring or -1)
            for i in gaps:
                a, b = ring.keys[i]
                if st != a and st != b:
                    pairs.append((a, b, i))
            if self.role[st] == BASE:
                k = ring.index[st]
                pairs.append((ring.pos[k - 1].id, ring.pos[(k + 1) % ring.n].id, -1))
            widest = widest_of.get(self.shapes[st], -1.0)
            if widest < 0.0:
                widest = widest_of[self.shapes[st]] = \
                    self.geom.shapes[self.shapes[st]].lintel_length - 2.0 * self.geom.table.gate_min_overlap
            for a, b, i in pairs:
                if a in supports or b in supports:
                    continue  # refused by _check_gate: a support already carries a gate
                # the supports' heights once the stone is taken (as _check_gate computes them):
                # skipping a pair that differs too much skips only what _check_gate refuses
                pa, pb = ring.pos[ring.index[a]], ring.pos[ring.index[b]]
                ta = pa.top_z if pa.top != st else self._pos_without(pa, st, facts).top_z
                tb = pb.top_z if pb.top != st else self._pos_without(pb, st, facts).top_z
                if abs(ta - tb) > tol:
                    continue
                if i >= 0 and pa.top != st and pb.top != st and ring.width[i] > widest:
                    continue  # too wide for this stone's lintel: the gap's width is _check_gate's span
                if self._gate_geometry_problem(st, a, b, facts) is None:  # the rest is valid (see above)
                    out.append(Gate(st, a, b))
        return out

    def _check_gate(self, a: Gate, facts: PlaceFacts | None = None) -> str | None:
        """Why gate ``a`` is illegal now, or None. ``facts``: :meth:`_place_facts` of this position,
        when the caller has them (the candidate loop checks many gates of one position)."""
        n = len(self.role)
        if not (isinstance(a.stone, int) and 0 <= a.stone < n and isinstance(a.a, int) and 0 <= a.a < n
                and isinstance(a.b, int) and 0 <= a.b < n):
            return "unknown stone id"
        st = a.stone
        if self.role[st] not in (BASE, TOP):
            return f"#{st} is not standing on the base (a stone from the field cannot make a gate)"
        if facts is None:
            facts = self._current_place_facts()
        supports = facts.supports
        ring = self.ring()
        if self.role[st] == BASE:
            if st in supports:
                return f"a gate rests on #{st}"
            if ring.pos[ring.index[st]].top >= 0:
                return f"#{st} carries a stack: take the top stone"
        elif self.sup[st][0] in supports:
            return f"a gate rests on #{st}"
        if a.a == a.b or st in (a.a, a.b):
            return "a gate needs two other positions"
        for x in (a.a, a.b):
            if self.role[x] != BASE:
                return f"#{x} is not a position on the base"
            if x in supports:
                return f"#{x} already carries a gate"
        # cheap checks on the current ring first (adjacency after removing the stone, level, span)
        ka, kb = ring.index[a.a], ring.index[a.b]
        single = self.role[st] == BASE
        ks = ring.index[st] if single else -1
        nxt = (ka + 1) % ring.n
        if single and nxt == ks:
            nxt = (nxt + 1) % ring.n
        if nxt != kb or ring.n < 3:
            return f"#{a.a} and #{a.b} are not neighbours (counter-clockwise)"
        return self._gate_geometry_problem(st, a.a, a.b, facts)

    def _gate_geometry_problem(self, st: int, id_a: int, id_b: int, facts: PlaceFacts) -> str | None:
        """:meth:`_check_gate` of ``Gate(st, id_a, id_b)`` once the stone (on the base or stacked,
        free of gates) and the supports (other positions, free of gates, neighbours once the stone
        is taken) are known to be valid: the gap, the heights, the span, clashes, mark areas."""
        ring = facts.ring
        ka, kb = ring.index[id_a], ring.index[id_b]
        single = self.role[st] == BASE
        ks = ring.index[st] if single else -1
        if (ka + 1) % ring.n == kb and ring.under[ka] is not None:
            return "a gate already spans this gap"
        pa, pb = self._pos_without(ring.pos[ka], st, facts), self._pos_without(ring.pos[kb], st, facts)
        if abs(pa.top_z - pb.top_z) > self.rules["level_tolerance"]:
            return f"supports differ in height ({pa.top_z * 1000:.1f} and {pb.top_z * 1000:.1f} mm)"
        s = self.geom.shapes[self.shapes[st]]
        # the span and the lintel's footprint depend on the two supports and the stone's shape
        # only: kept for the other stones of that shape laid on the same (unchanged) supports
        span_key = (self.shapes[st], pa.id, pb.id)
        known = facts.gate_spans.get(span_key)
        if known is None or known[0] is not pa or known[1] is not pb:
            inner = gap_width(pa, pb)
            if inner > s.lintel_length - 2.0 * self.geom.table.gate_min_overlap:
                why: str | None = f"gap too wide for a {self.shapes[st]} gate ({inner * 1000:.1f} mm)"
            elif inner <= 0.0:
                why = "supports touch"
            else:
                why = None
            lo = span = 0.0
            if why is None:
                ax, ay = pb.radius * math.cos(pb.angle) - pa.radius * math.cos(pa.angle), \
                    pb.radius * math.sin(pb.angle) - pa.radius * math.sin(pa.angle)
                nrm = math.hypot(ax, ay) or 1.0
                mid = (0.5 * (pa.radius * math.cos(pa.angle) + pb.radius * math.cos(pb.angle)),
                       0.5 * (pa.radius * math.sin(pa.angle) + pb.radius * math.sin(pb.angle)))
                lo, span = lintel_footprint(self.geom, self.shapes[st], mid, (ax / nrm, ay / nrm))
            known = facts.gate_spans[span_key] = (pa, pb, why, lo, span)
        why, lo, span = known[2], known[3], known[4]
        if why is not None:
            return why
        # the lintel must not hit a neighbour as tall as its supports, nor another gate
        under = min(pa.top_z, pb.top_z)
        low = under - 0.001
        ida, idb = pa.id, pb.id
        for q in ring.pos:
            if q.id == ida or q.id == idb or (single and q.id == st):
                continue
            qq = q if q.top != st else self._pos_without(q, st, facts)
            if qq.top_z > low:
                q0 = qq.angle - qq.half  # arcs_overlap(lo, span, q0, 2 * qq.half), inlined
                if ((q0 - lo) % TAU) <= span or ((lo - q0) % TAU) <= 2 * qq.half:
                    return f"the gate would hit #{q.id}"
        thick = min(s.width, s.depth)
        for (l0, lsp, lu, lt) in ring.lintels:
            if arcs_overlap(lo, span, l0, lsp) and lu < under + thick + 0.001 and lt > under - 0.001:
                return "the gate would hit another gate"
        # never merge two different players' mark areas
        if single:
            g1, g2 = (ks - 1) % ring.n, ks
            in1 = {x for x, gm in facts.marker_gaps if gm == g1}
            in2 = {x for x, gm in facts.marker_gaps if gm == g2}
            if any(x != y for x in in1 for y in in2):
                return "removing it would merge two players' mark areas"
        # the ring after the gate: the ring without the stone, with ``under`` on the gate's gap.
        # Where the mover's markers lie in gaps away from the stone's position (not bounded by
        # it), those gaps are the same on that ring as on this one, as are their nearest gaps.
        k_st = ks if single else ring.index[self.sup[st][0]]
        own = facts.own_gaps
        if ring.n >= 4 and all(gi is not None and gi != k_st and gi != (k_st - 1) % ring.n for gi in own):
            if not self._own_areas_ok(ring, own, ((id_a, id_b), under)):
                return "the mover's own mark area must stay passable (move the marker instead)"
            return None
        if st not in facts.removal:
            without = self._ring_with(removed=st)
            facts.removal[st] = (without, [without.nearest_gap(m) for m in self.markers[self.seat]])
        without, own_gaps = facts.removal[st]
        if not self._own_areas_ok(without, own_gaps, ((id_a, id_b), under)):
            return "the mover's own mark area must stay passable (move the marker instead)"
        return None

    def _pos_without(self, p: Pos, st: int, facts: PlaceFacts | None = None) -> Pos:
        """Position ``p`` after its top stone ``st`` is taken away (unchanged otherwise).
        ``facts``: :meth:`_place_facts` of this position (``p`` one of its ring's), to reuse the result."""
        if p.top != st:
            return p
        if facts is not None and facts.ring.pos[facts.ring.index[p.id]] is p:
            known = facts.reverted.get(st)
            if known is None:
                known = facts.reverted[st] = self._pos_without(p, st)
            return known
        s = self.geom.shapes[self.shapes[p.id]]
        return Pos(p.id, p.angle, p.radius, s.width, s.depth, pose_top(self.pose[p.id], s), -1)

    def _own_areas_ok(self, ring: Ring, gaps: list[int | None] | None = None,
                      gate: tuple[tuple[int, int], float] | None = None) -> bool:
        """Whether the mover's mark area(s) are passable on ``ring`` (and, in orbit mode, a line
        goes through both). ``gaps``: the mover's markers' nearest gaps on ``ring``, when known;
        ``gate``: (gap key, underside z in m) of a gate laid on ``ring`` (only that gap's ``under``
        changes; gap openings, and so the nearest gaps, do not)."""
        if ring.empty:
            return True
        if gaps is None:
            gaps = [ring.nearest_gap(m) for m in self.markers[self.seat]]
        g = self.geom
        for gi in gaps:
            if gi is None or ring.width[gi] < g.pass_width:
                return False
            u = gate[1] if gate is not None and ring.keys[gi] == gate[0] else ring.under[gi]
            if not (u is None or u >= g.gate_clear_z):  # as Ring.passable
                return False
        if self.rules["mode"] == "orbit":
            return orbit_arc(ring, gaps[0], gaps[1]) is not None  # type: ignore[arg-type]
        return True

    # --- pass legality --------------------------------------------------------------------------
    def pass_arcs(self, ring: Ring | None = None, seat: int | None = None) -> list[tuple[float, float]]:
        """Arcs (rad, start <= end) of release azimuths whose line crosses the mark area(s) of
        ``seat`` (default: the mover) as the rules require."""
        ring = ring or self.ring()
        if ring.empty:
            return [(0.0, TAU)]
        seat = self.seat if seat is None else seat
        gaps = [ring.gap_of_angle(m) for m in self.markers[seat]]
        if any(g is None for g in gaps):
            gaps = [ring.nearest_gap(m) for m in self.markers[seat]]
        if self.rules["mode"] == "orbit":
            out = []
            for g1, g2 in ((gaps[0], gaps[1]), (gaps[1], gaps[0])):
                arc = orbit_arc(ring, g1, g2)  # type: ignore[arg-type]
                if arc is not None:
                    out.append(arc)
            return out
        g = gaps[0]
        s, e = ring.start[g], ring.end[g]  # type: ignore[index]
        if e < s:
            return []
        return [(s, e), (s + math.pi, e + math.pi)]

    def _check_pass(self, a: Pass, arcs: list[tuple[float, float]] | None = None) -> str | None:
        """Why pass ``a`` is illegal now, or None. ``arcs``: :meth:`pass_arcs`, when known."""
        if not (isinstance(a.aim, (int, float)) and math.isfinite(a.aim)
                and isinstance(a.release, (int, float)) and math.isfinite(a.release)):
            return "aim and release must be finite numbers"
        why = self._release_problem(a.release)
        if why is not None:
            return why
        if not self._aim_in_arcs(a.aim, self.pass_arcs() if arcs is None else arcs):
            return "the line of the pass does not go through the mark area"
        return None

    def _release_problem(self, release: float) -> str | None:
        """Why a release ``release`` m outside the base edge is not allowed, or None."""
        g = self.geom
        if release < g.min_release - 1e-12:
            return f"release {release:.3f} m outside the base is less than a hand span ({g.min_release:.3f} m)"
        if release > g.max_release:
            return f"release must be at most {g.max_release:.3f} m"
        return None

    @staticmethod
    def _aim_in_arcs(aim_deg: float, arcs: list[tuple[float, float]]) -> bool:
        """Whether azimuth ``aim_deg`` (deg) lies in one of ``arcs`` (rad; 1e-12 rad tolerance)."""
        aim = math.radians(aim_deg)
        for s, e in arcs:
            if e - s >= TAU or ((aim - s) % TAU) <= e - s + 1e-12:
                return True
        return False

    def _pass_candidates(self) -> list[Pass]:
        """A few legal passes: aims at :data:`AIM_FRACTIONS` of each arc, releases a hand span plus
        each of :data:`RELEASE_EXTRA` (the checks of :meth:`_check_pass`, each done once)."""
        out: list[Pass] = []
        seen: set[tuple[float, float]] = set()  # (aim, release) of each: as ``Pass(...) in out``
        g = self.geom
        arcs = self.pass_arcs()
        releases = [r for r in (round(g.min_release + extra, 6) for extra in RELEASE_EXTRA)
                    if math.isfinite(r) and self._release_problem(r) is None]
        for s, e in arcs:
            span = min(e - s, TAU)
            for f in AIM_FRACTIONS:
                aim = degrees_6(s + f * span)
                if not (math.isfinite(aim) and self._aim_in_arcs(aim, arcs)):
                    continue
                for release in releases:
                    if (aim, release) not in seen:
                        out.append(Pass(aim, release))
                        seen.add((aim, release))
        return out
