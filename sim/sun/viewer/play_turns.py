"""Each pass of a game of the Sun in progress, in 3-D, for the play page (``stonelab play``).

A person's game keeps every frame (the seat view's ``play_sections``), so after each pass the table's
recording so far holds that turn: :class:`TurnPages` takes a copy of it in the game thread
(:meth:`TurnPages.capture`, cheap) and makes the turn's static viewer page from it later, in another
thread (:meth:`TurnPages.page`: :meth:`Replay.turn_range` of the turn, then viser's one-file
``standalone.html`` of :func:`sim.sun.viewer.viser_app.static_files`, a few seconds). Nothing is
written: the play server serves the page from memory.
"""

from __future__ import annotations

from typing import Any, Sequence

from sim.sun.game import game_record
from sim.sun.viewer.replay.convert import from_game_record


class TurnPages:
    """The 3-D pages of a game's passes.

    Args:
        players: the seats' labels (shown in the viewer's legend).
        seed: the scenario's seed (the record's metadata).
        game_index: the game's index (the record's metadata).
    """

    def __init__(self, players: Sequence[str], seed: int, game_index: int) -> None:
        self.players = list(players)
        self.seed = seed
        self.game_index = game_index

    @staticmethod
    def done(state: Any) -> list[tuple[int, int]]:
        """``(turn, seat)`` of every pass played so far, in order."""
        return [(int(p["turn"]), int(p["seat"])) for p in getattr(state, "passes", ())]

    def capture(self, state: Any) -> dict[str, Any]:
        """A copy of the recording so far (:func:`sim.sun.game.game_record`).

        Raises:
            InputError: not a state of the Sun.
        """
        return game_record(state, self.players, self.seed, self.game_index)

    @staticmethod
    def page(record: dict[str, Any], turn: int) -> bytes:
        """The one-file 3-D viewer of turn ``turn`` of a captured recording (HTML bytes).

        Raises:
            ReplayError: the recording holds no such turn, or is malformed.
            InputError: viser's prebuilt client is missing.
        """
        # start-up: the 3-D viewer's export adds 14 ms (CPU, python -X importtime)
        from sim.sun.viewer.viser_app import EXPORT_STANDALONE, static_files

        part = from_game_record(record, meta={"turn": turn}).turn_range(turn, turn + 1)
        return static_files(part)[EXPORT_STANDALONE]
