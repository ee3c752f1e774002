"""The gate candidates are exactly the legal gates, at every placement of random games (sim/sun/rules/legality.py).

``gate_candidates`` decides a gate taking a stone on the base once per shape and pair of supports
(``_fit_verdict``: the span, the positions the lintel hits, the mover's areas with the gate) and
only the stone-dependent rest per stone; a stacked stone's gates go through the full check. Here
every gate the rules could name (each stone on the base or stacked, over every ordered pair of
positions) is put to ``check_gate`` with facts made afresh, and the candidate list must hold the
accepted ones, each once: a candidate the check refuses (a stale one kept) or a legal gate missing
(one dropped) fails.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sun_variants import variant_state

from sim.core.play import play_random
from sim.sun.actions import Gate
from sim.sun.game import GAME
from sim.sun.position import STACK, STAND
from sim.sun.rules.legality import check_gate, gate_candidates, place_facts
from sim.sun.rules.state import SunState


def _legal_gates(s: SunState) -> set[Gate]:
    """Every gate ``check_gate`` accepts now, with fresh facts (no candidate list asked before)."""
    ids = [p.id for p in s.ring().pos]
    out = set()
    for stone, role in enumerate(s.role):
        if role not in (STAND, STACK):
            continue
        for a in ids:
            for b in ids:
                gate = Gate(stone, a, b)
                if check_gate(s.ctx, gate, place_facts(s.ctx)) is None:
                    out.add(gate)
    return out


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=100_000))
def test_gate_candidates_are_the_legal_gates(seed: int) -> None:
    seen = {"positions": 0, "gates": 0}

    def visit(s: SunState, _step: int) -> None:
        if s.phase != "place" or s.is_terminal() or s.ring().n < 3:
            return
        made = gate_candidates(s.ctx, s.ring(), place_facts(s.ctx))
        assert len(set(made)) == len(made), s.to_notation()  # no gate twice
        assert set(made) == _legal_gates(s), s.to_notation()
        seen["positions"] += 1
        seen["gates"] += len(made)

    try:
        play_random(GAME, None, np.random.default_rng(seed), state=variant_state(seed), leads=False, before_step=visit)
    except ValueError as e:  # orbit mode can leave a seat without a legal pass (a known gap in the rules)
        if "no legal action" not in str(e):
            raise
    assert seen["positions"] >= 1


def test_gate_candidates_met_many_gates() -> None:
    # the property above is not vacuous: over a few standard two-player games, the candidate
    # lists hold many gates, of stones on the base and of stacked ones
    kinds = {STAND: 0, STACK: 0}

    def visit(s: SunState, _step: int) -> None:
        if s.phase == "place" and not s.is_terminal() and s.ring().n >= 3:
            made = gate_candidates(s.ctx, s.ring(), place_facts(s.ctx))
            assert set(made) == _legal_gates(s), s.to_notation()
            for g in made:
                kinds[s.role[g.stone]] += 1

    for seed in range(4):
        play_random(GAME, None, np.random.default_rng(seed), state=SunState.new(2), leads=False, before_step=visit)
    assert kinds[STAND] >= 50 and kinds[STACK] >= 10, kinds
