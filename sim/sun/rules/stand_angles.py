"""Where a stone may stand: the exact legal stand angles, their samples, and the placement candidates.

Functions of a :class:`~sim.sun.rules.context.RulesContext` (not the whole state), beside ``sim.sun.rules.legality``: the stand check
(:func:`check_stand`), the exact intervals of legal stand angles per shape
(:func:`stand_intervals`), the finite samples offered to agents (:func:`stand_samples`) and the
list of placement candidates (stands, stacks, gates: :func:`placement_candidates`). Radians
inside, degrees in actions.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Sequence

from sim.sun.actions import Gate, PlaceAction, Stack, Stand, made_once
from sim.sun.geometry.gaps import Side, upright_side, width_between
from sim.sun.rules.legality import (PlaceFacts, check_gate, check_marker_after, check_stack, current_place_facts, degrees_6,
                                    gate_candidates, stack_candidates)
from sim.sun.geometry.ring import Pos, Ring, others_gaps, sep_for_widths
from sim.sun.geometry.specs import TAU, ShapeSpec
from sim.sun.rules.context import RulesContext


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
#: rad: the window of marker offsets whose cuts can fall inside a gap's room is widened this much
#: (``stand_geo``; the offsets' rounding errors are ~1e-15 rad)
MARKER_WINDOW_MARGIN = 1e-9
#: rad: intervals farther apart than this (0.1 deg: twice the samples' 0.05 deg, far beyond their
#: 1e-6 deg rounding) cannot hold two samples within 0.05 deg of each other (``stand_samples``)
SAMPLE_APART_RAD = math.radians(0.1)
FIRST_ANGLES_DEG = tuple(22.5 + 45.0 * k for k in range(8))


@dataclass(slots=True)
class StandFacts:
    """What decides a stand's legality apart from its angle, on one ring (metres, radians)."""

    stone: int
    shape: str
    ring: Ring
    radius: float  #: of the stone's centre (the ring radius), m
    side: Side  #: its side (either: it stands as intended) in the gap kernel (``gaps.upright_side``)
    height: float  #: m
    half: float  #: half its angular width (rad) at ``radius``
    sticks_out: bool  #: it would stick out over the base edge
    min_clearance: float  #: m
    local_marker_check: bool  #: standard mode, 2+ positions, not a free turn: the marker check is local
    others: list[tuple[float, int]]  #: other seats' markers and their gaps (``other_seats_gaps``)
    #: the angles of ``others`` by their gap, and the ring keys of those gaps (``StandTurn``)
    others_in_gap: dict[int, tuple[float, ...]]
    others_keys: set[tuple[int, int]]
    before: tuple[int, int] | None  #: the mover's area at the start of the turn
    new_gap_rule: bool  #: marker_change is "new_gap"
    pass_width: float  #: m
    #: :func:`stand_seps_key` of its shape on this geometry, clockwise then counter-clockwise
    seps_keys: tuple[tuple[str, int], tuple[str, int]]
    #: per gap index, what the checks of a stand in it share (``stand_gap``), filled as asked
    gaps: dict[int, StandGap] = field(default_factory=dict)


@dataclass(slots=True)
class StandGap:
    """What every stand check in one gap shares (:func:`stand_gap`)."""

    #: the clockwise neighbour, its counter-clockwise side and that side as the new stone meets it
    #: (``Pos.reach_side``: a stack's top overhanging a lower stone does not count), and the
    #: counter-clockwise neighbour with its clockwise side, the same two ways (``gaps.Side``)
    sides: tuple[Pos, Side, Side, Pos, Side, Side]
    in_gap: Sequence[float]  #: angles (rad) of other seats' markers whose nearest gap this is
    ccw_blocked: bool  #: the new ccw gap may not be the mover's area whatever the angle
    cw_blocked: bool  #: the same for the new cw gap


@dataclass(slots=True)
class StandTurn:
    """What the stand checks of every shape share on one position (:func:`stand_turn`): computed
    once per candidate list, not once per shape. Of the position as it is: the candidate list
    makes it and drops it."""

    ring: Ring
    local: bool  #: ``StandFacts.local_marker_check``
    others: list[tuple[float, int]]  #: ``StandFacts.others``
    in_gap: dict[int, tuple[float, ...]]  #: the angles of ``others`` by their gap
    others_keys: set[tuple[int, int]]  #: the ring keys of those gaps
    lintels_token: int  #: ``SunCache.lintels_token`` of the ring's lintels
    flat: list[float]  #: every seat's marker angles (rad)


def stand_turn(ctx: RulesContext, facts: PlaceFacts | None = None) -> StandTurn:
    """:class:`StandTurn` of the current position (``facts``: its :func:`current_place_facts`,
    when the caller has them: their other seats' gaps are read, not found again)."""
    ring = ctx.ring()
    local = ctx.rules.mode == "standard" and ring.n >= 2 and not ctx.is_free_turn()
    if not local:
        others: list[tuple[float, int]] = []
    elif facts is not None and facts.others_gaps is not None and facts.ring is ring:
        others = facts.others_gaps
    else:
        others = other_seats_gaps(ctx, ring)
    in_gap: dict[int, tuple[float, ...]] = {}
    for m, gi in others:
        in_gap[gi] = (*in_gap.get(gi, ()), m)
    # (its slots set one by one, as stand_facts_of sets its facts: a class call costs more)
    t = _NEW(StandTurn)
    t.ring, t.local, t.others, t.in_gap = ring, local, others, in_gap
    keys = ring.keys
    t.others_keys = set()  # (a loop: a comprehension would make ``ring`` a closure cell)
    for gi in in_gap:
        t.others_keys.add(keys[gi])
    t.lintels_token = ctx.cache.lintels_token(tuple(ring.lintels))
    t.flat = [m for ms in ctx.position.markers for m in ms]
    return t


def placement_candidates(ctx: RulesContext) -> list[PlaceAction]:
    ring = ctx.ring()
    # the facts found here serve the check of the placement chosen from the list: kept in the
    # cache as memos of the position as it is now (emptied whenever it changes)
    facts = current_place_facts(ctx)
    turn = stand_turn(ctx, facts)
    out: list[PlaceAction] = []
    stand_facts: dict[str, StandFacts] = {}
    ctx.cache.stand_facts = stand_facts
    # a stack on a stacked position or on a gate's support is refused whatever the shape; so is
    # one (after a free turn) beside two impassable gaps: a stack only makes its position wider
    # and deeper, so both gaps stay impassable and no marker move can follow
    pw = ctx.geom.pass_width
    narrow = ring.n >= 3 and not ctx.is_free_turn()
    # (a loop: a comprehension would make the locals it reads closure cells, new at every list)
    bases = []
    width, supports = ring.width, facts.supports
    for k, p in enumerate(ring.pos):
        if p.top < 0 and p.id not in supports and not (narrow and width[k] < pw and width[k - 1] < pw):
            bases.append(k)
    for shape, stone in ctx.shape_stones():  # (a stone of each: stone_for >= 0)
        out.extend(stand_sample_actions(ctx, shape, stand_facts, turn, stone))
        if bases:  # valid positions (see above) for a valid stone: the geometric part
            out.extend(stack_candidates(ctx, shape, stone, bases, facts))
    out.extend(gate_candidates(ctx, ring, facts))
    return out


def known_stand_facts(ctx: RulesContext, shape: str) -> StandFacts | None:
    """The :class:`StandFacts` of ``shape`` found while making the candidate list of the
    position as it is now (``SunCache.stand_facts``), else None."""
    known = ctx.cache.stand_facts
    found: StandFacts | None = known.get(shape) if known is not None else None
    return found


def stand_intervals(ctx: RulesContext, shape: str, collect: dict[str, StandFacts] | None = None,
                    turn: StandTurn | None = None) -> list[tuple[float, float]]:
    """Every angle at which a :class:`Stand` of ``shape`` is legal now, as closed intervals; with
    ``collect``, the :class:`StandFacts` found on the way are put in it under ``shape`` (the
    candidate list keeps them for the check of the stand chosen from it).

    Exact: the legality of a stand changes only where a geometric constraint is met with
    equality: clear of a neighbour by ``min_clearance``; a new gap exactly passable; the new
    stone's edge at a marker or at a lintel's footprint; in orbit mode, its edge opposite
    another gap's edge. Those breakpoints are computed in closed form (``ring.sep_for_width``
    inverts the gap-width formula), and each piece between two breakpoints is legal as a
    whole or not at all, decided by the placement check at its middle. Intervals are moved
    :data:`STAND_EPS` inwards at each end.

    ``turn``: :func:`stand_turn` of this position, when the caller has it (the candidate list).

    Returns:
        ``(lo, hi)`` pairs in rad with ``lo <= hi`` (``lo`` may be negative or ``hi`` beyond
        2 pi where an interval wraps through 0; reduce with ``% TAU``), counter-clockwise in
        ring order; empty if no stand of that shape is legal.
    """
    return [(lo, hi) for lo, hi, _ in stand_intervals_in(ctx, shape, collect, turn)]


def stand_intervals_in(ctx: RulesContext, shape: str, collect: dict[str, StandFacts] | None = None,
                       turn: StandTurn | None = None, stone: int | None = None) -> list[tuple[float, float, int]]:
    """:func:`stand_intervals`, each interval with the index of the gap it lies in (-1 on an
    empty ring). ``stone``: ``ctx.stone_for(shape)``, when the caller has it."""
    if ctx.position.phase != "place" or shape not in ctx.geom.shapes:
        return []
    if stone is None:
        stone = ctx.stone_for(shape)
    if stone < 0:
        return []
    g = ctx.geom
    s = g.shapes[shape]
    r = g.table.ring_radius
    if turn is None:
        turn = stand_turn(ctx)
    ring = turn.ring
    facts = stand_facts_of(ctx, stone, shape, turn)
    if collect is not None:  # computing the candidates: kept for the check of the chosen stand
        collect[shape] = facts
    half = 0.5 * s.width / r
    half = math.asin(half if half < 1.0 else 1.0)  # (min(1.0, ...), without the call)
    orbit = ctx.rules.mode == "orbit"
    # Standard mode, not a free turn: a piece's verdict depends only on the gap's two
    # positions, the shape, the piece's ends, the other seats' markers in that gap, whether the
    # mover's area at the start of the turn is one of the two new gaps, and the lintels, so the
    # legal pieces of a gap are kept in the gap's memo under those (tests/sun/
    # test_sun_stand_intervals.py compares them with a state without memos).
    memo_ok = facts.local_marker_check
    in_gap = turn.in_gap
    lintels = ring.lintels
    lintels_token = turn.lintels_token
    before = facts.before
    # ``before == (x, y)``, its two ids compared one by one (no pair made per gap): the mover's
    # area is a ring key (a pair of ids) or None
    bx, by = before if isinstance(before, tuple) and len(before) == 2 else (None, None)
    new_gap_rule = facts.new_gap_rule
    flat = turn.flat
    two_eps = 2.0 * STAND_EPS
    n = ring.n
    out: list[tuple[float, float, int]] = []
    seps_keys = facts.seps_keys
    gaps: Any = zip(range(n), ring.under, ring.memo) if n else ((-1, None, None),)
    for i, under, memo in gaps:
        if under is not None:
            continue
        if memo is None:
            lo, hi = 0.0, TAU  # the empty ring: one piece, the whole circle
            c_a, c_b = math.inf, -math.inf
            edges = (lo, hi)
            extra: set[float] | None = None
        else:
            geo = memo.get(shape)
            if geo is None:
                geo = memo[shape] = stand_geo(ctx, ring, i, r, s, half, seps_keys)
            if geo[4] and (geo[4] == 1 or memo_ok):
                continue
            lo, hi, c_a, c_b, _, edges, inner, w_lo, w_hi, by_flags = geo
            a, b = ring.pos[i], ring.pos[(i + 1) % n]
            base = a.angle
            # the cuts that fall inside [lo, hi] besides c_a and c_b (markers, lintels, orbit);
            # the set made at the first (most gaps have none)
            extra = None
            for m in flat:
                rel = (m - base) % TAU
                if not w_lo < rel < w_hi:
                    continue  # none of its three cuts falls inside (``stand_geo``)
                m0 = base + rel
                for c in (m0, m0 - half, m0 + half):
                    c = lo + (c - lo) % TAU  # the copy of the angle at or after lo
                    if lo < c < hi:
                        if extra is None:
                            extra = set()
                        extra.add(c)
            for l0, lsp, _u, _t in lintels:
                for c in (l0 - half, l0 + lsp + half):
                    c = lo + (c - lo) % TAU
                    if lo < c < hi:
                        if extra is None:
                            extra = set()
                        extra.add(c)
            if orbit:
                for j in range(n):
                    for e in (ring.start[j], ring.end[j]):
                        for c in (e + math.pi - half, e + math.pi + half):
                            c = lo + (c - lo) % TAU
                            if lo < c < hi:
                                if extra is None:
                                    extra = set()
                                extra.add(c)
            if extra:
                edges = (lo, *sorted(extra.union(inner)), hi)
        key: tuple[Any, ...] | None = None
        pieces: list[tuple[float, float]] | None = None
        if memo_ok and memo is not None:
            flags = (in_gap.get(i, ()), lintels_token, new_gap_rule,
                     bx == a.id and by == stone, bx == stone and by == b.id)
            if extra:
                key = (shape, edges, *flags)
                pieces = memo.get(key)
            else:  # the edges are the gap's own (``edges`` of the breakpoints): kept with them
                key = flags
                pieces = by_flags.get(key)
        if pieces is None:
            pieces = []
            for x0, x1 in zip(edges, edges[1:]):
                if x1 - x0 <= two_eps:
                    continue
                mid = 0.5 * (x0 + x1)
                if memo_ok and c_b + NO_PASS_MARGIN <= mid <= c_a - NO_PASS_MARGIN:
                    continue  # neither new gap passable here (see above): refused by the marker check
                certain = stand_piece_certain(ctx, facts, i, a.angle, mid, lo, hi, c_a, c_b) if memo_ok else None
                if certain is None:
                    # the placement check itself (its geometric part; the stone is known): the same
                    # degrees round trip as a Stand action, so the piece's verdict is the action's
                    certain = stand_check_at(ctx, stone, shape, math.radians(math.degrees(mid % TAU)) % TAU,
                                                   facts) is None
                if certain:
                    pieces.append((x0, x1))
            if key is not None and memo is not None:
                if extra:
                    memo[key] = pieces
                else:
                    by_flags[key] = pieces
        for x0, x1 in pieces:
            if out and -4.0 * STAND_EPS <= out[-1][1] - (x0 + STAND_EPS) <= 4.0 * STAND_EPS:  # (abs(.) <= ...)
                out[-1] = (out[-1][0], x1 - STAND_EPS, out[-1][2])  # joins the previous legal piece
            else:
                out.append((x0 + STAND_EPS, x1 - STAND_EPS, i))
    return out


def stand_geo(ctx: RulesContext, ring: Ring, i: int, r: float, s: ShapeSpec, half: float,
              keys: tuple[tuple[str, int], tuple[str, int]] | None = None) -> tuple[Any, ...]:
    """What :func:`stand_intervals` keeps per gap ``i`` of ``ring`` (2+ positions or one) and
    shape ``s`` (ring radius ``r`` m, the shape's half angular width ``half`` rad): the room
    ``lo, hi`` (rad; the stone clears both neighbours), the pass-width breakpoints ``c_a,
    c_b``, the skip verdict (1: no room; 2: no new gap can be passable), the edges that
    ``c_a, c_b`` alone make and their inner ones, the window of marker offsets from the
    clockwise position whose cuts can fall inside, and a memo of pieces by the other inputs
    for those edges. ``keys``: the clockwise and counter-clockwise :func:`stand_seps_key`, when
    the caller has them."""
    n = ring.n
    a, b = ring.pos[i], ring.pos[(i + 1) % n]
    sep = (b.angle - a.angle) % TAU if n > 1 else TAU
    a_clear, a_pass, _ = stand_seps(ctx, a, r, s, True, keys[1] if keys is not None else None)
    b_clear, b_pass, _ = stand_seps(ctx, b, r, s, False, keys[0] if keys is not None else None)
    lo = a.angle + a_clear
    hi = a.angle + sep - b_clear
    c_a = a.angle + a_pass
    c_b = a.angle + sep - b_pass
    # 1: no room for the stone; 2: room, but neither new gap can be passable anywhere in [lo, hi]
    # (each width grows monotonically away from its neighbour and reaches the pass width only
    # beyond c_a, before c_b), so the marker check refuses every piece when it is made (the
    # local marker check): no legal stand here either
    skip = 1 if hi <= lo else 2 if c_a >= hi + NO_PASS_MARGIN and c_b <= lo - NO_PASS_MARGIN else 0
    inner = set()
    for c in (c_a, c_b):
        c = lo + (c - lo) % TAU  # the copy of the angle at or after lo
        if lo < c < hi:
            inner.add(c)
    # A marker at offset ``rel`` in [0, 2 pi] from ``a`` cuts at rel - half, rel, rel + half;
    # with L = lo - a.angle >= half and H = hi - a.angle <= 2 pi - half (beyond rounding), a
    # cut reduced modulo 2 pi can fall in (lo, hi) only for rel in (L - half, H + half); the
    # window is widened by MARKER_WINDOW_MARGIN (rounding ~1e-15 rad). Otherwise every marker is cut.
    w_lo, w_hi = -math.inf, math.inf
    big, small = lo - a.angle, hi - a.angle
    if big >= half + MARKER_WINDOW_MARGIN and small + half + MARKER_WINDOW_MARGIN <= TAU:
        w_lo, w_hi = big - half - MARKER_WINDOW_MARGIN, small + half + MARKER_WINDOW_MARGIN
    return (lo, hi, c_a, c_b, skip, (lo, *sorted(inner), hi), inner, w_lo, w_hi, {})


def stand_piece_certain(ctx: RulesContext, f: StandFacts, i: int, a_angle: float, mid: float, lo: float, hi: float,
                         c_a: float, c_b: float) -> bool | None:
    """The verdict of :func:`stand_check_at` at ``mid`` (rad, in gap ``i`` whose clockwise
    position is at ``a_angle``; standard mode, the local marker check) where it is certain
    without computing the widths, else None (the caller runs the check).

    Every comparison the check makes is decided here only with :data:`NO_PASS_MARGIN` to
    spare: the stone's arc against each lintel's footprint (``ring.lintel_clash``: the piece's
    ends are those comparisons' breakpoints); the stone clears both neighbours strictly
    inside [lo, hi]; the new clockwise gap is passable beyond ``c_a`` and not before, the
    counter-clockwise one before ``c_b`` and not beyond (each width grows monotonically away
    from its neighbour); another seat's marker in the gap blocks the new gap on its side of
    the stone."""
    m_ = NO_PASS_MARGIN
    if f.sticks_out or not (lo + m_ <= mid <= hi - m_):
        return None
    if f.ring.lintels:
        half, span = f.half, 2.0 * f.half
        for l0, lsp, under, _top in f.ring.lintels:
            if under > f.height + 0.001:
                continue  # above the stone (ring.lintel_clash's margin)
            # ring.lintel_clash's two comparisons (arcs_overlap of the stone's arc and the
            # footprint), each decided only away from its threshold and from the wrap at 0
            x1, x2 = (l0 - mid + half) % TAU, (mid - half - l0) % TAU
            if min(x1, TAU - x1, abs(x1 - span), x2, TAU - x2, abs(x2 - lsp)) < m_:
                return None
            if x1 <= span or x2 <= lsp:
                return False  # it would hit a gate
    gap = f.gaps.get(i)
    if gap is None:
        gap = f.gaps[i] = stand_gap(ctx, f, i)
    split = mid - a_angle  # in (0, the gap's separation): no wrap
    ccw_blocked, cw_blocked = gap.ccw_blocked, gap.cw_blocked
    for m in gap.in_gap:
        rel = (m - a_angle) % TAU
        if -m_ < rel - split < m_:  # (abs(rel - split) < m_ without the call)
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


def stand_seps(ctx: RulesContext, p: Pos, r: float, s: ShapeSpec, ccw: bool,
               key: tuple[str, int] | None = None) -> tuple[float, float, float | None]:
    """The angular separations (rad) from ``p`` at which a stone of shape ``s`` on the ring of
    radius ``r`` (m), on ``p``'s counter-clockwise side (``ccw``) or its clockwise side, leaves
    its stones that the new one meets ``min_clearance`` (``Pos.reach_side``) and a gap of the pass
    width (each a half turn if none below a half turn does), and of the pass width plus
    :data:`PASS_MARGIN` (None if none does: ``ring.sep_for_width``). They depend on the
    position's sides, not its angle: kept with it (``Pos.memo``), so that a position
    computes them once, not once per gap and interval it bounds. ``key``: :func:`stand_seps_key`
    of these ``r``, ``s`` and ``ccw``, when the caller has it (it asks for many positions)."""
    if key is None:
        key = stand_seps_key(ctx, r, s, ccw)
    known: tuple[float, float, float | None] | None = p.memo.get(key)
    if known is None:
        g = ctx.geom
        mc, pw = g.table.min_clearance, g.pass_width
        if len(p.layers) == 1 or p.reach_side(ccw, s.height) is p.side(ccw):
            x_clear, x_pass, x_sample = sep_for_widths(p, r, s, (mc, pw, pw + PASS_MARGIN), ccw)
        else:  # a stack whose top the new stone passes under: its clearance from the lower stone
            x_clear = sep_for_widths(p, r, s, (mc,), ccw, side=p.reach_side(ccw, s.height))[0]
            x_pass, x_sample = sep_for_widths(p, r, s, (pw, pw + PASS_MARGIN), ccw)
        known = p.memo[key] = (math.pi if x_clear is None else x_clear, math.pi if x_pass is None else x_pass,
                               x_sample)
    return known


def stand_seps_key(ctx: RulesContext, r: float, s: ShapeSpec, ccw: bool) -> tuple[str, int]:
    """The ``Pos.memo`` key of :func:`stand_seps`: every input of its three separations besides
    the position's own fields, as a short stand-in (:data:`_SEPS_KEYS`)."""
    g = ctx.geom
    full = (ccw, s.width, s.depth, s.height, r, g.table.min_clearance, g.pass_width)
    known = _SEPS_KEYS.get(full)
    if known is None:
        known = _SEPS_KEYS[full] = ("stand", len(_SEPS_KEYS))
    return known


#: :func:`stand_seps_key`'s stand-ins by the inputs they stand for: equal inputs, the same key, in
#: every state (positions are shared by the clones of a state). A key of a string and a number
#: hashes at the price of the number, the inputs' six floats at six float hashes, and a position's
#: memo is asked thousands of times per playout. As few entries as geometries and shapes are used
_SEPS_KEYS: dict[tuple[bool, float, float, float, float, float, float], tuple[str, int]] = {}


def stand_samples(ctx: RulesContext, shape: str, collect: dict[str, StandFacts] | None = None) -> list[float]:
    """A finite sample (degrees in [0, 360), each one legal) of :func:`stand_intervals`: per
    interval its ends moved :data:`SAMPLE_INSET` inwards, its middle, and the angles that leave
    either neighbour a passable gap plus :data:`PASS_MARGIN`. ``collect``: as :func:`stand_intervals`'."""
    return [a.angle for a in stand_sample_actions(ctx, shape, collect)]


def stand_sample_actions(ctx: RulesContext, shape: str, collect: dict[str, StandFacts] | None = None,
                         turn: StandTurn | None = None, stone: int | None = None) -> list[Stand]:
    """The :class:`Stand` of ``shape`` at each of :func:`stand_samples` (the candidate list's;
    ``turn``: :func:`stand_turn` of this position, ``stone``: ``ctx.stone_for(shape)``, when the
    caller has them)."""
    g = ctx.geom
    s = g.shapes.get(shape)
    if s is None:
        return []
    r = g.table.ring_radius
    ring = ctx.ring()
    out: list[float] = []
    acts: list[Stand] = []
    degs: list[tuple[float, Stand]] | None
    intervals = stand_intervals_in(ctx, shape, collect, turn, stone)
    own: tuple[list[float], list[Stand]] | None
    keys: tuple[tuple[str, int], tuple[str, int]] | None = None  # (stand_seps_key ccw, cw: made when first needed)
    for k, (lo, hi, i) in enumerate(intervals):
        if ring.empty:
            degs = []  # (loops, here and below: a comprehension would make ``shape`` a closure cell)
            for a_deg in FIRST_ANGLES_DEG:
                d = degrees_6(math.radians(a_deg))
                degs.append((d, made_once(Stand, shape, d)))
            own = None
        else:
            memo = ring.memo[i]  # the samples depend on the interval, the gap's positions, the shape
            known = memo.get((shape, lo, hi))
            if known is None:
                inset = SAMPLE_INSET / r
                if 0.25 * (hi - lo) < inset:  # (min(SAMPLE_INSET / r, 0.25 * (hi - lo)), without the call)
                    inset = 0.25 * (hi - lo)
                cands = [0.5 * (lo + hi), lo + inset, hi - inset]
                a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
                if keys is None:
                    f = collect.get(shape) if collect is not None else None  # (its facts, made with the intervals)
                    keys = (f.seps_keys[1], f.seps_keys[0]) if f is not None else \
                        (stand_seps_key(ctx, r, s, True), stand_seps_key(ctx, r, s, False))
                for p, sign, key in ((a, 1.0, keys[0]), (b, -1.0, keys[1])):
                    d = stand_seps(ctx, p, r, s, sign > 0, key)[2]  # sep_for_width(p, r, s, pass width + PASS_MARGIN)
                    if d is not None:
                        x = p.angle + sign * d
                        x = lo + (x - lo) % TAU
                        if lo < x < hi:
                            cands.append(x)
                # each sample with its action (kept: the same actions turn after turn), and
                # those of them the loop below keeps when it compares them with one another only
                degs = []
                for d in map(degrees_6, cands):
                    degs.append((d, made_once(Stand, shape, d)))
                known = memo[(shape, lo, hi)] = (degs, _kept_samples(degs))
            degs, own = known
        # The intervals are disjoint and in ring order, so the earlier ones are all at least as
        # far (around the circle) as the previous one or the first one: when both are farther
        # than SAMPLE_APART_RAD, no earlier sample can be within 0.05 deg of this interval's, and
        # only this interval's own samples need comparing (the same verdicts, fewer comparisons)
        first = 0
        if k and lo - intervals[k - 1][1] > SAMPLE_APART_RAD and intervals[0][0] + TAU - hi > SAMPLE_APART_RAD:
            first = len(out)
        if own is not None and first == len(out):
            out.extend(own[0])  # compared with one another only: found once with the samples
            acts.extend(own[1])
            continue
        for deg, act in degs:
            # inside an exact interval, so legal (tests/sun/test_sun_stand_intervals.py checks it);
            # kept unless within 0.05 deg of one kept before
            for o in out[first:] if first else out:
                x = (deg - o + 180.0) % 360.0 - 180.0
                if not (x > 0.05 or x < -0.05):  # (not abs(x) > 0.05, without the call)
                    break
            else:
                out.append(deg)
                acts.append(act)
    return acts


def _kept_samples(degs: list[tuple[float, Stand]]) -> tuple[list[float], list[Stand]]:
    """The samples (deg) and actions of ``degs`` that :func:`stand_sample_actions` keeps when it
    compares them with one another only (none kept before them): each unless within 0.05 deg of
    one kept before it."""
    out: list[float] = []
    acts: list[Stand] = []
    for deg, act in degs:
        for o in out:
            x = (deg - o + 180.0) % 360.0 - 180.0
            if not (x > 0.05 or x < -0.05):  # (not abs(x) > 0.05, without the call)
                break
        else:
            out.append(deg)
            acts.append(act)
    return out, acts


def placement_problem(ctx: RulesContext, a: object) -> str | None:
    """Why placement ``a`` is illegal now, or None if legal."""
    if isinstance(a, Stand):
        return check_stand(ctx, a)
    if isinstance(a, Stack):
        return check_stack(ctx, a)
    if isinstance(a, Gate):
        return check_gate(ctx, a)
    return "not a placement (Stand, Stack or Gate)"


def check_stand(ctx: RulesContext, a: Stand) -> str | None:
    if a.shape not in ctx.geom.shapes:
        return f"unknown shape {a.shape!r}"
    if not isinstance(a.angle, (int, float)) or not math.isfinite(a.angle):
        return "angle must be a finite number of degrees"
    stone = ctx.stone_for(a.shape)
    if stone < 0:
        return f"no {a.shape} available in the field" if ctx.rules.field == "open" else \
            f"the drawn stone is not a {a.shape}"
    facts = known_stand_facts(ctx, a.shape)
    if facts is not None and facts.stone != stone:
        facts = None
    return stand_check_at(ctx, stone, a.shape, math.radians(a.angle) % TAU, facts)


def stand_facts_of(ctx: RulesContext, stone: int, shape: str, turn: StandTurn | None = None) -> StandFacts:
    """What :func:`stand_check_at` needs for stone ``stone`` of ``shape`` on the current ring,
    whatever the angle (computed once per :func:`stand_intervals` call, not once per piece).
    ``turn``: :func:`stand_turn` of this position, when the caller has it."""
    g = ctx.geom
    if turn is None:
        turn = stand_turn(ctx)
    # what depends on the geometry and the shape only: kept with the geometry (the cache's
    # ``stand_shapes``), not found again per shape and turn
    known = ctx.cache.stand_shapes
    if known is None or known[0] is not g:
        known = ctx.cache.stand_shapes = (g, {})
    consts = known[1].get(shape)
    if consts is None:
        s = g.shapes[shape]
        r = g.table.ring_radius
        consts = known[1][shape] = (r, upright_side(r, s.depth, s.width), s.height,
                                    math.asin(min(1.0, 0.5 * s.width / max(r, 1e-9))),
                                    r + 0.5 * s.depth > g.table.base_radius, g.table.min_clearance, g.pass_width,
                                    (stand_seps_key(ctx, r, s, False), stand_seps_key(ctx, r, s, True)))
    # (its slots set one by one: the dataclass's keyword __init__ is slower, and this runs per shape and turn)
    f = _NEW(StandFacts)
    f.stone, f.shape, f.ring = stone, shape, turn.ring
    f.radius, f.side, f.height, f.half, f.sticks_out, f.min_clearance, f.pass_width, f.seps_keys = consts
    f.local_marker_check, f.others, f.others_in_gap, f.others_keys = turn.local, turn.others, turn.in_gap, turn.others_keys
    f.before = ctx.position.area_before[ctx.position.seat]
    f.new_gap_rule = ctx.rules.marker_change == "new_gap"
    f.gaps = {}
    return f


_NEW = object.__new__


def stand_check_at(ctx: RulesContext, stone: int, shape: str, ang: float, facts: StandFacts | None = None) -> str | None:
    """The geometric part of :func:`check_stand`: stone ``stone`` of ``shape`` at ``ang`` (rad,
    in [0, 2 pi)); :func:`stand_intervals` calls it once per piece with the stone known and
    ``facts`` (:func:`stand_facts_of`, which must be of this stone, shape and position)."""
    f = stand_facts_of(ctx, stone, shape) if facts is None else facts
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
            gap = f.gaps[i] = stand_gap(ctx, f, i)
        left, l_side, l_reach, right, r_side, r_reach = gap.sides
        # the clear widths of the two new gaps (``gaps.width_between``; inf beyond a half turn):
        # the marker check; the clearance check measures them on the stones the new one meets
        # (the same, but beside a stack whose top overhangs a stone lower than the new one's top)
        side = f.side
        w_cw = width_between(left.angle, l_side, ang, side)
        if (w_cw if l_reach is l_side else width_between(left.angle, l_reach, ang, side)) < f.min_clearance:
            return f"not clear of stone #{left.id}"
        w_ccw = width_between(ang, side, right.angle, r_side)
        if (w_ccw if r_reach is r_side else width_between(ang, side, right.angle, r_reach)) < f.min_clearance:
            return f"not clear of stone #{right.id}"
        if f.local_marker_check:
            return None if stand_marker_fast(ctx, f, gap, ang, w_cw, w_ccw) else \
                "no legal marker move would follow"
    if ctx.is_free_turn():
        return None  # (check_marker_after's own first test, before a position is made for it)
    s = ctx.geom.shapes[shape]
    return check_marker_after(ctx, stone, new_pos=Pos(stone, ang, f.radius, s.width, s.depth, s.height))


def stand_gap(ctx: RulesContext, f: StandFacts, i: int) -> StandGap:
    """:class:`StandGap` of gap ``i`` of ``f.ring`` for the stone of ``f``."""
    ring = f.ring
    a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
    k_cw, k_ccw = (a.id, f.stone), (f.stone, b.id)
    # the keys of the other seats' gaps but this one: those of all their gaps, unless the stone is
    # one of the gap's own (then a new key could be this gap's: the gaps but this one, as keyed)
    if f.stone != a.id and f.stone != b.id:
        others = f.others_keys
    else:  # (a loop: a comprehension would make ``ring`` and ``i`` closure cells, new at every call)
        others = set()
        for _m, g in f.others:
            if g != i:
                others.add(ring.keys[g])
    # (its slots set one by one, as stand_facts_of sets its facts: a few new gaps every turn)
    gap = _NEW(StandGap)
    gap.sides = (a, a.ccw, a.reach_side(True, f.height), b, b.cw, b.reach_side(False, f.height))
    gap.in_gap = f.others_in_gap.get(i, ())
    gap.ccw_blocked = k_ccw in others or (k_ccw == f.before and f.new_gap_rule)
    gap.cw_blocked = k_cw in others or (k_cw == f.before and f.new_gap_rule)
    return gap


def other_seats_gaps(ctx: RulesContext, ring: Ring) -> list[tuple[float, int]]:
    """``(marker angle, its gap on ring)`` for every other seat's marker (``ring.others_gaps``)."""
    return others_gaps(ring, ctx.position.markers, ctx.position.seat)


def stand_marker_fast(ctx: RulesContext, f: StandFacts, gap: StandGap, ang: float, w_cw: float, w_ccw: float) -> bool:
    """Standard mode: is there a legal marker move after standing the stone of ``f`` at ``ang``
    in ``gap``, leaving new gaps of clear widths ``w_cw`` (from the clockwise neighbour) and
    ``w_ccw`` (m)? A new gap is refused when another seat's area is it (their marker in the old
    gap, on its side of the new stone, or another gap with the same key) or, under the new_gap
    rule, it is the mover's area at the start of the turn. Local computation equal to
    :func:`marker_options` on the full ring (a test checks this)."""
    a_angle = gap.sides[0].angle
    split_at = (ang - a_angle) % TAU
    ccw_blocked, cw_blocked = gap.ccw_blocked, gap.cw_blocked
    for m in gap.in_gap:
        if (m - a_angle) % TAU < split_at:
            cw_blocked = True
        else:
            ccw_blocked = True
    return (not ccw_blocked and w_ccw >= f.pass_width) or (not cw_blocked and w_cw >= f.pass_width)
