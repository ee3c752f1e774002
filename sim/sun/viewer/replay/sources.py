"""Where replays come from: :func:`load_any` opens a replay file, a pose recording, a game record
or a run (whose game it resimulates or rebuilds from kept frames, :func:`from_store`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Mapping

from sim.core.errors import InputError, ReplayError
from sim.core.files import check_input_file
from sim.core.registry import resolve
from sim.core.store import Store
from sim.games import REGISTRY, has_3d_replays
from sim.sun.viewer.replay.convert import from_game_record, from_pose_recording
from sim.sun.viewer.replay.fileformat import load_replay
from sim.sun.viewer.replay.records import Replay

def load_any(path: str | Path, game_index: int | None = None, point: int = 0) -> Replay:
    """Load a replay from whatever holds one, converting on the fly:

    a replay file (``.npz``); a pose recording of one pass (JSON, ``stonelab sun pass --record``);
    a game record (JSON with ``calls``, ``sim.sun.game.record_game``); a run folder or its
    ``results.sqlite`` (game ``game_index`` of sweep point ``point``, see :func:`from_store`).

    Raises:
        ReplayError: none of these, or an invalid one.
    """
    path = Path(path)
    if path.is_dir() or path.suffix in (".sqlite", ".db"):
        return from_store(path, game_index, point)
    check_input_file(path, "replay file", ReplayError)
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip()
    if head.startswith(b"{"):
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ReplayError(f"not valid JSON: {e}", source=str(path)) from None
        if isinstance(d, Mapping) and "calls" in d:
            return from_game_record(d, source=str(path))
        return from_pose_recording(d, source=str(path))
    return load_replay(path)



def from_store(run: str | Path, game_index: int | None = None, point: int = 0, resimulate: bool = True) -> Replay:
    """The replay of one game of a run (a run folder or its ``results.sqlite``).

    Uses the frames the run kept (the ``<game>_frames`` table, scenario ``[record] frames``) when it
    has them for that game, with the rules' view of each pass when the game played again gives the
    very same frames (:func:`_kept_frames`; the store does not keep the view); otherwise, with
    ``resimulate``, re-plays the game exactly from its seed with recording on (the recorder its
    plug-in names, ``GamePlugin.replay_recorder``). ``game_index`` None: the first game with
    frames, else game 0.

    Raises:
        ReplayError: not a run store, not a run of a game with 3-D replays, no such game, nothing
            recorded and no re-simulation (or none the game's plug-in offers).
        DamagedStore: the file is empty or not a stonehenge-lab store.
    """
    path = Path(run)
    db = path / "results.sqlite" if path.is_dir() else path
    src = str(db)
    if not db.is_file():
        raise ReplayError("no results.sqlite here (not a run folder)", source=str(path))
    with Store.open(db) as store:  # an empty or foreign file: DamagedStore, named, not "a run of None"
        if not store.meta().get("game"):
            raise ReplayError("the store names no game (its meta table has no 'game'): not a stonehenge-lab run, "
                              "or a damaged one", source=src)
    try:
        con = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise ReplayError(f"cannot open the store: {e}", source=src) from None
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall()) if _has_table(con, "meta") else {}
        game = meta.get("game")
        if not has_3d_replays(game):
            with_replays = [g for g in REGISTRY.names() if has_3d_replays(g)]
            plugin = REGISTRY.find(game) if game else None
            turns = (": its replays are move by move, `stonelab replay view RUN --game N` or `stonelab replay export "
                     "RUN --game N --out FILE.html`") if plugin is not None and plugin.replay else ""
            raise ReplayError(f"3-D replays exist for {' and '.join(with_replays)} runs only; this run is of {game!r}"
                              + turns, source=src)
        rows: list[tuple[Any, ...]] = []
        # the game's frames detail table (``<game>_frames``, sim/core/store.py); ``game`` is a
        # registered name (checked above), so it is safe in the SQL text
        frames = f"{game}_frames"
        if _has_table(con, frames):
            if game_index is None:
                r = con.execute(f"SELECT game_index FROM {frames} WHERE point = ? ORDER BY game_index LIMIT 1",
                                (point,)).fetchone()
                game_index = int(r[0]) if r else 0
            rows = con.execute(f"SELECT turn, seat, kind, data FROM {frames} WHERE point = ? AND game_index = ? "
                               "ORDER BY seq", (point, game_index)).fetchall()
        game_index = 0 if game_index is None else game_index
        n = con.execute("SELECT COUNT(*) FROM games WHERE point = ? AND game_index = ?",
                        (point, game_index)).fetchone()[0] if _has_table(con, "games") else 0
        has = {r[1] for r in con.execute("PRAGMA table_info(games)")}
        row = con.execute("SELECT scores_json, winners_json FROM games WHERE point = ? AND game_index = ?",
                          (point, game_index)).fetchone() if n and {"scores_json", "winners_json"} <= has else None
        scenario_json = meta.get("scenario_json")
    except sqlite3.Error as e:
        raise ReplayError(f"cannot read the store: {e}", source=src) from None
    finally:
        con.close()
    info = {"run": str(path), "point": point, "game_index": game_index}
    if rows:
        calls = [{"turn": t, "seat": s, "kind": k, "data": d} for t, s, k, d in rows]
        return _kept_frames(calls, info, src, scenario_json if resimulate and n else None, point, game_index)
    if not resimulate:
        raise ReplayError(f"the run kept no frames for game {game_index} (point {point})", source=src)
    if not n:
        raise ReplayError(f"the run has no game {game_index} at point {point}", source=src)
    if not scenario_json:
        raise ReplayError("the store does not hold its scenario; cannot re-simulate", source=src)
    rec = _record_again(scenario_json, point, game_index, src)
    # start-up: the replay pages (jinja2, the runner) add 45 ms to every command's start-up (CPU, python -X importtime)
    from sim.replay.source import check_outcome

    # the game played again must end as the store says, or the replay would show another game
    if row is not None:
        out = rec.get("outcome") or {}
        check_outcome(db, point, game_index, out.get("scores"), out.get("winners"), json.loads(row[0]),
                      json.loads(row[1]))
    return from_game_record(rec, meta={**info, "resimulated": True}, source=src)


def _record_again(scenario_json: str, point: int, game_index: int, src: str, *, rate_hz: bool = False
                  ) -> dict[str, Any]:
    """Game ``game_index`` of sweep point ``point`` of the stored scenario played again with
    recording on (the game plug-in's ``replay_recorder``); ``rate_hz``: at the scenario's own
    recording rate (``[record] rate_hz``, as the run kept its frames), else the recorder's default.

    Raises:
        ReplayError: the game cannot re-simulate a replay, or no such sweep point.
        InputError: the stored scenario no longer loads (e.g. an outside agent not imported).
    """
    # start-up: the scenario loader adds 21 ms to every command's start-up (CPU, python -X importtime)
    from sim.core.scenario import scenario_from_dict

    sc = scenario_from_dict(json.loads(scenario_json), REGISTRY, source=src)
    recorder = REGISTRY.plugin(sc.game).replay_recorder
    if recorder is None:  # the game's plug-in names no recorder: it cannot play a game again with frames
        raise ReplayError(f"the game {sc.game!r} cannot re-simulate a replay", source=src)
    record_game = resolve(recorder)
    pts = sc.points(REGISTRY)
    if not (0 <= point < len(pts)):
        raise ReplayError(f"the run has sweep points 0..{len(pts) - 1}, not {point}", source=src)
    scenario = pts[point].scenario
    if rate_hz:
        rate = float((scenario.sections.get("record") or {}).get("rate_hz", 60.0))
        return record_game(scenario, game_index, rate_hz=rate)
    return record_game(scenario, game_index)


def _played_again(run: Any, scenario_json: str, point: int, game_index: int, src: str) -> dict[str, Any] | None:
    """The recording of a game a person played (``stonelab play``), played again from its move
    record (``sim.replay.played``; the person's game kept every frame, so recording is on), as
    ``record_game`` returns it; None when the game has no move record (a study's game).

    Raises:
        ReplayError: the move record does not play again.
        InputError: the stored scenario no longer loads.
    """
    # start-up: the scenario loader, the move records and the Sun's game add 75 ms to every command's start-up
    # (CPU, python -X importtime)
    from sim.core.scenario import scenario_from_dict
    from sim.replay.played import played_history, read_record, record_path
    from sim.sun.game import game_record

    if run is None or point != 0:
        return None
    record = read_record(run, game_index)
    if record is None:
        return None
    sc = scenario_from_dict(json.loads(scenario_json), REGISTRY, source=src)
    game = REGISTRY.get(sc.game)
    parse = getattr(_seat_view(sc.game), "parse", None)
    _config, state = played_history(game, sc.points(REGISTRY)[0].scenario, record, parse,
                                    source=str(record_path(run, game_index)))
    labels = [str(x) for x in record.get("labels") or []] or [s.label() for s in sc.seats]
    return game_record(state, labels, sc.seed, game_index)


def _seat_view(game: str) -> Any:
    """The game's seat view (its typed-move reader), or None."""
    seat = REGISTRY.plugin(game).seat
    return resolve(seat) if seat else None


def _kept_frames(calls: list[dict[str, Any]], info: dict[str, Any], src: str, scenario_json: str | None,
                 point: int, game_index: int) -> Replay:
    """The replay of a game from the frames its run kept, with the rules' view when it can be had.

    A run's store keeps the physics calls' frames but not the rules' view of each pass (markers,
    mark areas, gaps): the stored results stay what they always were. The view is had by playing
    the game again (exactly, from its seed) and is used only when that game's frames are the very
    frames the run kept; otherwise (another machine, other library versions, an outside agent not
    imported) the replay is the kept frames alone, and ``meta["rules_view_note"]`` says why.
    """
    note = "the run's store does not hold its scenario"
    if scenario_json is not None:
        try:
            played = _played_again(info.get("run"), scenario_json, point, game_index, src)
            rec = played if played is not None else _record_again(scenario_json, point, game_index, src, rate_hz=True)
        except InputError as e:  # ReplayError is one too
            note = f"playing the game again to get it failed: {e}"
        else:
            if _same_frames(calls, rec.get("calls") or []):
                return from_game_record({**rec, "calls": calls}, meta=info, source=src)
            note = ("playing the game again here gave other frames than the run kept (another machine or other "
                    "library versions)")
    rep = from_game_record(calls, meta=info, source=src)
    rep.meta["rules_view_note"] = note
    return rep


def _same_frames(kept: list[dict[str, Any]], again: list[dict[str, Any]]) -> bool:
    """Whether every kept call (turn, seat, kind and the recording's text) is, in order, one of the
    calls of the game played again (a run keeping only failures keeps some of them)."""
    text = [(c.get("turn"), c.get("seat"), c.get("kind"), json.dumps(c.get("data"), separators=(",", ":")))
            for c in again]
    j = 0
    for c in kept:
        want = (c.get("turn"), c.get("seat"), c.get("kind"), c.get("data"))
        while j < len(text) and text[j] != want:
            j += 1
        if j == len(text):
            return False
        j += 1
    return True


def _has_table(con: Any, name: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone() is not None
