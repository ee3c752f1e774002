"""Quaternion helpers of the viewer, in one place.

Quaternions are ``(x, y, z, w)`` as PyBullet and the replay file hold them, unless a name says
``wxyz`` (viser's order). Angles are radians.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np


def quat_mul(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> np.ndarray:
    """The product ``a * b`` of two (x, y, z, w) quaternions (``b`` is applied first)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def quat_rotate(q: Sequence[float], v: Iterable[float]) -> np.ndarray:
    """The vector ``v`` rotated by the unit (x, y, z, w) quaternion ``q``."""
    x, y, z, w = q
    u = np.array([x, y, z])
    v = np.asarray(list(v), dtype=float)
    return v + 2 * np.cross(u, np.cross(u, v) + w * v)


def quat_xyzw_to_wxyz(q: np.ndarray | Sequence[float]) -> np.ndarray:
    """Reorder (x, y, z, w) quaternions (any leading shape) to (w, x, y, z) (viser's order)."""
    q = np.asarray(q)
    return np.concatenate([q[..., 3:4], q[..., :3]], axis=-1)


def quat_z_to(d: np.ndarray) -> tuple[float, float, float, float]:
    """The (x, y, z, w) quaternion turning +z onto the direction ``d`` (any non-zero length)."""
    d = d / np.linalg.norm(d)
    z = np.array([0.0, 0.0, 1.0])
    c = float(np.dot(z, d))
    if c < -0.999999:
        return (1.0, 0.0, 0.0, 0.0)
    axis = np.cross(z, d)
    s = math.sqrt((1 + c) * 2)
    return (axis[0] / s, axis[1] / s, axis[2] / s, s / 2)
