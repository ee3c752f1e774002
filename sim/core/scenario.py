"""Scenario files: which game, seats and agents, rule options, study size, seed, backend, sweep.

A scenario is a TOML file validated against the game's spec on load; every problem is a
:class:`~sim.core.errors.ScenarioError` naming the file, the key and what is allowed. Nothing is
written before a scenario has validated.

Top-level keys::

    name, description, game, games, seed, backend, workers, out    (study)
    [rules]                       the game's rule options
    [[seats]]                     one per seat: agent = "...", its parameters, the game's seat keys
    [<section>]                   tables the game declares (e.g. [physics] for the Sun)
    [sweep]                       "dotted.key" = [values...]: the runner plays the grid
    [sensitivity]                 a global sensitivity study: its sample points are the sweep
                                  (sim/core/sensitivity.py)
    [tournament]                  a round-robin of listed agents instead of fixed seats
                                  (sim/core/tournament.py): one point per seating
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from sim.core.errors import InputError, ScenarioError, allowed
from sim.core.files import read_toml
from sim.core.game import Game, GameConfig
from sim.core.options import Option, validate_options
from sim.core.registry import Registry

BACKENDS = ("serial", "process", "dask")


def _check_name(name: str) -> str | None:
    """A run name becomes a folder under runs/: no path separators, not . or ..."""
    if "/" in name or "\\" in name or name in (".", ".."):
        return "a run name is a folder name under runs/ (no '/' or '\\', not '.' or '..'); set out for another folder"
    return None


STUDY_OPTIONS: tuple[Option, ...] = (
    Option("name", str, "", "run name; default: the file's stem", check=_check_name),
    Option("description", str, "", "one line shown in reports"),
    Option("game", str, "", "registered game name"),
    Option("games", int, 100, "games per sweep point", min=1, max=10_000_000),
    Option("seed", int, 0, "root seed: game i uses SeedSequence(seed, spawn_key=(i, k))", min=0, max=2**63 - 1),
    Option("backend", str, "process", "how games are run", choices=BACKENDS),
    Option("workers", int, 0, "worker processes; 0 means one per core", min=0, max=4096),
    Option("out", str, "", "run folder; default runs/<name>"),
)
_STUDY_KEYS = {o.name for o in STUDY_OPTIONS}
#: seat keys every game takes: the agent, a display name, and a declared strength (a number,
#: higher is stronger) that reports use to say which agent is stronger (analysis/strength.py)
_SEAT_BASE = ("agent", "name", "strength")


@dataclass(frozen=True)
class SeatSpec:
    """One seat: its agent, the agent's validated parameters and the game's seat options."""

    agent: str
    params: Mapping[str, Any]
    seat_options: Mapping[str, Any]
    name: str = ""
    #: the keys the file sets explicitly (labels show only these, not every default)
    given: tuple[str, ...] = ()

    def label(self) -> str:
        """Readable label, e.g. ``mcts(iterations=300)``, or the seat's given name."""
        if self.name:
            return self.name
        extra = [f"{k}={v}" for k, v in {**self.params, **self.seat_options}.items() if k in self.given]
        return f"{self.agent}({', '.join(extra)})" if extra else self.agent


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
    #: the round-robin of a ``[tournament]`` table (a :class:`sim.core.tournament.Tournament`);
    #: ``seats`` then holds its first seating
    tournament: Any = None

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return len(self.seats)

    def config(self) -> GameConfig:
        """The :class:`GameConfig` a state starts from."""
        return GameConfig(
            num_players=self.num_players,
            rules=dict(self.rules),
            sections={k: dict(v) for k, v in self.sections.items()},
            seats=tuple(dict(s.seat_options) for s in self.seats),
        )

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
        tournament, one point per seating (:func:`sim.core.tournament.tournament_points`)."""
        if "sensitivity" in self.raw:
            from sim.core.sensitivity import parse_plan, sample_points

            plan = parse_plan(self.raw, registry, source=self.source, default_name=self.name)
            return sample_points(self, registry, plan)
        if self.tournament is not None:
            from sim.core.tournament import tournament_points

            return tournament_points(self, registry)
        if not self.sweep:
            return [SweepPoint(0, {}, self)]
        keys = [k for k, _ in self.sweep]
        out = []
        for i, combo in enumerate(itertools.product(*(vals for _, vals in self.sweep))):
            raw = copy.deepcopy(dict(self.raw))
            raw.pop("sweep", None)
            for key, value in zip(keys, combo):
                _set_path(raw, key, value)
            sc = scenario_from_dict(raw, registry, source=self.source, default_name=self.name)
            out.append(SweepPoint(i, dict(zip(keys, combo)), sc))
        return out

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
    tables = {"rules", "seats", "sweep", "sensitivity", "tournament", *spec.sections}
    for key in raw:
        if key not in _STUDY_KEYS and key not in tables:
            raise ScenarioError(
                f"unknown key; allowed top-level keys: {allowed(sorted(_STUDY_KEYS | tables))}", source=source, key=key
            )
    study = validate_options({k: raw[k] for k in _STUDY_KEYS if k in raw}, STUDY_OPTIONS, source=source)
    name = study["name"] or default_name
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
    tournament = None
    if "tournament" in raw and "sensitivity" in raw:
        raise ScenarioError("a scenario has either [tournament] or [sensitivity], not both: both choose the "
                            "study's points", source=source, key="sensitivity")
    if "tournament" in raw:
        from sim.core.tournament import parse_tournament, seating_raw

        tournament = parse_tournament(raw["tournament"], raw, game, source)
        # the first seating stands for the study where one seating is asked for (validate's line)
        first = seating_raw(raw, tournament, tournament.seatings()[0])["seats"]
        seats = _seats(first, game, source)
    else:
        seats = _seats(raw.get("seats"), game, source)
    if spec.check is not None:
        config = GameConfig(num_players=len(seats), rules=rules, sections=sections,
                            seats=tuple(s.seat_options for s in seats))
        problem = spec.check(config)
        if problem:
            raise ScenarioError(problem[1], source=source, key=problem[0])
    sweep = _sweep(raw.get("sweep"), raw, registry, source, default_name)
    if "sensitivity" in raw:
        from sim.core.sensitivity import parse_plan

        parse_plan(raw, registry, source=source, default_name=default_name)
    return Scenario(
        name=name,
        game=spec.name,
        games=study["games"],
        seed=study["seed"],
        backend=study["backend"],
        workers=study["workers"],
        out=study["out"] or str(Path("runs") / name),
        description=study["description"],
        rules=rules,
        sections=sections,
        seats=seats,
        sweep=sweep,
        raw=raw,
        source=source,
        tournament=tournament,
    )


def _seats(value: Any, game: Game, source: str) -> tuple[SeatSpec, ...]:
    spec = game.spec
    lo, hi = spec.min_players, spec.max_players
    between = f"{lo}" if lo == hi else f"{lo} to {hi}"
    if value is None:
        raise ScenarioError(f"missing: give {between} [[seats]] tables", source=source, key="seats")
    if not isinstance(value, list) or not all(isinstance(s, dict) for s in value):
        raise ScenarioError("must be an array of tables ([[seats]])", source=source, key="seats")
    if not lo <= len(value) <= hi:
        raise ScenarioError(
            f"{len(value)} seats; {spec.name} takes {between} players", source=source, key="seats"
        )
    from sim.core.agents import agent_spec

    seats = []
    for i, seat in enumerate(value):
        where = f"seats[{i}]"
        agent = seat.get("agent")
        if not isinstance(agent, str):
            raise ScenarioError(
                f"missing or not a string; allowed agents: {allowed(game.agents)}", source=source, key=f"{where}.agent"
            )
        aspec = agent_spec(game, agent, source=source, key=f"{where}.agent")
        agent_keys = {o.name for o in aspec.options}
        seat_keys = {o.name for o in spec.seat_options}
        for k in seat:
            if k not in agent_keys and k not in seat_keys and k not in _SEAT_BASE:
                raise ScenarioError(
                    f"unknown key for agent {agent!r}; allowed: {allowed(sorted(agent_keys | seat_keys | set(_SEAT_BASE)))}",
                    source=source,
                    key=f"{where}.{k}",
                )
        label = seat.get("name", "")
        if not isinstance(label, str):
            raise ScenarioError(f"got {label!r}; allowed: a string", source=source, key=f"{where}.name")
        strength = seat.get("strength")
        if strength is not None and (isinstance(strength, bool) or not isinstance(strength, (int, float))
                                     or not math.isfinite(strength)):
            raise ScenarioError(f"got {strength!r}; allowed: a finite number (higher is stronger)",
                                source=source, key=f"{where}.strength")
        params = validate_options({k: v for k, v in seat.items() if k in agent_keys}, aspec.options, source=source, prefix=where)
        problem = aspec.check(game, params) if aspec.check else None
        if problem:
            raise ScenarioError(problem[1], source=source, key=f"{where}.{problem[0]}")
        sopts = validate_options(
            {k: v for k, v in seat.items() if k in seat_keys}, spec.seat_options, source=source, prefix=where
        )
        given = tuple(k for k in seat if k not in _SEAT_BASE)
        seats.append(SeatSpec(agent=agent, params=params, seat_options=sopts, name=label, given=given))
    return tuple(seats)


def _sweep(
    value: Any, raw: Mapping[str, Any], registry: Registry, source: str, default_name: str
) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise ScenarioError("must be a non-empty table of 'dotted.key' = [values]", source=source, key="sweep")
    out = []
    for key, vals in value.items():
        where = f"sweep.{key}"
        if key.split(".")[0] in ("sweep", "sensitivity", "game", "games", "seed", "backend", "workers", "out", "name"):
            raise ScenarioError("this key cannot be swept; sweep rules, seats or game sections", source=source, key=where)
        if not isinstance(vals, list) or not vals:
            raise ScenarioError("must be a non-empty list of values", source=source, key=where)
        for j, v in enumerate(vals):
            # a repeated value would run the same sweep point twice and pool it in the plots
            if any(v == w and isinstance(v, bool) == isinstance(w, bool) for w in vals[:j]):
                raise ScenarioError(f"value {v!r} is listed twice; give each value once", source=source, key=where)
        for v in vals:
            # validate each value in context: set it and validate the whole scenario
            trial = copy.deepcopy(dict(raw))
            trial.pop("sweep", None)
            check_in_context(trial, key, v, _set_path, registry, source=source, default_name=default_name, where=where)
        out.append((key, tuple(vals)))
    return tuple(out)


def check_in_context(trial: dict[str, Any], key: str, value: Any, set_value: Any, registry: Registry, *,
                     source: str, default_name: str, where: str) -> None:
    """Set ``key`` to ``value`` in the raw scenario ``trial`` with ``set_value(trial, key, value)``
    and validate the whole scenario: what a sweep value or a sensitivity bound must pass.

    Raises:
        ScenarioError: at ``where``: the key names nothing settable, or the value is not allowed
            there (the inner key and reason quoted).
    """
    try:
        set_value(trial, key, value)
    except KeyError as e:
        raise ScenarioError(str(e.args[0]), source=source, key=where) from None
    try:
        scenario_from_dict(trial, registry, source=source, default_name=default_name)
    except ScenarioError as e:
        inner = f"key '{e.key}': {e.message}" if e.key else e.message
        raise ScenarioError(f"value {value!r} is not allowed: {inner}", source=source, key=where) from None


def _set_path(raw: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``a.b.c`` (list indices as numbers: ``seats.1.iterations``) inside nested tables."""
    parts = dotted.split(".")
    node: Any = raw
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise KeyError(f"'{'.'.join(parts[: i + 1])}' does not name an existing seat (0 to {len(node) - 1})")
            node = node[int(part)]
        else:
            node = node.setdefault(part, {})
            if not isinstance(node, (dict, list)):
                raise KeyError(f"'{'.'.join(parts[: i + 1])}' is not a table")
    if isinstance(node, list):
        raise KeyError(f"'{dotted}' must name a key inside a seat, e.g. seats.0.iterations")
    node[parts[-1]] = value
