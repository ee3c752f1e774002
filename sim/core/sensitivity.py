"""Global sensitivity studies: the ``[sensitivity]`` section of a scenario and its sample points.

A sensitivity study asks how much each uncertain input of the model (a thrower's sigmas, a friction
coefficient, ...) moves a study's headline outputs. The section names the inputs as dotted scenario
keys with a range, and a method from SALib:

- ``morris``: elementary-effects screening (Morris 1991, Campolongo et al. 2007), ``trajectories``
  trajectories of ``inputs + 1`` points on a grid of ``levels`` levels: the quick pass.
- ``sobol``: variance-based first-order and total indices (Saltelli 2002/2010) from a Sobol' sequence
  of ``samples`` base samples, ``samples * (inputs + 2)`` points: the thorough pass.

::

    [sensitivity]
    method = "morris"            # morris | sobol
    trajectories = 10            # morris: r; points = r * (inputs + 1)
    levels = 4                   # morris grid levels (even)
    samples = 64                 # sobol: base samples N (a power of 2); points = N * (inputs + 2)
    conf_level = 0.95            # confidence level of every interval
    resamples = 1000             # bootstrap resamples
    [sensitivity.inputs]
    "seats.*.sigma_aim_deg" = [0.25, 4.0]       # '*' sets the key in every seat
    "physics.friction_wood_wood" = [0.25, 0.6]

Each sample point is a sweep point of the runner: the store's ``points`` table holds its input
values, each point plays the scenario's ``games`` games with the same seeds as every other point
(common random numbers), and a killed study resumes like any run. The sample matrix depends only
on the scenario's ``seed`` (SALib's samplers are seeded with it), so the same seed gives the same
points, games and indices. Without ``inputs``, the game's package may offer defaults
(``sim.<game>.sensitivity.DEFAULT_INPUTS``).

The analysis of a finished study (indices with confidence intervals, the plot, the sentences) is
``analysis.sensitivity``.
"""

from __future__ import annotations

import copy
import importlib
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from sim.core.errors import ScenarioError, allowed
from sim.core.options import Option, validate_options
from sim.core.scenario_keys import Validate, check_in_context, set_path

if TYPE_CHECKING:
    from sim.core.registry import Registry

METHODS = ("morris", "sobol")
SECTION = "sensitivity"
#: top-level keys an input may not vary: they are the study, not the model
_STUDY_ROOTS = ("sweep", SECTION, "game", "games", "seed", "backend", "workers", "out", "name", "description",
                "seat_order")


def _power_of_two(v: int) -> str | None:
    return None if v >= 1 and v & (v - 1) == 0 else "Sobol' samples must be a power of 2 (e.g. 32, 64, 128)"


def _even(v: int) -> str | None:
    return None if v % 2 == 0 else "Morris levels must be even (Morris 1991: then every grid step has the same size)"


SECTION_OPTIONS: tuple[Option, ...] = (
    Option("method", str, "morris", "morris (screening, quick) or sobol (variance-based, thorough)", choices=METHODS),
    Option("trajectories", int, 10, "Morris trajectories r; points = r * (inputs + 1)", min=2, max=100_000),
    Option("levels", int, 4, "Morris grid levels", min=2, max=100, check=_even),
    Option("samples", int, 64, "Sobol' base samples N (a power of 2); points = N * (inputs + 2)", min=2,
           max=2**20, check=_power_of_two),
    Option("conf_level", float, 0.95, "confidence level of the intervals", min=0.5, max=0.999),
    Option("resamples", int, 1000, "bootstrap resamples for the intervals", min=10, max=100_000),
    Option("inputs", dict, {}, "'dotted.key' = [low, high]; '*' for every seat (seats.*.key)",
           check=lambda v: None if isinstance(v, dict) else "a table"),
)


@dataclass(frozen=True)
class Input:
    """One uncertain input: a dotted scenario key and its range.

    Attributes:
        key: dotted path into the scenario (``physics.restitution``, ``seats.0.sigma_aim_deg``;
            ``seats.*.x`` sets ``x`` in every seat).
        low, high: the range (the key's own unit); ``low < high``.
        integer: both bounds were integers: sampled values are rounded (for integer options).
    """

    key: str
    low: float
    high: float
    integer: bool = False

    def value(self, x: float) -> float | int:
        """The value set in the scenario for a sample ``x`` (rounded for integer inputs)."""
        return int(round(x)) if self.integer else float(x)


@dataclass(frozen=True)
class Plan:
    """A validated ``[sensitivity]`` section.

    Attributes: see the module docstring; ``inputs`` sorted by key (the order of the sample's columns).
    """

    method: str
    inputs: tuple[Input, ...]
    trajectories: int = 10
    levels: int = 4
    samples: int = 64
    conf_level: float = 0.95
    resamples: int = 1000

    @property
    def keys(self) -> list[str]:
        """The inputs' keys."""
        return [i.key for i in self.inputs]

    def problem(self) -> dict[str, Any]:
        """The SALib problem dict (names, bounds)."""
        return {"num_vars": len(self.inputs), "names": self.keys,
                "bounds": [[i.low, i.high] for i in self.inputs]}

    def n_points(self) -> int:
        """How many sample points the plan plays."""
        k = len(self.inputs)
        return self.trajectories * (k + 1) if self.method == "morris" else self.samples * (k + 2)

    def sample(self, seed: int) -> np.ndarray:
        """The sample matrix (points x inputs) in the inputs' units; a function of ``seed`` only."""
        prob = self.problem()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SALib's notices about N and scrambling; checked here
            if self.method == "morris":
                # start-up: SALib costs 620 ms of start-up, paid only by a sensitivity study (CPU, python -X importtime)
                from SALib.sample import morris

                x = morris.sample(prob, self.trajectories, num_levels=self.levels, seed=seed)
            else:
                # start-up: SALib costs 620 ms of start-up, paid only by a sensitivity study (CPU, python -X importtime)
                from SALib.sample import sobol

                x = sobol.sample(prob, self.samples, calc_second_order=False, seed=seed)
        return np.asarray(x, dtype=float)

    def as_dict(self) -> dict[str, Any]:
        """The section as a scenario would write it (every key explicit)."""
        return {"method": self.method, "trajectories": self.trajectories, "levels": self.levels,
                "samples": self.samples, "conf_level": self.conf_level, "resamples": self.resamples,
                "inputs": {i.key: ([int(i.low), int(i.high)] if i.integer else [i.low, i.high]) for i in self.inputs}}


def default_inputs(registry: "Registry", game: str) -> dict[str, list[float]]:
    """The default inputs the game's plug-in offers (its ``sensitivity`` module's
    ``DEFAULT_INPUTS``: ``{key: {"range": [low, high], ...}}``), or an empty dict (none declared,
    or a game not registered here).

    Raises:
        InputError: the game's plug-in cannot be loaded.
        ImportError: its declared sensitivity module cannot be imported.
    """
    plugin = registry.find(game)
    if plugin is None or not plugin.sensitivity:
        return {}
    mod = importlib.import_module(plugin.sensitivity)
    return {k: list(v["range"]) for k, v in getattr(mod, "DEFAULT_INPUTS", {}).items()}


def expand_key(raw: Mapping[str, Any], key: str) -> list[str]:
    """The concrete dotted keys of ``key``: ``seats.*.x`` becomes ``seats.0.x``, ``seats.1.x``, ..."""
    parts = key.split(".")
    if "*" not in parts:
        return [key]
    if parts[0] != "seats" or parts.index("*") != 1 or parts.count("*") != 1:
        raise KeyError("'*' stands for every seat and only in seats.*.<key>")
    seats = raw.get("seats")
    n = len(seats) if isinstance(seats, list) else 0
    return [".".join(["seats", str(s), *parts[2:]]) for s in range(n)]


def set_input(raw: dict[str, Any], key: str, value: Any) -> None:
    """Set an input's value in a raw scenario dict (every seat for ``seats.*``).

    Raises:
        KeyError: the key names no seat or is not a table path (message for the user).
    """
    for k in expand_key(raw, key):
        set_path(raw, k, value)


def base_raw(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario without its study tables (``[sweep]``, ``[sensitivity]``): what a point varies."""
    out = copy.deepcopy(dict(raw))
    out.pop("sweep", None)
    out.pop(SECTION, None)
    return out


def parse_plan(raw: Mapping[str, Any], registry: "Registry", validate: Validate, *,
               source: str = "<scenario>") -> Plan:
    """Validate the ``[sensitivity]`` section of a raw scenario (which must hold one).

    Each input's key must name a scenario key that takes both ends of its range: the scenario
    (without its study tables) is validated by ``validate`` with the low and with the high value
    set, so a bad key or range is reported with the file, ``sensitivity.inputs.<key>`` and what
    that key allows. :func:`sim.core.scenario.scenario_from_dict` passes itself as ``validate``:
    this module never imports the scenario loader.

    Raises:
        ScenarioError: unknown key of the section, wrong type or range of a setting, a sweep in the
            same scenario, no inputs (and no game defaults), an input that is not ``[low, high]``
            with ``low < high``, or a value the varied key does not allow.
    """
    sec = raw.get(SECTION)
    if not isinstance(sec, dict):
        raise ScenarioError("must be a table ([sensitivity])", source=source, key=SECTION)
    if raw.get("sweep") is not None:
        raise ScenarioError("a scenario has either [sweep] or [sensitivity], not both: a sensitivity study's "
                            "sample points are its sweep", source=source, key=SECTION)
    known = {o.name for o in SECTION_OPTIONS}
    for k in sec:
        if k not in known:
            raise ScenarioError(f"unknown key; allowed: {allowed(sorted(known))}", source=source, key=f"{SECTION}.{k}")
    opts = validate_options(sec, SECTION_OPTIONS, source=source, prefix=SECTION)
    given = opts["inputs"]
    if not given:
        given = default_inputs(registry, str(raw.get("game")))
        if not given:
            raise ScenarioError("missing: give [sensitivity.inputs] as 'dotted.key' = [low, high] "
                                "(e.g. \"rules.target\" = [5, 20])", source=source, key=f"{SECTION}.inputs")
    base = base_raw(raw)
    inputs = []
    for key, rng in given.items():
        where = f"{SECTION}.inputs.{key}"
        if not isinstance(key, str) or not key or key.split(".")[0] in _STUDY_ROOTS:
            raise ScenarioError("this key cannot be varied; vary rules, seats or game sections (e.g. physics.restitution)",
                                source=source, key=where)
        if (not isinstance(rng, list) or len(rng) != 2
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in rng)):
            raise ScenarioError(f"got {rng!r}; allowed: [low, high], two numbers", source=source, key=where)
        lo, hi = rng
        if not lo < hi:
            raise ScenarioError(f"got [{lo}, {hi}]; allowed: [low, high] with low < high", source=source, key=where)
        for v in (lo, hi):
            check_in_context(copy.deepcopy(base), key, v, set_input, validate, source=source, where=where)
        inputs.append(Input(key, float(lo), float(hi), integer=isinstance(lo, int) and isinstance(hi, int)))
    # one canonical order, by key: the store keeps the scenario as JSON with sorted keys, and a
    # Sobol' design is tied to the column order of its problem, so sampling and analysis must agree
    inputs.sort(key=lambda i: i.key)
    if len(inputs) < 2:
        raise ScenarioError("give at least 2 inputs: a sensitivity analysis compares inputs", source=source,
                            key=f"{SECTION}.inputs")
    return Plan(opts["method"], tuple(inputs), opts["trajectories"], opts["levels"], opts["samples"],
                opts["conf_level"], opts["resamples"])


def sample_raws(raw: Mapping[str, Any], plan: Plan, seed: int) -> list[tuple[dict[str, float | int], dict[str, Any]]]:
    """The plan's sample points as raw scenarios: row ``i`` of the sample matrix drawn with
    ``seed`` gives ``(values, raw_i)``, the inputs' values by key and the scenario ``raw`` without
    its study tables with those values set; :meth:`sim.core.scenario.Scenario.points` validates
    each.

    Raises:
        KeyError: an input names no settable key (cannot happen for a plan from
            :func:`parse_plan`, which set both ends of each range).
    """
    x = plan.sample(seed)
    base = base_raw(raw)
    out = []
    for row in x:
        point = copy.deepcopy(base)
        values: dict[str, float | int] = {}
        for inp, v in zip(plan.inputs, row):
            values[inp.key] = inp.value(float(v))
            set_input(point, inp.key, values[inp.key])
        out.append((values, point))
    return out


def plan_raw(raw: Mapping[str, Any], registry: "Registry", game: str, *, method: str | None = None,
             trajectories: int | None = None, samples: int | None = None,
             games_per_point: int | None = None) -> dict[str, Any]:
    """A copy of the raw scenario ``raw`` (of ``game``) whose ``[sensitivity]`` section has the
    given settings and its inputs written out (the game's defaults when it names none); what
    :meth:`sim.core.scenario.Scenario.with_plan` validates.

    Raises:
        InputError, ImportError: see :func:`default_inputs`.
    """
    out = copy.deepcopy(dict(raw))
    sec = dict(out.get(SECTION) or {})
    for k, v in (("method", method), ("trajectories", trajectories), ("samples", samples)):
        if v is not None:
            sec[k] = v
    if not sec.get("inputs"):
        # write the game's defaults out: the store then holds the very inputs it was run with
        sec["inputs"] = default_inputs(registry, game)
    out[SECTION] = sec
    if games_per_point is not None:
        out["games"] = games_per_point
    return out
