"""What a Sun position is made of: the stones, their roles and poses, the markers, and the ring they form.

:class:`SunBoard` holds the data of a position and answers the questions every rule asks (the ring
as it stands, the stones in the field, whose turn is free); the legality of moves is
``sim.sun.legality`` and the turn structure ``sim.sun.rules``, which build on it.

Each stone (ids 0..N-1: pillars, then blocks, then slabs) has a *role*: in the :data:`FIELD`,
standing on the :data:`BASE` (a ring position), stacked on a standing stone (:data:`TOP`), laid as a
:data:`GATE` across two positions, or :data:`OUT` (a penalty of a seat, ``owner``). Standing stones
carry their pose ``(x, y, z, qx, qy, qz, qw)`` (metres, unit quaternion); ``sup`` gives what a stone
rests on (``(id,)`` for a stack, ``(a, b)`` for a gate). Markers are angles (rad) on the outer edge.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Self, Sequence

from sim.core.game import CHANCE, TERMINAL
from sim.sun.actions import Gate, Pass, Stack, Stand, SunAction
from sim.sun.protocol import Body, ScriptedTable, Table, stack_pose
from sim.sun.ring import Geometry, Pos, Pose, Ring, lintel_footprint, pose_bottom, pose_top, position_of
from sim.sun.thrower import Thrower

#: stone roles: in the field, standing on the base, stacked, a gate, a penalty
FIELD, BASE, TOP, GATE, OUT = "F", "B", "T", "G", "X"
#: positions kept in a state's memo of positions (``SunBoard._make_ring``) before it is emptied
POS_MEMO_SIZE = 4096
#: the phases of a turn, in order (``over``: the game has ended)
PHASES = ("draw", "place", "settle", "marker", "pass", "swing", "over")


class SunBoard:
    """The data of a Sun position and the ring it forms (see the module docstring)."""

    def __init__(self) -> None:
        self.num_players = 2
        self.rules: dict[str, Any] = {}  # the rule options (``rules.RULE_OPTIONS``), set by the state
        self.sections: dict[str, dict[str, Any]] = {}
        self.seat_cfg: list[dict[str, Any]] = []
        self.geom = Geometry()
        self.throwers: list[Thrower] = []
        self.table: Table = ScriptedTable()
        self.shapes: list[str] = []
        self.role: list[str] = []
        self.sup: dict[int, tuple[int, ...]] = {}
        self.pose: dict[int, Pose] = {}
        self.owner: dict[int, int] = {}
        self.markers: list[list[float]] = []
        self.seat = 0
        self.turn = 0
        self.phase = "place"
        self.attempts = 0
        #: the placement or pass awaiting its chance outcome (settle, swing)
        self.pending: Stand | Stack | Gate | Pass | None = None
        self.drawn = -1
        self.placed = -1
        self.played: list[bool] = []
        self.area_before: list[tuple[int, int] | None] = []
        #: this turn: the mover's area was impassable at its start / the marker was moved
        self.forced = False
        self.moved = False
        self.over = ""
        self._history: list[tuple[int, SunAction]] = []
        self.passes: list[dict[str, Any]] = []
        self.placements: list[dict[str, Any]] = []
        self._ring: Ring | None = None
        #: the last ring built (its gaps between unmoved positions are reused by the next one)
        self._ring_last: Ring | None = None
        #: the roles, supports and poses ``_ring_last`` was built from (copies)
        self._ring_source: tuple[list[str], dict[int, tuple[int, ...]], dict[int, Pose]] | None = None
        #: positions by (bottom id, its pose, top id, its pose): a pure memo, shared by clones
        self._pos_memo: dict[tuple[int, Pose, int, Pose | None], Pos] = {}
        #: per bottom stone, the last ``(its pose, top id, the top's pose or None, Pos)`` found in
        #: ``_pos_memo``: the very pose objects recur ring after ring, and comparing them by identity
        #: is cheaper than hashing the key (emptied with ``_pos_memo``; shared by clones likewise)
        self._pos_last: dict[int, tuple[Pose, int, Pose | None, Pos]] = {}
        #: gates' footprints ``(start, span, underside z, top z)`` by (-1 - stone id, pose): a pure memo
        self._lintel_memo: dict[tuple[int, Pose], tuple[float, float, float, float]] = {}
        #: per (shape, support ids): the supports' positions, why no gate of that shape spans them
        #: (or None) and its footprint (start, span in rad): a pure memo (``SunLegality._gate_geometry_problem``)
        self._gate_span_memo: dict[tuple[str, int, int], tuple[Pos, Pos, str | None, float, float]] = {}
        #: lintel sets by a small number each (``SunLegality._lintels_token``), shared by clones
        self._lintel_tokens: dict[tuple[tuple[float, float, float, float], ...], int] = {}
        #: (the shapes list, the stone ids of each shape in it): ``stone_for``'s index
        self._shape_ids: tuple[list[str] | None, dict[str, list[int]]] = (None, {})
        #: (legal list, its PlaceFacts, its StandFacts by shape): see SunLegality._current_place_facts, SunStands._known_stand_facts
        self._facts_for_legal: tuple[Any, Any, dict[str, Any]] | None = None
        #: (legal list of passes, the pass arcs it was made from): see SunLegality._check_pass
        self._arcs_for_legal: tuple[Any, list[tuple[float, float]]] | None = None
        #: where stand_intervals leaves its facts while the candidates are computed
        self._collect_stand_facts: dict[str, Any] | None = None
        #: (the geometry, the pass candidates' releases in m for it): see SunLegality._pass_releases
        self._releases_of: tuple[Geometry, list[float]] | None = None
        #: the last :class:`Body` made of each stone (reused while its pose is the same object)
        self._body_memo: dict[int, Body] = {}
        #: ``bodies()`` as it was last asked, None since the last ``_dirty`` (like ``_ring``: every
        #: change of roles, poses or supports is followed by ``_dirty`` before either is read)
        self._bodies: tuple[Body, ...] | None = None
        self._legal: Sequence[SunAction] | None = None
        self.recorder: Any = None

    def clone(self) -> Self:
        """An independent copy sharing the (stateless) table."""
        c = object.__new__(type(self))
        c.__dict__.update(self.__dict__)
        c.role = list(self.role)
        c.sup = dict(self.sup)
        c.pose = dict(self.pose)
        c.owner = dict(self.owner)
        c.markers = [list(m) for m in self.markers]
        c.played = list(self.played)
        c.area_before = list(self.area_before)
        c._history = list(self._history)
        c.passes = list(self.passes)
        c.placements = list(self.placements)
        c._legal = None
        return c

    # --- ring --------------------------------------------------------------------------------
    def bodies(self) -> tuple[Body, ...]:
        """Every stone on the table (standing, stacked, gates), in id order."""
        if self._bodies is not None:
            return self._bodies  # nothing changed since (a clean pass keeps them for the next placement)
        out = []
        memo, poses, sups, shapes = self._body_memo, self.pose, self.sup, self.shapes
        # (a stone is on the table unless in the field or out; locals: the rules ask twice a turn)
        for i, r in enumerate(self.role):
            if r != FIELD and r != OUT:
                pose, sup = poses[i], sups.get(i, ())
                b = memo.get(i)
                if b is None or b.pose is not pose or b.support != sup or b.shape != shapes[i]:
                    b = memo[i] = Body(i, shapes[i], pose, sup)
                out.append(b)
        self._bodies = made = tuple(out)
        return made

    def ring(self) -> Ring:
        """The ring as it stands now (cached)."""
        if self._ring is None:
            src = self._ring_source
            if self._ring_last is not None and src is not None and src[0] == self.role and src[1] == self.sup \
                    and src[2] == self.pose:
                self._ring = self._ring_last  # nothing it depends on changed (e.g. a clean pass)
            else:
                self._ring = self._make_ring(self.role, self.sup, self.pose)
                self._ring_last = self._ring
                self._ring_source = (list(self.role), dict(self.sup), dict(self.pose))
        return self._ring

    def _make_ring(self, role: Sequence[str], sup: Mapping[int, tuple[int, ...]], pose: Mapping[int, Pose]) -> Ring:
        """The ring of stones with these roles, supports and poses. A position whose stones have
        not moved since an earlier ring is the same :class:`Pos` object (``_pos_memo``), so that the
        new ring copies the gaps between unmoved neighbours from the last one (``Ring(reuse=)``)."""
        g = self.geom
        memo = self._pos_memo
        lintel_memo = self._lintel_memo
        if len(memo) + len(lintel_memo) + len(self._gate_span_memo) > POS_MEMO_SIZE:
            memo.clear()
            self._pos_last.clear()
            lintel_memo.clear()
            self._gate_span_memo.clear()
        last_of = self._pos_last
        tops = {sup[i][0]: i for i, r in enumerate(role) if r == TOP}
        positions = []
        for i, r in enumerate(role):
            if r != BASE:
                continue
            p = pose[i]
            t = tops.get(i, -1)
            pt = pose[t] if t >= 0 else None
            last = last_of.get(i)
            if last is not None and last[0] is p and last[1] == t and last[2] is pt:
                positions.append(last[3])  # the very poses: the Pos _pos_memo holds for their key
                continue
            key = (i, p, t, pt)
            known = memo.get(key)
            if known is not None:
                last_of[i] = (p, t, pt, known)
                positions.append(known)
                continue
            positions.append(self._new_pos(i, p, t, pt))
        gates: dict[tuple[int, int], float] = {}
        lintels = []
        for i, r in enumerate(role):
            if r == GATE:
                a, b = sup[i]
                p = pose[i]
                lkey = (-1 - i, p)  # a gate's footprint, memoised by its pose (negative: not a position)
                lintel = lintel_memo.get(lkey)
                if lintel is None:
                    sh = g.shapes[self.shapes[i]]
                    qx, qy, qz, qw = p[3], p[4], p[5], p[6]
                    ax, ay = 2.0 * (qx * qz + qw * qy), 2.0 * (qy * qz - qw * qx)
                    n = math.hypot(ax, ay) or 1.0
                    lo, span = lintel_footprint(g, self.shapes[i], p, (ax / n, ay / n))
                    lintel = lintel_memo[lkey] = (lo, span, pose_bottom(p, sh), pose_top(p, sh))
                gates[(a, b)] = lintel[2]
                lintels.append(lintel)
        return Ring(positions, gates, lintels, reuse=self._ring_last)

    def _new_pos(self, i: int, p: Pose, t: int, pt: Pose | None) -> Pos:
        """The position of base stone ``i`` at pose ``p`` carrying stone ``t`` (-1: none) at pose
        ``pt``, made anew and kept in ``_pos_memo`` and ``_pos_last`` (``_make_ring``'s miss)."""
        shapes = self.geom.shapes
        # the footprint the stones have as they stand (a stacked stone's own offset and turn, a
        # lean), not the base stone's angle with the widest shape: docs/rules-sun.md
        stones = [(p, shapes[self.shapes[i]])]
        if t >= 0 and pt is not None:
            stones.append((pt, shapes[self.shapes[t]]))
        self._pos_memo[(i, p, t, pt)] = made = position_of(i, stones, t)
        self._pos_last[i] = (p, t, pt, made)
        return made

    def stacked_pos(self, p: Pos, shape: str) -> Pos:
        """Position ``p`` of the current ring (on the base, no top) once a stone of ``shape`` is
        stacked on it at its intended pose (``protocol.stack_pose``): the footprint of both stones
        (``ring.position_of``; its ``top`` is -1, whichever stone is taken). Kept with ``p``
        (``Pos.memo``): a position is made from one pose of its stone."""
        key = ("stacked", shape)
        known: Pos | None = p.memo.get(key)
        if known is None:
            shapes = self.geom.shapes
            base, bs, s = self.pose[p.id], shapes[self.shapes[p.id]], shapes[shape]
            known = p.memo[key] = position_of(p.id, [(base, bs), (stack_pose(base, bs, s), s)])
        return known

    def _ring_after_stand(self, before: Ring | None, stone: int) -> None:
        """Make the ring after ``stone`` was stood on the base from the field, nothing else having
        moved, role or pose: ``before`` (the ring just before the placement, or None) with the
        stone's position spliced in (``Ring.plus``) is the ring ``_make_ring`` would build, the same
        :class:`Pos` objects and shared gap memos, without its loops over every stone (a test
        compares the two). Leaves the ring to ``ring()`` when ``before`` is not the last ring built
        or has fewer than two positions, or the memos are due to be emptied."""
        if before is None or before is not self._ring_last or before.n < 2 or stone in before.index \
                or len(self._pos_memo) + len(self._lintel_memo) + len(self._gate_span_memo) >= POS_MEMO_SIZE:
            return
        p = self.pose[stone]
        known = self._pos_memo.get((stone, p, -1, None))
        if known is not None:
            self._pos_last[stone] = (p, -1, None, known)
        made = known if known is not None else self._new_pos(stone, p, -1, None)
        self._ring = self._ring_last = before.plus(made)
        self._ring_source = (list(self.role), dict(self.sup), dict(self.pose))

    def _dirty(self) -> None:
        self._ring = None
        self._bodies = None
        self._legal = None

    def mark_areas(self, seat: int, ring: Ring | None = None) -> list[int | None]:
        """Gap index of each of ``seat``'s markers (None on an empty ring)."""
        ring = ring or self.ring()
        return [ring.gap_of_angle(a) for a in self.markers[seat]]

    def _snap_markers(self) -> None:
        # A marker whose gap vanished (a stone now stands in front of it) moves to the middle of
        # the angularly nearest gap; markers sharing a merged gap stay shared.
        ring = self.ring()
        if ring.empty:
            return
        for ms in self.markers:
            for k, a in enumerate(ms):
                if ring.gap_of_angle(a) is None:
                    g = ring.nearest_gap(a)
                    if g is not None:
                        ms[k] = ring.middle(g)

    # --- turn structure ----------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to move, CHANCE (draw, settle, swing) or TERMINAL."""
        if self.phase in ("draw", "settle", "swing"):
            return CHANCE
        if self.phase == "over":
            return TERMINAL
        return self.seat

    def is_terminal(self) -> bool:
        """True when the game is over (``current_player() == TERMINAL``, without the call)."""
        return self.phase == "over"

    def field_stones(self) -> list[int]:
        """Ids of the stones still in the field."""
        return [i for i, r in enumerate(self.role) if r == FIELD]

    def is_free_turn(self) -> bool:
        # played[seat] False: a free turn (no marker move). In "first_only" mode only seat 0
        # starts free; any seat whose turn starts on an empty ring (every stone lost) is free too.
        return not self.played[self.seat]

    def available_shapes(self) -> list[str]:
        """Shapes the mover may place: the drawn stone's (random field) or every shape left in the
        field, in stone id order."""
        if self.rules["field"] == "random":
            return [self.shapes[self.drawn]] if self.drawn >= 0 else []
        firsts = [(i, name) for name in self._shape_index() if (i := self.stone_for(name)) >= 0]
        return [name for _, name in sorted(firsts)]  # by their first stone in the field, as the ids run

    def _shape_index(self) -> dict[str, list[int]]:
        """The stone ids of each shape, ascending (the set never changes; kept with its list)."""
        known = self._shape_ids
        if known[0] is not self.shapes:
            ids: dict[str, list[int]] = {}
            for i, name in enumerate(self.shapes):
                ids.setdefault(name, []).append(i)
            known = self._shape_ids = (self.shapes, ids)
        return known[1]

    def stone_for(self, shape: str) -> int:
        """The stone a placement of ``shape`` takes (the drawn one, or the lowest id in the field), or -1."""
        if self.rules["field"] == "random":
            return self.drawn if self.drawn >= 0 and self.shapes[self.drawn] == shape else -1
        role = self.role
        for i in self._shape_index().get(shape, ()):
            if role[i] == FIELD:
                return i
        return -1
