"""The ring's gap kernel: the one place the Sun's gap arithmetic is written (docs/sun-physics.md).

Every question about a gap between two standing positions is answered here, on plain numbers: how
far a stone stands from the ray through the gap's middle (:func:`side_clearance`), how wide the gap
is (:func:`width_between`), which separation leaves a given width (:func:`seps_for_widths`, the
width formula inverted), how much room a ball crossing the ring has (:func:`crossing_clearance`,
and :func:`crossing_clearances` for many crossings at once), whether the ball fits
(:func:`passable`), and the chance that a stand's noise makes it touch a neighbour
(:func:`bump_chance`). The ring (``sim.sun.ring.Ring``), the rules' legality checks and stand
intervals and the agents' quick scoring (``sim.sun.scoring.QuickRing``) all call these functions;
none writes the formula out again. Units: metres and radians.

A position enters the kernel as its angle and its two *factors*: ``rd``, the radius of its centre
minus half its depth (m: its inner face), and ``hw``, half its width (m). A stone at ``rd``, ``hw``
whose centre is ``h`` rad off a ray stands ``rd sin h - hw cos h`` from it (its inner corner counts);
a gap's width is the sum of its two stones' distances from the ray through its middle.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from sim.sun.specs import TAU

#: a quarter turn (rad): a stone this far or farther from a crossing is no nearer than the ring's
#: other side, so it does not bound the crossing (:func:`crossing_clearance`)
QUARTER = 0.5 * math.pi


def factors(radius: float, depth: float, width: float) -> tuple[float, float]:
    """``(rd, hw)``: the factors (m) of a position of centre radius ``radius``, ``depth`` and
    ``width`` (m): ``radius - depth / 2`` and ``width / 2``."""
    return radius - 0.5 * depth, 0.5 * width


def side_clearance(rd: float, hw: float, h: float) -> float:
    """Distance (m) from a stone of factors ``rd``, ``hw`` (m) to a ray ``h`` rad from its centre
    (negative: the ray cuts the stone)."""
    return rd * math.sin(h) - hw * math.cos(h)


def clearance_to_bisector(radius: float, depth: float, width: float, half_sep: float) -> float:
    """:func:`side_clearance` of a stone given by its centre's ``radius``, its ``depth`` and
    ``width`` (m), ``half_sep`` (rad) off the ray through a gap's middle. Each stone is measured at
    its own radius, so that stones pushed off the ring are measured where they are."""
    return side_clearance(radius - 0.5 * depth, 0.5 * width, half_sep)


def width_between(a_ang: float, a_rd: float, a_hw: float, b_ang: float, b_rd: float, b_hw: float) -> float:
    """Clear width (m) of the gap from a position at ``a_ang`` (rad) with factors ``a_rd``,
    ``a_hw`` counter-clockwise to one at ``b_ang`` with ``b_rd``, ``b_hw``, measured perpendicular
    to the ray through its middle; inf when they are a half turn or more apart (such a gap is
    always wide enough). Both ends are two distinct positions (a lone position has no gap)."""
    sep = (b_ang - a_ang) % TAU
    if sep >= math.pi:
        return math.inf
    h = 0.5 * sep
    sn, cs = math.sin(h), math.cos(h)
    return (a_rd * sn - a_hw * cs) + (b_rd * sn - b_hw * cs)


def seps_for_widths(a_rd: float, a_w: float, b_rd: float, b_w: float, widths: Sequence[float]
                    ) -> list[float | None]:
    """The separation (rad) at which two positions of factors ``a_rd``, ``b_rd`` (m) and widths
    ``a_w``, ``b_w`` (m) leave a gap of each of ``widths`` (m) between them: :func:`width_between`
    inverted (``P sin h - Q cos h = w`` with ``P`` the sum of the ``rd``, ``Q`` the half widths'
    sum); None where no separation below a half turn does."""
    p = a_rd + b_rd
    q = 0.5 * (a_w + b_w)
    r = math.hypot(p, q)
    base = math.atan2(q, p)
    out: list[float | None] = []
    for width in widths:
        if width > r:
            out.append(None)
            continue
        x = base + math.asin(width / r)
        out.append(2.0 * x if 2.0 * x < math.pi else None)
    return out


def crossing_clearance(angle: float, a_ang: float, a_rd: float, a_hw: float, b_ang: float, b_rd: float,
                       b_hw: float, ball_r: float) -> float:
    """Clear distance (m) between a ball of radius ``ball_r`` (m) crossing the ring at ``angle``
    (rad, on a line through the centre) inside the gap from the position at ``a_ang`` to the one at
    ``b_ang`` (factors ``a_rd``, ``a_hw``, ``b_rd``, ``b_hw``) and the nearer of those two stones;
    a stone a quarter turn or more from the crossing counts as 1 m away. Negative: it touches."""
    da = (angle - a_ang) % TAU
    db = (b_ang - angle) % TAU
    ca = a_rd * math.sin(da) - a_hw * math.cos(da) if da < QUARTER else 1.0
    cb = b_rd * math.sin(db) - b_hw * math.cos(db) if db < QUARTER else 1.0
    return min(ca, cb) - ball_r


def crossing_clearances(x: np.ndarray, start: np.ndarray, span: np.ndarray, closed: np.ndarray,
                        a_ang: np.ndarray, a_rd: np.ndarray, a_hw: np.ndarray, b_ang: np.ndarray,
                        b_rd: np.ndarray, b_hw: np.ndarray, ball_r: float) -> np.ndarray:
    """:func:`crossing_clearance` of many crossings at once: ``x`` (rad) with, element by element,
    the gap each one's angle falls in (its opening's ``start`` and ``span`` in rad, whether a gate
    too low ``closed`` it, its two positions' angles and factors). -1 where the crossing is outside
    the opening or under a closing gate. The vectorised form of the same arithmetic (numpy's
    element-wise sine and cosine: the agents' hot path, hundreds of crossings per decision)."""
    off = np.mod(x - start, TAU)
    inside = (span >= 0.0) & (off <= span) & ~closed
    da = np.mod(x - a_ang, TAU)
    db = np.mod(b_ang - x, TAU)
    ha, hb = np.minimum(da, QUARTER), np.minimum(db, QUARTER)
    ca = np.where(da < QUARTER, a_rd * np.sin(ha) - a_hw * np.cos(ha), 1.0)
    cb = np.where(db < QUARTER, b_rd * np.sin(hb) - b_hw * np.cos(hb), 1.0)
    return np.where(inside, np.minimum(ca, cb) - ball_r, -1.0)


def gate_clear(under: float | None, gate_clear_z: float) -> bool:
    """Whether a gap whose gate's underside is at ``under`` m (None: no gate) lets the ball
    through, given the least passable underside ``gate_clear_z`` (m, ``Geometry.gate_clear_z``)."""
    return under is None or under >= gate_clear_z


def passable(width: float, under: float | None, pass_width: float, gate_clear_z: float) -> bool:
    """Whether the ball fits through a gap ``width`` m wide under a gate at ``under`` m (None: no
    gate): at least ``pass_width`` wide and :func:`gate_clear` (docs/sun-physics.md)."""
    return width >= pass_width and (under is None or under >= gate_clear_z)


def bump_chance(widths: Sequence[float], min_clearance: float, sigma: float) -> float:
    """Chance (0-1) that a stand leaving clear ``widths`` (m) to its neighbours touches one: the
    along-the-ring placement noise (normal, ``sigma`` m) exceeding the room left beyond
    ``min_clearance`` (m) on either side, the sides summed (capped at 1). Infinite widths count
    nothing; with no noise, a side short of ``min_clearance`` counts 1."""
    out = 0.0
    for w in widths:
        free = w - min_clearance
        if not math.isfinite(free):
            continue
        if sigma <= 0.0:
            out += 1.0 if free < 0.0 else 0.0
        else:
            out += 0.5 * math.erfc(free / (sigma * math.sqrt(2.0)))
    return min(1.0, out)
