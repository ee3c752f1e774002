"""The PyBullet world of the Sun's table: a disposable rendering of the pose-level state.

:class:`TableWorld` owns one PyBullet DIRECT connection and builds in it, from the table's
:class:`~sim.sun.geometry.stone.Stone` list, the base, the floor, every stone and the ball on its
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
from typing import Callable, Sequence

import numpy as np
import pybullet as p

from sim.core.errors import InputError
from sim.sun.table.layout import Layout, ShapeSpec
from sim.sun.table.recording import PoseRecorder, record_frame
from sim.sun.geometry.stone import Stone
from sim.sun.table.state import rotation_matrix

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


def half_diagonal(shape: ShapeSpec) -> float:
    """Half the space diagonal of a stone's box (m): no point of the stone is further from its centre."""
    return 0.5 * math.sqrt(shape.width ** 2 + shape.depth ** 2 + shape.height ** 2)


#: Slack (m) added to the reach of two bodies (their half-diagonals or the ball's radius, and Bullet's
#: contact threshold) before a query between them is left unasked (a rest check's contacts, a
#: placement's blocked check): far more than any rounding between a pose and Bullet's copy of it
REACH_SLACK_M = 0.01


def _parking(shape: str, k: int) -> tuple[float, float, float]:
    """Where the pool's ``k``-th unused body of ``shape`` waits: static, colliding with nothing,
    below the floor, apart from every other (m)."""
    return (0.1 * k, 0.1 * "abcdefghijklmnopqrstuvwxyz".find(shape[:1].lower()), -5.0)


#: idle bodies kept per shape beyond the stones of that shape on the table (at most the set's count):
#: a stone placed takes one without a new body; a shape out of them makes its bodies and those of
#: the shapes after it again (see :meth:`TableWorld._fit_pool`). Each idle body costs every step a
#: few pair tests of the broadphase, each refit a call of about 0.1-0.4 ms per shape
#: (docs/sun-physics.md, "Idle bodies out of the world")
SPARE_BODIES = 1


#: static stones whose centre is within this (m) of a dynamic stone's are watched at every step, the
#: others at every rest check (a stone falling onto one further away meets a nearer one first)
FRONTIER_M = 0.06
#: a stone touched in a run joins the active set with the stones within this (m, centre to centre)
GROW_M = 0.05
#: stones whose centres are further apart than this (m) cannot be within a contact threshold
_NEAR_M = 0.12
#: ``p.getContactPoints(body, ANY_BODY, ANY_LINK, ANY_LINK, client)``: the contacts of ``body`` with
#: anything, asked with positional arguments (PyBullet's defaults for bodyB and the link indices):
#: the watch asks this up to a few thousand times a game, and keywords cost a third more per call
ANY_BODY = -1
ANY_LINK = -2


def metres_text(x: float) -> str:
    """A length (m) for a message: millimetre precision, or 3 significant digits for an absurd one (1e308 m
    printed with ``.3f`` is a 309-digit number)."""
    return f"{x:.3f}" if abs(x) < 1e6 else f"{x:.3g}"


def horizontal_extent(shape: ShapeSpec, quat: Sequence[float]) -> float:
    """How far (m) a stone of ``shape`` at orientation ``quat`` (x, y, z, w) reaches from its centre
    horizontally, at most: a corner (a, b, c) in the stone's frame lies at most
    ``hypot(a, b) + |c| sin(tilt)`` from the centre's vertical, ``tilt`` the angle between the
    stone's height axis and the vertical."""
    qx, qy = quat[0], quat[1]
    # the height axis's vertical component is 1 - 2 (qx^2 + qy^2) for a unit quaternion
    cos_tilt = 1.0 - 2.0 * (qx * qx + qy * qy)
    sin_tilt = math.sqrt(max(0.0, 1.0 - cos_tilt * cos_tilt))
    return 0.5 * (math.hypot(shape.width, shape.depth) + shape.height * sin_tilt)


class TableWorld:
    """One PyBullet DIRECT connection and the world built in it from ``_states`` (set by the subclass).

    Args:
        layout: the physical parameters (table, ball, physics, shapes).
    """

    _states: dict[int, Stone]

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.table = layout.table
        self.ball = layout.ball
        self.physics = layout.physics
        self.shapes = layout.shapes
        self._cid = p.connect(p.DIRECT)
        #: stone id -> PyBullet body of the stones loaded (pool bodies, see :meth:`rebuild`)
        self._bodies: dict[int, int] = {}
        #: the ball's multibody (made with the world, hanging idle between passes)
        self._ball_body = -1
        #: the ball is released (a pass between its spawn and its catch)
        self._ball_live = False
        self._dirty = True
        self._made = False
        #: shape -> its bodies by rank (see :meth:`_fit_pool`); the shapes in sorted order, each
        #: shape's bodies by rank, is the order of their broadphase handles
        self._pool: dict[str, list[int]] = {}
        #: the stones loaded dynamic (None: all), as :meth:`rebuild` was told
        self._active: frozenset[int] | None = None
        #: body -> stone id of the stones loaded static (see :meth:`load_active`)
        self._static_ids: dict[int, int] = {}
        #: (stone id, body) of the static stones close enough to a dynamic one to be hit by it
        self._frontier: list[tuple[int, int]] = []
        #: (stone id, body) of the other static stones (checked at each rest check, see
        #: :meth:`beyond_frontier_touched`)
        self._beyond: list[tuple[int, int]] = []
        #: (stone id, body, x, y, z, half-diagonal) of ``_beyond``'s stones, made at their first rest
        #: check after a load (they are static: their poses are the state's)
        self._beyond_at: list[tuple[int, int, float, float, float, float]] | None = None
        #: pool bodies that may have been integrated since their last upright step (see :meth:`rebuild`)
        self._moved: set[int] = set()
        #: body -> (stone id or -1, position, orientation) of the bodies the last load left static
        self._loaded: dict[int, tuple] = {}
        #: the dynamic stones' bodies (the rest checks look at these only)
        self._dyn_bodies: list[int] = []
        #: (body, half-diagonal in m) of the dynamic stones (see :meth:`beyond_frontier_touched`)
        self._dyn_reach: list[tuple[int, float]] = []
        #: half_diagonal of each shape (m), see :meth:`_half_diagonals`
        self._half_diag: dict[str, float] | None = None
        #: static stones that a moving body came into contact with in the last run (it was cut short)
        self._touched: set[int] = set()
        self._base_body = -1
        self._flight_cid = -1
        self._flight_ball = -1
        self._spawn_q: list[float] = [0.0, 0.0, 0.0, 1.0]
        self._spawn_w: list[float] = [0.0, 0.0, 0.0]

    def close(self) -> None:
        """Disconnect the PyBullet client (idempotent)."""
        if self._cid is not None and self._cid >= 0:
            try:
                p.disconnect(self._cid)
            except p.error:
                pass
            self._cid = -1
        if getattr(self, "_flight_cid", -1) >= 0:
            try:
                p.disconnect(self._flight_cid)
            except p.error:
                pass
            self._flight_cid = -1

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
    def active(self) -> frozenset[int] | None:
        """The stones the last load made dynamic (the last run's active set; None: every stone)."""
        return self._active

    @property
    def stone_bodies(self) -> int:
        """How many stone bodies the world holds: one per stone loaded, plus idle ones (see
        :meth:`_fit_pool`)."""
        return sum(len(b) for b in self._pool.values())

    @property
    def client(self) -> int:
        """The PyBullet physics client id (for tests and the viewer)."""
        return self._cid

    # ---- world building -------------------------------------------------------------------

    def ensure_world(self, ball: bool = True, active: "frozenset[int] | None" = None) -> None:
        """Load the pose-level state into the PyBullet world if it changed since the last load
        (``ball`` is kept for callers: the idle ball is always there, see :meth:`rebuild`;
        ``active``: the stones loaded dynamic, ``None`` for all)."""
        if self._dirty or active != self._active:
            self.rebuild(ball, active)

    def _reset_engine(self, c: int) -> None:
        """Empty the world of client ``c`` and set the engine as the preset says (the step, solver
        iterations, simple broadphase with sorted pairs, contact threshold, gravity): one
        definition for the table's world and the flight world, which must step a ball alike."""
        ph = self.physics
        p.resetSimulation(p.RESET_USE_SIMPLE_BROADPHASE, physicsClientId=c)
        p.setPhysicsEngineParameter(fixedTimeStep=ph.dt, numSolverIterations=ph.iterations, numSubSteps=0,
                                    deterministicOverlappingPairs=1, contactBreakingThreshold=ph.contact_threshold,
                                    physicsClientId=c)
        p.setGravity(0.0, 0.0, -ph.gravity, physicsClientId=c)

    def _make_world(self) -> None:
        """Build the engine from nothing: reset, parameters, the base, the floor and the ball (idle,
        collisions off), with no stone body yet (:meth:`_fit_pool` makes them). Done once per table.
        """
        c = self._cid
        ph = self.physics
        self._reset_engine(c)
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
        # The base and the floor (fixed multibodies) asleep: PyBullet leaves them awake for good, and
        # an awake base made Bullet find the contacts of every sleeping (or static) stone with it at
        # every step, work that changes nothing (12 us a step instead of 25 for full-32 asleep).
        # A fixed multibody asleep still holds up what touches it; only contact pairs in which
        # something moves are computed. (A static rigid box instead was cheaper again, 7 us, but
        # settled full-32's gates 0.24 mm in place of 0.12: not the solver the physics was checked with.)
        for b in (self._base_body, self._floor_body):
            p.changeDynamics(b, -1, activationState=p.ACTIVATION_STATE_SLEEP | p.ACTIVATION_STATE_ENABLE_SLEEPING,
                             physicsClientId=c)
        self._shape_ids: dict[str, int] = {}
        self._ball_body = self._create_ball()
        self._ball_live = False
        self._pool = {}
        self._moved = set()
        self._loaded = {}
        self._made = True

    def _fit_pool(self, live: dict[str, int]) -> None:
        """Give each shape at least ``live[shape]`` bodies (the stones of that shape to load), and
        drop idle ones when there are many.

        The pool's order decides the results: Bullet orders its pairs and contacts by the bodies'
        broadphase handles, and the results of a world depend on that order (the stones of a shape
        take its bodies by rank, shapes in sorted order, as a world made afresh for the state has
        them). How many idle bodies a shape has after its stones changes no result (an idle body
        is static, parked and collides with nothing). A shape that has too few bodies, or a pool
        with more than ``2 * SPARE_BODIES`` idle bodies per shape, is refitted from the first shape
        that changes: every body from there on is removed, last first (the simple broadphase hands
        freed handles back last-freed first), then made again in order, one createMultiBody call per
        shape, so the bodies kept and the bodies made keep the handles' order. Each shape then has
        :data:`SPARE_BODIES` idle bodies, or as many as the set has left.
        """
        pool = self._pool
        shapes = sorted(set(pool) | set(live))
        have = {s: len(pool.get(s, ())) for s in shapes}
        grow = [s for s in shapes if live.get(s, 0) > have[s]]
        idle = sum(have[s] - live.get(s, 0) for s in shapes)
        shrink = idle > 2 * SPARE_BODIES * max(1, len(shapes))
        if not grow and not shrink:
            return
        want = {}
        for s in shapes:
            n = live.get(s, 0)
            cap = self.shapes[s].count if s in self.shapes else 0
            want[s] = max(n, min(n + SPARE_BODIES, cap))
        # the first shape short of bodies, or (shrinking) the first whose count changes
        over = [s for s in shapes if have[s] != want[s]] if shrink else []
        first = min([*grow[:1], *over[:1]], default=None)
        if first is None:
            return
        tail = shapes[shapes.index(first):]
        keep = min(have[first], want[first])  # the first shape's bodies kept (its lowest ranks)
        c = self._cid
        gone = [b for s in tail for b in pool.get(s, ())[keep if s == first else 0:]]
        for b in reversed(gone):
            p.removeBody(b, physicsClientId=c)
            self._moved.discard(b)
            self._loaded.pop(b, None)
        for s in tail:
            kept = pool.get(s, [])[:keep] if s == first else []
            n = want[s] - len(kept)
            made = self._create_stones(s, [_parking(s, k) for k in range(len(kept), want[s])]) if n > 0 else []
            for b in made:
                p.changeDynamics(b, -1, lateralFriction=self._wood_mu, restitution=self._rest, linearDamping=0.0,
                                 angularDamping=0.0, frictionAnchor=1, physicsClientId=c)
            self._moved.update(made)
            if kept or made:
                pool[s] = kept + made
            else:
                pool.pop(s, None)

    def rebuild(self, ball: bool = True, active: "frozenset[int] | None" = None,
                grow: "Callable[[dict[int, int]], frozenset[int] | None] | None" = None) -> None:
        """Load every stone at its recorded pose, at rest, into the world; park the rest of the pool.

        The world is made once (:meth:`_make_world`) and then reused: the pool is fitted to the
        stones (:meth:`_fit_pool`: each shape has a body per stone of that shape and at most a few
        idle ones), each stone of a shape takes the pool's body of the same rank (stones by id),
        every pool body's mass, pose, velocity and sleeping state is set and it is taken out of and
        put back into the collision world in the pool's order (which drops every contact and pair it
        had; it keeps its broadphase handle), the ball is hung idle with collisions off. The world
        after a load is therefore a function of the state alone, whatever the world went through before: a pass or a placement stays a pure
        function of (poses, parameters, command, noise) (tests/sun/test_sun_world_reuse.py runs the
        same calls on reused and fresh worlds and compares every bit).

        At the ``fast`` preset stones start asleep (they wake when touched). ``active``: the ids of
        the stones loaded dynamic; the others are loaded static (mass 0, asleep: they cost nothing
        and wake no island); ``None``: every stone dynamic; ``grow``: instead, a function of the
        bodies (stone id -> body, at their poses) that returns that set. ``ball`` is kept for callers (the idle
        ball, with collisions off, its own island and a zero-force motor, changes no stone's result).
        """
        t0 = time.perf_counter()
        c = self._cid
        ph = self.physics
        by_shape: dict[str, list[Stone]] = {}
        for s in sorted(self._states.values(), key=lambda s: s.id):
            by_shape.setdefault(s.shape, []).append(s)
        if not self._made:
            self._make_world()
        self._fit_pool({shape: len(group) for shape, group in by_shape.items()})
        bodies: dict[int, int] = {}
        cd, reset_pose, reset_vel, filt = (p.changeDynamics, p.resetBasePositionAndOrientation, p.resetBaseVelocity,
                                           p.setCollisionFilterGroupMask)
        asleep, wake = p.ACTIVATION_STATE_SLEEP, p.ACTIVATION_STATE_WAKE_UP
        zero, upright = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
        # 1. Every pool body that may have moved since (a dynamic one) upright, dynamic, awake and
        # colliding with nothing, then one step: Bullet computes a body's world inertia tensor only
        # when it integrates it (a pose set from outside keeps the tensor of the body's last pose,
        # which the solver uses until the body next moves), so a step at the upright pose gives it
        # the tensor a new body has. A body loaded static (mass 0) is never integrated: it keeps it.
        moved = self._moved
        if moved:
            for shape in sorted(self._pool):
                mass = self.shapes[shape].mass
                for k, b in enumerate(self._pool[shape]):
                    if b in moved:
                        cd(b, -1, mass=mass, physicsClientId=c)
                        reset_pose(b, _parking(shape, k), upright, physicsClientId=c)
                        reset_vel(b, zero, zero, physicsClientId=c)
                        cd(b, -1, activationState=wake, physicsClientId=c)
                        filt(b, -1, 0, 0, physicsClientId=c)
            p.stepSimulation(physicsClientId=c)
        # 2. The state: each stone of a shape on the pool's body of the same rank (stones by id). A
        # body loaded static last time that stays static where it was (and was not stepped above)
        # is left as it is: nothing of it can have changed, and its pairs went with the proxies of
        # the bodies that moved.
        prev = self._loaded
        placed: list[tuple[int, int, str, bool, tuple]] = []  # (stone id or -1, body, shape, as before, key)
        for shape in sorted(self._pool):
            group = by_shape.get(shape, [])
            for k, b in enumerate(self._pool[shape]):
                if k < len(group):
                    s = group[k]
                    bodies[s.id] = b
                    key: tuple = (s.id, s.pos, s.quat)
                else:
                    key = (-1, _parking(shape, k), upright)
                same = b not in moved and prev.get(b) == key
                if not same:
                    reset_vel(b, zero, zero, physicsClientId=c)
                    reset_pose(b, key[1], key[2], physicsClientId=c)
                placed.append((key[0], b, shape, same, key))
        if grow is not None:  # the active set from the poses (contact queries; nothing is kept)
            active = grow(bodies)
        loaded: dict[int, tuple] = {}
        for sid, b, shape, same, key in placed:
            dynamic = sid >= 0 and (active is None or sid in active)
            if not dynamic:
                loaded[b] = key
                if same:
                    continue
            if sid >= 0:
                cd(b, -1, mass=self.shapes[shape].mass if dynamic else 0.0, physicsClientId=c)
                if dynamic and not ph.sleeping:
                    cd(b, -1, activationState=wake, physicsClientId=c)
                    cd(b, -1, activationState=p.ACTIVATION_STATE_DISABLE_SLEEPING, physicsClientId=c)
                else:
                    # awake first (its deactivation clock set to 0), then asleep
                    cd(b, -1, activationState=wake | asleep, physicsClientId=c)
                filt(b, -1, 1, -1, physicsClientId=c)
            else:
                cd(b, -1, mass=0.0, physicsClientId=c)
                cd(b, -1, activationState=wake | asleep, physicsClientId=c)
                filt(b, -1, 0, 0, physicsClientId=c)
        self._loaded = loaded
        self._park_ball()
        self._bodies = {sid: bodies[sid] for sid in sorted(bodies)}  # by stone id, as the state
        self._dyn_bodies = [b for sid, b in self._bodies.items() if active is None or sid in active]
        hd = self._half_diagonals()
        self._dyn_reach = [(b, hd[self._states[sid].shape]) for sid, b in self._bodies.items()
                           if active is None or sid in active]
        self._moved = set(self._dyn_bodies)
        self._static_ids = {b: sid for sid, b in self._bodies.items() if active is not None and sid not in active}
        self._frontier = []
        self._beyond = [(sid, b) for b, sid in self._static_ids.items()]
        self._beyond_at = None
        self._active = active
        self._dirty = False
        _BUILDING[0] += time.perf_counter() - t0

    # ---- the active set ---------------------------------------------------------------------
    #
    # A stone that nothing touches costs nothing: a pass or a placement loads only the stones it can
    # move as dynamic bodies (its active set) and the rest as static ones, which Bullet neither
    # integrates nor solves nor wakes with an island. While it runs, any contact between a moving
    # body and a static stone is watched for (every step); one cuts the run short, the stone joins
    # the set and the call is run again from its start poses with the larger set. The result is
    # therefore that of a world in which the static stones were never touched, as they were not:
    # a function of (poses, parameters, command, noise), like before (docs/sun-physics.md).

    def support_closure(self, seed: "set[int]") -> set[int]:
        """``seed`` with every stone that rests on, or carries, one of its stones (transitively):
        a stack, its support, a gate and both its supports move together or not at all."""
        adj: dict[int, set[int]] = {}
        for s in self._states.values():
            for o in s.on:
                if o in self._states:
                    adj.setdefault(s.id, set()).add(o)
                    adj.setdefault(o, set()).add(s.id)
        out = {i for i in seed if i in self._states}
        todo = list(out)
        while todo:
            for j in adj.get(todo.pop(), ()):
                if j not in out:
                    out.add(j)
                    todo.append(j)
        return out

    def load_active(self, seed: "set[int] | None") -> frozenset[int] | None:
        """Load the state with the stones of ``seed`` dynamic, grown by :meth:`support_closure` and
        by every stone within ``contact_threshold`` + 0.5 mm of a dynamic one (Bullet would report
        that pair as a contact at once), the rest static; ``None``: every stone dynamic.

        Returns:
            The set loaded dynamic (None for all).
        """
        if seed is None:
            self.rebuild(active=None)
            return None
        active = self.support_closure(seed)
        if len(active) >= len(self._states):
            self.rebuild(active=None)
            return None
        c = self._cid
        reach = self._grow_reach_m()
        pos = {sid: s.pos for sid, s in self._states.items()}
        near2 = _NEAR_M * _NEAR_M

        def grow(bodies: dict[int, int]) -> frozenset[int] | None:
            todo = list(active)
            grown = set(active)
            while todo:
                a = todo.pop()
                ax, ay, az = pos[a]
                for sid, b in bodies.items():
                    if sid in grown:
                        continue
                    x, y, z = pos[sid]
                    if (x - ax) ** 2 + (y - ay) ** 2 + (z - az) ** 2 > near2:
                        continue
                    if p.getClosestPoints(bodies[a], b, reach, physicsClientId=c):
                        for j in self.support_closure({sid}) - grown:
                            grown.add(j)
                            todo.append(j)
            return None if len(grown) >= len(self._states) else frozenset(grown)

        self.rebuild(grow=grow)
        if self._active is None:
            return None
        grown = self._active
        reach2 = min(self._reach_m(), FRONTIER_M) ** 2
        dyn = [pos[i] for i in grown]
        self._frontier = [(sid, b) for sid, b in self._bodies.items() if sid not in grown and any(
            (pos[sid][0] - x) ** 2 + (pos[sid][1] - y) ** 2 + (pos[sid][2] - z) ** 2 <= reach2 for x, y, z in dyn)]
        near = {sid for sid, _ in self._frontier}
        self._beyond = [(sid, b) for b, sid in self._static_ids.items() if sid not in near]
        self._beyond_at = None
        return frozenset(grown)

    def _grow_reach_m(self) -> float:
        """How near (m) a stone must come to a dynamic one to be loaded dynamic with it
        (:meth:`load_active`): Bullet's contact threshold, within which it reports a contact, and 0.5 mm."""
        return self.physics.contact_threshold + 0.0005

    def clear_of_others(self, sid: int) -> bool:
        """Whether no other stone can come within :meth:`_grow_reach_m` of stone ``sid``, judged from
        the stones' horizontal extents alone (a bound: False says nothing). When True,
        :meth:`load_active` of ``{sid}`` would load it alone, without asking Bullet."""
        me = self._states[sid]
        r = horizontal_extent(self.shapes[me.shape], me.quat) + self._grow_reach_m()
        x, y = me.pos[0], me.pos[1]
        for o in self._states.values():
            if o.id != sid:
                d = r + horizontal_extent(self.shapes[o.shape], o.quat)
                if (o.pos[0] - x) ** 2 + (o.pos[1] - y) ** 2 <= d * d:
                    return False
        return True

    def neighbours(self, touched: "set[int]") -> set[int]:
        """``touched`` with every stone whose centre is within :data:`GROW_M` of one of them: a stone
        a moving one reached is often pushed into the next (a rerun per domino costs more than a
        stone that stays asleep)."""
        pos = {sid: s.pos for sid, s in self._states.items()}
        g2 = GROW_M * GROW_M
        out = set(touched)
        for t in touched:
            tx, ty, tz = pos[t]
            out.update(sid for sid, (x, y, z) in pos.items() if (x - tx) ** 2 + (y - ty) ** 2 <= g2)
        return out

    def _reach_m(self) -> float:
        """How far (m, centre to centre) a dynamic stone may reach a static one within a call: the
        tallest stone falling over, plus the widest half-diagonal."""
        return max(s.height for s in self.shapes.values()) + max(
            math.hypot(s.width, s.depth) for s in self.shapes.values()) + self.physics.contact_threshold

    def frontier_touched(self) -> bool:
        """Whether a static stone of the frontier is in contact with a moving body now (adds it to
        ``_touched``)."""
        return self._touched_of(self._frontier)

    def beyond_frontier_touched(self) -> bool:
        """Like :meth:`frontier_touched`, for the static stones beyond the frontier: with a frontier
        check of the same step, a check of every static stone (the rest checks' watch). The
        frontier's stones are not asked twice after one step: their answer cannot have changed.

        Only the stones a moving body can touch now are asked. A contact needs two centres within
        the bodies' half-diagonals (the ball's radius), Bullet's contact threshold and
        :data:`REACH_SLACK_M` of each other, and the moving bodies' centres cost one query each,
        where the stones beyond (most of the static ones, far from every dynamic stone) cost a
        contact query each (when the moving bodies are nearly as many as the stones beyond, every
        stone is asked instead); the answer is the same.
        """
        if not self._beyond:
            return False
        if 2 * (len(self._dyn_reach) + 1) > len(self._beyond):
            # as many moving bodies as stones beyond, or nearly (a pass that knocked a group over):
            # reading their centres and comparing would cost more than asking every stone
            return self._touched_of(self._beyond)
        c = self._cid
        pose = p.getBasePositionAndOrientation
        slack = self.physics.contact_threshold + REACH_SLACK_M
        movers = [(pose(b, c)[0], r + slack) for b, r in self._dyn_reach]
        if self._ball_live:  # the ball's centre is its link's (its inertial frame sits there)
            movers.append((p.getLinkState(self._ball_body, 0, 0, 0, c)[0], self.ball.radius + slack))
        if self._beyond_at is None:
            states, hd = self._states, self._half_diagonals()
            self._beyond_at = [(sid, b, *states[sid].pos, hd[states[sid].shape]) for sid, b in self._beyond]
        ask = []
        for sid, b, x, y, z, r in self._beyond_at:
            for (mx, my, mz), mr in movers:
                dx, dy, dz, rr = x - mx, y - my, z - mz, r + mr
                if dx * dx + dy * dy + dz * dz <= rr * rr:
                    ask.append((sid, b))
                    break
        return self._touched_of(ask)

    def _half_diagonals(self) -> dict[str, float]:
        """:func:`half_diagonal` of each shape (m), worked out once per table."""
        if self._half_diag is None:
            self._half_diag = {name: half_diagonal(s) for name, s in self.shapes.items()}
        return self._half_diag

    def _touched_of(self, stones: "list[tuple[int, int]]") -> bool:
        """Whether one of ``stones`` ((stone id, body) pairs) is in contact with anything now
        (adds those that are to ``_touched``): a static stone has contacts only with a moving body."""
        c = self._cid
        contacts, any_body, any_link = p.getContactPoints, ANY_BODY, ANY_LINK
        hit = False
        for sid, b in stones:
            if contacts(b, any_body, any_link, any_link, c):
                self._touched.add(sid)
                hit = True
        return hit

    def _park_ball(self) -> None:
        """Hang the ball at rest with collisions off (between passes)."""
        c, b = self._cid, self._ball_body
        p.resetJointStateMultiDof(b, 0, targetValue=[0.0, 0.0, 0.0, 1.0], targetVelocity=[0.0, 0.0, 0.0],
                                  physicsClientId=c)
        p.setCollisionFilterGroupMask(b, 0, 0, 0, physicsClientId=c)
        self._ball_live = False

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

    def _create_ball(self, cid: int | None = None) -> int:
        """Create the ball on its string, hanging at rest, with collisions off (part of the world
        build, so that a pass only has to enable and release it), in the world of client ``cid``
        (default: this table's)."""
        c, b = (self._cid if cid is None else cid), self.ball
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
        if self._dirty or not self._made:
            self.ensure_world()
        c, b = self._cid, self.ball
        L = b.string_length
        if not 0.0 <= horizontal_m < L:
            raise InputError(f"release point {metres_text(horizontal_m)} m from the centre must be shorter than the "
                             f"string ({L} m)", key="release")
        body = self._ball_body
        self._ball_live = True
        p.setCollisionFilterGroupMask(body, 0, 1, 0xFFFF, physicsClientId=c)
        theta = math.asin(horizontal_m / L)
        # Rotate the hanging string (-z) by theta about the horizontal axis perpendicular to the aim.
        ux, uy = math.sin(aim_rad), -math.cos(aim_rad)
        s2 = math.sin(0.5 * theta)
        q = (ux * s2, uy * s2, 0.0, math.cos(0.5 * theta))
        # Angular velocity giving the push at the ball: w = r x v / |r|^2, expressed in the link frame.
        r0, r1, r2 = horizontal_m * math.cos(aim_rad), horizontal_m * math.sin(aim_rad), -L * math.cos(theta)
        v0, v1, v2 = float(push_mps[0]), float(push_mps[1]), 0.0
        r = np.array([r0, r1, r2])
        # r x v written out, the products and differences numpy's cross makes (the same numbers,
        # without its 12 us of array handling)
        w_world = np.array([r1 * v2 - r2 * v1, r2 * v0 - r0 * v2, r0 * v1 - r1 * v0]) / float(r @ r)
        w_local = rotation_matrix(q).T @ w_world
        self._spawn_q, self._spawn_w = list(q), [float(x) for x in w_local]
        p.resetJointStateMultiDof(body, 0, targetValue=self._spawn_q, targetVelocity=self._spawn_w,
                                  physicsClientId=c)
        return body

    # ---- the flight world ----------------------------------------------------------------------
    #
    # From its release until it first comes near the base, the ball touches nothing and (stones
    # loaded asleep) nothing else in the table's world moves; yet a step of that world costs what
    # its 35 bodies cost Bullet (the simple broadphase's pair tests, bounds, islands): 6.8 us
    # against 3.7 us for the ball alone (measured 2026-12-08). So the ball flies that part of the
    # swing in a second world holding only a ball on its string, with the same parameters, and is
    # handed back, joint position and velocity, before it can touch anything (SunTable._swing).
    # The hand-over is a joint reset like the release's own: the pass is still a function of
    # (poses, command, noise) alone, but not the same bits as a ball that flew in the table's world
    # (a reset of a multibody's joint to the values it reads back changes the next steps in the
    # last bits; measured on 200 random swings).

    def flight_world(self) -> tuple[int, int]:
        """(client, ball) of the flight world: the ball alone on its string, released as the last
        :meth:`spawn_ball` released it (the same joint position and velocity). Made once per table,
        on its own DIRECT connection; the ball there collides with nothing (there is nothing)."""
        if self._flight_cid < 0:
            c = self._flight_cid = p.connect(p.DIRECT)
            self._reset_engine(c)
            self._flight_ball = self._create_ball(c)
        p.resetJointStateMultiDof(self._flight_ball, 0, targetValue=self._spawn_q, targetVelocity=self._spawn_w,
                                  physicsClientId=self._flight_cid)
        return self._flight_cid, self._flight_ball

    def land_flight(self) -> None:
        """Hand the flight world's ball (joint position and velocity) to the table's released ball."""
        q, w = p.getJointStateMultiDof(self._flight_ball, 0, physicsClientId=self._flight_cid)[:2]
        p.resetJointStateMultiDof(self._ball_body, 0, targetValue=list(q), targetVelocity=list(w),
                                  physicsClientId=self._cid)

    def ball_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The ball's centre position and velocity (m, m/s, world).

        Raises:
            RuntimeError: no ball in the world.
        """
        if not self._made:
            raise RuntimeError("no ball in the world")
        s = p.getLinkState(self._ball_body, 0, computeLinkVelocity=1, physicsClientId=self._cid)
        return np.array(s[0]), np.array(s[6])

    def remove_ball(self) -> None:
        """Take the ball out of play (the catch): hung idle at rest, colliding with nothing."""
        if self._ball_live:
            self._park_ball()

    def step(self, n: int = 1) -> None:
        """Advance the world ``n`` steps without any bookkeeping (tests, benchmarks)."""
        self.ensure_world()
        c = self._cid
        for _ in range(n):
            p.stepSimulation(physicsClientId=c)

    def _settle(self, record: PoseRecorder | None, t_steps: int, awake: bool = True) -> tuple[int, bool]:
        """Step until every stone is at rest at two consecutive checks, or the time limit.

        With static stones loaded (:meth:`load_active`), the frontier is checked for contacts after
        every step once a dynamic stone may be moving (``awake``: from the start), every static
        stone at each rest check; a contact stops the settling early with ``_touched`` filled.
        """
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
        watch = bool(self._static_ids) and awake
        frontier = self.frontier_touched
        while done < limit:
            if watch:
                spent = 0.0
                for _ in range(chunk):
                    t_step = clock()
                    step(c)
                    spent += clock() - t_step
                    done += 1
                    if frontier():
                        break
                _STEPPING[0] += spent
                # the frontier was asked after the last step: the rest of the statics now
                if self._touched or self.beyond_frontier_touched():
                    return done, False
            else:
                t_step = clock()
                for _ in range(chunk):
                    step(c)
                _STEPPING[0] += clock() - t_step
                done += chunk
            if frame_every and (t_steps + done) % frame_every == 0:
                record_frame(record, (t_steps + done) / hz, c, self._bodies, self._ball_body if self._ball_live else None)
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
        for b in self._dyn_bodies:
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
        for b in self._dyn_bodies:
            (vx, vy, vz), (wx, wy, wz) = vel(b, c)
            if vx * vx + vy * vy + vz * vz > lin2 or wx * wx + wy * wy + wz * wz > ang2:
                # A stone that has fallen off the base is already lost: it need not come to rest.
                if p.getBasePositionAndOrientation(b, physicsClientId=c)[0][2] < 0.0:
                    continue
                return False
        return True

