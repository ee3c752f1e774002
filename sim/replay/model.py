"""What a turn-based game's replay is: frames of plain data, one per step, and what a game brings to
make them (a :class:`ReplayBook`). No I/O here, and no game named: each game's ``sim/<game>/replay.py``
holds its :class:`ReplayBook`, which its plug-in names (``GamePlugin.replay``).

A frame is the position *after* a step as the game's board drawing needs it (``board``, public:
what every seat sees), the step in words (``text``, public too) and, per seat, what only that seat
sees (``hidden[seat]``: its hand, its face-down stones, its fist; ``note`` words for it). A replay
page (``sim.replay.page``) shows the public part with the hidden part of the seats the viewer
chooses; an export for one seat holds no other seat's hidden part (docs/replay-format.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence, cast

from sim.core.game import CHANCE, SIMULTANEOUS, Action, Game, GameConfig, Outcome, State

#: ``Frame.seat`` of a step no seat took (a deal, a draw, the placement noise)
NO_SEAT = -1


@dataclass(frozen=True)
class Frame:
    """One step of a replay.

    Attributes:
        turn: the game's own count the step belongs to (a ply, a turn, a round; 0 for set-up), for
            "jump to turn N".
        seat: the seat that acted, or :data:`NO_SEAT` (chance, set-up, several seats at once).
        text: the step in words, for every seat (no hidden information).
        board: the position after the step, public facts only, as the game's drawing reads it
            (JSON values).
        hidden: per seat, what only that seat knows after the step (JSON values; ``"note"``: words
            added to ``text`` for that seat). A seat with nothing hidden may be absent.
    """

    turn: int
    seat: int
    text: str
    board: Mapping[str, Any]
    hidden: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)

    def as_dict(self, seats: Sequence[int] | None = None) -> dict[str, Any]:
        """JSON-ready form; with ``seats``, only those seats' hidden parts (an export for one seat)."""
        keep = self.hidden if seats is None else {s: h for s, h in self.hidden.items() if s in seats}
        return {"turn": self.turn, "seat": self.seat, "text": self.text, "board": dict(self.board),
                "hidden": {str(s): dict(h) for s, h in sorted(keep.items())}}


@dataclass(frozen=True)
class Frames:
    """A game turned into frames.

    Attributes:
        frames: the steps, in order (the first is the position before any decision).
        outcome: the outcome of the state the frames were made from (played again from the history);
            None for a game in progress (``partial``, the play page's board).
        setup: facts the drawing needs once (the board's shape, the rules' counts), JSON values.
    """

    frames: list[Frame]
    outcome: Outcome | None
    setup: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReplayBook:
    """What a turn-based game brings for replays (named by its plug-in's ``replay``).

    Attributes:
        frames: ``frames(game, config, history, *, partial=False) -> Frames``: play ``history`` (the
            terminal state's :meth:`~sim.core.game.State.history`) again from
            ``game.new_initial_state(config)`` and describe every step; a history that does not end
            the game raises ``ValueError`` unless ``partial`` (a game in progress, drawn on the play
            page). Pure: no I/O.
        board_js: file name, next to the module that holds the book, of the drawing script: it sets
            ``window.StonelabBoard = {draw(doc, frame, seats) -> SVG element}`` (``seats``: the seats
            whose hidden parts to show), building the SVG with the page's ``svg``/``svgText``
            helpers (text set as text, never as markup).
        module: the module of the book (``__name__`` of the game's replay module), where
            ``board_js`` is looked up.
        words_now: ``words_now(frames) -> list[str]``: each step's ``text`` (``frames.frames[1:]``)
            said with what is public at the last frame (a face-down value turned up since, which
            the step's own words could not say): the play page's "What happened", read as the game
            stands. None: a step's words never change. Pure: no I/O; nothing that is not public
            at the last frame.
    """

    frames: Callable[..., Frames]
    board_js: str
    module: str
    words_now: Callable[[Frames], list[str]] | None = None


def replay_steps(game: Game, config: GameConfig,
                 history: Sequence[tuple[int, Action]]) -> Iterator[tuple[State, int, Any, State]]:
    """Apply ``history`` to a new state of ``config``, yielding ``(before, seat, action, after)`` per
    step; ``before`` is a copy, ``after`` the state itself, which the next step moves on (read what a
    frame needs from it before asking for the next step). A simultaneous step's ``action`` is its ``((seat, action), ...)``
    pairs, ``seat`` then :data:`~sim.core.game.SIMULTANEOUS`; a chance outcome has ``seat`` CHANCE.

    Raises:
        IllegalActionError: the history does not apply (the code changed since it was played).
    """
    state = game.new_initial_state(config)
    for seat, action in history:
        before = state.clone()
        if seat == SIMULTANEOUS:
            state.apply_actions(dict(cast("Sequence[tuple[int, Action]]", action)))
        else:
            # a chance outcome or a seat's action: apply_action takes both
            state.apply_action(action)
        yield before, seat, action, state


def seat_name(seat: int) -> str:
    """How a step's words name a seat: ``seat 2``."""
    return f"seat {seat}"


__all__ = ["CHANCE", "Frame", "Frames", "NO_SEAT", "ReplayBook", "SIMULTANEOUS", "replay_steps", "seat_name"]
