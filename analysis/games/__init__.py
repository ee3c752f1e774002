"""Per-game report sections. A game's plug-in names its report module (``GamePlugin.report``, by
convention ``analysis.games.<game>``; :func:`game_module` finds it), which offers

- ``section(run: RunData) -> Section | None``: the game's own plots, tables and findings (None, or
  an empty section, when the game's tables are absent or empty);
- optionally ``headline(run) -> (name, label, series) | None``: one per-game number (a pandas
  Series aligned with ``run.games``) that the sweep section plots against each swept key;
- optionally ``player_model(run) -> str``, ``replays_section(run) -> Section | None``,
  ``seat_skill(seat) -> dict``, ``sensitivity_outputs(run)``;
- optionally, for ``stonelab compare``: ``compare_rows(run_a, run_b) -> list[(label, series_a,
  series_b)]``, per-game means compared like the generic metrics, and ``compare_tables(run_a,
  run_b) -> dict[str, DataFrame]``, the game's own side-by-side tables (the Sun's: ``curve``, its
  difficulty curve, and ``rules``, its rules exercised).

The modules import this package and the generic analysis modules, never :mod:`analysis.report`
(which finds them through the registry): no import cycle.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:  # annotations only: the report modules' helpers need nothing of the loader
    from analysis.load import RunData


def game_module(game: str) -> Any | None:
    """The game's report module (its plug-in's ``report``, e.g. ``analysis.games.sun``), or None
    when the game declares none or is not registered here (the generic sections still apply).

    Raises:
        InputError: the game's plug-in cannot be loaded.
        ImportError: the declared report module cannot be imported.
    """
    from sim.games import REGISTRY

    plugin = REGISTRY.find(game)
    return importlib.import_module(plugin.report) if plugin is not None and plugin.report else None


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
