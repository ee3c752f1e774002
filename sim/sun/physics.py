"""The Sun's physics protocol: what the rules ask of a table and what it answers (rules-side types).

The rules see the physical table only through :class:`Table`: *place a stone* (stand, stack, gate;
with a ``PlaceNoise``; did it come to rest standing, and where is everything now:
:class:`PlaceResult`) and *pass the ball* (aim, release, a ``ThrowNoise``; which stones became
penalties and why, where the survivors rest: :class:`PassResult`). The protocol is functional: every
call receives the stones on the table (:class:`~sim.sun.geometry.stone.Stone`, exact poses: the one
record of a stone, which the PyBullet table keeps as its own state) and returns the new ones, so the
state's notation, which stores every pose exactly, is all that is needed to rebuild the table and
continue bit for bit. :class:`ScriptedTable` is a deterministic test double; ``sim.sun.game`` binds
the PyBullet table (whose own result types are ``sim.sun.table.sun_table``'s).

The noises are the thrower's (``sim.sun.players.thrower.PlaceNoise`` and ``ThrowNoise``): the one
record of a hand's errors, which the rules draw as chance outcomes and the PyBullet table applies as
they are. Units: metres; angles in radians, except the pass noise's ``aim`` (degrees, as the
notation stores it). Poses are ``(x, y, z, qx, qy, qz, qw)`` (:data:`sim.sun.geometry.ring.Pose`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping, Protocol, Sequence

from sim.core.quaternions import quat_multiply, quat_yaw
from sim.sun.geometry.ring import Geometry, Pose, pose_top, pose_yaw
from sim.sun.geometry.specs import TAU, ShapeSpec
from sim.sun.geometry.stone import Role, Stone, top_of
from sim.sun.players.thrower import PlaceNoise, ThrowNoise


@dataclass(frozen=True, slots=True)
class Placement:
    """What the rules ask the table to place: ``kind`` is "stand" (at ``angle`` rad), "stack" (on
    stone ``on``) or "gate" (across positions ``between``)."""

    kind: Role
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
    bodies: tuple[Stone, ...]
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
        through_aim_gap: the table's own verdict, used when it reports no crossings (the PyBullet
            table works it out only then: with crossings it is False).
        reached_far_side: the ball reached the far side (the catch).
        invalid: the pass was flagged invalid (non-finite or growing energy) and re-run.
    """

    penalties: tuple[tuple[int, str], ...]
    bodies: tuple[Stone, ...]
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

    def place(self, bodies: Sequence[Stone], placement: Placement, noise: PlaceNoise) -> PlaceResult:
        """Place one stone with noise and let the table settle."""
        ...

    def throw(self, bodies: Sequence[Stone], aim: float, release: float, noise: ThrowNoise) -> PassResult:
        """Pass the ball: release from rest at azimuth ``aim`` (rad), ``release`` m outside the base edge."""
        ...


def nominal_pose(g: Geometry, placement: Placement, bodies: Mapping[int, Stone]) -> Pose:
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
        return stack_pose(base.pose, g.shapes[base.shape], s)
    a, b = bodies[placement.between[0]], bodies[placement.between[1]]
    tops = [pose_top(top_of_position(bodies, x).pose, g.shapes[top_of_position(bodies, x).shape]) for x in (a.id, b.id)]
    mx, my = 0.5 * (a.pose[0] + b.pose[0]), 0.5 * (a.pose[1] + b.pose[1])
    chord = math.atan2(b.pose[1] - a.pose[1], b.pose[0] - a.pose[0])
    # rotate local z onto the chord direction (horizontal), then roll so the thin side is vertical
    q = quat_multiply(quat_yaw(chord), (0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4)))
    if s.width < s.depth:  # local y must be vertical: roll 90 degrees about the length axis
        q = quat_multiply(q, (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)))
    return (mx, my, max(tops) + 0.5 * min(s.width, s.depth), *q)


def stack_pose(base: Pose, base_shape: ShapeSpec, s: ShapeSpec) -> Pose:
    """The intended pose of a stone of shape ``s`` stacked on a stone of ``base_shape`` at pose
    ``base``: upright on its top, above its centre, turned as it is (the rules' view of a stack
    to come, ``SunCache.stacked_pos``, uses it too)."""
    return (base[0], base[1], pose_top(base, base_shape) + 0.5 * s.height, *quat_yaw(pose_yaw(base)))


def top_of_position(bodies: Mapping[int, Stone], bottom: int) -> Stone:
    """The highest stone of the position whose bottom stone is ``bottom``: its stacked stone, if any."""
    return bodies[top_of(bodies.values(), bottom)]


def apply_place_noise(pose: Pose, noise: PlaceNoise) -> Pose:
    """A pose shifted by placement noise: ``along`` tangentially, ``across`` radially, ``yaw``."""
    x, y = pose[0], pose[1]
    az = math.atan2(y, x)
    dx = noise.across * math.cos(az) - noise.along * math.sin(az)
    dy = noise.across * math.sin(az) + noise.along * math.cos(az)
    q = quat_multiply(quat_yaw(noise.yaw_rad), pose[3:7])
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

    def place(self, bodies: Sequence[Stone], placement: Placement, noise: PlaceNoise) -> PlaceResult:
        """See :meth:`Table.place`."""
        k = self.place_calls
        self.place_calls += 1
        kept = tuple([b for b in bodies if b.id != placement.stone])
        if k in self.falls:
            return PlaceResult(False, kept)
        by_id = {b.id: b for b in bodies} if placement.kind != "stand" else {}  # a stand needs no other body
        pose = apply_place_noise(nominal_pose(self.geometry, placement, by_id), noise)
        on: tuple[int, ...] = {"stand": (), "stack": (placement.on,), "gate": placement.between}[placement.kind]
        return PlaceResult(True, kept + (Stone(placement.stone, placement.shape, placement.kind, on, pose),))

    def throw(self, bodies: Sequence[Stone], aim: float, release: float, noise: ThrowNoise) -> PassResult:
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

