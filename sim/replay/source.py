"""A turn-based game of a run, played again and turned into a replay document.

The store keeps each game's result, not its moves; a game depends only on the run's scenario, its
root seed and the game's index (docs/reproducibility.md), so :func:`run_replay` plays it again
exactly as the runner did (:func:`sim.core.runner.play_seeded`); a game a person played
(``stonelab play``) is played again from its move record instead (:mod:`sim.replay.played`). It lets the game's
:class:`~sim.replay.model.ReplayBook` describe every step, and checks that the game played again
ends as the stored one did (scores, winners, ending, length) before it shows anything.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from sim.core import provenance
from sim.core.errors import InputError, ReplayError
from sim.core.registry import GamePlugin, Registry, resolve
from sim.core.scenario import scenario_from_dict
from sim.core.store import Store
from sim.games import REGISTRY
from sim.replay.model import Frames, ReplayBook
from sim.replay.page import FORMAT, VERSION, board_script, render_page
from sim.replay.played import RECORDS, played_history, read_record, record_path


@dataclass(frozen=True)
class RunGame:
    """What the store says about one game of a run."""

    game: str
    point: int
    game_index: int
    scores: list[float]
    winners: list[int]
    termination: str
    length: int
    labels: list[str]
    scenario_json: str
    run_label: str


def store_path(run: str | Path) -> Path:
    """``RUN/results.sqlite`` of a run folder, or the store file itself.

    Raises:
        ReplayError: neither.
    """
    path = Path(run)
    db = path / "results.sqlite" if path.is_dir() else path
    if not db.is_file():
        raise ReplayError("no results.sqlite here (not a run folder)", source=str(path))
    return db


def run_game_name(run: str | Path) -> str:
    """The game a run folder (or its store) holds.

    Raises:
        ReplayError: not a run folder, or a store that names no game.
        DamagedStore: the file is not a stonehenge-lab store.
    """
    db = store_path(run)
    with Store.open(db) as store:
        game = store.meta().get("game")
    if not game:
        raise ReplayError("the store names no game (its meta table has no 'game'): not a stonehenge-lab run, "
                          "or a damaged one", source=str(db))
    return game


def read_run_game(run: str | Path, game_index: int, point: int = 0) -> RunGame:
    """The stored result of game ``game_index`` of sweep point ``point``.

    Raises:
        ReplayError: not a run, no such game (the message gives the range), no stored scenario.
        InputError: a negative index (key ``--game`` or ``--point``).
    """
    if game_index < 0:
        raise InputError(f"game index must be >= 0, not {game_index}", key="--game")
    if point < 0:
        raise InputError(f"sweep point must be >= 0, not {point}", key="--point")
    game = run_game_name(run)
    db = store_path(run)
    src = str(db)
    try:
        con = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise ReplayError(f"cannot open the store: {e}", source=src) from None
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        row = con.execute("SELECT scores_json, winners_json, termination, length FROM games "
                          "WHERE point = ? AND game_index = ?", (point, game_index)).fetchone()
        if row is None:
            span = con.execute("SELECT MIN(game_index), MAX(game_index), COUNT(*) FROM games WHERE point = ?",
                               (point,)).fetchone()
            points = con.execute("SELECT MAX(point) FROM games").fetchone()[0]
            if not span or not span[2]:
                where = "no games stored" if points is None else f"sweep points 0..{points}"
                raise ReplayError(f"the run has no games at sweep point {point} ({where})", source=src)
            raise ReplayError(f"the run has no game {game_index} at sweep point {point}; its games there are "
                              f"{span[0]}..{span[1]}", source=src)
        labels = [str(r[0]) for r in con.execute("SELECT label FROM seats WHERE point = ? AND game_index = ? "
                                                 "ORDER BY seat", (point, game_index)).fetchall()]
    except sqlite3.Error as e:
        raise ReplayError(f"cannot read the store: {e}", source=src) from None
    finally:
        con.close()
    if not meta.get("scenario_json"):
        raise ReplayError("the store does not hold its scenario; cannot play the game again", source=src)
    return RunGame(game=game, point=point, game_index=game_index, scores=[float(x) for x in json.loads(row[0])],
                   winners=[int(w) for w in json.loads(row[1])], termination=str(row[2]), length=int(row[3]),
                   labels=labels, scenario_json=meta["scenario_json"], run_label=meta.get("name", "") or "")


def replay_book(plugin: GamePlugin, game: str) -> ReplayBook:
    """The :class:`ReplayBook` the plug-in names.

    Raises:
        ReplayError: it names none, or something else.
    """
    if plugin.replay is None:
        raise ReplayError(f"the game {game!r} has no turn-by-turn replays")
    book = resolve(plugin.replay)
    if not isinstance(book, ReplayBook):
        raise ReplayError(f"the game {game!r}: {plugin.replay!r} is not a ReplayBook")
    return book


def outcome_text(winners: Sequence[int], scores: Sequence[float], termination: str, unit: str) -> str:
    """The result in words: ``seat 1 wins (normal); scores 12, 20 points``."""
    who = ("a draw" if not winners else f"seat {winners[0]} wins" if len(winners) == 1
           else "a shared win of " + ", ".join(f"seat {w}" for w in winners))
    return f"{who} ({termination}); scores {', '.join(f'{s:g}' for s in scores)} {unit}"


def run_replay(run: str | Path, game_index: int, point: int = 0, *, registry: Registry | None = None,
               seats: Sequence[int] | None = None, import_agents: bool = False) -> dict[str, Any]:
    """The replay document (docs/replay-format.md) of game ``game_index`` of sweep point ``point``.

    Args:
        seats: keep only these seats' hidden parts (an export for one seat); None keeps all.
        import_agents: import the outside agents the stored scenario names (runs their code).

    Raises:
        ReplayError: see :func:`read_run_game`; the game has no turn-by-turn replays; the game
            played again does not end as the stored one (the code changed since the run).
        InputError: a seat that is not in the game (key ``--seat``).
    """
    # start-up: the runner and the agents' catalogue add 22 ms to the replay pages' start-up (CPU, python -X importtime)
    from sim.core.agents import outside_agents
    from sim.core.runner import play_seeded

    if registry is None:
        registry = REGISTRY
    stored = read_run_game(run, game_index, point)
    src = str(store_path(run))
    plugin = registry.find(stored.game)
    if plugin is None:
        raise ReplayError(f"the run is of the game {stored.game!r}, which this installation does not have; "
                          f"registered games: {', '.join(registry.names())}", source=src)
    book = replay_book(plugin, stored.game)
    n_seats = len(stored.scores)
    if seats is not None:
        bad = [s for s in seats if not 0 <= s < n_seats]
        if bad:
            raise InputError(f"seat {bad[0]} is not in the game; its seats are 0..{n_seats - 1}", key="--seat")
    with outside_agents(import_agents):
        sc = scenario_from_dict(json.loads(stored.scenario_json), registry, source=src)
        pts = sc.points(registry)
        if not 0 <= point < len(pts):
            raise ReplayError(f"the run has sweep points 0..{len(pts) - 1}, not {point}", source=src)
        game = registry.get(stored.game)
        record = read_record(run, game_index) if point == 0 else None
        if record is None:
            config, played = play_seeded(game, pts[point].scenario, game_index)
            state = played.state
            how = "re-played from the seed and checked against the stored result"
        else:
            # a person's game: their choices are in its move record, not in the seed
            parse = getattr(resolve(plugin.seat), "parse", None) if plugin.seat else None
            config, state = played_history(game, pts[point].scenario, record, parse,
                                           source=str(record_path(run, game_index)))
            how = (f"played by a person; re-played from its move record ({RECORDS}/game-{game_index}.json) and "
                   "checked against the stored result")
    frames: Frames = book.frames(game, config, state.history())
    check_same(stored, frames, state.length(), src)
    return {
        "format": FORMAT, "version": VERSION, "game": stored.game, "title": f"{game.spec.title}: game {game_index}"
        + (f" of sweep point {point}" if point else "") + (f" of {stored.run_label}" if stored.run_label else ""),
        "subtitle": f"run {Path(run)}; seed {sc.seed}; {how}",
        "run": {"path": str(Path(run)), "name": stored.run_label, "point": point, "game_index": game_index,
                "seed": sc.seed},
        "seats": stored.labels if len(stored.labels) == n_seats else [f"seat {s}" for s in range(n_seats)],
        "view_seats": list(range(n_seats)) if seats is None else sorted(set(seats)),
        "result": {"winners": stored.winners, "scores": stored.scores, "termination": stored.termination,
                   "length": stored.length,
                   "text": outcome_text(stored.winners, stored.scores, stored.termination, game.spec.score_unit)},
        "setup": dict(frames.setup),
        "frames": [f.as_dict(seats) for f in frames.frames],
        "board_js": book.board_js, "module": book.module,
    }


def check_same(stored: RunGame, frames: Frames, length: int, source: str) -> None:
    """The game played again ends as the stored one did.

    Raises:
        ReplayError: scores, winners, ending or length differ (each named).
    """
    out = frames.outcome
    if out is None:
        raise ReplayError(f"game {stored.game_index} played again does not reach its end", source=source)
    diffs = []
    if [float(x) for x in out.scores] != stored.scores:
        diffs.append(f"scores {list(out.scores)} instead of {stored.scores}")
    if sorted(out.winners) != sorted(stored.winners):
        diffs.append(f"winners {sorted(out.winners)} instead of {stored.winners}")
    if str(out.termination) != stored.termination:
        diffs.append(f"ending {out.termination!r} instead of {stored.termination!r}")
    if length != stored.length:
        diffs.append(f"length {length} instead of {stored.length}")
    if diffs:
        raise ReplayError(f"game {stored.game_index} played again does not end as stored ("
                          + "; ".join(diffs) + f"): {why_different(Path(source), stored.point, stored.game_index)}",
                          source=source)


def why_different(db: Path, point: int, game_index: int) -> str:
    """Why a game played again here may end otherwise than stored: what played the stored game
    (its ``math_path`` and ``code_fingerprint``, :mod:`sim.core.provenance`) against this process."""
    try:
        con = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT math_path, code_fingerprint FROM games WHERE point = ? AND game_index = ?",
                              (point, game_index)).fetchone()
        finally:
            con.close()
    except sqlite3.Error:  # a store made before provenance was kept
        row = None
    here = provenance.math_path()
    if not row or not row[0]:
        return (f"the store does not say what played it (made before provenance was kept); this process plays "
                f"with maths path {here}: the code or the maths path changed since the run; run the study again")
    return (f"the stored game was played with maths path {row[0]} and code fingerprint {row[1]}; this process "
            f"plays with maths path {here} (docs/reproducibility.md): another maths path or another code than the "
            "run's; run the study again here, or replay where it was played")


def check_outcome(db: Path, point: int, game_index: int, scores: Sequence[float] | None,
                  winners: Sequence[int] | None, stored_scores: Sequence[float], stored_winners: Sequence[int]) -> None:
    """A game played again (a 3-D replay's re-simulation) ends with the stored scores and winners.

    Raises:
        ReplayError: it does not reach its end, or its scores or winners differ (each named, with
            :func:`why_different`).
    """
    src = str(db)
    if scores is None or winners is None:
        raise ReplayError(f"game {game_index} played again does not reach its end", source=src)
    diffs = []
    if [float(x) for x in scores] != [float(x) for x in stored_scores]:
        diffs.append(f"scores {[float(x) for x in scores]} instead of {[float(x) for x in stored_scores]}")
    if sorted(int(w) for w in winners) != sorted(int(w) for w in stored_winners):
        diffs.append(f"winners {sorted(int(w) for w in winners)} instead of {sorted(int(w) for w in stored_winners)}")
    if diffs:
        raise ReplayError(f"game {game_index} played again does not end as stored (" + "; ".join(diffs) + "): "
                          + why_different(db, point, game_index), source=src)


def page_for(doc: dict[str, Any]) -> str:
    """The replay page (HTML text) of a replay document from :func:`run_replay`.

    Raises:
        FileNotFoundError: the game's drawing script is missing from the installation.
    """
    body = {k: v for k, v in doc.items() if k not in ("board_js", "module")}
    return render_page(body, board_script(doc["module"], doc["board_js"]))
