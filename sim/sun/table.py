"""The PyBullet table of *Stonehenge and the Sun*: build, pass, place, settle, read back, record.

The table keeps two levels of description:

- **pose-level state** (canonical): one :class:`StoneState` per stone on the table: id, shape, role
  (``"stand"`` on the base, ``"stack"`` on another stone, ``"gate"`` across two), the ids it rests
  on, and its position and orientation as physics left them. :meth:`SunTable.snapshot` and
  :meth:`SunTable.restore` save and restore it; :meth:`SunTable.copy` builds an independent table.
- **ring view**: :meth:`SunTable.positions` and :meth:`SunTable.gaps` derive the ring (positions,
  gaps, gates' undersides) from the poses, with the geometry of :mod:`sim.sun.layout`.

The PyBullet world is a disposable rendering of the state: it is rebuilt with ``resetSimulation``
(docs/sun-physics.md: ``saveState``/``restoreState`` is unreliable) whenever the state changed since the
last build. Every pass and placement therefore starts from a fresh world built from the poses, so
its result is a pure function of (poses, parameters, command, noise): a copy of the table gives
bit-identical results, which is what a planner trying passes on a copy needs.

Physics settings (docs/sun-physics.md): stones are maximal-coordinate rigid bodies with damping 0 and
``frictionAnchor=1``; each body gets the square root of the wanted pair friction and restitution;
contact breaking threshold 5 mm; ``deterministicOverlappingPairs=1``. The ball is a Featherstone
multibody: a fixed base at the pivot and one spherical joint, the ball its only link, motor
disabled, all damping 0. Presets ``fast`` (240 Hz, 15 iterations, stones start asleep) and
``reference`` (1 kHz, 50 iterations, no sleeping).

A pass (:meth:`SunTable.pass_ball`): the ball is released from rest (plus the thrower's push) at
``base_radius + release`` from the centre in the aim direction; the swing is simulated until the
ball's velocity along the swing direction turns back (the far turning point, where the next player
catches it) or ``max_swing_s``; the ball is removed; the table settles until every stone is at rest
(two consecutive checks) or ``settle_time_limit_s``. Then each stone is judged against its pose
before the pass: ``pushed_off`` (centre beyond the base edge or below its top), ``fell_from_support``
(a stacked stone or gate no longer resting on its supports' tops), ``toppled`` (tilted more than
``topple_tilt_deg``). Penalty stones are removed from the table. A non-finite state or the ball's
energy growing beyond ``energy_tolerance`` flags the pass invalid; it is then re-run from the same
state at the reference preset and the result says so.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Literal, Sequence

import numpy as np
import pybullet as p

from sim.core.errors import InputError
from sim.sun.layout import TAU, Layout, ShapeSpec, wrap_angle
from sim.sun.ring import Pos, Ring, inside_opening
from sim.sun.thrower import ZERO_PASS, ZERO_PLACE, PassNoise, PlaceNoise

Role = Literal["stand", "stack", "gate"]
Cause = Literal["toppled", "pushed_off", "fell_from_support"]

#: Vertical gap (m) under a placed stone, so that a noisy placement never starts in contact.
PLACE_DROP_M = 0.0002
#: A supported stone whose bottom is further than this (m) from its supports' tops has fallen.
SUPPORT_TOL_M = 0.003
#: Horizontal slack (m) beyond a support's top face before a stacked stone counts as off it.
SUPPORT_XY_TOL_M = 0.002


# --------------------------------------------------------------------------------------------
# Small rotation helpers (quaternions are (x, y, z, w) as in PyBullet)
# --------------------------------------------------------------------------------------------


#: Wall seconds spent inside ``stepSimulation`` by every table of this process (passes and settling),
#: for the game-overhead benchmark (``sim.sun.rules_bench``): read with :func:`stepping_wall_s`.
_STEPPING = [0.0]


def stepping_wall_s() -> float:
    """Wall seconds this process has spent stepping PyBullet in passes and settling so far."""
    return _STEPPING[0]


def _quat_yaw(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(0.5 * yaw), math.cos(0.5 * yaw))


def _quat_from_matrix(m: np.ndarray) -> tuple[float, float, float, float]:
    """Rotation matrix (columns = images of the local axes) to a unit quaternion."""
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, x, y, z = 0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        w, x, y, z = (m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        w, x, y, z = (m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        w, x, y, z = (m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s
    n = math.sqrt(w * w + x * x + y * y + z * z)
    return (x / n, y / n, z / n, w / n)


def _matrix(q: Sequence[float]) -> np.ndarray:
    return np.array(p.getMatrixFromQuaternion(q)).reshape(3, 3)


def _z_row(q: Sequence[float]) -> tuple[float, float, float]:
    """Third row of the rotation matrix of ``q``: the world z components of the local axes."""
    x, y, z, w = q
    return (2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y))


# --------------------------------------------------------------------------------------------
# Public records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoneState:
    """One stone on the table (pose-level state).

    Attributes:
        id: stable id (layout stones keep their file index; gates follow; new stones count on).
        shape: shape name.
        role: ``"stand"`` (on the base), ``"stack"`` (on ``supports[0]``) or ``"gate"`` (across both).
        supports: ids of the stones it rests on.
        pos: centre of mass (m, world).
        quat: orientation (x, y, z, w).
    """

    id: int
    shape: str
    role: Role
    supports: tuple[int, ...]
    pos: tuple[float, float, float]
    quat: tuple[float, float, float, float]

    @property
    def angle(self) -> float:
        """Angular position of the centre (rad, [0, 2 pi))."""
        return wrap_angle(math.atan2(self.pos[1], self.pos[0]))

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"stone": self.id, "shape": self.shape, "role": self.role, "supports": list(self.supports),
                "angle_deg": math.degrees(self.angle), "pos": list(self.pos), "quat": list(self.quat)}


@dataclass(frozen=True)
class Penalty:
    """A stone lost in a pass or placement: id, shape and cause."""

    stone: int
    shape: str
    cause: Cause

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"stone": self.stone, "shape": self.shape, "cause": self.cause}


@dataclass(frozen=True)
class Crossing:
    """The ball's centre crossing the ring radius: angle (rad) and direction."""

    angle: float
    inbound: bool
    t: float


@dataclass
class PassResult:
    """Outcome of one pass.

    Attributes:
        aim_rad, release_m: the intended aim and release distance (outside the base edge).
        noise: the thrower's errors applied.
        penalties: stones lost, with causes.
        through_aim_gap: the ball entered the ring inside the clear opening of the gap containing
            the intended aim (on the start poses); False if the aim pointed at a stone.
        through_opposite_gap: likewise where it left the ring, for the gap containing aim + 180 deg.
        reached_far_side: the far turning point lies beyond the base edge, past the centre.
        invalid: the first simulation was non-finite or gained energy (see ``rerun_at_reference``).
        rerun_at_reference: the result comes from a re-run at the reference preset.
        preset: the preset that produced this result.
        sim_time_s, steps: simulated time and steps (swing + settle).
        swing_steps: steps until the catch.
        settled: every stone came to rest before the time limit.
        wall_s: wall time of the whole call.
        crossings: ring crossings of the ball.
        catch_pos: ball centre at the catch (m).
        final: the stones' states after the pass (penalty stones removed).
    """

    aim_rad: float
    release_m: float
    noise: PassNoise
    penalties: list[Penalty] = field(default_factory=list)
    through_aim_gap: bool = False
    through_opposite_gap: bool = False
    reached_far_side: bool = False
    invalid: bool = False
    rerun_at_reference: bool = False
    preset: str = "fast"
    sim_time_s: float = 0.0
    steps: int = 0
    swing_steps: int = 0
    settled: bool = True
    wall_s: float = 0.0
    crossings: list[Crossing] = field(default_factory=list)
    catch_pos: tuple[float, float, float] = (0.0, 0.0, 0.0)
    final: list[StoneState] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """No penalty."""
        return not self.penalties

    def as_dict(self, poses: bool = True) -> dict[str, Any]:
        """JSON-friendly form (the keys the CLI prints)."""
        d: dict[str, Any] = {
            "aim_deg": math.degrees(self.aim_rad), "release_m": self.release_m, "noise": self.noise.as_dict(),
            "penalties": [x.as_dict() for x in self.penalties], "through_aim_gap": self.through_aim_gap,
            "through_opposite_gap": self.through_opposite_gap, "reached_far_side": self.reached_far_side,
            "invalid": self.invalid, "rerun_at_reference": self.rerun_at_reference, "preset": self.preset,
            "sim_time_s": self.sim_time_s, "steps": self.steps, "swing_steps": self.swing_steps,
            "settled": self.settled, "wall_s": self.wall_s,
            "crossings": [{"angle_deg": math.degrees(c.angle), "inbound": c.inbound, "t": c.t} for c in self.crossings],
            "catch_pos": list(self.catch_pos),
        }
        if poses:
            d["poses"] = [s.as_dict() for s in self.final]
        return d


@dataclass
class PlaceResult:
    """Outcome of standing, stacking or laying a stone.

    Attributes:
        stone: id of the placed stone.
        standing: it came to rest where it was put (not blocked, toppled, fallen or off the base).
        cause: why not: ``"blocked"`` (the noisy pose intersected another stone: nothing changed),
            ``"toppled"``, ``"fell_from_support"`` or ``"pushed_off"``; ``None`` when standing.
        disturbed: other stones lost while the placed stone settled.
        sim_time_s, steps, wall_s: cost.
        state: the placed stone's state when standing, else ``None`` (a fallen stone is removed).
    """

    stone: int
    standing: bool
    cause: str | None = None
    disturbed: list[Penalty] = field(default_factory=list)
    sim_time_s: float = 0.0
    steps: int = 0
    wall_s: float = 0.0
    state: StoneState | None = None


@dataclass(frozen=True)
class TableSnapshot:
    """An immutable copy of a table's pose-level state (see :meth:`SunTable.snapshot`)."""

    stones: tuple[StoneState, ...]
    next_id: int


class PoseRecorder:
    """Collects per-frame poses of every body at a chosen rate (format: docs/pose-recording.md).

    Args:
        rate_hz: frames per simulated second (rounded to a whole number of steps per frame).
    """

    FORMAT = "stonelab.sun.poses"
    VERSION = 1

    def __init__(self, rate_hz: float = 60.0) -> None:
        if not (math.isfinite(rate_hz) and rate_hz > 0):
            raise InputError(f"recording rate must be a positive number of Hz, not {rate_hz!r}", key="rate_hz")
        self.rate_hz = float(rate_hz)
        self.bodies: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}
        self.frames: list[list[Any]] = []
        self.events: list[dict[str, Any]] = []
        self.meta: dict[str, Any] = {}

    def body(self, key: str, info: dict[str, Any]) -> int:
        """Register a body (idempotent); returns its column."""
        if key not in self._index:
            self._index[key] = len(self.bodies)
            self.bodies.append({"key": key, **info})
        return self._index[key]

    def frame(self, t: float, poses: dict[str, list[float]]) -> None:
        """Add a frame: ``poses`` maps body keys to [x, y, z, qx, qy, qz, qw]; absent bodies are null."""
        row: list[Any] = [None] * len(self.bodies)
        for k, v in poses.items():
            row[self._index[k]] = [round(float(x), 7) for x in v]
        self.frames.append([round(t, 6), row])

    def event(self, t: float, kind: str, **info: Any) -> None:
        """Note an event (release, catch, settled, penalty) at simulated time ``t``."""
        self.events.append({"t": round(t, 6), "type": kind, **info})

    def to_dict(self) -> dict[str, Any]:
        """The recording as a JSON-friendly dict."""
        n = len(self.bodies)
        frames = [[t, row + [None] * (n - len(row))] for t, row in self.frames]
        return {"format": self.FORMAT, "version": self.VERSION, "rate_hz": self.rate_hz, **self.meta,
                "bodies": self.bodies, "events": self.events, "frames": frames}

    def save(self, path: str) -> None:
        """Write the recording as JSON."""
        import json
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh, separators=(",", ":"))


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


def _metres(x: float) -> str:
    """A length (m) for a message: millimetre precision, or 3 significant digits for an absurd one (1e308 m
    printed with ``.3f`` is a 309-digit number)."""
    return f"{x:.3f}" if abs(x) < 1e6 else f"{x:.3g}"


class SunTable:
    """A Stonehenge-and-the-Sun table simulated in its own PyBullet DIRECT connection.

    Use :meth:`from_layout`; close with :meth:`close` (or a ``with`` block).
    """

    def __init__(self, layout: Layout, stones: Iterable[StoneState] = (), next_id: int | None = None) -> None:
        self.layout = layout
        self.table = layout.table
        self.ball = layout.ball
        self.physics = layout.physics
        self.shapes = layout.shapes
        self._states: dict[int, StoneState] = {s.id: s for s in sorted(stones, key=lambda s: s.id)}
        self._next_id = next_id if next_id is not None else (max(self._states, default=-1) + 1)
        self._cid = p.connect(p.DIRECT)
        self._bodies: dict[int, int] = {}
        self._ball_body: int | None = None
        self._dirty = True
        self._base_body = -1

    # ---- construction ---------------------------------------------------------------------

    @classmethod
    def from_layout(cls, layout: Layout, preset: str | None = None, settle_s: float = 0.5) -> "SunTable":
        """Build a table with the layout's stones at their nominal poses, then let it settle.

        Stones built in exact contact shift by up to 0.3 mm in the first 0.1 s (contacts finding
        their depth), then stay put; the settled poses are the table's starting state, so later
        drift measures creep, not that start-up transient.

        Args:
            layout: a validated layout.
            preset: ``"fast"`` or ``"reference"``; default the layout's ``[physics] preset``.
            settle_s: simulated time (s) with every stone awake before reading the poses back; 0
                keeps the nominal poses.

        Raises:
            ScenarioError: for an unknown preset.
        """
        if preset is not None:
            layout = layout.with_preset(preset)
        R = layout.table.ring_radius
        states: list[StoneState] = []
        by_index: dict[int, StoneState] = {}
        for i, s in enumerate(layout.stones):
            shp = layout.shapes[s.shape]
            a = s.angle_rad
            if s.level == 1:
                st = StoneState(i, s.shape, "stand", (), (R * math.cos(a), R * math.sin(a), 0.5 * shp.height),
                                _quat_yaw(a))
            else:
                below = next(j for j, t in enumerate(layout.stones)
                             if t.level == 1 and abs(((t.angle_deg - s.angle_deg + 180) % 360) - 180) <= 1e-6)
                h1 = layout.shapes[layout.stones[below].shape].height
                st = StoneState(i, s.shape, "stack", (below,), (R * math.cos(a), R * math.sin(a), h1 + 0.5 * shp.height),
                                _quat_yaw(a))
            by_index[i] = st
        # Level-2 stones sit on the level-1 stone; gates rest on the top of each position.
        top_of = {i: i for i, s in enumerate(layout.stones) if s.level == 1}
        for st in by_index.values():
            if st.role == "stack":
                top_of[st.supports[0]] = st.id
        states.extend(by_index.values())
        n = len(layout.stones)
        table = cls(layout, states, n + len(layout.gates))
        for k, g in enumerate(layout.gates):
            sup = (top_of[g.between[0]], top_of[g.between[1]])
            pos, quat = table._gate_pose(g.shape, sup, ZERO_PLACE, drop=0.0)
            table._states[n + k] = StoneState(n + k, g.shape, "gate", sup, pos, quat)
        table._states = dict(sorted(table._states.items()))
        if settle_s > 0 and table._states:
            table.wake_all()
            table.step(int(round(settle_s * table.physics.hz)))
            for sid, (pos, quat) in table.read_poses().items():
                table._states[sid] = replace(table._states[sid], pos=pos, quat=quat)
            table._dirty = True
        return table

    def __enter__(self) -> "SunTable":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect the PyBullet client (idempotent)."""
        if self._cid is not None and self._cid >= 0:
            try:
                p.disconnect(self._cid)
            except p.error:
                pass
            self._cid = -1

    def __del__(self) -> None:  # pragma: no cover - best effort cleanup
        try:
            self.close()
        except Exception:
            pass

    @property
    def preset(self) -> str:
        """The fidelity preset of this table."""
        return self.physics.preset

    @property
    def client(self) -> int:
        """The PyBullet physics client id (for tests and the viewer)."""
        return self._cid

    # ---- state --------------------------------------------------------------------------

    def stones(self) -> list[StoneState]:
        """The stones on the table (pose-level state), by id."""
        return list(self._states.values())

    def stone(self, stone_id: int) -> StoneState:
        """One stone's state.

        Raises:
            KeyError: no such stone on the table.
        """
        return self._states[stone_id]

    def stone_poses(self) -> dict[int, tuple[tuple[float, float, float], tuple[float, float, float, float]]]:
        """Position and orientation of every stone, by id."""
        return {k: (s.pos, s.quat) for k, s in self._states.items()}

    def snapshot(self) -> TableSnapshot:
        """An immutable copy of the pose-level state (cheap; no physics)."""
        return TableSnapshot(tuple(self._states.values()), self._next_id)

    def restore(self, snap: TableSnapshot) -> None:
        """Return to a snapshot; the world is rebuilt before the next simulation."""
        self._states = {s.id: s for s in snap.stones}
        self._next_id = snap.next_id
        self._dirty = True

    def copy(self, preset: str | None = None) -> "SunTable":
        """An independent table (own PyBullet connection) with the same state; close it when done."""
        layout = self.layout if preset is None else self.layout.with_preset(preset)
        return SunTable(layout, self._states.values(), self._next_id)

    def remove_stone(self, stone_id: int) -> StoneState:
        """Take a stone off the table (the rules layer's decision); returns its last state.

        Stones resting on it lose it as a support (physics decides at the next simulation).

        Raises:
            KeyError: no such stone.
        """
        st = self._states.pop(stone_id)
        self._dirty = True
        return st

    # ---- ring view ------------------------------------------------------------------------

    def positions(self) -> list[Pos]:
        """The ring positions from the current poses, sorted by angle (``Pos.ids`` bottom first)."""
        on: dict[int, list[StoneState]] = {}
        for s in self._states.values():
            if s.role == "stack" and s.supports:
                on.setdefault(s.supports[0], []).append(s)
        out = []
        for s in self._states.values():
            if s.role != "stand":
                continue
            shp = self.shapes[s.shape]
            top_id, width, depth = -1, shp.width, shp.depth
            top = self._top_z(s)
            for t in on.get(s.id, []):
                tshp = self.shapes[t.shape]
                top_id = t.id
                width, depth = max(width, tshp.width), max(depth, tshp.depth)
                top = max(top, self._top_z(t))
            out.append(Pos(s.id, s.angle, math.hypot(s.pos[0], s.pos[1]), width, depth, top, top_id))
        out.sort(key=lambda q: q.angle)
        return out

    def gaps(self, positions: list[Pos] | None = None) -> Ring:
        """The ring (``sim.sun.ring.Ring``: gaps, widths, gates' undersides) from the current poses.
        A gate is keyed by the bottom stone ids of its supports, counter-clockwise first."""
        pos = self.positions() if positions is None else positions
        n = len(pos)
        k_of = {i: k for k, q in enumerate(pos) for i in q.ids}
        gates: dict[tuple[int, int], float] = {}
        for s in self._states.values():
            if s.role == "gate" and len(s.supports) == 2 and all(x in k_of for x in s.supports):
                ka, kb = k_of[s.supports[0]], k_of[s.supports[1]]
                if (ka + 1) % n != kb or (n == 2 and (pos[kb].angle - pos[ka].angle) % TAU > math.pi):
                    ka, kb = kb, ka  # counter-clockwise first; with two positions, across the short gap
                gates[(pos[ka].id, pos[kb].id)] = s.pos[2] - 0.5 * self.shapes[s.shape].lintel_thickness
        return Ring(pos, gates)

    def to_layout(self) -> Layout:
        """The layout-level description of the table as it stands now (angles read from the poses).

        Level-1 stones come first (by angle), then stacks at their support's angle, then gates
        between the level-1 stones of their positions. The result is not re-validated: stones moved
        by physics may sit closer than a layout file allows. ``layout.dump_layout_toml`` writes it.
        """
        from sim.sun.layout import GateSpec, StoneSpec

        pos = self.positions()
        index: dict[int, int] = {}
        stones: list[StoneSpec] = []
        for q in pos:
            index[q.ids[0]] = len(stones)
            stones.append(StoneSpec(self._states[q.ids[0]].shape, math.degrees(q.angle), 1))
        for q in pos:
            for sid in q.ids[1:]:
                index[sid] = len(stones)
                stones.append(StoneSpec(self._states[sid].shape, math.degrees(q.angle), 2))
        bottom = {i: q.ids[0] for q in pos for i in q.ids}
        gates = [GateSpec(s.shape, (index[bottom[s.supports[0]]], index[bottom[s.supports[1]]]))
                 for s in self._states.values()
                 if s.role == "gate" and len(s.supports) == 2 and all(i in bottom for i in s.supports)]
        return replace(self.layout, stones=tuple(stones), gates=tuple(gates))

    def top_of(self, stone_id: int) -> int:
        """The id of the top stone of the position whose level-1 stone is ``stone_id`` (or itself)."""
        for s in self._states.values():
            if s.role == "stack" and s.supports and s.supports[0] == stone_id:
                return s.id
        return stone_id

    def _top_z(self, s: StoneState) -> float:
        """Height (m) of the highest point of a stone in its current pose."""
        return s.pos[2] + self._vertical_extent(s)

    def _vertical_extent(self, s: StoneState) -> float:
        """Half of the stone's extent along world z in its current orientation (m)."""
        shp = self.shapes[s.shape]
        r0, r1, r2 = _z_row(s.quat)
        return 0.5 * (abs(r0) * shp.depth + abs(r1) * shp.width + abs(r2) * shp.height)

    # ---- world building -------------------------------------------------------------------

    def ensure_world(self) -> None:
        """Rebuild the PyBullet world from the pose-level state if it changed since the last build."""
        if self._dirty:
            self.rebuild()

    def rebuild(self) -> None:
        """Reset the simulation and create the base and every stone at its recorded pose, at rest.

        At the ``fast`` preset stones start asleep (they wake when touched).
        """
        c = self._cid
        ph = self.physics
        p.resetSimulation(physicsClientId=c)
        p.setPhysicsEngineParameter(fixedTimeStep=ph.dt, numSolverIterations=ph.iterations, numSubSteps=0,
                                    deterministicOverlappingPairs=1, contactBreakingThreshold=ph.contact_threshold,
                                    physicsClientId=c)
        p.setGravity(0.0, 0.0, -ph.gravity, physicsClientId=c)
        self._wood_mu = math.sqrt(ph.friction_wood_wood)
        self._steel_mu = ph.friction_steel_wood / self._wood_mu
        self._rest = math.sqrt(ph.restitution)
        t = self.table
        # The disc collides as its circumscribed square (a box): Bullet's box-cylinder and box-convex-hull
        # contacts (GJK/EPA) left a block lying on its broad face stuck 4 mm deep on two contact points,
        # spinning for ever; box-box contacts are robust. Only a stone whose centre is already past the
        # disc's edge can feel the difference, and that stone is judged pushed off by its centre.
        base_shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=[t.base_radius, t.base_radius,
                                                                     0.5 * t.base_thickness], physicsClientId=c)
        self._base_body = p.createMultiBody(0.0, base_shape, -1, [0.0, 0.0, -0.5 * t.base_thickness],
                                            physicsClientId=c)
        p.changeDynamics(self._base_body, -1, lateralFriction=self._wood_mu, restitution=self._rest,
                         frictionAnchor=1, physicsClientId=c)
        # The table the base stands on: a stone pushed off lands there and comes to rest instead of
        # falling for ever (which would keep the settling loop running to its time limit).
        # (A box, not GEOM_PLANE: a stone lying on Bullet's static plane sank 4 mm and spun for ever.)
        floor_shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=[1.0, 1.0, 0.05], physicsClientId=c)
        self._floor_body = p.createMultiBody(0.0, floor_shape, -1, [0.0, 0.0, -t.base_thickness - 0.05],
                                             physicsClientId=c)
        p.changeDynamics(self._floor_body, -1, lateralFriction=self._wood_mu, restitution=self._rest,
                         frictionAnchor=1, physicsClientId=c)
        self._shape_ids: dict[str, int] = {}
        self._bodies = {}
        self._ball_body = None
        # One createMultiBody call per shape (batchPositions), then each stone's pose: five times
        # faster than a call per stone (a world is rebuilt before every physics call), and as
        # deterministic (the same states always build the same world in the same order).
        by_shape: dict[str, list[StoneState]] = {}
        for s in self._states.values():
            by_shape.setdefault(s.shape, []).append(s)
        for shape in sorted(by_shape):
            group = by_shape[shape]
            for s, b in zip(group, self._create_stones(shape, [s.pos for s in group])):
                p.resetBasePositionAndOrientation(b, list(s.pos), list(s.quat), physicsClientId=c)
                self._setup_stone(b, asleep=ph.sleeping)
                self._bodies[s.id] = b
        self._ball_body = self._create_ball()
        self._dirty = False

    def _shape_id(self, shape: str) -> int:
        if shape not in self._shape_ids:
            shp = self.shapes[shape]
            self._shape_ids[shape] = p.createCollisionShape(
                p.GEOM_BOX, halfExtents=[0.5 * shp.depth, 0.5 * shp.width, 0.5 * shp.height], physicsClientId=self._cid)
        return self._shape_ids[shape]

    def _create_stones(self, shape: str, positions: Sequence[Sequence[float]]) -> list[int]:
        """Bodies for stones of one shape at ``positions`` (upright; the caller sets each pose)."""
        if len(positions) == 1:
            return [p.createMultiBody(self.shapes[shape].mass, self._shape_id(shape), -1, list(positions[0]),
                                      useMaximalCoordinates=True, physicsClientId=self._cid)]
        ids = p.createMultiBody(self.shapes[shape].mass, self._shape_id(shape), -1, [0.0, 0.0, 0.0],
                                useMaximalCoordinates=True, batchPositions=[list(x) for x in positions],
                                physicsClientId=self._cid)
        return list(ids)

    def _create_stone(self, shape: str, pos: Sequence[float], quat: Sequence[float], asleep: bool) -> int:
        c = self._cid
        b = p.createMultiBody(self.shapes[shape].mass, self._shape_id(shape), -1, list(pos), list(quat),
                              useMaximalCoordinates=True, physicsClientId=c)
        self._setup_stone(b, asleep)
        return b

    def _setup_stone(self, b: int, asleep: bool) -> None:
        c = self._cid
        p.changeDynamics(b, -1, lateralFriction=self._wood_mu, restitution=self._rest, linearDamping=0.0,
                         angularDamping=0.0, frictionAnchor=1,
                         activationState=(p.ACTIVATION_STATE_ENABLE_SLEEPING if self.physics.sleeping
                                          else p.ACTIVATION_STATE_DISABLE_SLEEPING), physicsClientId=c)
        if asleep:
            p.changeDynamics(b, -1, activationState=p.ACTIVATION_STATE_SLEEP, physicsClientId=c)

    def _create_ball(self) -> int:
        """Create the ball on its string, hanging at rest, with collisions off (part of the world
        build, so that a pass only has to enable and release it)."""
        c, b = self._cid, self.ball
        L = b.string_length
        sph = p.createCollisionShape(p.GEOM_SPHERE, radius=b.radius, collisionFramePosition=[0, 0, -L],
                                     physicsClientId=c)
        body = p.createMultiBody(
            baseMass=0.0, baseCollisionShapeIndex=-1, baseVisualShapeIndex=-1, basePosition=[0.0, 0.0, b.pivot_z],
            linkMasses=[b.mass], linkCollisionShapeIndices=[sph], linkVisualShapeIndices=[-1],
            linkPositions=[[0, 0, 0]], linkOrientations=[[0, 0, 0, 1]], linkInertialFramePositions=[[0, 0, -L]],
            linkInertialFrameOrientations=[[0, 0, 0, 1]], linkParentIndices=[0],
            linkJointTypes=[p.JOINT_SPHERICAL], linkJointAxis=[[0, 0, 1]], physicsClientId=c)
        # The joint's default motor would act as a brake; damping would drain the swing.
        p.setJointMotorControlMultiDof(body, 0, p.POSITION_CONTROL, targetPosition=[0, 0, 0, 1],
                                       targetVelocity=[0, 0, 0], positionGain=0, velocityGain=0, force=[0, 0, 0],
                                       physicsClientId=c)
        p.changeDynamics(body, -1, linearDamping=0.0, angularDamping=0.0, physicsClientId=c)
        # Two calls: PyBullet ignores lateralFriction on a multibody link when activationState comes
        # in the same changeDynamics call (the ball kept the default 0.5 whatever friction_steel_wood
        # said; tests/sun/test_sun_table_physics.py reads it back).
        p.changeDynamics(body, 0, linearDamping=0.0, angularDamping=0.0, jointDamping=0.0,
                         lateralFriction=self._steel_mu, restitution=self._rest, physicsClientId=c)
        p.changeDynamics(body, 0, activationState=p.ACTIVATION_STATE_DISABLE_SLEEPING, physicsClientId=c)
        p.setCollisionFilterGroupMask(body, 0, 0, 0, physicsClientId=c)
        return body

    def spawn_ball(self, aim_rad: float, horizontal_m: float, push_mps: tuple[float, float] = (0.0, 0.0)) -> int:
        """Hold the ball at ``horizontal_m`` from the point under the pivot and let it go.

        Args:
            aim_rad: azimuth of the release point (rad).
            horizontal_m: horizontal distance of the ball's centre from the axis (m).
            push_mps: horizontal velocity given at release (m/s, world x, y).

        Returns:
            The ball's body id.

        Raises:
            InputError: if the distance is not shorter than the string.
        """
        self.ensure_world()
        c, b = self._cid, self.ball
        L = b.string_length
        if not 0.0 <= horizontal_m < L:
            raise InputError(f"release point {_metres(horizontal_m)} m from the centre must be shorter than the "
                             f"string ({L} m)", key="release")
        if self._ball_body is None:
            self._ball_body = self._create_ball()
        body = self._ball_body
        p.setCollisionFilterGroupMask(body, 0, 1, 0xFFFF, physicsClientId=c)
        theta = math.asin(horizontal_m / L)
        # Rotate the hanging string (-z) by theta about the horizontal axis perpendicular to the aim.
        ux, uy = math.sin(aim_rad), -math.cos(aim_rad)
        s2 = math.sin(0.5 * theta)
        q = (ux * s2, uy * s2, 0.0, math.cos(0.5 * theta))
        # Angular velocity giving the push at the ball: w = r x v / |r|^2, expressed in the link frame.
        r = np.array([horizontal_m * math.cos(aim_rad), horizontal_m * math.sin(aim_rad), -L * math.cos(theta)])
        v = np.array([push_mps[0], push_mps[1], 0.0])
        w_world = np.cross(r, v) / float(r @ r)
        w_local = _matrix(q).T @ w_world
        p.resetJointStateMultiDof(body, 0, targetValue=list(q), targetVelocity=[float(x) for x in w_local],
                                  physicsClientId=c)
        return body

    def ball_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The ball's centre position and velocity (m, m/s, world).

        Raises:
            RuntimeError: no ball in the world.
        """
        if self._ball_body is None:
            raise RuntimeError("no ball in the world")
        s = p.getLinkState(self._ball_body, 0, computeLinkVelocity=1, physicsClientId=self._cid)
        return np.array(s[0]), np.array(s[6])

    def remove_ball(self) -> None:
        """Take the ball out of the world (the catch)."""
        if self._ball_body is not None:
            p.removeBody(self._ball_body, physicsClientId=self._cid)
            self._ball_body = None

    def step(self, n: int = 1) -> None:
        """Advance the world ``n`` steps without any bookkeeping (tests, benchmarks)."""
        self.ensure_world()
        c = self._cid
        for _ in range(n):
            p.stepSimulation(physicsClientId=c)

    # ---- the pass -------------------------------------------------------------------------

    def pass_ball(self, aim_rad: float, release_m: float | None = None, noise: PassNoise = ZERO_PASS,
                  record: PoseRecorder | None = None, remove_penalties: bool = True) -> PassResult:
        """Release the ball from rest at an aim and release distance, simulate, judge, read back.

        Args:
            aim_rad: intended azimuth of the release point (rad); the ball swings through the centre
                towards ``aim + pi``.
            release_m: intended horizontal distance of the release point outside the base edge (m);
                default, and least allowed, the hand span.
            noise: the thrower's errors (:meth:`Thrower.draw_pass`), added to aim and release, and a
                push at release.
            record: a recorder to fill with per-frame poses.
            remove_penalties: take penalty stones off the table (the rules' default).

        Returns:
            A :class:`PassResult`; the table's state is updated to the stones' new poses.

        Raises:
            InputError: aim not finite, release shorter than the hand span, or the release point
                beyond the string's reach.
        """
        t0 = time.perf_counter()
        if not math.isfinite(aim_rad):
            raise InputError(f"aim must be a finite angle, not {aim_rad!r}", key="aim")
        hand = self.table.hand_span
        release = hand if release_m is None else float(release_m)
        if not math.isfinite(release) or release < hand - 1e-12:
            raise InputError(f"release must be at least the hand span ({hand} m) outside the base edge, not "
                             f"{_metres(release)} m", key="release")
        if self.table.base_radius + release >= self.ball.string_length:
            raise InputError(f"release {_metres(release)} m outside the base edge puts the ball beyond the string's "
                             f"reach; allowed: from {hand} m to less than "
                             f"{self.ball.string_length - self.table.base_radius:.3f} m", key="release")
        start = self.snapshot()
        res = self._run_pass(aim_rad, release, noise, record, remove_penalties)
        if res.invalid and self.preset != "reference":
            # Re-run the same pass from the same state at the reference preset (docs/sun-physics.md).
            with SunTable(self.layout.with_preset("reference"), start.stones, start.next_id) as ref:
                res2 = ref._run_pass(aim_rad, release, noise, None, remove_penalties)
                res2.invalid = True
                res2.rerun_at_reference = True
                self._states = dict(ref._states)
                self._next_id = ref._next_id
                self._dirty = True
                res = res2
        res.wall_s = time.perf_counter() - t0
        return res

    def _run_pass(self, aim_rad: float, release: float, noise: PassNoise, record: PoseRecorder | None,
                  remove_penalties: bool) -> PassResult:
        self.ensure_world()
        c = self._cid
        ph, t, ball = self.physics, self.table, self.ball
        res = PassResult(aim_rad, release, noise, preset=self.preset)
        start_states = dict(self._states)
        start_pos = self.positions()
        start_gaps = self.gaps(start_pos)

        a = aim_rad + noise.aim_rad
        rho0 = t.base_radius + release + noise.release_m
        # A hand never lets go over the base: a release error that large is clamped to one ball
        # diameter outside the edge (and the string must stay slanted).
        rho = max(t.base_radius + ball.diameter, min(rho0, 0.95 * ball.string_length))
        body = self.spawn_ball(a, rho, noise.push_mps)
        dirx, diry = -math.cos(a), -math.sin(a)  # the swing direction, through the centre
        m, g = ball.mass, ph.gravity
        pos0 = p.getLinkState(body, 0, computeLinkVelocity=1, physicsClientId=c)
        e0 = 0.5 * m * sum(v * v for v in pos0[6]) + m * g * pos0[0][2]
        e_low = m * g * (ball.pivot_z - ball.string_length)
        e_tol = ph.energy_tolerance * max(e0 - e_low, 1e-6) + 1e-7

        hz = ph.hz
        chunk = max(1, hz // 30)  # read the ball about every 1/30 s: the hot loop is stepSimulation
        frame_every = 0
        if record is not None:
            # Recording reads frames between the checks, never changes when the checks happen:
            # a recorded pass is the same pass as an unrecorded one (a study's game and its replay).
            frame_every = max(1, round(hz / record.rate_hz))
            self._record_setup(record)
            self._record_frame(record, 0.0)
            record.event(0.0, "release", aim_deg=math.degrees(a), horizontal_m=rho)
        max_steps = int(ph.max_swing_s * hz)
        min_steps = int(0.1 * hz)
        R = t.ring_radius
        px, py = pos0[0][0], pos0[0][1]
        prev_r = math.hypot(px, py)
        step = p.stepSimulation
        get = p.getLinkState
        steps = 0
        invalid = False
        vx = vy = 0.0
        z = pos0[0][2]
        clock = time.perf_counter
        while True:
            if frame_every:
                for k in range(1, chunk + 1):
                    t_step = clock()
                    step(physicsClientId=c)
                    _STEPPING[0] += clock() - t_step
                    if (steps + k) % frame_every == 0:
                        self._record_frame(record, (steps + k) / hz)
            else:
                t_step = clock()
                for _ in range(chunk):
                    step(physicsClientId=c)
                _STEPPING[0] += clock() - t_step
            steps += chunk
            s = get(body, 0, 1, physicsClientId=c)
            (x, y, z), (vx, vy, vz) = s[0], s[6]
            e = 0.5 * m * (vx * vx + vy * vy + vz * vz) + m * g * z
            if not (math.isfinite(e) and math.isfinite(x) and math.isfinite(y)) or e > e0 + e_tol:
                invalid = True
                break
            r = math.hypot(x, y)
            if (r - R) * (prev_r - R) < 0.0:
                f = (prev_r - R) / (prev_r - r)
                cx, cy = px + f * (x - px), py + f * (y - py)
                res.crossings.append(Crossing(wrap_angle(math.atan2(cy, cx)), r < prev_r, (steps - chunk * (1 - f)) / hz))
            px, py, prev_r = x, y, r
            if steps >= min_steps and vx * dirx + vy * diry <= 0.0:
                break
            if steps >= max_steps:
                break
        res.swing_steps = steps
        res.catch_pos = (px, py, z)
        res.reached_far_side = (not invalid and px * dirx + py * diry > 0.0 and prev_r > t.base_radius)
        self.remove_ball()
        if record is not None:
            record.event(steps / hz, "catch", pos=[px, py, z])
        if not invalid:
            settle_steps, settled = self._settle(record, steps)
            steps += settle_steps
            res.settled = settled
        res.steps = steps
        res.sim_time_s = steps / hz
        if invalid:
            res.invalid = True
            self._dirty = True
            return res

        # Judge and read back.
        new_states, penalties, bad = self._read_and_judge(start_states)
        if bad:
            res.invalid = True
            self._dirty = True
            return res
        if record is not None:
            for pen in penalties:
                record.event(res.sim_time_s, "penalty", stone=pen.stone, cause=pen.cause)
        res.penalties = penalties
        if remove_penalties:
            for pen in penalties:
                new_states.pop(pen.stone, None)
        self._states = self._fix_supports(new_states)
        self._dirty = True
        res.final = list(self._states.values())

        inbound = [x for x in res.crossings if x.inbound]
        outbound = [x for x in res.crossings if not x.inbound]
        aim_gap = start_gaps.gap_of_angle(wrap_angle(aim_rad))
        opp_gap = start_gaps.gap_of_angle(wrap_angle(aim_rad + math.pi))
        # "Through" means the centre crossed the opening at least a ball radius from either side, so
        # a ball forcing its way through a gap narrower than itself does not count.
        margin = ball.radius / R
        res.through_aim_gap = bool(inbound) and (not start_pos or inside_opening(start_gaps, aim_gap, inbound[0].angle, margin))
        res.through_opposite_gap = bool(outbound) and (not start_pos or inside_opening(start_gaps, opp_gap, outbound[0].angle, margin))
        return res

    def _settle(self, record: PoseRecorder | None, t_steps: int) -> tuple[int, bool]:
        """Step until every stone is at rest at two consecutive checks, or the time limit."""
        c = self._cid
        ph = self.physics
        hz = ph.hz
        limit = int(ph.settle_time_limit_s * hz)
        chunk = max(1, hz // 20)
        frame_every = 0
        if record is not None:
            frame_every = max(1, round(hz / record.rate_hz))
            chunk = 1
        step = p.stepSimulation
        done = 0
        prev = self._all_at_rest()
        clock = time.perf_counter
        while done < limit:
            t_step = clock()
            for _ in range(chunk):
                step(physicsClientId=c)
            _STEPPING[0] += clock() - t_step
            done += chunk
            if frame_every and (t_steps + done) % frame_every == 0:
                self._record_frame(record, (t_steps + done) / hz)
            if record is not None and done % max(1, hz // 20) != 0:
                continue
            now = self._all_at_rest()
            if now and prev:
                if record is not None:
                    record.event((t_steps + done) / hz, "settled")
                return done, True
            prev = now
        return done, False

    def settle(self, max_s: float | None = None) -> tuple[int, bool]:
        """Let the table settle (no ball) and read the poses back, without judging.

        Returns:
            (steps, settled).
        """
        self.ensure_world()
        if max_s is not None:
            saved = self.physics
            self.physics = replace(saved, settle_time_limit_s=max_s)
        try:
            n, ok = self._settle(None, 0)
        finally:
            if max_s is not None:
                self.physics = saved
        for sid, b in self._bodies.items():
            pos, quat = p.getBasePositionAndOrientation(b, physicsClientId=self._cid)
            self._states[sid] = replace(self._states[sid], pos=tuple(pos), quat=tuple(quat))
        self._dirty = True
        return n, ok

    def wake_all(self) -> None:
        """Wake every stone and keep it awake until the next rebuild (settle and bump tests:
        sleeping stones would trivially never drift)."""
        self.ensure_world()
        for b in self._bodies.values():
            p.changeDynamics(b, -1, activationState=p.ACTIVATION_STATE_DISABLE_SLEEPING, physicsClientId=self._cid)
            p.changeDynamics(b, -1, activationState=p.ACTIVATION_STATE_WAKE_UP, physicsClientId=self._cid)

    def read_poses(self) -> dict[int, tuple[tuple[float, float, float], tuple[float, float, float, float]]]:
        """Poses straight from the live world (no state change), by stone id."""
        self.ensure_world()
        out = {}
        for sid, b in self._bodies.items():
            pos, quat = p.getBasePositionAndOrientation(b, physicsClientId=self._cid)
            out[sid] = (tuple(pos), tuple(quat))
        return out

    def shake(self, vx: float, vy: float, remove_penalties: bool = True) -> tuple[list[Penalty], bool]:
        """Jerk the base: every stone gets horizontal velocity (vx, vy) relative to the base at once
        (a base jerked by (-vx, -vy), seen from the base), then the table settles and is judged.

        Returns:
            (penalties, settled). The state is updated like after a pass.
        """
        self.ensure_world()
        before = dict(self._states)
        self.wake_all()
        for b in self._bodies.values():
            p.resetBaseVelocity(b, [vx, vy, 0.0], [0.0, 0.0, 0.0], physicsClientId=self._cid)
        _, settled = self._settle(None, 0)
        new_states, penalties, bad = self._read_and_judge(before)
        if bad:
            raise RuntimeError("non-finite state after a shake")
        if remove_penalties:
            for pen in penalties:
                new_states.pop(pen.stone, None)
        self._states = self._fix_supports(new_states)
        self._dirty = True
        return penalties, settled

    def _all_at_rest(self) -> bool:
        c = self._cid
        lin2 = self.physics.rest_linear_mps ** 2
        ang2 = self.physics.rest_angular_rps ** 2
        vel = p.getBaseVelocity
        for b in self._bodies.values():
            (vx, vy, vz), (wx, wy, wz) = vel(b, physicsClientId=c)
            if vx * vx + vy * vy + vz * vz > lin2 or wx * wx + wy * wy + wz * wz > ang2:
                # A stone that has fallen off the base is already lost: it need not come to rest.
                if p.getBasePositionAndOrientation(b, physicsClientId=c)[0][2] < 0.0:
                    continue
                return False
        return True

    # ---- judging ------------------------------------------------------------------------

    def _read_and_judge(self, before: dict[int, StoneState]
                        ) -> tuple[dict[int, StoneState], list[Penalty], bool]:
        """Read every stone's pose; judge each against ``before``. Returns (states, penalties, non-finite)."""
        c = self._cid
        now: dict[int, StoneState] = {}
        for sid, b in self._bodies.items():
            pos, quat = p.getBasePositionAndOrientation(b, physicsClientId=c)
            if not all(math.isfinite(v) for v in pos + quat):
                return {}, [], True
            now[sid] = replace(self._states[sid], pos=tuple(pos), quat=tuple(quat))
        penalties = []
        for sid, st in now.items():
            cause = self._judge(st, before.get(sid, st), now)
            if cause is not None:
                penalties.append(Penalty(sid, st.shape, cause))
        return now, penalties, False

    def _judge(self, st: StoneState, was: StoneState, now: dict[int, StoneState]) -> Cause | None:
        """Why ``st`` is lost, or ``None`` (docs/rules-sun.md penalties)."""
        t = self.table
        if st.pos == was.pos and st.quat == was.quat and all(
                now[i].pos == self._states[i].pos for i in st.supports if i in now and i in self._states):
            return None  # untouched (a sleeping stone reads back bit for bit)
        x, y, z = st.pos
        if math.hypot(x, y) > t.base_radius or z < 0.0:
            return "pushed_off"
        if st.role in ("stack", "gate") and not self._rests_on_supports(st, now):
            return "fell_from_support"
        # Tilt: angle between the axis that was vertical before and the vertical now.
        v_local = _z_row(was.quat)  # R^T e_z: the local axis that pointed up
        m1 = _z_row(st.quat)
        cos_tilt = m1[0] * v_local[0] + m1[1] * v_local[1] + m1[2] * v_local[2]
        if cos_tilt < math.cos(math.radians(t.topple_tilt_deg)):
            return "toppled"
        return None

    def _rests_on_supports(self, st: StoneState, now: dict[int, StoneState]) -> bool:
        """Whether a stacked stone or gate still rests on its supports (poses ``now``)."""
        sups = [now.get(i) for i in st.supports]
        if any(s is None for s in sups):
            return False
        bottom = st.pos[2] - self._vertical_extent(st)
        if st.role == "stack":
            sup = sups[0]
            assert sup is not None
            top = self._top_z(sup)
            if abs(bottom - top) > SUPPORT_TOL_M:
                return False
            # The stone's centre must still be over the support's top face.
            m = _matrix(sup.quat)
            d = m.T @ (np.array(st.pos) - np.array(sup.pos))
            shp = self.shapes[sup.shape]
            return abs(d[0]) <= 0.5 * shp.depth + SUPPORT_XY_TOL_M and abs(d[1]) <= 0.5 * shp.width + SUPPORT_XY_TOL_M
        # A gate: its bottom must lie on both tops, and its axis must still reach over each support.
        shp = self.shapes[st.shape]
        m = _matrix(st.quat)
        axis = m[:, 2]  # the lintel's long axis (the standing height axis)
        for sup in sups:
            assert sup is not None
            if abs(bottom - self._top_z(sup)) > SUPPORT_TOL_M:
                return False
            rel = np.array(sup.pos[:2]) - np.array(st.pos[:2])
            along = abs(float(rel @ axis[:2]))
            if along > 0.5 * shp.lintel_length + 0.5 * max(self.shapes[sup.shape].width, self.shapes[sup.shape].depth):
                return False
        return True

    def _fix_supports(self, states: dict[int, StoneState]) -> dict[int, StoneState]:
        """Drop references to stones no longer on the table; an unsupported stone resting on the base
        becomes a standing stone."""
        out = {}
        for sid, s in states.items():
            if s.supports and not all(i in states for i in s.supports):
                if s.role == "stack" and abs(s.pos[2] - 0.5 * self.shapes[s.shape].height) < SUPPORT_TOL_M:
                    s = replace(s, role="stand", supports=())
                else:
                    s = replace(s, supports=tuple(i for i in s.supports if i in states))
            out[sid] = s
        return out

    # ---- placement ------------------------------------------------------------------------

    def place_stone(self, shape: str, angle_rad: float, level: int = 1, noise: PlaceNoise = ZERO_PLACE) -> PlaceResult:
        """Stand a new stone on the base (level 1) or stack it on the position at ``angle_rad`` (level 2).

        Raises:
            InputError: unknown shape or level, or no position at that angle to stack on.
        """
        if level == 1:
            return self.stand_stone(shape, angle_rad, noise)
        if level == 2:
            pos = self.positions()
            best = min(pos, key=lambda q: abs((q.angle - angle_rad + math.pi) % TAU - math.pi), default=None)
            if best is None or abs((best.angle - angle_rad + math.pi) % TAU - math.pi) > math.radians(3.0):
                raise InputError(f"no standing stone at {math.degrees(angle_rad):.1f} degrees to stack on", key="angle")
            return self.stack_stone(shape, best.ids[0], noise)
        raise InputError(f"level must be 1 or 2, not {level!r}", key="level")

    def stand_stone(self, shape: str, angle_rad: float, noise: PlaceNoise = ZERO_PLACE,
                    stone_id: int | None = None) -> PlaceResult:
        """Stand a new stone on the base with its centre on the ring at ``angle_rad``, plus noise.

        ``stone_id`` gives the new stone a chosen id (the rules layer's); default the next free id.

        Raises:
            InputError: unknown shape, or ``stone_id`` already on the table.
        """
        shp = self._shape(shape)
        R = self.table.ring_radius
        along, across = noise.along_m, noise.across_m
        ca, sa = math.cos(angle_rad), math.sin(angle_rad)
        pos = ((R + across) * ca - along * sa, (R + across) * sa + along * ca, 0.5 * shp.height + PLACE_DROP_M)
        st = StoneState(self._new_id(stone_id), shape, "stand", (), pos, _quat_yaw(angle_rad + noise.yaw_rad))
        return self._place(st)

    def stack_stone(self, shape: str, on: int, noise: PlaceNoise = ZERO_PLACE,
                    stone_id: int | None = None) -> PlaceResult:
        """Stack a new stone on the standing stone ``on`` (which must carry nothing), plus noise.

        Raises:
            InputError: unknown shape, no such stone, the stone is not a free standing stone, or
                ``stone_id`` already on the table.
        """
        shp = self._shape(shape)
        sup = self._states.get(on)
        if sup is None or sup.role != "stand" or self.top_of(on) != on:
            raise InputError(f"stone {on} is not a standing stone with nothing on it", key="on")
        yaw = math.atan2(_matrix(sup.quat)[1, 0], _matrix(sup.quat)[0, 0])
        cy, sy = math.cos(yaw), math.sin(yaw)
        top = self._top_z(sup)
        pos = (sup.pos[0] + noise.across_m * cy - noise.along_m * sy, sup.pos[1] + noise.across_m * sy + noise.along_m * cy,
               top + 0.5 * shp.height + PLACE_DROP_M)
        st = StoneState(self._new_id(stone_id), shape, "stack", (on,), pos, _quat_yaw(yaw + noise.yaw_rad))
        return self._place(st)

    def make_gate(self, between: tuple[int, int], stone: int | None = None, shape: str | None = None,
                  noise: PlaceNoise = ZERO_PLACE, stone_id: int | None = None) -> PlaceResult:
        """Lay a stone across the tops of two positions.

        Args:
            between: two stone ids, each the level-1 stone or the top of a position.
            stone: an existing free standing stone (or stack top) to take and lay across (the rules'
                way); or ``None`` with ``shape`` to add a new stone (building layouts).
            shape: the new stone's shape when ``stone`` is ``None``.
            noise: placement errors: along the gate, across it, yaw.
            stone_id: id for a new stone (with ``shape``); default the next free id.

        Raises:
            InputError: bad ids, supports not distinct, or neither/both of ``stone`` and ``shape``.
        """
        a, b = between
        if a not in self._states or b not in self._states:
            raise InputError(f"no stones {a} and {b} on the table", key="between")
        sup = (self.top_of(a) if self._states[a].role == "stand" else a, self.top_of(b) if self._states[b].role == "stand" else b)
        if sup[0] == sup[1]:
            raise InputError("a gate needs two different supports", key="between")
        if (stone is None) == (shape is None):
            raise InputError("give either an existing stone or a shape for the gate", key="stone")
        if stone is not None:
            st0 = self._states.get(stone)
            if st0 is None or st0.role == "gate" or self.top_of(stone) != stone or stone in sup:
                raise InputError(f"stone {stone} cannot be taken for a gate (not a free standing stone or stack top)",
                                 key="stone")
            shape = st0.shape
            self.remove_stone(stone)
            sid = stone
        else:
            assert shape is not None  # exactly one of stone and shape was given (checked above)
            self._shape(shape)  # validates
            sid = self._new_id(stone_id)
        assert shape is not None
        pos, quat = self._gate_pose(shape, sup, noise, drop=PLACE_DROP_M)
        return self._place(StoneState(sid, shape, "gate", sup, pos, quat))

    def _new_id(self, stone_id: int | None) -> int:
        if stone_id is None:
            return self._next_id
        if stone_id in self._states or stone_id < 0:
            raise InputError(f"stone id {stone_id} is already on the table (or negative)", key="stone_id")
        return stone_id

    def _shape(self, shape: str) -> ShapeSpec:
        try:
            return self.shapes[shape]
        except KeyError:
            raise InputError(f"unknown shape {shape!r}", key="shape") from None

    def _gate_pose(self, shape: str, sup: tuple[int, int], noise: PlaceNoise, drop: float
                   ) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        shp = self.shapes[shape]
        s1, s2 = self._states[sup[0]], self._states[sup[1]]
        p1 = np.array([s1.pos[0], s1.pos[1], self._top_z(s1)])
        p2 = np.array([s2.pos[0], s2.pos[1], self._top_z(s2)])
        mid = 0.5 * (p1 + p2)
        chord = p2[:2] - p1[:2]
        cdir = chord / max(float(np.linalg.norm(chord)), 1e-12)
        yaw = math.atan2(cdir[1], cdir[0]) + noise.yaw_rad
        c_ = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        r_ = np.array([c_[1], -c_[0], 0.0])
        up = np.array([0.0, 0.0, 1.0])
        if shp.width <= shp.depth:  # thin along local y: y up, z along the chord, x = y cross z
            mat = np.column_stack([np.cross(up, c_), up, c_])
        else:                        # thin along local x: x up, z along the chord, y = z cross x
            mat = np.column_stack([up, np.cross(c_, up), c_])
        pos = (mid[0] + noise.along_m * c_[0] + noise.across_m * r_[0],
               mid[1] + noise.along_m * c_[1] + noise.across_m * r_[1],
               float(max(p1[2], p2[2])) + 0.5 * shp.lintel_thickness + drop)
        return pos, _quat_from_matrix(mat)

    def _place(self, st: StoneState) -> PlaceResult:
        """Add ``st`` to the world, settle, judge it and the others; keep it only if it stands."""
        t0 = time.perf_counter()
        self.ensure_world()
        c = self._cid
        before = dict(self._states)
        body = self._create_stone(st.shape, st.pos, st.quat, asleep=False)
        for other in self._bodies.values():
            if any(cp[8] < -1e-4 for cp in p.getClosestPoints(body, other, 0.0, physicsClientId=c)):
                p.removeBody(body, physicsClientId=c)
                return PlaceResult(st.id, False, "blocked", wall_s=time.perf_counter() - t0)
        self._bodies[st.id] = body
        self._states[st.id] = st
        self._next_id = max(self._next_id, st.id + 1)
        steps, _ = self._settle(None, 0)
        before[st.id] = replace(st, pos=(st.pos[0], st.pos[1], st.pos[2] - PLACE_DROP_M))
        new_states, penalties, bad = self._read_and_judge(before)
        res = PlaceResult(st.id, True, steps=steps, sim_time_s=steps / self.physics.hz)
        if bad:
            new_states = {k: v for k, v in before.items() if k != st.id}
            res.standing, res.cause = False, "invalid"
        own = [x for x in penalties if x.stone == st.id]
        if own:
            res.standing, res.cause = False, own[0].cause
        res.disturbed = [x for x in penalties if x.stone != st.id]
        for x in penalties:
            new_states.pop(x.stone, None)
        self._states = self._fix_supports(new_states)
        self._dirty = True
        res.state = self._states.get(st.id)
        res.wall_s = time.perf_counter() - t0
        return res

    # ---- recording ------------------------------------------------------------------------

    def _record_setup(self, rec: PoseRecorder) -> None:
        rec.meta.setdefault("preset", self.preset)
        rec.meta.setdefault("dt", self.physics.dt)
        rec.meta.setdefault("base", {"radius": self.table.base_radius, "thickness": self.table.base_thickness})
        for sid, s in self._states.items():
            shp = self.shapes[s.shape]
            rec.body(f"stone:{sid}", {"kind": "stone", "stone": sid, "shape": s.shape,
                                      "half_extents": [0.5 * shp.depth, 0.5 * shp.width, 0.5 * shp.height]})
        rec.body("ball", {"kind": "ball", "radius": self.ball.radius, "pivot": [0.0, 0.0, self.ball.pivot_z]})

    def _record_frame(self, rec: PoseRecorder | None, t: float) -> None:
        if rec is None:
            return
        c = self._cid
        poses: dict[str, list[float]] = {}
        for sid, b in self._bodies.items():
            pos, quat = p.getBasePositionAndOrientation(b, physicsClientId=c)
            poses[f"stone:{sid}"] = list(pos) + list(quat)
        if self._ball_body is not None:
            s = p.getLinkState(self._ball_body, 0, physicsClientId=c)
            poses["ball"] = list(s[0]) + list(s[1])
        rec.frame(t, poses)
