"""A lazy registry of games by name, and the plug-in record that says what a game brings.

``sim/core`` imports no game: a registry maps names to ``"module:attribute"`` strings and imports
a game only when asked. ``sim/games.py`` holds the project's registry, so a new game is one folder
plus one line there. A game installed as its own package needs no line at all: it names its
:class:`GamePlugin` in the entry-point group :data:`ENTRY_POINT_GROUP` (docs/game-interface.md).

What a game *is* (players, options, endings, what its score counts) is its
:class:`~sim.core.game.GameSpec`; what it *plugs into the tool* (command-line sub-apps, report
section, benchmarks, whether it is slow, its replays) is its :class:`GamePlugin`, held here as
import paths so that listing games or mounting the CLI imports no rules engine.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Mapping

from sim.core.errors import InputError, allowed
from sim.core.game import Game

#: the entry-point group an installed package names its games in:
#: ``[project.entry-points."stonelab.games"] race = "mypkg.plugin:PLUGIN"``
ENTRY_POINT_GROUP = "stonelab.games"


@dataclass(frozen=True)
class GamePlugin:
    """Everything a game brings to the tool, each part named by an import path.

    Attributes:
        game: ``"module:attribute"`` of the :class:`~sim.core.game.Game` object.
        commands: command-line sub-apps of ``stonelab``: name -> ``"module:attribute"`` of a
            ``typer.Typer`` (mounted as a command group) or a function (mounted as one command).
        report: ``"module:attribute"`` of the game's report, an instance or subclass of
            ``analysis.games.base.GameReport`` (by convention ``sim.<game>.report:REPORT``, the game's report room),
            which declares every report hook with a no-op default (docs/game-interface.md);
            None: generic sections only.
        compare_keys: the ``stonelab compare --json`` keys of the sections its report adds to a
            comparison (``GameReport.compare_sections``, which returns one section per key, in this
            order; the Sun: ``sun_difficulty``, ``sun_rules_exercised``). Every comparison's JSON holds
            every registered game's keys, another game's as empty lists, so any two runs' JSON has
            the same keys; declared here so that listing them loads no report.
        benches: ``"module:attribute"`` of functions ``benchmarks(quick: bool) -> list[dict]`` that
            ``stonelab bench`` adds to the game's figures (rows ``{"metric", "value", "unit"}``,
            optionally ``"note"``; ``"game"`` is filled in when absent).
        slow: a physics game: one random game costs seconds, so ``stonelab bench`` measures no
            random-playout speed for it and the generic test suite plays it less and marks it slow.
        replays_3d: the module of the game's 3-D replays (``sim.replay.model.Replays3D``: ``view``,
            ``export``, ``app``, ``has_replays``, ``export_run_replays``, ``check_viewer_folder``):
            ``stonelab run`` exports the first game's, ``stonelab replay`` opens any. None: no 3-D
            replays.
        replay_recorder: ``"module:attribute"`` of ``record_game(scenario, game_index) -> dict``,
            which plays one game of a scenario again with the table's recording on (the record
            ``sim.sun.viewer.replay.from_game_record`` converts); ``stonelab replay`` calls it for a run
            that kept no frames of that game. None: such runs cannot be re-simulated.
        replay: ``"module:attribute"`` of the game's :class:`sim.replay.model.ReplayBook` (a game of
            turns shown as a board, step by step: ``stonelab run`` exports its first games'
            replay pages, ``stonelab replay`` any game's; docs/replay-format.md). None: no such
            replays (a game with ``replays_3d`` has the 3-D ones instead).
        sensitivity: the module of the game's sensitivity inputs: ``DEFAULT_INPUTS`` (``{key:
            {"range": [low, high]}}``, used when a scenario's ``[sensitivity]`` names none) and
            ``label(key)``, a plain-language name of an input; None: the scenario must name them.
        seat: ``"module:attribute"`` of the game's :class:`~sim.core.human.SeatView`: how ``stonelab
            play`` shows a position to the person in a seat and reads the moves typed in the
            game's notation; None: the game cannot be played by a person.
    """

    game: str
    commands: Mapping[str, str] = field(default_factory=dict)
    report: str | None = None
    compare_keys: tuple[str, ...] = ()
    benches: tuple[str, ...] = ()
    slow: bool = False
    replays_3d: str | None = None
    replay_recorder: str | None = None
    replay: str | None = None
    sensitivity: str | None = None
    seat: str | None = None


def resolve(path: str) -> Any:
    """Import ``"package.module:attribute"`` (a dotted attribute for a nested name) and return it.

    Raises:
        ImportError: the module cannot be imported.
        AttributeError: the module has no such attribute.
        ValueError: ``path`` has no ``:``.
    """
    module, sep, attr = path.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"{path!r} is not of the form 'package.module:attribute'")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


class Registry:
    """Maps game names to lazily imported plug-ins and :class:`Game` objects.

    Args:
        entries: name -> ``"module:attribute"`` of a :class:`GamePlugin`, or of a :class:`Game`
            for a game that brings nothing but itself.
        entry_points: also register the games that installed packages name in
            :data:`ENTRY_POINT_GROUP` (after ``entries``; a name already taken is skipped with a
            warning on stderr). Read once, on first use; :meth:`refresh` reads them again.
    """

    def __init__(self, entries: Mapping[str, str], *, entry_points: bool = False) -> None:
        self._builtin = dict(entries)
        self._use_entry_points = entry_points
        self._entries: dict[str, str] | None = None
        self._plugins: dict[str, GamePlugin] = {}
        self._loaded: dict[str, Game] = {}

    def refresh(self) -> None:
        """Forget what was read and loaded: the next use reads the entry points again."""
        self._entries = None
        self._plugins.clear()
        self._loaded.clear()

    def _all(self) -> dict[str, str]:
        if self._entries is None:
            entries = dict(self._builtin)
            if self._use_entry_points:
                for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
                    if ep.name in entries:
                        print(f"stonelab: entry point {ep.name} = {ep.value!r} ({ENTRY_POINT_GROUP}) skipped: "
                              f"the name is taken by {entries[ep.name]!r}", file=sys.stderr)
                        continue
                    entries[ep.name] = ep.value
            self._entries = entries
        return self._entries

    def names(self) -> list[str]:
        """Registered names, in registration order (the project's, then installed packages')."""
        return list(self._all())

    def plugin(self, name: str) -> GamePlugin:
        """What the game ``name`` brings (a bare :class:`Game` entry brings nothing else).

        Raises:
            InputError: no such game (the message lists the registered names), or its entry does
                not name a :class:`GamePlugin` or :class:`Game` (the message names the entry).
        """
        self._check(name)
        if name not in self._plugins:
            ref = self._all()[name]
            try:
                obj = resolve(ref)
            except (ImportError, AttributeError, ValueError) as e:
                raise InputError(f"game {name!r}: cannot load {ref!r}: {type(e).__name__}: {e}", key="game") from None
            if isinstance(obj, Game):
                obj = GamePlugin(game=ref)
            if not isinstance(obj, GamePlugin):
                raise InputError(f"game {name!r}: {ref!r} names {obj!r}, not a GamePlugin or Game object",
                                 key="game")
            self._plugins[name] = obj
        return self._plugins[name]

    def find(self, name: str) -> GamePlugin | None:
        """The plug-in of ``name``, or None when no such game is registered (a run of a game this
        installation lacks can still be read)."""
        return self.plugin(name) if name in self._all() else None

    def path(self, name: str) -> str:
        """The ``module:attribute`` string of a game object (picklable, for worker processes)."""
        return self.plugin(name).game

    def get(self, name: str) -> Game:
        """The game registered as ``name``.

        Raises:
            InputError: no such game (the message lists the registered names), its entry cannot be
                loaded or names something else than a game, or the game's spec has another name.
        """
        if name not in self._loaded:
            path = self.path(name)
            try:
                game = load_game(path)
            except (ImportError, AttributeError, ValueError) as e:
                raise InputError(f"game {name!r}: cannot load {path!r}: {type(e).__name__}: {e}", key="game") from None
            if not isinstance(game, Game):
                raise InputError(f"game {name!r}: {path!r} names {game!r}, not a Game object", key="game")
            if game.spec.name != name:
                # the store, the report and the bench would otherwise call one game by two names
                raise InputError(f"game {name!r}: {path!r} is registered as {name!r} but its spec is named "
                                 f"{game.spec.name!r}; use one name for both", key="game")
            self._loaded[name] = game
        return self._loaded[name]

    def _check(self, name: str) -> None:
        if name not in self._all():
            raise InputError(f"unknown game {name!r}; registered games: {allowed(self._all())}", key="game")


_CACHE: dict[str, Game] = {}


def load_game(path: str) -> Game:
    """Import ``"package.module:ATTRIBUTE"`` and return the game object (cached per process)."""
    if path not in _CACHE:
        _CACHE[path] = resolve(path)
    return _CACHE[path]
