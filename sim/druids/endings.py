"""How a game of Knizia's *Stonehenge* (the druid board) ends: the ending enum the rules report and the spec declares.

Its own room in every game (docs/game-interface.md): the rules report these endings, the game's spec
declares them, and what else names them (a position, the notation) needs no rules to do so. No I/O.
"""

from __future__ import annotations

from sim.core.game import Termination


class DruidsEnd(Termination):
    """How a druid game ends (docs/rules-druids.md): the terminations :meth:`DruidsState.outcome`
    reports (the game's spec declares them, sim/druids/game.py)."""

    EIGHT_MEGALITHS = "eight_megaliths"  # a single game: a seat placed its eighth megalith
    BOARD_FULL = "board_full"  # a single game: every space filled before anyone had eight
    MATCH = "match"  # a match of several games: the higher megalith total wins, equal totals draw

    @classmethod
    def meanings(cls) -> dict[str, str]:
        """What each ending is (docs/rules-druids.md)."""
        return {"eight_megaliths": "a seat placed its eighth megalith",
                "board_full": "every space was filled before anyone had placed eight megaliths (a fallback "
                              "the rules never reach)",
                "match": "the last game of a match was played: the lower total of noted megaliths wins"}
