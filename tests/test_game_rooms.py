"""The game folders rhyme: the same rooms with the same meanings in every game (docs/game-interface.md).

Each room is checked through what its module exports, not by its file: ``plugin`` the plug-in the
registry holds, ``game`` the game it serves, ``bench`` its ``benchmarks``, ``agents`` the game's own
agents, ``actions`` every action a seat plays (chance draws are records of their own); ``options`` holds one
:class:`~sim.core.options.RuleOptions` whose declaration is the spec's; ``endings`` the one ending
enum the spec declares and the rules report; ``notation`` the reader ``parse_notation(text, *,
...) -> state``, whose state writes itself with ``to_notation()``; ``position``, where a game has
one, plain data (no state, no turns); ``physics``, where a game has physics, the boundary: a
protocol the rules call, importable without a physics engine; ``rules`` the state and its
observation, importable without a physics engine too; ``report`` (a module, or a package as the
Sun's) the one ``REPORT`` the plug-in names, a :class:`~analysis.games.base.GameReport` of the
room's own class.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

import numpy as np

from analysis.games import game_report
from analysis.games.base import GameReport
from sim.core.game import CHANCE, SIMULTANEOUS, State, Termination
from sim.core.options import RuleOptions
from sim.core.play import play_random
from sim.core.registry import GamePlugin, resolve
from sim.games import REGISTRY, get_game

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("options", "actions", "endings", "rules", "notation", "game", "agents", "plugin", "bench", "report")
GAMES = ("druids", "rocks", "sozoikum", "sun")
ENGINES = ("pybullet", "pymunk")

#: Rooms whose name does not yet mean what it means elsewhere, each with what is left to do; the
#: list only shrinks (a listed room that now rhymes fails the test until its line goes).
KNOWN_DISSONANCES: dict[tuple[str, str], str] = {}


def _module(name: str, room: str) -> typing.Any:
    return importlib.import_module(f"sim.{name}.{room}")


def _has_room(name: str, room: str) -> bool:
    return importlib.util.find_spec(f"sim.{name}.{room}") is not None


def _rhymes(name: str, room: str, ok: bool, why: str) -> None:
    """Assert ``ok`` unless the room is a known dissonance, which must still be one."""
    if (name, room) in KNOWN_DISSONANCES:
        assert not ok, f"sim/{name}/{room} now rhymes: delete its line from KNOWN_DISSONANCES"
        return
    assert ok, f"sim/{name}/{room}: {why}"


def _in_room(obj: Any, name: str, room: str) -> bool:
    """Whether ``obj`` (a class or function) is defined in ``sim.<name>.<room>`` or a module of
    that package (a room may be a folder)."""
    where = f"sim.{name}.{room}"
    return obj.__module__ == where or obj.__module__.startswith(where + ".")


@pytest.mark.parametrize("name", GAMES)
def test_every_room_is_there(name: str) -> None:
    missing = [room for room in ROOMS if not _has_room(name, room)]
    assert not missing, f"sim/{name} lacks {missing}"


@pytest.mark.parametrize("name", GAMES)
def test_the_plugin_game_bench_and_agents_rooms_hold_what_the_registry_serves(name: str) -> None:
    plugin = _module(name, "plugin").PLUGIN
    assert isinstance(plugin, GamePlugin) and REGISTRY.plugin(name) is plugin  # the plug-in the registry holds
    game = get_game(name)
    assert plugin.game.partition(":")[0] == f"sim.{name}.game" and resolve(plugin.game) is game
    assert f"sim.{name}.bench:benchmarks" in plugin.benches and callable(_module(name, "bench").benchmarks)
    # the game's own agents (not the generic ones of sim.core) are made in its agents room
    own = {k: spec.factory for k, spec in game.agents.items() if not spec.factory.__module__.startswith("sim.core.")}
    assert own, f"sim.{name} registers no agent of its own"
    elsewhere = {k: f.__module__ for k, f in own.items() if not _in_room(f, name, "agents")}
    assert not elsewhere, f"agents made outside sim.{name}.agents: {elsewhere}"


@pytest.mark.parametrize("name", GAMES)
def test_the_report_room_holds_the_report_the_plugin_names(name: str) -> None:
    assert REGISTRY.plugin(name).report == f"sim.{name}.report:REPORT"
    room = _module(name, "report")
    report = room.REPORT
    assert isinstance(report, GameReport) and type(report) is not GameReport
    assert _in_room(type(report), name, "report"), f"{type(report)} is declared outside sim.{name}.report"
    assert game_report(name) is report  # what the report, compare, tune and the analyses call
    # a hook the game overrides is implemented in its room, not borrowed from elsewhere
    own = {k: v for k, v in vars(type(report)).items() if callable(getattr(v, "__func__", v)) and k in vars(GameReport)}
    assert own, f"sim.{name}.report overrides no hook of GameReport"
    stray = {k: f.__module__ for k, v in own.items() if not _in_room(f := getattr(v, "__func__", v), name, "report")}
    assert not stray, f"hooks of sim.{name}'s report implemented outside its report room: {stray}"


@pytest.mark.parametrize("name", GAMES)
def test_the_rules_hold_the_state_and_the_actions_room_what_seats_play(name: str) -> None:
    game = get_game(name)
    played = play_random(game, game.config(game.spec.min_players), np.random.default_rng(0), steps=30)
    state = played.state
    assert any(_in_room(c, name, "rules") and issubclass(c, State) and c is not State for c in type(state).__mro__), \
        f"the state of sim.{name} ({type(state).__mro__}) is no State of its rules room"
    moves = []
    for seat, action in state.history():
        if seat == SIMULTANEOUS:
            moves += [a for _, a in action]
        elif seat != CHANCE:  # chance outcomes are the chance's records (the Sun's noise is the thrower's)
            moves.append(action)
    assert moves, f"no seat moved in 30 steps of sim.{name}"
    stray = {type(a).__qualname__ + " of " + type(a).__module__ for a in moves if not _in_room(type(a), name, "actions")}
    assert not stray, f"seats of sim.{name} play actions declared outside its actions room: {stray}"


@pytest.mark.parametrize("name", GAMES)
def test_options_are_one_frozen_object_declared_once(name: str) -> None:
    module = _module(name, "options")
    kinds = [v for v in vars(module).values()
             if isinstance(v, type) and issubclass(v, RuleOptions) and v is not RuleOptions]
    assert len(kinds) == 1, f"sim.{name}.options should define one RuleOptions, found {kinds}"
    spec = get_game(name).spec
    assert kinds[0].OPTIONS == spec.options  # the spec declares the very options the object holds
    assert kinds[0].from_rules({}).as_rules() == spec.default_rules()


@pytest.mark.parametrize("name", GAMES)
def test_the_endings_room_declares_the_endings_the_spec_names_and_the_rules_report(name: str) -> None:
    endings = _module(name, "endings")
    declared = [v for v in vars(endings).values()
                if isinstance(v, type) and issubclass(v, Termination) and v is not Termination]
    assert len(declared) == 1, f"sim.{name}.endings should declare one Termination, found {declared}"
    ends = get_game(name).spec.terminations
    assert declared[0] is ends and ends.__module__ == endings.__name__
    assert vars(_module(name, "rules")).get(ends.__name__) is ends  # the rules name what they report


@pytest.mark.parametrize("name", GAMES)
def test_the_notation_room_reads_and_the_state_writes(name: str) -> None:
    notation = _module(name, "notation")
    parse = getattr(notation, "parse_notation", None)
    assert callable(parse), f"sim.{name}.notation has no parse_notation"
    params = list(inspect.signature(parse).parameters.values())
    assert params[0].name == "text" and params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is not p.empty for p in params[1:]), \
        f"parse_notation(text, *, ...): its other parameters are keyword-only with defaults, not {params[1:]}"
    made = typing.get_type_hints(parse)["return"]
    assert isinstance(made, type) and issubclass(made, State)
    assert "to_notation" in {n for c in made.__mro__ for n in vars(c)} and made.to_notation is not State.to_notation
    # the reader reads what the game's own start writes
    game = get_game(name)
    start = game.new_initial_state(game.config(game.spec.min_players))
    assert game.from_notation(start.to_notation()).to_notation() == start.to_notation()


@pytest.mark.parametrize("name", GAMES)
def test_a_position_room_is_plain_data(name: str) -> None:
    if not _has_room(name, "position"):
        pytest.skip(f"sim/{name} keeps its position in its state")
    position = _module(name, "position")
    own = [v for v in vars(position).values() if isinstance(v, type) and v.__module__ == position.__name__]
    states = [c for c in own if issubclass(c, State)]
    records = [c for c in own if dataclasses.is_dataclass(c)]
    _rhymes(name, "position", not states and bool(records),
            f"plain data: dataclasses and no State (states: {states}, records: {records})")


def _loads_no_engine(module: str) -> subprocess.CompletedProcess[str]:
    code = (f"import sys, {module}; loaded = [e for e in {ENGINES!r} if e in sys.modules]; "
            "assert not loaded, f'loaded {loaded}'")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""})


@pytest.mark.parametrize("name", GAMES)
def test_a_physics_room_is_the_boundary(name: str) -> None:
    if not _has_room(name, "physics"):
        pytest.skip(f"sim/{name} has no physics")
    physics = _module(name, "physics")
    protocols = [v for v in vars(physics).values() if isinstance(v, type) and v.__module__ == physics.__name__
                 and getattr(v, "_is_protocol", False)]
    assert protocols, f"sim.{name}.physics declares no protocol for the rules to call"
    done = _loads_no_engine(f"sim.{name}.physics")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", GAMES)
def test_importing_the_rules_loads_no_physics_engine(name: str) -> None:
    done = _loads_no_engine(f"sim.{name}.rules")
    assert done.returncode == 0, done.stderr
