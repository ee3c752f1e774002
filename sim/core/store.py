"""The SQLite result store of a run folder (``<out>/results.sqlite``, WAL mode).

Tables:

- ``meta(key, value)``: scenario name, game, fingerprint, the scenario as JSON, software version.
- ``points(point, values_json)``: the sweep grid.
- ``games``: one row per finished game, keyed by ``(point, game_index)``: seed, sweep values, seats
  and agents, scores, winners, sole winner (NULL for a draw or shared win), ``draw`` (1: no
  winner) and ``shared_win`` (1: two or more winners; both from :func:`sim.core.game.outcome_kind`, the
  one definition), length, termination,
  wall time, software version, the running leader's changes (``leads_json``: ``[[action
  number, seat or -1 for a tie], ...]``, from ``State.provisional_scores``), and what played it:
  ``math_path`` and ``code_fingerprint`` (:mod:`sim.core.provenance`; NULL in games stored before
  they were kept).
- ``seats``: one row per seat of each game: agent, label, score, won, return, and ``player``: which
  of the scenario's ``[[seats]]`` sat there (seat orders rotate when the seats differ).
- ``<game>_games``: the game's own per-game columns (``GameSpec.result_columns``).
- ``<game>_<table>``: the game's detail rows (``GameSpec.detail_tables``), e.g. the Sun's passes.

The driver inserts each finished game in one transaction and commits it, so a killed run loses
only games in flight, and a restarted run skips the games already stored.

A run holds ``<out>/.stonelab.lock`` (an advisory ``flock``) while it writes, so a second run into
the same folder is refused (:class:`FolderBusy`) instead of colliding with the first; the kernel
drops the lock when the process ends, however it ends, so a killed run never leaves it stuck.

A run writes only into a folder it makes, an empty one, or one that holds a store
(:func:`check_run_folder`): a run and its report never replace files they did not write.

Another program holding the store locked (an SQLite browser in a write transaction) is waited for
:data:`LOCK_TIMEOUT_S` seconds, then reported (:class:`StoreLocked`, exit 2); a store that cannot
be written (the disk is full) ends the run with a :class:`~sim.core.errors.WorkError` (exit 1),
keeping the games committed before.

A store SQLite cannot read (an empty or overwritten file) is reported as damaged
(:class:`DamagedStore`), naming the file; it is never deleted: ``--force`` moves it aside to
``results.sqlite.damaged-<UTC time>`` and says so.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

try:
    import fcntl
except ImportError:  # Windows: no flock (a run's lock can be neither taken nor read there)
    fcntl = None  # type: ignore[assignment]

from sim.core.errors import InputError, WorkError
from sim.core.game import Column, GameSpec, outcome_kind

STORE_NAME = "results.sqlite"
LOCK_NAME = ".stonelab.lock"
#: 2: ``games.draw`` means no winner (1 counted shared wins too), ``games.shared_win`` and
#: ``seats.player`` are new; a run does not resume into a store of another schema
SCHEMA_VERSION = "2"
#: seconds to wait for another program's lock on the store before giving up (SQLite's busy
#: timeout): long enough for a reader's short transaction, short enough not to look hung
LOCK_TIMEOUT_S = 5.0
#: errnos of a full disk or quota
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
#: the tables every store has (a game adds ``<game>_games`` and its detail tables)
CORE_TABLES = ("meta", "points", "games", "seats")
#: what played each game (:mod:`sim.core.provenance`); NULL in a game stored before they were kept
PROVENANCE_COLUMNS = ("math_path", "code_fingerprint")
#: the ``games`` columns in the order :meth:`Store.add` writes them
_GAMES_COLUMNS = ("point", "game_index", "seed", "seed_key", "sweep_json", "num_players", "agents_json", "scores_json",
                  "winners_json", "winner", "draw", "shared_win", "length", "termination", "wall_s", "version",
                  "leads_json", *PROVENANCE_COLUMNS)


class FolderBusy(InputError):
    """Another run is writing to this run folder now."""


class DamagedStore(InputError):
    """A results store SQLite cannot read, or one that lacks a table it must have."""


class StoreLocked(InputError):
    """Another program holds the results store locked for longer than :data:`LOCK_TIMEOUT_S`."""


def _locked(e: sqlite3.Error) -> bool:
    """Whether SQLite gave up waiting for another connection's lock (SQLITE_BUSY or SQLITE_LOCKED)."""
    text = str(e).lower()
    return "database is locked" in text or "database table is locked" in text or "database is busy" in text


def _store_error(path: Path, e: sqlite3.Error, doing: str) -> InputError | WorkError:
    """The one-line error for an SQLite failure while ``doing`` something with the store ``path``.

    A lock held by another program is the user's to release (:class:`StoreLocked`, exit 2); a full
    disk or an I/O error is the machine's (:class:`WorkError`, exit 1); the games committed before
    stay in the store either way, so the same command resumes.
    """
    if _locked(e):
        return StoreLocked(f"another program holds the results store locked (waited {LOCK_TIMEOUT_S:g} s while "
                           f"{doing}); close that program (an SQLite browser, a script) and give the same command "
                           "again", source=path)
    text = str(e).lower()
    if "full" in text:
        why = "the disk is full"
        fix = "free some space"
    elif "readonly" in text or "read-only" in text:
        why = "the store is read-only"
        fix = "make the run folder writable"
    else:
        why = f"SQLite: {_short(str(e))}"
        fix = "check the disk"
    return WorkError(f"{path}: cannot write the results store while {doing} ({why}); the games stored before "
                     f"are kept: {fix} and give the same command again to resume")


def check_run_folder(out: str | Path) -> Path:
    """``out`` is a folder a run may write into: missing (the run makes it), empty, or one that holds
    a results store (a run folder; its scenario is checked by :meth:`Store.create`).

    A run writes ``report/``, ``replays/`` and more beside its store and replaces them when it
    writes them again, so a folder holding other files (someone's project folder given as ``--out``)
    is refused, with or without ``--force``: nothing the run did not write is ever replaced.

    Raises:
        InputError: ``out`` is a file, or a folder with other files and no store; the message
            names the folder and a few of its files.
    """
    folder = Path(out)
    if not folder.exists():
        return folder
    if not folder.is_dir():
        raise InputError("the run folder is a file; give a folder (--out or out in the scenario)", source=folder)
    if (folder / STORE_NAME).exists():
        return folder
    try:
        others = sorted(p.name for p in folder.iterdir() if p.name != LOCK_NAME)
    except OSError as e:
        raise InputError(f"cannot read the run folder ({e.strerror or e})", source=folder) from None
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise InputError(f"the folder holds other files ({shown}) and no stonelab run ({STORE_NAME}); a run "
                         "writes report/ and more there and would replace them. Give a new or empty folder "
                         "(--out or out in the scenario)", source=folder)
    return folder


def run_in_progress(out: str | Path) -> str | None:
    """The pid (as text, ``"?"`` if unknown) of a run writing to the folder ``out`` now, else None.

    Reads the run's advisory lock (:func:`lock_run_folder`) without taking it for long: a shared
    lock that cannot be had means a run holds the exclusive one.
    """
    lock = Path(out) / LOCK_NAME
    if fcntl is None:  # Windows: no flock, so no way to tell
        return None
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _damaged(path: Path, why: str) -> DamagedStore:
    return DamagedStore(
        f"the results store is damaged or not a stonehenge-lab store ({why}). Nothing was changed; to run into "
        "this folder again give --out for a new folder, or --force, which moves this file aside to "
        "results.sqlite.damaged-<time> (it deletes nothing)",
        source=path)


@contextlib.contextmanager
def lock_run_folder(out: str | Path) -> Iterator[Path]:
    """Hold the run folder ``out`` (made if missing) for one writing run.

    Yields:
        The lock file's path.

    Raises:
        FolderBusy: another process holds the folder (the message gives its pid).
        InputError: ``out`` is a file, or the folder cannot be made or written.
        WorkError: the disk is full (what this call made is removed again).
    """
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InputError("the run folder is a file; give a folder (--out or out in the scenario)", source=folder)
    lock = folder / LOCK_NAME
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise InputError("the run folder is not writable (no permission to write in it); make it writable or give "
                         "another folder (--out or out in the scenario)", source=folder)
    made_folder, made_lock = not folder.exists(), not lock.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        if e.errno in _FULL_ERRNOS:
            raise WorkError(f"{folder}: cannot create the run folder ({e.strerror}); free some space and give the "
                            "same command again") from None
        raise InputError(f"cannot create the run folder or its store there ({e.strerror or e}); give a writable "
                         "folder (--out or out in the scenario)", source=folder) from None
    try:
        if fcntl is not None:  # Windows: no flock; two runs into one folder are not caught there
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                raise FolderBusy(f"another stonelab run (pid {holder}) is writing to this folder; wait until it "
                                 "ends or give another --out", source=folder) from None
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            except OSError as e:  # a full disk: take back what this call made
                if made_lock:
                    lock.unlink(missing_ok=True)
                if made_folder:
                    with contextlib.suppress(OSError):
                        folder.rmdir()
                raise WorkError(f"{lock}: cannot write the run's lock file ({e.strerror or e}); free some space "
                                "and give the same command again") from None
        yield lock
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@contextlib.contextmanager
def reading(path: str | Path) -> Iterator[None]:
    """Turn an SQLite error met while reading the store ``path`` into :class:`DamagedStore`.

    A page overwritten on disk shows up only when a query reaches it (e.g. ``Could not decode to
    UTF-8``), so every reader of a whole store wraps its queries in this.
    """
    try:
        yield
    except sqlite3.DatabaseError as e:
        if _locked(e):  # another program's lock is not damage
            raise _store_error(Path(path), e, "reading it") from None
        raise _damaged(Path(path), f"SQLite: {_short(str(e))}") from None


def _short(text: str, limit: int = 120) -> str:
    """``text`` cut to ``limit`` characters (SQLite quotes the whole undecodable value, maybe megabytes)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
    #: per seat, the index of the scenario's ``[[seats]]`` entry that sat there (empty: seat i
    #: holds entry i, as without rotation)
    players: list[int] = field(default_factory=list)
    #: the maths code path of the process that played it (:func:`sim.core.provenance.math_path`)
    math_path: str = ""
    #: the code fingerprint of that process (:func:`sim.core.provenance.code_fingerprint`)
    code_fingerprint: str = ""


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
        ``force``; ``force`` then deletes the old store first (a fresh run). A damaged store is
        refused too; ``force`` moves it aside (``results.sqlite.damaged-<UTC time>``, with a line on
        stderr) instead of deleting it. Without ``force``, a store of the same scenario is resumed.

        Raises:
            DamagedStore: the store cannot be read (and not ``force``).
            InputError: the folder belongs to another scenario (and not ``force``), or is unusable.
        """
        out = Path(out_dir)
        path = out / STORE_NAME
        if path.exists():
            try:
                with cls.open(path) as old_store:
                    old = old_store.meta()
                damaged: DamagedStore | None = None
            except DamagedStore as e:
                old, damaged = {}, e
            if damaged is not None:
                if not force:
                    raise damaged
                aside = _move_aside(path)
                # start-up: the console (rich) adds 22 ms to the store's, i.e. every worker's, start-up (CPU, python -X importtime)
                from sim.core.console import plain

                print(plain(f"{path}: the damaged results store was moved aside to {aside.name}; starting afresh"),
                      file=sys.stderr, flush=True)
            elif old.get("schema", "1") != SCHEMA_VERSION and not force:
                # another layout of the tables: a resumed game's row would not fit them
                raise InputError(
                    f"run folder holds a store of schema {old.get('schema', '1')} (this stonelab writes schema "
                    f"{SCHEMA_VERSION}: draws, shared wins and who sat where are stored otherwise); give --out for a "
                    "new folder, or --force to delete those results and start afresh", source=out)
            elif old.get("fingerprint") != meta["fingerprint"] or old.get("game") != meta["game"]:
                if not force:
                    raise InputError(
                        f"run folder holds results of another scenario ({old.get('name', '?')!r}, "
                        f"fingerprint {old.get('fingerprint', '?')}); give --out for a new folder, or --force to "
                        "delete those results and start afresh",
                        source=out,
                    )
                # --force on another scenario's store: the documented "start this folder afresh"
                for suffix in ("", "-wal", "-shm"):
                    Path(str(path) + suffix).unlink(missing_ok=True)
            elif force:
                for suffix in ("", "-wal", "-shm"):
                    Path(str(path) + suffix).unlink(missing_ok=True)
        if out.exists() and not out.is_dir():
            raise InputError("the run folder is a file; give a folder (--out or out in the scenario)", source=out)
        new = not path.exists()
        try:
            out.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, timeout=LOCK_TIMEOUT_S)
        except (OSError, sqlite3.Error) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise InputError(f"cannot create the run folder or its store there ({why}); give a writable folder "
                             "(--out or out in the scenario)", source=out) from None
        store = cls(conn, path, spec)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            store._create_tables(meta)
        except sqlite3.Error as e:
            conn.close()
            if new:  # a store this call began: nothing half-made is left
                for suffix in ("", "-wal", "-shm"):
                    Path(str(path) + suffix).unlink(missing_ok=True)
            raise _store_error(path, e, "opening it") from None
        return store

    @classmethod
    def open(cls, path: str | Path) -> "Store":
        """Open an existing store (a ``results.sqlite`` file or its run folder) for reading.

        Raises:
            InputError: no store there.
            DamagedStore: SQLite cannot read it, it is empty, it lacks one of :data:`CORE_TABLES`,
                or SQLite's ``quick_check`` finds a damaged page anywhere in it.
        """
        p = Path(path)
        if p.is_dir():
            p = p / STORE_NAME
        if not p.is_file():
            raise InputError("no results store here (expected a run folder or results.sqlite)", source=path)
        if p.stat().st_size == 0:
            raise _damaged(p, "the file is empty")
        try:
            # as a URI (so '?' or '#' in a folder name is part of the path, not a query)
            conn = sqlite3.connect(f"{p.absolute().as_uri()}?mode=ro", uri=True, timeout=LOCK_TIMEOUT_S)
        except sqlite3.DatabaseError as e:
            raise _damaged(p, f"SQLite: {_short(str(e))}") from None
        try:
            have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            missing = [t for t in CORE_TABLES if t not in have]
            if missing:
                raise _damaged(p, f"no table {', '.join(missing)}")
            conn.execute("SELECT value FROM meta WHERE key='game'").fetchone()
            # every page read once (O(size): ~0.1 s for 10,000 druid games): a damaged page in a
            # table this command does not read would otherwise pass unnoticed, and an export or
            # a report written from the rest would look whole
            found = conn.execute("PRAGMA quick_check(1)").fetchone()
            if not found or found[0] != "ok":
                raise _damaged(p, f"SQLite's check: {_short(str(found[0] if found else 'no answer').splitlines()[-1])}")
        except sqlite3.DatabaseError as e:
            conn.close()
            if _locked(e):
                raise _store_error(p, e, "reading it") from None
            raise _damaged(p, f"SQLite: {_short(str(e))}") from None
        except DamagedStore:
            conn.close()
            raise
        return cls(conn, p, None)

    def require_tables(self, names: Iterable[str]) -> None:
        """Check that the store has every table in ``names`` (a game's own tables).

        Raises:
            DamagedStore: a table is missing (named in the message).
        """
        have = set(self.tables())
        missing = [n for n in names if n not in have]
        if missing:
            raise _damaged(self.path, f"no table {', '.join(missing)}, which a {self.meta().get('game', '?')} "
                                      "store has")

    def _create_tables(self, meta: Mapping[str, str]) -> None:
        c = self.conn
        with c:
            c.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
            c.execute("CREATE TABLE IF NOT EXISTS points(point INTEGER PRIMARY KEY, values_json TEXT)")
            c.execute(
                """CREATE TABLE IF NOT EXISTS games(
                    point INTEGER, game_index INTEGER, seed INTEGER, seed_key TEXT, sweep_json TEXT,
                    num_players INTEGER, agents_json TEXT, scores_json TEXT, winners_json TEXT,
                    winner INTEGER, draw INTEGER, shared_win INTEGER, length INTEGER, termination TEXT, wall_s REAL,
                    version TEXT, leads_json TEXT, math_path TEXT, code_fingerprint TEXT,
                    PRIMARY KEY(point, game_index))"""
            )
            have = {r[1] for r in c.execute("PRAGMA table_info(games)")}
            for col in PROVENANCE_COLUMNS:  # a store made before provenance was kept: its old games read NULL
                if col not in have:
                    c.execute(f"ALTER TABLE games ADD COLUMN {_ident(col)} TEXT")
            c.execute(
                """CREATE TABLE IF NOT EXISTS seats(
                    point INTEGER, game_index INTEGER, seat INTEGER, agent TEXT, label TEXT,
                    score REAL, won INTEGER, ret REAL, player INTEGER, PRIMARY KEY(point, game_index, seat))"""
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
        """Record the sweep grid.

        Raises:
            StoreLocked, WorkError: see :func:`_store_error`.
        """
        try:
            with self.conn:
                self.conn.executemany(
                    "INSERT OR REPLACE INTO points VALUES(?, ?)", [(i, json.dumps(v, sort_keys=True)) for i, v in points]
                )
        except sqlite3.OperationalError as e:
            raise _store_error(self.path, e, "recording the sweep points") from None

    def done(self) -> set[tuple[int, int]]:
        """The ``(point, game_index)`` pairs already stored."""
        return set(self.conn.execute("SELECT point, game_index FROM games"))

    def add(self, r: GameResult) -> None:
        """Insert one finished game (all its tables) in one committed transaction; a failed one
        is rolled back whole, so the store never holds part of a game.

        Raises:
            StoreLocked, WorkError: the store cannot be written (another program's lock, a full
                disk); see :func:`_store_error`.
        """
        try:
            self._add(r)
        except sqlite3.OperationalError as e:
            raise _store_error(self.path, e, f"storing game {r.game_index} of point {r.point}") from None

    def _add(self, r: GameResult) -> None:
        assert self.spec is not None
        spec = self.spec
        kind = outcome_kind(r.winners)
        sole = r.winners[0] if kind == "sole" else None
        players = r.players or list(range(len(r.agents)))
        with self.conn:
            self.conn.execute(
                f"INSERT INTO games({', '.join(_GAMES_COLUMNS)}) VALUES({','.join('?' * len(_GAMES_COLUMNS))})",
                (
                    r.point, r.game_index, r.seed, json.dumps([r.seed, r.game_index]),
                    json.dumps(dict(r.sweep), sort_keys=True), len(r.agents), json.dumps(r.labels),
                    json.dumps(r.scores), json.dumps(r.winners), sole, int(kind == "draw"), int(kind == "shared"), r.length,
                    r.termination, r.wall_s, r.version, json.dumps(r.leads), r.math_path or None,
                    r.code_fingerprint or None,
                ),
            )
            self.conn.executemany(
                "INSERT INTO seats VALUES(?,?,?,?,?,?,?,?,?)",
                [
                    (r.point, r.game_index, s, r.agents[s], r.labels[s], r.scores[s], int(s in r.winners), r.returns[s],
                     players[s])
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

    def provenance_counts(self) -> dict[tuple[str | None, str | None], int]:
        """Stored games per ``(math_path, code_fingerprint)`` (None: stored before provenance was kept)."""
        have = {r[1] for r in self.conn.execute("PRAGMA table_info(games)")}
        if not set(PROVENANCE_COLUMNS) <= have:
            n = self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            return {(None, None): n} if n else {}
        return {(m, c): n for m, c, n in self.conn.execute(
            "SELECT math_path, code_fingerprint, COUNT(*) FROM games GROUP BY math_path, code_fingerprint")}

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


def _move_aside(path: Path) -> Path:
    """Rename a store (and its -wal/-shm files) to ``<name>.damaged-<UTC time>``; returns the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    for suffix in ("-wal", "-shm", ""):  # the main file last: until then the name still says what it is
        old = Path(str(path) + suffix)
        if old.exists():
            old.rename(Path(str(aside) + suffix))
    return aside


def _sql(v: Any) -> Any:
    """Store lists/dicts as JSON text, numpy scalars as Python numbers."""
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(v)
    if hasattr(v, "item") and callable(v.item):
        return v.item()
    return v
