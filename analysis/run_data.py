"""The record of one loaded run that every report module reads (:class:`RunData`).

It lives apart from the loader (analysis/load.py) so that the modules that only read a run (the
metric catalogue, the games' report hooks, the wording) import the record and not the loader,
which itself reads the catalogue for the export: no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd


@dataclass
class RunData:
    """Everything a report reads from one run, loaded once.

    Attributes:
        run_dir: the run folder.
        meta: the store's meta table (name, game, seed, games, version, scenario_json, ...).
        game: the registry name of the game.
        scenario: the scenario as read from its TOML file (a dict; empty if not stored).
        points: one row per sweep point: ``point`` and one ``sweep:<key>`` column per swept key.
        games: :func:`games_frame` plus ``winners`` (list of winning seats), ``labels`` (list) and
            ``players`` (per seat, the ``[[seats]]`` entry that sat there).
        seats: the ``seats`` table (long: one row per seat of each game; ``player`` as above).
        own: the game's ``<game>_games`` table (empty frame if absent).
        details: the game's detail tables by short name (``passes`` for ``sun_passes``).
        n_seats: the largest seat count of any stored game.
        sweep_keys: the swept keys (dotted scenario paths), in the order of the scenario.
    """

    run_dir: Path
    meta: dict[str, str]
    game: str
    scenario: dict[str, Any]
    points: pd.DataFrame
    games: pd.DataFrame
    seats: pd.DataFrame
    own: pd.DataFrame
    details: dict[str, pd.DataFrame] = field(default_factory=dict)
    n_seats: int = 0
    sweep_keys: list[str] = field(default_factory=list)

    def detail(self, name: str) -> pd.DataFrame:
        """A detail table by short name; an empty frame when the game has none of that name."""
        return self.details.get(name, pd.DataFrame())
