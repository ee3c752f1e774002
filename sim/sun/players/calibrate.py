"""Fit a thrower's sigmas to a playtest log by maximum likelihood (docs/playtest-log.md).

The pipeline:

1. :func:`sim.sun.players.playtest_log.read_log` reads and validates the CSV (one line per pass or placement).
2. For every gap width in the log, :func:`~sim.sun.players.calib_physics.outcome_table` samples the physics
   (a :class:`~sim.sun.table.sun_table.SunTable` with two opposite gaps of that width) along rays of the
   plane of a pass's two lateral errors, and :class:`~sim.sun.players.calib_physics.PassModel` turns the
   samples into smooth outcome probabilities (see :mod:`sim.sun.players.calib_physics`).
3. :func:`fit` maximises the likelihood with scipy and gives each parameter a profile-likelihood
   95 % interval (likelihood-ratio test, chi-square with 1 degree of freedom). An interval that
   reaches an end of the search range is a **bound**, not an estimate: "the log bounds the scale
   above at X" (it is consistent with no error of this kind), "below at X" (any larger error
   explains it as well), or nothing at all (flat likelihood); the preset then keeps the base's
   value and says why.
4. Goodness of fit: a Pearson chi-square of observed vs expected outcome counts per width, and,
   when the fit fixes the ratio of aim to push (``--fit scale``, ``aim`` or ``push``), a
   likelihood-ratio test against freeing both: a hand whose ratio differs from the base's shows
   there.
5. Placement lines (intended and actual position) give ``sigma_place_m`` and ``sigma_place_deg``
   in closed form (the maximum-likelihood normal scale, exact chi-square intervals).

:func:`sim.sun.players.playtest_log.simulate_log` writes a log from a known thrower through the real
physics, for the sample file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from scipy import optimize, stats

from sim.core.errors import InputError, allowed
from sim.core.outputs import write_atomically
from sim.core.tomlw import toml_value
# re-exported (``X as X``: explicitly, for type checkers): the fit's physics, for callers and tests
from sim.sun.players.calib_physics import N_CRN as N_CRN, OutcomeTable as OutcomeTable, PassModel as PassModel
from sim.sun.players.calib_physics import outcome_of as outcome_of, outcome_table as outcome_table
from sim.sun.players.calib_physics import push_gain_s as push_gain_s, two_gap_layout as two_gap_layout
from sim.sun.table.layout import Layout
from sim.sun.players.playtest_log import OUTCOMES, PassRecord, PlaceRecord, PlaytestLog
from sim.sun.players.thrower import Thrower, dump_skill_toml

#: Search bounds of the free parameters.
BOUNDS = {"scale": (0.0, 20.0), "aim": (0.0, 10.0), "push": (0.0, 0.12)}
#: What each fit mode leaves free (``scale`` multiplies the base thrower's aim and push sigmas).
FIT_MODES = {"scale": ("scale",), "aim": ("aim",), "push": ("push",), "aim,push": ("aim", "push")}
#: 95 % likelihood-ratio threshold for one parameter.
LR_95 = float(stats.chi2.ppf(0.95, 1))


# --------------------------------------------------------------------------------------------
# The fit
# --------------------------------------------------------------------------------------------


@dataclass
class FitEstimate:
    """One fitted quantity: the estimate, its 95 % interval and whether the log pins it down.

    ``identifiable`` is False when the log gives only a bound: ``bound`` is then ``"above"`` (the
    interval reaches 0: the log bounds the quantity above at ``high``), ``"below"`` (the interval
    reaches the upper search bound: bounded below at ``low``) or ``"none"`` (flat likelihood, or
    nothing in the log about it); ``value`` is then the base's value, which the preset keeps.
    ``note`` says why in words.
    """

    name: str
    value: float
    low: float
    high: float
    unit: str
    identifiable: bool = True
    note: str = ""
    bound: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"name": self.name, "value": self.value, "low": self.low, "high": self.high, "unit": self.unit,
                "identifiable": self.identifiable, "bound": self.bound, "note": self.note}

    def shown(self) -> str:
        """The estimate in words for a terminal: a number, or the bound the log gives."""
        if self.identifiable:
            return f"{self.value:.4g}"
        if self.bound == "above":
            return f"at most {self.high:.4g}"
        if self.bound == "below":
            return f"at least {self.low:.4g}"
        return "not identifiable"


@dataclass
class FitResult:
    """What :func:`fit` found.

    ``ratio_lr`` and ``ratio_p``: the likelihood-ratio statistic and p-value of freeing both aim and
    push against the fitted mode (None in mode ``aim,push`` or without passes).
    """

    source: str
    mode: str
    base: Thrower
    thrower: Thrower
    estimates: list[FitEstimate]
    loglik: float
    passes: int
    places: int
    gof: list[dict[str, Any]]
    gof_chi2: float | None
    gof_df: int
    gof_p: float | None
    physics_passes: int
    ratio_lr: float | None = None
    ratio_p: float | None = None
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"source": self.source, "mode": self.mode, "base": self.base.name,
                "thrower": self.thrower.as_dict(), "estimates": [e.as_dict() for e in self.estimates],
                "loglik": self.loglik, "passes": self.passes, "places": self.places,
                "goodness_of_fit": {"by_width": self.gof, "chi2": self.gof_chi2, "df": self.gof_df,
                                    "p_value": self.gof_p, "ratio_lr": self.ratio_lr, "ratio_p_value": self.ratio_p},
                "warnings": self.warnings, "physics_passes": self.physics_passes}


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

    estimates: list[FitEstimate] = []
    l_hat = 0.0
    x_hat: list[float] = []
    x_used: list[float] = []
    ratio_lr = ratio_p = None
    if groups:
        x_hat, l_hat = _maximise(loglik, bounds)
        x_used = list(x_hat)
        for j, nm in enumerate(names):
            lo, hi = bounds[j]
            prof = _profile(loglik, len(names), j, bounds)
            # the grid only brackets the interval's ends (brentq finds them); a profile point of two
            # parameters costs a maximisation, so that grid is coarser
            grid = np.linspace(lo, hi, 41 if len(names) == 1 else 11)
            low, high, at_lo, at_hi = _interval(prof, x_hat[j], l_hat, lo, hi, grid)
            bound, note = _bound_note(nm, low, high, at_lo, at_hi, hi)
            if bound:
                # No estimate where the log gives only a bound: the preset keeps the base's value,
                # unless the bound excludes it (then the bound's end, the value nearest the base
                # that the log allows).
                b = _base_value(nm, base)
                x_used[j] = min(max(b, low), high)
                note += (f"; the preset keeps {base.name}'s value" if x_used[j] == b else
                         f"; {base.name}'s value {b:g} lies beyond the bound, so the preset takes {x_used[j]:.4g}")
            estimates.extend(_to_sigmas(mode, nm, x_used[j], low, high, bound, note, base))
        if len(names) == 1:
            # The mode fixes the ratio of aim to push (or one of them): does freeing both fit better?
            def loglik2(x: Sequence[float]) -> float:
                return sum(float(c @ np.log(model.probabilities(w, off, x[0], x[1]))) for (w, off), c in groups.items())

            sa0, sp0 = _sigmas(mode, x_hat, base)
            _, l2 = _maximise(loglik2, [BOUNDS["aim"], BOUNDS["push"]], start=(sa0, sp0))
            ratio_lr = max(0.0, 2.0 * (l2 - l_hat))
            ratio_p = float(stats.chi2.sf(ratio_lr, 1))
    sa, sp = _sigmas(mode, x_used, base) if groups else (base.sigma_aim_deg, base.sigma_push_mps)
    if not groups:
        for nm, unit, v in (("sigma_aim_deg", "deg", base.sigma_aim_deg), ("sigma_push_mps", "m/s", base.sigma_push_mps)):
            estimates.append(FitEstimate(nm, v, v, v, unit, False, f"no passes in the log: kept from {base.name}", "none"))
    estimates.append(FitEstimate("sigma_release_m", base.sigma_release_m, base.sigma_release_m, base.sigma_release_m, "m",
                              False, f"not identifiable from pass outcomes (it changes the ball's speed, not its "
                                     f"path): kept from {base.name}", "none"))
    place_est = _fit_places(log.places, base)
    estimates.extend(place_est)
    pl = {e.name: e.value for e in place_est}
    thrower = Thrower("fitted", sa, base.sigma_release_m, sp, pl["sigma_place_m"], pl["sigma_place_deg"])
    # the goodness of fit at the maximum (not at the base's value a bound leaves in the preset)
    sa_hat, sp_hat = _sigmas(mode, x_hat, base) if groups else (sa, sp)
    gof, chi2v, df, pval = _goodness(groups, model, sa_hat, sp_hat, len(names))
    warnings = []
    if pval is not None and pval < 0.05:
        warnings.append(f"the model does NOT fit these counts well (Pearson p = {pval:.3g}): the hand may have "
                        "changed during the session, or the ring was not the two-gap ring the model assumes")
    if ratio_p is not None and ratio_p < 0.05:
        fixed = {"scale": f"{base.name}'s ratio of aim to push", "aim": f"{base.name}'s push",
                 "push": f"{base.name}'s aim"}[mode]
        warnings.append(f"freeing both aim and push fits much better (likelihood ratio p = {ratio_p:.3g}): this "
                        f"hand does not have {fixed}; try --fit aim,push")
    return FitResult(log.source, mode, base, thrower, estimates, l_hat, len(log.passes), len(log.places), gof, chi2v,
                     df, pval, physics, ratio_lr, ratio_p, warnings)


def _maximise(loglik: Callable[[Sequence[float]], float], bounds: Sequence[tuple[float, float]],
              start: Sequence[float] | None = None) -> tuple[list[float], float]:
    """Maximise over one or two bounded parameters: a grid start (the likelihood can be flat or
    have plateaus), then scipy polishes; returns (argmax, maximum)."""
    if len(bounds) == 1:
        lo, hi = bounds[0]
        grid = np.linspace(lo, hi, 41)
        vals = [loglik([g]) for g in grid]
        i = int(np.argmax(vals))
        res = optimize.minimize_scalar(lambda v: -loglik([v]), bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 40)]),
                                       method="bounded", options={"xatol": 1e-4 * (hi - lo)})
        return ([float(res.x)], float(-res.fun)) if -res.fun >= vals[i] else ([float(grid[i])], float(vals[i]))
    grids = [np.linspace(lo, hi, 11) for lo, hi in bounds]
    cands = [(loglik([u, v]), float(u), float(v)) for u in grids[0] for v in grids[1]]
    if start is not None:
        cands.append((loglik(list(start)), float(start[0]), float(start[1])))
    best = max(cands)
    res = optimize.minimize(lambda v: -loglik(v), x0=[best[1], best[2]], bounds=bounds, method="L-BFGS-B")
    if -res.fun >= best[0]:
        return [float(v) for v in res.x], float(-res.fun)
    return [best[1], best[2]], float(best[0])


def _bound_note(name: str, low: float, high: float, at_lo: bool, at_hi: bool, top: float) -> tuple[str, str]:
    """(bound, note) of an interval: ``""`` for an estimate, else ``above``, ``below`` or ``none``."""
    what = {"scale": "the scale", "aim": "the aim sigma", "push": "the push sigma"}[name]
    if at_lo and at_hi:
        return "none", "the likelihood is flat over the whole search range: the log says nothing about it"
    if at_hi:
        return "below", (f"the log bounds {what} below at {low:.4g}: the 95 % interval reaches the search bound "
                         f"{top:g}, any larger value explains the log as well")
    if at_lo:
        return "above", (f"the log bounds {what} above at {high:.4g}: the 95 % interval reaches 0, the log is "
                         "consistent with no error of this kind")
    return "", ""


def _profile(loglik: Callable[[Sequence[float]], float], n: int, j: int,
             bounds: Sequence[tuple[float, float]]) -> Callable[[float], float]:
    """The profile log-likelihood of parameter ``j``: the others maximised (grid, then scipy)."""
    if n == 1:
        return lambda v: loglik([v])
    other = 1 - j
    ob = bounds[other]
    og = np.linspace(ob[0], ob[1], 11)

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


def _to_sigmas(mode: str, name: str, v: float, lo: float, hi: float, bound: str, note: str,
               base: Thrower) -> list[FitEstimate]:
    ident = not bound
    if name == "scale":
        out = [FitEstimate("scale", v, lo, hi, f"x {base.name}", ident, note, bound)]
        for nm, unit, b in (("sigma_aim_deg", "deg", base.sigma_aim_deg), ("sigma_push_mps", "m/s", base.sigma_push_mps)):
            out.append(FitEstimate(nm, v * b, lo * b, hi * b, unit, ident,
                                f"scale x {base.name}'s {b:g}" + (f"; {note}" if note else ""), bound))
        return out
    if name == "aim":
        return [FitEstimate("sigma_aim_deg", v, lo, hi, "deg", ident, note, bound)]
    return [FitEstimate("sigma_push_mps", v, lo, hi, "m/s", ident, note, bound)]


def _fit_places(places: Sequence[PlaceRecord], base: Thrower) -> list[FitEstimate]:
    """Closed-form normal scale of the placement errors, with exact chi-square 95 % intervals."""
    out = []
    if places:
        ss = sum(p.dx_mm**2 + p.dy_mm**2 for p in places) / 1e6
        n = 2 * len(places)
        out.append(FitEstimate("sigma_place_m", math.sqrt(ss / n), math.sqrt(ss / stats.chi2.ppf(0.975, n)),
                            math.sqrt(ss / stats.chi2.ppf(0.025, n)), "m", ss > 0,
                            "" if ss > 0 else "every placement was exact", "" if ss > 0 else "above"))
    else:
        out.append(FitEstimate("sigma_place_m", base.sigma_place_m, base.sigma_place_m, base.sigma_place_m, "m", False,
                            f"no placements in the log: kept from {base.name}", "none"))
    yaws = [p.dyaw_deg for p in places if p.dyaw_deg is not None]
    if yaws:
        ss = sum(y * y for y in yaws)
        n = len(yaws)
        out.append(FitEstimate("sigma_place_deg", math.sqrt(ss / n), math.sqrt(ss / stats.chi2.ppf(0.975, n)),
                            math.sqrt(ss / stats.chi2.ppf(0.025, n)), "deg", ss > 0,
                            "" if ss > 0 else "every yaw was exact", "" if ss > 0 else "above"))
    else:
        out.append(FitEstimate("sigma_place_deg", base.sigma_place_deg, base.sigma_place_deg, base.sigma_place_deg,
                            "deg", False, f"no placement yaws in the log: kept from {base.name}", "none"))
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


def write_skill(result: FitResult, path: str | Path) -> None:
    """Write the fitted thrower as a skill preset TOML (see docs/scenarios.md), atomically.

    Raises:
        OSError: the file cannot be written (nothing is left half-written).
    """
    # the log's name is the user's text: quoted (a newline or a control character in it is escaped,
    # and dump_skill_toml keeps every comment on one line), so the preset stays valid TOML
    comments = [f"fitted by `stonelab sun calibrate` from {toml_value(str(result.source))} (mode {result.mode}, "
                f"base {result.base.name}, {result.passes} passes, {result.places} placements)"]
    for e in result.estimates:
        if e.identifiable:
            what = f"{e.name} = {e.value:.6g} {e.unit}, 95% interval [{e.low:.6g}, {e.high:.6g}]"
        else:
            # a bound or nothing: the value written is not an estimate (the note says where it is from)
            what = (f"{e.name} = {e.value:.6g} {e.unit} NOT IDENTIFIABLE, not an estimate"
                    + (f" ({e.shown()})" if e.bound in ("above", "below") else "")
                    + f", 95% interval [{e.low:.6g}, {e.high:.6g}]")
        comments.append(what + (f": {e.note}" if e.note else ""))
    comments += [f"WARNING: {w}" for w in result.warnings]
    text = dump_skill_toml(result.thrower, comments)
    # the fit's intervals also as data, so a study's report can state them beside the preset's name
    # (load_skill ignores this table)
    text += ("\n[fit]\n"
             f"source = {toml_value(str(result.source))}\n"
             f"mode = {toml_value(result.mode)}\n"
             f"passes = {result.passes}\n")
    for e in result.estimates:
        text += (f"{e.name} = {{ value = {e.value!r}, low = {e.low!r}, high = {e.high!r}, "
                 f"unit = {toml_value(e.unit)}, identifiable = {'true' if e.identifiable else 'false'}, "
                 f"bound = {toml_value(e.bound)} }}\n")
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
