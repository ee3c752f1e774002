"""The PyBullet table's state at the level of poses, and how physics' outcome is judged (docs/rules-sun.md, penalties).

- :class:`~sim.sun.geometry.stone.Stone` (one stone: id, shape, role, the positions it rests on,
  pose; the record the rules share), :class:`Penalty` (a stone lost and why) and
  :class:`TableSnapshot` (the whole state, immutable): the canonical description of a table, from
  which :mod:`sim.sun.table.world` builds the PyBullet world.
- Judging (pure functions of poses and dimensions): :func:`judge` says why a stone is lost after a
  pass or placement (``pushed_off``: centre beyond the base edge or below its top;
  ``fell_from_support``: a stacked stone or gate no longer resting on its supports' tops;
  ``toppled``: tilted more than ``topple_tilt_deg``), :func:`fix_supports` tidies supports after
  losses, :func:`gate_pose` lays a lintel across two tops.
- What the table's operations report: :class:`TablePass` (a pass: penalties, the gaps the ball went
  through, cost; its :class:`Crossing` of the ring) and :class:`TablePlacement` (a placement).

Quaternions are (x, y, z, w) as in PyBullet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pybullet as p

from sim.core.quaternions import quat_from_matrix, quat_z_row
from sim.sun.table.layout import ShapeSpec, TableSpec
from sim.sun.geometry.ring import pose_bottom, pose_top
from sim.sun.geometry.stone import Stone, top_of
from sim.sun.players.thrower import ThrowNoise

Cause = Literal["toppled", "pushed_off", "fell_from_support"]

#: A supported stone whose bottom is further than this (m) from its supports' tops has fallen.
SUPPORT_TOL_M = 0.003
#: Horizontal slack (m) beyond a support's top face before a stacked stone counts as off it.
SUPPORT_XY_TOL_M = 0.002


# --------------------------------------------------------------------------------------------
# Rotation helpers
# --------------------------------------------------------------------------------------------


def rotation_matrix(q: Sequence[float]) -> np.ndarray:
    """The 3x3 rotation matrix of quaternion ``q`` (columns = images of the local axes)."""
    return np.array(p.getMatrixFromQuaternion(q)).reshape(3, 3)


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


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
class TableSnapshot:
    """An immutable copy of a table's pose-level state (see :meth:`SunTable.snapshot`)."""

    stones: tuple[Stone, ...]
    next_id: int


# --------------------------------------------------------------------------------------------
# Judging
# --------------------------------------------------------------------------------------------


def top_z(s: Stone, shapes: Mapping[str, ShapeSpec]) -> float:
    """Height (m) of the highest point of a stone in its current pose (the ring's :func:`pose_top`)."""
    return pose_top(s.pose, shapes[s.shape])


def under(st: Stone, stones: Mapping[int, Stone]) -> tuple[int, ...]:
    """The ids of the stones ``st`` touches from above: a stack's support, each position's top stone
    for a gate (``st.on`` names the positions by their bottom stones), none for a standing stone."""
    if st.role != "gate":
        return st.on
    vals = stones.values()
    return tuple(top_of(vals, b) for b in st.on)


def judge(st: Stone, was: Stone, now: Mapping[int, Stone], kept: Mapping[int, Stone],
          shapes: Mapping[str, ShapeSpec], table: TableSpec) -> Cause | None:
    """Why ``st`` (its pose read back ``now``) is lost, or ``None`` (docs/rules-sun.md penalties).

    Args:
        st: the stone as physics left it.
        was: the same stone before the pass or placement.
        now: every stone as physics left it, by id.
        kept: the table's state the world was built from, by id (an untouched stone whose
            supports did not move is not judged).
        shapes, table: dimensions.
    """
    if st.pose == was.pose and all(
            now[i].pos == kept[i].pos for i in under(st, kept) if i in now and i in kept):
        return None  # untouched (a sleeping stone reads back bit for bit)
    x, y, z = st.pos
    if math.hypot(x, y) > table.base_radius or z < 0.0:
        return "pushed_off"
    if st.role in ("stack", "gate") and not rests_on_supports(st, now, shapes):
        return "fell_from_support"
    # Tilt: angle between the axis that was vertical before and the vertical now.
    v_local = quat_z_row(was.quat)  # R^T e_z: the local axis that pointed up
    m1 = quat_z_row(st.quat)
    cos_tilt = m1[0] * v_local[0] + m1[1] * v_local[1] + m1[2] * v_local[2]
    if cos_tilt < math.cos(math.radians(table.topple_tilt_deg)):
        return "toppled"
    return None


def rests_on_supports(st: Stone, now: Mapping[int, Stone], shapes: Mapping[str, ShapeSpec]) -> bool:
    """Whether a stacked stone or gate still rests on its supports (poses ``now``)."""
    sups = [now.get(i) for i in under(st, now)]
    if not sups or any(s is None for s in sups):
        return False  # every support taken off the table (remove_stone): nothing holds it up
    bottom = pose_bottom(st.pose, shapes[st.shape])
    if st.role == "stack":
        sup = sups[0]
        assert sup is not None
        top = top_z(sup, shapes)
        if abs(bottom - top) > SUPPORT_TOL_M:
            return False
        # The stone's centre must still be over the support's top face.
        m = rotation_matrix(sup.quat)
        d = m.T @ (np.array(st.pos) - np.array(sup.pos))
        shp = shapes[sup.shape]
        return abs(d[0]) <= 0.5 * shp.depth + SUPPORT_XY_TOL_M and abs(d[1]) <= 0.5 * shp.width + SUPPORT_XY_TOL_M
    # A gate: its bottom must lie on both tops, and its axis must still reach over each support.
    shp = shapes[st.shape]
    m = rotation_matrix(st.quat)
    axis = m[:, 2]  # the lintel's long axis (the standing height axis)
    for sup in sups:
        assert sup is not None
        if abs(bottom - top_z(sup, shapes)) > SUPPORT_TOL_M:
            return False
        rel = np.array(sup.pos[:2]) - np.array(st.pos[:2])
        along = abs(float(rel @ axis[:2]))
        if along > 0.5 * shp.lintel_length + 0.5 * max(shapes[sup.shape].width, shapes[sup.shape].depth):
            return False
    return True


def fix_supports(states: Mapping[int, Stone], shapes: Mapping[str, ShapeSpec]) -> dict[int, Stone]:
    """Drop references to stones no longer on the table; an unsupported stone resting on the base
    becomes a standing stone."""
    out = {}
    for sid, s in states.items():
        if s.on and not all(i in states for i in s.on):
            if s.role == "stack" and abs(s.pose[2] - 0.5 * shapes[s.shape].height) < SUPPORT_TOL_M:
                s = replace(s, role="stand", on=())
            else:
                s = replace(s, on=tuple(i for i in s.on if i in states))
        out[sid] = s
    return out


def gate_pose(shp: ShapeSpec, s1: Stone, s2: Stone, shapes: Mapping[str, ShapeSpec],
              along_m: float, across_m: float, yaw_rad: float, drop: float
              ) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
    """Pose of a lintel of shape ``shp`` laid across the tops of supports ``s1`` and ``s2``, shifted
    ``along_m`` along the chord and ``across_m`` across it (m), turned ``yaw_rad``, ``drop`` (m)
    above the higher top: its thin axis up, its long (standing height) axis along the chord."""
    p1 = np.array([s1.pos[0], s1.pos[1], top_z(s1, shapes)])
    p2 = np.array([s2.pos[0], s2.pos[1], top_z(s2, shapes)])
    mid = 0.5 * (p1 + p2)
    chord = p2[:2] - p1[:2]
    cdir = chord / max(float(np.linalg.norm(chord)), 1e-12)
    yaw = math.atan2(cdir[1], cdir[0]) + yaw_rad
    c_ = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    r_ = np.array([c_[1], -c_[0], 0.0])
    up = np.array([0.0, 0.0, 1.0])
    if shp.width <= shp.depth:  # thin along local y: y up, z along the chord, x = y cross z
        mat = np.column_stack([np.cross(up, c_), up, c_])
    else:                        # thin along local x: x up, z along the chord, y = z cross x
        mat = np.column_stack([up, np.cross(c_, up), c_])
    pos = (mid[0] + along_m * c_[0] + across_m * r_[0],
           mid[1] + along_m * c_[1] + across_m * r_[1],
           float(max(p1[2], p2[2])) + 0.5 * shp.lintel_thickness + drop)
    return pos, quat_from_matrix(mat)


# --------------------------------------------------------------------------------------------
# What a pass and a placement report (sim.sun.table.sun_table.SunTable's results)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Crossing:
    """The ball's centre crossing the ring radius: angle (rad) and direction."""

    angle: float
    inbound: bool
    t: float


@dataclass
class TablePass:
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
    noise: ThrowNoise
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
    final: list[Stone] = field(default_factory=list)

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
class TablePlacement:
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
    state: Stone | None = None
