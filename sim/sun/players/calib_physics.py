"""The physics behind `stonelab sun calibrate` (docs/playtest-log.md, "What the fit does"): a
two-gap test ring, the outcome table sampled from it, and the smooth pass model built on the table.

The two lateral errors of a pass form a plane: the aim error ``a`` (mm at the ring, ``ring_radius
* aim error``) and the sideways push ``p`` (mm, the push times :func:`push_gain_s`, the sideways
drift it causes at the ring). :func:`outcome_table` runs deterministic physics passes along
``DIRECTIONS`` rays of that plane, every ``STEP_MM`` of miss distance from 0 until the ray has
lost a stone at every sample for ``STOP_MM``. Each sample's outcome is kept: the loss along a ray
is not monotone in the miss distance (at 42 mm, a ray may lose a stone at 6.5 mm, pass clean to
11.75 mm and lose beyond), so the table records where passes are lost rather than one boundary,
and the region right beyond the first loss, where knocked outcomes lie, is sampled as densely as
the rest.

:class:`PassModel` turns the samples of each ray into smooth outcome probabilities along it (a
Gaussian kernel average of width ``SMOOTH_MM``, which stands for what the table omits: the release
distance error and the push along the swing), interpolates linearly between rays, and averages
over ``N_CRN`` fixed standard-normal draws of the errors (common random numbers: the likelihood
is a smooth, deterministic function of the sigmas).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import optimize
from scipy.special import ndtr

from sim.core.errors import InputError
from sim.sun.geometry.gaps import clearance_to_bisector
from sim.sun.players.thrower import ThrowNoise
from sim.sun.table.layout import Layout, StoneSpec
from sim.sun.table.sun_table import SunTable

#: A log's widths must lie in this range (mm): below it the ball cannot pass at all and above
#: it the test ring of 16 blocks (:func:`two_gap_layout`) has no room.
WIDTH_RANGE_MM = (5.0, 120.0)

#: Rays of the (aim, push) error plane per width; the plane's point symmetry (mirror layout)
#: means the half plane a >= 0 covers everything.
DIRECTIONS = 12
#: Spacing (mm) of the physics passes along a ray.
STEP_MM = 0.5
#: A ray stops once every pass over this much miss distance (mm) lost a stone; beyond its last
#: sample every pass is taken as lost, pushed off in the share of those last samples.
STOP_MM = 8.0
#: Beyond the gap's half width, a ray stops at this extra miss distance (mm) at the latest.
REACH_MM = 20.0
#: Kernel width (mm) of the outcome probabilities along a ray.
SMOOTH_MM = 0.5
#: Common random numbers per group of identical passes.
N_CRN = 4000
#: Outcome codes of a table sample.
CLEAN, KNOCKED, PUSHED = 0, 1, 2


def two_gap_layout(width_m: float, base: Layout | None = None) -> Layout:
    """Sixteen blocks on the ring leaving two opposite gaps of ``width_m`` at 0 and 180 degrees.

    Each half ring holds eight blocks evenly spread between the gap edges, so the gaps between
    them (12-20 mm) are too narrow for the ball: a pass that misses the two wide gaps hits blocks.
    The physical parameters (table, ball, shapes, physics preset) come from ``base``.

    Raises:
        InputError: width outside :data:`WIDTH_RANGE_MM`.
    """
    lo, hi = WIDTH_RANGE_MM
    if not lo <= width_m * 1000 <= hi:
        raise InputError(f"gap width must be from {lo:g} to {hi:g} mm, not {width_m * 1000:g}", key="width_mm")
    base = base or Layout()
    R = base.table.ring_radius
    blk = base.shapes["block"]
    sep = optimize.brentq(lambda s: 2 * clearance_to_bisector(R, blk.depth, blk.width, 0.5 * s) - width_m, 1e-4, 2.5)
    angles = []
    for start in (0.0, math.pi):
        angles += list(np.linspace(start + sep / 2, start + math.pi - sep / 2, 8))
    stones = tuple(StoneSpec("block", math.degrees(a) % 360.0) for a in angles)
    return replace(base, stones=stones, gates=(), source=f"two-gap test layout, {width_m * 1000:g} mm")


def push_gain_s(layout: Layout) -> float:
    """Sideways drift (m) at the ring per m/s of sideways push at release (s).

    A pendulum released at distance ``A`` from the centre with a sideways velocity ``v`` moves on
    an ellipse ``x = A cos(w t)``, ``y = (v / w) sin(w t)``; it crosses the ring radius ``R`` where
    ``sin(w t) = sqrt(1 - (R/A)^2)``.
    """
    A = layout.table.base_radius + layout.table.hand_span
    w = math.sqrt(layout.physics.gravity / layout.ball.string_length)
    return math.sqrt(max(0.0, 1.0 - (layout.table.ring_radius / A) ** 2)) / w


def outcome_of(res: Any) -> str:
    """``clean``, ``knocked`` or ``pushed_off`` (docs/playtest-log.md) of a :class:`TablePass`."""
    if not res.penalties:
        return "clean"
    return "pushed_off" if any(p.cause == "pushed_off" for p in res.penalties) else "knocked"


@dataclass(frozen=True)
class OutcomeTable:
    """Outcomes of deterministic passes through a two-gap layout of one width.

    Attributes:
        width_mm: gap width.
        theta: ray directions in the (aim mm, push mm) plane (rad, in [-pi/2, pi/2), evenly spaced).
        step_mm: spacing of the samples along a ray; sample ``k`` lies at ``k * step_mm``.
        outcomes: per ray and sample, :data:`CLEAN`, :data:`KNOCKED`, :data:`PUSHED` or -1 past
            the ray's last sample.
        passes: physics passes it took.
    """

    width_mm: float
    theta: np.ndarray
    step_mm: float
    outcomes: np.ndarray
    passes: int

    @classmethod
    def from_boundary(cls, width_mm: float, r_boundary_mm: np.ndarray, p_pushed: float,
                      step_mm: float = 0.02) -> OutcomeTable:
        """A synthetic table whose rays lose a stone exactly from ``r_boundary_mm`` on, pushed off
        at every ``1 / p_pushed``-th sample (for tests with a known answer)."""
        n = len(r_boundary_mm)
        theta = -0.5 * math.pi + math.pi * np.arange(n) / n
        k = int(math.ceil((float(np.max(r_boundary_mm)) + STOP_MM) / step_mm)) + 1
        r = np.arange(k) * step_mm
        out = np.where(r[None, :] >= np.asarray(r_boundary_mm)[:, None], KNOCKED, CLEAN).astype(np.int8)
        if p_pushed > 0:
            pushed = (np.floor((np.arange(k) + 1) * p_pushed) - np.floor(np.arange(k) * p_pushed)) > 0
            out = np.where((out == KNOCKED) & pushed[None, :], PUSHED, out).astype(np.int8)
        return cls(width_mm, theta, step_mm, out, 0)

    def first_loss_mm(self) -> np.ndarray:
        """Miss distance of the first lost stone along each ray (mm; midway between the last clean
        sample and the first lost one)."""
        out = []
        for row in self.outcomes:
            lost = np.flatnonzero(row > CLEAN)
            out.append((lost[0] - 0.5) * self.step_mm if lost.size and lost[0] > 0 else 0.0)
        return np.array(out)

    def steady_loss_mm(self) -> np.ndarray:
        """Miss distance along each ray from which every sample lost a stone (mm)."""
        out = []
        for row in self.outcomes:
            seen = row[row >= 0]
            clean = np.flatnonzero(seen == CLEAN)
            out.append((clean[-1] + 0.5) * self.step_mm if clean.size else 0.0)
        return np.array(out)


def outcome_table(width_mm: float, base: Layout | None = None, directions: int = DIRECTIONS,
                  step_mm: float = STEP_MM) -> OutcomeTable:
    """Sample the outcomes of a two-gap layout along ``directions`` rays (physics passes).

    Every pass starts from the same settled table, aims at the middle of the gap at 0 degrees
    with zero release error and a purely sideways push, so it is deterministic.

    Raises:
        InputError: width out of range.
    """
    lay = two_gap_layout(width_mm / 1000.0, base)
    R = lay.table.ring_radius
    k = push_gain_s(lay)
    theta = -0.5 * math.pi + math.pi * np.arange(directions) / directions
    n_max = int(math.ceil((width_mm / 2 + REACH_MM) / step_mm)) + 1
    run_stop = int(round(STOP_MM / step_mm))
    out = np.full((directions, n_max), -1, dtype=np.int8)
    code = {"clean": CLEAN, "knocked": KNOCKED, "pushed_off": PUSHED}
    n = 0
    with SunTable.from_layout(lay) as t:
        start = t.snapshot()
        for i, th in enumerate(theta):
            run = 0
            for j in range(n_max):
                r = j * step_mm
                t.restore(start)
                # the grid point's aim error is the pass's aim (rad, exact), its push the noise's
                aim = r * math.cos(th) / 1000 / R
                noise = ThrowNoise(push_y=r * math.sin(th) / 1000 / k)
                out[i, j] = code[outcome_of(t.pass_ball(aim, None, noise))]
                n += 1
                run = run + 1 if out[i, j] != CLEAN else 0
                if run >= run_stop:
                    break
    return OutcomeTable(width_mm, theta, step_mm, out, n)


class PassModel:
    """Outcome probabilities of passes as a smooth function of ``sigma_aim_deg`` and ``sigma_push_mps``.

    Args:
        tables: one :class:`OutcomeTable` per width (mm) in the log.
        ring_radius_m, push_gain: convert the sigmas into mm at the ring.
        n_crn: common random numbers per group; seed: their seed.
        smooth_mm: kernel width of the outcome probabilities along a ray.
    """

    def __init__(self, tables: dict[float, OutcomeTable], ring_radius_m: float, push_gain: float,
                 n_crn: int = N_CRN, seed: int = 20261201, smooth_mm: float = SMOOTH_MM) -> None:
        self.tables = tables
        self.R_mm = ring_radius_m * 1000.0
        self.k_mm = push_gain * 1000.0
        self.z = np.random.default_rng(seed).standard_normal((n_crn, 2))
        self.smooth = smooth_mm
        self._profiles = {w: self._profile(t) for w, t in tables.items()}

    def _profile(self, tab: OutcomeTable) -> tuple[float, np.ndarray, np.ndarray]:
        """(grid step, P(lost), P(pushed off)) on a fine grid of miss distances, per ray.

        Each sample stands for the step of miss distance it starts (a sharp boundary between two
        samples is placed midway); the kernel average over those steps is exact for a piecewise
        constant outcome. Past a ray's last sample the outcome is the share of its last
        ``STOP_MM`` of samples (all lost, by the stop rule).
        """
        h = max(self.smooth, 1e-9)
        d = tab.step_mm
        tail = int(round(STOP_MM / d))
        n_samp = tab.outcomes.shape[1]
        dg = max(min(d, h), d / 8) / 4  # fine enough for linear interpolation to follow the kernel
        grid = np.arange(0.0, (n_samp + 1) * d + 6 * h + dg, dg)
        lost = np.empty((len(tab.theta), grid.size))
        pushed = np.empty_like(lost)
        for i, row in enumerate(tab.outcomes):
            seen = row[row >= 0]
            last = seen[-tail:]
            # Step k covers [(k - 1/2) d, (k + 1/2) d) (the first from 0, and mirrored below 0: a
            # miss of -r is a miss of r); past the last step, the tail's shares up to infinity. The
            # kernel average of such a step function telescopes into its jumps:
            # P(r) = v_tail + sum_k Phi((e_k - r) / h) (v_{k-1} - v_k) over the step edges e_k.
            for target, vals, v_tail in ((lost, (seen > CLEAN).astype(float), float(np.mean(last > CLEAN))),
                                         (pushed, (seen == PUSHED).astype(float), float(np.mean(last == PUSHED)))):
                v = np.append(vals, v_tail)
                jump = v[:-1] - v[1:]
                k = np.flatnonzero(jump)
                edges = (k + 0.5) * d
                target[i] = v_tail + (ndtr((edges[None, :] - grid[:, None]) / h) * jump[k][None, :]).sum(axis=1)
        # the last grid point stands for everything beyond it
        return dg, lost, pushed

    def probabilities(self, width_mm: float, aim_offset_mm: float, sigma_aim_deg: float,
                      sigma_push_mps: float) -> np.ndarray:
        """P(clean), P(knocked), P(pushed_off) of a pass (each clipped to at least 1e-9)."""
        tab = self.tables[width_mm]
        dg, lost, pushed = self._profiles[width_mm]
        a = aim_offset_mm + self.R_mm * math.radians(sigma_aim_deg) * self.z[:, 0]
        p = self.k_mm * sigma_push_mps * self.z[:, 1]
        # Point symmetry of the layout: (a, p) and (-a, -p) are the same pass mirrored.
        neg = a < 0
        a = np.where(neg, -a, a)
        p = np.where(neg, -p, p)
        r = np.hypot(a, p)
        th = np.arctan2(p, a)
        th = np.where(th >= 0.5 * math.pi, th - math.pi, th)
        n_ray = len(tab.theta)
        u = (th - tab.theta[0]) / (math.pi / n_ray)
        i0 = np.floor(u).astype(int) % n_ray
        fu = u - np.floor(u)
        i1 = (i0 + 1) % n_ray
        # ray n_ray is ray 0 mirrored (theta + pi): the same physics passes
        v = np.minimum(r / dg, lost.shape[1] - 1.000001)
        j0 = np.floor(v).astype(int)
        fv = v - j0

        def at(tabv: np.ndarray) -> np.ndarray:
            row0 = tabv[i0, j0] * (1 - fv) + tabv[i0, j0 + 1] * fv
            row1 = tabv[i1, j0] * (1 - fv) + tabv[i1, j0 + 1] * fv
            return row0 * (1 - fu) + row1 * fu

        p_lost = float(at(lost).mean())
        p_push = float(at(pushed).mean())
        out = np.array([1.0 - p_lost, p_lost - p_push, p_push])
        return np.clip(out, 1e-9, 1.0)
