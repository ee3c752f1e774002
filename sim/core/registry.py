"""A lazy registry of games by name.

``sim/core`` imports no game: a registry maps names to ``"module:attribute"`` strings and imports
a game only when asked. ``sim/games.py`` holds the project's registry, so a new game is one folder
plus one line there.
"""

from __future__ import annotations

import importlib
from typing import Mapping

from sim.core.errors import InputError, allowed
from sim.core.game import Game


class Registry:
    """Maps game names to lazily imported :class:`Game` objects."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self._entries = dict(entries)
        self._loaded: dict[str, Game] = {}

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._entries)

    def path(self, name: str) -> str:
        """The ``module:attribute`` string of a game (picklable, for worker processes)."""
        self._check(name)
        return self._entries[name]

    def get(self, name: str) -> Game:
        """The game registered as ``name``.

        Raises:
            InputError: no such game (the message lists the registered names).
        """
        self._check(name)
        if name not in self._loaded:
            self._loaded[name] = load_game(self._entries[name])
        return self._loaded[name]

    def _check(self, name: str) -> None:
        if name not in self._entries:
            raise InputError(f"unknown game {name!r}; registered games: {allowed(self._entries)}", key="game")


_CACHE: dict[str, Game] = {}


def load_game(path: str) -> Game:
    """Import ``"package.module:ATTRIBUTE"`` and return the game object (cached per process)."""
    if path not in _CACHE:
        module, _, attr = path.partition(":")
        _CACHE[path] = getattr(importlib.import_module(module), attr)
    return _CACHE[path]
