"""Rule variants of the Sun's random test games, one per seed: shared by the tests that compare the
rules' fast paths and exact intervals with the straightforward computation."""

from __future__ import annotations

from sim.sun.physics import ScriptedTable
from sim.sun.geometry.ring import Geometry
from sim.sun.rules.state import SunState
from sim.sun.players.thrower import SKILLS

G = Geometry()


def variant_state(seed: int) -> SunState:
    """A new game on the scripted table whose variant follows the seed: 2-4 players, standard or
    orbit mode, open or random field, both ``marker_change`` readings, casual hands."""
    players = 2 + seed % 3
    rules = {"mode": "orbit" if seed % 4 == 3 else "standard", "field": "random" if seed % 2 else "open",
             "marker_change": "new_gap" if seed % 5 == 4 else "new_stone"}
    return SunState.new(players, rules, table=ScriptedTable(G), throwers=[SKILLS["casual"]] * players)
