"""How a game of Rocks! ends: the ending enum the rules report and the spec declares.

Its own room in every game (docs/game-interface.md): the rules report these endings, the game's spec
declares them, and what else names them (a position, the notation) needs no rules to do so. No I/O.
"""

from __future__ import annotations

from sim.core.game import Termination


class RocksEnd(Termination):
    """How a game of Rocks! ends (docs/rules-rocks.md): the terminations :meth:`RocksState.outcome`
    reports (the game's spec declares them, sim/rocks/game.py)."""

    NORMAL = "normal"  # a seat reached the target score (phase WON)
    TURN_CAP = "turn_cap"  # the turn cap came first: no winner (phase CAPPED)

    @classmethod
    def meanings(cls) -> dict[str, str]:
        """What each ending is (docs/rules-rocks.md)."""
        return {"normal": "a seat reached the target score",
                "turn_cap": "rules.max_turns turns passed first: a draw, no winner"}
