"""A Sun position as data: the stones' roles and poses, what rests on what, the penalties, the markers, the turn.

Each stone (ids 0..N-1: pillars, then blocks, then slabs) has a *role*, one word each: in the
:data:`FIELD`, standing on the base (:data:`STAND`, a ring position), stacked on a standing stone
(:data:`STACK`), laid as a :data:`GATE` across two positions, or :data:`OUT` (a penalty of a seat,
``owner``); the three on the table are the roles of the shared stone record
(:class:`sim.sun.geometry.stone.Stone`, which the rules hand the table). Stones on the table carry
their pose ``(x, y, z, qx, qy, qz, qw)`` (metres, unit quaternion); ``on`` gives the positions a
stone rests on, by their bottom stones, as the record's ``on`` does (``(id,)`` for a stack, ``(a, b)``
for a gate). Markers are angles (rad) on the outer edge. The notation writes each role as one letter
(:data:`NOTATION_LETTER`).

:class:`SunPosition` holds these and nothing derived from them: no ring, no memo. What the rules
derive from a position and keep is ``sim.sun.rules.cache.SunCache``; the rules that read it are
``sim.sun.rules.legality`` and ``sim.sun.rules.stand_angles``, the turns ``sim.sun.rules.state``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.sun.endings import SunEnd
from sim.sun.actions import Gate, Pass, Stack, Stand
from sim.sun.geometry.ring import Pose
from sim.sun.geometry.stone import GATE, STACK, STAND

#: stone roles: in the field, standing on the base, stacked, a gate, a penalty (the three on the
#: table are the words of :data:`sim.sun.geometry.stone.Role`)
FIELD, OUT = "field", "out"
#: the letter the notation stores for each role (``SunState.to_notation``, ``sim.sun.notation``)
NOTATION_LETTER = {FIELD: "F", STAND: "B", STACK: "T", GATE: "G", OUT: "X"}
#: the role of each notation letter
ROLE_OF_LETTER = {v: k for k, v in NOTATION_LETTER.items()}
#: the phases of a turn, in order (``over``: the game has ended)
PHASES = ("draw", "place", "settle", "marker", "pass", "swing", "over")
# why a game ends (:attr:`SunPosition.over`) is a member of :class:`sim.sun.endings.SunEnd`

__all__ = ["FIELD", "GATE", "NOTATION_LETTER", "OUT", "PHASES", "ROLE_OF_LETTER", "STACK", "STAND", "SunPosition"]


@dataclass(slots=True, eq=False)
class SunPosition:
    """The data of a Sun position (see the module docstring); mutated by the turns in place."""

    #: the shape of each stone id (fixed for a game: the set of stones)
    shapes: list[str] = field(default_factory=list)
    role: list[str] = field(default_factory=list)
    on: dict[int, tuple[int, ...]] = field(default_factory=dict)
    pose: dict[int, Pose] = field(default_factory=dict)
    owner: dict[int, int] = field(default_factory=dict)
    markers: list[list[float]] = field(default_factory=list)
    seat: int = 0
    turn: int = 0
    phase: str = "place"
    #: failed placements of the seat in the turn in progress
    attempts: int = 0
    #: the placement or pass awaiting its chance outcome (settle, swing)
    pending: Stand | Stack | Gate | Pass | None = None
    #: the stone drawn (random field) and the stone just placed this turn, -1: none
    drawn: int = -1
    placed: int = -1
    #: per seat: it has had a turn (False: its next turn is free of the marker move)
    played: list[bool] = field(default_factory=list)
    #: per seat: its mark area (gap key) at the start of its turn
    area_before: list[tuple[int, int] | None] = field(default_factory=list)
    #: this turn: the mover's area was impassable at its start / the marker was moved
    forced: bool = False
    moved: bool = False
    #: why the game ended ("" while it goes on)
    over: SunEnd | str = ""

    def copy(self) -> SunPosition:
        """An independent copy (the poses are immutable tuples and are shared)."""
        return SunPosition(
            self.shapes, list(self.role), dict(self.on), dict(self.pose), dict(self.owner),
            [list(m) for m in self.markers], self.seat, self.turn, self.phase, self.attempts, self.pending,
            self.drawn, self.placed, list(self.played), list(self.area_before), self.forced, self.moved, self.over,
        )
