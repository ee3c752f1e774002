"""What the conclusions depend on: sensitivity indices of a study's headline outputs.

A sensitivity run (a scenario with ``[sensitivity]``, ``sim.core.sensitivity``) stores one sweep
point per sample point. This module turns the store into indices:

1. **Headline outputs per point** (:func:`point_outputs`): the catalogue's metrics flagged
   ``sensitivity`` (:mod:`analysis.catalogue`, one definition for every output): the share of
   games without a sole winner and the first-player edge (seat 0's sole-win share minus the mean
   of the other seats'), for every game, plus the game's own (for the Sun, penalties per game of
   all causes, the share of games ending with the field empty and the clean-pass chance by the
   mark area's width), each with its per-game variance (clustered by game for a ratio over passes).
2. **Indices** (:func:`analyse`) with SALib: Morris ``mu*`` (mean absolute elementary effect: the
   change of the output when the input moves across its whole range, in the output's unit), ``mu``
   and ``sigma`` (spread of the effects: interactions or non-linearity), with SALib's bootstrap
   interval of ``mu*`` and a bootstrap over trajectories for ``sigma``; or Sobol' first-order
   ``S1`` and total ``ST`` indices with SALib's bootstrap intervals.
3. The **report section** (:func:`section`): the indices as a plot and one sentence per output
   naming the input that moves it most.

Points without games (a study still running or killed) are left out: a Morris trajectory missing a
point is dropped for that output; Sobol' needs every point, otherwise the output is reported as
incomplete. An output undefined at some point (e.g. no pass through gaps of that width) is treated
the same way.
"""

from __future__ import annotations

import importlib
import json
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from analysis.catalogue import catalogue, per_game
from analysis.plots import Plot, Section, new_figure
from analysis.run_data import RunData
from analysis.stats import json_float
from sim.core.errors import InputError
from sim.core.sensitivity import Input, Plan, default_inputs
from sim.games import REGISTRY


@dataclass
class Output:
    """One headline output over the sample points.

    Attributes:
        name: identifier (``penalties_per_game``).
        label: plain-language name with its unit.
        mean: value per point (NaN where undefined), indexed by point number.
        var: variance of the output per game within a point, pooled over the points (NaN when no
            point has two games): the Monte Carlo noise of the games played.
        n: games per point (median over the points that have any).
    """

    name: str
    label: str
    mean: pd.Series
    var: float = float("nan")
    n: float = float("nan")


#: fewest Morris trajectories whose indices are ranked: Campolongo, Cariboni & Saltelli (2007),
#: the design SALib's ``morris`` sampler implements, and Saltelli et al., *Sensitivity Analysis in
#: Practice* (2004, ch. 4), find 10 to 20 trajectories enough to screen inputs; with fewer, the mu*
#: of each input rests on a handful of elementary effects and its interval says little
MORRIS_MIN_TRAJECTORIES = 10


@dataclass
class Indices:
    """The indices of one output.

    Attributes:
        output: the output.
        method: ``morris`` or ``sobol``.
        table: one row per input: ``key, label`` and for Morris ``mu, mu_star, mu_star_conf,
            mu_star_lo, mu_star_hi, sigma, sigma_lo, sigma_hi``; for Sobol' ``S1, S1_conf, ST,
            ST_conf`` (``*_conf``: half-width of the interval).
        used: trajectories (Morris) or base samples (Sobol') that entered.
        planned: trajectories of the Morris design (``used`` and those left out because the output
            is undefined at one of their points); 0 when not known (e.g. Sobol').
        noise: the elementary effect Monte Carlo noise alone would give (Morris; output units).
        problem: why no indices could be computed (empty when they were).
    """

    output: Output
    method: str
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    used: int = 0
    planned: int = 0
    noise: float = float("nan")
    problem: str = ""


def plan_of_run(run: RunData) -> Plan | None:
    """The sensitivity plan stored with a run (its scenario's ``[sensitivity]``), or None."""
    sec = run.scenario.get("sensitivity")
    if not isinstance(sec, dict):
        return None
    inputs = tuple(Input(k, float(v[0]), float(v[1]), isinstance(v[0], int) and isinstance(v[1], int))
                   for k, v in (sec.get("inputs") or {}).items())
    if not inputs:
        # the game's default inputs were used: the points table holds the keys in order
        try:
            defaults = default_inputs(REGISTRY, run.game)
        except Exception:  # noqa: BLE001 - a game that cannot be loaded here has no defaults
            defaults = {}
        inputs = tuple(Input(k, float(v[0]), float(v[1])) for k, v in defaults.items())
    inputs = tuple(sorted(inputs, key=lambda i: i.key))  # the plan's canonical order (sim.core.sensitivity)
    return Plan(str(sec.get("method", "morris")), inputs, int(sec.get("trajectories", 10)), int(sec.get("levels", 4)),
                int(sec.get("samples", 64)), float(sec.get("conf_level", 0.95)), int(sec.get("resamples", 1000)))


def input_label(game: str, key: str) -> str:
    """A plain-language name of an input (``label(key)`` of the sensitivity module the game's
    plug-in declares), else the key."""
    try:
        plugin = REGISTRY.find(game)
        if plugin is None or not plugin.sensitivity:
            return key
        return str(importlib.import_module(plugin.sensitivity).label(key))
    except (ImportError, AttributeError, InputError):
        return key


def metric_output(metric: Any, run: RunData, all_points: list[int]) -> Output:
    """A catalogue metric (:mod:`analysis.catalogue`) per sample point: at each point the ratio of
    sums over that point's distinct games (the catalogue's value, on the point's games), NaN at
    points without games; ``var`` the per-game variance of that ratio (the delta method's
    ``sum((y - R x)^2) / ((k - 1) mean(x)^2)`` over a point's k games: the sample variance of the
    games' values for a mean or share per game; clustered by game for a ratio over passes),
    pooled over the points; ``n`` the distinct games per point (median)."""
    f = per_game(metric, run)
    # copies of one game count once within a point, as in every catalogue estimate
    f = f.groupby(["point", "record"], sort=False)[["num", "den"]].mean().reset_index()
    mean: dict[int, float] = {}
    ss, dof, counts = 0.0, 0, []
    for p, grp in f.groupby("point"):
        y, x = grp["num"].to_numpy(float), grp["den"].to_numpy(float)
        r = float(y.sum() / x.sum())
        mean[int(p)] = r
        k = len(grp)
        counts.append(k)
        if k > 1:
            ss += float(((y - r * x) ** 2).sum()) / float(x.mean()) ** 2
            dof += k - 1
    series = pd.Series(mean, dtype=float).reindex(all_points)
    return Output(metric.name, metric.words, series, ss / dof if dof else float("nan"),
                  float(np.median(counts)) if counts else float("nan"))


def point_outputs(run: RunData) -> list[Output]:
    """The headline outputs per sample point: the catalogue's metrics flagged ``sensitivity``
    (:mod:`analysis.catalogue`; the generic draw share and first-player edge, then the game's own),
    each with one definition for every output."""
    pts = [int(p) for p in run.points["point"]] if not run.points.empty else [0]
    if run.games.empty:
        return []
    return [metric_output(m, run, pts) for m in catalogue(run) if m.sensitivity]


def morris_indices(plan: Plan, x: np.ndarray, out: Output, seed: int) -> Indices:
    """Morris indices of one output from the sample matrix ``x`` (points x inputs, whole
    trajectories in SALib's order); trajectories with an undefined value are left out."""
    # start-up: SALib's Morris analysis, 1.2 s (python -X importtime, load 9), only for a Morris study
    from SALib.analyze import morris

    k = len(plan.inputs)
    y = out.mean.to_numpy(dtype=float)
    rows = k + 1
    n_traj = len(y) // rows
    ok = [t for t in range(n_traj) if np.isfinite(y[t * rows:(t + 1) * rows]).all()]
    res = Indices(out, "morris", used=len(ok), planned=n_traj)
    if len(ok) < 2:
        res.problem = (f"only {len(ok)} of {n_traj} trajectories have a value at every point"
                       + (" (the output is undefined at some points)" if np.isfinite(y).any() else ""))
        return res
    idx = np.concatenate([np.arange(t * rows, (t + 1) * rows) for t in ok])
    prob = plan.problem()
    xs, ys = x[idx], y[idx]
    si = morris.analyze(prob, xs, ys, num_resamples=plan.resamples, conf_level=plan.conf_level,
                        num_levels=plan.levels, seed=seed)
    ee = elementary_effects(plan, xs, ys)  # (trajectories, inputs)
    # bootstrap over trajectories for intervals of mu* and sigma (SALib gives mu*'s only)
    rng = np.random.default_rng(seed)
    t = ee.shape[0]
    boot = rng.integers(0, t, size=(plan.resamples, t))
    bee = ee[boot]  # (B, t, k)
    a = (1 - plan.conf_level) / 2
    mus_b = np.abs(bee).mean(axis=1)
    sig_b = bee.std(axis=1, ddof=1)
    delta = plan.levels / (2.0 * (plan.levels - 1))
    # two independent estimates of n items each differ by sqrt(2 var / n); over a grid step delta
    res.noise = math.sqrt(2.0 * out.var / out.n) / delta if out.var == out.var and out.n > 0 else float("nan")
    res.table = pd.DataFrame({
        "key": plan.keys,
        "mu": np.asarray(si["mu"], dtype=float),
        "mu_star": np.asarray(si["mu_star"], dtype=float),
        "mu_star_conf": np.asarray(si["mu_star_conf"], dtype=float),
        "mu_star_lo": np.quantile(mus_b, a, axis=0),
        "mu_star_hi": np.quantile(mus_b, 1 - a, axis=0),
        "sigma": np.asarray(si["sigma"], dtype=float),
        "sigma_lo": np.quantile(sig_b, a, axis=0),
        "sigma_hi": np.quantile(sig_b, 1 - a, axis=0),
    })
    return res


def elementary_effects(plan: Plan, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The elementary effects (trajectories x inputs) of Morris trajectories: within a trajectory
    consecutive points differ in one input; its effect is the output's change divided by the step
    as a fraction of the input's range (SALib's unscaled definition).

    Raises:
        ValueError: the rows are not whole trajectories.
    """
    k = len(plan.inputs)
    if len(y) % (k + 1):
        raise ValueError(f"{len(y)} points are not whole trajectories of {k + 1}")
    lo = np.array([i.low for i in plan.inputs])
    span = np.array([i.high - i.low for i in plan.inputs])
    u = (x - lo) / span
    t = len(y) // (k + 1)
    ee = np.full((t, k), np.nan)
    for j in range(t):
        uu, yy = u[j * (k + 1):(j + 1) * (k + 1)], y[j * (k + 1):(j + 1) * (k + 1)]
        du = np.diff(uu, axis=0)
        for step in range(k):
            i = int(np.argmax(np.abs(du[step])))
            ee[j, i] = (yy[step + 1] - yy[step]) / du[step, i]
    return ee


def sobol_indices(plan: Plan, out: Output, seed: int) -> Indices:
    """Sobol' first-order and total indices of one output (every point of the design needed)."""
    # start-up: SALib's Sobol' analysis, 0.8 s (python -X importtime, load 9), only for a Sobol' study
    from SALib.analyze import sobol

    y = out.mean.to_numpy(dtype=float)
    res = Indices(out, "sobol", used=plan.samples)
    if not np.isfinite(y).all():
        res.used = 0
        res.problem = (f"{int((~np.isfinite(y)).sum())} of {len(y)} points have no value yet (Sobol' indices need "
                       "every point: let the study finish, or the output is undefined at some points)")
        return res
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        si = sobol.analyze(plan.problem(), y, calc_second_order=False, num_resamples=plan.resamples,
                           conf_level=plan.conf_level, seed=seed)
    res.table = pd.DataFrame({"key": plan.keys, "S1": si["S1"], "S1_conf": si["S1_conf"], "ST": si["ST"],
                              "ST_conf": si["ST_conf"]})
    return res


def point_matrix(run: RunData, plan: Plan) -> np.ndarray:
    """The sample matrix as stored (points x inputs, in the plan's input order)."""
    cols = [f"sweep:{k}" for k in plan.keys]
    missing = [c for c in cols if c not in run.points]
    if missing:
        raise ValueError(f"the store's points do not hold the inputs {missing}")
    return run.points.sort_values("point")[cols].to_numpy(dtype=float)


def analyse(run: RunData) -> tuple[Plan, list[Indices]]:
    """Indices of every headline output of a sensitivity run.

    Raises:
        ValueError: the run is not a sensitivity run (no ``[sensitivity]`` in its scenario).
    """
    plan = plan_of_run(run)
    if plan is None:
        raise ValueError("not a sensitivity run: its scenario has no [sensitivity] section")
    seed = int(run.meta.get("seed", 0))
    x = point_matrix(run, plan)
    results = []
    for out in point_outputs(run):
        if plan.method == "morris":
            res = morris_indices(plan, x, out, seed)
        else:
            res = sobol_indices(plan, out, seed)
        if not res.table.empty:
            res.table.insert(1, "label", [input_label(run.game, k) for k in plan.keys])
        results.append(res)
    return plan, results


def to_json(plan: Plan, results: list[Indices]) -> dict[str, Any]:
    """The indices as a JSON-friendly dict (``stonelab sensitivity --json`` and sensitivity.json)."""
    return {
        "method": plan.method, "inputs": plan.as_dict()["inputs"], "conf_level": plan.conf_level,
        "points": plan.n_points(),
        "outputs": [
            {"name": r.output.name, "label": r.output.label, "used": r.used, "planned": r.planned, "problem": r.problem,
             "noise": None if r.noise != r.noise else r.noise,
             "output_mean": json_float(r.output.mean.mean()), "output_min": json_float(r.output.mean.min()),
             "output_max": json_float(r.output.mean.max()),
             "indices": json.loads(r.table.to_json(orient="records")) if not r.table.empty else []}
            for r in results
        ],
    }


# --- wording -------------------------------------------------------------------------------------
def _num(x: float) -> str:
    if x != x:
        return "n/a"
    return f"{x:.2g}" if abs(x) < 0.01 else f"{x:.3g}"


def sentence(res: Indices) -> str:
    """One sentence naming the input that moves the output most (and how sure that is)."""
    o = res.output
    span = (f" (over the sample it runs from {_num(float(o.mean.min()))} to {_num(float(o.mean.max()))}, "
            f"mean {_num(float(o.mean.mean()))})") if o.mean.notna().any() else ""
    name = o.label[0].upper() + o.label[1:]
    if res.problem:
        return f"{name}: no indices ({res.problem})."
    t = res.table
    if float(o.mean.max()) == float(o.mean.min()):
        return f"{name} is {_num(float(o.mean.iloc[0]))} at every sample point: no input moves it in these ranges."
    if res.method == "morris":
        if res.used < MORRIS_MIN_TRAJECTORIES:
            head = (f"{name}{span}: not ranked: Morris screening on {res.used} trajector"
                    f"{'y' if res.used == 1 else 'ies'} cannot order the inputs; it needs at least "
                    f"{MORRIS_MIN_TRAJECTORIES}")
            if res.planned > res.used:
                # the design had enough (or more) trajectories but the output is undefined at some
                # of their points: "--trajectories 10" would be advice the study already followed
                return (f"{head} (only {res.used} of the study's {res.planned} have a value at every point: "
                        "the output is undefined at some points; more trajectories would bring more complete ones).")
            return f"{head} (run with --trajectories {MORRIS_MIN_TRAJECTORIES} or more)."
        t = t.sort_values("mu_star", ascending=False).reset_index(drop=True)
        top, second = t.iloc[0], t.iloc[1] if len(t) > 1 else None
        if top["mu_star"] - top["mu_star_conf"] <= 0:
            return (f"{name}{span}: no input's effect is told apart from zero (the largest, {top['label']}, mu* "
                    f"{_num(top['mu_star'])} ± {_num(top['mu_star_conf'])}); more trajectories would tell.")
        if res.noise == res.noise and top["mu_star"] <= res.noise:
            return (f"{name}{span} is not moved beyond the Monte Carlo noise by any input: the largest effect, "
                    f"{top['label']} (mu* {_num(top['mu_star'])} ± {_num(top['mu_star_conf'])}), is within the noise "
                    f"of about {_num(res.noise)}; more games per point would tell.")
        s = (f"{name}{span} depends most on {top['label']}: across its range it moves the output by "
             f"{_num(top['mu_star'])} ± {_num(top['mu_star_conf'])} on average (mu*)")
        if second is not None:
            apart = top["mu_star"] - top["mu_star_conf"] > second["mu_star"] + second["mu_star_conf"]
            s += (f", clearly ahead of {second['label']} ({_num(second['mu_star'])} ± {_num(second['mu_star_conf'])})"
                  if apart else
                  f"; {second['label']} ({_num(second['mu_star'])} ± {_num(second['mu_star_conf'])}) cannot be told "
                  "apart from it at this sample size")
        if top["sigma"] > top["mu_star"] and abs(top["mu"]) < 0.5 * top["mu_star"]:
            s += "; its effect changes sign across the space (sigma above mu*: interactions or a non-monotone effect)"
        return s + "."
    t = t.sort_values("ST", ascending=False).reset_index(drop=True)
    top, second = t.iloc[0], t.iloc[1] if len(t) > 1 else None
    if top["ST"] - top["ST_conf"] <= 0 or top["ST_conf"] > 0.5:
        # an index interval wider than half the variance says nothing yet (too few base samples)
        return (f"{name}{span}: the Sobol' indices are not resolved at {res.used} base samples (the largest total index, "
                f"{top['label']}'s, is {100 * top['ST']:.0f} % ± {100 * top['ST_conf']:.0f}); more samples would tell.")
    s = (f"{name}{span} depends most on {top['label']}: it accounts for {100 * top['ST']:.0f} % "
         f"± {100 * top['ST_conf']:.0f} of the output's variance with its interactions (total index), "
         f"{100 * top['S1']:.0f} % ± {100 * top['S1_conf']:.0f} alone (first-order)")
    if second is not None:
        s += f"; next is {second['label']} (total {100 * second['ST']:.0f} % ± {100 * second['ST_conf']:.0f})"
    return s + "."


# --- plot --------------------------------------------------------------------------------------------
def plot(results: list[Indices], method: str, conf_level: float = 0.95) -> Any:
    """The indices: one panel per output, one horizontal bar per input with its interval
    (Morris: mu* with sigma as a dot; Sobol': first-order and total)."""
    # outputs constant over the sample have nothing to show (their sentence says so)
    pct_level = f"{conf_level:.0%}"
    shown = [r for r in results if not r.table.empty and float(r.output.mean.max()) != float(r.output.mean.min())]
    n = max(len(shown), 1)
    ncols = 2 if n > 1 else 1
    nrows = math.ceil(n / ncols)
    k = len(shown[0].table) if shown else 1
    fig, _ = new_figure(5.2 * ncols, (0.32 * k + 1.3) * nrows)
    fig.clear()
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, r in zip(axes, shown):
        t = r.table
        ypos = np.arange(len(t))[::-1]
        if method == "morris":
            # SALib's interval is mu* +/- conf; mu* cannot be negative, so the bar stops at 0
            err = np.vstack([np.minimum(t["mu_star_conf"], t["mu_star"]), t["mu_star_conf"]])
            ax.barh(ypos, t["mu_star"], xerr=err, color="#0072B2", alpha=0.85, capsize=2,
                    label=f"mu* (mean |effect|) and its {pct_level} interval")
            ax.plot(t["sigma"], ypos, "o", color="#D55E00", ms=4, label="sigma (spread)")
            if r.noise == r.noise:
                ax.axvline(r.noise, color="#555555", ls=":", lw=1, label="Monte Carlo noise")
            ax.set_xlabel("change over the input's range")
        else:
            h = 0.38
            ax.barh(ypos + h / 2, t["S1"], h, xerr=t["S1_conf"], color="#56B4E9", capsize=2, label="first-order S1")
            ax.barh(ypos - h / 2, t["ST"], h, xerr=t["ST_conf"], color="#0072B2", capsize=2, label="total ST")
            ax.set_xlabel("share of the output's variance")
            ax.set_xlim(left=min(0.0, float(np.nanmin(t["S1"] - t["S1_conf"]))))
        ax.set_yticks(ypos, [str(x) for x in t["label"]], fontsize=8)
        ax.set_title(r.output.label.split(" (")[0], fontsize=9)
        ax.grid(axis="y", visible=False)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    if not shown:
        axes[0].set_visible(True)
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "no output varies over the sample points\n(see the sentences)", ha="center",
                     va="center", transform=axes[0].transAxes)
    legend: dict[str, Any] = {}
    for ax in axes[:len(shown)]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(lab, h)
    if legend:
        fig.legend(list(legend.values()), list(legend), loc="outside lower center", ncols=min(3, len(legend)),
                   fontsize=8)
    fig.suptitle("What the conclusions depend on" + (" (Morris screening)" if method == "morris" else
                                                      " (Sobol' indices)"), fontweight="bold")
    return fig


# --- report ------------------------------------------------------------------------------------------
def _named(label: str, key: str) -> str:
    """``'aim noise (seats.0.sigma_aim_deg)'``, or the key alone when it has no other name."""
    return key if label == key else f"{label} ({key})"


def _span(lo: int, hi: int) -> str:
    """``'4'`` or ``'4-6'``: a count that may vary."""
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def section(run: RunData) -> Section | None:
    """The report's "What the conclusions depend on" section (None for a run without
    ``[sensitivity]``)."""
    if plan_of_run(run) is None or run.games.empty:
        return None
    plan, results = analyse(run)
    k = len(plan.inputs)
    gpp = run.games.groupby("point").size()
    ranges = "; ".join(_named(input_label(run.game, i.key), i.key) + f" {i.low:g} to {i.high:g}" for i in plan.inputs)
    if plan.method == "morris":
        how = (f"Morris screening: {plan.trajectories} trajectories of {k + 1} points on a {plan.levels}-level grid "
               f"({plan.n_points()} points)")
        read = ("mu*: how much the output changes, on average, when one input moves across its whole range (the "
                "output's unit), with its bootstrap interval; sigma: how much that change varies with the other "
                "inputs (interactions, non-linearity). The dotted line is what Monte Carlo noise alone gives "
                "(the per-point standard error, doubled in variance, over a grid step): effects near it are not "
                "resolved.")
    else:
        how = f"Sobol' indices from {plan.samples} base samples ({plan.n_points()} points)"
        read = ("S1: the share of the output's variance an input explains alone; ST: with all its interactions. "
                "Bars: bootstrap intervals. Monte Carlo noise in each point adds variance no input explains, so "
                "indices of noisy outputs sum to less than 1.")
    sec = Section("What the conclusions depend on",
                  f"Global sensitivity analysis of the headline outputs over the model's uncertain inputs. {how}, "
                  f"{_span(int(gpp.min()), int(gpp.max()))} games per point with the same seeds at every point; "
                  f"{plan.conf_level:.0%} intervals. Inputs and ranges (sources: docs/sensitivity.md): {ranges}.")
    findings = [sentence(r) for r in results]
    fig = plot(results, plan.method, plan.conf_level)
    sec.plots.append(Plot("sensitivity_indices", "Sensitivity indices", fig, " ".join(findings[:2]), read))
    sec.findings.extend(findings)
    rows = []
    for r in results:
        if r.table.empty:
            continue
        for _, row in r.table.iterrows():
            # the output's label, not its internal name (draw_share), which only --json needs
            d = {"output": r.output.label, "input": row["label"]}
            if plan.method == "morris":
                d.update({"mu*": f"{_num(row['mu_star'])} ± {_num(row['mu_star_conf'])}", "mu": _num(row["mu"]),
                          "sigma [CI]": f"{_num(row['sigma'])} [{_num(row['sigma_lo'])}, {_num(row['sigma_hi'])}]"})
            else:
                d.update({"S1": f"{row['S1']:.2f} ± {row['S1_conf']:.2f}", "ST": f"{row['ST']:.2f} ± {row['ST_conf']:.2f}"})
            rows.append(d)
    if rows:
        sec.tables.append(("Sensitivity indices by output and input", pd.DataFrame(rows)))
    return sec
