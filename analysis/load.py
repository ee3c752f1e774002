"""Load a run's SQLite store into pandas, and export tables as CSV or Parquet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analysis.catalogue import run_metrics_frame
from analysis.metrics import outcome, win_share
from analysis.run_data import RunData
from sim.core.errors import InputError, allowed
from sim.core.outputs import check_output_file, write_atomically
from sim.core.progress import Progress
from sim.core.store import Store, reading
from sim.games import REGISTRY


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
    _outcome_columns(df)
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


def _outcome_columns(df: pd.DataFrame) -> None:
    """Put the outcome columns of :mod:`analysis.metrics` (one definition for the summary, the
    report and the export) into a games frame, in place: ``draw`` (1: no seat won) and
    ``shared_win`` (1: two or more seats won together), both from
    :func:`sim.core.game.outcome_kind` (a store of schema 1 flagged shared wins as draws too) and ``win_share_<s>`` (the seat's share of the win: 1, 1/k of a win shared by k,
    1/n of a draw, 0)."""
    if df.empty or "winners_json" not in df:
        return
    winners = df["winners_json"].map(json.loads)
    kinds = winners.map(outcome)
    # recomputed, not read: a store of schema 1 holds draw = "no sole winner" and no shared_win
    df["draw"] = (kinds == "draw").astype(int)
    if "shared_win" in df:
        df["shared_win"] = (kinds == "shared").astype(int)
    else:
        df.insert(df.columns.get_loc("draw") + 1, "shared_win", (kinds == "shared").astype(int))
    n = df["num_players"].astype(int)
    for s in range(int(n.max())):
        df[f"win_share_{s}"] = [win_share(w, s, k) if s < k else float("nan") for w, k in zip(winners, n)]


def table_frame(store: Store, table: str) -> pd.DataFrame:
    """A store table as a DataFrame (``games`` gives :func:`games_frame`).

    Raises:
        InputError: no such table (the message lists the tables).
    """
    if table == "games":
        return games_frame(store)
    if table == METRICS_TABLE:
        return run_metrics_frame(load_run(store.path))
    tables = store.tables()
    if table not in tables:
        raise InputError(f"no table {table!r}; allowed: "
                         f"{allowed(['games', METRICS_TABLE, *(x for x in tables if x != 'games')])}", key="--table")
    return pd.read_sql_query(f'SELECT * FROM "{table}"', store.conn)


#: the export's table of the catalogue measured on the run (analysis/catalogue.py): one row per metric
METRICS_TABLE = "metrics"

#: the file formats :func:`export_table` writes (also the file endings it requires)
EXPORT_FORMATS = ("csv", "parquet")


def export_table(run_dir: str | Path, table: str, fmt: str, out: str | Path | None = None, *,
                 force: bool = False) -> Path:
    """Write ``table`` of a run as CSV or Parquet; returns the file written.

    The file is written to a temporary name and renamed, so a failure leaves nothing half-written.
    The default file (``RUN/export/<table>.<fmt>``) is not replaced unless ``force``: an earlier
    export may have been edited since; a file named by ``out`` is the user's choice and replaced.

    Raises:
        InputError: no store, unknown table or format, an ``out`` whose ending is not the format's
            (``--format csv --out x.parquet`` would write CSV under a Parquet name), or the
            default file exists (and not ``force``).
        DamagedStore: the store cannot be read.
    """
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"got {fmt!r}; allowed: {allowed(EXPORT_FORMATS)}", key="--format")
    if out is not None and not Path(out).is_dir() and Path(out).suffix.lower() != f".{fmt}":
        ending = Path(out).suffix or "no ending"
        if Path(out).suffix and Path(out).suffix.lower().lstrip(".") not in EXPORT_FORMATS:
            raise InputError(f"the file name ends in {ending}, a format the export does not write; supported: "
                             + ", ".join(f".{f} (--format {f})" for f in EXPORT_FORMATS), source=out, key="--out")
        raise InputError(f"the file name has {ending} but the format is {fmt}; give a name ending in .{fmt}"
                         + "".join(f", or --format {f}" for f in EXPORT_FORMATS if f != fmt and ending == f".{f}"),
                         source=out, key="--out")
    with Store.open(run_dir) as store, reading(store.path):
        df = table_frame(store, table)
        base = store.path.parent
    path = Path(out) if out else base / "export" / f"{table}.{fmt}"
    if path.is_dir():
        raise InputError(f"is a folder; give a file name, e.g. {path / f'{table}.{fmt}'}", source=path, key="--out")
    if out is None and not force and (path.exists() or path.is_symlink()):
        raise InputError("exists (an earlier export); give --force to replace it, or --out for another file",
                         source=path)
    check_output_file(path, "--out")
    try:
        write_atomically(path, lambda tmp: _write_export(df, tmp, fmt, f"export {table}"))
    except OSError as e:
        raise InputError(f"cannot write the export there ({e.strerror or e}); give a writable file path",
                         source=path, key="--out") from None
    return path


EXPORT_CHUNK_ROWS = 50_000
#: what a spreadsheet reads as a formula at the start of a cell (OWASP, "CSV Injection")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a string starting with ``= + - @``, a tab or a
    carriage return gets a leading ``'`` (a seat label ``=cmd|' /C calc'!A0`` is then not run as a
    formula); anything else, numbers included, unchanged. Parquet keeps the values as they are:
    it is read as data, never evaluated."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def _csv_safe(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with :func:`spreadsheet_safe` applied to its text cells and column names."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object or pd.api.types.is_string_dtype(out[c].dtype):
            out[c] = out[c].map(spreadsheet_safe)
    out.columns = [spreadsheet_safe(str(c)) for c in out.columns]
    return out


def _write_export(df: pd.DataFrame, path: Path, fmt: str, label: str) -> None:
    """Write ``df`` as CSV or Parquet in chunks of :data:`EXPORT_CHUNK_ROWS` rows, with progress
    (a bar on a terminal, plain lines after 5 s otherwise) for a large store.

    Raises:
        OSError: the file cannot be written.
    """
    n = len(df)
    with Progress(max(n, 1), label, unit="rows", quiet_s=5.0, enabled=n > EXPORT_CHUNK_ROWS) as bar:
        if fmt == "csv":
            with open(path, "w", newline="", encoding="utf-8") as fh:
                for k in range(0, max(n, 1), EXPORT_CHUNK_ROWS):
                    part = _csv_safe(df.iloc[k:k + EXPORT_CHUNK_ROWS])
                    part.to_csv(fh, index=False, header=k == 0)
                    bar.advance(len(part))
        else:
            schema = pa.Table.from_pandas(df.iloc[:0], preserve_index=False).schema
            with pq.ParquetWriter(path, schema) as writer:
                for k in range(0, max(n, 1), EXPORT_CHUNK_ROWS):
                    part = df.iloc[k:k + EXPORT_CHUNK_ROWS]
                    writer.write_table(pa.Table.from_pandas(part, schema=schema, preserve_index=False))
                    bar.advance(len(part))


def _game_tables(game: str) -> list[str]:
    """The tables a store of ``game`` has besides the core ones (none for a game not registered)."""
    if game not in REGISTRY.names():
        return []
    spec = REGISTRY.get(game).spec
    return [f"{game}_games", *(f"{game}_{t}" for t in spec.detail_tables)]


def load_run(run_dir: str | Path) -> RunData:
    """Load a run's store (a run folder or its ``results.sqlite``) into a :class:`RunData`.

    Raises:
        InputError: no store there.
        DamagedStore: not a stonehenge-lab store, a page SQLite cannot read, or a table the game
            stores is missing (a report would otherwise drop that section without a word).
    """
    with Store.open(run_dir) as store, reading(store.path):
        meta = store.meta()
        game = meta.get("game", "")
        store.require_tables(_game_tables(game))
        tables = store.tables()
        games = games_frame(store)
        seats = pd.read_sql_query("SELECT * FROM seats ORDER BY point, game_index, seat", store.conn)
        if "player" not in seats:  # schema 1: no rotation, entry i sat in seat i
            seats["player"] = seats["seat"]
        own_name = f"{game}_games"
        own = pd.read_sql_query(f'SELECT * FROM "{own_name}"', store.conn) if own_name in tables else pd.DataFrame()
        details = {
            t[len(game) + 1 :]: pd.read_sql_query(f'SELECT * FROM "{t}" ORDER BY point, game_index, seq', store.conn)
            for t in tables
            if game and t.startswith(game + "_") and t != own_name
        }
        pts = store.query("SELECT point, values_json FROM points ORDER BY point")
        base = store.path.parent
    try:
        scenario = json.loads(meta.get("scenario_json", "{}"))
    except json.JSONDecodeError:
        scenario = {}
    sweep_keys = list((scenario.get("sweep") or {}).keys())
    values = [json.loads(v) for _, v in pts]
    for v in values:
        for k in v:
            if k not in sweep_keys:
                sweep_keys.append(k)
    points = pd.DataFrame({"point": [p for p, _ in pts]})
    for k in sweep_keys:
        points[f"sweep:{k}"] = [v.get(k) for v in values]
    if not games.empty:
        games["winners"] = games["winners_json"].map(json.loads)
        games["labels"] = games["agents_json"].map(json.loads)
        who = seats.groupby(["point", "game_index"])["player"].agg(lambda x: [int(v) for v in x]).rename("players")
        games = games.merge(who.reset_index(), on=["point", "game_index"], how="left")
        games["players"] = [p if isinstance(p, list) else list(range(int(n)))
                            for p, n in zip(games["players"], games["num_players"])]
    else:
        games["players"] = pd.Series(dtype=object)
        games["winners"] = pd.Series(dtype=object)
        games["labels"] = pd.Series(dtype=object)
    n_seats = int(games["num_players"].max()) if not games.empty else 0
    return RunData(
        run_dir=base, meta=meta, game=game, scenario=scenario, points=points, games=games, seats=seats,
        own=own, details=details, n_seats=n_seats, sweep_keys=sweep_keys,
    )
