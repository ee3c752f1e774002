"""Stonehenge and the Sun: the ring model and the rules (docs/rules-sun.md). No I/O, no physics engine.

The rules see the physical table only through the small :class:`Table` protocol: *place a stone*
(stand, stack, gate; with placement noise; did it come to rest standing, and where is everything
now) and *pass the ball* (aim, release, thrower's noise; which stones became penalties and why,
where the survivors rest). The protocol is functional: every call receives the bodies on the table
(their exact poses) and returns the new ones, so the state's notation, which stores every pose
exactly (``repr`` floats), is all that is needed to rebuild the table and continue bit for bit.
:class:`ScriptedTable` is a deterministic test double; ``sim.sun.game`` binds the PyBullet table.

State
    Each stone (ids 0..N-1: pillars, then blocks, then slabs) is in the field, standing on the base
    (a ring *position*), stacked on a standing stone (``top``), laid as a *gate* across two
    positions, or a penalty of a seat. Standing stones carry their pose ``(x, y, z, qx, qy, qz,
    qw)`` (metres, unit quaternion; local axes x radial/depth, y tangential/width, z up/height, as
    ``sim.sun.table.layout``). Each seat has one marker (two in orbit mode), an angle on the outer edge.
Turn (phases)
    ``draw`` (chance, random field only: which stone the player gets) -> ``place`` (seat: Stand,
    Stack or Gate) -> ``settle`` (chance: placement noise; physics) -> ``marker`` (seat:
    MoveMarker; skipped after a gate and on a seat's first turn) -> ``pass`` (seat: Pass) ->
    ``swing`` (chance: the thrower's noise; physics) -> next seat.
End
    After the pass of a turn in which the field became empty ("field_empty"), or when the seat to
    move has no legal placement ("stalemate"): ``sim.sun.endings.SunEnd``. Fewest penalty stones wins; equal counts share.

Geometry (units: metres, radians inside, degrees in actions and on screen)
    A gap's width is measured perpendicular to the ray through its middle (the path a pass takes),
    with each stone's inner corners (``sim.sun.geometry.gaps``, the one gap kernel, per stone at its actual
    radius). A gap is passable when that width is at least ball diameter + ``pass_clearance`` and,
    under a gate, the gate's underside is at least ``pass_clearance`` above the top of the ball
    where a pendulum through the centre crosses the ring (string length, pivot height; see
    ``BallSpec.centre_z_at``), evaluated at the ring's outer face, where the ball is highest under
    the gate.

Every decision beyond the rule text is listed in docs/rules-sun.md.
"""

from __future__ import annotations

import json
import math
import operator
from dataclasses import dataclass
from typing import Any, Mapping, Self, Sequence

import numpy as np

from sim.core.errors import InputError
from sim.core.game import CHANCE, TERMINAL, Action, Outcome, State
from sim.sun.actions import Draw, Gate, MoveMarker, Pass, PlaceAction, Stack, Stand, SunAction, action_to_json
from sim.sun.rules.cache import SunCache
from sim.sun.options import RULE_DEFAULTS, SunRules
from sim.sun.rules.context import RulesContext
from sim.sun.rules.legality import anchor_stone, check_pass, marker_options, other_seats_areas, pass_arcs, pass_candidates, \
    position_without, ring_with
from sim.sun.endings import SunEnd
from sim.sun.position import FIELD, GATE, NOTATION_LETTER, OUT, STACK, STAND, SunPosition
from sim.sun.geometry.stone import Stone
from sim.sun.physics import Placement, ScriptedTable, Table, nominal_pose
from sim.sun.geometry.ring import Geometry, Pos, Pose, Ring, pose_bottom, pose_tilt
from sim.sun.geometry.specs import TAU
from sim.sun.rules.stand_angles import placement_candidates, placement_problem, stand_intervals, stand_samples
from sim.sun.players.thrower import SKILLS, PlaceNoise, ThrowNoise, Thrower

__all__ = ["SunObservation", "SunState"]


@dataclass(init=False, eq=False, repr=False, slots=True)
class SunObservation:
    """A seat's view: everything (the game has no hidden information). Compared by notation; the
    ``state`` field (a private copy) lets agents plan without re-parsing.

    The notation is written when first read (:attr:`notation`), not when the view is made: the
    agents of a study read the ``state`` only, and writing every pose as JSON cost about a fifth
    of the rules' time in a game. It is the notation of the state as it was observed: made from
    a copy of the position taken then (:meth:`SunState.observation`), whatever is done to
    ``state`` meanwhile."""

    # a dataclass (its fields typed, as every game's observation) that writes its own __init__,
    # equality, hash and repr: they go by the notation, written when first read
    _notation: str | None
    state: "SunState"
    seat: int
    _source: "SunPosition | None"

    def __init__(self, notation: str | None, state: "SunState", seat: int = -1,
                 source: "SunPosition | None" = None) -> None:
        """``notation``: the state's notation, or None to write it when first read from
        ``source`` (a copy of the observed position, with ``state``'s configuration).

        Raises:
            ValueError: neither a notation nor a source position given."""
        if notation is None and source is None:
            raise ValueError("a SunObservation needs its notation or the position to write it from")
        self._notation = notation
        self.state = state
        #: the seat that observes (-1: not said); what the play page offers depends on it
        self.seat = seat
        self._source = source

    @property
    def notation(self) -> str:
        """The observed state's notation (``SunState.to_notation``)."""
        if self._notation is None:
            assert self._source is not None  # (__init__ requires one of the two)
            self._notation = self.state.notation_of(self._source)
            self._source = None
        return self._notation

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.notation == other.notation  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.notation,))

    def __repr__(self) -> str:
        return f"SunObservation(notation={self.notation!r}, seat={self.seat!r})"


def _position_field(name: str, doc: str) -> Any:
    """A property reading and writing field ``name`` of the state's :class:`SunPosition`."""
    def put(self: SunState, value: Any) -> None:
        setattr(self.position, name, value)

    # the getter is operator's C attrgetter, not a Python function: the rules and the agents read
    # these fields tens of thousands of times a game (a Python getter cost about 2 % of a playout).
    # The turn methods below read and write ``self.position``'s fields directly (``pos_``): even
    # so each property access is a descriptor call, 2.4 % of a rules playout's instructions
    return property(operator.attrgetter(f"position.{name}"), put, doc=doc)


class SunState(State):
    """A game of Stonehenge and the Sun in progress (see the module docstring).

    Build with :meth:`new` or :meth:`from_notation`; the table is any :class:`Table`. The state holds
    a position (:class:`~sim.sun.position.SunPosition`, plain data, also readable field by field
    through the properties below), the configuration (rule options, geometry, throwers, table), the
    logs of the game, and one cache of what the rules derive from the position
    (:class:`~sim.sun.rules.cache.SunCache`, invalidated after every change of it). The position, the
    geometry, the rule options and the cache make the :class:`~sim.sun.rules.context.RulesContext`
    (:attr:`ctx`) the rules' functions take; the legality of moves is ``sim.sun.rules.legality`` and
    ``sim.sun.rules.stand_angles``, functions of that context; this class plays the turns and
    answers the agents' queries (the ring, the stones, the candidates and their previews).
    """

    #: config values omitted from the notation when equal (the game sets its full defaults)
    DEFAULTS: dict[str, Any] = {"rules": RULE_DEFAULTS, "sections": {}, "seats": {}}

    shapes: list[str] = _position_field("shapes", "Shape of each stone id.")
    role: list[str] = _position_field("role", "Role of each stone (FIELD, STAND, STACK, GATE, OUT).")
    on: dict[int, tuple[int, ...]] = _position_field("on", "What each stacked stone or gate rests on.")
    pose: dict[int, Pose] = _position_field("pose", "Pose of each stone on the table.")
    owner: dict[int, int] = _position_field("owner", "The seat of each penalty stone.")
    markers: list[list[float]] = _position_field("markers", "Each seat's marker angles (rad).")
    seat: int = _position_field("seat", "The seat whose turn it is.")
    turn: int = _position_field("turn", "Turns completed.")
    phase: str = _position_field("phase", "Phase of the turn (``position.PHASES``).")
    attempts: int = _position_field("attempts", "Failed placements of the mover this turn.")
    pending: Any = _position_field("pending", "The placement or pass awaiting its chance outcome.")
    drawn: int = _position_field("drawn", "The stone drawn (random field), -1: none.")
    placed: int = _position_field("placed", "The stone placed this turn, -1: none.")
    played: list[bool] = _position_field("played", "Per seat: it has had a turn.")
    area_before: list[tuple[int, int] | None] = _position_field("area_before", "Per seat: its area at its turn's start.")
    forced: bool = _position_field("forced", "The mover's area was impassable at the turn's start.")
    moved: bool = _position_field("moved", "The marker was moved this turn.")
    over: str = _position_field("over", "Why the game ended ('' while it goes on).")

    def __init__(self) -> None:
        self.position = SunPosition()
        self.cache = SunCache()
        self.num_players = 2
        self.rules = SunRules.from_rules()  # the rule options (``sim.sun.options``)
        self.sections: dict[str, dict[str, Any]] = {}
        self.seat_cfg: list[dict[str, Any]] = []
        self.geom = Geometry()
        self.throwers: list[Thrower] = []
        self.table: Table = ScriptedTable()
        self._history: list[tuple[int, SunAction]] = []
        self.passes: list[dict[str, Any]] = []
        self.placements: list[dict[str, Any]] = []
        self.recorder: Any = None

    def clone(self) -> Self:
        """An independent copy sharing the (stateless) table and the cache's pure memos."""
        c = object.__new__(type(self))
        c.__dict__.update(self.__dict__)
        c.position = self.position.copy()
        c.cache = self.cache.fork()
        c._history = list(self._history)
        c.passes = list(self.passes)
        c.placements = list(self.placements)
        return c

    #: the last :attr:`ctx` made (a state made without ``__init__``, or cloned, finds this or
    #: another state's: checked against its own four objects before use)
    _ctx: RulesContext | None = None

    @property
    def ctx(self) -> RulesContext:
        """What the rules' functions read: this state's position, geometry, rule options and cache
        (a view of those very four objects: made again whenever one of them was replaced, so it
        never holds an old one; kept otherwise, as the turns ask for it thousands of times a game)."""
        c = self._ctx
        if c is None or c.position is not self.position or c.cache is not self.cache or c.geom is not self.geom \
                or c.rules is not self.rules:
            c = self._ctx = RulesContext(self.position, self.geom, self.rules, self.cache)
        return c

    # --- queries: the ring, the stones ---------------------------------------------------------
    def bodies(self) -> tuple[Stone, ...]:
        """Every stone on the table (standing, stacked, gates), in id order."""
        return self.cache.bodies_of(self.position)

    def ring(self) -> Ring:
        """The ring as it stands now."""
        ring = self.cache.ring  # (read here when kept: the turns ask for it thousands of times a game)
        return ring if ring is not None else self.cache.ring_of(self.position, self.geom)

    def stacked_pos(self, p: Pos, shape: str) -> Pos:
        """Position ``p`` of the current ring (on the base, no top) once a stone of ``shape`` is
        stacked on it at its intended pose (``SunCache.stacked_pos``)."""
        return self.cache.stacked_pos(self.position, self.geom, p, shape)

    def mark_areas(self, seat: int, ring: Ring | None = None) -> list[int | None]:
        """Gap index of each of ``seat``'s markers (None on an empty ring)."""
        ring = ring or self.ring()
        return list(map(ring.gap_of_angle, self.position.markers[seat]))  # (no comprehension: no closure cell)

    def _snap_markers(self) -> None:
        """A marker whose gap vanished (a stone now stands in front of it) moves to the middle of
        the angularly nearest gap; markers sharing a merged gap stay shared."""
        ring = self.ring()
        if ring.empty:
            return
        moved = False
        for ms in self.position.markers:
            for k, a in enumerate(ms):
                if ring.gap_of_angle(a) is None:
                    g = ring.nearest_gap(a)
                    if g is not None:
                        ms[k] = ring.middle(g)
                        moved = True
        if moved:
            self.cache.invalidate()  # a change of the position (the ring itself does not depend on markers)

    def current_player(self) -> int:
        """The seat to move, CHANCE (draw, settle, swing) or TERMINAL."""
        phase = self.position.phase
        if phase in ("draw", "settle", "swing"):
            return CHANCE
        if phase == "over":
            return TERMINAL
        return self.position.seat

    def is_terminal(self) -> bool:
        """True when the game is over (``current_player() == TERMINAL``, without the call)."""
        return self.position.phase == "over"

    def field_stones(self) -> list[int]:
        """Ids of the stones still in the field."""
        return [i for i, r in enumerate(self.position.role) if r == FIELD]

    def is_free_turn(self) -> bool:
        """Whether the mover's turn is free of the marker move: its first turn (in "first_only"
        mode only seat 0 starts free), or any turn that starts on an empty ring (every stone lost) (``RulesContext.is_free_turn``)."""
        return self.ctx.is_free_turn()

    def available_shapes(self) -> list[str]:
        """Shapes the mover may place: the drawn stone's (random field) or every shape left in the
        field, in stone id order (``RulesContext.available_shapes``)."""
        return self.ctx.available_shapes()

    def stone_for(self, shape: str) -> int:
        """The stone a placement of ``shape`` takes (the drawn one, or the lowest id in the field), or -1 (``RulesContext.stone_for``)."""
        return self.ctx.stone_for(shape)

    def anchor_stone(self) -> int | None:
        """Bottom stone id of the position just stood on (the marker's anchor), or None."""
        return anchor_stone(self.ctx)

    # --- queries: candidates and their previews --------------------------------------------------
    def stand_intervals(self, shape: str) -> list[tuple[float, float]]:
        """Every angle (rad) at which a stand of ``shape`` is legal now: ``stand_angles.stand_intervals``."""
        return stand_intervals(self.ctx, shape)

    def stand_samples(self, shape: str) -> list[float]:
        """The candidate stand angles (deg) of ``shape``: ``stand_angles.stand_samples``."""
        return stand_samples(self.ctx, shape)

    def pass_arcs(self, ring: Ring | None = None, seat: int | None = None) -> list[tuple[float, float]]:
        """Arcs (rad) of release azimuths whose line crosses ``seat``'s mark area(s): ``legality.pass_arcs``."""
        return pass_arcs(self.ctx, ring, seat)

    def placement_problem(self, a: object) -> str | None:
        """Why placement ``a`` is illegal now, or None if legal (``stand_angles.placement_problem``)."""
        return placement_problem(self.ctx, a)

    def marker_options(self, ring: Ring, anchor: int | None = None) -> list[MoveMarker]:
        """The legal marker moves on ``ring`` after a stone was stood at position ``anchor``
        (default: :meth:`anchor_stone`): ``legality.marker_options``."""
        return marker_options(self.ctx, ring, anchor)

    def position_without(self, p: Pos, stone: int) -> Pos:
        """Ring position ``p`` once its top stone ``stone`` is taken (``legality.position_without``)."""
        return position_without(self.ctx, p, stone)

    def ring_with(self, new_pos: Pos | None = None, removed: int = -1,
                  gate: tuple[int, int, float] | None = None) -> Ring:
        """The ring as it would be with ``new_pos`` (a new or grown position), without stone
        ``removed`` and with a gate ``(a, b, underside z)``: a preview (``legality.ring_with``)."""
        return ring_with(self.ctx, new_pos, removed, gate)

    def other_seats_areas(self, ring: Ring) -> set[tuple[int, int]]:
        """The mark areas (gap keys) of the seats other than the mover on ``ring``."""
        return other_seats_areas(self.ctx, ring)

    # --- construction ------------------------------------------------------------------------
    @classmethod
    def new(cls, num_players: int, rules: Mapping[str, Any] | SunRules | None = None, *, table: Table | None = None,
            geometry: Geometry | None = None, throwers: Sequence[Thrower] | None = None,
            sections: Mapping[str, Mapping[str, Any]] | None = None,
            seat_cfg: Sequence[Mapping[str, Any]] | None = None) -> "SunState":
        """A new game: empty ring, every stone in the field, markers evenly spaced.

        Raises:
            ValueError: fewer than 2 or more than 4 players.
        """
        if not 2 <= num_players <= 4:
            raise ValueError(f"Stonehenge and the Sun has 2 to 4 players, not {num_players}")
        s = cls()
        s.num_players = num_players
        s.rules = rules if isinstance(rules, SunRules) else SunRules.from_rules(rules)
        s.sections = {k: dict(v) for k, v in (sections or {}).items()}
        s.seat_cfg = [dict(c) for c in (seat_cfg or [{} for _ in range(num_players)])]
        s.geom = geometry or Geometry()
        s.throwers = list(throwers or [SKILLS["perfect"]] * num_players)
        s.table = table or ScriptedTable(s.geom)
        s.shapes = s.geom.stone_shapes()
        s.role = [FIELD] * len(s.shapes)
        if s.rules.mode == "orbit":
            s.markers = [[TAU * k / (2 * num_players), TAU * k / (2 * num_players) + math.pi]
                         for k in range(num_players)]
        else:
            s.markers = [[TAU * k / num_players] for k in range(num_players)]
        s.played = [False] * num_players
        if s.rules.free_first_turn == "first_only":
            s.played = [False] + [True] * (num_players - 1)
        s.area_before = [None] * num_players
        s._begin_turn()
        return s

    def set_position(self, stones: Sequence[tuple[str, float, int]],
                     gates: Sequence[tuple[str, tuple[int, int]]] = ()) -> None:
        """Start from stones already on the base (a mid-game position to study), before any move.

        Args:
            stones: ``(shape, angle in rad, level)``, level 1 on the base or 2 stacked on the level-1
                stone at the same angle; each takes the next stone of its shape from the field and
                stands at its nominal pose.
            gates: ``(shape, (i, j))``: a stone of ``shape`` laid across the level-1 stones
                ``stones[i]`` and ``stones[j]`` (neighbours).

        Raises:
            InputError: the set has too few stones of a shape, or a stack or gate rests on nothing.
        """
        g = self.geom
        free = {name: [i for i in range(len(self.shapes)) if self.shapes[i] == name and self.role[i] == FIELD]
                for name in g.shapes}

        def take(shape: str) -> int:
            if shape not in free:
                raise InputError(f"unknown shape {shape!r}; allowed: {', '.join(map(repr, g.shapes))}", key="layout")
            if not free[shape]:
                raise InputError(f"the layout uses more {shape} stones than the set has "
                                 f"({g.shapes[shape].count})", key="layout")
            return free[shape].pop(0)

        ids: list[int] = []
        for shape, ang, level in stones:
            if level != 1:
                ids.append(-1)
                continue
            i = take(shape)
            self.role[i] = STAND
            self.pose[i] = nominal_pose(g, Placement("stand", i, shape, angle=ang % TAU), {})
            ids.append(i)
        for k, (shape, ang, level) in enumerate(stones):
            if level == 1:
                continue
            below = [ids[j] for j, (_, a2, l2) in enumerate(stones)
                     if l2 == 1 and abs((a2 - ang + math.pi) % TAU - math.pi) < 1e-6]
            if not below:
                raise InputError(f"stones[{k}]: a level-2 stone stacks on nothing", key="layout")
            i = take(shape)
            bodies = {x: Stone(x, self.shapes[x], self.role[x], self.on.get(x, ()), self.pose[x])  # type: ignore[arg-type]
                      for x in self.pose}
            self.pose[i] = nominal_pose(g, Placement("stack", i, shape, on=below[0]), bodies)
            self.role[i], self.on[i] = STACK, (below[0],)
            ids[k] = i
        for shape, (a, b) in gates:
            ia, ib = ids[a], ids[b]
            if ia < 0 or ib < 0 or self.role[ia] != STAND or self.role[ib] != STAND:
                raise InputError("a gate must rest on two level-1 stones", key="layout")
            pa, pb = self.pose[ia], self.pose[ib]
            if (math.atan2(pb[1], pb[0]) - math.atan2(pa[1], pa[0])) % TAU > math.pi:
                ia, ib = ib, ia  # counter-clockwise first, as a Gate action gives them
            i = take(shape)
            bodies = {x: Stone(x, self.shapes[x], self.role[x], self.on.get(x, ()), self.pose[x])  # type: ignore[arg-type]
                      for x in self.pose}
            self.pose[i] = nominal_pose(g, Placement("gate", i, shape, between=(ia, ib)), bodies)
            self.role[i], self.on[i] = GATE, (ia, ib)
        self.cache.invalidate()
        self._snap_markers()
        self._begin_turn()

    # --- turn structure ----------------------------------------------------------------------
    def _begin_turn(self) -> None:
        """Enter the placement step of the current seat (draw first in a random field)."""
        pos_ = self.position
        pos_.attempts = 0
        pos_.placed = -1
        pos_.pending = None
        self.cache.invalidate()
        ring = self.ring()
        if ring.empty:
            pos_.played[pos_.seat] = False
        areas = self.mark_areas(pos_.seat, ring)
        pos_.area_before[pos_.seat] = None if ring.empty or areas[0] is None else ring.keys[areas[0]]
        pos_.moved = False
        forced = False
        if not ring.empty and pos_.played[pos_.seat]:
            for m in pos_.markers[pos_.seat]:  # a marker of the mover's in no gap, or in an impassable one
                g = ring.nearest_gap(m)
                if g is None or not ring.passable(g, self.geom):
                    forced = True
                    break
        pos_.forced = forced
        self._enter_place()

    def _enter_place(self) -> None:
        pos_ = self.position
        self.cache.invalidate()
        if FIELD not in pos_.role and pos_.drawn < 0:
            self._finish(SunEnd.FIELD_EMPTY)
            return
        if self.rules.field == "random" and pos_.drawn < 0 and FIELD in pos_.role:
            pos_.phase = "draw"
            return
        pos_.phase = "place"
        if not self.legal_actions():
            self._finish(SunEnd.STALEMATE)

    def _finish(self, reason: SunEnd) -> None:
        pos_ = self.position
        pos_.phase = "over"
        pos_.over = reason
        self.cache.invalidate()

    # (ignore[override]: the base returns list[Action]; lists are invariant, and every SunAction is an Action)
    def legal_actions(self, seat: int | None = None) -> list[SunAction]:  # type: ignore[override]
        """A finite candidate set of legal actions of the seat to move (empty for other seats).

        Placements: stands at a few angles per gap (snug and passable to each neighbour, middle),
        stacks, gates; marker moves; passes at a few aims and two releases. Any other valid
        action (e.g. another angle) is accepted by :meth:`apply_action`.
        """
        pos_ = self.position
        if seat is not None and seat != self.current_player():
            return []
        if pos_.phase not in ("place", "marker", "pass"):
            return []
        cache = self.cache
        if cache.legal is None:
            if pos_.phase == "place":
                cache.legal = placement_candidates(self.ctx)
            elif pos_.phase == "marker":
                cache.legal = marker_options(self.ctx, self.ring())
            else:
                cache.legal = pass_candidates(self.ctx)
        return list(cache.legal)

    # --- applying actions ----------------------------------------------------------------------
    def apply_action(self, action: Action) -> None:
        """Apply a seat's action or a chance outcome (see the module docstring for the phases): a
        :data:`SunAction` of the phase's kind; anything else is illegal.

        Raises:
            IllegalActionError: the action is not legal here (the state is unchanged).
        """
        pos_ = self.position
        ph = pos_.phase
        if ph == "over":
            raise self._illegal(action, "the game is over")
        seat = self.current_player()
        if ph == "draw":
            if not isinstance(action, Draw) or action.stone not in self.field_stones():
                raise self._illegal(action, "expected Draw of a field stone")
            self._history.append((CHANCE, action))
            pos_.drawn = action.stone
            self._enter_place()
        elif ph == "place":
            why = self.placement_problem(action)
            if why is not None:
                raise self._illegal(action, why)
            assert isinstance(action, (Stand, Stack, Gate))  # placement_problem passes placements only
            self._history.append((seat, action))
            pos_.pending = action
            pos_.phase = "settle"
            self.cache.invalidate()
        elif ph == "settle":
            if not isinstance(action, PlaceNoise) or not _finite(action.along, action.across, action.yaw_rad):
                raise self._illegal(action, "expected PlaceNoise")
            self._history.append((CHANCE, action))
            self._settle(action)
        elif ph == "marker":
            if not isinstance(action, MoveMarker) or action not in self.legal_actions():
                raise self._illegal(action, "not one of the legal marker moves " +
                                    ", ".join(map(str, self.legal_actions())))
            self._history.append((seat, action))
            ring = self.ring()
            k = ring.index[self.anchor_stone()]  # type: ignore[index]
            gi = k if action.side == "ccw" else (k - 1) % ring.n
            pos_.markers[pos_.seat][action.marker] = ring.middle(gi)
            pos_.moved = True
            pos_.phase = "pass"
            self.cache.invalidate()
        elif ph == "pass":
            if not isinstance(action, Pass):
                raise self._illegal(action, "expected Pass")
            why = check_pass(self.ctx, action)
            if why is not None:
                raise self._illegal(action, why)
            self._history.append((seat, action))
            pos_.pending = action
            pos_.phase = "swing"
            self.cache.invalidate()
        elif ph == "swing":
            if not isinstance(action, ThrowNoise) or not _finite(action.aim, action.release, action.push_x, action.push_y):
                raise self._illegal(action, "expected ThrowNoise")
            self._history.append((CHANCE, action))
            self._swing(action)

    def _placement_of(self, a: PlaceAction) -> Placement:
        """What the table is asked to do for placement action ``a`` (angles in rad)."""
        pos_ = self.position
        if isinstance(a, Stand):
            st = self.stone_for(a.shape)
            return Placement("stand", st, a.shape, angle=math.radians(a.angle) % TAU)
        if isinstance(a, Stack):
            st = self.stone_for(a.shape)
            return Placement("stack", st, a.shape, on=a.on)
        return Placement("gate", a.stone, pos_.shapes[a.stone], between=(a.a, a.b))

    def _set_bodies(self, bodies: Sequence[Stone], keep_roles: bool = True) -> None:
        """Take the table's read-back: survivors' poses; stones not returned leave the table."""
        pos_ = self.position
        seen = set()
        for b in bodies:
            seen.add(b.id)
            if b.pose is not pos_.pose.get(b.id):  # the very pose handed to the table: kept as it is
                pos_.pose[b.id] = tuple(map(float, b.pose))  # type: ignore[assignment]
        for i, r in enumerate(pos_.role):
            if r in (STAND, STACK, GATE) and i not in seen:
                pos_.role[i] = FIELD  # caller decides where a vanished stone goes
                pos_.pose.pop(i, None)
                pos_.on.pop(i, None)

    def _settle(self, noise: PlaceNoise) -> None:
        """The placement chance step: ask the table to place the pending stone with ``noise``."""
        pos_ = self.position
        a = pos_.pending
        assert isinstance(a, (Stand, Stack, Gate)), "settle without a pending placement"
        pl = self._placement_of(a)
        before_role, before_pose, before_sup = pos_.role[pl.stone], pos_.pose.get(pl.stone), pos_.on.get(pl.stone)
        ring0 = self.ring()  # the ring now (the one a plain stand is spliced into below)
        bodies = self.bodies() if pl.kind != "gate" else _without(self.bodies(), pl.stone)
        res = self.table.place(bodies, pl, noise)
        pos_.pending = None
        # (the placed stone comes back last, unless it fell: looked for there first)
        placed_ok = res.standing and ((bool(res.bodies) and res.bodies[-1].id == pl.stone)
                                      or pl.stone in [b.id for b in res.bodies])
        n0 = len(bodies)
        # a stand or stack (from the field) for which the table hands back every body as handed over,
        # plus the new one: the read-back below would change the new stone's pose only
        kept = pl.kind != "gate" and not res.knocked and len(res.bodies) == n0 + 1 and res.bodies[n0].id == pl.stone \
            and all(map(operator.is_, res.bodies, bodies))
        if kept:
            if placed_ok and res.bodies[n0].pose is not pos_.pose.get(pl.stone):
                pos_.pose[pl.stone] = tuple(map(float, res.bodies[n0].pose))  # type: ignore[assignment]
        else:
            # everything that was on the table and is not returned (the placed stone aside) was knocked
            prior = {b.id for b in bodies}
            self._set_bodies(list(res.bodies) if placed_ok else list(_without(res.bodies, pl.stone)))
            for i in prior:
                if pos_.role[i] == FIELD and i != pl.stone:
                    pos_.role[i] = OUT
                    pos_.owner[i] = pos_.seat
        for i, _cause in res.knocked:
            if 0 <= i < len(pos_.role) and i != pl.stone and pos_.role[i] != OUT:
                pos_.role[i] = OUT
                pos_.owner[i] = pos_.seat
                pos_.pose.pop(i, None)
                pos_.on.pop(i, None)
        kept = not self._fix_orphans() and kept
        if placed_ok:
            pos_.role[pl.stone] = {"stand": STAND, "stack": STACK, "gate": GATE}[pl.kind]
            if pl.kind == "stack":
                pos_.on[pl.stone] = (pl.on,)
            elif pl.kind == "gate":
                pos_.on[pl.stone] = pl.between
            if pos_.role[pl.stone] == STACK and pos_.role[pl.on] != STAND:
                placed_ok = False  # its support was knocked away meanwhile
        self.cache.invalidate()
        if kept and placed_ok and pl.kind == "stand":  # only the new stone changed: spliced into ring0
            self.cache.ring_after_stand(self.position, self.geom, ring0, pl.stone)
        elif kept and placed_ok and pl.kind == "stack":  # only its base's position changed: swapped in ring0
            self.cache.ring_after_stack(self.position, self.geom, ring0, pl.stone)
        options: list[MoveMarker] | None = None
        if placed_ok and pl.kind != "gate" and not self.is_free_turn():
            pos_.placed = pl.stone
            self._snap_markers()
            options = self.marker_options(self.ring())
            if not options:
                placed_ok = False  # it stands, but where no marker move is legal: a misplacement
                pos_.placed = -1
        self.placements.append({
            "seat": pos_.seat, "turn": pos_.turn, "kind": pl.kind, "stone": pl.stone, "shape": pl.shape,
            "angle_deg": math.degrees(pl.angle) if pl.kind == "stand" else None, "standing": int(placed_ok),
            "cause": "" if placed_ok else ("fell" if not res.standing else "no legal marker move"),
            "knocked": len(res.knocked), "wall_s": res.wall_s,
        })
        if not placed_ok:
            self._failed_placement(pl, before_role, before_pose, before_sup)
            return
        pos_.placed = pl.stone
        pos_.drawn = -1
        markers = [list(ms) for ms in pos_.markers]
        self._snap_markers()  # markers do not change the ring (roles and poses do): keep it
        pos_.phase = "pass" if pl.kind == "gate" or self.is_free_turn() else "marker"
        # the marker moves found above are the legal actions now, unless a marker moved since
        self.cache.legal = options if pos_.phase == "marker" and markers == pos_.markers else None

    def _failed_placement(self, pl: Placement, role: str, pose: Pose | None, sup: tuple[int, ...] | None) -> None:
        pos_ = self.position
        pos_.attempts += 1
        pos_.pose.pop(pl.stone, None)
        pos_.on.pop(pl.stone, None)
        give_up = self.rules.placement_fall == "penalty" or pos_.attempts >= self.rules.max_place_attempts
        if give_up:
            pos_.role[pl.stone] = OUT
            pos_.owner[pl.stone] = pos_.seat
            pos_.drawn = -1
        elif pl.kind == "gate" and pose is not None:
            # the player puts it back where it stood (retry)
            pos_.role[pl.stone] = role
            pos_.pose[pl.stone] = pose
            if sup:
                pos_.on[pl.stone] = sup
            if role == STACK and pos_.role[sup[0]] != STAND:  # type: ignore[index]
                pos_.role[pl.stone] = OUT
                pos_.owner[pl.stone] = pos_.seat
        else:
            pos_.role[pl.stone] = FIELD
        self.cache.invalidate()
        self._snap_markers()
        self._enter_place()

    def _fix_orphans(self) -> bool:
        """A surviving stone whose support left: upright on the base it becomes a position,
        otherwise a penalty of the mover ("fell_from_support", the table's name for the same
        cause). Returns whether any stone changed."""
        pos_ = self.position
        any_change = False
        changed = True
        role, sup = pos_.role, pos_.on  # (the position's own list and dict: changed in place below)
        if STACK not in role and GATE not in role:
            return False  # no stone rests on another
        while changed:
            changed = False
            for i, r in enumerate(role):
                if r != STACK and r != GATE:
                    continue
                for x in sup[i]:
                    if role[x] != STAND:
                        break
                else:
                    continue  # every support still stands on the base
                s = self.geom.shapes[pos_.shapes[i]]
                if r == STACK and pose_tilt(pos_.pose[i]) < math.radians(self.geom.table.topple_tilt_deg) \
                        and pose_bottom(pos_.pose[i], s) < 0.003:
                    pos_.role[i] = STAND
                    pos_.on.pop(i, None)
                else:
                    pos_.role[i] = OUT
                    pos_.owner[i] = pos_.seat
                    pos_.pose.pop(i, None)
                    pos_.on.pop(i, None)
                changed = any_change = True
        return any_change

    def _swing(self, noise: ThrowNoise) -> None:
        """The pass chance step: ask the table to throw the pending pass with ``noise``."""
        pos_ = self.position
        a = pos_.pending
        assert isinstance(a, Pass), "swing without a pending pass"
        ring_before = self.ring()
        # (map, loops and a helper, not comprehensions: those made three closure cells a pass)
        areas = list(map(ring_before.gap_of_angle, pos_.markers[pos_.seat]))
        a0 = areas[0] if areas and areas[0] is not None else None
        area_mid = math.degrees(ring_before.middle(a0)) if a0 is not None else None
        area_w = ring_before.width[a0] * 1000.0 if a0 is not None and math.isfinite(ring_before.width[a0]) else None
        bodies = self.bodies()
        res = self.table.throw(bodies, math.radians(a.aim) % TAU, a.release, noise)
        pens: list[tuple[int, str]] = []
        # a clean pass (each body handed back as handed over, no penalty): no pose or role changes, the ring stays
        clean = not res.penalties and len(res.bodies) == len(bodies) and all(map(operator.is_, res.bodies, bodies))
        if not clean:
            prior = {b.id for b in bodies}
            self._set_bodies(res.bodies)
            causes = dict(res.penalties)
            for i in sorted(prior):
                if pos_.role[i] == FIELD:
                    pos_.role[i] = OUT
                    pos_.owner[i] = pos_.seat
                    pens.append((i, causes.get(i, "left the table")))
        for i, c in res.penalties:
            if 0 <= i < len(pos_.role) and pos_.role[i] in (STAND, STACK, GATE):
                pos_.role[i] = OUT
                pos_.owner[i] = pos_.seat
                pos_.pose.pop(i, None)
                pos_.on.pop(i, None)
                pens.append((i, c))
        before_fix = list(pos_.role)  # (a copy is cheaper than the set of the stones out)
        if self._fix_orphans():
            clean = False
            for i, r in enumerate(pos_.role):
                if r == OUT and before_fix[i] != OUT and pos_.owner.get(i) == pos_.seat:
                    pens.append((i, "fell_from_support"))
        if not clean:
            self.cache.invalidate()
        through = res.through_aim_gap
        if res.crossings and not ring_before.empty:
            crossed = set(map(ring_before.gap_of_angle, res.crossings))
            hit = []
            for g in areas:
                if g is not None:
                    hit.append(g in crossed)
            through = bool(hit) and all(hit)
        elif ring_before.empty:
            through = True
        self.passes.append({
            "seat": pos_.seat, "turn": pos_.turn, "aim_deg": a.aim, "release_m": a.release,
            "noise_aim_deg": noise.aim, "noise_release_m": noise.release,
            "noise_push_x_mps": noise.push_x, "noise_push_y_mps": noise.push_y,
            "area_mid_deg": area_mid, "area_width_mm": area_w,
            "marker_moved": int(pos_.moved), "forced_move": int(pos_.forced), "through_mark_area": int(through), "reached_far_side": int(res.reached_far_side),
            "penalties": len(pens), "causes": _causes(pens, pos_.shapes) if pens else "",
            "invalid": int(res.invalid), "preset": res.preset, "sim_time_s": res.sim_time_s,
            "steps": res.steps, "wall_s": res.wall_s,
        })
        pos_.pending = None
        self._snap_markers()
        pos_.played[pos_.seat] = True
        pos_.turn += 1
        if FIELD not in pos_.role:
            self._finish(SunEnd.FIELD_EMPTY)
            return
        pos_.seat = (pos_.seat + 1) % self.num_players
        self._begin_turn()

    # --- chance -------------------------------------------------------------------------------
    def sample_chance(self, rng: np.random.Generator) -> Draw | PlaceNoise | ThrowNoise:
        """Draw the chance outcome: a field stone (uniform), or the mover's noise (thrower.py,
        with the seat's skill: always the same count of normals, common random numbers)."""
        pos_ = self.position
        if pos_.phase == "draw":
            f = self.field_stones()
            return Draw(f[int(rng.integers(len(f)))])
        th = self.throwers[pos_.seat]
        if pos_.phase == "settle":
            return th.draw_place(rng)
        if pos_.phase == "swing":
            return th.draw_pass(rng)
        raise RuntimeError("not a chance node")

    # --- end and information ------------------------------------------------------------------------
    def penalties(self) -> list[int]:
        """Penalty stones per seat."""
        out = [0] * self.num_players
        for i, s in self.owner.items():
            if self.role[i] == OUT:
                out[s] += 1
        return out

    def outcome(self) -> Outcome | None:
        """Fewest penalty stones wins; equal counts share (all equal: a draw of all seats)."""
        if self.phase != "over":
            return None
        pen = self.penalties()
        best = min(pen)
        winners = tuple(s for s in range(self.num_players) if pen[s] == best)
        return Outcome(self.over, winners, tuple(float(p) for p in pen))

    def provisional_scores(self) -> tuple[float, ...]:
        """Minus the penalties so far (higher is better)."""
        return tuple(-float(p) for p in self.penalties())

    def observation(self, seat: int) -> SunObservation:
        """Everything (no hidden information), compared by notation."""
        return SunObservation(None, self.clone(), seat, source=self.position.copy())

    def history(self) -> list[tuple[int, SunAction]]:  # type: ignore[override]
        """Applied actions as ``(seat or CHANCE, action)``."""
        return list(self._history)

    # --- notation -----------------------------------------------------------------------------------
    def to_notation(self) -> str:
        """The exact notation of this state: ``sun:`` + compact JSON of the configuration that
        differs from :attr:`DEFAULTS`, the phase, the stones (role, support, exact pose), the
        markers (exact angles) and the penalties; ``sim.sun.notation.parse_notation`` reads it."""
        return self.notation_of(self.position)

    def notation_of(self, p: SunPosition) -> str:
        """:meth:`to_notation` of this state's configuration with position ``p`` (a copy of this
        state's position taken earlier: ``SunObservation`` writes its notation when first read)."""
        d = self.DEFAULTS
        cfg: dict[str, Any] = {"n": self.num_players}
        rules = {k: v for k, v in self.rules.as_rules().items() if d["rules"].get(k, object()) != v}
        if rules:
            cfg["r"] = rules
        secs = {}
        for k, v in self.sections.items():
            dv = d["sections"].get(k, {})
            diff = {kk: vv for kk, vv in v.items() if dv.get(kk, object()) != vv}
            if diff:
                secs[k] = diff
        if secs:
            cfg["x"] = secs
        seats = [{k: v for k, v in c.items() if d["seats"].get(k, object()) != v} for c in self.seat_cfg]
        if any(seats):
            cfg["s"] = seats
        st = []
        for i, r in enumerate(p.role):
            if r == FIELD:
                continue
            if r == OUT:
                st.append([i, NOTATION_LETTER[r], p.owner[i]])
            else:
                st.append([i, NOTATION_LETTER[r], list(p.on.get(i, ())), *p.pose[i]])
        body: dict[str, Any] = {
            "c": cfg, "p": p.phase, "t": p.turn, "m": p.seat, "a": p.attempts,
            "k": p.markers, "f": [int(x) for x in p.played], "st": st,
        }
        if p.pending is not None:
            body["q"] = action_to_json(p.pending)
        if p.drawn >= 0:
            body["d"] = p.drawn
        if p.placed >= 0:
            body["pl"] = p.placed
        if any(x is not None for x in p.area_before):
            body["b"] = [list(x) if x else None for x in p.area_before]
        if p.over:
            body["o"] = p.over
        if p.forced or p.moved:
            body["fm"] = [int(p.forced), int(p.moved)]
        return "sun:" + json.dumps(body, separators=(",", ":"))


def _causes(pens: list[tuple[int, str]], shapes: list[str]) -> str:
    """A pass's penalties as its log writes them: ``id:shape:cause``, joined by ``;``."""
    return ";".join([f"{i}:{shapes[i]}:{c}" for i, c in pens])


def _without(bodies: Sequence[Stone], stone: int) -> tuple[Stone, ...]:
    """``bodies`` but stone ``stone``'s, in order. (A function, not a comprehension in ``_settle``:
    that made its placement a closure cell, a new object at every placement.)"""
    return tuple(b for b in bodies if b.id != stone)


def _finite(*v: object) -> bool:
    """Whether every value is a finite int or float."""
    return all(isinstance(x, (int, float)) and math.isfinite(x) for x in v)
