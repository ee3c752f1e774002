"""The games' report hooks: the interface and its loader. A game's plug-in names its report
(``GamePlugin.report``: an instance or subclass of :class:`analysis.games.base.GameReport`, by
convention ``sim.<game>.report:REPORT``, the game's report room); :func:`game_report` loads it. The
hooks and their defaults are declared once, in :class:`~analysis.games.base.GameReport`; this
package names no game.

A report room imports this package and the generic analysis modules, never :mod:`analysis.report`
(which finds it through the registry): no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from analysis.games.base import CompareSection, GameReport, TextLine
from sim.core.errors import InputError
from sim.core.registry import resolve
from sim.games import REGISTRY

if TYPE_CHECKING:  # annotations only: the report modules' helpers need nothing of the loader
    from analysis.run_data import RunData

__all__ = ["CompareSection", "GameReport", "TextLine", "compare_keys", "every_compare_key", "game_report", "has_columns",
           "own_aligned"]


def game_report(game: str) -> GameReport:
    """The game's report (its plug-in's ``report``, e.g. ``sim.sun.report:REPORT``), or a bare
    :class:`GameReport` (generic sections only) when the game declares none or is not registered
    here.

    Raises:
        InputError: the game's plug-in cannot be loaded, or its ``report`` cannot be imported or
            names something else than a :class:`GameReport` subclass or instance (the message
            names the game and the entry).
    """
    plugin = REGISTRY.find(game)
    if plugin is None or not plugin.report:
        return GameReport()
    ref = plugin.report
    try:
        obj = resolve(ref)
    except (ImportError, AttributeError, ValueError) as e:
        raise InputError(f"game {game!r}: cannot load its report {ref!r} (a 'module:attribute' naming a "
                         f"GameReport): {type(e).__name__}: {e}", key="report") from None
    if isinstance(obj, type) and issubclass(obj, GameReport):
        obj = obj()
    if not isinstance(obj, GameReport):
        raise InputError(f"game {game!r}: its report {ref!r} names {obj!r}, not a subclass or instance of "
                         "analysis.games.base.GameReport (docs/game-interface.md)", key="report")
    return obj


def compare_keys(game: str) -> list[str]:
    """The keys of the game's own ``stonelab compare`` sections, as its plug-in declares them
    (``GamePlugin.compare_keys``); none for a game not registered here.

    Raises:
        InputError: the game's plug-in cannot be loaded.
    """
    plugin = REGISTRY.find(game)
    return list(plugin.compare_keys) if plugin is not None else []


def every_compare_key() -> list[str]:
    """Every registered game's compare-section keys, in the registry's order: the keys every
    ``stonelab compare --json`` holds (the runs' own game's sections filled, the others' empty), so
    that the JSON of any two runs has the same keys. A plug-in that cannot be loaded adds none (the
    command line warns of it when it starts)."""
    keys: list[str] = []
    for game in REGISTRY.names():
        try:
            keys += [k for k in REGISTRY.plugin(game).compare_keys if k not in keys]
        except InputError:
            continue
    return keys


def own_aligned(run: RunData) -> pd.DataFrame:
    """The game's ``<game>_games`` columns, one row per row of ``run.games`` in the same order
    (missing games give NaN); an empty frame when the game stores no own columns."""
    if run.own.empty or run.games.empty:
        return pd.DataFrame()
    keys = run.games[["point", "game_index"]]
    return keys.merge(run.own, on=["point", "game_index"], how="left").reset_index(drop=True)


def has_columns(df: pd.DataFrame, *cols: str) -> bool:
    """True when ``df`` is non-empty and holds every column named."""
    return not df.empty and all(c in df.columns for c in cols)
