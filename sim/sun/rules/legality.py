"""Which moves of the Sun are legal: stacks, gates, marker moves and passes (stands: ``sim.sun.rules.stand_angles``).

Functions of a :class:`~sim.sun.rules.context.RulesContext` (a position, its rule options and
geometry, and its cache; not the whole state): the checks that say why a move is illegal (``check_*``, ``*_problem``: a reason, or None
when legal), the marker options and the pass candidates. ``sim.sun.rules.stand_angles`` adds the exact legal
stand angles and the placement candidate list. Angles are radians inside, degrees in actions. The
turn structure that calls them is ``sim.sun.rules.state``; what they keep between calls lives in the
state's cache (``sim.sun.rules.cache``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Hashable, Sequence

from sim.sun.actions import Gate, MoveMarker, Pass, Stack, made_memo, made_once
from sim.sun.geometry.gaps import passable, width_between
from sim.sun.position import GATE, STACK, STAND
from sim.sun.rules.context import RulesContext
from sim.sun.geometry.ring import (Pos, Ring, arcs_overlap, clear_width, gap_width, lintel_footprint, lintel_overlaps, orbit_arc,
                                   others_areas, others_gaps, position_of)
from sim.sun.geometry.specs import TAU, ShapeSpec


#: where pass candidates aim along each legal arc (fractions of it), and their releases beyond a
#: hand span (m)
AIM_FRACTIONS = (0.5, 0.3, 0.7, 0.15, 0.85)
RELEASE_EXTRA = (0.0, 0.1)
#: the pass candidates by (pass arcs, releases): a pure memo (``pass_candidates``),
#: emptied when it holds PASSES_MEMO_SIZE entries (a bound on memory, not on correctness)
_PASSES_OF: dict[tuple[tuple[tuple[float, float], ...], tuple[float, ...]], tuple[Pass, ...]] = {}
PASSES_MEMO_SIZE = 1 << 14


def degrees_6(angle: float) -> float:
    """``angle`` (rad) in degrees in [0, 360), rounded to 6 decimals: how candidate actions are
    written. ``round(math.degrees(angle % TAU), 6) % 360.0``, the same float, mostly without
    ``round`` (see :data:`TIE_MARGIN`; tests/sun/test_sun_rules_fast.py compares the two)."""
    d = math.degrees(angle % TAU)
    y = d * 1e6
    k = math.floor(y)
    f = y - k - 0.5  # (y - k exact, y < 2 ** 29; so is the - 0.5 wherever y - k >= 0.25)
    if f > TIE_MARGIN or f < -TIE_MARGIN:  # (abs(f) > TIE_MARGIN without the call, NaN too)
        return ((k + 1 if f > 0.0 else k) / 1e6) % 360.0
    return round(d, 6) % 360.0


#: ``degrees_6``'s fast path, away from a tie. ``round(d, 6)`` is the double nearest to ``K /
#: 10**6``, ``K`` the integer nearest to the exact ``d * 10**6`` (ties to even), and so is the
#: division ``K / 1e6`` (both exact doubles: IEEE division is correctly rounded). ``y = d * 1e6``
#: is that product within half an ulp (< 3e-8 for ``d`` < 360 deg, ``y`` < 2**29), so where its
#: fractional part is farther than this from one half, ``K`` is ``y`` rounded to the nearest
#: integer. Nearer (a tie or close to one), ``round`` itself decides. (``round`` with digits
#: costs a decimal conversion and back: the stand samples of every new gap and the aims of every
#: new mark area are rounded so.)
TIE_MARGIN = 1e-6


@dataclass(slots=True)
class PlaceFacts:
    """What every stack and gate check of one position shares (the same ring, seat and markers)."""

    ring: Ring
    supports: set[int]  #: bottom stones that carry a gate
    others: set[tuple[int, int]]  #: the other seats' mark areas (ring keys, ``other_seats_areas``)
    marker_gaps: list[tuple[int, int | None]]  #: (seat, ``ring.gap_of_angle``) of every marker
    lintels: tuple[tuple[float, float, float, float], ...]  #: ``ring.lintels``
    lintels_token: int  #: ``SunCache.lintels_token(lintels)``
    standard_turn: bool  #: standard mode and not a free turn (the marker move is checked)
    own_gaps: list[int | None]  #: ``ring.gap_of_angle`` of each of the mover's markers
    #: per stone taken for a gate: the ring without it and the mover's marker gaps on that ring
    #: (filled by :func:`check_gate`; a gate changes only the ``under`` of its gap)
    removal: dict[int, tuple[Ring, list[int | None]]] = field(default_factory=dict)
    #: the stone a placement of each shape takes (``stone_for``), filled as asked
    stones: dict[str, int] = field(default_factory=dict)
    #: per (shape, support ids) of a gate taking a stone on the base: the ids of the positions its
    #: lintel hits, in ring order, and whether it hits a gate (``gate_hits``), filled as asked
    gate_hits: dict[tuple[str, int, int], tuple[list[int], bool]] = field(default_factory=dict)
    #: per stone taken for a gate: (taking it would merge two players' areas, the mover's markers
    #: lie in gaps it does not bound), filled as asked (``gate_geometry_problem``)
    taken: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    #: per (support ids, gate underside z): ``own_areas_ok`` on this ring with that gate, filled as asked
    own_ok: dict[tuple[int, int, float], bool] = field(default_factory=dict)
    #: per gap index: whether a new gap keyed as it may be the mover's mark area (not another
    #: seat's area, nor under the new_gap rule the mover's area at the turn's start), made when
    #: first asked (:func:`open_gaps`)
    open_gaps: list[bool] | None = None
    #: ``(marker angle, its nearest gap)`` of every other seat's marker (``ring.others_gaps``, of
    #: which :attr:`others` are the keys), when made by :func:`place_facts`
    others_gaps: list[tuple[float, int]] | None = None


def open_gaps(ctx: RulesContext, facts: PlaceFacts) -> list[bool]:
    """:attr:`PlaceFacts.open_gaps` of ``facts`` (made once per position: every stack check reads two)."""
    known = facts.open_gaps
    if known is None:
        others, before = facts.others, ctx.position.area_before[ctx.position.seat]
        new_gap_rule = ctx.rules.marker_change == "new_gap"
        known = facts.open_gaps = []  # (a loop: a comprehension would make three closure cells)
        for key in facts.ring.keys:
            known.append(not (key in others or (new_gap_rule and key == before)))
    return known


def place_facts(ctx: RulesContext) -> PlaceFacts:
    """:class:`PlaceFacts` of the current ring, seat and markers."""
    ring = ctx.ring()
    lintels = tuple(ring.lintels)
    # (loops, not comprehensions: those would make ``ctx``, ``ring`` and ``seat`` closure cells)
    seat = ctx.position.seat
    marker_gaps = []
    own_gaps = []  # (the mover's, from marker_gaps: found once)
    gap_of = ring.gap_of_angle
    for x, ms in enumerate(ctx.position.markers):
        for m in ms:
            gi = gap_of(m)
            marker_gaps.append((x, gi))
            if x == seat:
                own_gaps.append(gi)
    others = others_gaps(ring, ctx.position.markers, seat)
    on = ctx.position.on
    supports = set()
    for i, r in enumerate(ctx.position.role):
        if r == GATE:
            supports.update(on[i])
    keys = ring.keys
    other_keys = set()  # (other_seats_areas, from the gaps found once)
    for _, gi in others:
        other_keys.add(keys[gi])
    # every slot set one by one, the defaults as the dataclass's __init__ makes them (new dicts):
    # the keyword __init__ costs a class call, and a list is made every placement turn
    f = _NEW(PlaceFacts)
    f.ring = ring
    f.supports = supports
    f.others = other_keys
    f.marker_gaps = marker_gaps
    f.lintels = lintels
    f.lintels_token = ctx.cache.lintels_token(lintels)
    f.standard_turn = ctx.rules.mode == "standard" and not ctx.is_free_turn()
    f.own_gaps = own_gaps
    f.removal, f.stones, f.gate_hits, f.taken, f.own_ok = {}, {}, {}, {}, {}
    f.open_gaps = None
    f.others_gaps = others
    return f


_NEW = object.__new__


def current_place_facts(ctx: RulesContext) -> PlaceFacts:
    """:func:`place_facts` of the position as it is now, kept in the cache (``SunCache.place_facts``:
    a memo of the position, emptied with the ring and the legal list whenever it changes), so that
    the candidate list and the check of the placement chosen from it share them."""
    facts: PlaceFacts | None = ctx.cache.place_facts
    if facts is None:
        facts = ctx.cache.place_facts = place_facts(ctx)
    return facts


def check_stack(ctx: RulesContext, a: Stack, facts: PlaceFacts | None = None) -> str | None:
    """Why stack ``a`` is illegal now, or None. ``facts``: :func:`place_facts` of this position,
    when the caller has them (the candidate loop checks many stacks of one position)."""
    return stack_problem(ctx, a.shape, a.on, facts)


def stack_problem(ctx: RulesContext, shape: str, on: object, facts: PlaceFacts | None = None) -> str | None:
    """:func:`check_stack` of ``Stack(shape, on)``."""
    if shape not in ctx.geom.shapes:
        return f"unknown shape {shape!r}"
    if facts is None:
        stone = ctx.stone_for(shape)
    else:
        stone = facts.stones.get(shape, -2)
        if stone == -2:
            stone = facts.stones[shape] = ctx.stone_for(shape)
    if stone < 0:
        return f"no {shape} available"
    if not isinstance(on, int) or not 0 <= on < len(ctx.position.role) or ctx.position.role[on] != STAND:
        return f"#{on} is not a stone standing on the base"
    ring = ctx.ring()
    k = ring.index[on]
    p = ring.pos[k]
    if p.top >= 0:
        return "at most two levels"
    if facts is None:
        facts = current_place_facts(ctx)
    if on in facts.supports:
        return "a gate rests on it"
    return stack_geometry_problem(ctx, shape, stone, k, facts)


def stack_geometry_problem(ctx: RulesContext, shape: str, stone: int, k: int, facts: PlaceFacts) -> str | None:
    """:func:`stack_problem` once the stone (``stone`` of ``shape``) and the position (index
    ``k`` of ``facts.ring``, on the base, no top, no gate on it) are known to be valid."""
    ring = facts.ring
    p = ring.pos[k]
    new = p.memo.get(("stacked", shape))  # (kept with p: SunCache.stacked_pos)
    if new is None:
        new = ctx.stacked_pos(p, shape)  # the footprint of both stones (docs/rules-sun.md)
    local = facts.standard_turn and ring.n >= 3
    if local and (new.width != p.width or new.angle != p.angle):
        for ms in ctx.position.markers:
            for m in ms:
                if abs((m - new.angle + math.pi) % TAU - math.pi) <= new.half:
                    local = False  # the stack would cover a marker: the full check
    if not local:
        return stack_verdict(ctx, ring, p, new, stone, False, facts)
    # The verdict's geometric part (lintels, clearance, whether each gap beside the stack is
    # passable at its new width) depends only on the position, its two neighbours (the gap
    # memo is of this position and the next; the previous one is kept with the verdict), the
    # shape, the lintels and the two gaps' gates: memoised. Which gaps are open to the mover
    # (other seats' areas, the mover's area) changes from turn to turn: decided here.
    k0 = (k - 1) % ring.n
    geo_key = ("stack", shape, facts.lintels_token, ring.under[k], ring.under[k0])
    memo = ring.memo[k]  # of the gap from this position to the next: kept while both are
    known = memo.get(geo_key)
    if known is None or known[0] is not ring.pos[k0]:
        known = stack_geo(ctx, ring, k, new, shape, geo_key)
    if known[1] is not None:
        return known[1]
    gap_open = facts.open_gaps if facts.open_gaps is not None else open_gaps(ctx, facts)
    if (known[2] and gap_open[k]) or (known[3] and gap_open[k0]):
        return None
    return "no legal marker move would follow"


def stack_geo(ctx: RulesContext, ring: Ring, k: int, new: Pos, shape: str, geo_key: tuple[Any, ...]
              ) -> tuple[Pos, str | None, bool, bool]:
    """The geometric part of the verdict on stacking a stone of ``shape`` on position ``k`` of
    ``ring`` (grown to ``new``: :meth:`stacked_pos`), kept in the memo of gap ``k`` under
    ``geo_key`` (:func:`stack_geometry_problem` says what it depends on): ``(the previous
    position, why the stack hits a gate or is not clear of a neighbour or None, whether gap
    ``k`` is passable at its new width, whether gap ``k - 1`` is)``."""
    k0 = (k - 1) % ring.n
    memo = ring.memo[k]
    prev = ring.pos[k0]
    # stack_clash and stack_gaps_passable, with what each side of the stack measures against
    # its neighbour kept per side (a stand beside the position changes one side only)
    nxt = ring.pos[(k + 1) % ring.n]
    cw_side = stack_side(new, prev, False, ring.memo[k0], shape)
    ccw_side = stack_side(new, nxt, True, memo, shape)
    half = new.half
    mc = ctx.geom.table.min_clearance
    if ring.lintels and ring.lintel_clash(new.angle - half, 2 * half, new.top_z) >= 0:
        why: str | None = "the stack would hit a gate"
    elif cw_side[0] < mc:
        why = f"the stack would not be clear of stone #{prev.id}"
    elif ccw_side[0] < mc:
        why = f"the stack would not be clear of stone #{nxt.id}"
    else:
        why = None
    g = ctx.geom
    known = memo[geo_key] = (prev, why, passable(ccw_side[1], ring.under[k], g.pass_width, g.gate_clear_z),
                             passable(cw_side[1], ring.under[k0], g.pass_width, g.gate_clear_z))
    return known


def stack_candidates(ctx: RulesContext, shape: str, stone: int, bases: Sequence[int], facts: PlaceFacts) -> list[Stack]:
    """The legal stacks of ``stone`` (of ``shape``, valid) on the positions ``bases`` (indices of
    ``facts.ring``, each valid as :func:`stack_geometry_problem` requires), in that order: those
    for which :func:`stack_geometry_problem` finds no problem. The same verdicts, decided by the
    same steps and memos, with what every base shares (the markers, the memo keys' constant
    parts, the gaps open to the mover) found once per shape instead of once per base (the
    candidate list asks for every base and shape; tests/sun/test_sun_rules_fast.py compares the two)."""
    ring = facts.ring
    pos, n, memos, under = ring.pos, ring.n, ring.memo, ring.under
    stacked_key = ("stacked", shape)
    local_turn = facts.standard_turn and n >= 3
    flat = [m for ms in ctx.position.markers for m in ms] if local_turn else []
    token = facts.lintels_token
    pi = math.pi
    gap_open: list[bool] | None = None
    stacks = made_memo(Stack)
    out: list[Stack] = []
    for k in bases:
        p = pos[k]
        new = p.memo.get(stacked_key)  # (kept with p: SunCache.stacked_pos)
        if new is None:
            new = ctx.stacked_pos(p, shape)
        local = local_turn
        if local and (new.width != p.width or new.angle != p.angle):
            ang, half = new.angle, new.half
            for m in flat:
                x = (m - ang + pi) % TAU - pi
                if -half <= x <= half:  # (abs(x) <= half without the call)
                    local = False  # the stack would cover a marker: the full check
                    break
        if not local:
            if stack_verdict(ctx, ring, p, new, stone, False, facts) is None:
                out.append(stacks.get((shape, p.id)) or made_once(Stack, shape, p.id))
            continue
        k0 = (k - 1) % n
        geo_key = ("stack", shape, token, under[k], under[k0])
        known = memos[k].get(geo_key)
        if known is None or known[0] is not pos[k0]:
            known = stack_geo(ctx, ring, k, new, shape, geo_key)
        if known[1] is not None:
            continue
        if gap_open is None:
            gap_open = facts.open_gaps if facts.open_gaps is not None else open_gaps(ctx, facts)
        if (known[2] and gap_open[k]) or (known[3] and gap_open[k0]):
            # (made_once's memo read here first: a stack recurs turn after turn)
            out.append(stacks.get((shape, p.id)) or made_once(Stack, shape, p.id))
    return out


def stack_side(new: Pos, q: Pos, ccw: bool, gap_memo: dict[Hashable, Any], shape: str) -> tuple[float, float]:
    """``(clear width, gap width)`` (m) between a stacked position ``new`` (:meth:`stacked_pos` of a
    ring position with a stone of ``shape``) and its neighbour ``q`` on its counter-clockwise side
    (``ccw``) or its clockwise one: what :func:`stack_clash` (``clear_width``) and
    :func:`stack_gaps_passable` (``width_between``) measure on that side.

    Kept in ``gap_memo``, the memo of the ring's gap between the stack's position and ``q``
    (``Ring.memo``: of those two very positions, and ``new`` is a function of the position and
    the shape), not in ``new``'s own memo: a position's memo that held its neighbour would close
    a reference cycle (a position, its stacked form, the neighbour, the neighbour's stacked form,
    the position), which only the cyclic garbage collector frees (about 1100 positions and 10000
    objects per 20 rules playouts; 50 young-generation collections instead of 41)."""
    key = ("stack_ccw" if ccw else "stack_cw", shape)
    known: tuple[float, float] | None = gap_memo.get(key)
    if known is None:
        if ccw:
            known = (clear_width(new, q), width_between(new.angle, new.ccw, q.angle, q.cw))
        else:
            known = (clear_width(q, new), width_between(q.angle, q.ccw, new.angle, new.cw))
        gap_memo[key] = known
    return known


def stack_clash(ctx: RulesContext, ring: Ring, p: Pos, new: Pos) -> str | None:
    """Why stacking on position ``p`` (making it ``new``: :meth:`stacked_pos`) hits a gate or
    is not clear of a neighbour, or None."""
    half = new.half
    if ring.lintels and ring.lintel_clash(new.angle - half, 2 * half, new.top_z) >= 0:
        return "the stack would hit a gate"
    if ring.n > 1:
        k = ring.index[p.id]
        before, after = ring.pos[k - 1], ring.pos[(k + 1) % ring.n]
        # the clear widths between the stones of the grown position and its neighbours' that meet
        # (a top overhanging a lower neighbour passes above it; inf beyond a half turn)
        for q, w in ((before, clear_width(before, new)), (after, clear_width(new, after))):
            if q.id != p.id and w < ctx.geom.table.min_clearance:
                return f"the stack would not be clear of stone #{q.id}"
    return None


def stack_verdict(ctx: RulesContext, ring: Ring, p: Pos, new: Pos, stone: int, local: bool,
                   facts: PlaceFacts) -> str | None:
    """The geometric part of :func:`check_stack`: stacking ``stone`` makes position ``p``
    ``new`` (:meth:`stacked_pos`); ``local``: the marker check may be done locally
    (:func:`stack_marker_fast`)."""
    why = stack_clash(ctx, ring, p, new)
    if why is not None:
        return why
    if local:
        return None if stack_gaps_ok(ctx, ring, ring.index[p.id], new, facts.others) else "no legal marker move would follow"
    if ctx.is_free_turn():
        return None  # (check_marker_after's own first test, before the position is copied for it)
    return check_marker_after(ctx, stone, new_pos=replace(new, top=stone))


def stack_marker_fast(ctx: RulesContext, ring: Ring, k: int, new: Pos, others: set[tuple[int, int]] | None = None) -> bool:
    """Standard mode, a stack that covers no marker: is there a legal marker move after it?
    Every marker keeps its gap and the keys are unchanged; only the two gaps beside the
    position get the stack's width and depth. Equal to :func:`marker_options` on the full
    ring (tests/sun/test_sun_stand_intervals.py checks it on random games). ``others``: the
    other seats' areas on ``ring`` (:func:`other_seats_areas`), when the caller has them."""
    return stack_gaps_ok(ctx, ring, k, new, others)


def stack_gaps_ok(ctx: RulesContext, ring: Ring, k: int, new: Pos, others: set[tuple[int, int]] | None = None) -> bool:
    """:func:`stack_marker_fast` for position ``k`` grown to ``new`` (its angle and sides): is
    one of its two gaps, at its new width, passable and open to the mover?"""
    if others is None:
        others = other_seats_areas(ctx, ring)
    new_gap_rule = ctx.rules.marker_change == "new_gap"
    before = ctx.position.area_before[ctx.position.seat]
    passable = stack_gaps_passable(ctx, ring, k, new)
    for gi, ok in zip((k, (k - 1) % ring.n), passable):
        key = ring.keys[gi]
        if ok and not (key in others or (new_gap_rule and key == before)):
            return True
    return False


def stack_gaps_passable(ctx: RulesContext, ring: Ring, k: int, new: Pos) -> tuple[bool, bool]:
    """Whether gap ``k`` (to the next position) and gap ``k - 1`` (from the previous one) are
    passable once position ``k`` of ``ring`` (2+ positions) is grown to ``new`` (its angle and
    its sides: the whole outline, the ball meets the top stone too)."""
    g = ctx.geom
    nxt, prev = ring.pos[(k + 1) % ring.n], ring.pos[k - 1]
    w_next = width_between(new.angle, new.ccw, nxt.angle, nxt.cw)
    w_prev = width_between(prev.angle, prev.ccw, new.angle, new.cw)
    return (passable(w_next, ring.under[k], g.pass_width, g.gate_clear_z),
            passable(w_prev, ring.under[(k - 1) % ring.n], g.pass_width, g.gate_clear_z))


def ring_with(ctx: RulesContext, new_pos: Pos | None = None, removed: int = -1,
               gate: tuple[int, int, float] | None = None) -> Ring:
    ring = ctx.ring()
    positions = [p for p in ring.pos if p.id != removed and (new_pos is None or p.id != new_pos.id)]
    if removed >= 0 and ctx.position.role[removed] == STACK:
        b = ctx.position.on[removed][0]
        positions = [p for p in positions if p.id != b]
        positions.append(position_without(ctx, ring.pos[ring.index[b]], removed))
    if new_pos is not None:
        positions.append(new_pos)
    gates = {ring.keys[i]: u for i, u in enumerate(ring.under) if u is not None}
    if gate is not None:
        gates[(gate[0], gate[1])] = gate[2]
    return Ring(positions, gates, ring.lintels, reuse=ring)


def check_marker_after(ctx: RulesContext, stone: int, new_pos: Pos) -> str | None:
    if ctx.is_free_turn():
        return None
    ring = ring_with(ctx, new_pos=new_pos)
    if not marker_options(ctx, ring, anchor=new_pos.id):
        return "no legal marker move would follow"
    return None


def other_seats_areas(ctx: RulesContext, ring: Ring) -> set[tuple[int, int]]:
    """The other seats' mark areas on ``ring`` (``ring.others_areas``)."""
    return others_areas(ring, ctx.position.markers, ctx.position.seat)


def marker_options(ctx: RulesContext, ring: Ring, anchor: int | None = None) -> list[MoveMarker]:
    """Legal marker moves after the stone (position ``anchor``) was stood, on ``ring``."""
    if anchor is None:
        anchor = anchor_stone(ctx)
    if anchor is None or anchor not in ring.index:
        return []
    g = ctx.geom
    k = ring.index[anchor]
    sides = [("ccw", k), ("cw", (k - 1) % ring.n)]
    if ring.n == 1:
        sides = sides[:1]
    others = other_seats_areas(ctx, ring)
    before = ctx.position.area_before[ctx.position.seat]
    out: list[MoveMarker] = []
    orbit = ctx.rules.mode == "orbit"
    new_gap_rule = ctx.rules.marker_change == "new_gap"
    for m in range(len(ctx.position.markers[ctx.position.seat])):
        other_gap = None
        if orbit:
            other_gap = ring.nearest_gap(ctx.position.markers[ctx.position.seat][1 - m])
            if other_gap is None or not ring.passable(other_gap, g):
                continue
        for side, gi in sides:
            key = ring.keys[gi]
            if key in others or not ring.passable(gi, g):
                continue
            if not orbit and key == before and new_gap_rule:
                continue
            if orbit:
                old = ring.nearest_gap(ctx.position.markers[ctx.position.seat][m])
                if old is not None and ring.keys[old] == key and new_gap_rule:
                    continue
                if not line_exists(ring, gi, other_gap):  # type: ignore[arg-type]
                    continue
            out.append(made_once(MoveMarker, side, m))
    return out


def line_exists(ring: Ring, g1: int, g2: int) -> bool:
    return orbit_arc(ring, g1, g2) is not None


def anchor_stone(ctx: RulesContext) -> int | None:
    """Bottom stone id of the position just stood on (the marker's anchor)."""
    if ctx.position.placed < 0:
        return None
    return ctx.position.on[ctx.position.placed][0] if ctx.position.role[ctx.position.placed] == STACK else ctx.position.placed


def gate_candidates(ctx: RulesContext, ring: Ring, facts: PlaceFacts | None = None) -> list[Gate]:
    """The legal gates now (every stone that may be taken, over every pair of neighbours that
    could carry it). ``facts``: :func:`place_facts` of this position, when the caller has them."""
    if ring.n < 3:
        return []
    if facts is None:
        facts = place_facts(ctx)
    supports = facts.supports
    role, on = ctx.position.role, ctx.position.on
    pos, n, width, under_of = ring.pos, ring.n, ring.width, ring.under
    # (loops, not comprehensions, here: these read the function's locals, which comprehensions
    # would make closure cells, a dozen new objects at every candidate list)
    # a stone standing on the base is a ring position's bottom: takeable without a top
    topped = set()
    for p in pos:
        if p.top >= 0:
            topped.add(p.id)
    takeable = []
    for i, r in enumerate(role):
        if (r == STAND and i not in supports and i not in topped) or (r == STACK and on[i][0] not in supports):
            takeable.append(i)
    # Pairs of neighbours that no gate can span whatever stone is taken, unless that stone is
    # the top of one of them: a support carries a gate, a gate spans them, their tops differ by
    # more than level_tolerance, or the gap is wider than the longest lintel allows.
    shapes, names = ctx.geom.shapes, ctx.position.shapes
    least2 = 2.0 * ctx.geom.table.gate_min_overlap
    # (the longest over the takeable stones' shapes: their lintel_length read once per shape)
    longest = 0.0
    if takeable:
        named = set()
        for st in takeable:
            named.add(names[st])
        lengths = []
        for name in named:
            lengths.append(shapes[name].lintel_length)
        longest = max(lengths)
    most = longest - least2
    tol = ctx.rules.level_tolerance
    # ring.width[i] is gap_width(pa, pb) (the same formula; the ring has 3+ positions)
    static_ok = []
    static_gaps = []
    for i, (pa, pb, u, w) in enumerate(zip(pos, pos[1:] + pos[:1], under_of, width)):
        ok = pa.id not in supports and pb.id not in supports and u is None and abs(pa.top_z - pb.top_z) <= tol \
            and w <= most
        static_ok.append(ok)
        if ok:
            static_gaps.append(i)
    out = []
    widest_of: dict[str, float] = {}  # per shape: the widest gap its lintel spans (m)
    # per shape: the static gaps its lintel spans, as their two positions. A stone on the base is
    # the top of neither support, so such a gap passes every check of the pair loop below.
    fits_of: dict[str, list[tuple[Pos, Pos]]] = {}
    index = ring.index
    gates = made_memo(Gate)
    for st in takeable:
        shape = names[st]
        widest = widest_of.get(shape, -1.0)
        if widest < 0.0:
            widest = widest_of[shape] = shapes[shape].lintel_length - least2
        if role[st] == STAND:
            fits = fits_of.get(shape)
            if fits is None:
                fits = fits_of[shape] = []
                for i in static_gaps:
                    if width[i] <= widest:
                        fits.append((pos[i], pos[(i + 1) % n]))
            for pa, pb in fits:
                # a static gap (no gate over it, its supports level) of two positions with no
                # top the stone could be: the supports as they stand
                a, b = pa.id, pb.id
                if st != a and st != b and gate_geometry_problem(ctx, st, a, b, facts, (pa, pb)) is None:
                    out.append(gates.get((st, a, b)) or made_once(Gate, st, a, b))  # (the memo read first, as stacks')
            k = index[st]
            pairs = [(pos[k - 1].id, pos[(k + 1) % n].id, -1)]  # (a, b, the gap between them on this ring or -1)
        else:  # the gaps beside the stack's bottom may pass once the top is taken
            pairs = []
            kb = index[on[st][0]]
            kb1 = (kb - 1) % n
            keys = ring.keys
            for i in static_gaps if static_ok[kb] and static_ok[kb1] else sorted({*static_gaps, kb1, kb}):
                a, b = keys[i]
                if st != a and st != b:
                    pairs.append((a, b, i))
        for a, b, i in pairs:
            if a in supports or b in supports:
                continue  # refused by check_gate: a support already carries a gate
            # the supports' heights once the stone is taken (as check_gate computes them):
            # skipping a pair that differs too much skips only what check_gate refuses
            pa, pb = pos[index[a]], pos[index[b]]
            wa = pa if pa.top != st else position_without(ctx, pa, st)
            wb = pb if pb.top != st else position_without(ctx, pb, st)
            x = wa.top_z - wb.top_z
            if x > tol or x < -tol:  # (abs(x) > tol without the call)
                continue
            if i >= 0 and pa.top != st and pb.top != st and width[i] > widest:
                continue  # too wide for this stone's lintel: the gap's width is check_gate's span
            if i >= 0 and under_of[i] is not None:
                continue  # refused by check_gate: a gate already spans this gap
            # the rest is valid (see above); the supports' gap is i, or (i = -1) they are no
            # neighbours on this ring (the stone stands between them)
            if gate_geometry_problem(ctx, st, a, b, facts, (wa, wb)) is None:
                out.append(gates.get((st, a, b)) or made_once(Gate, st, a, b))
    return out


def check_gate(ctx: RulesContext, a: Gate, facts: PlaceFacts | None = None) -> str | None:
    """Why gate ``a`` is illegal now, or None. ``facts``: :func:`place_facts` of this position,
    when the caller has them (the candidate loop checks many gates of one position)."""
    n = len(ctx.position.role)
    if not (isinstance(a.stone, int) and 0 <= a.stone < n and isinstance(a.a, int) and 0 <= a.a < n
            and isinstance(a.b, int) and 0 <= a.b < n):
        return "unknown stone id"
    st = a.stone
    if ctx.position.role[st] not in (STAND, STACK):
        return f"#{st} is not standing on the base (a stone from the field cannot make a gate)"
    if facts is None:
        facts = current_place_facts(ctx)
    supports = facts.supports
    ring = ctx.ring()
    if ctx.position.role[st] == STAND:
        if st in supports:
            return f"a gate rests on #{st}"
        if ring.pos[ring.index[st]].top >= 0:
            return f"#{st} carries a stack: take the top stone"
    elif ctx.position.on[st][0] in supports:
        return f"a gate rests on #{st}"
    if a.a == a.b or st in (a.a, a.b):
        return "a gate needs two other positions"
    for x in (a.a, a.b):
        if ctx.position.role[x] != STAND:
            return f"#{x} is not a position on the base"
        if x in supports:
            return f"#{x} already carries a gate"
    # cheap checks on the current ring first (adjacency after removing the stone, level, span)
    ka, kb = ring.index[a.a], ring.index[a.b]
    single = ctx.position.role[st] == STAND
    ks = ring.index[st] if single else -1
    nxt = (ka + 1) % ring.n
    if single and nxt == ks:
        nxt = (nxt + 1) % ring.n
    if nxt != kb or ring.n < 3:
        return f"#{a.a} and #{a.b} are not neighbours (counter-clockwise)"
    return gate_geometry_problem(ctx, st, a.a, a.b, facts)


def gate_geometry_problem(ctx: RulesContext, st: int, id_a: int, id_b: int, facts: PlaceFacts,
                          supports: tuple[Pos, Pos] | None = None) -> str | None:
    """:func:`check_gate` of ``Gate(st, id_a, id_b)`` once the stone (on the base or stacked,
    free of gates) and the supports (other positions, free of gates, neighbours once the stone
    is taken) are known to be valid: the gap, the heights, the span, clashes, mark areas.
    ``supports``: the two supports once the stone is taken (``position_without``), when the
    caller found them and found no gate spanning their gap and their heights within the
    tolerance (:func:`gate_candidates`): those two checks are not made again."""
    ring = facts.ring
    single = ctx.position.role[st] == STAND
    ks = ring.index[st] if single else -1
    if supports is not None:
        pa, pb = supports
    else:
        ka, kb = ring.index[id_a], ring.index[id_b]
        if (ka + 1) % ring.n == kb and ring.under[ka] is not None:
            return "a gate already spans this gap"
        pa, pb = position_without(ctx, ring.pos[ka], st), position_without(ctx, ring.pos[kb], st)
        if abs(pa.top_z - pb.top_z) > ctx.rules.level_tolerance:
            return f"supports differ in height ({pa.top_z * 1000:.1f} and {pb.top_z * 1000:.1f} mm)"
    shape = ctx.position.shapes[st]
    s = ctx.geom.shapes[shape]
    # the span and the lintel's footprint depend on the two supports and the stone's shape
    # only: kept for the other stones of that shape laid on the same (unchanged) supports, on
    # this ring and the next ones (the state's memo; the very positions are checked)
    span_key = (shape, pa.id, pb.id)
    known = ctx.cache.gate_span_memo.get(span_key)
    if known is None or known[0] is not pa or known[1] is not pb:
        inner = gap_width(pa, pb)
        least = ctx.geom.table.gate_min_overlap
        if inner > s.lintel_length - 2.0 * least:
            why: str | None = f"gap too wide for a {shape} gate ({inner * 1000:.1f} mm)"
        elif inner <= 0.0:
            why = "supports touch"
        else:
            # the lintel rests on the supports' top stones as they stand (their own offsets
            # and turns; the gap width is measured on the positions' footprints)
            shapes = ctx.geom.shapes
            # (written out, not a comprehension: that made ``ctx`` a closure cell at every call)
            ta, tb = pa.ids[-1], pb.ids[-1]
            poses, names = ctx.position.pose, ctx.position.shapes
            tops = [(poses[ta], shapes[names[ta]]), (poses[tb], shapes[names[tb]])]
            over = lintel_overlaps(ctx.geom, shape, ctx.position.pose[pa.id], ctx.position.pose[pb.id], *tops)
            k_short = 0 if over[0] <= over[1] else 1
            why = None if over[k_short] >= least else \
                f"a {shape} gate would rest {over[k_short] * 1000:.1f} mm on #{(pa, pb)[k_short].ids[-1]} " \
                f"(at least {least * 1000:.0f} mm)"
        lo = span = 0.0
        if why is None:
            # where the lintel is laid: over the supports' bottom stones' centres, along the
            # chord between them (``physics.nominal_pose``), not their footprints' middles
            ca, cb = ctx.position.pose[pa.id], ctx.position.pose[pb.id]
            ax, ay = cb[0] - ca[0], cb[1] - ca[1]
            nrm = math.hypot(ax, ay) or 1.0
            mid = (0.5 * (ca[0] + cb[0]), 0.5 * (ca[1] + cb[1]))
            lo, span = lintel_footprint(ctx.geom, shape, mid, (ax / nrm, ay / nrm))
        known = ctx.cache.gate_span_memo[span_key] = (pa, pb, why, lo, span)
    why, lo, span = known[2], known[3], known[4]
    if why is not None:
        return why
    # the lintel must not hit a neighbour as tall as its supports, nor another gate
    under = pb.top_z if pb.top_z < pa.top_z else pa.top_z  # (min(pa.top_z, pb.top_z), without the call)
    base = -1 if single else ctx.position.on[st][0]
    if single or (base != pa.id and base != pb.id):
        # A stone on the base is no position's top, so the supports and every other position are
        # as on the ring, whichever stone of the shape is taken: the positions the lintel hits
        # (in ring order) and whether it hits a gate are found once per shape and supports on
        # this position, and the stone's own position is passed over here. A stacked stone whose
        # base is neither support changes only its base (``position_without``): the first hit is
        # the first of the others' hits or that base, as ``gate_hits`` would find it, in ring order
        hits = facts.gate_hits.get(span_key)  # (by shape and supports, as the span)
        if hits is None:
            hits = facts.gate_hits[span_key] = gate_hits(ctx, ring, pa, pb, -1, lo, span, under, s, facts)
        if single:
            for q_id in hits[0]:
                if q_id != st:
                    return f"the gate would hit #{q_id}"
        else:
            first = -1
            for q_id in hits[0]:
                if q_id != base:
                    first = q_id
                    break
            kb = ring.index[base]
            qq = position_without(ctx, ring.pos[kb], st)
            if qq.top_z > under - 0.001:  # gate_hits' test of that base, as it stands once st is taken
                q0 = qq.angle - qq.half
                if (((q0 - lo) % TAU) <= span or ((lo - q0) % TAU) <= 2 * qq.half) and \
                        (first < 0 or kb < ring.index[first]):
                    first = base
            if first >= 0:
                return f"the gate would hit #{first}"
        if hits[1]:
            return "the gate would hit another gate"
    else:
        hit_ids, hits_gate = gate_hits(ctx, ring, pa, pb, st, lo, span, under, s, facts, first_only=True)
        if hit_ids:
            return f"the gate would hit #{hit_ids[0]}"
        if hits_gate:
            return "the gate would hit another gate"
    # what depends on the stone taken only (not on the supports) is found once per stone
    taken = facts.taken.get(st)
    if taken is None:
        # never merge two different players' mark areas
        # (a seat's marker in the gap before the stone and another seat's in the gap after it)
        merges = False
        if single:
            g1, g2 = (ks - 1) % ring.n, ks
            for x, gm in facts.marker_gaps:
                if gm == g1:
                    for y, gm2 in facts.marker_gaps:
                        if gm2 == g2 and y != x:
                            merges = True
                            break
                    if merges:
                        break
        # the ring after the gate: the ring without the stone, with ``under`` on the gate's gap.
        # Where the mover's markers lie in gaps away from the stone's position (not bounded by
        # it), those gaps are the same on that ring as on this one, as are their nearest gaps.
        k_st = ks if single else ring.index[ctx.position.on[st][0]]
        away = ring.n >= 4
        if away:
            k_prev = (k_st - 1) % ring.n
            for gi in facts.own_gaps:
                if gi is None or gi == k_st or gi == k_prev:
                    away = False
                    break
        taken = facts.taken[st] = (merges, away)
    if taken[0]:
        return "removing it would merge two players' mark areas"
    if taken[1]:
        # this ring, with the gate's ``under`` on its gap (the same for every stone taken)
        okey = (id_a, id_b, under)
        ok = facts.own_ok.get(okey)
        if ok is None:
            ok = facts.own_ok[okey] = own_areas_ok(ctx, ring, facts.own_gaps, ((id_a, id_b), under))
        if not ok:
            return "the mover's own mark area must stay passable (move the marker instead)"
        return None
    if st not in facts.removal:
        now = ctx.ring()  # a stone on the base without a top: spliced out (as ring_with builds it)
        if single:
            without = now.minus(st) if now.n >= 3 and now.pos[now.index[st]].top < 0 else ring_with(ctx, removed=st)
        else:  # a stacked stone: its base's position swapped for the base alone (as ring_with builds it)
            kb = now.index[ctx.position.on[st][0]]
            swapped = now.replaced(position_without(ctx, now.pos[kb], st))
            without = swapped if swapped is not None else ring_with(ctx, removed=st)
        facts.removal[st] = (without, list(map(without.nearest_gap, ctx.position.markers[ctx.position.seat])))
    without, own_gaps = facts.removal[st]
    if not own_areas_ok(ctx, without, own_gaps, ((id_a, id_b), under)):
        return "the mover's own mark area must stay passable (move the marker instead)"
    return None


def gate_hits(ctx: RulesContext, ring: Ring, pa: Pos, pb: Pos, st: int, lo: float, span: float, under: float,
               s: ShapeSpec, facts: PlaceFacts, first_only: bool = False) -> tuple[list[int], bool]:
    """For a lintel of shape ``s`` on supports ``pa``, ``pb`` (their tops as once the stone is
    taken) with footprint ``lo, span`` (rad) and underside ``under`` (m): the ids, in ring order,
    of the other positions it would hit (their tops as once the top stone ``st`` is taken; -1:
    none is), only the first if ``first_only``, and whether it would hit a gate."""
    low = under - 0.001
    ida, idb = pa.id, pb.id
    ids: list[int] = []
    for q in ring.pos:
        if q.id == ida or q.id == idb:
            continue
        qq = q if q.top != st or st < 0 else position_without(ctx, q, st)
        if qq.top_z > low:
            q0 = qq.angle - qq.half  # arcs_overlap(lo, span, q0, 2 * qq.half), inlined
            if ((q0 - lo) % TAU) <= span or ((lo - q0) % TAU) <= 2 * qq.half:
                ids.append(q.id)
                if first_only:
                    return ids, False
    thick = s.depth if s.depth < s.width else s.width  # (min(s.width, s.depth), without the call)
    for (l0, lsp, lu, lt) in ring.lintels:
        if arcs_overlap(lo, span, l0, lsp) and lu < under + thick + 0.001 and lt > under - 0.001:
            return ids, True
    return ids, False


def position_without(ctx: RulesContext, p: Pos, st: int) -> Pos:
    """Position ``p`` after its top stone ``st`` is taken away (unchanged otherwise): the
    footprint of its bottom stone as it stands. Kept with ``p`` (``Pos.memo``: a position is
    made from one pose of its stones), so the gate checks of later turns find the very object
    while the position stands."""
    if p.top != st:
        return p
    key = ("without", st)
    known: Pos | None = p.memo.get(key)
    if known is None:
        pose = ctx.position.pose[p.id]
        # the position the bottom stone had before ``st`` was stacked on it, where the cache still
        # holds it (``SunCache.pos_memo``: made by position_of from the very same pose and shape)
        known = ctx.cache.pos_memo.get((p.id, pose, -1, None))
        if known is None:
            known = position_of(p.id, [(pose, ctx.geom.shapes[ctx.position.shapes[p.id]])])
        p.memo[key] = known
    return known


def own_areas_ok(ctx: RulesContext, ring: Ring, gaps: list[int | None] | None = None,
                  gate: tuple[tuple[int, int], float] | None = None) -> bool:
    """Whether the mover's mark area(s) are passable on ``ring`` (and, in orbit mode, a line
    goes through both). ``gaps``: the mover's markers' nearest gaps on ``ring``, when known;
    ``gate``: (gap key, underside z in m) of a gate laid on ``ring`` (only that gap's ``under``
    changes; gap openings, and so the nearest gaps, do not)."""
    if ring.empty:
        return True
    if gaps is None:
        gaps = list(map(ring.nearest_gap, ctx.position.markers[ctx.position.seat]))
    g = ctx.geom
    for gi in gaps:
        if gi is None:
            return False
        u = gate[1] if gate is not None and ring.keys[gi] == gate[0] else ring.under[gi]
        if not passable(ring.width[gi], u, g.pass_width, g.gate_clear_z):
            return False
    if ctx.rules.mode == "orbit":
        return orbit_arc(ring, gaps[0], gaps[1]) is not None  # type: ignore[arg-type]
    return True

# --- pass legality --------------------------------------------------------------------------
def pass_arcs(ctx: RulesContext, ring: Ring | None = None, seat: int | None = None) -> list[tuple[float, float]]:
    """Arcs (rad, start <= end) of release azimuths whose line crosses the mark area(s) of
    ``seat`` (default: the mover) as the rules require."""
    ring = ring or ctx.ring()
    if ring.empty:
        return [(0.0, TAU)]
    seat = ctx.position.seat if seat is None else seat
    # (map of the bound methods: a comprehension would make ``ring`` a closure cell)
    gaps = list(map(ring.gap_of_angle, ctx.position.markers[seat]))
    if None in gaps:
        gaps = list(map(ring.nearest_gap, ctx.position.markers[seat]))
    if ctx.rules.mode == "orbit":
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


def check_pass(ctx: RulesContext, a: Pass, arcs: list[tuple[float, float]] | None = None) -> str | None:
    """Why pass ``a`` is illegal now, or None. ``arcs``: :func:`pass_arcs`, when known."""
    if not (isinstance(a.aim, (int, float)) and math.isfinite(a.aim)
            and isinstance(a.release, (int, float)) and math.isfinite(a.release)):
        return "aim and release must be finite numbers"
    why = release_problem(ctx, a.release)
    if why is not None:
        return why
    if arcs is None:
        # the arcs the pass candidates were made from (``SunCache.pass_arcs``: of the position as it is now)
        arcs = ctx.cache.pass_arcs if ctx.cache.pass_arcs is not None else pass_arcs(ctx)
    if not aim_in_arcs(a.aim, arcs):
        return "the line of the pass does not go through the mark area"
    return None


def pass_releases(ctx: RulesContext) -> list[float]:
    """The releases (m) of the pass candidates: a hand span plus each of :data:`RELEASE_EXTRA`,
    where allowed. They depend on the geometry only: kept with it (the cache's ``releases_of``)."""
    g = ctx.geom
    known = ctx.cache.releases_of
    if known is None or known[0] is not g:
        releases = [r for r in (round(g.min_release + extra, 6) for extra in RELEASE_EXTRA)
                    if math.isfinite(r) and release_problem(ctx, r) is None]
        known = ctx.cache.releases_of = (g, releases)
    return known[1]


def release_problem(ctx: RulesContext, release: float) -> str | None:
    """Why a release ``release`` m outside the base edge is not allowed, or None."""
    g = ctx.geom
    if release < g.min_release - 1e-12:
        return f"release {release:.3f} m outside the base is less than a hand span ({g.min_release:.3f} m)"
    if release > g.max_release:
        return f"release must be at most {g.max_release:.3f} m"
    return None


def aim_in_arcs(aim_deg: float, arcs: list[tuple[float, float]]) -> bool:
    """Whether azimuth ``aim_deg`` (deg) lies in one of ``arcs`` (rad; 1e-12 rad tolerance)."""
    aim = math.radians(aim_deg)
    for s, e in arcs:
        if e - s >= TAU or ((aim - s) % TAU) <= e - s + 1e-12:
            return True
    return False


#: the slots' own setters of ``Pass`` (a frozen dataclass is set through them too)
_PASS_AIM, _PASS_RELEASE = (getattr(Pass, name).__set__ for name in ("aim", "release"))


def _new_pass(aim: float, release: float) -> Pass:
    """``Pass(aim, release)``, its two slots set as the frozen dataclass's ``__init__`` sets them,
    without its machinery (a new mark area makes up to twenty)."""
    a = object.__new__(Pass)
    _PASS_AIM(a, aim)
    _PASS_RELEASE(a, release)
    return a


def pass_candidates(ctx: RulesContext) -> list[Pass]:
    """A few legal passes: aims at :data:`AIM_FRACTIONS` of each arc, releases a hand span plus
    each of :data:`RELEASE_EXTRA` (the checks of :func:`check_pass`, each done once)."""
    arcs = pass_arcs(ctx)
    releases = pass_releases(ctx)
    # the candidates depend on the arcs and the releases alone, and a mark area's arcs recur
    # from turn to turn while its gap stands (about a third of the turns): kept by them
    key = (tuple(arcs), tuple(releases))
    made = _PASSES_OF.get(key)
    if made is None:
        found: list[Pass] = []
        # each (aim, release) once, as ``Pass(...) in found``: an aim met again has all its
        # releases in already, so the aims seen and the releases without repeats say the same
        seen: set[float] = set()
        distinct = list(dict.fromkeys(releases))
        for s, e in arcs:
            span = min(e - s, TAU)
            for f in AIM_FRACTIONS:
                aim = degrees_6(s + f * span)
                if aim in seen or not (math.isfinite(aim) and aim_in_arcs(aim, arcs)):
                    continue
                seen.add(aim)
                for release in distinct:
                    # made anew, not through made_once: a new mark area's aims are new
                    # (98 % of these were not in its memo), and the arcs' memo above keeps them
                    found.append(_new_pass(aim, release))
        if len(_PASSES_OF) >= PASSES_MEMO_SIZE:
            _PASSES_OF.clear()
        made = _PASSES_OF[key] = tuple(found)
    out = list(made)
    ctx.cache.pass_arcs = arcs  # for the check of the chosen pass (check_pass)
    return out
