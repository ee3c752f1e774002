"""Fit a thrower's sigmas to a playtest log by maximum likelihood (docs/playtest-log.md).

The pipeline:

1. :func:`sim.sun.playtest_log.read_log` reads and validates the CSV (one line per pass or placement).
2. For every gap width in the log, :func:`outcome_table` asks the physics (a
   :class:`~sim.sun.table.SunTable` with two opposite gaps of that width, :func:`two_gap_layout`)
   where, in the plane of the two lateral errors of a pass, a pass stops being clean: the aim
   error ``a`` (mm at the ring, ``ring_radius * aim error``) and the sideways push ``p`` (mm, the
   push times :func:`push_gain_s`, the sideways drift it causes at the ring). Along each of
   ``DIRECTIONS`` rays of that plane a bisection finds the miss distance ``r_b(theta)`` of the
   first lost stone, and a few passes beyond it give the share of pushed-off stones.
3. :class:`PassModel` turns that boundary into outcome probabilities: a pass with errors
   ``(a, p)`` at distance ``r`` along direction ``theta`` loses a stone with probability
   ``Phi((r - r_b(theta)) / s)`` (a probit in the miss distance; ``s`` = ``SMOOTH_MM`` stands for
   the physics' sensitivity to what the table omits: release distance, the push along the swing),
   averaged over ``N_CRN`` fixed standard-normal draws of the errors (common random numbers: the
   likelihood is a smooth, deterministic function of the sigmas).
4. :func:`fit` maximises the likelihood with scipy, gives each parameter a profile-likelihood
   95 % interval (likelihood-ratio test, chi-square with 1 degree of freedom), says "not
   identifiable" when the interval reaches the search bound or the likelihood is flat, and checks
   the fit per width (Pearson chi-square of observed vs expected outcome counts).
5. Placement lines (intended and actual position) give ``sigma_place_m`` and ``sigma_place_deg``
   in closed form (the maximum-likelihood normal scale, exact chi-square intervals).

:func:`simulate_log` writes a log from a known thrower through the real physics (every pass a
full :meth:`SunTable.pass_ball` with :meth:`Thrower.draw_pass` noise), for the sample file and
the recovery test.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
from scipy import optimize, stats
from scipy.special import ndtr

from sim.core.errors import InputError, allowed
from sim.core.outputs import write_atomically
from sim.core.tomlw import toml_value
from sim.sun.layout import Layout, StoneSpec
from sim.sun.playtest_log import OUTCOMES, PLACE_COLUMNS, WIDTH_RANGE_MM, PassRecord, PlaceRecord, PlaytestLog
from sim.sun.ring import clearance_to_bisector
from sim.sun.thrower import Thrower, dump_skill_toml

#: Rays of the (aim, push) error plane searched per width; the plane's point symmetry
#: (mirror layout) means the half plane a >= 0 covers everything.
DIRECTIONS = 12
#: Bisection steps per ray (resolution: (width/2 + 10 mm) / 2**steps, about 0.5 mm).
BISECT_STEPS = 6
#: Beyond the boundary, passes at these extra distances (mm) classify the loss.
BEYOND_MM = (1.0, 2.5, 4.0, 6.0, 9.0)
#: Probit smoothing of the boundary (mm).
SMOOTH_MM = 1.0
#: Common random numbers per group of identical passes.
N_CRN = 4000
#: Search bounds of the free parameters.
BOUNDS = {"scale": (0.0, 20.0), "aim": (0.0, 10.0), "push": (0.0, 0.12)}
#: What each fit mode leaves free (``scale`` multiplies the base thrower's aim and push sigmas).
FIT_MODES = {"scale": ("scale",), "aim": ("aim",), "push": ("push",), "aim,push": ("aim", "push")}
#: 95 % likelihood-ratio threshold for one parameter.
LR_95 = float(stats.chi2.ppf(0.95, 1))


# --------------------------------------------------------------------------------------------
# The physics: a two-gap layout and its outcome boundary
# --------------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class OutcomeTable:
    """Where passes through a two-gap layout of one width start losing stones.

    Attributes:
        width_mm: gap width.
        theta: ray directions in the (aim mm, push mm) plane (rad, in [-pi/2, pi/2)).
        r_boundary_mm: miss distance along each ray where the first stone is lost.
        p_pushed: share of losses beyond the boundary in which a stone was pushed off the base.
        passes: physics passes it took.
    """

    width_mm: float
    theta: np.ndarray
    r_boundary_mm: np.ndarray
    p_pushed: np.ndarray
    passes: int


def _outcome_of(res: Any) -> str:
    if not res.penalties:
        return "clean"
    return "pushed_off" if any(p.cause == "pushed_off" for p in res.penalties) else "knocked"


def outcome_table(width_mm: float, base: Layout | None = None, directions: int = DIRECTIONS,
                  steps: int = BISECT_STEPS) -> OutcomeTable:
    """Bisect the loss boundary of a two-gap layout along ``directions`` rays (physics passes).

    Every pass starts from the same settled table, aims at the middle of the gap at 0 degrees
    with zero release error and a purely sideways push, so it is deterministic.

    Raises:
        InputError: width out of range.
    """
    from sim.sun.table import SunTable
    from sim.sun.thrower import TablePassNoise

    lay = two_gap_layout(width_mm / 1000.0, base)
    R = lay.table.ring_radius
    k = push_gain_s(lay)
    theta = -0.5 * math.pi + math.pi * np.arange(directions) / directions
    r_max = width_mm / 2 + 10.0
    rb = np.empty(directions)
    pp = np.empty(directions)
    n = 0
    with SunTable.from_layout(lay) as t:
        start = t.snapshot()

        def run(r: float, th: float) -> str:
            nonlocal n
            a_mm, p_mm = r * math.cos(th), r * math.sin(th)
            t.restore(start)
            n += 1
            return _outcome_of(t.pass_ball(0.0, None, TablePassNoise(aim_rad=a_mm / 1000 / R,
                                                                      push_mps=(0.0, p_mm / 1000 / k))))

        at_zero = run(0.0, 0.0)
        for i, th in enumerate(theta):
            if at_zero != "clean":
                lo = hi = 0.0
            elif run(r_max, th) == "clean":
                lo = hi = r_max
            else:
                lo, hi = 0.0, r_max
                for _ in range(steps):
                    mid = 0.5 * (lo + hi)
                    if run(mid, th) == "clean":
                        lo = mid
                    else:
                        hi = mid
            rb[i] = 0.5 * (lo + hi)
            outs = [run(hi + d, th) for d in BEYOND_MM]
            lost = [o for o in outs if o != "clean"]
            # Without any loss beyond the boundary (never seen so far), count half: no information.
            pp[i] = (sum(o == "pushed_off" for o in lost) / len(lost)) if lost else 0.5
    return OutcomeTable(width_mm, theta, rb, pp, n)


# --------------------------------------------------------------------------------------------
# The smooth model
# --------------------------------------------------------------------------------------------


class PassModel:
    """Outcome probabilities of passes as a smooth function of ``sigma_aim_deg`` and ``sigma_push_mps``.

    Args:
        tables: one :class:`OutcomeTable` per width (mm) in the log.
        ring_radius_m, push_gain: convert the sigmas into mm at the ring.
        n_crn: common random numbers per group; seed: their seed.
        smooth_mm: probit width of the boundary.
    """

    def __init__(self, tables: dict[float, OutcomeTable], ring_radius_m: float, push_gain: float,
                 n_crn: int = N_CRN, seed: int = 20261201, smooth_mm: float = SMOOTH_MM) -> None:
        self.tables = tables
        self.R_mm = ring_radius_m * 1000.0
        self.k_mm = push_gain * 1000.0
        self.z = np.random.default_rng(seed).standard_normal((n_crn, 2))
        self.smooth = smooth_mm

    def probabilities(self, width_mm: float, aim_offset_mm: float, sigma_aim_deg: float,
                      sigma_push_mps: float) -> np.ndarray:
        """P(clean), P(knocked), P(pushed_off) of a pass (each clipped to at least 1e-9)."""
        tab = self.tables[width_mm]
        a = aim_offset_mm + self.R_mm * math.radians(sigma_aim_deg) * self.z[:, 0]
        p = self.k_mm * sigma_push_mps * self.z[:, 1]
        # Point symmetry of the layout: (a, p) and (-a, -p) are the same pass mirrored.
        neg = a < 0
        a = np.where(neg, -a, a)
        p = np.where(neg, -p, p)
        r = np.hypot(a, p)
        th = np.arctan2(p, a)
        th = np.where(th >= 0.5 * math.pi, th - math.pi, th)
        period = math.pi
        xp = np.concatenate([tab.theta, [tab.theta[0] + period]])
        rb = np.interp(th, xp, np.concatenate([tab.r_boundary_mm, [tab.r_boundary_mm[0]]]))
        pp = np.interp(th, xp, np.concatenate([tab.p_pushed, [tab.p_pushed[0]]]))
        hit = ndtr((r - rb) / self.smooth)
        p_lost = float(hit.mean())
        p_push = float((hit * pp).mean())
        out = np.array([1.0 - p_lost, p_lost - p_push, p_push])
        return np.clip(out, 1e-9, 1.0)


# --------------------------------------------------------------------------------------------
# The fit
# --------------------------------------------------------------------------------------------


@dataclass
class Estimate:
    """One fitted quantity: the estimate, its 95 % interval and whether the log pins it down.

    ``identifiable`` is False when the interval reaches the upper search bound or the
    likelihood is flat over the whole search range; ``note`` says why in words.
    """

    name: str
    value: float
    low: float
    high: float
    unit: str
    identifiable: bool = True
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"name": self.name, "value": self.value, "low": self.low, "high": self.high, "unit": self.unit,
                "identifiable": self.identifiable, "note": self.note}


@dataclass
class FitResult:
    """What :func:`fit` found."""

    source: str
    mode: str
    base: Thrower
    thrower: Thrower
    estimates: list[Estimate]
    loglik: float
    passes: int
    places: int
    gof: list[dict[str, Any]]
    gof_chi2: float | None
    gof_df: int
    gof_p: float | None
    physics_passes: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"source": self.source, "mode": self.mode, "base": self.base.name,
                "thrower": self.thrower.as_dict(), "estimates": [e.as_dict() for e in self.estimates],
                "loglik": self.loglik, "passes": self.passes, "places": self.places,
                "goodness_of_fit": {"by_width": self.gof, "chi2": self.gof_chi2, "df": self.gof_df,
                                    "p_value": self.gof_p},
                "physics_passes": self.physics_passes}


def _groups(passes: Sequence[PassRecord]) -> dict[tuple[float, float], np.ndarray]:
    out: dict[tuple[float, float], np.ndarray] = {}
    for r in passes:
        key = (r.width_mm, r.aim_offset_mm)
        out.setdefault(key, np.zeros(3))[OUTCOMES.index(r.outcome)] += 1
    return out


def _sigmas(mode: str, x: Sequence[float], base: Thrower) -> tuple[float, float]:
    free = dict(zip(FIT_MODES[mode], x))
    if mode == "scale":
        return base.sigma_aim_deg * free["scale"], base.sigma_push_mps * free["scale"]
    return free.get("aim", base.sigma_aim_deg), free.get("push", base.sigma_push_mps)


def _interval(f: Any, x_hat: float, l_hat: float, lo: float, hi: float, grid: np.ndarray) -> tuple[float, float, bool, bool]:
    """Profile-likelihood 95 % interval of a scalar: where ``2 (l_hat - f(x)) <= LR_95``.

    Returns (low, high, reaches lower bound, reaches upper bound)."""
    def g(x: float) -> float:
        return 2.0 * (l_hat - f(x)) - LR_95

    vals = np.array([g(x) for x in grid])
    below = grid[(grid < x_hat) & (vals > 0)]
    above = grid[(grid > x_hat) & (vals > 0)]
    if below.size:
        a = float(below.max())
        low = optimize.brentq(g, a, x_hat) if g(x_hat) < 0 else x_hat
        at_lo = False
    else:
        low, at_lo = lo, True
    if above.size:
        b = float(above.min())
        high = optimize.brentq(g, x_hat, b) if g(x_hat) < 0 else x_hat
        at_hi = False
    else:
        high, at_hi = hi, True
    return low, high, at_lo, at_hi


def fit(log: PlaytestLog, base: Thrower, mode: str = "scale", layout: Layout | None = None,
        tables: dict[float, OutcomeTable] | None = None, n_crn: int = N_CRN) -> FitResult:
    """Fit the log's thrower (see the module docstring).

    Args:
        log: the validated log.
        base: the thrower whose sigmas are not fitted (and, in mode ``scale``, whose aim and push
            sigmas are scaled together).
        mode: a key of :data:`FIT_MODES`.
        layout: physical parameters of the table (default: docs/sun-physics.md's).
        tables: precomputed outcome tables by width (mm); missing widths are computed.
        n_crn: common random numbers per group.

    Raises:
        InputError: unknown mode.
    """
    if mode not in FIT_MODES:
        raise InputError(f"must be {allowed(FIT_MODES)}, not {mode!r}", key="--fit")
    lay = layout or Layout()
    tables = dict(tables or {})
    physics = 0
    for w in sorted({r.width_mm for r in log.passes}):
        if w not in tables:
            tables[w] = outcome_table(w, lay)
            physics += tables[w].passes
    model = PassModel(tables, lay.table.ring_radius, push_gain_s(lay), n_crn=n_crn)
    groups = _groups(log.passes)
    names = FIT_MODES[mode]
    bounds = [BOUNDS[n] for n in names]

    def loglik(x: Sequence[float]) -> float:
        sa, sp = _sigmas(mode, x, base)
        total = 0.0
        for (w, off), counts in groups.items():
            total += float(counts @ np.log(model.probabilities(w, off, sa, sp)))
        return total

    estimates: list[Estimate] = []
    l_hat = 0.0
    x_hat: list[float] = []
    x_used: list[float] = []
    if groups:
        # Grid start (the likelihood can be flat or have plateaus), then scipy polishes.
        grids = [np.linspace(lo, hi, 41) for lo, hi in bounds]
        if len(names) == 1:
            vals = [loglik([g]) for g in grids[0]]
            x0 = [float(grids[0][int(np.argmax(vals))])]
            i = int(np.argmax(vals))
            lo_b = grids[0][max(i - 1, 0)]
            hi_b = grids[0][min(i + 1, len(grids[0]) - 1)]
            res = optimize.minimize_scalar(lambda v: -loglik([v]), bounds=(lo_b, hi_b), method="bounded",
                                           options={"xatol": 1e-4 * (bounds[0][1] - bounds[0][0])})
            x_hat = [float(res.x)] if -res.fun >= max(vals) else x0
        else:
            best = max(((loglik([u, v]), u, v) for u in grids[0][::2] for v in grids[1][::2]))
            res = optimize.minimize(lambda v: -loglik(v), x0=[best[1], best[2]], bounds=bounds, method="L-BFGS-B")
            x_hat = [float(v) for v in res.x] if -res.fun >= best[0] else [best[1], best[2]]
        l_hat = loglik(x_hat)
        x_used = list(x_hat)
        for j, nm in enumerate(names):
            lo, hi = bounds[j]
            prof = _profile(loglik, len(names), j, bounds)
            grid = np.linspace(lo, hi, 41 if len(names) == 1 else 21)
            low, high, at_lo, at_hi = _interval(prof, x_hat[j], l_hat, lo, hi, grid)
            flat = at_lo and at_hi
            ident = not at_hi
            note = ""
            if flat:
                note = "the likelihood is flat over the whole search range: the log says nothing about it"
            elif at_hi:
                note = f"the 95 % interval reaches the search bound {hi:g}: the log cannot bound it from above"
            elif at_lo:
                note = "the interval reaches 0: the log is consistent with no error of this kind"
            if not ident:
                # No number where the log says nothing: the preset keeps the base's value.
                x_used[j] = _base_value(nm, base)
                note += f"; the preset keeps {base.name}'s value"
            estimates.extend(_to_sigmas(mode, nm, x_used[j], low, high, ident, note, base))
    sa, sp = _sigmas(mode, x_used, base) if groups else (base.sigma_aim_deg, base.sigma_push_mps)
    if not groups:
        for nm, unit, v in (("sigma_aim_deg", "deg", base.sigma_aim_deg), ("sigma_push_mps", "m/s", base.sigma_push_mps)):
            estimates.append(Estimate(nm, v, v, v, unit, False, f"no passes in the log: kept from {base.name}"))
    estimates.append(Estimate("sigma_release_m", base.sigma_release_m, base.sigma_release_m, base.sigma_release_m, "m",
                              False, f"not identifiable from pass outcomes (it changes the ball's speed, not its "
                                     f"path): kept from {base.name}"))
    place_est = _fit_places(log.places, base)
    estimates.extend(place_est)
    pl = {e.name: e.value for e in place_est}
    thrower = Thrower("fitted", sa, base.sigma_release_m, sp, pl["sigma_place_m"], pl["sigma_place_deg"])
    gof, chi2v, df, pval = _goodness(groups, model, sa, sp, len(names))
    return FitResult(log.source, mode, base, thrower, estimates, l_hat, len(log.passes), len(log.places), gof, chi2v,
                     df, pval, physics)


def _profile(loglik: Callable[[Sequence[float]], float], n: int, j: int,
             bounds: Sequence[tuple[float, float]]) -> Callable[[float], float]:
    """The profile log-likelihood of parameter ``j``: the others maximised (grid, then scipy)."""
    if n == 1:
        return lambda v: loglik([v])
    other = 1 - j
    ob = bounds[other]
    og = np.linspace(ob[0], ob[1], 21)

    def prof(v: float) -> float:
        def neg(u: float) -> float:
            x = [0.0, 0.0]
            x[j], x[other] = v, u
            return -loglik(x)

        vals = [neg(float(u)) for u in og]
        k = int(np.argmin(vals))
        r = optimize.minimize_scalar(neg, bounds=(og[max(k - 1, 0)], og[min(k + 1, len(og) - 1)]), method="bounded")
        return -min(float(r.fun), vals[k])

    return prof


def _base_value(name: str, base: Thrower) -> float:
    """The value a free parameter takes when the log cannot pin it down."""
    return {"scale": 1.0, "aim": base.sigma_aim_deg, "push": base.sigma_push_mps}[name]


def _to_sigmas(mode: str, name: str, v: float, lo: float, hi: float, ident: bool, note: str,
               base: Thrower) -> list[Estimate]:
    if name == "scale":
        out = [Estimate("scale", v, lo, hi, f"x {base.name}", ident, note)]
        for nm, unit, b in (("sigma_aim_deg", "deg", base.sigma_aim_deg), ("sigma_push_mps", "m/s", base.sigma_push_mps)):
            out.append(Estimate(nm, v * b, lo * b, hi * b, unit, ident,
                                f"scale x {base.name}'s {b:g}" + (f"; {note}" if note else "")))
        return out
    if name == "aim":
        return [Estimate("sigma_aim_deg", v, lo, hi, "deg", ident, note)]
    return [Estimate("sigma_push_mps", v, lo, hi, "m/s", ident, note)]


def _fit_places(places: Sequence[PlaceRecord], base: Thrower) -> list[Estimate]:
    """Closed-form normal scale of the placement errors, with exact chi-square 95 % intervals."""
    out = []
    if places:
        ss = sum(p.dx_mm**2 + p.dy_mm**2 for p in places) / 1e6
        n = 2 * len(places)
        out.append(Estimate("sigma_place_m", math.sqrt(ss / n), math.sqrt(ss / stats.chi2.ppf(0.975, n)),
                            math.sqrt(ss / stats.chi2.ppf(0.025, n)), "m", ss > 0,
                            "" if ss > 0 else "every placement was exact"))
    else:
        out.append(Estimate("sigma_place_m", base.sigma_place_m, base.sigma_place_m, base.sigma_place_m, "m", False,
                            f"no placements in the log: kept from {base.name}"))
    yaws = [p.dyaw_deg for p in places if p.dyaw_deg is not None]
    if yaws:
        ss = sum(y * y for y in yaws)
        n = len(yaws)
        out.append(Estimate("sigma_place_deg", math.sqrt(ss / n), math.sqrt(ss / stats.chi2.ppf(0.975, n)),
                            math.sqrt(ss / stats.chi2.ppf(0.025, n)), "deg", ss > 0,
                            "" if ss > 0 else "every yaw was exact"))
    else:
        out.append(Estimate("sigma_place_deg", base.sigma_place_deg, base.sigma_place_deg, base.sigma_place_deg,
                            "deg", False, f"no placement yaws in the log: kept from {base.name}"))
    return out


def _goodness(groups: dict[tuple[float, float], np.ndarray], model: PassModel, sa: float, sp: float,
              n_params: int) -> tuple[list[dict[str, Any]], float | None, int, float | None]:
    """Observed vs expected outcome counts per width; Pearson chi-square over all cells."""
    by_w: dict[float, tuple[np.ndarray, np.ndarray]] = {}
    for (w, off), counts in groups.items():
        e = counts.sum() * model.probabilities(w, off, sa, sp)
        o0, e0 = by_w.get(w, (np.zeros(3), np.zeros(3)))
        by_w[w] = (o0 + counts, e0 + e)
    rows = []
    chi2v = 0.0
    cells = 0
    for w in sorted(by_w):
        o, e = by_w[w]
        rows.append({"width_mm": w, "passes": int(o.sum()),
                     "observed": {k: int(v) for k, v in zip(OUTCOMES, o)},
                     "expected": {k: float(v) for k, v in zip(OUTCOMES, e)}})
        # Cells with tiny expectations are pooled into the loss cell (Pearson needs E >~ 1).
        lost_o, lost_e = o[1] + o[2], e[1] + e[2]
        pairs = [(o[0], e[0]), (lost_o, lost_e)] if min(e[1], e[2]) < 1.0 else list(zip(o, e))
        for ob, ex in pairs:
            chi2v += (ob - ex) ** 2 / max(ex, 1e-9)
        cells += len(pairs) - 1
    df = cells - n_params
    if df < 1:
        return rows, None, df, None
    return rows, float(chi2v), df, float(stats.chi2.sf(chi2v, df))


# --------------------------------------------------------------------------------------------
# Writing a log from a known thrower (the sample file, the recovery test)
# --------------------------------------------------------------------------------------------


def simulate_log(thrower: Thrower, widths_mm: Iterable[float], passes_per_width: int, seed: int,
                 places: int = 0, base: Layout | None = None, aim_offsets_mm: Sequence[float] = (0.0,)) -> str:
    """A playtest log (CSV text) of ``thrower`` through the real physics.

    Pass ``i`` at each width draws its noise from ``default_rng(SeedSequence(seed, spawn_key=(w_index, i)))``
    and runs a full :meth:`SunTable.pass_ball` (release error and the push along the swing
    included, which the fit's model leaves out) from the settled two-gap table; aim offsets
    cycle through ``aim_offsets_mm``. Placements add the thrower's placement noise to random
    intended positions on the ring.
    """
    from sim.sun.table import SunTable

    lay0 = base or Layout()
    R = lay0.table.ring_radius
    out = io.StringIO()
    wr = csv.writer(out, lineterminator="\n")
    wr.writerow(["kind", "width_mm", "aim_offset_mm", "outcome"] + list(PLACE_COLUMNS))
    for wi, w in enumerate(widths_mm):
        lay = two_gap_layout(w / 1000.0, lay0)
        with SunTable.from_layout(lay) as t:
            start = t.snapshot()
            for i in range(passes_per_width):
                rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(wi, i)))
                off = aim_offsets_mm[i % len(aim_offsets_mm)]
                t.restore(start)
                res = t.pass_ball(off / 1000.0 / R, None, thrower.draw_pass(rng))
                wr.writerow(["pass", f"{w:g}", f"{off:g}", _outcome_of(res)] + [""] * len(PLACE_COLUMNS))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(9999,)))
    for _ in range(places):
        a = float(rng.uniform(0, 2 * math.pi))
        yaw = math.degrees(a)
        pn = thrower.draw_place(rng)
        ix, iy = R * math.cos(a), R * math.sin(a)
        # along the ring and across it, as the table applies them
        ax = ix - pn.along_m * math.sin(a) + pn.across_m * math.cos(a)
        ay = iy + pn.along_m * math.cos(a) + pn.across_m * math.sin(a)
        wr.writerow(["place", "", "", "", f"{ix * 1000:.3f}", f"{iy * 1000:.3f}", f"{ax * 1000:.3f}",
                     f"{ay * 1000:.3f}", f"{yaw:.3f}", f"{yaw + math.degrees(pn.yaw_rad):.3f}"])
    return out.getvalue()


def write_skill(result: FitResult, path: str | Path) -> None:
    """Write the fitted thrower as a skill preset TOML (see docs/scenarios.md), atomically.

    Raises:
        OSError: the file cannot be written (nothing is left half-written).
    """
    comments = [f"fitted by `stonelab sun calibrate {result.source}` (mode {result.mode}, base {result.base.name}, "
                f"{result.passes} passes, {result.places} placements)"]
    for e in result.estimates:
        tag = "" if e.identifiable else "  NOT IDENTIFIABLE"
        comments.append(f"{e.name} = {e.value:.6g} {e.unit}, 95% interval [{e.low:.6g}, {e.high:.6g}]{tag}"
                        + (f": {e.note}" if e.note else ""))
    text = dump_skill_toml(result.thrower, comments)
    # the fit's intervals also as data, so a study's report can state them beside the preset's name
    # (load_skill ignores this table)
    text += ("\n[fit]\n"
             f"source = {toml_value(str(result.source))}\n"
             f"mode = {toml_value(result.mode)}\n"
             f"passes = {result.passes}\n")
    for e in result.estimates:
        text += (f"{e.name} = {{ value = {e.value!r}, low = {e.low!r}, high = {e.high!r}, "
                 f"unit = {toml_value(e.unit)}, identifiable = {'true' if e.identifiable else 'false'} }}\n")
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
