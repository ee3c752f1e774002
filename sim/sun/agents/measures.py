"""What the Sun's agents measure on a ring (docs/rules-sun.md, "Agents"): the clearance of pass
lines (:func:`best_aim`, :func:`area_clear`), a placement's nominal outcome on a preview of the ring
(:func:`previews`), the chance that a stand bumps a neighbour (:func:`bump_chance`) and the bonus for
playing wide stones early (:func:`room_bonus`). The agents' heuristics (:mod:`sim.sun.agents.policies`) weigh
these numbers; everything here is geometry of the rules' ring, no physics and no state change.

Rings never change once built, so what is measured on one is kept with it (:func:`ring_memo`):
a placement's previews share one ring, and each mark area on it is scored once.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np

from sim.sun.actions import MoveMarker, Pass, Stack, Stand
from sim.sun.geometry.gaps import bump_chance as gap_bump
from sim.sun.geometry.gaps import (GapRow, crossing_clearance, gap_matrix, gate_clear, matrix_clearances, pad_corners,
                                   passable,
                                   side_clearance, upright_side, width_between)
from sim.sun.geometry.ring import Geometry, Pos, Ring, gap_width, others_gaps, sep_for_width
from sim.sun.rules.state import SunState
from sim.sun.geometry.specs import TAU, PhysicsSpec, ShapeSpec

#: Aims tried across each arc of a mark area by :func:`best_aim` (the pass).
AIM_SAMPLES = 41

#: Room planning ("think about where you will stand stones on your next and later turns", the rule
#: text): the wide stones are the ones that no longer fit once the ring fills up, so an agent that
#: always plays the narrow stones first is left holding blocks it cannot stand (a stalemate). A
#: stand or stack of a shape wider than the narrowest one left in the field earns ROOM_WEIGHT metres
#: of pass clearance per metre of extra width (docs/rules-sun.md, "Agents").
ROOM_WEIGHT = 0.5


def room_bonus(st: SunState, a: Any) -> float:
    """Bonus (m) for placing a wide stone while narrower ones wait in the field (see ROOM_WEIGHT)."""
    if not isinstance(a, (Stand, Stack)):
        return 0.0
    widths = [st.geom.shapes[sh].width for sh in st.available_shapes()]
    if not widths:
        return 0.0
    return ROOM_WEIGHT * (st.geom.shapes[a.shape].width - min(widths))


def bump_chance(st: SunState, a: Any) -> float:
    """Chance (0-1) that a stand ``a`` touches a neighbour: the seat's along-the-ring placement
    noise (normal, ``sigma_place_m``) exceeding the clear gap left on either side."""
    if not isinstance(a, Stand):
        return 0.0
    ring = st.ring()
    if ring.empty:
        return 0.0
    _, _, widths = stand_sides(st, ring, a)
    return bump_of(st, widths)


def stand_sides(st: SunState, ring: Ring, a: Stand) -> tuple[int, Pos, tuple[float, float]]:
    """Where stand ``a`` goes on a non-empty ``ring``: the gap ``i`` it splits, its position, and
    the clear widths (m) it leaves to the stone before and after it (inf beyond a half turn)."""
    g = st.geom
    ang = math.radians(a.angle) % TAU
    s = g.shapes[a.shape]
    new = Pos(-1, ang, g.table.ring_radius, s.width, s.depth, s.height)
    i = (bisect_right(ring.angles, ang) - 1) % ring.n
    return i, new, (gap_width(ring.pos[i], new), gap_width(new, ring.pos[(i + 1) % ring.n]))


def bump_of(st: SunState, widths: tuple[float, float]) -> float:
    """:func:`bump_chance` of a stand leaving clear ``widths`` (m) to its two neighbours."""
    sigma = st.throwers[st.seat].sigma_place_m if st.seat < len(st.throwers) else 0.0
    return gap_bump(widths, st.geom.table.min_clearance, sigma)


#: (j + 0.5) / samples for j < samples, by samples: where the aims sit across an arc
_FRACTIONS: dict[int, np.ndarray] = {}


def best_line(ring: Ring, g: Geometry, arcs: Sequence[tuple[float, float]], samples: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Clearance (m) at both ring crossings of ``samples`` evenly spread aims per arc, and the aims."""
    if not arcs:
        return np.empty(0), np.empty(0)
    k = _FRACTIONS.get(samples)
    if k is None:
        k = _FRACTIONS[samples] = (np.arange(samples) + 0.5) / samples
    aims = np.concatenate([np.mod(s + min(e - s, TAU) * k, TAU) for s, e in arcs])
    # both crossings in one vectorised call (element-wise, so the same numbers as two calls)
    both = ring.clearances(np.concatenate([aims, aims + math.pi]), g)
    return np.minimum(both[:len(aims)], both[len(aims):]), aims


def best_aim(state: SunState, samples: int = AIM_SAMPLES, seat: int | None = None, want_all: bool = False
             ) -> tuple[float, Pass | None, list[tuple[float, float]]]:
    """The pass whose line has the most clearance at both ring crossings, for ``seat`` (default:
    the mover; another seat's value says how hard its next pass would be on this ring).

    Returns:
        (clearance in m, the pass or None if no arc, and with ``want_all`` every (clearance, aim
        rad) tried, best first; ties keep the order of the aims).
    """
    ring = state.ring()
    g = state.geom
    c, aims = best_line(ring, g, state.pass_arcs(ring, seat), samples)
    if not len(c):
        return -math.inf, None, []
    k = int(np.argmax(c))  # the first of equal maxima, as a stable sort would give
    tried: list[tuple[float, float]] = []
    if want_all:
        order = np.argsort(-c, kind="stable")
        tried = [(float(c[j]), float(aims[j])) for j in order]
    return float(c[k]), Pass(math.degrees(float(aims[k])) % 360.0, g.min_release), tried


@dataclass(slots=True)
class RingMemo:
    """What the agents computed on one ring (rings never change): mark-area clearances by (gap,
    samples) and which gaps are passable. The previews of one placement share one ring, so every
    marker and opponent area on it is scored once."""

    ring: Ring
    g: Geometry
    area: dict[tuple[int, int], float] = field(default_factory=dict)
    passable: list[bool] | None = None
    #: :func:`free_gaps_of` by (seat, the other seats' markers)
    free: dict[tuple[Any, ...], int] = field(default_factory=dict)
    #: how :func:`previews` made this ring from the decision's ring ``base``: (``base``, the index
    #: ``k`` here of the new or grown position, True for ``base.plus`` (one position more), False
    #: for ``base.replaced`` (position ``k`` grown)); None for a ring made otherwise. Every gap
    #: here but the two beside position ``k`` is then ``base``'s gap between the same positions.
    splice: tuple[Ring, int, bool] | None = None


#: :class:`RingMemo` by ``id`` of the ring (the memo keeps the ring alive, so its id cannot be
#: reused while cached). Bounded: emptied when full.
_RING_MEMOS: dict[int, RingMemo] = {}
_RING_MEMOS_KEPT = 512


def ring_memo(ring: Ring, g: Geometry) -> RingMemo:
    m = _RING_MEMOS.get(id(ring))
    if m is None or m.ring is not ring or m.g is not g:
        if len(_RING_MEMOS) >= _RING_MEMOS_KEPT:
            _RING_MEMOS.clear()
        m = _RING_MEMOS[id(ring)] = RingMemo(ring, g)
    return m


def forget_ring_memos() -> None:
    """Drop every :class:`RingMemo` (and so the rings kept by them): called when a placement
    decision ends (``AgentBase._deciding``), since its preview rings are not met again and a
    later decision's rings are new ones. Keeping them would only keep them alive for the
    garbage collector to walk over."""
    _RING_MEMOS.clear()


def area_clear(ring: Ring, g: Geometry, marker: float, samples: int) -> float:
    """Best line clearance (m) through the standard-mode mark area that contains ``marker`` (or
    the nearest gap), over ``samples`` aims per arc; +1 on an empty ring, -inf with no opening."""
    if ring.empty:
        return 1.0
    i = ring.gap_of_angle(marker)
    if i is None:
        i = ring.nearest_gap(marker)
    if i is None or ring.end[i] < ring.start[i]:
        return -math.inf
    done = ring_memo(ring, g).area
    got = done.get((i, samples))
    if got is None:
        s, e = ring.start[i], ring.end[i]
        c, _ = best_line(ring, g, [(s, e), (s + math.pi, e + math.pi)], samples)
        got = done[(i, samples)] = float(np.max(c))
    return got


def seat_clearance(st: SunState, samples: int, seat: int | None = None) -> float:
    """:func:`best_aim`'s clearance (m) for ``seat`` (default: the mover). In standard mode a
    seat's pass arcs are its (first) marker's mark area and that area turned a half turn (the
    rules' ``pass_arcs``), so this is that area's :func:`area_clear`: the same :func:`best_line`
    over the same arcs, kept with the ring (and computed with a decision's previews when asked
    for there)."""
    if st.rules.mode != "standard":
        return best_aim(st, samples, seat=seat)[0]
    return area_clear(st.ring(), st.geom, st.markers[st.seat if seat is None else seat][0], samples)


def prefetch_areas(ring: Ring, g: Geometry, wants: Sequence[tuple[float, int]]) -> None:
    """Compute :func:`area_clear` for every (marker, samples) of ``wants`` on ``ring`` in one
    vectorised call (the same aims and the same element-wise numbers as one call each), so that
    the scoring that follows finds them cached."""
    prefetch_rings(g, [(ring, wants)])


def _fractions(samples: int) -> np.ndarray:
    k = _FRACTIONS.get(samples)
    if k is None:
        k = _FRACTIONS[samples] = (np.arange(samples) + 0.5) / samples
    return k


def prefetch_rings(g: Geometry, jobs: Sequence[tuple[Ring, Sequence[tuple[float, int]]]],
                   base: Ring | None = None) -> None:
    """:func:`prefetch_areas` for several rings at once (a decision's previews): every mark area
    of every ring in one vectorised pass, which costs about as much as one ring's. Each clearance
    is the element-wise arithmetic of :meth:`~sim.sun.geometry.ring.Ring.clearances` on :func:`best_line`'s
    aims, only gathered across rings, so the cached numbers equal :func:`area_clear`'s own
    (tests/sun/test_sun_agents.py checks it).

    ``base``: the ring the jobs' rings were made from (the decision's ring). A ring that
    :func:`previews` spliced from ``base`` (:attr:`RingMemo.splice`: one position added or grown)
    reads ``base``'s gap rows (:meth:`~sim.sun.geometry.ring.Ring.clearances`' matrix, built once
    per ring) for every gap but the two beside that position, and finds each angle's gap from
    ``base``'s search: the count of its angles up to an angle is ``base``'s count, plus one if the
    new position's angle is up to it, less one if the grown position's old angle was. Those are
    the very comparisons a search of its own angles makes, so the gaps, and the rows' numbers, are
    the same. Any other ring reads its own matrix and its own search."""
    todo: list[tuple[dict[tuple[int, int], float], int, int]] = []  # (ring's memo, gap, samples)
    bases: list[float] = []  # per arc of a mark area (best_line's two): start (rad), span (rad), samples
    spans: list[float] = []
    counts: list[int] = []
    work: list[tuple[Ring, int, RingMemo]] = []  # (ring, its aims, its memo) of each ring with areas to compute
    for ring, wants in jobs:
        if ring.empty:
            continue
        rm = ring_memo(ring, g)
        done = rm.area
        mine: list[tuple[int, int]] = []
        for marker, samples in wants:
            i = ring.gap_of_angle(marker)
            if i is None:
                i = ring.nearest_gap(marker)
            if i is None or ring.end[i] < ring.start[i] or (i, samples) in done or (i, samples) in mine:
                continue
            mine.append((i, samples))
            todo.append((done, i, samples))
            s, e = ring.start[i], ring.end[i]
            for lo, hi in ((s, e), (s + math.pi, e + math.pi)):  # as best_line spans its arcs
                bases.append(lo)
                spans.append(min(hi - lo, TAU))
                counts.append(samples)
        if mine:
            work.append((ring, 2 * sum(c for _, c in mine), rm))
    if not todo:
        return
    k = np.concatenate([_fractions(c) for c in counts])
    arcs = np.repeat(np.array([bases, spans]), counts, axis=1)  # each aim's arc: start, span
    aims = np.mod(arcs[0] + arcs[1] * k, TAU)
    m_all = len(aims)
    far = aims + math.pi
    x = np.concatenate([aims, far])
    # np.mod(x, TAU) written out: the aims are in [0, TAU) already (np.mod leaves them), and their
    # far crossings in [pi, 3 pi), where np.mod(y, TAU) is y - TAU when y >= TAU (exact: the two
    # are within a factor two of each other) and y otherwise
    xa = np.concatenate([aims, far - TAU * (far >= TAU)])
    gz = g.gate_clear_z
    # the matrix blocks (gaps.gap_matrix; each with its corner count), the rows of the spliced
    # rings' new gaps, and per ring: the row of each of its gaps (in the stacked blocks), the
    # angles added to and taken from base's count (inf: none), where its aims are
    blocks: list[tuple[np.ndarray, int]] = []
    n_rows = 0
    new_rows: list[GapRow] = []
    spliced: list[tuple[list[int], int, float, float, int, int]] = []  # (rowmap, n, add, sub, first aim, aims)
    own: list[tuple[np.ndarray, int, int, int]] = []  # (angles, first row, first aim, aims) of the other rings
    nb = base.n if base is not None else 0
    if base is not None and nb >= 2:
        b_at, b_mat, b_kc = base.gap_arrays(g)  # the ring's own, cached
        blocks.append((b_mat, b_kc))
        n_rows = nb
    pending: list[tuple[list[int], int, list[int]]] = []  # spliced rowmaps' new-gap slots to fill
    at_aim = 0
    for ring, m, rm in work:
        sp = rm.splice
        n = ring.n
        if sp is not None and nb >= 2 and sp[0] is base:
            _, kk, added = sp
            gl, gr = (kk - 1) % n, kk  # the gaps before and after position kk
            if added:
                rowmap = ([-1] + list(range(nb - 1)) + [-1] if kk == 0
                          else list(range(kk - 1)) + [-1, -1] + list(range(kk, nb)))
                sub = math.inf
            else:
                rowmap = list(range(nb))
                rowmap[gl] = rowmap[gr] = -1
                sub = base.angles[kk]
            pending.append((rowmap, len(new_rows), [gl, gr]))
            pos, start, end, under = ring.pos, ring.start, ring.end, ring.under
            for i in (gl, gr):
                a, b = pos[i], pos[(i + 1) % n]
                new_rows.append((start[i], end[i] - start[i], not gate_clear(under[i], gz), a.angle, a.ccw,
                                 b.angle, b.cw))
            spliced.append((rowmap, n, ring.angles[kk], sub, at_aim, m))
        else:
            at, mat, kc = ring.gap_arrays(g)
            blocks.append((mat, kc))
            own.append((at, n_rows, at_aim, m))
            n_rows += n
            if nb >= 2:  # a stand-in for base's search (its rows are set below from its own)
                spliced.append(([0] * nb, nb, math.inf, math.inf, at_aim, m))
        at_aim += m
    if new_rows:
        mat, kc = gap_matrix(new_rows)
        blocks.append((mat, kc))
        for rowmap, j0, (gl, gr) in pending:
            rowmap[gl], rowmap[gr] = n_rows + j0, n_rows + j0 + 1
    # each crossing's row: spliced rings through base's search (the aims, then their far
    # crossings, as two rows), then the other rings' through their own search
    if spliced:
        per = [m for _, _, _, _, _, m in spliced]
        at_x = np.repeat(np.array([[t[2] for t in spliced], [t[3] for t in spliced]]), per, axis=1)
        flat: list[int] = []
        firsts: list[int] = []
        for rowmap, _, _, _, _, _ in spliced:
            firsts.append(len(flat))
            flat.extend(rowmap)
        at_i = np.repeat(np.array([[t[1] for t in spliced], firsts]), per, axis=1)
        x2 = xa.reshape(2, m_all)
        cnt = np.searchsorted(b_at, x2, side="right")
        cnt += at_x[0] <= x2
        cnt -= at_x[1] <= x2
        cnt -= 1
        local = np.where(cnt < 0, cnt + at_i[0], cnt)
        idx = np.array(flat)[at_i[1] + local].reshape(-1)
    else:
        idx = np.empty(2 * m_all, dtype=np.intp)
    for at, r0, a0, m in own:
        for lo_ in (a0, a0 + m_all):
            sl = slice(lo_, lo_ + m)
            idx[sl] = r0 + (np.searchsorted(at, xa[sl], side="right") - 1) % len(at)
    # one matrix of every block's rows, its sides padded to the most corners (a side padded with
    # its first corner, as gap_matrix pads: the least over its corners is unchanged)
    kc = max(c for _, c in blocks)
    mat = np.concatenate([pad_corners(b, c, kc) for b, c in blocks]) if len(blocks) > 1 else blocks[0][0]
    both = matrix_clearances(x, mat[idx], kc, g.ball.radius)
    line = np.minimum(both[:m_all], both[m_all:])  # best_line: the worse of its two crossings
    starts = [0]
    for _, _, c in todo[:-1]:
        starts.append(starts[-1] + 2 * c)
    best = np.maximum.reduceat(line, starts)  # each mark area's best line (a max: exact in any order)
    for (done, i, samples), v in zip(todo, best.tolist()):
        done[(i, samples)] = v




@dataclass(slots=True)
class Preview:
    """The ring and every seat's markers after a placement and one marker move, nominally (no
    noise, no physics): what ``careful`` and ``aggressive`` score without copying the state."""

    ring: Ring
    markers: list[list[float]]
    move: MoveMarker | None


@dataclass
class PreviewFacts:
    """What :func:`previews` reads of a state that is the same for every placement of one
    decision (the state does not change while its candidates are ranked): made once per decision
    by :func:`preview_facts`."""

    standard: bool
    ring: Ring
    free_turn: bool
    #: ``st.stone_for`` by shape, filled as asked
    stones: dict[str, int] = field(default_factory=dict)


def preview_facts(st: SunState) -> PreviewFacts:
    """:class:`PreviewFacts` of ``st`` as it is now."""
    return PreviewFacts(st.rules.mode == "standard", st.ring(), st.is_free_turn())


#: A stand's new position by (stone, angle in degrees, shape, ring radius, the shape's width, depth
#: and height): the rules offer the same stand angles turn after turn, and a :class:`Pos` depends
#: only on these numbers (its memo too). Bounded: emptied when full.
_STAND_POS: dict[tuple[Any, ...], Pos] = {}
_STAND_POS_KEPT = 4096


def _stand_pos(stone: int, a: Stand, g: Geometry) -> Pos:
    sh = g.shapes[a.shape]
    rr = g.table.ring_radius
    key = (stone, a.angle, a.shape, rr, sh.width, sh.depth, sh.height)
    p = _STAND_POS.get(key)
    if p is None:
        if len(_STAND_POS) >= _STAND_POS_KEPT:
            _STAND_POS.clear()
        p = _STAND_POS[key] = Pos(stone, math.radians(a.angle) % TAU, rr, sh.width, sh.depth, sh.height)
    return p


def previews(st: SunState, a: Any, facts: PreviewFacts | None = None) -> list[Preview] | None:
    """One :class:`Preview` per legal marker move after placement ``a`` (one with ``move=None``
    after a gate or on a turn without a marker move); ``[]`` when no marker move would be legal;
    None in orbit mode (the callers then play the turn out on a copy). ``facts``: the decision's
    :func:`preview_facts` of ``st`` (made here when not given)."""
    if facts is None:
        facts = preview_facts(st)
    if not facts.standard:
        return None
    g = st.geom
    ring = facts.ring
    anchor: int | None = None
    if isinstance(a, Stand):
        stone = facts.stones.get(a.shape)
        if stone is None:
            stone = facts.stones[a.shape] = st.stone_for(a.shape)
        new = _stand_pos(stone, a, g)
        # Ring.plus: the ring ring_with builds, from this ring's gap lists (tests/sun/test_sun_agents.py)
        if ring.n >= 2 and stone not in ring.index:
            ring2 = ring.plus(new)
            ring_memo(ring2, g).splice = (ring, ring2.index[stone], True)  # for prefetch_rings
        else:
            ring2 = st.ring_with(new_pos=new)
        anchor = stone
    elif isinstance(a, Stack):
        stone = st.stone_for(a.shape)
        grown = replace(st.stacked_pos(ring.pos[ring.index[a.on]], a.shape), top=stone)
        # Ring.replaced: the ring ring_with builds, from this ring's gap lists, whenever the grown
        # position keeps its place in the angle order (tests/sun/test_sun_agents.py)
        got = ring.replaced(grown) if ring.n >= 2 else None
        if got is not None:
            ring2 = got
            ring_memo(ring2, g).splice = (ring, ring.index[a.on], False)  # for prefetch_rings
        else:
            ring2 = st.ring_with(new_pos=grown)
        anchor = a.on
    else:
        pa = st.position_without(ring.pos[ring.index[a.a]], a.stone)
        pb = st.position_without(ring.pos[ring.index[a.b]], a.stone)
        ring2 = st.ring_with(removed=a.stone, gate=(a.a, a.b, min(pa.top_z, pb.top_z)))
    markers = [list(ms) for ms in st.markers]
    if not ring2.empty:
        for ms in markers:
            for k, m in enumerate(ms):
                if ring2.gap_of_angle(m) is None:
                    gi = ring2.nearest_gap(m)
                    if gi is not None:
                        ms[k] = ring2.middle(gi)
    if anchor is None or facts.free_turn or ring2.n < 2:
        return [Preview(ring2, markers, None)]
    out = []
    k = ring2.index[anchor]
    seat = st.seat
    for mv in st.marker_options(ring2, anchor=anchor):
        gi = k if mv.side == "ccw" else (k - 1) % ring2.n
        # the mover's markers copied, the other seats' lists shared (the previews' readers
        # never change a marker list)
        mk = list(markers)
        mine = mk[seat] = list(markers[seat])
        mine[mv.marker] = ring2.middle(gi)
        out.append(Preview(ring2, mk, mv))
    return out


def free_gaps_of(ring: Ring, g: Geometry, markers: Sequence[Sequence[float]], seat: int) -> int:
    """Passable gaps that are no other seat's mark area."""
    if ring.empty:
        return 0
    memo = ring_memo(ring, g)
    # the count reads only the other seats' markers: a placement's previews (and a marker
    # decision's moves) differ in the mover's alone
    key = (seat, tuple(tuple(ms) for o, ms in enumerate(markers) if o != seat))
    got = memo.free.get(key)
    if got is not None:
        return got
    if memo.passable is None:  # Ring.passable of each gap
        pw, gz = g.pass_width, g.gate_clear_z
        memo.passable = [passable(w, u, pw, gz) for w, u in zip(ring.width, ring.under)]
    ok = memo.passable
    # the passable gaps less those that are another seat's mark area (others_areas: a gap's key
    # names it alone, so the count over the gaps not in it is this difference)
    others = {gi for _, gi in others_gaps(ring, markers, seat)}
    got = memo.free[key] = sum(ok) - sum(ok[i] for i in others)
    return got


def free_gaps(state: SunState) -> int:
    ring = state.ring()
    if ring.empty:
        return 0
    others = state.other_seats_areas(ring)  # noqa: SLF001 - same package
    return sum(1 for i in range(ring.n) if ring.keys[i] not in others and ring.passable(i, state.geom))


class QuickRing:
    """One ring's numbers as plain floats for scoring many candidate placements on it: the gap
    kernel (``sim.sun.geometry.gaps``) called on the ring's lists, as :func:`stand_sides` and
    :meth:`sim.sun.geometry.ring.Ring.clearance_at` call it (so the very same values), without building a
    :class:`~sim.sun.geometry.ring.Pos` per candidate, the method calls and the per-angle caches; and
    :func:`bump_of` for the mover of ``st``. Built once per placement decision on ``st``'s ring
    (a ring never changes).

    ``ccw`` and ``cw`` are each position's sides in the kernel (``sim.sun.geometry.gaps.Side``: the
    corners of its stones' real outline). The ring must not be empty.
    """

    __slots__ = ("ring", "n", "angles", "start", "end", "closed", "ccw", "cw", "ball_r", "ring_r", "sigma",
                 "min_clear", "pass_width", "stacked_pos")

    def __init__(self, st: SunState) -> None:
        ring, g = st.ring(), st.geom
        self.ring = ring
        self.n = ring.n
        self.angles = ring.angles
        self.start = ring.start
        self.end = ring.end
        gz = g.gate_clear_z
        self.closed = [not gate_clear(u, gz) for u in ring.under]
        self.ccw = [p.ccw for p in ring.pos]
        self.cw = [p.cw for p in ring.pos]
        self.ball_r = g.ball.radius
        self.ring_r = g.table.ring_radius
        self.pass_width = g.pass_width
        #: the mover's along-the-ring placement noise (m), for :func:`bump_of`
        self.sigma = st.throwers[st.seat].sigma_place_m if st.seat < len(st.throwers) else 0.0
        self.min_clear = g.table.min_clearance
        #: the state's ``stacked_pos``: a stack's footprint as the rules see it
        self.stacked_pos = st.stacked_pos

    def stand(self, angle_deg: float, s: ShapeSpec) -> tuple[int, float, float, float]:
        """:func:`stand_sides` of a stand of shape ``s`` at ``angle_deg`` (degrees): the gap ``i``
        it splits, its angle (rad) and the clear widths (m) to the stones before and after it."""
        ang = math.radians(angle_deg) % TAU
        n = self.n
        i = (bisect_right(self.angles, ang) - 1) % n
        j = (i + 1) % n
        side = upright_side(self.ring_r, s.depth, s.width)
        return (i, ang, width_between(self.angles[i], self.ccw[i], ang, side),
                width_between(ang, side, self.angles[j], self.cw[j]))

    def stand_best(self, angle_deg: float, s: ShapeSpec) -> tuple[tuple[int, float, float, float], float, float]:
        """(:meth:`stand`, :meth:`bump` of its widths, :meth:`best_side` of its two gaps) of a
        stand of shape ``s`` at ``angle_deg``: the quick scores' hot loop (a few thousand stands
        a game) in one call. The widths and the bump chance are kept in the memo of the gap the
        stand splits (``Ring.memo``: of that gap's two positions, so the next decision on a ring
        that kept the gap finds them; the rules' stand samples are the same angles turn after
        turn), keyed by every other number they read. The same values."""
        ang = math.radians(angle_deg) % TAU
        n = self.n
        angles = self.angles
        i = (bisect_right(angles, ang) - 1) % n
        j = (i + 1) % n
        memo = self.ring.memo[i]
        key = ("agents.stand", angle_deg, self.ring_r, s.depth, s.width, self.min_clear, self.sigma)
        got = memo.get(key)
        if got is None:
            side = upright_side(self.ring_r, s.depth, s.width)
            wl = width_between(angles[i], self.ccw[i], ang, side)
            wr = width_between(ang, side, angles[j], self.cw[j])
            got = memo[key] = (wl, wr, gap_bump((wl, wr), self.min_clear, self.sigma))
        wl, wr, bump = got
        # best_side of the gap left of the new stone, then the one right of it
        best = self._line(self._line(-math.inf, wl, angles[i], ang), wr, ang, angles[j])
        return (i, ang, wl, wr), bump, best

    def stack_pairs(self, k: int, s: ShapeSpec) -> tuple[tuple[float, float, float], ...]:
        """The two gaps beside a stone of shape ``s`` stacked on position ``k`` as (clear width in
        m, angle of the gap's first stone, of its second, in rad), the left one first: the
        position grows to the footprint of both stones (the state's ``stacked_pos``); a one-stone
        ring's position has itself on both sides and so no gap (inf)."""
        p = self.stacked_pos(self.ring.pos[k], s.name)
        n, ang = self.n, self.angles
        b, c = (k - 1) % n, (k + 1) % n
        return ((width_between(ang[b], self.ccw[b], p.angle, p.cw) if b != k else math.inf,
                 ang[b], p.angle),
                (width_between(p.angle, p.ccw, ang[c], self.cw[c]) if c != k else math.inf,
                 p.angle, ang[c]))

    def best_side(self, pairs: Sequence[tuple[float, float, float]]) -> float:
        """Best pass clearance (m) through one of ``pairs``' passable gaps (:meth:`stack_pairs`):
        half the gap's width less the ball's radius, or less if the line through the gap's middle
        has less at the far crossing; -inf with neither passable."""
        best = -math.inf
        for w, pa, qa in pairs:
            best = self._line(best, w, pa, qa)
        return best

    def _line(self, best: float, w: float, pa: float, qa: float) -> float:
        """:meth:`best_side`'s step: ``best`` or, if more, the clearance (m) through the gap ``w``
        m wide from the stone at ``pa`` to the one at ``qa`` (rad), when it is passable (as max
        and min do it: the first of equals kept)."""
        if w < self.pass_width:
            return best
        sep = (qa - pa) % TAU
        mid = pa + 0.5 * sep
        near = 0.5 * w - self.ball_r if math.isfinite(w) else 1.0
        far = self.clearance_at(mid + math.pi)
        v = far if far < near else near
        return v if v > best else best

    def bump(self, wl: float, wr: float) -> float:
        """:func:`bump_of` (0-1) of a stand leaving clear widths ``wl`` and ``wr`` (m)."""
        return gap_bump((wl, wr), self.min_clear, self.sigma)

    def clearance_at(self, angle: float) -> float:
        """:meth:`~sim.sun.geometry.ring.Ring.clearance_at` (m) of a line crossing the ring at ``angle`` (rad)."""
        n = self.n
        i = (bisect_right(self.angles, angle % TAU) - 1) % n
        s = self.start[i]
        span = self.end[i] - s
        if not (span >= 0.0 and ((angle - s) % TAU) <= span) or self.closed[i]:
            return -1.0
        # kept in the memo of the gap (of its two positions: the next decision on a ring that
        # kept the gap asks the same angles for the same stand actions), keyed by what else it reads
        memo = self.ring.memo[i]
        key = ("agents.cross", angle, self.ball_r)
        got = memo.get(key)
        if got is None:
            j = (i + 1) % n
            got = memo[key] = crossing_clearance(angle, self.angles[i], self.ccw[i], self.angles[j], self.cw[j],
                                                 self.ball_r)
        return got


def narrowing_stands(st: SunState) -> list[Stand]:
    """Legal stands that leave an opponent's mark area just passable (2 mm spare) or just
    impassable (3 mm short), from either end of it: the legal set is exact intervals, and
    these angles are rarely among the samples offered in ``legal_actions``."""
    ring = st.ring()
    if ring.empty or st.phase != "place":
        return []
    g = st.geom
    r = g.table.ring_radius
    gaps = {ring.gap_of_angle(m) for o, ms in enumerate(st.markers) if o != st.seat for m in ms}
    out: list[Stand] = []
    for shape in st.available_shapes():
        sh = g.shapes[shape]
        for i in gaps:
            if i is None or ring.under[i] is not None:
                continue
            a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
            for width in (g.pass_width + 0.002, g.pass_width - 0.003):
                for p, sign in ((a, 1.0), (b, -1.0)):
                    d = sep_for_width(p, r, sh, width, sign > 0)
                    if d is None:
                        continue
                    act = Stand(shape, round(math.degrees((p.angle + sign * d) % TAU), 6) % 360.0)
                    if act not in out and st.placement_problem(act) is None:
                        out.append(act)
    return out


#: The pass risk's grid (:func:`pass_risk`): standard-normal bins per noise, spanning +-RISK_SPAN
#: sigmas; each bin weighs its exact normal probability, so the chance of a touch that starts at
#: some miss distance is exact to within one bin.
RISK_BINS = 25
RISK_SPAN = 3.5
#: Gravity (m/s^2): the physics' default (the rules' geometry does not carry the physics' own, on
#: which the push's drift depends)
GRAVITY = PhysicsSpec().gravity


@dataclass(frozen=True)
class PassRisk:
    """What the line of a pass risks (:func:`pass_risk`).

    Attributes:
        chance: chance (0-1) that the ball's line touches a stone, with the seat's skill.
        stones: (stone id, chance 0-1 that the line touches it), most likely first; only stones
            with a chance above 0.
        touched: the stones the intended line itself touches (no noise), in id order.
        clearance_m: the intended line's clearance (m) at the worse of its two ring crossings
            (negative: it touches; -1: it crosses a stone or passes under a gate too low).
        skill: the name of the seat's skill preset.
    """

    chance: float
    stones: tuple[tuple[int, float], ...]
    touched: tuple[int, ...]
    clearance_m: float
    skill: str


def _normal_bins(sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (sigma units times ``sigma``) and their weights: :data:`RISK_BINS` bins over
    +-:data:`RISK_SPAN` sigmas, the tails folded into the outer bins; one point with no noise."""
    if sigma <= 0.0:
        return np.zeros(1), np.ones(1)
    edges = np.linspace(-RISK_SPAN, RISK_SPAN, RISK_BINS + 1)
    cdf = 0.5 * (1.0 + np.array([math.erf(e / math.sqrt(2.0)) for e in edges]))
    cdf[0], cdf[-1] = 0.0, 1.0
    return sigma * 0.5 * (edges[:-1] + edges[1:]), np.diff(cdf)


def _stone_at(ring: Ring, angle: float) -> int:
    """The bottom stone nearest a ring crossing at ``angle`` (rad): of the gap the angle falls in,
    the stone whose side is nearer (``gaps.side_clearance``, as the clearance counts it)."""
    i = (bisect_right(ring.angles, angle % TAU) - 1) % ring.n
    a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
    da, db = (angle - a.angle) % TAU, (b.angle - angle) % TAU
    ca = side_clearance(a.ccw, da) if da < 0.5 * math.pi else 1.0
    cb = side_clearance(b.cw, db) if db < 0.5 * math.pi else 1.0
    return a.id if ca <= cb else b.id


def pass_risk(st: SunState, a: Pass, seat: int | None = None) -> PassRisk:
    """The risk of pass ``a`` for ``seat`` (default: the seat to act) on ``st``'s ring, with that
    seat's skill (its thrower's sigmas): the pass's line crosses the ring at the aim and opposite
    it, and its clearance there is the agents' own (:meth:`~sim.sun.geometry.ring.Ring.clearances`,
    as :func:`best_line` scores lines). The aim's error turns the line (both crossings move the same
    way round, ``sigma_aim_deg``); the sideways push shifts it (the crossings move opposite ways,
    by the push's drift at the ring, :meth:`~sim.sun.geometry.specs.BallSpec.drift_per_push_s` from
    this release, over the ring's radius). The chance is the normal weight of the aims and pushes
    whose line has a negative clearance at either crossing; each such crossing is charged to the
    stone nearer it. The release's own error and the ball's height are left out (the line's
    clearance is the agents' measure: a touch need not knock a stone over).
    """
    s = st.seat if seat is None else seat
    g = st.geom
    th = st.throwers[s] if s < len(st.throwers) else None
    ring = st.ring()
    name = th.name if th is not None else "perfect"
    if ring.empty:
        return PassRisk(0.0, (), (), 1.0, name)
    aim = math.radians(a.aim)
    rr = g.table.ring_radius
    drift = g.ball.drift_per_push_s(g.table.base_radius + a.release, rr, GRAVITY)
    turn, w_turn = _normal_bins(math.radians(th.sigma_aim_deg) if th is not None else 0.0)
    shift, w_shift = _normal_bins(th.sigma_push_mps * drift / rr if th is not None else 0.0)
    t, sh = np.meshgrid(turn, shift, indexing="ij")
    w = np.outer(w_turn, w_shift).ravel()
    near = (aim + t + sh).ravel()
    far = (aim + math.pi + t - sh).ravel()
    c = ring.clearances(np.concatenate([near, far]), g)
    cn, cf = c[:len(near)], c[len(near):]
    nominal = ring.clearances(np.array([aim, aim + math.pi]), g)
    per: dict[int, float] = {}
    hit = (cn < 0.0) | (cf < 0.0)
    for k in np.flatnonzero(hit):
        got = {_stone_at(ring, float(x)) for x, cx in ((near[k], cn[k]), (far[k], cf[k])) if cx < 0.0}
        for sid in got:
            per[sid] = per.get(sid, 0.0) + float(w[k])
    touched = sorted({_stone_at(ring, x) for x, cx in zip((aim, aim + math.pi), nominal) if cx < 0.0})
    stones = tuple(sorted(((i, min(1.0, v)) for i, v in per.items()), key=lambda x: (-x[1], x[0])))
    return PassRisk(min(1.0, float(w[hit].sum())), stones, tuple(touched), float(nominal.min()), name)


def stand_risk(st: SunState, a: Stand) -> tuple[tuple[int, float], ...]:
    """The neighbours a stand ``a`` may touch, with the chance of each (0-1; :func:`bump_of` of
    that side alone, so the sides' sum capped at 1 is :func:`bump_chance`), most likely first;
    empty on an empty ring or a ring of one position's own gap."""
    ring = st.ring()
    if ring.empty:
        return ()
    i, _, (wl, wr) = stand_sides(st, ring, a)
    # one side alone: the other side as an infinite width, which counts nothing
    out = [(ring.pos[i].id, bump_of(st, (wl, math.inf))), (ring.pos[(i + 1) % ring.n].id, bump_of(st, (wr, math.inf)))]
    best: dict[int, float] = {}
    for sid, p in out:
        if p > 0.0:
            best[sid] = min(1.0, best.get(sid, 0.0) + p)
    return tuple(sorted(best.items(), key=lambda x: (-x[1], x[0])))
