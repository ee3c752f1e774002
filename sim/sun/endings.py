"""How a game of Stonehenge and the Sun ends: the ending enum the rules report and the spec declares.

Its own module because the rules (sim/sun/rules/state.py) report the endings and the game (sim/sun/game.py)
declares them, and the game imports the rules. No I/O.
"""

from __future__ import annotations

from sim.core.game import Termination


class SunEnd(Termination):
    """How a game of Stonehenge and the Sun ends (docs/rules-sun.md)."""

    FIELD_EMPTY = "field_empty"  # the last field stone was placed: fewest penalty stones wins
    STALEMATE = "stalemate"  # the seat to place has no legal placement left

    @classmethod
    def meanings(cls) -> dict[str, str]:
        """What each ending is (docs/rules-sun.md, "End")."""
        return {"field_empty": "the last stone of the field was placed and passed over (the rule text's end)",
                "stalemate": "the seat to place had no legal stand, stack or gate left for any stone in the "
                             "field, so the game stopped with stones unplaced"}
