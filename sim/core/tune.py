"""Design search: the ``[tune]`` table of a scenario, and the Optuna search that plays its trials.

A designer's question is the inverse of a study's: not "how hard is this design?" but "which design
is as hard, as fair and as long as I want?". The ``[tune]`` table names the parameters to search
(any key a scenario can set: rule options, the game's tables such as the Sun's ``[table]`` and
``[shapes]``, seat and agent parameters, by their dotted scenario paths) and the targets (headline
metrics with a target value, a range, a bound, or a direction)::

    [tune]
    trials = 40                 # designs tried
    games = 20                  # games per trial (common random numbers: every trial the same seeds)
    recheck = 3                 # the best designs re-checked ...
    recheck_games = 80          # ... with this many games each before they are reported
    sampler = "tpe"             # tpe | random | qmc | nsga2 (Optuna's samplers)
    pruning = true              # stop a poor trial after half its games (one objective only)
    conf_level = 0.95           # confidence level of every interval
    [tune.params]
    "table.pass_clearance" = { low = 0.001, high = 0.008 }
    "seats.*.sigma_aim_deg" = { low = 0.25, high = 4.0, log = true }
    "rules.mode" = { choices = ["standard", "orbit"] }
    [[tune.targets]]
    metric = "penalties_per_game"
    range = [2.0, 4.0]          # or value = x, at_least = x, at_most = x, direction = "minimize"
    weight = 1.0
    scale = 1.0                 # the metric's unit of distance (weights then compare like with like)

The targets with a value, range or bound form one objective, the weighted distance of the design
from them (0: every target met); each target with a ``direction`` is an objective of its own. With
two or more objectives the search is multi-objective and reports the Pareto front.

This module parses and validates the table (each parameter's bounds and choices checked in the
context of the whole scenario, as a sweep value is), builds the scenario of a trial, and runs the
search with Optuna (its samplers, median pruning and SQLite storage in the run folder, so a killed
search resumes). What a trial's games *measure* is not known here (``sim/core`` names no game and
no metric): the caller passes ``measure(run_folder) -> {metric: TrialEstimate}`` (``analysis.tune``).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from sim.core.errors import InputError, ScenarioError
from sim.core.sensitivity import set_input
from sim.core.tune_table import (
    DIRECTIONS,
    PAIR_METRICS,
    PARAM_METRIC,
    SAMPLERS,
    SECTION,
    TARGET_KINDS,
    Param,
    Target,
    Tune,
    base_raw,
    metric_id,
    parse_tune,
)

if TYPE_CHECKING:
    from sim.core.progress import Progress
    from sim.core.scenario import Scenario

__all__ = ["BEST_NAME", "DIRECTIONS", "TrialEstimate", "PAIR_METRICS", "PARAM_METRIC", "SAMPLERS", "SECTION",
           "STORAGE_NAME", "SUMMARY_NAME", "TARGET_KINDS", "TRIALS_DIR", "Param", "SearchInfo", "Target",
           "TrialResult", "Tune", "base_raw", "design_raw", "metric_id", "objective_values", "pareto_front",
           "parse_tune", "plausible_range", "search"]

#: file names in a tune folder
STORAGE_NAME = "tune.sqlite"
TRIALS_DIR = "trials"
BEST_NAME = "best.toml"
SUMMARY_NAME = "tune.json"


@dataclass(frozen=True)
class TrialEstimate:
    """A metric measured on a trial's games: its mean, standard error and the items it rests on
    (distinct games: identical game records count once, analysis/catalogue.py), and its own 95 %
    interval where the metric has one that is not ``mean ± z se`` (a share's Wilson interval, which
    stays inside [0, 1]), and ``games``: the games the metric reads, copies included (a player's
    metric: the games that player played; 0 where not known)."""

    mean: float
    se: float
    n: int
    lo: float = float("nan")
    hi: float = float("nan")
    games: int = 0

    def interval(self, conf_level: float = 0.95) -> tuple[float, float]:
        """The metric's own interval at 95 % when it has one, else the normal-theory interval
        ``mean ± z se`` (the mean itself when ``se`` is 0)."""
        if self.lo == self.lo and self.hi == self.hi and abs(conf_level - 0.95) < 1e-9:
            return (self.lo, self.hi)
        z = NormalDist().inv_cdf(0.5 + conf_level / 2)
        return (self.mean - z * self.se, self.mean + z * self.se)

    def as_list(self) -> list[float]:
        """``[mean, se, n, lo, hi, games]``: how a trial's metrics are stored."""
        return [self.mean, self.se, self.n, self.lo, self.hi, self.games]



# --- objectives ----------------------------------------------------------------------------------
def objective_values(tune: Tune, est: Mapping[str, TrialEstimate]) -> tuple[list[float], list[float]]:
    """The objective values of a trial and their standard errors.

    The distance objective is ``sum_i weight_i * distance_i / scale_i`` over the value, range and
    bound targets (0 when every estimate meets its target); its standard error is
    ``sqrt(sum_i (weight_i se_i / scale_i)^2)``, the error of each distance taken as its metric's
    (an upper bound: a distance does not move while its estimate stays inside the target). A
    direction objective is its metric's estimate and standard error.

    Raises:
        KeyError: a target's metric is missing from ``est``.
    """
    vals: list[float] = []
    ses: list[float] = []
    if tune.distance_targets:
        d = math.fsum(t.weight * t.distance(est[t.metric].mean) for t in tune.distance_targets)
        s = math.sqrt(math.fsum((t.weight * est[t.metric].se / t.scale) ** 2 for t in tune.distance_targets))
        vals.append(d)
        ses.append(s)
    for t in tune.targets:
        if t.kind == "direction":
            vals.append(est[t.metric].mean)
            ses.append(est[t.metric].se)
    return vals, ses


# --- trials --------------------------------------------------------------------------------------
def design_key(values: Mapping[str, Any]) -> str:
    """A short hash of a design (its parameter values): its trial folder's name. The same design
    always plays the same games (common random numbers), so a design tried twice, or a trial killed
    midway and tried again, resumes its folder instead of playing its games anew."""
    return hashlib.sha256(json.dumps(dict(values), sort_keys=True, default=str).encode()).hexdigest()[:12]


def design_raw(raw: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario of a design: ``raw`` without ``[tune]``, each parameter set to its value."""
    out = base_raw(raw)
    for k, v in values.items():
        set_input(out, k, v)
    return out


def _fingerprint(raw: Mapping[str, Any], seed: int) -> str:
    """A hash of what decides a search's results (its ``[tune]`` table and the design scenario,
    not the backend, workers or folder): a tune folder of another search is refused, not mixed."""
    keep = {k: v for k, v in raw.items() if k not in ("games", "backend", "workers", "out", "description", "name")}
    keep["seed"] = seed
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass
class TrialResult:
    """One finished trial, as the report reads it (from the Optuna storage).

    Attributes:
        number: Optuna's trial number.
        state: ``complete``, ``pruned`` or ``infeasible`` (the game refused the combination).
        values: the design's parameter values.
        objectives: the objective values (empty unless complete).
        objective_se: their standard errors.
        metrics: ``{metric: [mean, se, n, lo, hi, games]}`` measured on the trial's games
            (:meth:`TrialEstimate.as_list`; a search stored before ``games`` holds five).
        games: games the trial played.
        folder: the trial's run folder.
        recheck: the re-check's ``{"games", "objectives", "objective_se", "metrics"}`` (empty if none).
        problem: why an infeasible design was refused.
        wall_s: the trial's wall time.
    """

    number: int
    state: str
    values: dict[str, Any]
    objectives: list[float] = field(default_factory=list)
    objective_se: list[float] = field(default_factory=list)
    metrics: dict[str, list[float]] = field(default_factory=dict)
    games: int = 0
    folder: str = ""
    recheck: dict[str, Any] = field(default_factory=dict)
    problem: str = ""
    wall_s: float = 0.0


@dataclass
class SearchInfo:
    """What a finished (or resumed) search did."""

    out: Path
    trials: list[TrialResult]
    best: list[TrialResult]
    played: int
    wall_s: float
    directions: list[str]
    objective_names: list[str]
    importance: dict[str, dict[str, float]] = field(default_factory=dict)
    #: the points (a tournament's seatings) each design plays its games of: games per design are
    #: ``points * games``
    points: int = 1
    #: the search went on from trials an earlier call finished (this call's wall time is its part)
    resumed: bool = False


#: measures a trial's games: run folder -> {metric: TrialEstimate}; raises InputError naming a bad metric
Measure = Callable[[Path], Mapping[str, TrialEstimate]]
#: plays a design's scenario (games already set) into its folder; returns the games played now
PlayDesign = Callable[["Scenario", Callable[[], None]], int]


def _optuna() -> Any:
    # start-up: optuna adds 94 ms, paid only by a search (CPU, python -X importtime)
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def _sampler(tune: Tune, seed: int, done: int) -> Any:
    """A sampler for the next trial, seeded by the search's seed and the number of trials done.

    A fresh, so seeded, sampler per trial makes the search deterministic across a kill and resume
    (a sampler's random state is not in the storage; the trial history is): the k-th design depends
    on the seed and the k trials before it only. The QMC sampler walks one scrambled Sobol' sequence,
    its position kept in the storage, so it keeps the search's seed.
    """
    optuna = _optuna()
    s = (seed * 1_000_003 + done) % (2**32)
    if tune.sampler == "random":
        return optuna.samplers.RandomSampler(seed=s)
    if tune.sampler == "qmc":
        return optuna.samplers.QMCSampler(seed=seed % (2**32), scramble=True, warn_independent_sampling=False)
    if tune.sampler == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=s, population_size=max(4, min(50, tune.trials // 4)))
    # TPE (Bergstra et al. 2011), Optuna's default; a quarter of the trials (at most 10) sample at random first
    return optuna.samplers.TPESampler(seed=s, n_startup_trials=max(2, min(10, tune.trials // 4)))


def _distributions(tune: Tune) -> dict[str, Any]:
    optuna = _optuna()
    d: dict[str, Any] = {}
    for p in tune.params:
        if p.choices:
            d[p.key] = optuna.distributions.CategoricalDistribution(list(p.choices))
        elif p.integer:
            d[p.key] = optuna.distributions.IntDistribution(int(p.low), int(p.high), log=p.log, step=int(p.step or 1))
        else:
            d[p.key] = optuna.distributions.FloatDistribution(float(p.low), float(p.high), log=p.log,
                                                              step=float(p.step) if p.step else None)
    return d


def open_study(out: Path, tune: Tune, fingerprint: str, *, force: bool) -> Any:
    """The Optuna study in ``out/tune.sqlite`` (made when missing).

    Raises:
        InputError: the folder holds another search (another fingerprint) and not ``force``.
    """
    optuna = _optuna()
    path = out / STORAGE_NAME
    if force and path.exists():
        path.unlink()
        shutil.rmtree(out / TRIALS_DIR, ignore_errors=True)
        for name in (BEST_NAME, SUMMARY_NAME):
            (out / name).unlink(missing_ok=True)
    storage = optuna.storages.RDBStorage(f"sqlite:///{path}", engine_kwargs={"connect_args": {"timeout": 30}})
    directions = [d for _, d in tune.objectives]
    study = optuna.create_study(study_name="tune", storage=storage, directions=directions, load_if_exists=True,
                                pruner=optuna.pruners.MedianPruner(n_startup_trials=max(3, tune.trials // 8),
                                                                   n_warmup_steps=0))
    old = study.user_attrs.get("fingerprint")
    if old is None:
        study.set_user_attr("fingerprint", fingerprint)
        study.set_user_attr("objectives", [n for n, _ in tune.objectives])
    elif old != fingerprint:
        raise InputError(f"{out} holds a search of another scenario or [tune] table (fingerprint {old}, this one "
                         f"{fingerprint}); give --force to start it afresh (its trials are deleted), or another --out",
                         key="--out")
    return study


def search(
    raw: Mapping[str, Any],
    tune: Tune,
    *,
    out: Path,
    seed: int,
    make_scenario: Callable[[dict[str, Any], Path], "Scenario"],
    play: PlayDesign,
    measure: Measure,
    progress: Callable[[int, int], "Progress"],
    force: bool = False,
    points: int = 1,
) -> SearchInfo:
    """Run (or resume) the search: ``tune.trials`` designs, then the re-check of the best.

    Args:
        raw: the scenario as read (with its ``[tune]`` table).
        tune: its validated ``[tune]`` table.
        out: the tune folder (``tune.sqlite``, ``trials/<design>/`` run folders).
        seed: the root seed: every trial plays games ``0..games-1`` of this seed (common random
            numbers); the samplers are seeded from it.
        make_scenario: ``(design raw, trial folder) -> Scenario`` validated, its study keys (games,
            backend, workers, out) set by the caller.
        play: plays a scenario into its folder through the runner; its second argument is called
            after each game (progress).
        measure: the metrics of a trial folder's games.
        progress: ``(total games, games done before) -> Progress``: the bar over every game of the
            search (trials and re-checks), with its ETA.
        force: start a folder of another search afresh.
        points: the points each design plays ``games`` games of (a tournament's seatings), for the
            progress bar's total.

    Raises:
        InputError: a folder of another search (not ``force``), a metric no trial can measure.
        KeyboardInterrupt: Ctrl-C or SIGTERM; the finished trials and stored games are kept, and a
            trial cut short is tried again (resuming its folder) by the next search.
    """
    optuna = _optuna()
    TrialState = optuna.trial.TrialState
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    study = open_study(out, tune, _fingerprint(raw, seed), force=force)
    dists = _distributions(tune)
    single = len(tune.objectives) == 1
    played = 0

    # a trial a killed search left running is asked again with the same design (its folder resumes)
    for tr in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(tr.number, state=TrialState.FAIL)
        study.enqueue_trial(tr.params, user_attrs={"resumed_from": tr.number})

    def counted() -> int:
        return sum(1 for t in study.get_trials(deepcopy=False)
                   if t.state in (TrialState.COMPLETE, TrialState.PRUNED)
                   or (t.state == TrialState.FAIL and "problem" in t.user_attrs))

    done = counted()
    resumed = done > 0
    bar = progress(points * (tune.trials * tune.games + len(_planned_rechecks(tune)) * (tune.recheck_games - tune.games)),
                   points * done * tune.games)

    def tick() -> None:
        bar.advance()

    def run_design(values: dict[str, Any], games: int) -> tuple[Path, Mapping[str, TrialEstimate]]:
        nonlocal played
        folder = out / TRIALS_DIR / design_key(values)
        r = design_raw(raw, values)
        r["games"] = games
        sc = make_scenario(r, folder)
        played += play(sc, tick)
        est = dict(measure(folder))
        for p in tune.params:  # a searched value is known exactly: a target may ask for it small or large
            if not p.choices:
                est[metric_id(PARAM_METRIC, key=p.key)] = TrialEstimate(float(values[p.key]), 0.0, 1)
        return folder, est

    try:
        while done < tune.trials:
            study.sampler = _sampler(tune, seed, done)
            trial = study.ask(dists)
            values = dict(trial.params)
            t_start = time.perf_counter()
            try:
                design_raw_checked = design_raw(raw, values)
                make_scenario(design_raw_checked, out / TRIALS_DIR / design_key(values))
            except ScenarioError as e:
                # a combination the game refuses (each bound was checked alone): the design is infeasible
                trial.set_user_attr("problem", f"key '{e.key}': {e.message}" if e.key else e.message)
                study.tell(trial, state=TrialState.FAIL)
                done = counted()
                continue
            half = tune.games // 2
            if tune.pruning and single and half >= 2:
                folder, est = run_design(values, half)
                vals, _ = objective_values(tune, est)
                trial.report(vals[0], step=half)
                if trial.should_prune():
                    _record(trial, folder, est, half, tune, t_start)
                    study.tell(trial, state=TrialState.PRUNED)
                    done = counted()
                    continue
            folder, est = run_design(values, tune.games)
            vals, ses = objective_values(tune, est)
            _record(trial, folder, est, tune.games, tune, t_start)
            trial.set_user_attr("objective_se", ses)
            study.tell(trial, vals)
            done = counted()

        trials = read_trials(study, tune)
        best = choose_best(trials, tune, [d for _, d in tune.objectives])
        # the re-check: the best designs again with more games (the first games are the trial's own:
        # the folder resumes and plays only the rest, on the same seeds as every other design)
        for b in best:
            folder, est = run_design(dict(b.values), tune.recheck_games)
            vals, ses = objective_values(tune, est)
            b.recheck = {"games": tune.recheck_games, "objectives": vals, "objective_se": ses,
                         "metrics": {k: e.as_list() for k, e in est.items()}}
            rechecks = dict(study.user_attrs.get("rechecks", {}))
            rechecks[str(b.number)] = b.recheck
            study.set_user_attr("rechecks", rechecks)  # a finished trial's own attributes are read-only
    finally:
        bar.close()
    for t in trials:
        t.recheck = dict(study.user_attrs.get("rechecks", {}).get(str(t.number), {}))
    best = rank_rechecked(best, tune)
    importance = parameter_importance(study, tune)
    return SearchInfo(out=out, trials=trials, best=best, played=played, wall_s=time.perf_counter() - t0, resumed=resumed,
                      directions=[d for _, d in tune.objectives], objective_names=[n for n, _ in tune.objectives],
                      importance=importance, points=points)


def _planned_rechecks(tune: Tune) -> range:
    """The re-checks a search plans (at most ``tune.recheck``; fewer when fewer trials complete)."""
    return range(min(tune.recheck, tune.trials))


def _record(trial: Any, folder: Path, est: Mapping[str, TrialEstimate], games: int, tune: Tune, t_start: float) -> None:
    trial.set_user_attr("metrics", {k: e.as_list() for k, e in est.items()})
    trial.set_user_attr("games", games)
    trial.set_user_attr("folder", str(folder))
    trial.set_user_attr("wall_s", time.perf_counter() - t_start)


def read_trials(study: Any, tune: Tune) -> list[TrialResult]:
    """The search's finished trials (complete, pruned, infeasible) in trial order."""
    TrialState = _optuna().trial.TrialState
    out = []
    for t in study.get_trials(deepcopy=False):
        if t.state == TrialState.COMPLETE:
            state = "complete"
        elif t.state == TrialState.PRUNED:
            state = "pruned"
        elif t.state == TrialState.FAIL and "problem" in t.user_attrs:
            state = "infeasible"
        else:
            continue
        ua = t.user_attrs
        out.append(TrialResult(number=t.number, state=state, values=dict(t.params),
                               objectives=list(t.values or []) if state == "complete" else [],
                               objective_se=list(ua.get("objective_se", [])), metrics=dict(ua.get("metrics", {})),
                               games=int(ua.get("games", 0)), folder=str(ua.get("folder", "")),
                               recheck=dict(ua.get("recheck", {})), problem=str(ua.get("problem", "")),
                               wall_s=float(ua.get("wall_s", 0.0))))
    return out


def pareto_front(trials: Sequence[TrialResult], directions: Sequence[str]) -> list[TrialResult]:
    """The complete trials no other complete trial dominates (better or equal in every objective,
    better in one), in trial order."""
    sign = [1.0 if d == "minimize" else -1.0 for d in directions]
    done = [t for t in trials if t.state == "complete" and t.objectives]

    def key(t: TrialResult) -> list[float]:
        return [s * v for s, v in zip(sign, t.objectives)]

    front = []
    for t in done:
        kt = key(t)
        if not any(all(a <= b for a, b in zip(key(o), kt)) and key(o) != kt for o in done if o is not t):
            front.append(t)
    return front


def choose_best(trials: Sequence[TrialResult], tune: Tune, directions: Sequence[str]) -> list[TrialResult]:
    """The designs to re-check: the ``tune.recheck`` best complete trials by the objective (one
    objective), or that many of the Pareto front, spread over it (several)."""
    done = [t for t in trials if t.state == "complete" and t.objectives]
    if not done or tune.recheck == 0:
        return []
    if len(directions) == 1:
        s = 1.0 if directions[0] == "minimize" else -1.0
        return sorted(done, key=lambda t: (s * t.objectives[0], t.number))[: tune.recheck]
    front = sorted(pareto_front(done, directions), key=lambda t: (t.objectives[0], t.number))
    if len(front) <= tune.recheck:
        return front
    idx = sorted({round(i * (len(front) - 1) / max(tune.recheck - 1, 1)) for i in range(tune.recheck)})
    return [front[i] for i in idx]


def rank_rechecked(best: Sequence[TrialResult], tune: Tune) -> list[TrialResult]:
    """The re-checked designs, best first, by their re-checked objectives.

    One objective: by its value. Several (Pareto designs, none better than another on every
    objective): by their distance from the ideal point, each objective scaled to 0 (the best
    re-checked value) to 1 (the worst), summed: the compromise closest to best on every objective.
    (Ranking by the first objective alone crowned a Druids design whose every game was a draw: a
    first-player edge of 0, trivially.)
    """
    dirs = [d for _, d in tune.objectives]

    def objs(t: TrialResult) -> list[float]:
        return list(t.recheck.get("objectives") or t.objectives)

    if len(dirs) == 1:
        s = 1.0 if dirs[0] == "minimize" else -1.0
        return sorted(best, key=lambda t: (s * objs(t)[0], t.number))
    cols = list(zip(*(objs(t) for t in best))) if best else []
    lo = [min(c) for c in cols]
    hi = [max(c) for c in cols]

    def badness(t: TrialResult) -> float:
        total = 0.0
        for i, (v, d) in enumerate(zip(objs(t), dirs)):
            span = hi[i] - lo[i]
            if span > 0:
                total += (v - lo[i]) / span if d == "minimize" else (hi[i] - v) / span
        return total

    return sorted(best, key=lambda t: (badness(t), t.number))


def plausible_range(trials: Sequence[TrialResult], best: TrialResult, tune: Tune) -> dict[str, tuple[Any, Any]]:
    """Per numeric parameter, the range of values of the complete trials whose first objective is
    not clearly worse than the best design's: their intervals overlap (``conf_level``). This is
    the interval the report gives each parameter of the winner: designs in it are as good as the
    winner on the games played. Categorical parameters give the set of such choices."""
    z = NormalDist().inv_cdf(0.5 + tune.conf_level / 2)
    sign = 1.0 if tune.objectives[0][1] == "minimize" else -1.0
    objs = best.recheck.get("objectives") or best.objectives
    ses = best.recheck.get("objective_se") or best.objective_se
    b_val, b_se = sign * objs[0], (ses[0] if ses else 0.0)
    near = []
    for t in trials:
        if t.state != "complete" or not t.objectives:
            continue
        se = t.objective_se[0] if t.objective_se else 0.0
        if sign * t.objectives[0] - z * se <= b_val + z * b_se:
            near.append(t)
    if best not in near:
        near.append(best)
    out: dict[str, tuple[Any, Any]] = {}
    for p in tune.params:
        vals = [t.values[p.key] for t in near if p.key in t.values]
        if p.choices:  # the choices among them, in the table's order
            seen = {json.dumps(v) for v in vals}
            out[p.key] = ([c for c in p.choices if json.dumps(c) in seen], None)
        elif vals:
            out[p.key] = (min(vals), max(vals))
    return out


def parameter_importance(study: Any, tune: Tune) -> dict[str, dict[str, float]]:
    """Optuna's PED-ANOVA importance (Watanabe et al., IJCAI 2023) of each parameter for each
    objective, over the complete trials: how much each parameter's values in the best tenth of the
    trials differ from its values over all of them, normalised to shares that add up to 1 (which
    parameters the good designs depend on). Empty for one parameter or fewer than four complete
    trials (nothing to apportion). PED-ANOVA needs no further library (Optuna's fANOVA needs
    scikit-learn)."""
    optuna = _optuna()
    TrialState = optuna.trial.TrialState
    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if len(tune.params) < 2 or len(complete) < 4:
        return {}
    out: dict[str, dict[str, float]] = {}
    for i, (name, direction) in enumerate(tune.objectives):
        sign = 1.0 if direction == "minimize" else -1.0  # PED-ANOVA looks at the lowest target values
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # its reminder that low values are the good ones
                ev = optuna.importance.PedAnovaImportanceEvaluator()
                imp = optuna.importance.get_param_importances(study, evaluator=ev,
                                                              target=lambda t, i=i, s=sign: s * t.values[i])
        except (RuntimeError, ValueError, ZeroDivisionError):
            continue  # e.g. every trial has the same value: nothing varies to apportion
        out[name] = {k: float(v) for k, v in imp.items()}
    return out


def default_workers_note() -> str:
    """One line for the report: the cores this search had (a shared machine slows it)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    return f"{os.cpu_count() or 1} cores, load average {load:.1f} at the end"
