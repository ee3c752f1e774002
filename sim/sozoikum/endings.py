"""How a game of Sozoikum ends: the ending enum the rules report and the spec declares.

Its own room in every game (docs/game-interface.md): the rules report these endings, the game's spec
declares them, and what else names them (a position, the notation) needs no rules to do so. No I/O.
"""

from __future__ import annotations

from sim.core.game import Termination


class SozoikumEnd(Termination):
    """How a game of Sozoikum ends (docs/rules-sozoikum.md): what the rules set as a position's
    ``termination`` and :meth:`SozoikumState.outcome` reports (the game's spec declares them,
    sim/sozoikum/game.py)."""

    HOUSE = "house"  # a seat's house stood: it wins
    ROUND_CAP = "round_cap"  # max_rounds passed without a standing house

    @classmethod
    def meanings(cls) -> dict[str, str]:
        """What each ending is (docs/rules-sozoikum.md)."""
        return {"house": "a seat's house stood: it wins",
                "round_cap": "rules.max_rounds rounds passed without a standing house: a draw"}
