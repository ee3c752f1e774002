"""What a Sun agent remembers of its own failed placements, so that it tries something else.

A placement that does not stand gives the turn back to the same seat (docs/rules-sun.md,
"Placement outcomes": retry, or after ``max_place_attempts`` failures a penalty and choose
again), and the position is then the one before the attempt (the stone went back, or out as a
penalty). A deterministic agent would choose the same placement again: in a Morris study a
careful seat stood a pillar at 177.08 deg sixteen times in one turn (every pillar, then every slab
at 178.95 deg) until the field was empty, because the rules' ring model saw a 4 mm clearance
where the physics had a stack top overhanging the neighbour (the rules now see the stones'
real footprints: ``sim.sun.geometry.ring.footprint``). No person retries one failing spot
sixteen times: after a failure a person puts the stone somewhere else, takes another shape or
stacks. :class:`Tries` is that memory: the placements a seat made in the turn in progress, all of
which failed while the seat is still placing. :func:`avoid` keeps the candidates that overlap
the fewest of them (none, whenever the legal set allows).

"Overlap" (:func:`near`): a stand whose footprint on the ring (its width, as an angle at the
ring radius) overlaps a failed stand's; a stack on the stone a failed stack was set on; a gate
on the supports of a failed gate. A stack on the same stone and a stand beside it are different
spots: the one may stand where the other fell.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from sim.sun.actions import Gate, Stack, Stand
from sim.sun.rules.state import SunState
from sim.sun.geometry.specs import TAU


class Tries:
    """The placements one seat made in the turn in progress (one game: an agent is made per game).

    Call :meth:`start` when the seat is asked for a placement and :meth:`note` with the one it
    chose; :meth:`failed` then gives the ones that did not stand. A success leaves the placement
    step, so while the same seat is placing in the same turn, the state's failed-attempt counter
    (``attempts``) says how many of the last ones failed.
    """

    def __init__(self) -> None:
        self._turn: tuple[int, int] | None = None
        self._made: list[Any] = []

    def start(self, st: SunState) -> None:
        """Begin a placement decision on ``st`` (a new turn's first attempt forgets the last turn's)."""
        key = (st.turn, st.seat)
        if st.attempts == 0 or key != self._turn:
            self._turn, self._made = key, []

    def note(self, a: Any) -> None:
        """Remember placement ``a``, the one chosen after :meth:`start`."""
        self._made.append(a)

    def failed(self, st: SunState) -> list[Any]:
        """The seat's placements of ``st``'s turn that failed (empty on another turn or seat)."""
        if self._turn != (st.turn, st.seat) or st.attempts <= 0 or not self._made:
            return []
        return self._made[-st.attempts:]


def near(st: SunState, a: Any, b: Any) -> bool:
    """Whether placement ``a`` would go where placement ``b`` went (see the module docstring)."""
    if isinstance(a, Stand) and isinstance(b, Stand):
        g = st.geom
        half = 0.5 * (g.shapes[a.shape].width + g.shapes[b.shape].width) / g.table.ring_radius  # rad
        d = abs((math.radians(a.angle - b.angle) + math.pi) % TAU - math.pi)
        return d < half
    if isinstance(a, Stack) and isinstance(b, Stack):
        return a.on == b.on
    if isinstance(a, Gate) and isinstance(b, Gate):
        return {a.a, a.b} == {b.a, b.b}
    return False


def avoid(st: SunState, cands: Sequence[Any], failed: Sequence[Any]) -> list[Any]:
    """The candidates that overlap the fewest ``failed`` placements, in their order (all of them
    when nothing failed; when every candidate overlaps one, those that overlap the fewest)."""
    if not failed or not cands:
        return list(cands)
    hits = [sum(1 for b in failed if near(st, a, b)) for a in cands]
    least = min(hits)
    return [a for a, h in zip(cands, hits) if h == least]
