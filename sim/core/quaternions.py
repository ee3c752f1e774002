"""Quaternion helpers, in one place: the Sun's rules and table, its replay viewer and the tests use these.

Quaternions are ``(x, y, z, w)`` as PyBullet and the replay file hold them, unless a name says
``wxyz`` (viser's order). Angles are radians. Pure arithmetic (no game, no physics engine), so the
engines and the viewer can both import it without either importing the other.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

Quat = tuple[float, float, float, float]
"""``(x, y, z, w)``: a unit quaternion."""


def quat_yaw(yaw: float) -> Quat:
    """Quaternion ``(x, y, z, w)`` of a rotation by ``yaw`` (rad) about +z."""
    return (0.0, 0.0, math.sin(0.5 * yaw), math.cos(0.5 * yaw))


def quat_multiply(p: Quat | Sequence[float] | np.ndarray, q: Quat | Sequence[float] | np.ndarray) -> Quat:
    """The Hamilton product ``p q`` of two (x, y, z, w) quaternions (rotate by ``q`` first, then by ``p``).

    The components are computed in the numbers' own type (floats stay floats, numpy scalars stay
    numpy scalars), so a result is the same to the bit whichever way the operands come.
    """
    x1, y1, z1, w1 = p
    x2, y2, z2, w2 = q
    return (w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2, w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2, w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2)


def quat_rotate(q: Sequence[float], v: Iterable[float]) -> np.ndarray:
    """The vector ``v`` rotated by the unit (x, y, z, w) quaternion ``q``."""
    x, y, z, w = q
    u = np.array([x, y, z])
    v = np.asarray(list(v), dtype=float)
    return v + 2 * np.cross(u, np.cross(u, v) + w * v)


def quat_from_matrix(m: np.ndarray) -> Quat:
    """The unit quaternion of a 3x3 rotation matrix ``m`` (columns = images of the local axes)."""
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


def quat_z_row(q: Sequence[float]) -> tuple[float, float, float]:
    """Third row of the rotation matrix of ``q``: the world z components of the local x, y, z axes."""
    x, y, z, w = q
    return (2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y))


def quat_xyzw_to_wxyz(q: np.ndarray | Sequence[float]) -> np.ndarray:
    """Reorder (x, y, z, w) quaternions (any leading shape) to (w, x, y, z) (viser's order)."""
    q = np.asarray(q)
    return np.concatenate([q[..., 3:4], q[..., :3]], axis=-1)


def quat_z_to(d: np.ndarray) -> Quat:
    """The (x, y, z, w) quaternion turning +z onto the direction ``d`` (any non-zero length)."""
    d = d / np.linalg.norm(d)
    z = np.array([0.0, 0.0, 1.0])
    c = float(np.dot(z, d))
    if c < -0.999999:
        return (1.0, 0.0, 0.0, 0.0)
    axis = np.cross(z, d)
    s = math.sqrt((1 + c) * 2)
    return (axis[0] / s, axis[1] / s, axis[2] / s, s / 2)
