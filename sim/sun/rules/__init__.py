"""The Sun's rules, over its geometry and beside the table (docs/rules-sun.md). No I/O, no physics engine.

The room every game has: :class:`SunState` (the turns), :class:`SunObservation` and the endings
:class:`SunEnd`, written in ``state.py`` and named here as ``sim.<game>.rules`` names them in every
game. Beside the state: which moves are legal (``legality``), where a stone may stand
(``stand_angles``), the one cache of a position (``cache``) and what the rules see at a pass, for the
replay (``pass_view``).
"""

from sim.sun.endings import SunEnd
from sim.sun.rules.state import SunObservation, SunState

__all__ = ["SunEnd", "SunObservation", "SunState"]
