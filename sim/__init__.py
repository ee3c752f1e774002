"""stonehenge-lab: engines for four stone-themed tabletop games.

Sub-packages: ``sim.core`` (shared game interface, scenarios, runner, store),
one folder per game (``sun``, ``rocks``, ``druids``, ``sozoikum``) and ``viewer``.
"""

__version__ = "0.1.0"
