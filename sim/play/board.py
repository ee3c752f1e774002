"""The board of the play page: the game's replay drawing (``StonelabBoard.draw``) of the position
the person's seat is at, so a person sees the same druid board, Rocks! venue or Sozoikum camp as in
a replay.

The frame is built in the game thread from the true state, through the game's replay frame builder
(:class:`~sim.replay.model.ReplayBook`, the history so far, ``partial=True``), and reaches the page
with only the person's seat's hidden part (:meth:`sim.replay.model.Frame.as_dict` of that one seat,
as ``stonelab replay export --seat S`` keeps it): the public board holds no seat's secret by the
replay format's contract (docs/replay-format.md), so nothing the seat may not know is sent.
"""

from __future__ import annotations

from typing import Any

from sim.core.game import Game, GameConfig, State
from sim.core.registry import Registry, resolve
from sim.replay.model import ReplayBook
from sim.replay.page import board_helpers_js, board_script


class SeatBoard:
    """The replay drawing of a game in progress, for the person in ``seat``.

    Args:
        game: the game.
        config: the configuration of the game being played.
        book: the game's replay book.
        seat: the person's seat (the one whose hidden part is kept).
    """

    def __init__(self, game: Game, config: GameConfig, book: ReplayBook, seat: int) -> None:
        self.game = game
        self.config = config
        self.book = book
        self.seat = seat

    @classmethod
    def of(cls, registry: Registry, game: Game, config: GameConfig, seat: int) -> "SeatBoard | None":
        """The board of ``game`` from its plug-in's replay book; None for a game without one (the
        page shows the seat view's text alone)."""
        plugin = registry.plugin(game.spec.name)
        if plugin.replay is None:
            return None
        book = resolve(plugin.replay)
        return cls(game, config, book, seat) if isinstance(book, ReplayBook) else None

    def script(self) -> str:
        """The page's drawing script: the replay drawing helpers, then the game's board script.

        Raises:
            FileNotFoundError: the game's drawing script is missing from the installation.
        """
        return board_helpers_js() + "\n" + board_script(self.book.module, self.book.board_js)

    def frame(self, state: State) -> dict[str, Any] | None:
        """``{"setup", "frame", "step", "words"}`` of ``state``: the drawing's set-up and the frame
        of the latest step, with the hidden part of the person's seat only, and every step in the
        replay's words as the game stands now (the book's ``words_now``: a face-down value turned up
        since is said) (``{"seat", "text", "note"}``: ``note`` the person's own words, or None)
        (JSON-ready); None before the game's first frame (a game whose first frame is its deal,
        before the deal).

        Raises:
            IllegalActionError: the state's history does not apply to a new state (a bug).
        """
        frames = self.book.frames(self.game, self.config, state.history(), partial=True)
        if not frames.frames:
            return None
        last = frames.frames[-1]
        # every step so far in the replay's words (public), with the person's own words for it (the
        # value of its own face-down stone...): the page's "What happened"
        # the words as the game stands now: a value turned up since is said in the step that placed it
        texts = self.book.words_now(frames) if self.book.words_now is not None else [f.text for f in frames.frames[1:]]
        words = []
        for f, text in zip(frames.frames[1:], texts):
            note = (f.hidden.get(self.seat) or f.hidden.get(str(self.seat)) or {}).get("note")  # type: ignore[call-overload]
            if text != f.text:
                note = None  # the value is public now: the person's own note would say it again
            words.append({"seat": f.seat, "text": text, "note": note if isinstance(note, str) else None})
        return {"setup": dict(frames.setup), "frame": last.as_dict([self.seat]), "step": len(frames.frames) - 1,
                "words": words}
