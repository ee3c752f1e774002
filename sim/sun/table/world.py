"""The PyBullet world of the Sun's table: a disposable rendering of the pose-level state.

:class:`TableWorld` owns one PyBullet DIRECT connection and builds in it, from the table's
:class:`~sim.sun.table.state.StoneState` list, the base, the floor, every stone and the ball on its
string (:meth:`TableWorld.rebuild`); it steps the world and reads it back. The world is rebuilt with
``resetSimulation`` (docs/sun-physics.md: ``saveState``/``restoreState`` is unreliable) whenever the
state changed since the last build, so every simulation starts from a fresh world built from the
poses: its result is a pure function of (poses, parameters, command, noise).
:class:`sim.sun.table.sun_table.SunTable` adds the public API (passes, placements, the ring view) on top.

Physics settings (docs/sun-physics.md): stones are maximal-coordinate rigid bodies with damping 0 and
``frictionAnchor=1``; each body gets the square root of the wanted pair friction and restitution;
contact breaking threshold 5 mm; ``deterministicOverlappingPairs=1``. The ball is a Featherstone
multibody: a fixed base at the pivot and one spherical joint, the ball its only link, motor
disabled, all damping 0. Presets ``fast`` (240 Hz, 15 iterations, stones start asleep) and
``reference`` (1 kHz, 50 iterations, no sleeping).
"""

from __future__ import annotations

import math
import time
from typing import Sequence

import numpy as np
import pybullet as p

from sim.core.errors import InputError
from sim.sun.table.layout import Layout
from sim.sun.table.recording import PoseRecorder, record_frame
from sim.sun.table.state import StoneState, rotation_matrix

#: Wall seconds spent inside ``stepSimulation`` by every table of this process (passes and settling),
#: for the game-overhead benchmark (``sim.sun.game_bench``): read with :func:`stepping_wall_s`.
_STEPPING = [0.0]
#: Likewise for building worlds (:meth:`TableWorld.rebuild`): read with :func:`building_wall_s`.
_BUILDING = [0.0]


def stepping_wall_s() -> float:
    """Wall seconds this process has spent stepping PyBullet in passes and settling so far."""
    return _STEPPING[0]


def add_stepping_wall_s(seconds: float) -> None:
    """Count ``seconds`` (wall seconds) of stepping PyBullet towards :func:`stepping_wall_s`; the
    tables call it around each ``stepSimulation`` run they time."""
    _STEPPING[0] += seconds


def building_wall_s() -> float:
    """Wall seconds this process has spent building PyBullet worlds from poses so far."""
    return _BUILDING[0]


def metres_text(x: float) -> str:
    """A length (m) for a message: millimetre precision, or 3 significant digits for an absurd one (1e308 m
    printed with ``.3f`` is a 309-digit number)."""
    return f"{x:.3f}" if abs(x) < 1e6 else f"{x:.3g}"


class TableWorld:
    """One PyBullet DIRECT connection and the world built in it from ``_states`` (set by the subclass).

    Args:
        layout: the physical parameters (table, ball, physics, shapes).
    """

    _states: dict[int, StoneState]

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.table = layout.table
        self.ball = layout.ball
        self.physics = layout.physics
        self.shapes = layout.shapes
        self._cid = p.connect(p.DIRECT)
        self._bodies: dict[int, int] = {}
        self._ball_body: int | None = None
        self._dirty = True
        self._base_body = -1

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

    # ---- world building -------------------------------------------------------------------

    def ensure_world(self, ball: bool = True) -> None:
        """Rebuild the PyBullet world from the pose-level state if it changed since the last build
        (``ball``: with the idle ball on its string, see :meth:`rebuild`)."""
        if self._dirty:
            self.rebuild(ball)

    def rebuild(self, ball: bool = True) -> None:
        """Reset the simulation and create the base and every stone at its recorded pose, at rest.

        At the ``fast`` preset stones start asleep (they wake when touched). ``ball``: also create
        the ball, hanging at rest with collisions off (a pass needs it). A placement builds its
        world without it: the idle ball touches nothing (collision group and mask 0), sits in an
        island of its own, and its joint motor has zero force, so the stones' results are the same
        bit for bit (tests/sun/test_sun_placement.py compares placements both ways), and its
        multibody is the costliest body to create (about 0.3 ms of a 1.5 ms build).
        """
        t0 = time.perf_counter()
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
        if ball:
            self._ball_body = self._create_ball()
        self._dirty = False
        _BUILDING[0] += time.perf_counter() - t0

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
            raise InputError(f"release point {metres_text(horizontal_m)} m from the centre must be shorter than the "
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
        w_local = rotation_matrix(q).T @ w_world
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
                record_frame(record, (t_steps + done) / hz, c, self._bodies, self._ball_body)
            if record is not None and done % max(1, hz // 20) != 0:
                continue
            now = self._all_at_rest()
            if now and prev:
                if record is not None:
                    record.event((t_steps + done) / hz, "settled")
                return done, True
            prev = now
        return done, False

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

