"""The ball's free approach: the pendulum integrated outside Bullet until it nears anything.

A pass releases the ball about 0.2 m outside the base and it swings for about half its steps before
it comes near any stone (docs/sun-physics.md, "A pass"). Nothing it could touch moves meanwhile (at a
preset whose stones start asleep, Bullet neither integrates nor wakes a stone that nothing touches),
so those steps only integrate the ball. :class:`FreeSwing` integrates the same body instead, from the
state Bullet spawned it in, until the ball comes within a safe margin of the bounding box of any stone,
the base or the floor, and :meth:`FreeSwing.hand_over` then sets that state on Bullet's joint.

The body is the one :meth:`sim.sun.table.world.TableWorld._create_ball` builds: a rigid sphere of mass
``m`` and central inertia ``I_c`` (PyBullet gives the link the sphere's ``2/5 m r^2``, read back from
the engine) on a massless rod of length ``L`` from a fixed pivot, one spherical joint, no damping (the
world sets the multibody's linear and angular damping and the joint damping to 0, so Bullet's
velocity-proportional drag is zero; there is no air drag in the model). Its state is the joint's
quaternion ``q`` (link to world, PyBullet's (x, y, z, w)) and its angular velocity ``w`` (world).
With an isotropic ``I_c`` the angular momentum about the pivot is ``H = I_c w + m l x (w x l)``
(``l`` = pivot to centre); the spawn gives ``w`` perpendicular to ``l`` (``w = l x v / |l|^2``) and
gravity's torque ``l x m g`` keeps it so (``d(w.l)/dt = 0``), so ``H = (I_c + m L^2) w`` and the exact
equations are::

    dq/dt = 1/2 (w, 0) (x) q            dw/dt = m (l x g) / (I_c + m L^2)

(a spherical pendulum with gravity scaled by ``m L^2 / (I_c + m L^2)``). They are integrated with
the classical fourth-order Runge-Kutta method, one step per check chunk of the pass (``hz/30``
Bullet steps, 33 ms): its error over a whole approach is below a micrometre (tests/sun/test_sun_free_swing.py
measures it against the elliptic-integral period and against a finer integration), against Bullet's
own ``v dt / 2`` (about 1.4 mm at 240 Hz: its semi-implicit Euler lags the exact position by half a
step, which the test also measures). Pure Python floats: a numpy call per operation would cost more
than the Bullet steps it replaces.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from sim.core.quaternions import quat_matrices

#: (x, y, z, w, wx, wy, wz): the joint's quaternion (x, y, z, w) and the angular velocity (rad/s, world)
State = tuple[float, float, float, float, float, float, float]

#: Extra clearance (m) kept between the ball's bounding box and any other's, beyond what the next
#: chunk can move it: covers the integration error (under 1 um) many times over.
SAFETY_M = 0.001


class FreeSwing:
    """The ball on its string, integrated exactly (see the module docstring).

    Args:
        pivot: the pivot (m, world).
        length: string length ``L`` (m), pivot to the ball's centre.
        mass: ball mass (kg).
        inertia: the ball's central moment of inertia (kg m^2; isotropic).
        gravity: gravitational acceleration (m/s^2, along -z).

    Raises:
        ValueError: a length, mass or inertia that is not positive and finite.
    """

    def __init__(self, pivot: Sequence[float], length: float, mass: float, inertia: float, gravity: float) -> None:
        for name, v in (("length", length), ("mass", mass), ("inertia", inertia)):
            if not (math.isfinite(v) and v > 0.0):
                raise ValueError(f"{name} must be positive and finite, not {v!r}")
        self.pivot = (float(pivot[0]), float(pivot[1]), float(pivot[2]))
        self.length = float(length)
        #: dw/dt = k (l x (0, 0, -1)): gravity's torque over the moment of inertia about the pivot (1/s^2 per m)
        self.k = mass * gravity / (inertia + mass * length * length)
        self.mass = float(mass)
        self.gravity = float(gravity)

    # ---- the equations ------------------------------------------------------------------------

    def _deriv(self, s: State) -> State:
        x, y, z, w, ox, oy, oz = s
        L, k = self.length, self.k
        # l = R(q) (0, 0, -L): minus L times the third column of the rotation matrix
        lx = -2.0 * L * (x * z + w * y)
        ly = -2.0 * L * (y * z - w * x)
        # l x (0, 0, -k) = (-k ly, k lx, 0)
        return (0.5 * (w * ox + oy * z - oz * y), 0.5 * (w * oy + oz * x - ox * z),
                0.5 * (w * oz + ox * y - oy * x), -0.5 * (ox * x + oy * y + oz * z),
                -k * ly, k * lx, 0.0)

    def advance(self, s: State, h: float) -> State:
        """The state ``h`` seconds later: one classical Runge-Kutta step, the quaternion renormalised."""
        d = self._deriv
        hh = 0.5 * h
        x, y, z, w, ox, oy, oz = s
        a1, b1, c1, e1, f1, g1, _ = d(s)
        oz += 0.0  # dw_z/dt is 0 (gravity's torque is horizontal); + 0.0 as the generic sum gave it
        a2, b2, c2, e2, f2, g2, _ = d((x + hh * a1, y + hh * b1, z + hh * c1, w + hh * e1, ox + hh * f1, oy + hh * g1, oz))
        a3, b3, c3, e3, f3, g3, _ = d((x + hh * a2, y + hh * b2, z + hh * c2, w + hh * e2, ox + hh * f2, oy + hh * g2, oz))
        a4, b4, c4, e4, f4, g4, _ = d((x + h * a3, y + h * b3, z + h * c3, w + h * e3, ox + h * f3, oy + h * g3, oz))
        h6 = h / 6.0
        x += h6 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        y += h6 * (b1 + 2.0 * b2 + 2.0 * b3 + b4)
        z += h6 * (c1 + 2.0 * c2 + 2.0 * c3 + c4)
        w += h6 * (e1 + 2.0 * e2 + 2.0 * e3 + e4)
        n = 1.0 / math.sqrt(x * x + y * y + z * z + w * w)
        return (x * n, y * n, z * n, w * n, ox + h6 * (f1 + 2.0 * f2 + 2.0 * f3 + f4),
                oy + h6 * (g1 + 2.0 * g2 + 2.0 * g3 + g4), oz)

    # ---- the ball's centre --------------------------------------------------------------------

    def centre(self, s: State) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """The ball's centre (m, world) and its velocity (m/s, world) in state ``s``."""
        x, y, z, w, ox, oy, oz = s
        L = self.length
        lx = -2.0 * L * (x * z + w * y)
        ly = -2.0 * L * (y * z - w * x)
        lz = -L * (1.0 - 2.0 * (x * x + y * y))
        px, py, pz = self.pivot
        return (px + lx, py + ly, pz + lz), (oy * lz - oz * ly, oz * lx - ox * lz, ox * ly - oy * lx)

    def energy(self, s: State) -> float:
        """The ball's energy as the pass's check counts it (J): ``1/2 m v^2 + m g z`` of its centre."""
        (_, _, z), (vx, vy, vz) = self.centre(s)
        return 0.5 * self.mass * (vx * vx + vy * vy + vz * vz) + self.mass * self.gravity * z

    # ---- the joint ----------------------------------------------------------------------------

    @staticmethod
    def from_joint(q: Sequence[float], w_local: Sequence[float]) -> State:
        """The state from a spherical joint's position (quaternion) and velocity (link frame)."""
        x, y, z, w = (float(v) for v in q)
        r = _rotation(x, y, z, w)
        wl = np.asarray(w_local, dtype=float)
        ow = r @ wl
        return (x, y, z, w, float(ow[0]), float(ow[1]), float(ow[2]))

    @staticmethod
    def to_joint(s: State) -> tuple[list[float], list[float]]:
        """The joint's position (quaternion) and velocity (link frame) for ``resetJointStateMultiDof``."""
        x, y, z, w, ox, oy, oz = s
        wl = _rotation(x, y, z, w).T @ np.array([ox, oy, oz])
        return [x, y, z, w], [float(wl[0]), float(wl[1]), float(wl[2])]


def _rotation(x: float, y: float, z: float, w: float) -> np.ndarray:
    return quat_matrices(((x, y, z, w),))[0]


def boxes_clear(boxes_centre: np.ndarray, boxes_half: np.ndarray, centre: Sequence[float],
                half: Sequence[float]) -> bool:
    """Whether the axis-aligned box of half-extents ``half`` about ``centre`` (m) overlaps none of the
    axis-aligned boxes (centres and half-extents, m, shape (n, 3)): each is separated along at
    least one axis."""
    if len(boxes_centre) == 0:
        return True
    gap = np.abs(boxes_centre - np.asarray(centre)) - boxes_half - np.asarray(half)
    return bool(gap.max(axis=1).min() > 0.0)


class FreeApproach:
    """The free part of one pass's swing, chunk by chunk, kept for every run of the pass (a rerun
    with a larger active set starts from the same poses and releases the same ball).

    Args:
        swing: the ball's equations.
        h: the chunk's duration (s): the pass checks the ball after each.
        boxes_centre, boxes_half: the axis-aligned bounding boxes of every stone, the base and the
            floor at the poses loaded (m, shape (n, 3)), each grown by Bullet's contact threshold as
            its broadphase grows them.
        reach_m: the ball's own bounding half-side (its radius plus the contact threshold, m).
    """

    def __init__(self, swing: FreeSwing, h: float, boxes_centre: np.ndarray, boxes_half: np.ndarray,
                 reach_m: float) -> None:
        self.swing = swing
        self.h = float(h)
        self.boxes_centre = boxes_centre
        self.boxes_half = boxes_half
        self.reach_m = float(reach_m)
        # The ball's centre never goes below the pivot less the string: a box whose top lies below
        # the ball's box there (the base and the floor, with the layout's rest clearance) is never
        # reached and is left out.
        lowest = swing.pivot[2] - swing.length - self.reach_m - SAFETY_M
        keep = boxes_centre[:, 2] + boxes_half[:, 2] >= lowest if len(boxes_centre) else np.zeros(0, dtype=bool)
        self.boxes_centre = boxes_centre[keep]
        self.boxes_half = boxes_half[keep]
        # A quick test first: every box left lies within ``_outer`` (m) of the vertical axis through
        # the pivot, so a ball's box whose horizontal half-extents are at most s about a centre rho
        # from the axis is clear of them all when rho - s sqrt(2) > _outer.
        if len(self.boxes_centre):
            self._outer = float(np.hypot(np.abs(self.boxes_centre[:, 0]) + self.boxes_half[:, 0],
                                         np.abs(self.boxes_centre[:, 1]) + self.boxes_half[:, 1]).max())
        else:
            self._outer = -math.inf
        #: states[i]: the state after i chunks (states[0]: as released)
        self.states: list[State] = []
        #: the chunk after the last state may bring the ball near a box: Bullet takes over there
        self.blocked = False

    def start(self, s0: State) -> None:
        """Begin at the released state (ignored after the first run: every run releases the same ball)."""
        if not self.states:
            self.states.append(s0)

    def state(self, i: int) -> State | None:
        """The state after ``i`` chunks (``i >= 1``), or None when the ball's bounding box may overlap
        another's before then (its box grown by the furthest the next chunk can move it, plus
        :data:`SAFETY_M`): Bullet's broadphase would pair them, merge their islands and wake an
        asleep stone, so from there on Bullet steps the ball."""
        sw = self.swing
        while len(self.states) <= i and not self.blocked:
            s = self.states[-1]
            c, (vx, vy, vz) = sw.centre(s)
            # the box the ball's own box sweeps in the next chunk: each axis grown by the furthest
            # the centre can move along it (its speed along the axis, then at most a_max)
            vmax = math.sqrt(vx * vx + vy * vy + vz * vz) + sw.gravity * self.h
            drift = 0.5 * (sw.gravity + vmax * vmax / sw.length) * self.h * self.h + self.reach_m + SAFETY_M
            half = (abs(vx) * self.h + drift, abs(vy) * self.h + drift, abs(vz) * self.h + drift)
            if (math.hypot(c[0], c[1]) - max(half[0], half[1]) * math.sqrt(2.0) <= self._outer
                    and not boxes_clear(self.boxes_centre, self.boxes_half, c, half)):
                self.blocked = True
                break
            self.states.append(sw.advance(s, self.h))
        return self.states[i] if i < len(self.states) else None


def pose_boxes(poses: Sequence[tuple[Sequence[float], Sequence[float], Sequence[float]]], grow: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned bounding boxes of boxes at poses: each ``(position, quaternion (x, y, z, w),
    half-extents)`` in m, every box grown by ``grow`` (m). Returns (centres, half-extents), shape (n, 3)."""
    if not poses:
        return np.zeros((0, 3)), np.zeros((0, 3))
    c = np.array([x[0] for x in poses], dtype=float)
    e = np.array([x[2] for x in poses], dtype=float)
    r = quat_matrices([x[1] for x in poses])
    half = np.einsum("nij,nj->ni", np.abs(r), e) + grow
    return c, half
