"""What the Sun's rules derive from a position and keep: the one cache, with its one invalidation.

A :class:`~sim.sun.position.SunPosition` is plain data; the rules ask the same questions of it many
times (the ring as it stands, the bodies on the table, the candidate list), so the answers are kept
here, in two kinds:

- *Of the position as it is now* (:attr:`SunCache.ring`, :attr:`~SunCache.bodies`,
  :attr:`~SunCache.legal`, and the facts its checks share: :attr:`~SunCache.place_facts`,
  :attr:`~SunCache.stand_facts`, :attr:`~SunCache.pass_arcs`, explicit memos of the position, not
  tied to the legal list): emptied by
  :meth:`SunCache.invalidate`, which the state calls after every change of its position
  (``sim.sun.rules.state``) and nowhere else.
- *Pure memos*, whose keys hold everything their values depend on (positions by the very poses of
  their stones, gate footprints by pose, the last ring built with the roles, supports and poses it
  was built from): never wrong, so never invalidated; bounded by :data:`POS_MEMO_SIZE`, shared by
  clones.

tests/sun/test_sun_cache.py plays random games and compares, at every step, the cached answers with
those of a state rebuilt from the notation (no cache).
"""

from __future__ import annotations

import math
import operator
from typing import Any, Sequence

from sim.sun.actions import SunAction
from sim.sun.position import FIELD, GATE, OUT, STACK, STAND, SunPosition
from sim.sun.geometry.stone import Stone
from sim.sun.physics import stack_pose
from sim.sun.geometry.ring import Geometry, Pos, Pose, Ring, lintel_footprint, pose_bottom, pose_top, position_of

#: entries kept in the pure memos of positions, gate footprints and gate spans before they are emptied
POS_MEMO_SIZE = 4096

__all__ = ["POS_MEMO_SIZE", "SunCache"]


_NEW = object.__new__
#: the slots' own setters of the frozen :class:`Stone`, in field order (its __init__ sets them through these too)
_STONE_SETTERS = tuple(getattr(Stone, name).__set__ for name in ("id", "shape", "role", "on", "pose"))


def _new_stone(i: int, shape: str, role: str, on: tuple[int, ...], pose: Pose) -> Stone:
    """``Stone(i, shape, role, on, pose)``, its slots set as the frozen dataclass's ``__init__``
    sets them, without the class call (the bodies of a new position are made twice a turn)."""
    b = _NEW(Stone)
    s_id, s_shape, s_role, s_on, s_pose = _STONE_SETTERS
    s_id(b, i)
    s_shape(b, shape)
    s_role(b, role)
    s_on(b, on)
    s_pose(b, pose)
    return b


class SunCache:
    """Everything the rules keep about a position (see the module docstring)."""

    __slots__ = ("ring", "bodies", "legal", "place_facts", "stand_facts", "pass_arcs",
                 "ring_last", "ring_source", "pos_memo", "pos_last", "lintel_memo", "gate_span_memo",
                 "lintel_tokens", "shape_ids", "releases_of", "body_memo", "bodies_last",
                 "stand_shapes")

    def __init__(self) -> None:
        # --- of the position as it is now (invalidate) ----------------------------------------------
        #: the ring as it stands, None until asked
        self.ring: Ring | None = None
        #: the bodies on the table, None until asked
        self.bodies: tuple[Stone, ...] | None = None
        #: the candidate list of the seat to move, None until asked
        self.legal: Sequence[SunAction] | None = None
        #: what every placement check of the position shares (``legality.PlaceFacts``), None until
        #: asked (``legality.current_place_facts``: the candidate list or the first check makes it)
        self.place_facts: Any | None = None
        #: the stand checks' facts by shape (``stand_angles.StandFacts``) found while making the
        #: candidate list, None before: the check of the stand chosen from it reads them
        #: (``stand_angles.known_stand_facts``)
        self.stand_facts: dict[str, Any] | None = None
        #: the mover's pass arcs (rad), None until the pass candidates are made: the check of the
        #: pass chosen reads them (``legality.check_pass``)
        self.pass_arcs: list[tuple[float, float]] | None = None
        # --- pure memos (keyed by all they depend on) ------------------------------------------------
        #: the last ring built and (copies of) the roles, supports and poses it was built from: its
        #: gaps between unmoved positions are reused by the next one (``Ring(reuse=)``)
        self.ring_last: Ring | None = None
        self.ring_source: tuple[list[str], dict[int, tuple[int, ...]], dict[int, Pose]] | None = None
        #: positions by (bottom id, its pose, top id, its pose)
        self.pos_memo: dict[tuple[int, Pose, int, Pose | None], Pos] = {}
        #: per bottom stone, the last ``(its pose, top id, the top's pose or None, Pos)`` found in
        #: ``pos_memo``: the very pose objects recur ring after ring, and comparing them by identity
        #: is cheaper than hashing the key (emptied with ``pos_memo``)
        self.pos_last: dict[int, tuple[Pose, int, Pose | None, Pos]] = {}
        #: gates' footprints ``(start, span, underside z, top z)`` by (-1 - stone id, pose)
        self.lintel_memo: dict[tuple[int, Pose], tuple[float, float, float, float]] = {}
        #: per (shape, support ids): the supports' positions, why no gate of that shape spans them
        #: (or None) and its footprint (start, span in rad) (``legality.gate_geometry_problem``)
        self.gate_span_memo: dict[tuple[str, int, int], tuple[Pos, Pos, str | None, float, float]] = {}
        #: lintel sets by a small number each (``legality.lintels_token``)
        self.lintel_tokens: dict[tuple[tuple[float, float, float, float], ...], int] = {}
        #: (the shapes list, the stone ids of each shape in it)
        self.shape_ids: tuple[list[str] | None, dict[str, list[int]]] = (None, {})
        #: (the geometry, the pass candidates' releases in m for it)
        self.releases_of: tuple[Geometry, list[float]] | None = None
        #: (the geometry, per shape what the stand checks take of it and of the shape:
        #: ``stand_angles.stand_facts_of``)
        self.stand_shapes: tuple[Geometry, dict[str, tuple[Any, ...]]] | None = None
        #: the last :class:`Stone` record made of each stone (reused while its pose is the same object)
        self.body_memo: dict[int, Stone] = {}
        #: the last bodies made and (copies of) the roles, supports, poses and shapes they were made
        #: from: handed out again while those are the same (the poses the very objects)
        self.bodies_last: tuple[list[str], dict[int, tuple[int, ...]], dict[int, Pose], list[str],
                                tuple[Stone, ...]] | None = None

    def invalidate(self) -> None:
        """Forget what was derived from the position as it was: called after every change of it."""
        self.ring = None
        self.bodies = None
        self.legal = None
        self.place_facts = None
        self.stand_facts = None
        self.pass_arcs = None

    def fork(self) -> SunCache:
        """The cache of a copy of the position: the same answers now, sharing the pure memos."""
        c = object.__new__(SunCache)
        for name in SunCache.__slots__:
            setattr(c, name, getattr(self, name))
        c.legal = None  # a copy's candidate list is its own (a list is handed out as a copy anyway)
        c.place_facts = c.stand_facts = c.pass_arcs = None
        return c

    # --- the bodies and the ring ------------------------------------------------------------------
    def bodies_of(self, p: SunPosition) -> tuple[Stone, ...]:
        """Every stone of ``p`` on the table (standing, stacked, gates), in id order (kept)."""
        if self.bodies is not None:
            return self.bodies
        last = self.bodies_last
        if last is not None and last[0] == p.role and last[1] == p.on and last[3] == p.shapes \
                and list(last[2]) == list(p.pose) and all(map(operator.is_, last[2].values(), p.pose.values())):
            self.bodies = last[4]  # nothing they depend on changed (e.g. since the last clean pass)
            return last[4]
        out = []
        memo, poses, sups, shapes = self.body_memo, p.pose, p.on, p.shapes
        # (a stone is on the table unless in the field or out; locals: the rules ask twice a turn)
        for i, r in enumerate(p.role):
            if r != FIELD and r != OUT:
                pose, sup = poses[i], sups.get(i, ())
                b = memo.get(i)
                if b is None or b.pose is not pose or b.on != sup or b.role != r or b.shape != shapes[i]:
                    b = memo[i] = _new_stone(i, shapes[i], r, sup, pose)
                out.append(b)
        self.bodies = made = tuple(out)
        self.bodies_last = (list(p.role), dict(p.on), dict(p.pose), list(p.shapes), made)
        return made

    def ring_of(self, p: SunPosition, g: Geometry) -> Ring:
        """The ring ``p`` forms with geometry ``g`` (kept)."""
        if self.ring is None:
            src = self.ring_source
            if self.ring_last is not None and src is not None and src[0] == p.role and src[1] == p.on \
                    and src[2] == p.pose:
                self.ring = self.ring_last  # nothing it depends on changed (e.g. a clean pass)
            else:
                self.ring = self.ring_last = self.build_ring(p, g)
                self.ring_source = (list(p.role), dict(p.on), dict(p.pose))
        return self.ring

    def _memos_full(self, extra: int = 0) -> bool:
        return len(self.pos_memo) + len(self.lintel_memo) + len(self.gate_span_memo) + extra > POS_MEMO_SIZE

    def build_ring(self, p: SunPosition, g: Geometry) -> Ring:
        """The ring of ``p``'s stones. A position whose stones have not moved since an earlier ring
        is the same :class:`Pos` object (``pos_memo``), so that the new ring copies the gaps between
        unmoved neighbours from the last one (``Ring(reuse=)``)."""
        role, sup, pose, shapes = p.role, p.on, p.pose, p.shapes
        memo = self.pos_memo
        lintel_memo = self.lintel_memo
        if self._memos_full():
            memo.clear()
            self.pos_last.clear()
            lintel_memo.clear()
            self.gate_span_memo.clear()
        last_of = self.pos_last
        tops = {sup[i][0]: i for i, r in enumerate(role) if r == STACK}
        positions = []
        for i, r in enumerate(role):
            if r != STAND:
                continue
            pi = pose[i]
            t = tops.get(i, -1)
            pt = pose[t] if t >= 0 else None
            last = last_of.get(i)
            if last is not None and last[0] is pi and last[1] == t and last[2] is pt:
                positions.append(last[3])  # the very poses: the Pos pos_memo holds for their key
                continue
            key = (i, pi, t, pt)
            known = memo.get(key)
            if known is not None:
                last_of[i] = (pi, t, pt, known)
                positions.append(known)
                continue
            positions.append(self._new_pos(p, g, i, pi, t, pt))
        gates: dict[tuple[int, int], float] = {}
        lintels = []
        for i, r in enumerate(role):
            if r == GATE:
                a, b = sup[i]
                pi = pose[i]
                lkey = (-1 - i, pi)  # a gate's footprint, memoised by its pose (negative: not a position)
                lintel = lintel_memo.get(lkey)
                if lintel is None:
                    sh = g.shapes[shapes[i]]
                    qx, qy, qz, qw = pi[3], pi[4], pi[5], pi[6]
                    ax, ay = 2.0 * (qx * qz + qw * qy), 2.0 * (qy * qz - qw * qx)
                    n = math.hypot(ax, ay) or 1.0
                    lo, span = lintel_footprint(g, shapes[i], pi, (ax / n, ay / n))
                    lintel = lintel_memo[lkey] = (lo, span, pose_bottom(pi, sh), pose_top(pi, sh))
                gates[(a, b)] = lintel[2]
                lintels.append(lintel)
        return Ring(positions, gates, lintels, reuse=self.ring_last)

    def _new_pos(self, p: SunPosition, g: Geometry, i: int, pi: Pose, t: int, pt: Pose | None) -> Pos:
        """The position of base stone ``i`` at pose ``pi`` carrying stone ``t`` (-1: none) at pose
        ``pt``, made anew and kept in ``pos_memo`` and ``pos_last`` (``build_ring``'s miss)."""
        shapes = g.shapes
        # the footprint the stones have as they stand (a stacked stone's own offset and turn, a
        # lean), not the base stone's angle with the widest shape: docs/rules-sun.md
        stones = [(pi, shapes[p.shapes[i]])]
        if t >= 0 and pt is not None:
            stones.append((pt, shapes[p.shapes[t]]))
        self.pos_memo[(i, pi, t, pt)] = made = position_of(i, stones, t)
        self.pos_last[i] = (pi, t, pt, made)
        return made

    def ring_after_stand(self, p: SunPosition, g: Geometry, before: Ring | None, stone: int) -> None:
        """Make the ring after ``stone`` was stood on the base from the field, nothing else having
        moved, role or pose: ``before`` (the ring just before the placement, or None) with the
        stone's position spliced in (``Ring.plus``) is the ring :meth:`ring_of` would build, the
        same :class:`Pos` objects and shared gap memos, without its loops over every stone (a test
        compares the two). Leaves the ring to :meth:`ring_of` when ``before`` is not the last ring
        built or has fewer than two positions, or the memos are due to be emptied."""
        if before is None or before is not self.ring_last or before.n < 2 or stone in before.index \
                or self._memos_full(1):
            return
        pi = p.pose[stone]
        known = self.pos_memo.get((stone, pi, -1, None))
        if known is not None:
            self.pos_last[stone] = (pi, -1, None, known)
        made = known if known is not None else self._new_pos(p, g, stone, pi, -1, None)
        self.ring = self.ring_last = before.plus(made)
        self.ring_source = (list(p.role), dict(p.on), dict(p.pose))

    def ring_after_stack(self, p: SunPosition, g: Geometry, before: Ring | None, stone: int) -> None:
        """Make the ring after ``stone`` was stacked from the field, nothing else having moved,
        role or pose: ``before`` (the ring just before the placement) with its base's position
        swapped for the one carrying ``stone`` (``Ring.replaced``) is the ring :meth:`ring_of` would
        build, the same :class:`Pos` objects and shared gap memos (a test compares the two). Leaves
        the ring to :meth:`ring_of` when ``before`` is not the last ring built, the base is not on
        it, the memos are due to be emptied or the new position leaves its place in the angle order."""
        base = p.on[stone][0]
        if before is None or before is not self.ring_last or base not in before.index or self._memos_full(1):
            return
        pi, pt = p.pose[base], p.pose[stone]
        known = self.pos_memo.get((base, pi, stone, pt))
        if known is not None:
            self.pos_last[base] = (pi, stone, pt, known)
        made = known if known is not None else self._new_pos(p, g, base, pi, stone, pt)
        ring = before.replaced(made)
        if ring is not None:
            self.ring = self.ring_last = ring
            self.ring_source = (list(p.role), dict(p.on), dict(p.pose))

    def stacked_pos(self, p: SunPosition, g: Geometry, at: Pos, shape: str) -> Pos:
        """Position ``at`` of the current ring (on the base, no top) once a stone of ``shape`` is
        stacked on it at its intended pose (``physics.stack_pose``): the footprint of both stones
        (``ring.position_of``; its ``top`` is -1, whichever stone is taken). Kept with ``at``
        (``Pos.memo``): a position is made from one pose of its stone."""
        key = ("stacked", shape)
        known: Pos | None = at.memo.get(key)
        if known is None:
            shapes = g.shapes
            base, bs, s = p.pose[at.id], shapes[p.shapes[at.id]], shapes[shape]
            known = at.memo[key] = position_of(at.id, [(base, bs), (stack_pose(base, bs, s), s)], first=at)
        return known

    def shape_index(self, shapes: list[str]) -> dict[str, list[int]]:
        """The stone ids of each shape, ascending (the set never changes; kept with its list)."""
        known = self.shape_ids
        if known[0] is not shapes:
            ids: dict[str, list[int]] = {}
            for i, name in enumerate(shapes):
                ids.setdefault(name, []).append(i)
            known = self.shape_ids = (shapes, ids)
        return known[1]

    def lintels_token(self, lintels: tuple[tuple[float, float, float, float], ...]) -> int:
        """A small number standing for ``lintels`` in memo keys (equal lintels, equal numbers; a
        number is cheaper to hash than the lintels, which every key would hash again)."""
        return self.lintel_tokens.setdefault(lintels, len(self.lintel_tokens))

