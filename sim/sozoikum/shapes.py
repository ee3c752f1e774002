"""Seeded stone shapes for Sozoikum: every stone in the bag is an individual convex polygon.

A stone is identified in the rules by a *shape seed* (an unsigned 32-bit integer drawn by the chance
node that takes it out of the bag, see ``rules.DrawStone``). :func:`stone_shape` turns a seed and the
size range into the polygon, always the same for the same inputs (a PCG64 generator seeded with the
seed; no global randomness).

Geometry (2-D cross-section, centimetres):

* a slab: a rectangle of aspect 0.30-0.85 whose top face is tilted (normal, sd 0.12 rad), whose
  four corners are cut off by 0-45 % of its height and whose 8 points are jittered (sd 3 % of the
  height); the convex hull of those points, centred on its centroid (field stones used for
  building are flattish; round pebbles make no house);
* scaled so that its largest extent (diameter) is uniform in ``[size_min, size_max]``.

A stone is always put down on its **longest edge** (its flattest side): :func:`rest_angle` gives the
rotation that puts that edge at the bottom, horizontal. :class:`StoneInfo` holds the resting
measures the agents use (width, height, how flat the top is).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

Vertices = tuple[tuple[float, float], ...]

#: stones are drawn with seeds below this bound
SEED_BOUND = 2**32


def _hull(points: np.ndarray) -> np.ndarray:
    """Counter-clockwise convex hull (Andrew's monotone chain) of an (n, 2) array."""
    pts = sorted(map(tuple, points))

    def cross(o: tuple, a: tuple, b: tuple) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 1e-12:
            lower.pop()
        lower.append(p)
    upper: list[tuple] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 1e-12:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1], dtype=float)


def polygon_centroid(v: np.ndarray) -> tuple[float, np.ndarray]:
    """Area (cm^2, positive for counter-clockwise) and centroid of a simple polygon."""
    x, y = v[:, 0], v[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    c = x * yn - xn * y
    a = c.sum() / 2.0
    cx = ((x + xn) * c).sum() / (6.0 * a)
    cy = ((y + yn) * c).sum() / (6.0 * a)
    return float(a), np.array([cx, cy])


@lru_cache(maxsize=8192)
def stone_shape(seed: int, size_min: float = 3.0, size_max: float = 8.0) -> Vertices:
    """The convex polygon of stone ``seed``, counter-clockwise, centroid at the origin (cm).

    Raises:
        ValueError: the seed is negative or not below 2**32, or the size range is empty.
    """
    if not 0 <= seed < SEED_BOUND:
        raise ValueError(f"stone seed {seed} outside [0, 2**32)")
    if not 0 < size_min <= size_max:
        raise ValueError(f"bad stone size range [{size_min}, {size_max}]")
    rng = np.random.Generator(np.random.PCG64(seed))
    size = float(rng.uniform(size_min, size_max))
    aspect = float(rng.uniform(0.3, 0.85))
    w, h = 1.0, aspect
    slant = float(rng.normal(0.0, 0.12))  # top face tilt (rad): walls of such stones lean
    cut = rng.uniform(0.0, 0.45, 4) * h  # corner chamfers: rounded, irregular stones
    jit = rng.normal(0.0, 0.03, (8, 2)) * h
    top_l, top_r = h / 2 - slant / 2, h / 2 + slant / 2
    pts = np.array(
        [
            (-w / 2 + cut[0], -h / 2),
            (w / 2 - cut[1], -h / 2),
            (w / 2, -h / 2 + cut[1]),
            (w / 2, top_r - cut[2]),
            (w / 2 - cut[2], top_r),
            (-w / 2 + cut[3], top_l),
            (-w / 2, top_l - cut[3]),
            (-w / 2, -h / 2 + cut[0]),
        ]
    )
    hull = _hull(pts + jit)
    area, c = polygon_centroid(hull)
    hull = hull - c
    diff = hull[:, None, :] - hull[None, :, :]
    diam = float(np.sqrt((diff**2).sum(axis=2)).max())
    hull = hull * (size / diam)
    return tuple((round(float(x), 6), round(float(y), 6)) for x, y in hull)


def rest_angle(verts: Vertices) -> float:
    """Rotation (radians) that puts the polygon's longest edge at the bottom, horizontal."""
    best, best_len = 0.0, -1.0
    n = len(verts)
    for i in range(n):
        (x0, y0), (x1, y1) = verts[i], verts[(i + 1) % n]
        length = math.hypot(x1 - x0, y1 - y0)
        if length > best_len + 1e-9:
            best_len = length
            # counter-clockwise polygon: an edge at the bottom runs left to right (+x)
            best = -math.atan2(y1 - y0, x1 - x0)
    return best


def rotate(verts: Vertices, angle: float) -> np.ndarray:
    """The vertices rotated by ``angle`` radians about the origin, as an (n, 2) array."""
    c, s = math.cos(angle), math.sin(angle)
    v = np.asarray(verts, dtype=float)
    return np.column_stack((c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]))


@dataclass(frozen=True)
class StoneInfo:
    """Resting measures of a stone lying on its longest edge (cm).

    Attributes:
        width: horizontal extent.
        height: vertical extent.
        base: length of the bottom (longest) edge.
        top_flat: length of the part of the outline within 10 % of the height from the top, as a
            share of the width (1.0 = flat top, near 0 = pointed top).
        area: cm^2.
    """

    width: float
    height: float
    base: float
    top_flat: float
    area: float


@lru_cache(maxsize=8192)
def stone_info(seed: int, size_min: float = 3.0, size_max: float = 8.0) -> StoneInfo:
    """:class:`StoneInfo` of stone ``seed`` (cached)."""
    verts = stone_shape(seed, size_min, size_max)
    v = rotate(verts, rest_angle(verts))
    xs, ys = v[:, 0], v[:, 1]
    width = float(xs.max() - xs.min())
    height = float(ys.max() - ys.min())
    near_top = xs[ys >= ys.max() - 0.1 * height]
    top_flat = float(near_top.max() - near_top.min()) / width if width > 0 else 0.0
    bottom = xs[ys <= ys.min() + 1e-6]
    base = float(bottom.max() - bottom.min()) if len(bottom) > 1 else 0.0
    area, _ = polygon_centroid(np.asarray(verts, dtype=float))
    return StoneInfo(width, height, base, top_flat, abs(area))
