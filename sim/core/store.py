"""The SQLite result store of a run folder (``<out>/results.sqlite``, WAL mode).

Tables:

- ``meta(key, value)``: scenario name, game, fingerprint, the scenario as JSON, software version.
- ``points(point, values_json)``: the sweep grid.
- ``games``: one row per finished game, keyed by ``(point, game_index)``: seed, sweep values, seats
  and agents, scores, winners, sole winner (NULL for a draw or shared win), length, termination,
  wall time, software version, and the running leader's changes (``leads_json``: ``[[action
  number, seat or -1 for a tie], ...]``, from ``State.provisional_scores``).
- ``seats``: one row per seat of each game: agent, label, score, won, return.
- ``<game>_games``: the game's own per-game columns (``GameSpec.result_columns``).
- ``<game>_<table>``: the game's detail rows (``GameSpec.detail_tables``), e.g. the Sun's passes.

The driver inserts each finished game in one transaction and commits it, so a killed run loses
only games in flight, and a restarted run skips the games already stored.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from sim.core.errors import InputError
from sim.core.game import Column, GameSpec

STORE_NAME = "results.sqlite"
SCHEMA_VERSION = "1"


@dataclass
class GameResult:
    """Everything stored about one finished game (produced in a worker, written by the driver)."""

    point: int
    game_index: int
    seed: int
    sweep: Mapping[str, Any]
    agents: list[str]
    labels: list[str]
    scores: list[float]
    winners: list[int]
    returns: list[float]
    length: int
    termination: str
    wall_s: float
    version: str
    columns: dict[str, Any] = field(default_factory=dict)
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: the running leader as ``[[action_number, seat or -1 for a tie], ...]``, one entry per change
    leads: list[list[int]] = field(default_factory=list)


def _ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"bad SQL identifier {name!r}")
    return f'"{name}"'


def _col_defs(columns: Iterable[Column]) -> str:
    return "".join(f", {_ident(c.name)} {c.sqltype}" for c in columns)


class Store:
    """A run's SQLite store. Open with :meth:`create` (a run) or :meth:`open` (reading)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, spec: GameSpec | None) -> None:
        self.conn = conn
        self.path = path
        self.spec = spec

    # --- opening -------------------------------------------------------------------------------
    @classmethod
    def create(cls, out_dir: str | Path, spec: GameSpec, meta: Mapping[str, str], *, force: bool = False) -> "Store":
        """Open (or create) the store of a run folder for writing.

        A folder whose store was made by a scenario with another fingerprint is refused unless
        ``force``; ``force`` always deletes the old store first (a fresh run). Without it, a store
        of the same scenario is resumed.

        Raises:
            InputError: the folder belongs to another scenario (and not ``force``), or is unusable.
        """
        out = Path(out_dir)
        path = out / STORE_NAME
        if path.exists():
            if force:
                # --force means "start this folder afresh", whatever made it
                for suffix in ("", "-wal", "-shm"):
                    Path(str(path) + suffix).unlink(missing_ok=True)
            else:
                try:
                    old = cls.open(path).meta()
                except InputError:
                    old = {}
                if old.get("fingerprint") != meta["fingerprint"] or old.get("game") != meta["game"]:
                    raise InputError(
                        f"run folder holds results of another scenario ({old.get('name', '?')!r}, "
                        f"fingerprint {old.get('fingerprint', '?')}); use --force to replace them or --out for a new folder",
                        source=out,
                    )
        if out.exists() and not out.is_dir():
            raise InputError("the run folder is a file; give a folder (--out or out in the scenario)", source=out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
        except (OSError, sqlite3.Error) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise InputError(f"cannot create the run folder or its store there ({why}); give a writable folder "
                             "(--out or out in the scenario)", source=out) from None
        conn.execute("PRAGMA synchronous=NORMAL")
        store = cls(conn, path, spec)
        store._create_tables(meta)
        return store

    @classmethod
    def open(cls, path: str | Path) -> "Store":
        """Open an existing store (a ``results.sqlite`` file or its run folder) for reading.

        Raises:
            InputError: no store there, or not a stonehenge-lab store.
        """
        p = Path(path)
        if p.is_dir():
            p = p / STORE_NAME
        if not p.is_file():
            raise InputError("no results store here (expected a run folder or results.sqlite)", source=path)
        try:
            conn = sqlite3.connect(f"file:{p}?mode=ro", uri=True, timeout=30.0)
            conn.execute("SELECT value FROM meta WHERE key='game'").fetchone()
        except sqlite3.DatabaseError as e:
            raise InputError(f"not a stonehenge-lab results store ({e})", source=p) from None
        return cls(conn, p, None)

    def _create_tables(self, meta: Mapping[str, str]) -> None:
        c = self.conn
        with c:
            c.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
            c.execute("CREATE TABLE IF NOT EXISTS points(point INTEGER PRIMARY KEY, values_json TEXT)")
            c.execute(
                """CREATE TABLE IF NOT EXISTS games(
                    point INTEGER, game_index INTEGER, seed INTEGER, seed_key TEXT, sweep_json TEXT,
                    num_players INTEGER, agents_json TEXT, scores_json TEXT, winners_json TEXT,
                    winner INTEGER, draw INTEGER, length INTEGER, termination TEXT, wall_s REAL,
                    version TEXT, leads_json TEXT, PRIMARY KEY(point, game_index))"""
            )
            c.execute(
                """CREATE TABLE IF NOT EXISTS seats(
                    point INTEGER, game_index INTEGER, seat INTEGER, agent TEXT, label TEXT,
                    score REAL, won INTEGER, ret REAL, PRIMARY KEY(point, game_index, seat))"""
            )
            assert self.spec is not None
            g = self.spec.name
            c.execute(
                f"CREATE TABLE IF NOT EXISTS {_ident(g + '_games')}(point INTEGER, game_index INTEGER"
                f"{_col_defs(self.spec.result_columns)}, PRIMARY KEY(point, game_index))"
            )
            for table, cols in self.spec.detail_tables.items():
                c.execute(
                    f"CREATE TABLE IF NOT EXISTS {_ident(g + '_' + table)}(point INTEGER, game_index INTEGER, seq INTEGER"
                    f"{_col_defs(cols)}, PRIMARY KEY(point, game_index, seq))"
                )
            c.executemany("INSERT OR REPLACE INTO meta VALUES(?, ?)", [(k, str(v)) for k, v in meta.items()])
            c.execute("INSERT OR REPLACE INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))

    # --- writing -------------------------------------------------------------------------------
    def set_points(self, points: Iterable[tuple[int, Mapping[str, Any]]]) -> None:
        """Record the sweep grid."""
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO points VALUES(?, ?)", [(i, json.dumps(v, sort_keys=True)) for i, v in points]
            )

    def done(self) -> set[tuple[int, int]]:
        """The ``(point, game_index)`` pairs already stored."""
        return set(self.conn.execute("SELECT point, game_index FROM games"))

    def add(self, r: GameResult) -> None:
        """Insert one finished game (all its tables) in one committed transaction."""
        assert self.spec is not None
        spec = self.spec
        sole = r.winners[0] if len(r.winners) == 1 else None
        with self.conn:
            self.conn.execute(
                "INSERT INTO games VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    r.point, r.game_index, r.seed, json.dumps([r.seed, r.game_index]),
                    json.dumps(dict(r.sweep), sort_keys=True), len(r.agents), json.dumps(r.labels),
                    json.dumps(r.scores), json.dumps(r.winners), sole, int(sole is None), r.length,
                    r.termination, r.wall_s, r.version, json.dumps(r.leads),
                ),
            )
            self.conn.executemany(
                "INSERT INTO seats VALUES(?,?,?,?,?,?,?,?)",
                [
                    (r.point, r.game_index, s, r.agents[s], r.labels[s], r.scores[s], int(s in r.winners), r.returns[s])
                    for s in range(len(r.agents))
                ],
            )
            cols = [c.name for c in spec.result_columns]
            self.conn.execute(
                f"INSERT INTO {_ident(spec.name + '_games')} VALUES({','.join('?' * (2 + len(cols)))})",
                (r.point, r.game_index, *(_sql(r.columns.get(c)) for c in cols)),
            )
            for table, tcols in spec.detail_tables.items():
                names = [c.name for c in tcols]
                self.conn.executemany(
                    f"INSERT INTO {_ident(spec.name + '_' + table)} VALUES({','.join('?' * (3 + len(names)))})",
                    [
                        (r.point, r.game_index, seq, *(_sql(row.get(n)) for n in names))
                        for seq, row in enumerate(r.rows.get(table, []))
                    ],
                )

    # --- reading -------------------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        """The meta table as a dict."""
        return dict(self.conn.execute("SELECT key, value FROM meta"))

    def tables(self) -> list[str]:
        """All table names."""
        return [r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run a read query."""
        return list(self.conn.execute(sql, params))

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _sql(v: Any) -> Any:
    """Store lists/dicts as JSON text, numpy scalars as Python numbers."""
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(v)
    if hasattr(v, "item") and callable(v.item):
        return v.item()
    return v
