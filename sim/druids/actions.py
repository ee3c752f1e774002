"""Knizia's *Stonehenge*: the one action, :class:`Place`, and its interned instances (the legal
rows per hand code that ``legal_actions`` concatenates). No state, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.druids.geometry import NUM_POINTS, POINT_NAMES
from sim.druids.pieces import HAND_VALUES, MAX_VALUE, NUM_HAND_CODES


@dataclass(frozen=True, slots=True)
class Place:
    """Place the mover's stone of ``value`` (1..6) on empty ``point`` (0..17, letters a..r)."""

    point: int
    value: int

    def __post_init__(self) -> None:
        if type(self.point) is not int or type(self.value) is not int:
            raise TypeError(f"Place needs int point and value, got {self.point!r}, {self.value!r}")

    def __str__(self) -> str:
        name = POINT_NAMES[self.point] if 0 <= self.point < NUM_POINTS else f"#{self.point}"
        return f"Place({name}={self.value})"


#: ACTIONS[point][value], shared instances so legal_actions allocates no actions
ACTIONS: tuple[tuple[Place, ...], ...] = tuple(
    tuple(Place(p, v) for v in range(MAX_VALUE + 1)) for p in range(NUM_POINTS)
)

#: LEGAL_ROWS[hand code][point]: the Place actions of that point for the distinct values held
LEGAL_ROWS: tuple[tuple[tuple[Place, ...], ...], ...] = tuple(
    tuple(tuple(ACTIONS[p][v] for v in HAND_VALUES[code]) for p in range(NUM_POINTS))
    for code in range(NUM_HAND_CODES)
)
