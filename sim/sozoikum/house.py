"""Sozoikum house building in a 2-D rigid-body simulation (pymunk).

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
(``stones.rest_angle``). The walls stand either side of a door of ``wall_gap`` cm: every stone of
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

Simulation: fixed step ``dt`` (default 1/120 s) and solver ``iterations``; after each placement the
space is stepped until every stone is still (speed below ``STILL_SPEED`` and spin below
``STILL_SPIN`` for ``STILL_TIME``) or ``phase_time`` passes; after the roof, until still or
``settle_time``; then optionally ``hold_time`` more seconds without early exit (the 30 s test).
With ``stop_on_fall`` (the default) the simulation also stops as soon as a stone has moved more
than the tolerance: the verdict cannot change after that, and collapses are most of the cost.

Verdict: the house **stands** iff every stone's centroid ended within ``tolerance`` cm of where the
hand released it, and no stone of wall A touches a stone of wall B (the rule "walls must not
touch"). Otherwise it collapsed; ``reason`` says which stone moved most (or that the walls touch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np
import pymunk

from sim.sozoikum.stones import StoneInfo, Vertices, rest_angle

ROLES: tuple[str, ...] = ("A1", "A2", "B1", "B2", "roof")
ROLE_NAMES = {
    "A1": "wall A bottom",
    "A2": "wall A top",
    "B1": "wall B bottom",
    "B2": "wall B top",
    "roof": "roof",
}
#: release height above the support (cm)
DROP = 0.05
#: a stone is still below this speed (cm/s) ...
STILL_SPEED = 0.3
#: ... and this spin (rad/s) ...
STILL_SPIN = 0.02
#: ... for this long (s)
STILL_TIME = 0.1
GRAVITY = 981.0  # cm/s^2
DENSITY = 2.6e-3  # kg/cm^2 of cross-section: only ratios matter for stability


@dataclass(frozen=True)
class HouseParams:
    """Physical settings of one build (lengths in cm, times in s, angles in degrees).

    Attributes:
        tolerance: a stone whose centroid moved farther than this from its release point fell.
        wall_gap: the door between the two walls.
        friction: Coulomb friction coefficient stone on stone and stone on ground.
        noise_cm: placement offset standard deviation at skill 0 (scaled by 1 - skill).
        noise_deg: placement turn standard deviation at skill 0 (scaled by 1 - skill).
        dt: fixed time step.
        iterations: pymunk solver iterations per step.
        phase_time: longest settle after each wall stone.
        settle_time: longest settle after the roof.
        hold_time: further simulated time after settling, without early exit.
    """

    tolerance: float = 1.0
    wall_gap: float = 2.0
    friction: float = 0.7
    noise_cm: float = 1.0
    noise_deg: float = 6.0
    dt: float = 1.0 / 120.0
    iterations: int = 15
    phase_time: float = 0.6
    settle_time: float = 2.5
    hold_time: float = 0.0


@dataclass(frozen=True)
class Pose:
    """A stone's centroid position (cm) and angle (rad)."""

    x: float
    y: float
    angle: float


@dataclass(frozen=True)
class HouseResult:
    """The outcome of one build.

    Attributes:
        stood: the house stands.
        reason: ``"stands"``, ``"walls touch"`` or ``"<role> moved <d> cm"`` (the worst stone).
        displacement: per role (ROLES order), centroid distance from release to the end (cm).
        placed: per role, the pose at release.
        final: per role, the pose at the end.
        verts: per role, the stone's local polygon (centroid at the origin).
        walls_touch: a stone of wall A touches a stone of wall B at the end.
        sim_time: simulated seconds.
        steps: physics steps taken.
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


class _Builder:
    """One pymunk space with the ground; stones are added one by one."""

    def __init__(self, params: HouseParams, stop_on_fall: bool) -> None:
        self.p = params
        self.stop_on_fall = stop_on_fall
        self.fell = False
        self.released: dict[str, tuple[float, float]] = {}
        space = pymunk.Space()
        space.gravity = (0.0, -GRAVITY)
        space.iterations = params.iterations
        space.collision_slop = 0.02  # cm: small against stones of several cm
        space.sleep_time_threshold = 0.3
        ground = pymunk.Segment(space.static_body, (-200.0, -1.0), (200.0, -1.0), 1.0)
        ground.friction = params.friction
        space.add(ground)
        self.space = space
        self.bodies: dict[str, pymunk.Body] = {}
        self.shapes: dict[str, pymunk.Poly] = {}
        self.shapes_local: dict[pymunk.Body, Vertices] = {}
        self.steps = 0

    def add(self, role: str, verts: Vertices, angle: float, x_center: float, support_y: float) -> Pose:
        """Release ``verts`` turned by ``angle`` with its bounding box centred at ``x_center`` and its
        lowest point DROP above ``support_y``; return the release pose."""
        v = _turn(verts, angle)
        lo, hi = min(p[0] for p in v), max(p[0] for p in v)
        x = x_center - (lo + hi) / 2.0
        y = support_y + DROP - min(p[1] for p in v)
        area = abs(_area(verts))
        mass = area * DENSITY
        body = pymunk.Body(mass, pymunk.moment_for_poly(mass, list(verts)))
        body.position = (x, y)
        body.angle = angle
        shape = pymunk.Poly(body, list(verts))
        shape.friction = self.p.friction
        shape.elasticity = 0.0
        self.space.add(body, shape)
        self.bodies[role] = body
        self.shapes[role] = shape
        self.shapes_local[body] = verts
        self.released[role] = (x, y)
        return Pose(x, y, angle)

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
        for body in self.bodies.values():
            px, py = body.position
            w = [(x + px, y + py) for x, y in _turn([tuple(q) for q in self.shapes_local[body]], body.angle)]
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

    def settle(self, longest: float, trace: list | None = None) -> float:
        """Step until every stone is still for STILL_TIME or ``longest`` seconds pass; return the time."""
        if self.fell:
            return 0.0
        dt = self.p.dt
        n = max(1, int(round(longest / dt)))
        tol2 = self.p.tolerance**2
        watch = [(b, self.released[r]) for r, b in self.bodies.items()] if self.stop_on_fall else []
        every = 4  # stillness is checked every few steps: the check costs more than a step
        need = max(1, int(round(STILL_TIME / (dt * every))))
        still = 0
        bodies = list(self.bodies.values())
        step = self.space.step
        for i in range(n):
            step(dt)
            if trace is not None:
                trace.append({r: (b.position.x, b.position.y, b.angle) for r, b in self.bodies.items()})
            if i % every:
                continue
            for b, (x0, y0) in watch:
                px, py = b.position
                if (px - x0) ** 2 + (py - y0) ** 2 > tol2:
                    # a stone fell: the house has collapsed, nothing later can undo that
                    self.fell = True
                    self.steps += i + 1
                    return (i + 1) * dt
            for b in bodies:
                if not b.is_sleeping:
                    vx, vy = b.velocity
                    if vx * vx + vy * vy > STILL_SPEED**2 or abs(b.angular_velocity) > STILL_SPIN:
                        still = 0
                        break
            else:
                still += 1
                if still >= need:
                    self.steps += i + 1
                    return (i + 1) * dt
        self.steps += n
        return n * dt

    def run(self, seconds: float) -> float:
        """Step for exactly ``seconds`` (no early exit)."""
        n = int(round(seconds / self.p.dt))
        for _ in range(n):
            self.space.step(self.p.dt)
        self.steps += n
        return n * self.p.dt


def _world(body: pymunk.Body, verts: Vertices) -> np.ndarray:
    px, py = body.position
    return np.array([(x + px, y + py) for x, y in _turn(verts, body.angle)])


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
) -> HouseResult:
    """Build a house and report whether it stands.

    Args:
        stones: five polygons (cm, counter-clockwise, centroid at the origin) in ROLES order:
            wall A bottom, wall A top, wall B bottom, wall B top, roof.
        skill: the builder's placement skill in [0, 1] (1 = no noise).
        seed: the placement noise seed (the rules' ``BuildNoise`` chance outcome).
        params: physical settings.
        trace: keep every step's poses in ``result.trace`` (for drawings; slow).
        stop_on_fall: end the simulation as soon as a stone's centroid is farther than the
            tolerance from its release point (the verdict is then settled: a collapse); stones not
            yet placed are still released, but nothing more is simulated. False simulates every
            phase to the end (to watch the whole fall).

    Raises:
        ValueError: not five stones, a polygon with fewer than 3 points, or skill outside [0, 1].
    """
    if len(stones) != 5:
        raise ValueError(f"a house needs 5 stones, got {len(stones)}")
    if any(len(v) < 3 for v in stones):
        raise ValueError("every stone needs at least 3 vertices")
    if not 0.0 <= skill <= 1.0:
        raise ValueError(f"skill {skill} outside [0, 1]")
    shape = dict(zip(ROLES, stones))
    rng = np.random.Generator(np.random.PCG64(seed))
    sx = params.noise_cm * (1.0 - skill)
    sa = math.radians(params.noise_deg) * (1.0 - skill)
    noise = {r: (float(rng.normal(0.0, 1.0)) * sx, float(rng.normal(0.0, 1.0)) * sa) for r in ROLES}
    rest = {r: _rest(tuple(shape[r])) for r in ROLES}
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

    b = _Builder(params, stop_on_fall)
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

    def snap() -> None:
        stages.append({r: Pose(bd.position.x, bd.position.y, bd.angle) for r, bd in b.bodies.items()})

    put("A1")
    put("B1")
    snap()
    t += b.settle(params.phase_time, tr)
    put("A2")
    put("B2")
    snap()
    t += b.settle(params.phase_time, tr)
    put("roof")
    snap()
    t += b.settle(params.settle_time, tr)
    if params.hold_time > 0 and not b.fell:
        t += b.run(params.hold_time)

    final = {r: Pose(bd.position.x, bd.position.y, bd.angle) for r, bd in b.bodies.items()}
    disp = tuple(math.hypot(final[r].x - placed[r].x, final[r].y - placed[r].y) for r in ROLES)
    world = {r: _world(b.bodies[r], shape[r]) for r in ("A1", "A2", "B1", "B2")}
    touch = any(polygons_touch(world[a], world[c]) for a in ("A1", "A2") for c in ("B1", "B2"))
    worst = max(range(5), key=lambda i: disp[i])
    if disp[worst] > params.tolerance:
        stood, reason = False, f"{ROLES[worst]} moved {disp[worst]:.2f} cm"
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
        stages=tuple(stages),
        trace=tr or [],
    )


# --- a cheap model of the build, for search rollouts and agents' first guesses ---------------


def house_quality(infos: Sequence[StoneInfo], wall_gap: float) -> float:
    """A rough chance in [0, 1] that a noise-free build of these stones (ROLES order) stands.

    Not physics: a product of three factors read off the stones' resting measures,

    * reach: how far the roof reaches over each wall, ``(roof width - wall_gap) / 2``; no reach
      (roof shorter than the door plus 0.3 cm a side) is 0, 1.5 cm or more is 1;
    * level: walls of equal height (the sums of their stones' heights) keep the roof level; a
      difference of half the roof's width or more is 0;
    * seats: the flatter the tops of the bottom stones, the better the top stones sit
      (``0.4 + 0.6 * min(top_flat)``), and the same for the wall tops under the roof.
    """
    a1, a2, b1, b2, roof = infos
    reach = (roof.width - wall_gap) / 2.0
    f_reach = min(1.0, max(0.0, (reach - 0.3) / 1.2))
    dh = abs((a1.height + a2.height) - (b1.height + b2.height))
    f_level = max(0.0, 1.0 - dh / (0.5 * roof.width))
    f_seat = (0.4 + 0.6 * min(a1.top_flat, b1.top_flat)) * (0.7 + 0.3 * min(a2.top_flat, b2.top_flat))
    return f_reach * f_level * f_seat


def quick_verdict(infos: Sequence[StoneInfo], skill: float, seed: int, wall_gap: float) -> bool:
    """A deterministic coin for a build without physics: stands iff ``u < quality * (0.5 + 0.5 *
    skill)``, where ``u`` in [0, 1) is hashed from the noise seed. Used only inside search
    rollouts (``SozoikumState.fast_build``), where a pymunk build per rollout would be too slow."""
    u = ((seed * 2654435761) % 2**32) / 2**32
    return u < house_quality(infos, wall_gap) * (0.5 + 0.5 * skill)
