"""Sozoikum house building in a 2-D rigid-body simulation (pymunk, behind :class:`HouseWorld`).

A house is five stones in five **roles**, placed in this order:

====  =======================================
A1    wall A, bottom stone (left wall)
B1    wall B, bottom stone (right wall)
A2    wall A, top stone
B2    wall B, top stone
roof  the roof stone, laid across both walls
====  =======================================

(The rules' Place actions name the roles in the order A1, A2, B1, B2, roof; the hand puts both bottom
stones down first, then both top stones, then the roof, as a builder would.)

Geometry (centimetres, seconds, y up, ground at y = 0): every stone lies on its longest edge
(``shapes.rest_angle``). The walls stand either side of a door of ``wall_gap`` cm: every stone of
wall A has the right side of its bounding box at ``-wall_gap / 2``, every stone of wall B the left
side at ``+wall_gap / 2`` (walls lined up on the door, which gives the roof the most support); the
roof's bounding box is centred over the door. Each stone is released ``DROP`` cm above the highest point
of whatever lies under its horizontal extent (the ground, or the settled stones below), as a hand
lowering it straight down would; the roof at least at the height of the walls' inner edges (a roof
too short to reach them is let go there and drops into the door).

Skill noise: each placement adds a horizontal offset ~ N(0, noise_cm * (1 - skill)) and a turn
~ N(0, noise_deg * (1 - skill)), drawn in role order from ``Generator(PCG64(seed))``: the same seed,
stones and skill always give the same build (pymunk is deterministic for the same inputs and the
same fixed-step sequence).

Physics: :func:`build_house` reaches the physics only through the :class:`HouseWorld` protocol (add
a stone, step, read poses and speeds); :class:`PymunkWorld` is the implementation the game uses.

Simulation: fixed step ``dt`` (default 1/120 s) and solver ``iterations``; after each placement the
world is stepped until the stones are **at rest** (every stone slower than ``rest_speed`` cm/s and
turning slower than ``rest_spin`` rad/s for ``rest_time`` s) or a cap passes: ``phase_time`` after
the wall stones, ``settle_time`` after the roof; then optionally ``hold_time`` more seconds without
early exit (the 30 s test).

Verdict, taken when the house is at rest (or at the cap, ``HouseResult.at_rest`` says which). The
house **stands** iff no stone fell and the walls do not touch. A stone fell when

* it is a top stone or the roof and it touched the ground (its lowest point came within
  ``ground_margin`` cm of y = 0) at any moment: it can only have got there by falling off, and
  nothing later can undo that, so with ``stop_on_fall`` (the default) the simulation stops there;
* its centroid ended more than ``tolerance`` cm from where the hand released it (a stone that
  swings out and comes back is judged where it comes to rest);
* it ended turned more than ``fall_tilt`` degrees from lying flat on its longest edge.

Otherwise, if a stone of wall A touches a stone of wall B (the rule "walls must not touch"), the
house collapsed too. ``reason`` names the first failed check and its stone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Iterable, Protocol, Sequence

import numpy as np

from sim.sozoikum.shapes import Vertices, rest_angle

if TYPE_CHECKING:
    import pymunk

ROLES: tuple[str, ...] = ("A1", "A2", "B1", "B2", "roof")
ROLE_NAMES = {
    "A1": "wall A bottom",
    "A2": "wall A top",
    "B1": "wall B bottom",
    "B2": "wall B top",
    "roof": "roof",
}
#: the stones that must never reach the ground (they lie on other stones)
RAISED: tuple[str, ...] = ("A2", "B2", "roof")
#: release height above the support (cm)
DROP = 0.05
GRAVITY = 981.0  # cm/s^2
DENSITY = 2.6e-3  # kg/cm^2 of cross-section: only ratios matter for stability
#: pymunk's allowed overlap of resting shapes (cm): small against stones of several cm
COLLISION_SLOP = 0.02


@dataclass(frozen=True)
class HouseParams:
    """Physical settings of one build (lengths in cm, times in s, angles in degrees, speeds in cm/s).

    Attributes:
        tolerance: a stone whose centroid ended farther than this from its release point fell.
        fall_tilt: a stone that ended turned more than this from lying flat on its longest edge fell.
        ground_margin: a top stone or the roof whose lowest point comes closer than this to the
            ground touched it (and fell).
        wall_gap: the door between the two walls.
        friction: Coulomb friction coefficient stone on stone and stone on ground.
        noise_cm: placement offset standard deviation at skill 0 (scaled by 1 - skill).
        noise_deg: placement turn standard deviation at skill 0 (scaled by 1 - skill).
        dt: fixed time step.
        iterations: pymunk solver iterations per step.
        rest_speed: stones slower than this (cm/s) ...
        rest_spin: ... and turning slower than this (rad/s) ...
        rest_time: ... for this long (s) are at rest.
        phase_time: longest settle after each pair of wall stones (the cap).
        settle_time: longest settle after the roof (the cap; the verdict is taken there if the
            stones are still moving).
        hold_time: further simulated time after settling, without early exit.
    """

    tolerance: float = 1.0
    fall_tilt: float = 20.0
    ground_margin: float = 0.1
    wall_gap: float = 2.0
    friction: float = 0.7
    noise_cm: float = 1.0
    noise_deg: float = 6.0
    dt: float = 1.0 / 120.0
    iterations: int = 15
    rest_speed: float = 0.3
    rest_spin: float = 0.02
    rest_time: float = 0.1
    phase_time: float = 0.6
    settle_time: float = 2.5
    hold_time: float = 0.0


@dataclass(frozen=True)
class Pose:
    """A stone's centroid position (cm) and angle (rad)."""

    x: float
    y: float
    angle: float


class HouseWorld(Protocol):
    """The physics a build needs: a 2-D world with gravity (-y) and a flat ground at y = 0.

    Implementations must be deterministic: the same calls give the same poses.
    """

    def add(self, role: str, verts: Vertices, pose: Pose) -> None:
        """Release a stone (local polygon ``verts``, cm, centroid at the origin) at rest at ``pose``."""
        ...

    def step(self, dt: float) -> None:
        """Advance the world by ``dt`` seconds."""
        ...

    def poses(self) -> dict[str, Pose]:
        """The pose of every stone, by role."""
        ...

    def motion(self) -> dict[str, tuple[float, float]]:
        """Every stone's speed (cm/s) and absolute spin (rad/s), by role."""
        ...


class PymunkWorld:
    """:class:`HouseWorld` in pymunk: stones are convex polygons of uniform density on a static
    ground segment, Coulomb friction ``params.friction`` everywhere, no bounce."""

    def __init__(self, params: HouseParams) -> None:
        # start-up: pymunk adds 15 ms (CPU, python -X importtime), imported with the first world, not with this
        # module: the rules reach this module through the physics boundary (sim.sozoikum.physics) and must load
        # no physics engine
        import pymunk

        self._pymunk = pymunk
        self.friction = params.friction
        space = pymunk.Space()
        space.gravity = (0.0, -GRAVITY)
        space.iterations = params.iterations
        space.collision_slop = COLLISION_SLOP
        space.sleep_time_threshold = 0.3
        # the ground's top face is y = 0 (a segment of radius 1 along y = -1)
        ground = pymunk.Segment(space.static_body, (-200.0, -1.0), (200.0, -1.0), 1.0)
        ground.friction = params.friction
        space.add(ground)
        self.space = space
        self.bodies: dict[str, pymunk.Body] = {}

    def add(self, role: str, verts: Vertices, pose: Pose) -> None:
        """See :meth:`HouseWorld.add`."""
        pymunk = self._pymunk
        mass = abs(_area(verts)) * DENSITY
        body = pymunk.Body(mass, pymunk.moment_for_poly(mass, list(verts)))
        body.position = (pose.x, pose.y)
        body.angle = pose.angle
        shape = pymunk.Poly(body, list(verts))
        shape.friction = self.friction
        shape.elasticity = 0.0
        self.space.add(body, shape)
        self.bodies[role] = body

    def step(self, dt: float) -> None:
        """See :meth:`HouseWorld.step`."""
        self.space.step(dt)

    def poses(self) -> dict[str, Pose]:
        """See :meth:`HouseWorld.poses`."""
        return {r: Pose(b.position.x, b.position.y, b.angle) for r, b in self.bodies.items()}

    def motion(self) -> dict[str, tuple[float, float]]:
        """See :meth:`HouseWorld.motion` (a sleeping body is at rest)."""
        return {
            r: (0.0, 0.0) if b.is_sleeping else (float(b.velocity.length), abs(b.angular_velocity))
            for r, b in self.bodies.items()
        }


@dataclass(frozen=True)
class HouseResult:
    """The outcome of one build.

    Attributes:
        stood: the house stands.
        reason: ``"stands"``, ``"walls touch"``, ``"<role> on the ground"``, ``"<role> moved <d> cm"``
            or ``"<role> tilted <a> deg"`` (the first failed check, worst stone).
        displacement: per role (ROLES order), centroid distance from release to the end (cm).
        placed: per role, the pose at release.
        final: per role, the pose at the end.
        verts: per role, the stone's local polygon (centroid at the origin).
        walls_touch: a stone of wall A touches a stone of wall B at the end.
        sim_time: simulated seconds.
        steps: physics steps taken.
        tilt: per role, how far the stone ended turned from lying flat on its longest edge (deg).
        grounded: the top stones / roof that touched the ground (ROLES order).
        at_rest: the stones came to rest before the last cap (False also when the simulation
            stopped at a stone on the ground).
        stages: the poses of the stones in place right after each release step (bottoms; tops on
            the settled bottoms; roof on the settled walls), for drawings.
    """

    stood: bool
    reason: str
    displacement: tuple[float, ...]
    placed: tuple[Pose, ...]
    final: tuple[Pose, ...]
    verts: tuple[Vertices, ...]
    walls_touch: bool
    sim_time: float
    steps: int
    tilt: tuple[float, ...] = ()
    grounded: tuple[str, ...] = ()
    at_rest: bool = True
    stages: tuple[dict[str, Pose], ...] = field(default=(), compare=False, repr=False)
    trace: list = field(default_factory=list, compare=False, repr=False)

    @property
    def max_displacement(self) -> float:
        """The largest centroid displacement (cm)."""
        return max(self.displacement)


def _turn(verts: Iterable[Sequence[float]], angle: float) -> list[tuple[float, float]]:
    # plain floats: numpy costs more than it saves on eight points
    c, s = math.cos(angle), math.sin(angle)
    return [(c * x - s * y, s * x + c * y) for x, y in verts]


@lru_cache(maxsize=4096)
def _rest(verts: Vertices) -> tuple[float, float]:
    """Rest angle and resting width of a polygon (cached: stones recur across builds)."""
    a = rest_angle(verts)
    xs = [x for x, _ in _turn(verts, a)]
    return a, max(xs) - min(xs)


def _lowest(verts: Vertices, pose: Pose) -> float:
    """The lowest y of ``verts`` at ``pose`` (cm)."""
    c, s = math.cos(pose.angle), math.sin(pose.angle)
    return pose.y + min(s * x + c * y for x, y in verts)


def _tilt(angle: float, flat: float) -> float:
    """Degrees between ``angle`` and ``flat`` (rad), wrapped to [0, 180]."""
    d = (angle - flat + math.pi) % (2.0 * math.pi) - math.pi
    return abs(math.degrees(d))


class _Build:
    """The builder's hands and eyes on a :class:`HouseWorld`: releases stones and watches them."""

    def __init__(self, world: HouseWorld, params: HouseParams, stop_on_fall: bool) -> None:
        self.world = world
        self.p = params
        self.stop_on_fall = stop_on_fall
        self.verts: dict[str, Vertices] = {}
        self.grounded: list[str] = []
        self.at_rest = True
        self.steps = 0

    @property
    def fell(self) -> bool:
        """A stone fell in a way nothing later can undo, and the simulation stops for it."""
        return self.stop_on_fall and bool(self.grounded)

    def add(self, role: str, verts: Vertices, angle: float, x_center: float, support_y: float) -> Pose:
        """Release ``verts`` turned by ``angle`` with its bounding box centred at ``x_center`` and its
        lowest point DROP above ``support_y``; return the release pose."""
        v = _turn(verts, angle)
        lo, hi = min(p[0] for p in v), max(p[0] for p in v)
        pose = Pose(x_center - (lo + hi) / 2.0, support_y + DROP - min(p[1] for p in v), angle)
        self.world.add(role, verts, pose)
        self.verts[role] = verts
        return pose

    def top_over(self, verts: Vertices, angle: float, x_center: float) -> float:
        """Highest point of the stones already placed under the x-extent of ``verts`` turned by
        ``angle`` and centred at ``x_center`` (cm; 0 = the ground): where a hand lowering the stone
        straight down would first touch."""
        v = _turn(verts, angle)
        lo = x_center + min(p[0] for p in v) - (max(p[0] for p in v) + min(p[0] for p in v)) / 2.0
        hi = lo + max(p[0] for p in v) - min(p[0] for p in v)
        return self.height_between(lo, hi)

    def height_between(self, lo: float, hi: float) -> float:
        """Highest point of the placed stones' outlines between x = lo and x = hi (cm, >= 0)."""
        best = 0.0
        for role, pose in self.world.poses().items():
            w = [(x + pose.x, y + pose.y) for x, y in _turn(self.verts[role], pose.angle)]
            n = len(w)
            for i in range(n):
                (x0, y0), (x1, y1) = w[i], w[(i + 1) % n]
                if lo <= x0 <= hi and y0 > best:
                    best = y0
                for xc in (lo, hi):  # the outline where it crosses the stone's sides
                    if (x0 - xc) * (x1 - xc) < 0:
                        y = y0 + (y1 - y0) * (xc - x0) / (x1 - x0)
                        if y > best:
                            best = y
        return best

    def _check_ground(self, poses: dict[str, Pose]) -> None:
        for role in RAISED:
            if role in poses and role not in self.grounded:
                if _lowest(self.verts[role], poses[role]) < self.p.ground_margin:
                    self.grounded.append(role)

    def settle(self, longest: float, trace: list | None = None) -> float:
        """Step until the stones are at rest (``rest_speed``, ``rest_spin`` for ``rest_time``) or
        ``longest`` seconds pass (then ``at_rest`` is False); with ``stop_on_fall`` also stop as soon
        as a top stone or the roof touches the ground. Return the simulated time (s)."""
        if self.fell:
            return 0.0
        p = self.p
        dt = p.dt
        n = max(1, int(round(longest / dt)))
        every = 4  # rest and ground are checked every few steps: a check costs more than a step
        need = max(1, int(round(p.rest_time / (dt * every))))
        still = 0
        world = self.world
        for i in range(n):
            world.step(dt)
            if trace is not None:
                trace.append({r: (q.x, q.y, q.angle) for r, q in world.poses().items()})
            if i % every:
                continue
            self._check_ground(world.poses())
            if self.fell:
                # a top stone or the roof reached the ground: it fell, nothing later can undo that
                self.steps += i + 1
                self.at_rest = False
                return (i + 1) * dt
            if all(v < p.rest_speed and w < p.rest_spin for v, w in world.motion().values()):
                still += 1
                if still >= need:
                    self.steps += i + 1
                    self.at_rest = True
                    return (i + 1) * dt
            else:
                still = 0
        self.steps += n
        self.at_rest = False
        return n * dt

    def run(self, seconds: float) -> float:
        """Step for exactly ``seconds`` (no early exit)."""
        n = int(round(seconds / self.p.dt))
        for _ in range(n):
            self.world.step(self.p.dt)
        self.steps += n
        return n * self.p.dt


def _world(verts: Vertices, pose: Pose) -> np.ndarray:
    return np.array([(x + pose.x, y + pose.y) for x, y in _turn(verts, pose.angle)])


def polygons_touch(p: np.ndarray, q: np.ndarray, margin: float = 0.05) -> bool:
    """True when two convex polygons (counter-clockwise (n, 2) arrays, cm) overlap or come closer
    than ``margin`` along every separating-axis candidate (a conservative contact test)."""
    if (
        p[:, 0].max() + margin < q[:, 0].min()
        or q[:, 0].max() + margin < p[:, 0].min()
        or p[:, 1].max() + margin < q[:, 1].min()
        or q[:, 1].max() + margin < p[:, 1].min()
    ):
        return False
    for poly in (p, q):
        edges = np.roll(poly, -1, axis=0) - poly
        normals = np.column_stack((edges[:, 1], -edges[:, 0]))
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        pp = p @ normals.T
        qq = q @ normals.T
        gap = np.maximum(qq.min(axis=0) - pp.max(axis=0), pp.min(axis=0) - qq.max(axis=0))
        if (gap > margin).any():
            return False
    return True


def _area(verts: Vertices) -> float:
    s = 0.0
    n = len(verts)
    for i in range(n):
        x0, y0 = verts[i]
        x1, y1 = verts[(i + 1) % n]
        s += x0 * y1 - x1 * y0
    return s / 2.0


def build_house(
    stones: Sequence[Vertices],
    skill: float,
    seed: int,
    params: HouseParams = HouseParams(),
    *,
    trace: bool = False,
    stop_on_fall: bool = True,
    world: Callable[[HouseParams], HouseWorld] = PymunkWorld,
) -> HouseResult:
    """Build a house and report whether it stands (the module docstring gives the verdict).

    Args:
        stones: five polygons (cm, counter-clockwise, centroid at the origin) in ROLES order:
            wall A bottom, wall A top, wall B bottom, wall B top, roof.
        skill: the builder's placement skill in [0, 1] (1 = no noise).
        seed: the placement noise seed (the rules' ``BuildNoise`` chance outcome).
        params: physical settings.
        trace: keep every step's poses in ``result.trace`` (for drawings; slow).
        stop_on_fall: end the simulation as soon as a top stone or the roof touches the ground
            (the verdict is then settled: a collapse); stones not yet placed are still released,
            but nothing more is simulated. False simulates every phase to rest or its cap (to watch
            the whole fall, or as the at-rest reference).
        world: makes the physics world for ``params`` (default pymunk).

    Raises:
        ValueError: not five stones, a polygon with fewer than 3 points, or skill outside [0, 1].
    """
    if len(stones) != 5:
        raise ValueError(f"a house needs 5 stones, got {len(stones)}")
    if any(len(v) < 3 for v in stones):
        raise ValueError("every stone needs at least 3 vertices")
    if not 0.0 <= skill <= 1.0:
        raise ValueError(f"skill {skill} outside [0, 1]")
    shape: dict[str, Vertices] = {r: tuple((float(x), float(y)) for x, y in v) for r, v in zip(ROLES, stones)}
    rng = np.random.Generator(np.random.PCG64(seed))
    sx = params.noise_cm * (1.0 - skill)
    sa = math.radians(params.noise_deg) * (1.0 - skill)
    noise = {r: (float(rng.normal(0.0, 1.0)) * sx, float(rng.normal(0.0, 1.0)) * sa) for r in ROLES}
    rest = {r: _rest(shape[r]) for r in ROLES}
    angle = {r: rest[r][0] for r in ROLES}
    width = {r: rest[r][1] for r in ROLES}
    # walls are lined up on the door: each wall stone's inner side at -gap/2 (wall A) or +gap/2
    # (wall B), which gives the roof the most support a builder can give it
    g = params.wall_gap
    centre = {
        "A1": -(g + width["A1"]) / 2.0,
        "A2": -(g + width["A2"]) / 2.0,
        "B1": (g + width["B1"]) / 2.0,
        "B2": (g + width["B2"]) / 2.0,
        "roof": 0.0,
    }

    b = _Build(world(params), params, stop_on_fall)
    tr: list | None = [] if trace else None
    placed: dict[str, Pose] = {}
    t = 0.0

    def put(role: str) -> None:
        dx, da = noise[role]
        a, x = angle[role] + da, centre[role] + dx
        support = b.top_over(shape[role], a, x)
        if role == "roof":
            # the roof is offered at the height of the walls' inner edges even if it is too short
            # to reach them (then it drops into the door)
            support = max(support, b.height_between(-g / 2.0 - 0.5, g / 2.0 + 0.5))
        placed[role] = b.add(role, shape[role], a, x, support)

    stages: list[dict[str, Pose]] = []

    put("A1")
    put("B1")
    stages.append(b.world.poses())
    t += b.settle(params.phase_time, tr)
    put("A2")
    put("B2")
    stages.append(b.world.poses())
    t += b.settle(params.phase_time, tr)
    put("roof")
    stages.append(b.world.poses())
    t += b.settle(params.settle_time, tr)
    if params.hold_time > 0 and not b.fell:
        t += b.run(params.hold_time)

    final = b.world.poses()
    b._check_ground(final)  # a stone lying on the ground at the end (the reference judges there)
    disp = tuple(math.hypot(final[r].x - placed[r].x, final[r].y - placed[r].y) for r in ROLES)
    tilt = tuple(_tilt(final[r].angle, angle[r]) for r in ROLES)
    world_poly = {r: _world(shape[r], final[r]) for r in ("A1", "A2", "B1", "B2")}
    touch = any(polygons_touch(world_poly[a], world_poly[c]) for a in ("A1", "A2") for c in ("B1", "B2"))
    grounded = tuple(r for r in ROLES if r in b.grounded)
    worst = max(range(5), key=lambda i: disp[i])
    most = max(range(5), key=lambda i: tilt[i])
    if grounded:
        stood, reason = False, f"{grounded[0]} on the ground"
    elif disp[worst] > params.tolerance:
        stood, reason = False, f"{ROLES[worst]} moved {disp[worst]:.2f} cm"
    elif tilt[most] > params.fall_tilt:
        stood, reason = False, f"{ROLES[most]} tilted {tilt[most]:.1f} deg"
    elif touch:
        stood, reason = False, "walls touch"
    else:
        stood, reason = True, "stands"
    return HouseResult(
        stood=stood,
        reason=reason,
        displacement=disp,
        placed=tuple(placed[r] for r in ROLES),
        final=tuple(final[r] for r in ROLES),
        verts=tuple(shape[r] for r in ROLES),
        walls_touch=touch,
        sim_time=t,
        steps=b.steps,
        tilt=tilt,
        grounded=grounded,
        at_rest=b.at_rest and not b.fell,
        stages=tuple(stages),
        trace=tr or [],
    )


def fallen_roles(result: HouseResult, tolerance: float, fall_tilt: float) -> tuple[str, ...]:
    """The roles (ROLES order) whose stone fell in ``result``: moved more than ``tolerance`` cm,
    ended turned more than ``fall_tilt`` degrees, or (a top stone, the roof) touched the ground."""
    tilt = result.tilt or (0.0,) * len(ROLES)
    return tuple(r for r, d, t in zip(ROLES, result.displacement, tilt)
                 if d > tolerance or t > fall_tilt or r in result.grounded)


def reference_params(params: HouseParams, cap_factor: float = 4.0) -> HouseParams:
    """``params`` with every settle cap ``cap_factor`` times longer: with ``stop_on_fall=False``
    the at-rest reference the game's verdict is measured against (docs/rules-sozoikum.md)."""
    return replace(params, phase_time=params.phase_time * cap_factor, settle_time=params.settle_time * cap_factor)
