"""What every Sun agent of :mod:`sim.sun.agents.policies` shares: the memo of one placement decision
(:class:`_Turn`: every value that depends only on the position, not on the candidate, computed
once), the memory of the turn's failed placements (:class:`sim.sun.agents.memory.Tries`) and the
opponents' clipped pass clearance the aggressive agent weighs.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import numpy as np

from sim.core.game import Game, GameConfig
from sim.sun.actions import Stack, Stand
from sim.sun.geometry.ring import Pos, Ring
from sim.sun.rules.state import SunState
from sim.sun.agents.measures import (
                                     ROOM_WEIGHT,
                                     Preview,
                                     PreviewFacts,
                                     bump_chance,
                                     bump_of,
                                     forget_ring_memos,
                                     prefetch_rings,
                                     preview_facts,
                                     previews,
                                     room_bonus,
                                     seat_clearance,
                                     stand_sides,
                                     )
from sim.sun.agents.memory import Tries, avoid

#: An opponent's pass clearance counts between -OPP_FLOOR and OPP_CAP (m) for the aggressive agent
#: (sim.sun.agents.policies): more than 15 mm of clearance counts as 15 mm, more than 5 mm short as 5 mm short.
OPP_CAP = 0.015
OPP_FLOOR = 0.005


@dataclass
class _Turn:
    """What one placement decision on state ``st`` computes once and every candidate's score reads
    (the state does not change while its candidates are ranked): the same numbers as computing
    them afresh for each candidate, only fewer times."""

    st: SunState
    #: by ``id`` of a stand action (kept with it, so the id cannot be reused: hashing the frozen
    #: action dataclasses cost more than the lookups save): the action and (gap index, new
    #: position, clear widths to both neighbours)
    sides: dict[int, tuple[Any, tuple[int, Pos, tuple[float, float]]]] = field(default_factory=dict)
    #: by ``id`` of an action: the action and its bump chance
    bump: dict[int, tuple[Any, float]] = field(default_factory=dict)
    #: narrowest shape left in the field (m); None until asked, nan with none left
    min_width: float | None = None
    #: best_aim(st, 9) clearance of the mover, and the opponents' clipped clearance sum by seat
    aim9: float | None = None
    opp: dict[int, float] = field(default_factory=dict)
    #: per opponent marker: (seat, marker index, marker angle, its gap on st's ring or None)
    opp_gaps: list[tuple[int, int, float, int | None]] | None = None
    #: by ``id`` of a placement: the placement and its :func:`previews`
    previews: dict[int, tuple[Any, list[Preview] | None]] = field(default_factory=dict)
    #: what :func:`previews` reads of ``st`` for every placement; None until asked
    facts: PreviewFacts | None = None


class AgentBase:
    """The seat, its random stream and the game's config; the per-decision memo and the memory of
    the turn's failed placements that the Sun agents share."""

    def __init__(self, *, game: Game, seat: int, rng: np.random.Generator, config: GameConfig, **_: Any) -> None:
        self.game = game
        self.seat = seat
        self.rng = rng
        self.config = config
        self._turn: _Turn | None = None
        #: this turn's placements, so that one that failed is not simply made again (sim.sun.agents.memory)
        self.tries = Tries()

    def _untried(self, st: SunState, cands: Sequence[Any]) -> list[Any]:
        """``cands`` without the spots of this turn's failed placements (:func:`sim.sun.agents.memory.avoid`)."""
        return avoid(st, cands, self.tries.failed(st))

    @contextmanager
    def _deciding(self, st: SunState) -> Iterator[None]:
        """Memoise the per-state values of one placement decision on ``st`` (re-entrant)."""
        prev = self._turn
        self._turn = _Turn(st)
        try:
            yield
        finally:
            self._turn = prev
            if prev is None:  # the outermost decision: its preview rings' memos are done with
                forget_ring_memos()

    def _memo(self, st: SunState) -> _Turn | None:
        t = self._turn
        return t if t is not None and t.st is st else None

    @staticmethod
    def _by_action(table: dict[int, tuple[Any, Any]] | None, a: Any, compute: Any) -> Any:
        """``compute()``, kept in ``table`` (a :class:`_Turn` memo by ``id`` of ``a``) when given."""
        if table is None:
            return compute()
        e = table.get(id(a))
        if e is not None and e[0] is a:
            return e[1]
        v = compute()
        table[id(a)] = (a, v)
        return v

    def _sides(self, st: SunState, ring: Ring, a: Stand) -> tuple[int, Pos, tuple[float, float]]:
        t = self._memo(st)
        return self._by_action(t.sides if t is not None else None, a, lambda: stand_sides(st, ring, a))

    def _bump(self, st: SunState, a: Any) -> float:
        """:func:`bump_chance`, once per action within a decision."""
        t = self._memo(st)
        if t is None:
            return bump_chance(st, a)
        e = t.bump.get(id(a))
        if e is not None and e[0] is a:
            return e[1]
        if not isinstance(a, Stand) or st.ring().empty:
            v = 0.0
        else:
            v = bump_of(st, self._sides(st, st.ring(), a)[2])
        t.bump[id(a)] = (a, v)
        return v

    def _room(self, st: SunState, a: Any) -> float:
        """:func:`room_bonus`, with the narrowest field shape found once per decision."""
        t = self._memo(st)
        if t is None:
            return room_bonus(st, a)
        if not isinstance(a, (Stand, Stack)):
            return 0.0
        if t.min_width is None:
            widths = [st.geom.shapes[sh].width for sh in st.available_shapes()]
            t.min_width = min(widths) if widths else math.nan
        if math.isnan(t.min_width):
            return 0.0
        return ROOM_WEIGHT * (st.geom.shapes[a.shape].width - t.min_width)

    def _aim9(self, st: SunState) -> float:
        """best_aim(st, 9)'s clearance (m), once per decision."""
        t = self._memo(st)
        if t is None:
            return seat_clearance(st, 9)
        if t.aim9 is None:
            t.aim9 = seat_clearance(st, 9)
        return t.aim9

    def _opp_clear(self, st: SunState, seat: int) -> float:
        """:func:`opponents_clearance`, once per decision."""
        t = self._memo(st)
        if t is None:
            return opponents_clearance(st, seat)
        v = t.opp.get(seat)
        if v is None:
            v = t.opp[seat] = opponents_clearance(st, seat)
        return v

    def _opp_gaps(self, st: SunState) -> list[tuple[int, int, float, int | None]]:
        """Every opponent marker (seat, index, angle) with the gap it lies in on ``st``'s ring."""
        t = self._memo(st)
        if t is not None and t.opp_gaps is not None:
            return t.opp_gaps
        ring = st.ring()
        out = [(o, k, m, ring.gap_of_angle(m)) for o, ms in enumerate(st.markers) if o != st.seat
               for k, m in enumerate(ms)]
        if t is not None:
            t.opp_gaps = out
        return out

    def _previews(self, st: SunState, a: Any) -> list[Preview] | None:
        """:func:`previews` of placement ``a``, once per decision."""
        t = self._memo(st)
        if t is None:
            return previews(st, a)
        if t.facts is None:
            t.facts = preview_facts(st)
        facts = t.facts
        return self._by_action(t.previews, a, lambda: previews(st, a, facts))

    def _prefetch(self, st: SunState, cands: Sequence[Any], opponents: bool) -> None:
        """The previews of every candidate, and the mark areas their scores read (the mover's
        with 21 aims, with ``opponents`` also the others' with 9) in one vectorised pass over all
        their rings (:func:`prefetch_rings`: the same numbers as one call each)."""
        jobs = []
        for a in cands:
            pvs = self._previews(st, a)
            if pvs:
                wants = [(pv.markers[st.seat][0], 21) for pv in pvs]
                if opponents:
                    wants += [(pv.markers[o][0], 9) for pv in pvs for o in range(st.num_players) if o != st.seat]
                jobs.append((pvs[0].ring, wants))
        if opponents and jobs and st.rules.mode == "standard":
            # and the opponents' clearance on the decision's ring (opponents_clearance)
            jobs.append((st.ring(), [(st.markers[o][0], 9) for o in range(st.num_players) if o != st.seat]))
        prefetch_rings(st.geom, jobs, base=st.ring())

    @staticmethod
    def _state(observation: Any) -> SunState:
        st = getattr(observation, "state", None)
        if st is None:
            raise ValueError("the sun agents need a SunObservation")
        return st


def opponents_clearance(st: SunState, seat: int) -> float:
    """Sum over ``seat``'s opponents of their best pass clearance on ``st``'s ring (m), each
    clipped to [-OPP_FLOOR, OPP_CAP]: how easy the opponents' next passes are."""
    total = 0.0
    for o in range(st.num_players):
        if o != seat:  # (seat_clearance: best_aim's, a decision's prefetch may have computed it)
            total += min(OPP_CAP, max(-OPP_FLOOR, seat_clearance(st, 9, seat=o)))
    return total
