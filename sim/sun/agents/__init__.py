"""The Sun's agents, over its rules: the policies ``random``, ``careful``, ``aggressive``, ``planner`` and
``uniform`` (``policies``), what every agent shares (``base``), what they measure on a ring
(``measures``) and their memory of a turn's failed placements (``memory``).

The room every game has: :data:`AGENTS`, the game's own policies, each an ``AgentSpec``.
"""

from sim.sun.agents.policies import AGENTS

__all__ = ["AGENTS"]
