"""Load a run's SQLite store into pandas, and export tables as CSV or Parquet."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from sim.core.errors import InputError, allowed
from sim.core.store import Store


def games_frame(store: Store) -> pd.DataFrame:
    """One wide row per game: the common columns, per-seat score/agent columns and the game's
    own columns (from ``<game>_games``)."""
    game = store.meta().get("game", "")
    df = pd.read_sql_query("SELECT * FROM games ORDER BY point, game_index", store.conn)
    seats = pd.read_sql_query("SELECT point, game_index, seat, agent, label, score, won FROM seats", store.conn)
    if not seats.empty:
        wide = seats.pivot_table(index=["point", "game_index"], columns="seat", values=["score", "won"], aggfunc="first")
        wide.columns = [f"{a}_{s}" for a, s in wide.columns]
        df = df.merge(wide.reset_index(), on=["point", "game_index"], how="left")
    own = f"{game}_games"
    if own in store.tables():
        extra = pd.read_sql_query(f'SELECT * FROM "{own}"', store.conn)
        df = df.merge(extra, on=["point", "game_index"], how="left")
    if "sweep_json" in df:
        sweep = df["sweep_json"].map(json.loads)
        keys = sorted({k for d in sweep for k in d})
        for k in keys:
            df[f"sweep:{k}"] = sweep.map(lambda d, k=k: d.get(k))
    return df


def table_frame(store: Store, table: str) -> pd.DataFrame:
    """A store table as a DataFrame (``games`` gives :func:`games_frame`).

    Raises:
        InputError: no such table (the message lists the tables).
    """
    if table == "games":
        return games_frame(store)
    tables = store.tables()
    if table not in tables:
        raise InputError(f"no table {table!r}; allowed: {allowed(['games', *tables])}", key="--table")
    return pd.read_sql_query(f'SELECT * FROM "{table}"', store.conn)


def export_table(run_dir: str | Path, table: str, fmt: str, out: str | Path | None = None) -> Path:
    """Write ``table`` of a run as CSV or Parquet; returns the file written.

    The file is written to a temporary name and renamed, so a failure leaves nothing half-written.

    Raises:
        InputError: no store, unknown table or format.
    """
    if fmt not in ("csv", "parquet"):
        raise InputError(f"got {fmt!r}; allowed: 'csv' or 'parquet'", key="--format")
    with Store.open(run_dir) as store:
        df = table_frame(store, table)
        base = store.path.parent
    path = Path(out) if out else base / "export" / f"{table}.{fmt}"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    if fmt == "csv":
        df.to_csv(tmp, index=False)
    else:
        df.to_parquet(tmp, index=False)
    tmp.replace(path)
    return path
