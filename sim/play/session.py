"""One game with a person at the table: the scenario made playable, the game played through the one
play loop (:func:`sim.core.play.play`), the finished game stored like a study's.

The person's seat is agent ``human`` (:mod:`sim.core.human`); the others are the scenario's agents
with the seed streams a study would give game ``index`` (``sim.core.seeding``), so the agents and
chance behave as in a study. The seat order is fixed (``seat_order = "fixed"``): the person keeps
the seat they chose.

What is stored (docs/store.md): the store's rows of the game, as a study stores them (``report``,
``compare`` and ``export`` read them), and ``played/game-<index>.json``, the game's every step in the
game's notation (what the person chose cannot be re-simulated from the seed). Each game is stored
whole or not at all: the move record is written first, atomically, then the store's rows in one
transaction; a game left before its end stores nothing.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import time
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from sim.core.errors import IllegalActionError, InputError, ScenarioError
from sim.core.game import CHANCE, SIMULTANEOUS, Action, Game, GameConfig, State
from sim.core.human import HUMAN_AGENT, Channel, SeatView, human_seats, seated
from sim.core.outputs import default_run_folder, write_atomically
from sim.core.play import play, seat_agents
from sim.core.registry import Registry, resolve
from sim.core.runner import game_result, study_meta
from sim.core.scenario import Scenario, scenario_from_dict
from sim.core.seeding import game_streams
from sim.replay.played import record_path
from sim.core.store import LOCK_NAME, STORE_NAME, Store, check_run_folder, lock_run_folder, reading



class Refused(Exception):
    """A move the person chose is not taken: the message says why (the rule's reason)."""


def _normal(text: str) -> str:
    return "".join(text.lower().split())


def resolve_choice(choice: int | str, legal: Sequence[Action], state: State | None, seat: int,
                   view: SeatView | None) -> Action:
    """The legal action a person chose: ``choice`` is the number of a listed move (1-based) or a
    move typed in the game's notation.

    A typed move that is not listed is tried on a copy of ``state``: the rules take it (a game
    with continuous moves lists only candidates) or say why not (``IllegalActionError.reason``;
    the state's notation, which may hold what the seat must not see, is never shown).

    Raises:
        Refused: no such number, text that is not a move, or an illegal move (with the reason).
    """
    if isinstance(choice, int):
        if not 1 <= choice <= len(legal):
            raise Refused(f"there is no move {choice}: choose 1 to {len(legal)}")
        return legal[choice - 1]
    text = choice.strip()
    if not text:
        raise Refused("type a move, or choose one of the listed moves")
    if text.isdigit() and len(text) <= 6:
        return resolve_choice(int(text), legal, state, seat, view)
    wanted = _normal(text)
    for a in legal:
        if _normal(str(a)) == wanted:
            return a
    if view is None:
        raise Refused(f"{text[:40]!r} is not one of your moves now")
    try:
        action = view.parse(text)
    except InputError as e:
        raise Refused(str(e)) from None
    if action in legal:
        return action
    if state is not None and state.current_player() == seat:
        probe = state.clone()
        try:
            probe.apply_action(action)
        except IllegalActionError as e:
            raise Refused(f"{action} is not allowed: {e.reason or 'not a legal move here'}") from None
        # the rules took it: a move beside the listed candidates of a game with continuous moves
        # (the Sun's angles, aims and releases: "any other valid action is accepted")
        return action
    elif state is not None and state.current_player() == SIMULTANEOUS:
        raise Refused(f"{action} is not allowed: not one of your choices at this step")
    raise Refused(f"{action} is not allowed now: not one of your legal moves")


def play_scenario(sc: Scenario, registry: Registry, seat: int | None, *, out: str | None = None,
                  skill: str | None = None) -> Scenario:
    """The scenario ``sc`` with a person in ``seat`` (its agent ``human``; None: the seat the file
    gives agent ``human``), its seat order fixed, its run folder ``out`` or ``runs/<game>/<name>-play``;
    ``skill`` (as typed) sets the person's seat option ``skill`` where the game has one (the Sun's
    thrower preset, whose noise is drawn for each of their placements and passes; Sozoikum's builder).

    Raises:
        InputError: the game cannot be played by a person (no seat view), ``seat`` is not a seat, no seat or more
            than one is human, or the scenario is a sweep, tournament or sensitivity study.
    """
    key = "--seat"
    for table in ("sweep", "tournament", "sensitivity"):
        if table in sc.raw:
            raise ScenarioError(f"a scenario with [{table}] plays many games; play takes one with [[seats]] only "
                                "(copy it without that table)", source=sc.source, key=table)
    raw = copy.deepcopy(dict(sc.raw))
    seats = [dict(s) for s in raw["seats"]]
    if seat is not None:
        if not 0 <= seat < len(seats):
            raise InputError(f"got {seat}; the scenario has seats 0 to {len(seats) - 1}", key=key)
        keep = {o.name for o in registry.get(sc.game).spec.seat_options} | {"name", "strength"}
        seats[seat] = {"agent": HUMAN_AGENT, **{k: v for k, v in seats[seat].items() if k in keep}}
    humans = [i for i, s in enumerate(seats) if s.get("agent") == HUMAN_AGENT]
    if not humans:
        raise InputError(f"no seat is agent {HUMAN_AGENT!r}: give --seat N (0 to {len(seats) - 1}), or agent = "
                         f"\"{HUMAN_AGENT}\" in a seat of the file", key=key)
    if len(humans) > 1:
        raise InputError(f"seats {', '.join(map(str, humans))} are all agent {HUMAN_AGENT!r}: one person plays a "
                         "game here (the others would see each other's hidden information)", key=key)
    if skill is not None:
        seats[humans[0]]["skill"] = _skill_value(registry, sc.game, skill)
    raw["seats"] = seats
    raw["seat_order"] = "fixed"
    # what the game's seat view asks of a person's game (the Sun keeps every frame for its replay)
    for table, values in getattr(seat_view(registry, sc.game), "play_sections", {}).items():
        raw[table] = {**raw.get(table, {}), **values}
    raw["out"] = out or (sc.raw.get("out") or default_run_folder(sc.game, sc.name, "-play"))
    raw.setdefault("name", sc.name)
    try:
        return scenario_from_dict(raw, registry, source=sc.source, default_name=sc.name)
    except ScenarioError as e:
        if skill is not None and e.key == f"seats[{humans[0]}].skill":  # the command line's value
            raise InputError(e.message, key="--skill") from None
        raise


def _skill_value(registry: Registry, game: str, text: str) -> Any:
    """``--skill`` as the game's seat option ``skill`` takes it (a number or a name).

    Raises:
        InputError: the game's seats have no skill, or a number was expected.
    """
    opt = next((o for o in registry.get(game).spec.seat_options if o.name == "skill"), None)
    if opt is None:
        raise InputError(f"{game} seats have no skill to set", key="--skill")
    if opt.type is float:
        try:
            return float(text)
        except ValueError:
            raise InputError(f"got {text!r}; a number is expected ({opt.doc})", key="--skill") from None
    return text


def seat_view(registry: Registry, game: str) -> SeatView:
    """The game's :class:`SeatView` (its plug-in's ``seat``).

    Raises:
        InputError: the game brings none (it cannot be played by a person here).
    """
    plugin = registry.plugin(game)
    if plugin.seat is None:
        playable = [n for n in registry.names() if registry.plugin(n).seat]
        raise InputError(f"{game} cannot be played by a person yet; games to play: "
                         f"{', '.join(playable) or 'none'}", key="game")
    return resolve(plugin.seat)


@dataclass
class Finished:
    """A stored game: its index, the run folder, the result's words and the stored record's path."""

    index: int
    out: Path
    summary: str
    record: Path
    scores: list[float]
    winners: list[int]


class Session:
    """One game of ``scenario`` (made by :func:`play_scenario`) with the person in ``human``.

    Args:
        scenario: the playable scenario.
        registry: the game registry.

    Raises:
        InputError: the run folder cannot take the game (see :meth:`check_folder`).
    """

    def __init__(self, scenario: Scenario, registry: Registry) -> None:
        self.scenario = scenario
        self.registry = registry
        self.game: Game = registry.get(scenario.game)
        self.view = seat_view(registry, scenario.game)
        self.human = human_seats(scenario.seats)[0]
        self.out = Path(scenario.out)
        self.index = self.check_folder()
        self._held = False
        self._t0 = time.perf_counter()
        self.labels = ["you" if i == self.human else s.label() for i, s in enumerate(scenario.seats)]

    @contextmanager
    def held(self) -> Iterator["Session"]:
        """Hold the run folder for the whole game (no study or other game writes to it meanwhile);
        a folder this made and left empty (the game was left) is removed again.

        Raises:
            FolderBusy: another run or game is writing to the folder.
            InputError: the folder cannot be made, or can no longer take the game.
        """
        made = not self.out.exists()
        try:
            with lock_run_folder(self.out):
                self.index = self.check_folder()
                self._held = True
                try:
                    yield self
                finally:
                    self._held = False
        finally:
            if made and self.out.is_dir() and [p.name for p in self.out.iterdir()] == [LOCK_NAME]:
                (self.out / LOCK_NAME).unlink(missing_ok=True)
                with suppress(OSError):
                    self.out.rmdir()

    def check_folder(self) -> int:
        """The index of the game to play: the first the run folder's store does not hold (0 for a
        new folder). Checked before the game, so a game played is never refused at its end.

        Raises:
            InputError: the folder holds other files, or a store of another scenario, game or schema.
        """
        check_run_folder(self.out)
        path = self.out / STORE_NAME
        if not path.exists():
            return 0
        with Store.open(path) as store, reading(store.path):
            meta = store.meta()
            done = {i for (_p, i) in store.done()}
        if meta.get("game") != self.scenario.game or meta.get("fingerprint") != self.scenario.fingerprint():
            raise InputError(f"the run folder holds games of another scenario ({meta.get('name', '?')!r}); give "
                             "--out for a new folder", source=self.out)
        return next(i for i in range(len(done) + 1) if i not in done)

    def config(self) -> GameConfig:
        """The configuration of the game to play (its seating's, with its index)."""
        seating = self.scenario.seating(self.index)
        return dataclasses.replace(self.scenario.config(seating.seats), game_index=self.index)

    def play(self, channel: Channel, before_step: Callable[[State, int], None] | None = None) -> tuple[State, Any]:
        """Play the game to its end with ``channel`` asking the person; ``before_step`` (the
        channel's view of the position) is called before every step and on the end.

        Returns:
            ``(terminal state, PlayedGame)``.

        Raises:
            Abandoned: the person left; nothing is stored.
        """
        sc = self.scenario
        seating = sc.seating(self.index)
        config = self.config()
        streams = game_streams(sc.seed, seating.stream_index, config.num_players)
        with seated(channel):
            agents = seat_agents(self.game, seating.seats, config, streams)
        self._t0 = time.perf_counter()
        played = play(self.game, config, agents, streams.chance, label=f"game {self.index} of {sc.name}",
                      before_step=before_step)
        return played.state, played

    def store(self, state: State, played: Any) -> Finished:
        """Store the finished game: ``played/game-<index>.json`` (atomically), then its rows.

        Raises:
            InputError, WorkError: the store cannot be written (see :class:`sim.core.store.Store`).
        """
        sc = self.scenario
        seating = sc.seating(self.index)
        result = game_result(self.game, sc, seating, state, played.leads, point=0, values={},
                             game_index=self.index, wall_s=time.perf_counter() - self._t0)
        record = {
            "game": sc.game, "scenario": sc.name, "game_index": self.index, "seed": sc.seed, "human_seat": self.human,
            "labels": result.labels,
            "steps": [step_record(s, a) for s, a in state.history()],
            "notation": state.to_notation(),
        }
        if not self._held:
            raise RuntimeError("Session.store outside Session.held()")
        path = record_path(self.out, self.index)
        path.parent.mkdir(exist_ok=True)
        text = json.dumps(record, indent=1) + "\n"
        write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        meta = study_meta(sc)
        meta["games"] = str(self.index + 1)
        store = Store.create(self.out, self.game.spec, meta)
        try:
            store.set_points([(0, {})])
            store.add(result)
        finally:
            store.close()
        meaning = self.game.spec.terminations.meanings().get(result.termination)
        return Finished(self.index, self.out, outcome_words(result.winners, result.scores, self.labels,
                                                            self.game.spec.score_unit, result.termination, meaning),
                        path, result.scores, result.winners)


def step_record(seat: int, action: Action) -> dict[str, Any]:
    """One step of a move record: ``{"seat", "action": notation}``, and for a seat's action that is a
    dataclass of plain values its exact ``fields`` (a notation may round a continuous move, e.g. the
    Sun's aims to 0.01 deg; the replay needs the very action, docs/store.md)."""
    out: dict[str, Any] = {"seat": "chance" if seat == CHANCE else seat, "action": str(action)}
    if seat >= 0 and dataclasses.is_dataclass(action) and not isinstance(action, type):
        fields = {f.name: getattr(action, f.name) for f in dataclasses.fields(action)}
        if all(isinstance(v, (int, float, str, bool)) for v in fields.values()):
            out["fields"] = fields
    return out


def outcome_words(winners: Sequence[int], scores: Sequence[float], labels: Sequence[str], unit: str,
                  termination: str, meaning: str | None = None) -> str:
    """``seat 1 (random) wins; scores (megaliths): 8, 5; it ended as a seat placed its eighth
    megalith`` and the like: the ending in the game's own words (``meaning``, from its
    :meth:`~sim.core.game.Termination.meanings`), its code when the game gives none."""
    if not winners:
        head = "a draw"
    else:
        head = " and ".join(f"seat {w} ({labels[w]})" for w in winners) + (" win" if len(winners) > 1 else " wins")
    shown = ", ".join(f"{s:g}" for s in scores)
    end = f"it ended as {meaning}" if meaning else f"ended: {termination}"
    return f"{head}; scores ({unit}): {shown}; {end}"
