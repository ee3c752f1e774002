"""Per-game report sections: ``analysis.games.<game>`` offers

- ``section(run: RunData) -> Section | None``: the game's own plots, tables and findings (None, or
  an empty section, when the game's tables are absent or empty);
- optionally ``headline(run) -> (name, label, series) | None``: one per-game number (a pandas
  Series aligned with ``run.games``) that the sweep section plots against each swept key.
"""

from __future__ import annotations

import pandas as pd

from analysis.load import RunData


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
