"""The ``[tune]`` table of a scenario: its parameters and targets, validated (``stonelab tune``).

The table, its keys and the objectives it makes are described in :mod:`sim.core.tune`, which runs
the search; this module only reads and checks the table (each parameter's bounds and choices set
in the scenario and validated in its context, as a sweep value is), so the scenario loader can
validate a ``[tune]`` table without importing the search or Optuna.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from sim.core.errors import ScenarioError, allowed
from sim.core.options import Option, validate_options
from sim.core.scenario_keys import Validate, check_in_context
from sim.core.sensitivity import expand_key, set_input

SECTION = "tune"
SAMPLERS = ("tpe", "random", "qmc", "nsga2")
DIRECTIONS = ("minimize", "maximize")
#: the kinds of target a ``[[tune.targets]]`` entry may give (exactly one)
TARGET_KINDS = ("value", "range", "at_least", "at_most", "direction")
#: top-level keys a parameter may not vary: they are the study, not the design
_STUDY_ROOTS = ("sweep", "sensitivity", SECTION, "game", "games", "seed", "backend", "workers", "out", "name",
                "description", "seat_order")
#: the most parameters and trials (a search of more is almost surely a typo)
MAX_PARAMS = 32
MAX_TRIALS = 10_000

SECTION_OPTIONS: tuple[Option, ...] = (
    Option("trials", int, 40, "designs tried (Optuna trials)", min=1, max=MAX_TRIALS),
    Option("games", int, 20, "games per trial; every trial plays the same seeds (common random numbers)",
           min=1, max=1_000_000),
    Option("recheck", int, 3, "best designs re-checked with more games before they are reported", min=0, max=100),
    Option("recheck_games", int, 0, "games per re-check (0: four times games)", min=0, max=10_000_000),
    Option("sampler", str, "tpe", "Optuna sampler: tpe (default), random, qmc (Sobol'), nsga2 (multi-objective)",
           choices=SAMPLERS),
    Option("pruning", bool, True, "stop a trial after half its games when it is worse than the median trial "
           "(Optuna's MedianPruner; single objective only)"),
    Option("conf_level", float, 0.95, "confidence level of every interval", min=0.5, max=0.999),
    Option("params", dict, {}, "'dotted.key' = {low, high[, log, step]} or {choices = [...]}",
           check=lambda v: None if isinstance(v, dict) and v else "a non-empty table of parameters"),
    Option("targets", list, [], "[[tune.targets]] tables: metric and one of value, range, at_least, at_most, "
           "direction; weight, scale", check=lambda v: None if isinstance(v, list) and v else
           "a non-empty list of [[tune.targets]] tables"),
)
_PARAM_KEYS = ("low", "high", "log", "step", "choices")
_TARGET_KEYS = ("metric", "player", "opponent", "key", *TARGET_KINDS, "weight", "scale", "tolerance")
#: metrics of one player against another (``player`` and ``opponent``), and of a searched
#: parameter's value (``key = "dotted.key"``); any other metric may name one ``player``
PAIR_METRICS = ("beats",)
PARAM_METRIC = "param"


def metric_id(metric: str, player: str = "", opponent: str = "", key: str = "") -> str:
    """The name a target's metric is measured and reported under: ``score[expert]``,
    ``beats[expert|child]``, ``param[table.pass_clearance]``, or the plain name."""
    if key:
        return f"{metric}[{key}]"
    if opponent:
        return f"{metric}[{player}|{opponent}]"
    return f"{metric}[{player}]" if player else metric


@dataclass(frozen=True)
class Param:
    """One searched parameter.

    Attributes:
        key: dotted scenario path (``seats.*.x`` sets ``x`` in every seat).
        low, high: the range (numeric parameters), in the key's own unit.
        integer: both bounds are integers: integer values are tried.
        log: sample on a log scale (``low > 0``).
        step: the grid step (0: continuous).
        choices: the values tried (a categorical parameter; ``low``/``high`` unused).
    """

    key: str
    low: float = 0.0
    high: float = 0.0
    integer: bool = False
    log: bool = False
    step: float = 0.0
    choices: tuple[Any, ...] = ()

    def describe(self) -> str:
        """The parameter's space in words (``0.001 to 0.008, log scale``)."""
        if self.choices:
            return "one of " + allowed(self.choices)
        scale = ", log scale" if self.log else ""
        grid = f", step {self.step:g}" if self.step else ""
        return f"{self.low:g} to {self.high:g}{scale}{grid}"


@dataclass(frozen=True)
class Target:
    """One target or objective.

    Attributes:
        metric: the headline metric's name (``analysis.tune.metric_names`` lists them).
        kind: one of :data:`TARGET_KINDS`.
        low, high: the accepted interval (``value``: both the value; ``at_least``: ``high`` = inf).
        direction: ``minimize``/``maximize`` for a ``direction`` objective, else "".
        weight: the target's weight in the distance objective.
        scale: the metric's unit of distance (the distance is divided by it).
        tolerance: a ``value`` target counts as met within this distance.
    """

    metric: str
    kind: str
    low: float = -math.inf
    high: float = math.inf
    direction: str = ""
    weight: float = 1.0
    scale: float = 1.0
    tolerance: float = 0.0

    def distance(self, x: float) -> float:
        """How far ``x`` lies from the accepted interval, in units of ``scale`` (0 inside it)."""
        lo, hi = self.low - self.tolerance, self.high + self.tolerance
        d = lo - x if x < lo else x - hi if x > hi else 0.0
        return d / self.scale

    def describe(self) -> str:
        """The target in words (``between 2 and 4``, ``at least 0.9``, ``as small as possible``)."""
        if self.kind == "direction":
            return "as small as possible" if self.direction == "minimize" else "as large as possible"
        if self.kind == "value":
            return f"{self.low:g}" + (f" ± {self.tolerance:g}" if self.tolerance else "")
        if self.kind == "at_least":
            return f"at least {self.low:g}"
        if self.kind == "at_most":
            return f"at most {self.high:g}"
        return f"between {self.low:g} and {self.high:g}"

    def verdict(self, lo: float, x: float, hi: float) -> str:
        """``met``, ``missed`` or ``unsure`` for an estimate ``x`` with interval ``[lo, hi]``
        (a direction: ``n/a``).

        Missed: the whole interval lies outside the target. Met: the estimate lies within it, or,
        for a value target (a point, where an estimate never lands exactly), the interval covers
        the value. Unsure: in between (the estimate is outside, the interval reaches in).
        """
        if self.kind == "direction":
            return "n/a"
        tl, th = self.low - self.tolerance, self.high + self.tolerance
        if not math.isfinite(x):
            return "unsure"
        if hi < tl or lo > th:
            return "missed"
        if tl <= x <= th or (self.kind == "value" and lo <= tl and th <= hi):
            return "met"
        return "unsure"


@dataclass(frozen=True)
class Tune:
    """A validated ``[tune]`` table (see the module docstring)."""

    params: tuple[Param, ...]
    targets: tuple[Target, ...]
    trials: int = 40
    games: int = 20
    recheck: int = 3
    recheck_games: int = 80
    sampler: str = "tpe"
    pruning: bool = True
    conf_level: float = 0.95

    @property
    def distance_targets(self) -> tuple[Target, ...]:
        """The targets that form the distance objective (a value, range or bound)."""
        return tuple(t for t in self.targets if t.kind != "direction")

    @property
    def objectives(self) -> list[tuple[str, str]]:
        """``(name, direction)`` of each objective: ``distance`` (minimised) first when any target
        has a value, range or bound, then each ``direction`` target's metric."""
        out = [("distance", "minimize")] if self.distance_targets else []
        out += [(t.metric, t.direction) for t in self.targets if t.kind == "direction"]
        return out

    @property
    def metrics(self) -> list[str]:
        """The metrics the targets name, each once, in order."""
        return list(dict.fromkeys(t.metric for t in self.targets))


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def base_raw(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario without its ``[tune]`` table: what every trial starts from (a deep copy)."""
    out = copy.deepcopy(dict(raw))
    out.pop(SECTION, None)
    return out


def parse_tune(raw: Mapping[str, Any], validate: Validate, *, source: str) -> Tune:
    """Validate a scenario's ``[tune]`` table.

    Each parameter's bounds (or each of its choices) are set in the scenario without its
    ``[tune]`` table and the whole scenario is validated (``validate``), so a bound the game refuses
    is named with the game's reason. Metric names are checked by the ``tune`` command against the
    metrics the game's analysis offers (``analysis.tune.metric_names``), not here (``sim/core``
    knows no metric).

    Raises:
        ScenarioError: the key (``tune.params."table.x".low``, ``tune.targets.0.range``, ...) and
            what is allowed.
    """
    sec = raw.get(SECTION)
    if not isinstance(sec, dict):
        raise ScenarioError("must be a table ([tune])", source=source, key=SECTION)
    for other in ("sweep", "sensitivity"):
        if other in raw:
            raise ScenarioError(f"a scenario with [tune] cannot also have [{other}]: each trial is one design; "
                                f"tune the design first, then sweep the winner (best.toml)", source=source, key=other)
    opts = validate_options(sec, SECTION_OPTIONS, source=source, prefix=SECTION)
    base = base_raw(raw)
    params = tuple(_param(k, v, base, validate, source) for k, v in opts["params"].items())
    if len(params) > MAX_PARAMS:
        raise ScenarioError(f"got {len(params)} parameters; at most {MAX_PARAMS} are allowed", source=source,
                            key=f"{SECTION}.params")
    targets = tuple(_target(i, t, source, [p.key for p in params]) for i, t in enumerate(opts["targets"]))
    seen: set[str] = set()
    for i, t in enumerate(targets):
        if t.metric in seen and t.kind == "direction":
            raise ScenarioError(f"metric {t.metric!r} is an objective twice", source=source, key=f"{SECTION}.targets.{i}")
        seen.add(t.metric)
    tune = Tune(params=params, targets=targets, trials=opts["trials"], games=opts["games"], recheck=opts["recheck"],
                recheck_games=opts["recheck_games"] or 4 * opts["games"], sampler=opts["sampler"],
                pruning=opts["pruning"], conf_level=opts["conf_level"])
    if tune.recheck_games < tune.games:
        raise ScenarioError(f"got {tune.recheck_games}; a re-check plays at least the trial's {tune.games} games",
                            source=source, key=f"{SECTION}.recheck_games")
    if tune.sampler == "nsga2" and len(tune.objectives) < 2:
        raise ScenarioError("nsga2 searches two or more objectives (give two targets a direction, or one and a "
                            "value/range target); for one objective use 'tpe', 'random' or 'qmc'", source=source,
                            key=f"{SECTION}.sampler")
    return tune


def _param(key: str, spec: Any, base: dict[str, Any], validate: Validate, source: str) -> Param:
    """One ``[tune.params]`` entry, its bounds or choices checked in context."""
    where = f'{SECTION}.params."{key}"'
    root = key.split(".")[0]
    if root in _STUDY_ROOTS:
        raise ScenarioError(f"'{root}' is the study, not the design; search rules, seats, the game's tables "
                            "(e.g. physics, table, shapes) or a tournament's entrants", source=source, key=where)
    try:
        expand_key(base, key)
    except KeyError as e:
        raise ScenarioError(str(e.args[0]), source=source, key=where) from None
    if not isinstance(spec, dict):
        raise ScenarioError("must be a table: {low = ..., high = ...} (optional log, step) or {choices = [...]}",
                            source=source, key=where)
    unknown = sorted(set(spec) - set(_PARAM_KEYS))
    if unknown:
        raise ScenarioError(f"unknown key {unknown[0]!r}; allowed: {allowed(_PARAM_KEYS)}", source=source,
                            key=f"{where}.{unknown[0]}")
    if "choices" in spec:
        extra = sorted(set(spec) - {"choices"})
        if extra:
            raise ScenarioError(f"a parameter has either choices or low/high, not both ({extra[0]!r} given)",
                                source=source, key=f"{where}.{extra[0]}")
        choices = spec["choices"]
        if not isinstance(choices, list) or len(choices) < 2:
            raise ScenarioError("must be a list of two or more values", source=source, key=f"{where}.choices")
        if any(isinstance(c, (dict, list)) for c in choices):
            raise ScenarioError("choices are numbers, strings or booleans (Optuna stores them as they are)",
                                source=source, key=f"{where}.choices")
        if len({json.dumps(c) for c in choices}) != len(choices):
            raise ScenarioError("a value is listed twice; give each once", source=source, key=f"{where}.choices")
        for c in choices:
            check_in_context(copy.deepcopy(base), key, c, set_input, validate, source=source, where=f"{where}.choices")
        return Param(key=key, choices=tuple(choices))
    for k in ("low", "high"):
        if k not in spec:
            raise ScenarioError("missing; a numeric parameter has low and high (or give choices = [...])",
                                source=source, key=f"{where}.{k}")
        if not _number(spec[k]) or not math.isfinite(spec[k]):
            raise ScenarioError(f"got {spec[k]!r}; allowed: a finite number", source=source, key=f"{where}.{k}")
    low, high = spec["low"], spec["high"]
    if not low < high:
        raise ScenarioError(f"got low {low!r} and high {high!r}; low must be below high", source=source,
                            key=f"{where}.high")
    log = spec.get("log", False)
    if not isinstance(log, bool):
        raise ScenarioError(f"got {log!r}; allowed: true or false", source=source, key=f"{where}.log")
    if log and low <= 0:
        raise ScenarioError(f"got low {low!r}; a log scale needs low > 0", source=source, key=f"{where}.low")
    step = spec.get("step", 0)
    integer = isinstance(low, int) and isinstance(high, int)
    if not _number(step) or step < 0 or (step and step > high - low):
        raise ScenarioError(f"got {step!r}; allowed: a number above 0 and at most high - low ({high - low:g})",
                            source=source, key=f"{where}.step")
    if step and log:
        raise ScenarioError("Optuna samples a log scale or a step grid, not both", source=source, key=f"{where}.step")
    if integer and step and not isinstance(step, int):
        raise ScenarioError(f"got {step!r}; an integer parameter (integer low and high) has an integer step",
                            source=source, key=f"{where}.step")
    for v in (low, high):
        check_in_context(copy.deepcopy(base), key, v, set_input, validate, source=source, where=where)
    return Param(key=key, low=low, high=high, integer=integer, log=log, step=step)


def _target(i: int, spec: Any, source: str, params: Sequence[str]) -> Target:
    """One ``[[tune.targets]]`` entry."""
    where = f"{SECTION}.targets.{i}"
    if not isinstance(spec, dict):
        raise ScenarioError("must be a table ([[tune.targets]])", source=source, key=where)
    unknown = sorted(set(spec) - set(_TARGET_KEYS))
    if unknown:
        raise ScenarioError(f"unknown key {unknown[0]!r}; allowed: {allowed(_TARGET_KEYS)}", source=source,
                            key=f"{where}.{unknown[0]}")
    metric = spec.get("metric")
    if not isinstance(metric, str) or not metric:
        raise ScenarioError("missing; the name of a headline metric (docs/scenarios.md lists them)", source=source,
                            key=f"{where}.metric")
    for k in ("player", "opponent", "key"):
        if k in spec and (not isinstance(spec[k], str) or not spec[k]):
            raise ScenarioError(f"got {spec[k]!r}; allowed: a non-empty string", source=source, key=f"{where}.{k}")
    # a parameter's value needs its key, a pairwise metric a player and an opponent; any other
    # metric may be one player's (which metrics are per player is the game's: analysis.tune checks)
    needs = ("key",) if metric == PARAM_METRIC else ("player", "opponent") if metric in PAIR_METRICS else ()
    optional = ("player",) if not needs else ()
    for k in ("player", "opponent", "key"):
        if k in needs and k not in spec:
            raise ScenarioError(f"missing; metric {metric!r} needs {allowed(needs)}", source=source, key=f"{where}.{k}")
        if k not in needs and k not in optional and k in spec:
            what = f"metric {metric!r} takes {allowed(needs)}" if needs else f"metric {metric!r} takes no {k}"
            raise ScenarioError(f"unexpected; {what}", source=source, key=f"{where}.{k}")
    if metric == PARAM_METRIC and spec["key"] not in params:
        raise ScenarioError(f"got {spec['key']!r}; allowed: a searched parameter, {allowed(params)}", source=source,
                            key=f"{where}.key")
    metric = metric_id(metric, spec.get("player", ""), spec.get("opponent", ""), spec.get("key", ""))
    kinds = [k for k in TARGET_KINDS if k in spec]
    if len(kinds) != 1:
        raise ScenarioError(f"give exactly one of {allowed(TARGET_KINDS)} (got {len(kinds)})", source=source, key=where)
    kind = kinds[0]
    v = spec[kind]
    low, high, direction = -math.inf, math.inf, ""
    if kind == "direction":
        if v not in DIRECTIONS:
            raise ScenarioError(f"got {v!r}; allowed: {allowed(DIRECTIONS)}", source=source, key=f"{where}.direction")
        direction = v
    elif kind == "range":
        if not (isinstance(v, list) and len(v) == 2 and all(_number(x) and not math.isnan(x) for x in v)
                and v[0] < v[1]):
            raise ScenarioError(f"got {v!r}; allowed: [low, high] with low < high (inf allowed)", source=source,
                                key=f"{where}.range")
        low, high = float(v[0]), float(v[1])
    else:
        if not _number(v) or not math.isfinite(v):
            raise ScenarioError(f"got {v!r}; allowed: a finite number", source=source, key=f"{where}.{kind}")
        low = float(v) if kind in ("value", "at_least") else -math.inf
        high = float(v) if kind in ("value", "at_most") else math.inf
    nums: dict[str, float] = {}
    for k, default, least in (("weight", 1.0, 0.0), ("scale", 1.0, 0.0), ("tolerance", 0.0, -1.0)):
        x = spec.get(k, default)
        if not _number(x) or not math.isfinite(x) or x <= least and not (k == "tolerance" and x == 0):
            what = "a number above 0" if k != "tolerance" else "a number, 0 or more"
            raise ScenarioError(f"got {x!r}; allowed: {what}", source=source, key=f"{where}.{k}")
        nums[k] = float(x)
    if kind == "direction" and ("weight" in spec or "tolerance" in spec):
        raise ScenarioError("a direction is an objective of its own: it has no weight or tolerance", source=source,
                            key=f"{where}.{'weight' if 'weight' in spec else 'tolerance'}")
    if "tolerance" in spec and kind != "value":
        raise ScenarioError("only a value target has a tolerance", source=source, key=f"{where}.tolerance")
    return Target(metric=metric, kind=kind, low=low, high=high, direction=direction, weight=nums["weight"],
                  scale=nums["scale"], tolerance=nums["tolerance"])


