"""Scenario files: which game, seats and agents, rule options, study size, seed, backend, sweep.

A scenario is a TOML file validated against the game's spec on load; every problem is a
:class:`~sim.core.errors.ScenarioError` naming the file, the key and what is allowed. Nothing is
written before a scenario has validated.

Top-level keys::

    name, description, game, games, seed, backend, workers, out    (study)
    seat_order                    "rotate" (default) or "fixed": whether differing seats rotate
    [rules]                       the game's rule options
    [[seats]]                     one per seat: agent = "...", its parameters, the game's seat keys
    [<section>]                   tables the game declares (e.g. [physics] for the Sun)
    [sweep]                       "dotted.key" = [values...]: the runner plays the grid
    [sensitivity]                 a global sensitivity study: its sample points are the sweep
                                  (sim/core/sensitivity.py)
    [tournament]                  a round-robin of listed agents instead of fixed seats
                                  (sim/core/tournament.py): one point per seating
    [tune]                        a design search for `stonelab tune` (sim/core/tune.py); `run`
                                  plays the scenario as written and ignores it

The loader sits above the modules that own those two tables: they validate their table and give
the raw scenarios of their points, the loader validates each (it passes itself to them as the
validator where a table must check values in the context of the whole scenario), so none of them
imports the loader back. Seats are validated in :mod:`sim.core.seats`, dotted keys set in
:mod:`sim.core.scenario_keys`.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from sim.core.errors import InputError, ScenarioError, allowed
from sim.core.files import read_toml
from sim.core.game import GameConfig
from sim.core.options import Option, validate_options
from sim.core.outputs import default_run_folder, folder_name_problem, folder_path_problem
from sim.core.registry import Registry
from sim.core.scenario_keys import check_in_context, set_path
from sim.core.seats import SEAT_ORDERS, SeatSpec, seat_orders, validate_seats
from sim.core.sensitivity import SECTION, Plan, parse_plan, plan_raw, sample_raws
from sim.core.tournament import MAX_SEATINGS, SEATING_KEY, Tournament, parse_tournament, seating_raw, tournament_raw
from sim.core.tune_table import SECTION as TUNE_SECTION
from sim.core.tune_table import Tune, parse_tune

__all__ = ["BACKENDS", "STUDY_OPTIONS", "Scenario", "SeatSpec", "Seating", "SweepPoint", "load_scenario", "scenario_from_dict"]

BACKENDS = ("serial", "process", "dask")
#: the most points a ``[sweep]`` grid or a ``[sensitivity]`` plan may have (as many as a
#: tournament's seatings): each point is a validated scenario held in memory, and a larger grid is
#: almost surely a typo (a list of a thousand values)
MAX_SWEEP_POINTS = MAX_SEATINGS


def _check_name(name: str) -> str | None:
    """A run name becomes a folder under runs/<game>/ (:func:`sim.core.outputs.folder_name_problem`)."""
    if name == "":
        return None  # the default: the file's stem, checked in scenario_from_dict
    problem = folder_name_problem(name)
    if problem is None:
        return None
    elsewhere = "/" in name or "\\" in name or name in (".", "..")  # perhaps meant as a folder: out is that
    return f"a run name is a folder name under runs/<game>/: {problem}" + ("; set out for another folder"
                                                                           if elsewhere else "")


def _check_out(out: str) -> str | None:
    problem = folder_path_problem(out) if out else None
    return f"not a folder path: {problem}" if problem else None


#: more worker processes than this many per core only add memory and start-up time (each worker
#: imports the engines; measured: 300 workers on 2 cores took 7 GB and 110 s for a study that
#: needs 0.8 s); such a count is refused as a typing error, by validate and run alike
MAX_WORKERS_PER_CORE = 4


def workers_problem(requested: int) -> str | None:
    """Why ``requested`` worker processes are refused on this machine (more than
    :data:`MAX_WORKERS_PER_CORE` per core), or None; 0 means one per core."""
    cores = os.cpu_count() or 1
    limit = MAX_WORKERS_PER_CORE * cores
    if requested > limit:
        return (f"got {requested} worker processes on {cores} cores; allowed: 0 (one per core) to {limit} "
                f"({MAX_WORKERS_PER_CORE} per core)")
    return None


STUDY_OPTIONS: tuple[Option, ...] = (
    Option("name", str, "", "run name; default: the file's stem", check=_check_name),
    Option("description", str, "", "one line shown in reports"),
    Option("game", str, "", "registered game name"),
    Option("games", int, 100, "games per sweep point", min=1, max=10_000_000),
    Option("seed", int, 0, "root seed: game i uses SeedSequence(seed, spawn_key=(i, k))", min=0, max=2**63 - 1),
    Option("backend", str, "process", "how games are run", choices=BACKENDS),
    Option("workers", int, 0, "worker processes; 0 means one per core", min=0, max=4096),
    Option("out", str, "", "run folder; default runs/<game>/<name>", check=_check_out),
    Option("seat_order", str, "rotate", "rotate: seats that hold different players play every cyclic rotation "
           "equally often (docs/scenarios.md); fixed: [[seats]] entry i always sits in seat i", choices=SEAT_ORDERS),
)
_STUDY_KEYS = {o.name for o in STUDY_OPTIONS}
@dataclass(frozen=True)
class Seating:
    """Who sits where in one game of a study (:meth:`Scenario.seating`).

    Attributes:
        players: per seat, the index of the ``[[seats]]`` entry (the *player*) sitting there.
        seats: the seat specs in seat order.
        stream_index: the index the game's seed streams are drawn with (``sim.core.seeding``): the
            games of one block of seat orders share it, so each order meets the same deals and
            throws (common random numbers, as the tournament's seatings do).
    """

    players: tuple[int, ...]
    seats: tuple[SeatSpec, ...]
    stream_index: int


@dataclass(frozen=True)
class SweepPoint:
    """One point of the sweep grid: its index, the swept values, and the resolved scenario."""

    index: int
    values: Mapping[str, Any]
    scenario: "Scenario"


@dataclass(frozen=True)
class Scenario:
    """A validated scenario. Use :func:`load_scenario` or :func:`scenario_from_dict`."""

    name: str
    game: str
    games: int
    seed: int
    backend: str
    workers: int
    out: str
    description: str
    rules: Mapping[str, Any]
    sections: Mapping[str, Mapping[str, Any]]
    seats: tuple[SeatSpec, ...]
    sweep: tuple[tuple[str, tuple[Any, ...]], ...]
    raw: Mapping[str, Any] = field(repr=False)
    source: str = ""
    #: the round-robin of a ``[tournament]`` table; ``seats`` then holds its first seating
    tournament: Tournament | None = None
    #: the validated ``[sensitivity]`` section (None without one)
    plan: Plan | None = None
    #: ``seat_order``: "rotate" or "fixed" (a tournament's own scenario: "fixed", its seatings rotate)
    seat_order: str = "rotate"
    #: the validated ``[tune]`` table (None without one): `stonelab tune` searches it
    tune: Tune | None = None

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return len(self.seats)

    def config(self, seats: tuple[SeatSpec, ...] | None = None) -> GameConfig:
        """The :class:`GameConfig` a state starts from, its seat options those of ``seats`` (one
        game's :attr:`Seating.seats`; default: the ``[[seats]]`` in file order)."""
        return GameConfig(
            num_players=self.num_players,
            rules=dict(self.rules),
            sections={k: dict(v) for k, v in self.sections.items()},
            seats=tuple(dict(s.seat_options) for s in (self.seats if seats is None else seats)),
        )

    @property
    def seat_orders(self) -> tuple[tuple[int, ...], ...]:
        """The seat orders the study plays (:func:`sim.core.seats.seat_orders`): one, or every
        cyclic rotation of the ``[[seats]]`` when they hold different players."""
        return seat_orders(self.seats, self.seat_order)

    def seating(self, game_index: int) -> Seating:
        """Who sits where in game ``game_index``: game ``i`` plays order ``i mod R`` of the ``R``
        :attr:`seat_orders` with the seed streams of index ``i div R``, so a game's result depends
        only on the root seed and its index, and the ``R`` games of a block meet the same chance."""
        orders = self.seat_orders
        players = orders[game_index % len(orders)]
        return Seating(players=players, seats=tuple(self.seats[p] for p in players),
                       stream_index=game_index // len(orders))

    def fingerprint(self) -> str:
        """A hash of everything that decides results (not study size, backend, workers or out).

        A run folder remembers it: resuming with a changed scenario is refused unless forced.
        """
        keep = {k: v for k, v in self.raw.items() if k not in ("games", "backend", "workers", "out", "description", "name")}
        keep["seed"] = self.seed
        return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def points(self, registry: Registry) -> list[SweepPoint]:
        """The sweep grid (one point without a sweep), each point a fully validated scenario; for a
        scenario with ``[sensitivity]``, its sample points (:mod:`sim.core.sensitivity`); for a
        tournament, one point per seating (:mod:`sim.core.tournament`).

        Raises:
            ScenarioError: a sampled combination or a seating the game refuses (each range end and
                each entrant was checked alone on load; e.g. a ring radius and a base radius that
                do not fit together).
        """
        if self.plan is not None:
            return self._sample_points(registry, self.plan)
        if self.tournament is not None:
            return self._seating_points(registry, self.tournament)
        if not self.sweep:
            return [SweepPoint(0, {}, self)]
        keys = [k for k, _ in self.sweep]
        # copied without its [sweep] table: copying every value list into every point made a
        # 10,000-point grid take seconds
        base = {k: v for k, v in self.raw.items() if k != "sweep"}
        out = []
        for i, combo in enumerate(itertools.product(*(vals for _, vals in self.sweep))):
            raw = copy.deepcopy(base)
            for key, value in zip(keys, combo):
                set_path(raw, key, value)
            sc = scenario_from_dict(raw, registry, source=self.source, default_name=self.name)
            out.append(SweepPoint(i, dict(zip(keys, combo)), sc))
        return out

    def _sample_points(self, registry: Registry, plan: Plan) -> list[SweepPoint]:
        """The plan's sample points: point ``i`` is row ``i`` of the sample matrix."""
        out = []
        for i, (values, raw) in enumerate(sample_raws(self.raw, plan, self.seed)):
            try:
                sc = scenario_from_dict(raw, registry, source=self.source, default_name=self.name)
            except ScenarioError as e:
                raise ScenarioError(f"sample point {i} ({json.dumps(values)}) is not a valid scenario: "
                                    f"key '{e.key}': {e.message}", source=self.source,
                                    key=SECTION) from None
            out.append(SweepPoint(i, values, sc))
        return out

    def _seating_points(self, registry: Registry, t: Tournament) -> list[SweepPoint]:
        """One point per seating, each a validated scenario with that seating's seats."""
        out = []
        for i, seating in enumerate(t.seatings()):
            point = scenario_from_dict(seating_raw(self.raw, t, seating), registry, source=self.source,
                                       default_name=self.name)
            out.append(SweepPoint(i, {SEATING_KEY: t.seating_label(seating)}, point))
        return out

    def with_plan(self, registry: Registry, *, method: str | None = None, trajectories: int | None = None,
                  samples: int | None = None, games_per_point: int | None = None) -> "Scenario":
        """A copy whose ``[sensitivity]`` section has the given settings and its inputs written out
        (the game's defaults when it names none), re-validated. Command-line settings thus enter
        the scenario's fingerprint: a run folder of another plan is refused, not mixed.

        Raises:
            ScenarioError: see :func:`sim.core.sensitivity.parse_plan`.
            InputError: a given setting is not allowed (``key`` is its option, e.g. ``--samples``).
        """
        raw = plan_raw(self.raw, registry, self.game, method=method, trajectories=trajectories,
                                   samples=samples, games_per_point=games_per_point)
        given = {f"{SECTION}.method": ("--method", method), f"{SECTION}.trajectories": ("--trajectories", trajectories),
                 f"{SECTION}.samples": ("--samples", samples), "games": ("--games-per-point", games_per_point)}
        try:
            return scenario_from_dict(raw, registry, source=self.source, default_name=self.name)
        except ScenarioError as e:
            option, value = given.get(e.key or "", ("", None))
            if value is not None:  # the command line's value, not the file's: blame the option
                raise InputError(e.message, key=option) from None
            raise

    def as_tournament(self, registry: Registry) -> "Scenario":
        """Itself when it has a ``[tournament]`` table; else the tournament of its seats' agents (a
        plain scenario's seats become the entrants, in games of the game's fewest players), its run
        folder ``runs/<game>/<name>-tournament`` unless the file sets ``out``.

        Raises:
            ScenarioError: the scenario has a ``[sweep]``, or its seats cannot make a tournament
                (e.g. two seats with one label).
        """
        if self.tournament is not None:
            return self
        raw = tournament_raw(self.raw, self.name, self.source)
        return scenario_from_dict(raw, registry, source=self.source, default_name=self.name)

    def with_overrides(self, registry: Registry, **study: Any) -> "Scenario":
        """A copy with study keys (games, seed, backend, workers, out) replaced and re-validated.

        The values come from the command line, so a bad one is blamed on its option.

        Raises:
            InputError: an override is not allowed (``key`` is the option, e.g. ``--games``).
        """
        raw = copy.deepcopy(dict(self.raw))
        for k, v in study.items():
            if v is not None:
                raw[k] = v
        try:
            return scenario_from_dict(raw, registry, source=self.source, default_name=self.name)
        except ScenarioError as e:
            if e.key in study and study[e.key] is not None:
                raise InputError(e.message, key=f"--{e.key}") from None
            raise


def load_scenario(path: str | Path, registry: Registry) -> Scenario:
    """Read and validate a scenario file.

    Raises:
        ScenarioError: missing file, malformed TOML, unknown key, wrong type, bad value, unknown
            game or agent; the message names the file and the key.
    """
    # missing, a folder, or a FIFO (whose read would block forever): refused before opening
    p = Path(path)
    raw = read_toml(p, "scenario file", ScenarioError, "scenarios/<game>/*.toml")
    return scenario_from_dict(raw, registry, source=str(p), default_name=p.stem)


def scenario_from_dict(
    raw: Mapping[str, Any], registry: Registry, *, source: str = "<scenario>", default_name: str = "scenario"
) -> Scenario:
    """Validate a scenario given as a dict (as TOML would give it).

    Raises:
        ScenarioError: see :func:`load_scenario`.
    """
    raw = dict(raw)
    if "game" not in raw:
        raise ScenarioError(f"missing; allowed: {allowed(registry.names())}", source=source, key="game")
    if not isinstance(raw["game"], str):
        raise ScenarioError(f"got {raw['game']!r}; allowed: {allowed(registry.names())}", source=source, key="game")
    try:
        game = registry.get(raw["game"])
    except InputError as e:
        raise ScenarioError(e.message, source=source, key="game") from None
    spec = game.spec
    tables = {"rules", "seats", "sweep", "sensitivity", "tournament", TUNE_SECTION, *spec.sections}
    for key in raw:
        if key not in _STUDY_KEYS and key not in tables:
            raise ScenarioError(
                f"unknown key; allowed top-level keys: {allowed(sorted(_STUDY_KEYS | tables))}", source=source, key=key
            )
    study = validate_options({k: raw[k] for k in _STUDY_KEYS if k in raw}, STUDY_OPTIONS, source=source)
    if study["backend"] != "serial":  # the serial backend starts no workers: the count is unused
        too_many = workers_problem(study["workers"])
        if too_many:
            raise ScenarioError(too_many, source=source, key="workers")
    name = study["name"] or default_name
    if not study["name"]:
        unfit = folder_name_problem(name)
        if unfit:  # the file's stem (x<NUL>.toml, a byte that is not UTF-8) cannot name the run
            raise ScenarioError(f"the run is named after the file, and {name!r} cannot be a folder name ({unfit}); "
                                "set name = \"...\" in the file", source=source, key="name")
    rules_raw = raw.get("rules", {})
    if not isinstance(rules_raw, dict):
        raise ScenarioError("must be a table", source=source, key="rules")
    rules = validate_options(rules_raw, spec.options, source=source, prefix="rules")
    sections: dict[str, dict[str, Any]] = {}
    for sec, opts in spec.sections.items():
        val = raw.get(sec, {})
        if not isinstance(val, dict):
            raise ScenarioError("must be a table", source=source, key=sec)
        sections[sec] = validate_options(val, opts, source=source, prefix=sec)
    entrants = None
    if "tournament" in raw and "sensitivity" in raw:
        raise ScenarioError("a scenario has either [tournament] or [sensitivity], not both: both choose the "
                            "study's points", source=source, key="sensitivity")
    if "tournament" in raw:
        entrants = parse_tournament(raw["tournament"], raw, game, source)
        # the first seating stands for the study where one seating is asked for (validate's line)
        first = seating_raw(raw, entrants, entrants.seatings()[0])["seats"]
        seats = validate_seats(first, game, source)
    else:
        seats = validate_seats(raw.get("seats"), game, source)
    if spec.check is not None:
        config = GameConfig(num_players=len(seats), rules=rules, sections=sections,
                            seats=tuple(s.seat_options for s in seats))
        problem = spec.check(config)
        if problem:
            raise ScenarioError(problem[1], source=source, key=problem[0])
    seat_order = "fixed" if entrants is not None else study["seat_order"]
    sweep = _sweep(raw.get("sweep"), raw, registry, source, default_name)
    plan = None
    if "sensitivity" in raw:
        plan = parse_plan(raw, registry, _validator(registry, source, default_name), source=source)
        if plan.n_points() > MAX_SWEEP_POINTS:  # counted before the sample matrix is drawn
            what, n = ("samples", plan.samples) if plan.method == "sobol" else ("trajectories", plan.trajectories)
            raise ScenarioError(f"got {n}: {plan.method} with {len(plan.inputs)} inputs would play {plan.n_points():,} "
                                f"sample points; at most {MAX_SWEEP_POINTS:,} are allowed (fewer {what} or inputs)",
                                source=source, key=f"{SECTION}.{what}")
    tune = parse_tune(raw, _validator(registry, source, default_name), source=source) if TUNE_SECTION in raw else None
    return Scenario(
        name=name,
        game=spec.name,
        games=study["games"],
        seed=study["seed"],
        backend=study["backend"],
        workers=study["workers"],
        out=study["out"] or default_run_folder(spec.name, name),
        description=study["description"],
        rules=rules,
        sections=sections,
        seats=seats,
        sweep=sweep,
        raw=raw,
        source=source,
        tournament=entrants,
        plan=plan,
        seat_order=seat_order,
        tune=tune,
    )


def _validator(registry: Registry, source: str, default_name: str) -> Callable[[dict[str, Any]], Scenario]:
    """:func:`scenario_from_dict` for one file: what a sweep value or a sensitivity bound is
    checked with in the context of the whole scenario."""
    return lambda raw: scenario_from_dict(raw, registry, source=source, default_name=default_name)


def _sweep(
    value: Any, raw: Mapping[str, Any], registry: Registry, source: str, default_name: str
) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise ScenarioError("must be a non-empty table of 'dotted.key' = [values]", source=source, key="sweep")
    for key, vals in value.items():
        where = f"sweep.{key}"
        if key.split(".")[0] in ("sweep", "sensitivity", "game", "games", "seed", "backend", "workers", "out", "name",
                                 "seat_order"):
            raise ScenarioError("this key cannot be swept; sweep rules, seats or game sections", source=source, key=where)
        if not isinstance(vals, list) or not vals:
            raise ScenarioError("must be a non-empty list of values", source=source, key=where)
    # the grid's size from the list lengths, before any point is made: 1.2 million points used to
    # grow memory for minutes without a word
    size = math.prod(len(vals) for vals in value.values())
    if size > MAX_SWEEP_POINTS:
        shape = " x ".join(str(len(vals)) for vals in value.values())
        raise ScenarioError(f"the grid has {shape} = {size:,} points; at most {MAX_SWEEP_POINTS:,} are allowed "
                            "(sweep fewer values, or split the study into several scenarios)", source=source,
                            key="sweep")
    out = []
    # each trial is a copy without the [sweep] table: copying all the value lists for each value
    # made a 10,000-value list take minutes
    base = {k: v for k, v in raw.items() if k != "sweep"}
    for key, vals in value.items():
        where = f"sweep.{key}"
        _check_distinct(vals, source, where)
        for v in vals:
            # validate each value in context: set it and validate the whole scenario
            trial = copy.deepcopy(base)
            check_in_context(trial, key, v, set_path, _validator(registry, source, default_name), source=source,
                             where=where)
        out.append((key, tuple(vals)))
    return tuple(out)


def _check_distinct(vals: list[Any], source: str, where: str) -> None:
    """A repeated value would run the same sweep point twice and pool it in the plots.

    ``True`` and ``1`` are different values here (TOML tells them apart); ``1`` and ``1.0`` are
    the same. Hashable values are looked up in a set (a list of 10,000 values compared pairwise
    took seconds); tables and lists, which cannot be hashed, are compared with each other.

    Raises:
        ScenarioError: a value listed twice (named).
    """
    seen: set[tuple[bool, Any]] = set()
    unhashable: list[Any] = []
    for v in vals:
        try:
            tag = (isinstance(v, bool), v)
            dup = tag in seen
            seen.add(tag)
        except TypeError:
            dup = any(v == w for w in unhashable)
            unhashable.append(v)
        if dup:
            raise ScenarioError(f"value {v!r} is listed twice; give each value once", source=source, key=where)
