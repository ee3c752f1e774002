"""What the Sun's agents measure on a ring (docs/rules-sun.md, "Agents"): the clearance of pass
lines (:func:`best_aim`, :func:`area_clear`), a placement's nominal outcome on a preview of the ring
(:func:`previews`), the chance that a stand bumps a neighbour (:func:`bump_chance`) and the bonus for
playing wide stones early (:func:`room_bonus`). The agents' heuristics (:mod:`sim.sun.agents`) weigh
these numbers; everything here is geometry of the rules' ring, no physics and no state change.

Rings never change once built, so what is measured on one is kept with it (:func:`ring_memo`):
a placement's previews share one ring, and each mark area on it is scored once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from sim.sun import rules as R

#: Aims tried across each arc of a mark area by :func:`best_aim` (the pass).
AIM_SAMPLES = 41

#: Room planning ("think about where you will stand stones on your next and later turns", the rule
#: text): the wide stones are the ones that no longer fit once the ring fills up, so an agent that
#: always plays the narrow stones first is left holding blocks it cannot stand (a stalemate). A
#: stand or stack of a shape wider than the narrowest one left in the field earns ROOM_WEIGHT metres
#: of pass clearance per metre of extra width (docs/rules-sun.md, "Agents").
ROOM_WEIGHT = 0.5


def room_bonus(st: R.SunState, a: Any) -> float:
    """Bonus (m) for placing a wide stone while narrower ones wait in the field (see ROOM_WEIGHT)."""
    if not isinstance(a, (R.Stand, R.Stack)):
        return 0.0
    widths = [st.geom.shapes[sh].width for sh in st._available_shapes()]
    if not widths:
        return 0.0
    return ROOM_WEIGHT * (st.geom.shapes[a.shape].width - min(widths))


def bump_chance(st: R.SunState, a: Any) -> float:
    """Chance (0-1) that a stand ``a`` touches a neighbour: the seat's along-the-ring placement
    noise (normal, ``sigma_place_m``) exceeding the clear gap left on either side."""
    if not isinstance(a, R.Stand):
        return 0.0
    ring = st.ring()
    if ring.empty:
        return 0.0
    _, _, widths = stand_sides(st, ring, a)
    return bump_of(st, widths)


def stand_sides(st: R.SunState, ring: R.Ring, a: R.Stand) -> tuple[int, R.Pos, tuple[float, float]]:
    """Where stand ``a`` goes on a non-empty ``ring``: the gap ``i`` it splits, its position, and
    the clear widths (m) it leaves to the stone before and after it (inf beyond a half turn)."""
    g = st.geom
    ang = math.radians(a.angle) % R.TAU
    s = g.shapes[a.shape]
    new = R.Pos(-1, ang, g.table.ring_radius, s.width, s.depth, s.height)
    i = (R.bisect_right(ring.angles, ang) - 1) % ring.n
    return i, new, (R.gap_width(ring.pos[i], new), R.gap_width(new, ring.pos[(i + 1) % ring.n]))


def bump_of(st: R.SunState, widths: tuple[float, float]) -> float:
    """:func:`bump_chance` of a stand leaving clear ``widths`` (m) to its two neighbours."""
    g = st.geom
    sigma = st.throwers[st.seat].sigma_place_m if st.seat < len(st.throwers) else 0.0
    out = 0.0
    for w in widths:
        free = w - g.table.min_clearance
        if not math.isfinite(free):
            continue
        if sigma <= 0.0:
            out += 1.0 if free < 0.0 else 0.0
        else:
            out += 0.5 * math.erfc(free / (sigma * math.sqrt(2.0)))
    return min(1.0, out)


#: (j + 0.5) / samples for j < samples, by samples: where the aims sit across an arc
_FRACTIONS: dict[int, np.ndarray] = {}


def best_line(ring: R.Ring, g: R.Geometry, arcs: Sequence[tuple[float, float]], samples: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Clearance (m) at both ring crossings of ``samples`` evenly spread aims per arc, and the aims."""
    if not arcs:
        return np.empty(0), np.empty(0)
    k = _FRACTIONS.get(samples)
    if k is None:
        k = _FRACTIONS[samples] = (np.arange(samples) + 0.5) / samples
    aims = np.concatenate([np.mod(s + min(e - s, R.TAU) * k, R.TAU) for s, e in arcs])
    # both crossings in one vectorised call (element-wise, so the same numbers as two calls)
    both = ring.clearances(np.concatenate([aims, aims + math.pi]), g)
    return np.minimum(both[:len(aims)], both[len(aims):]), aims


def best_aim(state: R.SunState, samples: int = AIM_SAMPLES, seat: int | None = None, want_all: bool = False
             ) -> tuple[float, R.Pass | None, list[tuple[float, float]]]:
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
    return float(c[k]), R.Pass(math.degrees(float(aims[k])) % 360.0, g.min_release), tried


@dataclass
class RingMemo:
    """What the agents computed on one ring (rings never change): mark-area clearances by (gap,
    samples) and which gaps are passable. The previews of one placement share one ring, so every
    marker and opponent area on it is scored once."""

    ring: R.Ring
    g: R.Geometry
    area: dict[tuple[int, int], float] = field(default_factory=dict)
    passable: list[bool] | None = None


#: :class:`RingMemo` by ``id`` of the ring (the memo keeps the ring alive, so its id cannot be
#: reused while cached). Bounded: emptied when full.
_RING_MEMOS: dict[int, RingMemo] = {}
_RING_MEMOS_KEPT = 512


def ring_memo(ring: R.Ring, g: R.Geometry) -> RingMemo:
    m = _RING_MEMOS.get(id(ring))
    if m is None or m.ring is not ring or m.g is not g:
        if len(_RING_MEMOS) >= _RING_MEMOS_KEPT:
            _RING_MEMOS.clear()
        m = _RING_MEMOS[id(ring)] = RingMemo(ring, g)
    return m


def area_clear(ring: R.Ring, g: R.Geometry, marker: float, samples: int) -> float:
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


def prefetch_areas(ring: R.Ring, g: R.Geometry, wants: Sequence[tuple[float, int]]) -> None:
    """Compute :func:`area_clear` for every (marker, samples) of ``wants`` on ``ring`` in one
    vectorised call (the same aims and the same element-wise numbers as one call each), so that
    the scoring that follows finds them cached."""
    if ring.empty:
        return
    done = ring_memo(ring, g).area
    todo: list[tuple[int, int]] = []
    for marker, samples in wants:
        i = ring.gap_of_angle(marker)
        if i is None:
            i = ring.nearest_gap(marker)
        if i is None or ring.end[i] < ring.start[i] or (i, samples) in done or (i, samples) in todo:
            continue
        todo.append((i, samples))
    if len(todo) < 2:
        return  # nothing to share: area_clear computes it when asked
    parts = []
    for i, samples in todo:
        k = _FRACTIONS.get(samples)
        if k is None:
            k = _FRACTIONS[samples] = (np.arange(samples) + 0.5) / samples
        s, e = ring.start[i], ring.end[i]
        parts.append(np.concatenate([np.mod(a + min(b - a, R.TAU) * k, R.TAU)
                                     for a, b in ((s, e), (s + math.pi, e + math.pi))]))
    aims = np.concatenate(parts)
    both = ring.clearances(np.concatenate([aims, aims + math.pi]), g)
    n, at = len(aims), 0
    for (i, samples), part in zip(todo, parts):
        m = len(part)
        done[(i, samples)] = float(np.max(np.minimum(both[at:at + m], both[n + at:n + at + m])))
        at += m


@dataclass
class Preview:
    """The ring and every seat's markers after a placement and one marker move, nominally (no
    noise, no physics): what ``careful`` and ``aggressive`` score without copying the state."""

    ring: R.Ring
    markers: list[list[float]]
    move: R.MoveMarker | None


def previews(st: R.SunState, a: Any) -> list[Preview] | None:
    """One :class:`Preview` per legal marker move after placement ``a`` (one with ``move=None``
    after a gate or on a turn without a marker move); ``[]`` when no marker move would be legal;
    None in orbit mode (the callers then play the turn out on a copy)."""
    if st.rules["mode"] != "standard":
        return None
    g = st.geom
    ring = st.ring()
    anchor: int | None = None
    if isinstance(a, R.Stand):
        stone = st._stone_for(a.shape)
        sh = g.shapes[a.shape]
        ring2 = st._ring_with(new_pos=R.Pos(stone, math.radians(a.angle) % R.TAU, g.table.ring_radius,
                                            sh.width, sh.depth, sh.height))
        anchor = stone
    elif isinstance(a, R.Stack):
        stone = st._stone_for(a.shape)
        sh = g.shapes[a.shape]
        p = ring.pos[ring.index[a.on]]
        ring2 = st._ring_with(new_pos=R.replace(p, width=max(p.width, sh.width), depth=max(p.depth, sh.depth),
                                                top_z=p.top_z + sh.height, top=stone))
        anchor = a.on
    else:
        pa = st._pos_without(ring.pos[ring.index[a.a]], a.stone)
        pb = st._pos_without(ring.pos[ring.index[a.b]], a.stone)
        ring2 = st._ring_with(removed=a.stone, gate=(a.a, a.b, min(pa.top_z, pb.top_z)))
    markers = [list(ms) for ms in st.markers]
    if not ring2.empty:
        for ms in markers:
            for k, m in enumerate(ms):
                if ring2.gap_of_angle(m) is None:
                    gi = ring2.nearest_gap(m)
                    if gi is not None:
                        ms[k] = ring2.middle(gi)
    if anchor is None or st._first_turn() or ring2.n < 2:
        return [Preview(ring2, markers, None)]
    out = []
    k = ring2.index[anchor]
    for mv in st._marker_options(ring2, anchor=anchor):
        gi = k if mv.side == "ccw" else (k - 1) % ring2.n
        mk = [list(ms) for ms in markers]
        mk[st.seat][mv.marker] = ring2.middle(gi)
        out.append(Preview(ring2, mk, mv))
    return out


def free_gaps_of(ring: R.Ring, g: R.Geometry, markers: Sequence[Sequence[float]], seat: int) -> int:
    """Passable gaps that are no other seat's mark area."""
    if ring.empty:
        return 0
    others = {ring.keys[x] for s_, ms in enumerate(markers) if s_ != seat for m in ms
              if (x := ring.nearest_gap(m)) is not None}
    memo = ring_memo(ring, g)
    if memo.passable is None:
        memo.passable = [ring.passable(i, g) for i in range(ring.n)]
    ok = memo.passable
    return sum(1 for i in range(ring.n) if ring.keys[i] not in others and ok[i])


def free_gaps(state: R.SunState) -> int:
    ring = state.ring()
    if ring.empty:
        return 0
    others = state._others_areas(ring)  # noqa: SLF001 - same package
    return sum(1 for i in range(ring.n) if ring.keys[i] not in others and ring.passable(i, state.geom))

