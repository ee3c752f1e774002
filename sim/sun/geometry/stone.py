"""A stone on the Sun's table: the one record the rules, the PyBullet table and the replay share.

A :class:`Stone` is a stone that stands on the table: its id, its shape, its :data:`Role` (one word
each: ``"stand"`` on the base, ``"stack"`` on a standing stone, ``"gate"`` laid across two
positions), what it rests on, and its exact pose. "Rests on" has one meaning: ``on`` names the
*positions* under the stone, each by its bottom (standing) stone: ``()`` for a standing stone,
``(id,)`` for a stack on the standing stone ``id``, ``(a, b)`` for a gate across the positions whose
bottom stones are ``a`` and ``b`` (counter-clockwise first, as a ``Gate`` action names them). The
stone a gate physically touches is the top of each position (:func:`top_of`), which the table works
out where it judges contact.

Units: metres; poses are ``(x, y, z, qx, qy, qz, qw)`` (:data:`sim.sun.geometry.ring.Pose`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Literal

from sim.sun.geometry.ring import Pose
from sim.sun.geometry.specs import TAU

#: a stone's role on the table: on the base, stacked on a standing stone, a gate across two positions
Role = Literal["stand", "stack", "gate"]
STAND: Role = "stand"
STACK: Role = "stack"
GATE: Role = "gate"

__all__ = ["GATE", "STACK", "STAND", "Role", "Stone", "top_of"]


@dataclass(frozen=True, slots=True)
class Stone:
    """One stone on the table (see the module docstring).

    Attributes:
        id: the stone's id (in a game: its index in the set of stones; on a layout's table: its
            index in the layout file, gates after the stones, new stones counting on).
        shape: its shape's name.
        role: ``"stand"``, ``"stack"`` or ``"gate"``.
        on: the positions it rests on, by their bottom stones (``()``, ``(id,)`` or ``(a, b)``).
        pose: centre of mass (m, world) and orientation (unit quaternion x, y, z, w).
    """

    id: int
    shape: str
    role: Role
    on: tuple[int, ...]
    pose: Pose

    @property
    def pos(self) -> tuple[float, float, float]:
        """Centre of mass (m, world)."""
        p = self.pose
        return (p[0], p[1], p[2])

    @property
    def quat(self) -> tuple[float, float, float, float]:
        """Orientation (x, y, z, w), as PyBullet takes it."""
        p = self.pose
        return (p[3], p[4], p[5], p[6])

    @property
    def angle(self) -> float:
        """Angular position of the centre (rad, [0, 2 pi))."""
        return math.atan2(self.pose[1], self.pose[0]) % TAU

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (``supports``: the ``on`` ids)."""
        return {"stone": self.id, "shape": self.shape, "role": self.role, "supports": list(self.on),
                "angle_deg": math.degrees(self.angle), "pos": list(self.pos), "quat": list(self.quat)}


def top_of(stones: Iterable[Stone], bottom: int) -> int:
    """The id of the highest stone of the position whose bottom stone is ``bottom``: the stone
    stacked on it, if any, else ``bottom`` itself."""
    for s in stones:
        if s.role == STACK and s.on == (bottom,):
            return s.id
    return bottom
