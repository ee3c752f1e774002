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
    ``sim.sun.layout``). Each seat has one marker (two in orbit mode), an angle on the outer edge.
Turn (phases)
    ``draw`` (chance, random field only: which stone the player gets) -> ``place`` (seat: Stand,
    Stack or Gate) -> ``settle`` (chance: placement noise; physics) -> ``marker`` (seat:
    MoveMarker; skipped after a gate and on a seat's first turn) -> ``pass`` (seat: Pass) ->
    ``swing`` (chance: the thrower's noise; physics) -> next seat.
End
    After the pass of a turn in which the field became empty ("field_empty"), or when the seat to
    move has no legal placement ("stalemate"). Fewest penalty stones wins; equal counts share.

Geometry (units: metres, radians inside, degrees in actions and on screen)
    A gap's width is measured perpendicular to the ray through its middle (the path a pass takes),
    with each stone's inner corners (``layout.clearance_to_bisector``, per stone at its actual
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
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from sim.core.errors import InputError
from sim.core.game import CHANCE, TERMINAL, Outcome, State
from sim.core.options import Option
from sim.sun.ring import (  # noqa: F401 - Geometry, Pos, Ring and the pose helpers are part of the rules' API
    TAU, Geometry, Pos, Pose, Ring, arc_intersection, arcs_overlap, clearance_to_bisector, gap_width,
    lintel_footprint, orbit_arc, pose_bottom, pose_tilt, pose_top, pose_yaw, quat_yaw, sep_for_width,
)
from sim.sun.thrower import SKILLS, Thrower

#: Rule options (scenario table ``[rules]``).
RULE_OPTIONS: tuple[Option, ...] = (
    Option("mode", str, "standard", "standard: one marker per player; orbit: two opposite markers, "
           "the pass goes through both mark areas", choices=("standard", "orbit")),
    Option("field", str, "open", "open: the player picks the shape; random: a stone is drawn at random",
           choices=("open", "random")),
    Option("placement_fall", str, "retry", "a placed stone that does not stand: retry (back to where it "
           "came from, choose again) or penalty (it becomes the player's penalty)", choices=("retry", "penalty")),
    Option("max_place_attempts", int, 4, "failed placements in one turn after which the stone in hand "
           "becomes a penalty (bounds the game)", min=1, max=100),
    Option("free_first_turn", str, "every_seat", "whose first turn has no marker move: every seat's own "
           "first turn, or only the game's first turn", choices=("every_seat", "first_only")),
    Option("marker_change", str, "new_stone", "what 'change your mark area' requires after a stand or stack: "
           "new_stone: the new area must have the stone just stood as one of its ends (after a stack beside "
           "your own area you may keep that area, now bounded by the stack); new_gap: it must also be a "
           "different gap from the area at the start of the turn (stacks then need a passable gap on the "
           "stack's other side)", choices=("new_stone", "new_gap")),
    Option("level_tolerance", float, 0.002, "largest height difference (m) of a gate's two supports",
           min=0.0, max=0.05),
)
RULE_DEFAULTS: dict[str, Any] = {o.name: o.default for o in RULE_OPTIONS}

# The legal stand angles are exact intervals (SunState.stand_intervals); the finite candidate list
# offered to agents samples each interval: its two ends moved inwards by SAMPLE_INSET (m along the
# ring, so that a stone aimed there is not a hair from its neighbour), its middle, and the angles
# leaving a neighbour a passable gap plus PASS_MARGIN (m). Agents may play any other legal angle.
SAMPLE_INSET = 0.002
PASS_MARGIN = 0.004
STAND_EPS = 1e-9  # rad: interval ends are moved this far inwards, so that every angle in them is legal
FIRST_ANGLES_DEG = tuple(22.5 + 45.0 * k for k in range(8))
AIM_FRACTIONS = (0.5, 0.3, 0.7, 0.15, 0.85)
RELEASE_EXTRA = (0.0, 0.1)


# ------------------------------------------------------------------------------------------------
# Actions (degrees in actions: designers read them)
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stand:
    """Take a stone of ``shape`` from the field and stand it on the base at ``angle`` degrees."""

    shape: str
    angle: float

    def __str__(self) -> str:
        return f"Stand({self.shape} at {self.angle:.2f} deg)"


@dataclass(frozen=True, slots=True)
class Stack:
    """Take a stone of ``shape`` from the field and stack it on the standing stone ``on``."""

    shape: str
    on: int

    def __str__(self) -> str:
        return f"Stack({self.shape} on #{self.on})"


@dataclass(frozen=True, slots=True)
class Gate:
    """Lay standing stone ``stone`` across positions ``a`` and ``b`` (bottom stone ids, ccw order)."""

    stone: int
    a: int
    b: int

    def __str__(self) -> str:
        return f"Gate(#{self.stone} over #{self.a}-#{self.b})"


@dataclass(frozen=True, slots=True)
class MoveMarker:
    """Move marker ``marker`` to the gap on the ``side`` ("ccw" or "cw") of the stone just stood."""

    side: str
    marker: int = 0

    def __str__(self) -> str:
        return f"MoveMarker({self.side}{'' if self.marker == 0 else f', marker {self.marker}'})"


@dataclass(frozen=True, slots=True)
class Pass:
    """Release the ball from rest at azimuth ``aim`` (deg), ``release`` metres outside the base edge;
    it swings through the centre towards ``aim + 180``."""

    aim: float
    release: float

    def __str__(self) -> str:
        return f"Pass(aim {self.aim:.2f} deg, release {self.release:.3f} m)"


@dataclass(frozen=True, slots=True)
class Draw:
    """Chance (random field): the player draws stone ``stone``."""

    stone: int

    def __str__(self) -> str:
        return f"Draw(#{self.stone})"


@dataclass(frozen=True, slots=True)
class PlaceNoise:
    """Chance: placement errors along (m), across (m) the ring and in yaw (deg)."""

    along: float = 0.0
    across: float = 0.0
    yaw: float = 0.0

    def __str__(self) -> str:
        return f"PlaceNoise({self.along * 1000:+.2f} mm, {self.across * 1000:+.2f} mm, {self.yaw:+.2f} deg)"


@dataclass(frozen=True, slots=True)
class ThrowNoise:
    """Chance: pass errors in aim (deg), release (m) and the push at release (m/s, world x, y)."""

    aim: float = 0.0
    release: float = 0.0
    push_x: float = 0.0
    push_y: float = 0.0

    def __str__(self) -> str:
        return (f"ThrowNoise(aim {self.aim:+.3f} deg, release {self.release * 1000:+.1f} mm, "
                f"push {self.push_x * 1000:+.1f},{self.push_y * 1000:+.1f} mm/s)")


_ACTIONS = {c.__name__: c for c in (Stand, Stack, Gate, MoveMarker, Pass, Draw, PlaceNoise, ThrowNoise)}


def action_to_json(a: Any) -> list[Any]:
    """``[name, field values...]`` (exact floats)."""
    return [type(a).__name__, *(getattr(a, f) for f in a.__slots__)]


def action_from_json(v: Any) -> Any:
    """Inverse of :func:`action_to_json`.

    Raises:
        InputError: not an action of this game.
    """
    if not isinstance(v, list) or not v or v[0] not in _ACTIONS:
        raise InputError(f"not a sun action: {v!r}")
    try:
        return _ACTIONS[v[0]](*v[1:])
    except TypeError as e:
        raise InputError(f"bad sun action {v!r}: {e}") from None


# ------------------------------------------------------------------------------------------------
# The table protocol
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Body:
    """A stone on the table as the physics sees it.

    ``support``: ``()`` standing on the base, ``(id,)`` stacked on stone ``id``, ``(a, b)`` a gate
    resting on the positions whose bottom stones are ``a`` and ``b``.
    """

    id: int
    shape: str
    pose: Pose
    support: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Placement:
    """What the rules ask the table to place: ``kind`` is "stand" (at ``angle`` rad), "stack" (on
    stone ``on``) or "gate" (across positions ``between``)."""

    kind: str
    stone: int
    shape: str
    angle: float = 0.0
    on: int = -1
    between: tuple[int, int] = (-1, -1)


@dataclass(frozen=True)
class PlaceResult:
    """What a placement did: ``standing`` (the placed stone came to rest where it was meant to),
    every body afterwards (the placed one included only if standing), and other stones it knocked
    over with their causes."""

    standing: bool
    bodies: tuple[Body, ...]
    knocked: tuple[tuple[int, str], ...] = ()
    sim_time_s: float = 0.0
    wall_s: float = 0.0


@dataclass(frozen=True)
class PassResult:
    """What a pass did.

    Attributes:
        penalties: ``(stone id, cause)`` for each stone knocked over, pushed off or fallen.
        bodies: the surviving bodies as they came to rest.
        crossings: azimuths (rad) where the ball's centre crossed the ring radius (may be empty).
        through_aim_gap: the table's own verdict, used when it reports no crossings.
        reached_far_side: the ball reached the far side (the catch).
        invalid: the pass was flagged invalid (non-finite or growing energy) and re-run.
    """

    penalties: tuple[tuple[int, str], ...]
    bodies: tuple[Body, ...]
    crossings: tuple[float, ...] = ()
    through_aim_gap: bool = True
    reached_far_side: bool = True
    invalid: bool = False
    sim_time_s: float = 0.0
    steps: int = 0
    wall_s: float = 0.0
    preset: str = ""


class Table(Protocol):
    """What the rules need from physics. Implementations must be deterministic: the same bodies,
    request and noise give the same result (the physics rebuilds the scene from the bodies)."""

    def place(self, bodies: Sequence[Body], placement: Placement, noise: PlaceNoise) -> PlaceResult:
        """Place one stone with noise and let the table settle."""
        ...

    def throw(self, bodies: Sequence[Body], aim: float, release: float, noise: ThrowNoise) -> PassResult:
        """Pass the ball: release from rest at azimuth ``aim`` (rad), ``release`` m outside the base edge."""
        ...


def nominal_pose(g: Geometry, placement: Placement, bodies: Mapping[int, Body]) -> Pose:
    """The intended pose of a placed stone (no noise), in the layout's conventions.

    A gate's local z (its length) lies along the chord, its thinner side vertical.
    """
    s = g.shapes[placement.shape]
    r = g.table.ring_radius
    if placement.kind == "stand":
        ang = placement.angle
        return (r * math.cos(ang), r * math.sin(ang), 0.5 * s.height, *quat_yaw(ang))
    if placement.kind == "stack":
        base = bodies[placement.on]
        bs = g.shapes[base.shape]
        p = base.pose
        return (p[0], p[1], pose_top(p, bs) + 0.5 * s.height, *quat_yaw(pose_yaw(p)))
    a, b = bodies[placement.between[0]], bodies[placement.between[1]]
    tops = [pose_top(_top_body(bodies, x).pose, g.shapes[_top_body(bodies, x).shape]) for x in (a.id, b.id)]
    mx, my = 0.5 * (a.pose[0] + b.pose[0]), 0.5 * (a.pose[1] + b.pose[1])
    chord = math.atan2(b.pose[1] - a.pose[1], b.pose[0] - a.pose[0])
    # rotate local z onto the chord direction (horizontal), then roll so the thin side is vertical
    q = _mul(quat_yaw(chord), (0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4)))
    if s.width < s.depth:  # local y must be vertical: roll 90 degrees about the length axis
        q = _mul(q, (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)))
    return (mx, my, max(tops) + 0.5 * min(s.width, s.depth), *q)


def _mul(p: tuple[float, float, float, float], q: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    x1, y1, z1, w1 = p
    x2, y2, z2, w2 = q
    return (w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2, w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2, w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2)


def _top_body(bodies: Mapping[int, Body], bottom: int) -> Body:
    for b in bodies.values():
        if b.support == (bottom,):
            return b
    return bodies[bottom]


def apply_place_noise(pose: Pose, noise: PlaceNoise) -> Pose:
    """A pose shifted by placement noise: ``along`` tangentially, ``across`` radially, ``yaw``."""
    x, y = pose[0], pose[1]
    az = math.atan2(y, x)
    dx = noise.across * math.cos(az) - noise.along * math.sin(az)
    dy = noise.across * math.sin(az) + noise.along * math.cos(az)
    q = _mul(quat_yaw(math.radians(noise.yaw)), pose[3:7])
    return (x + dx, y + dy, pose[2], *q)


class ScriptedTable:
    """Deterministic test double of :class:`Table`: placements land at their nominal pose plus the
    noise; passes are clean unless a scripted outcome is queued.

    ``falls``: placements (by call count, from 0) whose stone does not come to rest standing.
    ``outcomes``: a queue of dicts for the next passes: ``penalties`` [(id, cause)], ``moves``
    {id: pose}, ``crossings`` (rad), ``through``, ``reached``, ``invalid``.
    """

    def __init__(self, geometry: Geometry | None = None) -> None:
        self.geometry = geometry or Geometry()
        self.falls: set[int] = set()
        self.outcomes: list[dict[str, Any]] = []
        self.place_calls = 0
        self.throw_calls = 0

    def place(self, bodies: Sequence[Body], placement: Placement, noise: PlaceNoise) -> PlaceResult:
        """See :meth:`Table.place`."""
        k = self.place_calls
        self.place_calls += 1
        by_id = {b.id: b for b in bodies}
        kept = tuple(b for b in bodies if b.id != placement.stone)
        if k in self.falls:
            return PlaceResult(False, kept)
        pose = apply_place_noise(nominal_pose(self.geometry, placement, by_id), noise)
        sup: tuple[int, ...] = {"stand": (), "stack": (placement.on,), "gate": placement.between}[placement.kind]
        return PlaceResult(True, kept + (Body(placement.stone, placement.shape, pose, sup),))

    def throw(self, bodies: Sequence[Body], aim: float, release: float, noise: ThrowNoise) -> PassResult:
        """See :meth:`Table.throw`."""
        self.throw_calls += 1
        o = self.outcomes.pop(0) if self.outcomes else {}
        pen = tuple((int(i), str(c)) for i, c in o.get("penalties", ()))
        gone = {i for i, _ in pen}
        moves = o.get("moves", {})
        out = tuple(replace(b, pose=tuple(moves[b.id])) if b.id in moves else b for b in bodies if b.id not in gone)
        a = aim + math.radians(noise.aim)
        return PassResult(pen, out, tuple(o.get("crossings", (a % TAU, (a + math.pi) % TAU))),
                          bool(o.get("through", True)), bool(o.get("reached", True)), bool(o.get("invalid", False)))


# ------------------------------------------------------------------------------------------------
# The state
# ------------------------------------------------------------------------------------------------

FIELD, BASE, TOP, GATE, OUT = "F", "B", "T", "G", "X"
PHASES = ("draw", "place", "settle", "marker", "pass", "swing", "over")


@dataclass(frozen=True)
class SunObservation:
    """A seat's view: everything (the game has no hidden information). Compared by notation; the
    ``state`` field (a private copy) lets agents plan without re-parsing."""

    notation: str
    state: "SunState" = field(compare=False, repr=False)


class SunState(State):
    """A position of Stonehenge and the Sun (see the module docstring).

    Build with :meth:`new` or :meth:`from_notation`; the table is any :class:`Table`.
    """

    #: config values omitted from the notation when equal (the game sets its full defaults)
    DEFAULTS: dict[str, Any] = {"rules": RULE_DEFAULTS, "sections": {}, "seats": {}}

    def __init__(self) -> None:
        self.num_players = 2
        self.rules: dict[str, Any] = dict(RULE_DEFAULTS)
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
        self.pending: Any = None
        self.drawn = -1
        self.placed = -1
        self.played: list[bool] = []
        self.area_before: list[tuple[int, int] | None] = []
        #: this turn: the mover's area was impassable at its start / the marker was moved
        self.forced = False
        self.moved = False
        self.over = ""
        self._history: list[tuple[int, Any]] = []
        self.passes: list[dict[str, Any]] = []
        self.placements: list[dict[str, Any]] = []
        self._ring: Ring | None = None
        self._legal: list[Any] | None = None
        self.recorder: Any = None

    # --- construction ------------------------------------------------------------------------
    @classmethod
    def new(cls, num_players: int, rules: Mapping[str, Any] | None = None, *, table: Table | None = None,
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
        s.rules = {**RULE_DEFAULTS, **dict(rules or {})}
        s.sections = {k: dict(v) for k, v in (sections or {}).items()}
        s.seat_cfg = [dict(c) for c in (seat_cfg or [{} for _ in range(num_players)])]
        s.geom = geometry or Geometry()
        s.throwers = list(throwers or [SKILLS["perfect"]] * num_players)
        s.table = table or ScriptedTable(s.geom)
        s.shapes = s.geom.stone_shapes()
        s.role = [FIELD] * len(s.shapes)
        if s.rules["mode"] == "orbit":
            s.markers = [[TAU * k / (2 * num_players), TAU * k / (2 * num_players) + math.pi]
                         for k in range(num_players)]
        else:
            s.markers = [[TAU * k / num_players] for k in range(num_players)]
        s.played = [False] * num_players
        if s.rules["free_first_turn"] == "first_only":
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
            self.role[i] = BASE
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
            bodies = {x: Body(x, self.shapes[x], self.pose[x], self.sup.get(x, ())) for x in self.pose}
            self.pose[i] = nominal_pose(g, Placement("stack", i, shape, on=below[0]), bodies)
            self.role[i], self.sup[i] = TOP, (below[0],)
            ids[k] = i
        for shape, (a, b) in gates:
            ia, ib = ids[a], ids[b]
            if ia < 0 or ib < 0 or self.role[ia] != BASE or self.role[ib] != BASE:
                raise InputError("a gate must rest on two level-1 stones", key="layout")
            pa, pb = self.pose[ia], self.pose[ib]
            if (math.atan2(pb[1], pb[0]) - math.atan2(pa[1], pa[0])) % TAU > math.pi:
                ia, ib = ib, ia  # counter-clockwise first, as a Gate action gives them
            i = take(shape)
            bodies = {x: Body(x, self.shapes[x], self.pose[x], self.sup.get(x, ())) for x in self.pose}
            self.pose[i] = nominal_pose(g, Placement("gate", i, shape, between=(ia, ib)), bodies)
            self.role[i], self.sup[i] = GATE, (ia, ib)
        self._dirty()
        self._snap_markers()
        self._begin_turn()

    def clone(self) -> "SunState":
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
        return tuple(Body(i, self.shapes[i], self.pose[i], self.sup.get(i, ()))
                     for i, r in enumerate(self.role) if r in (BASE, TOP, GATE))

    def ring(self) -> Ring:
        """The ring as it stands now (cached)."""
        if self._ring is None:
            self._ring = self._make_ring(self.role, self.sup, self.pose)
        return self._ring

    def _make_ring(self, role: Sequence[str], sup: Mapping[int, tuple[int, ...]], pose: Mapping[int, Pose]) -> Ring:
        g = self.geom
        tops = {sup[i][0]: i for i, r in enumerate(role) if r == TOP}
        positions = []
        for i, r in enumerate(role):
            if r != BASE:
                continue
            p, s = pose[i], g.shapes[self.shapes[i]]
            w, d, top = s.width, s.depth, pose_top(p, s)
            t = tops.get(i, -1)
            if t >= 0:
                ts = g.shapes[self.shapes[t]]
                w, d, top = max(w, ts.width), max(d, ts.depth), pose_top(pose[t], ts)
            positions.append(Pos(i, math.atan2(p[1], p[0]) % TAU, math.hypot(p[0], p[1]), w, d, top, t))
        gates: dict[tuple[int, int], float] = {}
        lintels = []
        for i, r in enumerate(role):
            if r == GATE:
                a, b = sup[i]
                p, sh = pose[i], g.shapes[self.shapes[i]]
                gates[(a, b)] = pose_bottom(p, sh)
                qx, qy, qz, qw = p[3], p[4], p[5], p[6]
                ax, ay = 2.0 * (qx * qz + qw * qy), 2.0 * (qy * qz - qw * qx)
                n = math.hypot(ax, ay) or 1.0
                lo, span = lintel_footprint(g, self.shapes[i], p, (ax / n, ay / n))
                lintels.append((lo, span, pose_bottom(p, sh), pose_top(p, sh)))
        return Ring(positions, gates, lintels)

    def _dirty(self) -> None:
        self._ring = None
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

    def field_stones(self) -> list[int]:
        """Ids of the stones still in the field."""
        return [i for i, r in enumerate(self.role) if r == FIELD]

    def _first_turn(self) -> bool:
        # played[seat] False: a free turn (no marker move). In "first_only" mode only seat 0
        # starts free; any seat whose turn starts on an empty ring (every stone lost) is free too.
        return not self.played[self.seat]

    def _begin_turn(self, keep_ring: bool = False) -> None:
        """Enter the placement step of the current seat (draw first in a random field).
        ``keep_ring``: the cached ring is current (the caller changed no stone since building it)."""
        self.attempts = 0
        self.placed = -1
        self.pending = None
        if keep_ring:
            self._legal = None
        else:
            self._dirty()
        ring = self.ring()
        if ring.empty:
            self.played[self.seat] = False
        areas = self.mark_areas(self.seat, ring)
        self.area_before[self.seat] = None if ring.empty or areas[0] is None else ring.keys[areas[0]]
        self.moved = False
        self.forced = not ring.empty and self.played[self.seat] and any(
            g is None or not ring.passable(g, self.geom) for g in (ring.nearest_gap(m) for m in self.markers[self.seat]))
        self._enter_place()

    def _enter_place(self) -> None:
        self._legal = None
        if not self.field_stones() and self.drawn < 0:
            self._finish("field_empty")
            return
        if self.rules["field"] == "random" and self.drawn < 0 and self.field_stones():
            self.phase = "draw"
            return
        self.phase = "place"
        if not self.legal_actions():
            self._finish("stalemate")

    def _finish(self, reason: str) -> None:
        self.phase = "over"
        self.over = reason
        self._legal = None

    def legal_actions(self, seat: int | None = None) -> list[Any]:
        """A finite candidate set of legal actions of the seat to move (empty for other seats).

        Placements: stands at a few angles per gap (snug and passable to each neighbour, middle),
        stacks, gates; marker moves; passes at a few aims and two releases. Any other valid
        action (e.g. another angle) is accepted by :meth:`apply_action`.
        """
        if seat is not None and seat != self.current_player():
            return []
        if self.phase not in ("place", "marker", "pass"):
            return []
        if self._legal is None:
            if self.phase == "place":
                self._legal = self._placement_candidates()
            elif self.phase == "marker":
                self._legal = self._marker_options(self.ring())
            else:
                self._legal = self._pass_candidates()
        return list(self._legal)

    # --- placement legality ----------------------------------------------------------------------
    def _available_shapes(self) -> list[str]:
        if self.rules["field"] == "random":
            return [self.shapes[self.drawn]] if self.drawn >= 0 else []
        seen: list[str] = []
        for i in self.field_stones():
            if self.shapes[i] not in seen:
                seen.append(self.shapes[i])
        return seen

    def _stone_for(self, shape: str) -> int:
        if self.rules["field"] == "random":
            return self.drawn if self.drawn >= 0 and self.shapes[self.drawn] == shape else -1
        for i, r in enumerate(self.role):
            if r == FIELD and self.shapes[i] == shape:
                return i
        return -1

    def _placement_candidates(self) -> list[Any]:
        ring = self.ring()
        out: list[Any] = []
        for shape in self._available_shapes():
            for ang in self.stand_samples(shape):
                out.append(Stand(shape, ang))
            for p in ring.pos:
                a2 = Stack(shape, p.id)
                if p.top < 0 and self._check_place(a2) is None:
                    out.append(a2)
        out.extend(self._gate_candidates(ring))
        return out

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
        if self.phase != "place" or shape not in self.geom.shapes or self._stone_for(shape) < 0:
            return []
        g = self.geom
        s = g.shapes[shape]
        r = g.table.ring_radius
        ring = self.ring()
        stone = self._stone_for(shape)
        half = math.asin(min(1.0, 0.5 * s.width / r))
        spans: list[tuple[float, float, list[float]]]
        if ring.empty:
            spans = [(0.0, TAU, [])]
        else:
            spans = []
            for i in range(ring.n):
                if ring.under[i] is not None:
                    continue
                a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
                sep = (b.angle - a.angle) % TAU if ring.n > 1 else TAU

                def limit(p: Pos, width: float) -> float:
                    x = sep_for_width(p, r, s, width)
                    return math.pi if x is None else x

                lo = a.angle + limit(a, g.table.min_clearance)
                hi = a.angle + sep - limit(b, g.table.min_clearance)
                if hi <= lo:
                    continue
                cuts = [a.angle + limit(a, g.pass_width), a.angle + sep - limit(b, g.pass_width)]
                for ms in self.markers:
                    for m in ms:
                        m0 = a.angle + (m - a.angle) % TAU
                        cuts += [m0, m0 - half, m0 + half]
                for l0, lsp, _u, _t in ring.lintels:
                    cuts += [l0 - half, l0 + lsp + half]
                if self.rules["mode"] == "orbit":
                    for j in range(ring.n):
                        for e in (ring.start[j], ring.end[j]):
                            cuts += [e + math.pi - half, e + math.pi + half]
                spans.append((lo, hi, cuts))
        out: list[tuple[float, float]] = []
        for lo, hi, cuts in spans:
            inner = set()
            for c in cuts:
                c = lo + (c - lo) % TAU  # the copy of the angle at or after lo
                if lo < c < hi:
                    inner.add(c)
            edges = [lo, *sorted(inner), hi]
            for x0, x1 in zip(edges, edges[1:]):
                if x1 - x0 <= 2.0 * STAND_EPS:
                    continue
                mid = 0.5 * (x0 + x1)
                # the placement check itself (its geometric part; the stone is known): the same
                # degrees round trip as a Stand action, so the piece's verdict is the action's
                if self._stand_check_at(stone, shape, math.radians(math.degrees(mid % TAU)) % TAU) is not None:
                    continue
                if out and abs(out[-1][1] - (x0 + STAND_EPS)) <= 4.0 * STAND_EPS:
                    out[-1] = (out[-1][0], x1 - STAND_EPS)  # joins the previous legal piece
                else:
                    out.append((x0 + STAND_EPS, x1 - STAND_EPS))
        return out

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
        for lo, hi in self.stand_intervals(shape):
            if ring.empty:
                cands = [math.radians(d) for d in FIRST_ANGLES_DEG]
            else:
                inset = min(SAMPLE_INSET / r, 0.25 * (hi - lo))
                cands = [0.5 * (lo + hi), lo + inset, hi - inset]
                i = (bisect_right(ring.angles, (0.5 * (lo + hi)) % TAU) - 1) % ring.n
                a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
                for p, sign, base in ((a, 1.0, a.angle), (b, -1.0, b.angle)):
                    d = sep_for_width(p, r, s, g.pass_width + PASS_MARGIN)
                    if d is not None:
                        x = base + sign * d
                        x = lo + (x - lo) % TAU
                        if lo < x < hi:
                            cands.append(x)
            for c in cands:
                deg = round(math.degrees(c % TAU), 6) % 360.0
                # inside an exact interval, so legal (tests/sun/test_sun_stand_intervals.py checks it)
                if all(abs((deg - o + 180.0) % 360.0 - 180.0) > 0.05 for o in out):
                    out.append(deg)
        return out

    def _check_place(self, a: Any) -> str | None:
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
        return self._stand_check_at(stone, a.shape, math.radians(a.angle) % TAU)

    def _stand_check_at(self, stone: int, shape: str, ang: float) -> str | None:
        """The geometric part of :meth:`_check_stand`: stone ``stone`` of ``shape`` at ``ang`` (rad,
        in [0, 2 pi)); :meth:`stand_intervals` calls it once per piece with the stone known."""
        g = self.geom
        s = g.shapes[shape]
        if g.table.ring_radius + 0.5 * s.depth > g.table.base_radius:
            return "the stone would stick out over the base edge"
        ring = self.ring()
        new = Pos(stone, ang, g.table.ring_radius, s.width, s.depth, s.height)
        if ring.lintels and ring.lintel_clash(ang - new.half, 2 * new.half, s.height) >= 0:
            return "it would hit a gate"
        if not ring.empty:
            i = (bisect_right(ring.angles, ang) - 1) % ring.n
            if ring.under[i] is not None:
                return "cannot stand a stone under a gate"
            left, right = ring.pos[i], ring.pos[(i + 1) % ring.n]
            for p, sep in ((left, (ang - left.angle) % TAU), (right, (right.angle - ang) % TAU)):
                if sep >= math.pi:
                    continue
                h = 0.5 * sep
                if clearance_to_bisector(p.radius, p.depth, p.width, h) + clearance_to_bisector(new.radius, new.depth, new.width, h) \
                        < g.table.min_clearance:
                    return f"not clear of stone #{p.id}"
            if self.rules["mode"] == "standard" and ring.n >= 2 and not self._first_turn():
                return None if self._stand_marker_fast(ring, i, new) else "no legal marker move would follow"
        return self._check_marker_after(stone, new_pos=new)

    def _others_gaps(self, ring: Ring) -> list[tuple[float, int]]:
        """``(marker angle, its gap on ring)`` for every other seat's marker (none on an empty
        ring), cached while the ring, the seat and the markers stay the same."""
        key = (ring, self.seat, tuple(tuple(ms) for ms in self.markers))
        cached = self.__dict__.get("_others_cache")
        if cached is not None and cached[0] == key:
            return cached[1]
        out = []
        for s_, ms in enumerate(self.markers):
            if s_ == self.seat:
                continue
            for m in ms:
                g = ring.nearest_gap(m)
                if g is not None:
                    out.append((m, g))
        self.__dict__["_others_cache"] = (key, out)
        return out

    def _stand_marker_fast(self, ring: Ring, i: int, new: Pos) -> bool:
        """Standard mode: is there a legal marker move after standing ``new`` in gap ``i``? Local
        computation equal to :meth:`_marker_options` on the full ring (a test checks this)."""
        a, b = ring.pos[i], ring.pos[(i + 1) % ring.n]
        k_cw, k_ccw = (a.id, new.id), (new.id, b.id)
        others: set[tuple[int, int]] = set()
        split_at = (new.angle - a.angle) % TAU
        for m, g in self._others_gaps(ring):
            if g == i:
                others.add(k_cw if (m - a.angle) % TAU < split_at else k_ccw)
            else:
                others.add(ring.keys[g])
        before = self.area_before[self.seat]
        pw = self.geom.pass_width
        for key, (p, q) in ((k_ccw, (new, b)), (k_cw, (a, new))):
            if key in others or (key == before and self.rules["marker_change"] == "new_gap"):
                continue
            if gap_width(p, q) >= pw:
                return True
        return False

    def _check_stack(self, a: Stack) -> str | None:
        if a.shape not in self.geom.shapes:
            return f"unknown shape {a.shape!r}"
        stone = self._stone_for(a.shape)
        if stone < 0:
            return f"no {a.shape} available"
        if not isinstance(a.on, int) or not 0 <= a.on < len(self.role) or self.role[a.on] != BASE:
            return f"#{a.on} is not a stone standing on the base"
        ring = self.ring()
        p = ring.pos[ring.index[a.on]]
        if p.top >= 0:
            return "at most two levels"
        if any(r == GATE and a.on in self.sup[i] for i, r in enumerate(self.role)):
            return "a gate rests on it"
        s = self.geom.shapes[a.shape]
        new = replace(p, width=max(p.width, s.width), depth=max(p.depth, s.depth), top_z=p.top_z + s.height, top=stone)
        if ring.lintels and ring.lintel_clash(new.angle - new.half, 2 * new.half, new.top_z) >= 0:
            return "the stack would hit a gate"
        if ring.n > 1:
            k = ring.index[a.on]
            for q, sep in ((ring.pos[k - 1], (p.angle - ring.pos[k - 1].angle) % TAU),
                           (ring.pos[(k + 1) % ring.n], (ring.pos[(k + 1) % ring.n].angle - p.angle) % TAU)):
                if q.id == p.id or sep >= math.pi:
                    continue
                h = 0.5 * sep
                if clearance_to_bisector(q.radius, q.depth, q.width, h) + clearance_to_bisector(new.radius, new.depth, new.width, h) \
                        < self.geom.table.min_clearance:
                    return f"the stack would not be clear of stone #{q.id}"
        if self.rules["mode"] == "standard" and ring.n >= 3 and not self._first_turn() and (
                new.width == p.width or not any(abs((m - p.angle + math.pi) % TAU - math.pi) <= new.half
                                                 for ms in self.markers for m in ms)):
            return None if self._stack_marker_fast(ring, ring.index[a.on], new) else "no legal marker move would follow"
        return self._check_marker_after(stone, new_pos=new)

    def _stack_marker_fast(self, ring: Ring, k: int, new: Pos) -> bool:
        """Standard mode, a stack that covers no marker: is there a legal marker move after it?
        Every marker keeps its gap and the keys are unchanged; only the two gaps beside the
        position get the stack's width and depth. Equal to :meth:`_marker_options` on the full
        ring (tests/sun/test_sun_stand_intervals.py checks it on random games)."""
        others = self._others_areas(ring)
        new_gap_rule = self.rules["marker_change"] == "new_gap"
        before = self.area_before[self.seat]
        g = self.geom
        for gi, (p, q) in ((k, (new, ring.pos[(k + 1) % ring.n])), ((k - 1) % ring.n, (ring.pos[k - 1], new))):
            key = ring.keys[gi]
            if key in others or (new_gap_rule and key == before):
                continue
            u = ring.under[gi]
            if gap_width(p, q) >= g.pass_width and (u is None or u >= g.gate_clear_z):
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
        return Ring(positions, gates, ring.lintels)

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

    def _gate_candidates(self, ring: Ring) -> list[Gate]:
        if ring.n < 3:
            return []
        supports = {x for i, r in enumerate(self.role) if r == GATE for x in self.sup[i]}
        takeable = [i for i, r in enumerate(self.role)
                    if (r == BASE and i not in supports and ring.pos[ring.index[i]].top < 0)
                    or (r == TOP and self.sup[i][0] not in supports)]
        # Pairs of neighbours that no gate can span whatever stone is taken, unless that stone is
        # the top of one of them: a support carries a gate, a gate spans them, their tops differ by
        # more than level_tolerance, or the gap is wider than the longest lintel allows.
        longest = max(self.geom.shapes[self.shapes[st]].lintel_length for st in takeable) if takeable else 0.0
        most = longest - 2.0 * self.geom.table.gate_min_overlap
        static_ok = []
        for i in range(ring.n):
            pa, pb = ring.pos[i], ring.pos[(i + 1) % ring.n]
            static_ok.append(pa.id not in supports and pb.id not in supports and ring.under[i] is None
                             and abs(pa.top_z - pb.top_z) <= self.rules["level_tolerance"]
                             and gap_width(pa, pb) <= most)
        out = []
        for st in takeable:
            below = self.sup[st][0] if self.role[st] == TOP else -1
            pairs = []
            for i in range(ring.n):
                a, b = ring.pos[i].id, ring.pos[(i + 1) % ring.n].id
                if st in (a, b) or (not static_ok[i] and below not in (a, b)):
                    continue
                pairs.append((a, b))
            if self.role[st] == BASE:
                k = ring.index[st]
                pairs.append((ring.pos[k - 1].id, ring.pos[(k + 1) % ring.n].id))
            for a, b in pairs:
                act = Gate(st, a, b)
                if self._check_gate(act, supports) is None:
                    out.append(act)
        return out

    def _check_gate(self, a: Gate, supports: set[int] | None = None) -> str | None:
        """Why gate ``a`` is illegal now, or None. ``supports``: the stones carrying a gate, when
        the caller has them already (the candidate loop checks many gates of one state)."""
        n = len(self.role)
        if not all(isinstance(x, int) and 0 <= x < n for x in (a.stone, a.a, a.b)):
            return "unknown stone id"
        st = a.stone
        if self.role[st] not in (BASE, TOP):
            return f"#{st} is not standing on the base (a stone from the field cannot make a gate)"
        if supports is None:
            supports = {x for i, r in enumerate(self.role) if r == GATE for x in self.sup[i]}
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
        if (ka + 1) % ring.n == kb and ring.under[ka] is not None:
            return "a gate already spans this gap"
        pa, pb = self._pos_without(ring.pos[ka], st), self._pos_without(ring.pos[kb], st)
        if abs(pa.top_z - pb.top_z) > self.rules["level_tolerance"]:
            return f"supports differ in height ({pa.top_z * 1000:.1f} and {pb.top_z * 1000:.1f} mm)"
        s = self.geom.shapes[self.shapes[st]]
        inner = gap_width(pa, pb)
        if inner > s.lintel_length - 2.0 * self.geom.table.gate_min_overlap:
            return f"gap too wide for a {self.shapes[st]} gate ({inner * 1000:.1f} mm)"
        if inner <= 0.0:
            return "supports touch"
        # the lintel must not hit a neighbour as tall as its supports, nor another gate
        under = min(pa.top_z, pb.top_z)
        ax, ay = pb.radius * math.cos(pb.angle) - pa.radius * math.cos(pa.angle), \
            pb.radius * math.sin(pb.angle) - pa.radius * math.sin(pa.angle)
        nrm = math.hypot(ax, ay) or 1.0
        mid = (0.5 * (pa.radius * math.cos(pa.angle) + pb.radius * math.cos(pb.angle)),
               0.5 * (pa.radius * math.sin(pa.angle) + pb.radius * math.sin(pb.angle)))
        lo, span = lintel_footprint(self.geom, self.shapes[st], mid, (ax / nrm, ay / nrm))
        for q in ring.pos:
            if q.id in (pa.id, pb.id) or (single and q.id == st):
                continue
            qq = self._pos_without(q, st)
            if qq.top_z > under - 0.001 and arcs_overlap(lo, span, qq.angle - qq.half, 2 * qq.half):
                return f"the gate would hit #{q.id}"
        thick = min(s.width, s.depth)
        for (l0, lsp, lu, lt) in ring.lintels:
            if arcs_overlap(lo, span, l0, lsp) and lu < under + thick + 0.001 and lt > under - 0.001:
                return "the gate would hit another gate"
        # never merge two different players' mark areas
        if single:
            g1, g2 = (ks - 1) % ring.n, ks
            in1 = {x for x, ms in enumerate(self.markers) for m in ms if ring.gap_of_angle(m) == g1}
            in2 = {x for x, ms in enumerate(self.markers) for m in ms if ring.gap_of_angle(m) == g2}
            if any(x != y for x in in1 for y in in2):
                return "removing it would merge two players' mark areas"
        gated = self._ring_with(removed=st, gate=(a.a, a.b, under))
        if not self._own_areas_ok(gated):
            return "the mover's own mark area must stay passable (move the marker instead)"
        return None

    def _pos_without(self, p: Pos, st: int) -> Pos:
        """Position ``p`` after its top stone ``st`` is taken away (unchanged otherwise)."""
        if p.top != st:
            return p
        s = self.geom.shapes[self.shapes[p.id]]
        return replace(p, width=s.width, depth=s.depth, top_z=pose_top(self.pose[p.id], s), top=-1)

    def _own_areas_ok(self, ring: Ring) -> bool:
        if ring.empty:
            return True
        gaps = [ring.nearest_gap(m) for m in self.markers[self.seat]]
        if any(g is None or not ring.passable(g, self.geom) for g in gaps):
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
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (a.aim, a.release)):
            return "aim and release must be finite numbers"
        g = self.geom
        if a.release < g.min_release - 1e-12:
            return f"release {a.release:.3f} m outside the base is less than a hand span ({g.min_release:.3f} m)"
        if a.release > g.max_release:
            return f"release must be at most {g.max_release:.3f} m"
        aim = math.radians(a.aim)
        for s, e in (self.pass_arcs() if arcs is None else arcs):
            if e - s >= TAU or ((aim - s) % TAU) <= e - s + 1e-12:
                return None
        return "the line of the pass does not go through the mark area"

    def _pass_candidates(self) -> list[Pass]:
        out: list[Pass] = []
        g = self.geom
        arcs = self.pass_arcs()
        for s, e in arcs:
            span = min(e - s, TAU)
            for f in AIM_FRACTIONS:
                aim = round(math.degrees((s + f * span) % TAU), 6) % 360.0
                for extra in RELEASE_EXTRA:
                    p = Pass(aim, round(g.min_release + extra, 6))
                    if p not in out and self._check_pass(p, arcs) is None:
                        out.append(p)
        return out

    # --- applying actions ----------------------------------------------------------------------
    def apply_action(self, action: Any) -> None:
        """Apply a seat's action or a chance outcome (see the module docstring for the phases).

        Raises:
            IllegalActionError: the action is not legal here (the state is unchanged).
        """
        ph = self.phase
        if ph == "over":
            raise self._illegal(action, "the game is over")
        seat = self.current_player()
        if ph == "draw":
            if not isinstance(action, Draw) or action.stone not in self.field_stones():
                raise self._illegal(action, "expected Draw of a field stone")
            self._history.append((CHANCE, action))
            self.drawn = action.stone
            self._enter_place()
        elif ph == "place":
            why = self._check_place(action)
            if why is not None:
                raise self._illegal(action, why)
            self._history.append((seat, action))
            self.pending = action
            self.phase = "settle"
            self._legal = None
        elif ph == "settle":
            if not isinstance(action, PlaceNoise) or not _finite(action.along, action.across, action.yaw):
                raise self._illegal(action, "expected PlaceNoise")
            self._history.append((CHANCE, action))
            self._settle(action)
        elif ph == "marker":
            if not isinstance(action, MoveMarker) or action not in self.legal_actions():
                raise self._illegal(action, "not one of the legal marker moves " +
                                    ", ".join(map(str, self.legal_actions())))
            self._history.append((seat, action))
            ring = self.ring()
            k = ring.index[self._anchor()]  # type: ignore[index]
            gi = k if action.side == "ccw" else (k - 1) % ring.n
            self.markers[self.seat][action.marker] = ring.middle(gi)
            self.moved = True
            self.phase = "pass"
            self._legal = None
        elif ph == "pass":
            if not isinstance(action, Pass):
                raise self._illegal(action, "expected Pass")
            why = self._check_pass(action)
            if why is not None:
                raise self._illegal(action, why)
            self._history.append((seat, action))
            self.pending = action
            self.phase = "swing"
            self._legal = None
        elif ph == "swing":
            if not isinstance(action, ThrowNoise) or not _finite(action.aim, action.release, action.push_x, action.push_y):
                raise self._illegal(action, "expected ThrowNoise")
            self._history.append((CHANCE, action))
            self._swing(action)

    def _placement_of(self, a: Any) -> Placement:
        if isinstance(a, Stand):
            st = self._stone_for(a.shape)
            return Placement("stand", st, a.shape, angle=math.radians(a.angle) % TAU)
        if isinstance(a, Stack):
            st = self._stone_for(a.shape)
            return Placement("stack", st, a.shape, on=a.on)
        return Placement("gate", a.stone, self.shapes[a.stone], between=(a.a, a.b))

    def _set_bodies(self, bodies: Sequence[Body], keep_roles: bool = True) -> None:
        """Take the table's read-back: survivors' poses; stones not returned leave the table."""
        seen = set()
        for b in bodies:
            seen.add(b.id)
            self.pose[b.id] = tuple(float(v) for v in b.pose)  # type: ignore[assignment]
        for i, r in enumerate(self.role):
            if r in (BASE, TOP, GATE) and i not in seen:
                self.role[i] = FIELD  # caller decides where a vanished stone goes
                self.pose.pop(i, None)
                self.sup.pop(i, None)

    def _settle(self, noise: PlaceNoise) -> None:
        a = self.pending
        pl = self._placement_of(a)
        before_role = self.role[pl.stone]
        before_pose = self.pose.get(pl.stone)
        before_sup = self.sup.get(pl.stone)
        bodies = self.bodies()
        if pl.kind == "gate":
            bodies = tuple(b for b in bodies if b.id != pl.stone)
        res = self.table.place(bodies, pl, noise)
        self.pending = None
        placed_ok = res.standing and any(b.id == pl.stone for b in res.bodies)
        # everything that was on the table and is not returned (the placed stone aside) was knocked
        prior = {b.id for b in bodies}
        self._set_bodies([b for b in res.bodies if b.id != pl.stone or placed_ok])
        for i in prior:
            if self.role[i] == FIELD and i != pl.stone:
                self.role[i] = OUT
                self.owner[i] = self.seat
        for i, _cause in res.knocked:
            if 0 <= i < len(self.role) and i != pl.stone and self.role[i] != OUT:
                self.role[i] = OUT
                self.owner[i] = self.seat
                self.pose.pop(i, None)
                self.sup.pop(i, None)
        self._fix_orphans()
        if placed_ok:
            self.role[pl.stone] = {"stand": BASE, "stack": TOP, "gate": GATE}[pl.kind]
            if pl.kind == "stack":
                self.sup[pl.stone] = (pl.on,)
            elif pl.kind == "gate":
                self.sup[pl.stone] = pl.between
            if self.role[pl.stone] == TOP and self.role[pl.on] != BASE:
                placed_ok = False  # its support was knocked away meanwhile
        self._dirty()
        if placed_ok and pl.kind != "gate" and not self._first_turn():
            self.placed = pl.stone
            self._snap_markers()
            if not self._marker_options(self.ring()):
                placed_ok = False  # it stands, but where no marker move is legal: a misplacement
                self.placed = -1
        self.placements.append({
            "seat": self.seat, "turn": self.turn, "kind": pl.kind, "stone": pl.stone, "shape": pl.shape,
            "angle_deg": math.degrees(pl.angle) if pl.kind == "stand" else None, "standing": int(placed_ok),
            "cause": "" if placed_ok else ("fell" if not res.standing else "no legal marker move"),
            "knocked": len(res.knocked), "wall_s": res.wall_s,
        })
        if not placed_ok:
            self._failed_placement(pl, before_role, before_pose, before_sup)
            return
        self.placed = pl.stone
        self.drawn = -1
        self._snap_markers()  # markers do not change the ring (roles and poses do): keep it
        self._legal = None
        self.phase = "pass" if pl.kind == "gate" or self._first_turn() else "marker"
        self._legal = None

    def _failed_placement(self, pl: Placement, role: str, pose: Pose | None, sup: tuple[int, ...] | None) -> None:
        self.attempts += 1
        self.pose.pop(pl.stone, None)
        self.sup.pop(pl.stone, None)
        give_up = self.rules["placement_fall"] == "penalty" or self.attempts >= self.rules["max_place_attempts"]
        if give_up:
            self.role[pl.stone] = OUT
            self.owner[pl.stone] = self.seat
            self.drawn = -1
        elif pl.kind == "gate" and pose is not None:
            # the player puts it back where it stood (retry)
            self.role[pl.stone] = role
            self.pose[pl.stone] = pose
            if sup:
                self.sup[pl.stone] = sup
            if role == TOP and self.role[sup[0]] != BASE:  # type: ignore[index]
                self.role[pl.stone] = OUT
                self.owner[pl.stone] = self.seat
        else:
            self.role[pl.stone] = FIELD
        self._dirty()
        self._snap_markers()
        self._enter_place()

    def _fix_orphans(self) -> None:
        # A surviving stone whose support left: upright on the base it becomes a position,
        # otherwise a penalty of the mover ("fell_from_support", the table's name for the same cause).
        changed = True
        while changed:
            changed = False
            for i, r in enumerate(self.role):
                if r not in (TOP, GATE):
                    continue
                if all(self.role[x] == BASE for x in self.sup[i]):
                    continue
                s = self.geom.shapes[self.shapes[i]]
                if r == TOP and pose_tilt(self.pose[i]) < math.radians(self.geom.table.topple_tilt_deg) \
                        and pose_bottom(self.pose[i], s) < 0.003:
                    self.role[i] = BASE
                    self.sup.pop(i, None)
                else:
                    self.role[i] = OUT
                    self.owner[i] = self.seat
                    self.pose.pop(i, None)
                    self.sup.pop(i, None)
                changed = True

    def _swing(self, noise: ThrowNoise) -> None:
        a: Pass = self.pending
        ring_before = self.ring()
        areas = [ring_before.gap_of_angle(m) for m in self.markers[self.seat]]
        a0 = areas[0] if areas and areas[0] is not None else None
        area_mid = math.degrees(ring_before.middle(a0)) if a0 is not None else None
        area_w = ring_before.width[a0] * 1000.0 if a0 is not None and math.isfinite(ring_before.width[a0]) else None
        bodies = self.bodies()
        res = self.table.throw(bodies, math.radians(a.aim) % TAU, a.release, noise)
        prior = {b.id for b in bodies}
        self._set_bodies(res.bodies)
        causes = dict(res.penalties)
        pens: list[tuple[int, str]] = []
        for i in sorted(prior):
            if self.role[i] == FIELD:
                self.role[i] = OUT
                self.owner[i] = self.seat
                pens.append((i, causes.get(i, "left the table")))
        for i, c in res.penalties:
            if 0 <= i < len(self.role) and self.role[i] in (BASE, TOP, GATE):
                self.role[i] = OUT
                self.owner[i] = self.seat
                self.pose.pop(i, None)
                self.sup.pop(i, None)
                pens.append((i, c))
        before_fix = set(i for i, r in enumerate(self.role) if r == OUT)
        self._fix_orphans()
        for i, r in enumerate(self.role):
            if r == OUT and i not in before_fix and self.owner.get(i) == self.seat:
                pens.append((i, "fell_from_support"))
        self._dirty()
        through = res.through_aim_gap
        if res.crossings and not ring_before.empty:
            hit = [any(ring_before.gap_of_angle(c) == g for c in res.crossings) for g in areas if g is not None]
            through = bool(hit) and all(hit)
        elif ring_before.empty:
            through = True
        self.passes.append({
            "seat": self.seat, "turn": self.turn, "aim_deg": a.aim, "release_m": a.release,
            "noise_aim_deg": noise.aim, "noise_release_m": noise.release,
            "noise_push_x_mps": noise.push_x, "noise_push_y_mps": noise.push_y,
            "area_mid_deg": area_mid, "area_width_mm": area_w,
            "marker_moved": int(self.moved), "forced_move": int(self.forced), "through_mark_area": int(through), "reached_far_side": int(res.reached_far_side),
            "penalties": len(pens), "causes": ";".join(f"{i}:{self.shapes[i]}:{c}" for i, c in pens),
            "invalid": int(res.invalid), "preset": res.preset, "sim_time_s": res.sim_time_s,
            "steps": res.steps, "wall_s": res.wall_s,
        })
        self.pending = None
        self._snap_markers()
        self.played[self.seat] = True
        self.turn += 1
        if not self.field_stones():
            self._finish("field_empty")
            return
        self.seat = (self.seat + 1) % self.num_players
        self._begin_turn(keep_ring=True)

    # --- chance -------------------------------------------------------------------------------
    def sample_chance(self, rng: np.random.Generator) -> Any:
        """Draw the chance outcome: a field stone (uniform), or the mover's noise (thrower.py,
        with the seat's skill: always the same count of normals, common random numbers)."""
        if self.phase == "draw":
            f = self.field_stones()
            return Draw(f[int(rng.integers(len(f)))])
        th = self.throwers[self.seat]
        if self.phase == "settle":
            pl = th.draw_place(rng)
            return PlaceNoise(pl.along_m, pl.across_m, math.degrees(pl.yaw_rad))
        if self.phase == "swing":
            ps = th.draw_pass(rng)
            return ThrowNoise(math.degrees(ps.aim_rad), ps.release_m, ps.push_mps[0], ps.push_mps[1])
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
        return SunObservation(self.to_notation(), self.clone())

    def history(self) -> list[tuple[int, Any]]:
        """Applied actions as ``(seat or CHANCE, action)``."""
        return list(self._history)

    # --- notation -----------------------------------------------------------------------------------
    def to_notation(self) -> str:
        """``sun:`` + compact JSON: non-default config, phase, stones (role, support, exact pose),
        markers (exact angles), penalties."""
        d = self.DEFAULTS
        cfg: dict[str, Any] = {"n": self.num_players}
        rules = {k: v for k, v in self.rules.items() if d["rules"].get(k, object()) != v}
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
        for i, r in enumerate(self.role):
            if r == FIELD:
                continue
            if r == OUT:
                st.append([i, r, self.owner[i]])
            else:
                st.append([i, r, list(self.sup.get(i, ())), *self.pose[i]])
        body: dict[str, Any] = {
            "c": cfg, "p": self.phase, "t": self.turn, "m": self.seat, "a": self.attempts,
            "k": self.markers, "f": [int(x) for x in self.played], "st": st,
        }
        if self.pending is not None:
            body["q"] = action_to_json(self.pending)
        if self.drawn >= 0:
            body["d"] = self.drawn
        if self.placed >= 0:
            body["pl"] = self.placed
        if any(x is not None for x in self.area_before):
            body["b"] = [list(x) if x else None for x in self.area_before]
        if self.over:
            body["o"] = self.over
        if self.forced or self.moved:
            body["fm"] = [int(self.forced), int(self.moved)]
        return "sun:" + json.dumps(body, separators=(",", ":"))

    @classmethod
    def parse(cls, text: str, build: Any) -> "SunState":
        """Parse :meth:`to_notation`. ``build(num_players, rules, sections, seats)`` returns a new
        state of the right configuration (with its table), whose fields are then overwritten.

        Raises:
            InputError: malformed notation.
        """
        if not isinstance(text, str) or not text.startswith("sun:"):
            raise InputError("a sun notation starts with 'sun:'")
        try:
            body = json.loads(text[4:])
            cfg = body["c"]
            d = cls.DEFAULTS
            n = int(cfg["n"])
            rules = {**d["rules"], **cfg.get("r", {})}
            sections = {k: {**v, **cfg.get("x", {}).get(k, {})} for k, v in d["sections"].items()}
            for k, v in cfg.get("x", {}).items():
                sections.setdefault(k, dict(v))
            seats_raw = cfg.get("s", [{} for _ in range(n)])
            seats = [{**d["seats"], **x} for x in seats_raw]
            s = build(n, rules, sections, seats)
            if body["p"] not in PHASES:
                raise ValueError(f"unknown phase {body['p']!r}")
            s.phase = body["p"]
            s.turn = int(body["t"])
            s.seat = int(body["m"])
            s.attempts = int(body["a"])
            s.markers = [[float(a) for a in ms] for ms in body["k"]]
            s.played = [bool(x) for x in body["f"]]
            if len(s.markers) != n or len(s.played) != n or not 0 <= s.seat < n:
                raise ValueError("markers, seats and players disagree")
            s.role = [FIELD] * len(s.shapes)
            s.sup, s.pose, s.owner = {}, {}, {}
            for e in body["st"]:
                i, r = int(e[0]), e[1]
                if not 0 <= i < len(s.role) or r not in (BASE, TOP, GATE, OUT):
                    raise ValueError(f"bad stone entry {e!r}")
                s.role[i] = r
                if r == OUT:
                    s.owner[i] = int(e[2])
                else:
                    if e[2]:
                        s.sup[i] = tuple(int(x) for x in e[2])
                    pose = tuple(float(v) for v in e[3:])
                    if len(pose) != 7:
                        raise ValueError(f"pose of #{i} needs 7 numbers")
                    s.pose[i] = pose
            s.pending = action_from_json(body["q"]) if "q" in body else None
            s.drawn = int(body.get("d", -1))
            s.placed = int(body.get("pl", -1))
            s.area_before = [tuple(x) if x else None for x in body.get("b", [None] * n)]
            s.over = body.get("o", "")
            s.forced, s.moved = (bool(x) for x in body.get("fm", [0, 0]))
            s._history = []
            s._dirty()
        except InputError:
            raise
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
            raise InputError(f"malformed sun notation: {e}") from None
        return s


def _finite(*v: Any) -> bool:
    return all(isinstance(x, (int, float)) and math.isfinite(x) for x in v)
