"""A game a person played, read back from its move record (``RUN/played/game-<i>.json``, docs/store.md).

A person's choices cannot be re-simulated from the seed: ``stonelab play`` writes every step of
its game in the game's notation (with a seat's action's exact ``fields`` where the notation rounds
a continuous move). :func:`played_history` plays that record again on a fresh state of
the stored scenario: each seat's decision is the recorded one (found among the seat's legal
actions by its notation, or read back by the game's seat view for a move beside the listed
candidates), chance is drawn from the game's chance stream exactly as the play loop drew it
(:func:`sim.core.play.play`, the seeds of ``sim.core.seeding``), and every step applied must read as
recorded, so a record that does not fit the code (or was edited) is refused, naming the step.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Sequence

from sim.core.errors import InputError, ReplayError
from sim.core.game import CHANCE, SIMULTANEOUS, Action, Game, GameConfig, State
from sim.core.scenario import Scenario
from sim.core.seeding import game_streams

#: the folder of the move records inside a run folder
RECORDS = "played"
#: the largest move record read (a long game of Rocks! is a few hundred kB)
MAX_RECORD_BYTES = 64 * 1024 * 1024


def record_path(run: str | Path, game_index: int) -> Path:
    """``RUN/played/game-<game_index>.json`` (whether or not it exists)."""
    return Path(run) / RECORDS / f"game-{game_index}.json"


def read_record(run: str | Path, game_index: int) -> dict[str, Any] | None:
    """The move record of game ``game_index`` of a run folder, or None when the game was not played
    by a person (a study's game: it is re-simulated from the seed instead).

    Raises:
        ReplayError: the record is not JSON, too large, or lacks its ``steps`` list of
            ``{"seat", "action"}`` objects or its ``game_index``.
    """
    path = record_path(run, game_index)
    if not path.is_file():
        return None
    src = str(path)
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise ReplayError(f"the move record is larger than {MAX_RECORD_BYTES // 2**20} MiB", source=src)
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ReplayError(f"the move record is not JSON ({e})", source=src) from None
    steps = rec.get("steps") if isinstance(rec, dict) else None
    if not isinstance(steps, list) or not all(
            isinstance(s, dict) and isinstance(s.get("action"), str)
            and (s.get("seat") == "chance" or (isinstance(s.get("seat"), int) and not isinstance(s.get("seat"), bool)))
            for s in steps):
        raise ReplayError("the move record has no 'steps' list of {\"seat\": n or \"chance\", \"action\": text}",
                          source=src)
    if rec.get("game_index") != game_index:
        raise ReplayError(f"the move record is of game {rec.get('game_index')!r}, not {game_index}", source=src)
    return rec


def _pair_text(seat: int, action: Action) -> str:
    """How one seat's part of a simultaneous step reads inside the step's recorded text (the text of
    a tuple of ``(seat, action)`` pairs)."""
    return f"({seat}, {action!r})"


def _fields_of(action: Action) -> dict[str, Any] | None:
    """A dataclass action's fields by name (as ``sim.play.session.step_record`` keeps them), or None."""
    if not dataclasses.is_dataclass(action) or isinstance(action, type):
        return None
    return {f.name: getattr(action, f.name) for f in dataclasses.fields(action)}


class _Cursor:
    """Where the record stands: the state the play loop is at (set before every step)."""

    def __init__(self) -> None:
        self.state: State | None = None


class _RecordedSeat:
    """A seat whose every decision is the one the record holds for the step the game is at."""

    reads_observation = False

    def __init__(self, seat: int, steps: Sequence[dict[str, Any]], cursor: _Cursor, parse: Any, source: str) -> None:
        self.seat = seat
        self.steps = steps
        self.cursor = cursor
        self.parse = parse
        self.source = source

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """The recorded action of this seat at the current step.

        Raises:
            ReplayError: the record ends here, names another seat, or its move is not this seat's
                legal move (the step is named).
        """
        state = self.cursor.state
        assert state is not None  # the play loop calls before_step first
        k = len(state.history())
        if k >= len(self.steps):
            raise ReplayError(f"the move record ends after {len(self.steps)} steps, before the game does "
                              f"(seat {self.seat} is to move)", source=self.source)
        step = self.steps[k]
        text = step["action"]
        if state.current_player() == SIMULTANEOUS:
            if step["seat"] != SIMULTANEOUS:
                raise ReplayError(f"step {k + 1} of the move record is seat {step['seat']}'s, but every seat "
                                  "chooses at once there", source=self.source)
            for a in legal_actions:
                if _pair_text(self.seat, a) in text:
                    return a
            raise ReplayError(f"step {k + 1} of the move record ({text[:80]!r}) holds no legal choice of seat "
                              f"{self.seat}", source=self.source)
        if step["seat"] != self.seat:
            raise ReplayError(f"step {k + 1} of the move record is {step['seat']!r}'s, but seat {self.seat} is to "
                              "move there", source=self.source)
        fields = step.get("fields")
        for a in legal_actions:
            if str(a) == text and (not isinstance(fields, dict) or _fields_of(a) == fields):
                return a
        if self.parse is not None:
            # a move beside the listed candidates (a game with continuous moves lists only some):
            # read from its notation, with the exact values the record keeps (the notation rounds)
            try:
                action = self.parse(text)
            except InputError:
                pass
            else:
                parsed = _fields_of(action)
                if isinstance(fields, dict) and parsed is not None and set(fields) == set(parsed):
                    action = dataclasses.replace(action, **fields)
                if str(action) == text:
                    return action
        raise ReplayError(f"step {k + 1} of the move record, seat {self.seat} plays {text[:80]!r}, is not one of its "
                          "moves there: the code changed since the game was played", source=self.source)


def played_history(game: Game, sc: Scenario, record: dict[str, Any], parse: Any = None,
                   source: str = "") -> tuple[GameConfig, State]:
    """The record played again on a fresh state of game ``record["game_index"]`` of the playable
    scenario ``sc`` (see the module docstring): ``(config, terminal state)``.

    Args:
        parse: the game's typed-move reader (``SeatView.parse``), for recorded moves that no listed
            legal action reads as; None: listed moves only.
        source: names the record in errors.

    Raises:
        ReplayError: a recorded step does not apply, or reads otherwise when applied (the step is
            named), or the record ends before or after the game does.
    """
    # start-up: playing a game again adds 1.2 ms to the replay pages' start-up (CPU, python -X importtime)
    from sim.core.play import play

    index = int(record["game_index"])
    steps: list[dict[str, Any]] = record["steps"]
    seating = sc.seating(index)
    config = dataclasses.replace(sc.config(seating.seats), game_index=index)
    streams = game_streams(sc.seed, seating.stream_index, config.num_players)
    cursor = _Cursor()

    def before(state: State, _step: int) -> None:
        cursor.state = state

    agents = [_RecordedSeat(i, steps, cursor, parse, source) for i in range(config.num_players)]
    try:
        played = play(game, config, agents, streams.chance, before_step=before, leads=False,
                      max_steps=len(steps) + 1, label="the recorded game")
    except ReplayError:
        raise
    except Exception as e:  # noqa: BLE001 - an illegal or malformed recorded step, said with its cause
        raise ReplayError(f"the move record does not play again ({type(e).__name__}: {e})", source=source) from None
    hist = played.state.history()
    if len(hist) != len(steps):
        raise ReplayError(f"the game played again from the move record has {len(hist)} steps, the record "
                          f"{len(steps)}", source=source)
    for k, ((seat, action), step) in enumerate(zip(hist, steps)):
        want_seat = "chance" if seat == CHANCE else seat
        if want_seat != step["seat"] or str(action) != step["action"]:
            raise ReplayError(f"step {k + 1} played again is {want_seat!r}: {str(action)[:80]!r}, the record says "
                              f"{step['seat']!r}: {step['action'][:80]!r} (the chance stream or the code changed "
                              "since the game was played)", source=source)
    return config, played.state
