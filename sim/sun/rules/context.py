"""What the rules' functions read: a position, the geometry, the rule options and the one cache.

The legality of moves (``sim.sun.rules.legality``) and the stand angles
(``sim.sun.rules.stand_angles``) are functions of a :class:`RulesContext`, not of the whole state:
they read the position's data, the table's geometry, the rule options and what the cache derives
from the position, and nothing of the turns, the logs, the throwers or the table. The state
(``sim.sun.rules.state.SunState``) holds one context over its own position, geometry, options and
cache, and hands it to them.
"""

from __future__ import annotations

from sim.sun.geometry.ring import Geometry, Pos, Ring
from sim.sun.options import SunRules
from sim.sun.position import FIELD, SunPosition
from sim.sun.rules.cache import SunCache

__all__ = ["RulesContext"]


class RulesContext:
    """A position with what its rules need to judge moves on it (see the module docstring).

    The four are the state's own objects, not copies: a change of the position is seen at once,
    and the cache is invalidated by the state after every change of the position.
    """

    __slots__ = ("position", "geom", "rules", "cache")

    def __init__(self, position: SunPosition, geom: Geometry, rules: SunRules, cache: SunCache) -> None:
        self.position = position
        self.geom = geom
        self.rules = rules
        self.cache = cache

    def ring(self) -> Ring:
        """The ring as it stands now."""
        ring = self.cache.ring  # (read here when kept: the rules ask for it thousands of times a game)
        return ring if ring is not None else self.cache.ring_of(self.position, self.geom)

    def stacked_pos(self, p: Pos, shape: str) -> Pos:
        """Position ``p`` of the current ring (on the base, no top) once a stone of ``shape`` is
        stacked on it at its intended pose (``SunCache.stacked_pos``)."""
        return self.cache.stacked_pos(self.position, self.geom, p, shape)

    def is_free_turn(self) -> bool:
        """Whether the mover's turn is free of the marker move: its first turn (in "first_only"
        mode only seat 0 starts free), or any turn that starts on an empty ring (every stone lost)."""
        return not self.position.played[self.position.seat]

    def available_shapes(self) -> list[str]:
        """Shapes the mover may place: the drawn stone's (random field) or every shape left in the
        field, in stone id order."""
        return [name for name, _ in self.shape_stones()]

    def shape_stones(self) -> list[tuple[str, int]]:
        """``(shape, the stone a placement of it takes)`` for each of :meth:`available_shapes`, in
        that order (:meth:`stone_for` of each, found once: the candidate list asks both)."""
        p = self.position
        if self.rules.field == "random":
            return [(p.shapes[p.drawn], p.drawn)] if p.drawn >= 0 else []
        # one pass over the field in id order (list.index finds each next field stone): the first
        # stone of a shape met is its lowest id in the field, and the shapes come in that order
        role, names = p.role, p.shapes
        left = len(self.cache.shape_index(names))  # shapes not met yet
        out: list[tuple[str, int]] = []
        met: set[str] = set()
        i = -1
        while left:
            try:
                i = role.index(FIELD, i + 1)
            except ValueError:
                break
            name = names[i]
            if name not in met:
                met.add(name)
                out.append((name, i))
                left -= 1
        return out

    def stone_for(self, shape: str) -> int:
        """The stone a placement of ``shape`` takes (the drawn one, or the lowest id in the field), or -1."""
        p = self.position
        if self.rules.field == "random":
            return p.drawn if p.drawn >= 0 and p.shapes[p.drawn] == shape else -1
        role = p.role
        for i in self.cache.shape_index(p.shapes).get(shape, ()):
            if role[i] == FIELD:
                return i
        return -1
