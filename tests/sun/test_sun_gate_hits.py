"""A stacked stone's gate checks reuse the hits found for the supports as they stand (sim/sun/rules/legality.py).

``gate_geometry_problem`` finds which positions a lintel hits once per shape and supports on a
position, and a gate taking a stacked stone whose base is neither support reads them, with only
that base taken as it stands once the stone is gone (``position_without``). Here, at every
placement of random games, every such check is compared with ``gate_hits`` run in full on the
ring with that stone taken (the first position hit, in ring order, or a gate hit).
"""

from __future__ import annotations

import numpy as np

import sim.sun.rules.legality as legality
from sim.core.play import play_random
from sim.sun.game import GAME
from sim.sun.position import STACK
from sim.sun.rules.context import RulesContext
from sim.sun.rules.state import SunState


def test_a_stacked_stones_gate_hits_are_those_of_a_full_scan(monkeypatch: object) -> None:
    checked = {"hits": 0, "all": 0}
    plain = legality.gate_geometry_problem

    def compared(ctx: RulesContext, st: int, ida: int, idb: int, facts: legality.PlaceFacts,
                 supports: tuple[legality.Pos, legality.Pos] | None = None) -> str | None:
        why = plain(ctx, st, ida, idb, facts, supports)
        if ctx.position.role[st] != STACK:
            return why
        ring = facts.ring
        pa, pb = supports if supports is not None else (
            legality.position_without(ctx, ring.pos[ring.index[ida]], st),
            legality.position_without(ctx, ring.pos[ring.index[idb]], st))
        span = ctx.cache.gate_span_memo.get((ctx.position.shapes[st], pa.id, pb.id))
        if span is None or span[2] is not None:
            return why  # refused before the lintel's hits are looked at
        s = ctx.geom.shapes[ctx.position.shapes[st]]
        ids, hits_gate = legality.gate_hits(ctx, ring, pa, pb, st, span[3], span[4], min(pa.top_z, pb.top_z), s,
                                            facts, first_only=True)
        expected = f"the gate would hit #{ids[0]}" if ids else "the gate would hit another gate" if hits_gate else None
        checked["all"] += 1
        if expected is not None or (why or "").startswith("the gate would hit"):
            checked["hits"] += 1
            assert why == expected, (st, ida, idb, why, expected)
        return why

    monkeypatch.setattr(legality, "gate_geometry_problem", compared)  # type: ignore[attr-defined]
    for seed in range(40):
        play_random(GAME, None, np.random.default_rng(seed), state=SunState.new(2), leads=False)
    assert checked["hits"] >= 100, checked  # the comparison met many lintels that hit something
