"""The record of one loaded run that every report module reads (:class:`RunData`).

It lives apart from the loader (analysis/load.py) so that the modules that only read a run (the
metric catalogue, the games' report hooks, the wording) import the record and not the loader,
which itself reads the catalogue for the export: no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
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


def pooled_run(run: RunData) -> RunData:
    """The run with all sweep points folded into one (point 0; game indices made unique), for a
    rules-exercised table of all its games."""
    if len(run.points) <= 1:
        return run
    width = int(run.games["game_index"].max()) + 1

    def fold(df: pd.DataFrame) -> pd.DataFrame:
        if df.empty or "point" not in df or "game_index" not in df:
            return df
        df = df.copy()
        df["game_index"] = df["point"].astype(int) * width + df["game_index"].astype(int)
        df["point"] = 0
        return df

    return replace(run, games=fold(run.games), seats=fold(run.seats), own=fold(run.own),
                   details={k: fold(v) for k, v in run.details.items()},
                   points=pd.DataFrame({"point": [0]}), sweep_keys=[])
