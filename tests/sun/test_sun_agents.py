"""The Sun agents' shortcuts give the very numbers of scoring every candidate afresh: the
per-decision memo (bump chance, room bonus, clearances, a stand's gap widths), the per-ring cache
of mark-area clearances and passable gaps, and the mark areas of a placement's previews computed
in one vectorised call (sim/sun/agents.py, sim/sun/scoring.py). A game's decisions must not depend on them."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np
import pytest

from sim.core.game import CHANCE, GameConfig
from sim.core.play import play
from sim.sun import agents as A
from sim.sun import rules as R
from sim.sun import scoring as S
from sim.sun.thrower import SKILLS

G = R.Geometry()
CFG = GameConfig(num_players=2, seats=({"agent": "careful"}, {"agent": "aggressive"}))


def _agent(name: str, seat: int) -> Any:
    from sim.sun.game import GAME

    return A.AGENTS[name].factory(game=GAME, seat=seat, rng=np.random.default_rng(seat), config=CFG)


def _placement_positions(rules: dict[str, Any] | None, seed: int, keep: int) -> list[R.SunState]:
    """Copies of the placement positions (after the first turns) of a careful-vs-aggressive game on
    the scripted table with casual hands (so that the bump chance is neither 0 nor 1)."""
    from sim.sun.game import GAME

    s = R.SunState.new(2, rules, table=R.ScriptedTable(G), throwers=[SKILLS["casual"]] * 2)
    out: list[R.SunState] = []

    def keep_placement(st: R.SunState, _step: int) -> None:
        if not st.is_terminal() and st.current_player() != CHANCE and st.phase == "place" and not st._first_turn():
            out.append(st.clone())

    play(GAME, CFG, [_agent("careful", 0), _agent("aggressive", 1)], np.random.default_rng(seed), state=s,
         before_step=keep_placement, until=lambda _st: len(out) >= keep, leads=False)
    return out


@contextmanager
def _no_shortcuts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every candidate scored afresh: no per-decision memo, no ring cache, no batched areas."""

    @contextmanager
    def no_memo(self: Any, st: R.SunState) -> Iterator[None]:
        yield

    with monkeypatch.context() as m:
        m.setattr(A._Base, "_deciding", no_memo)
        m.setattr(S, "ring_memo", lambda ring, g: S.RingMemo(ring, g))
        m.setattr(A, "prefetch_areas", lambda ring, g, wants: None)
        yield


@pytest.mark.parametrize("rules", [None, {"mode": "orbit"}])
def test_rankings_with_the_shortcuts_equal_scoring_each_candidate_afresh(
        rules: dict[str, Any] | None, monkeypatch: pytest.MonkeyPatch) -> None:
    positions = _placement_positions(rules, seed=4, keep=8 if rules is None else 4)
    assert len(positions) >= 4
    for st in positions:
        legal = st.legal_actions()
        for name in ("careful", "aggressive"):
            fast = _agent(name, st.seat).rank_placements(st, legal)
            with _no_shortcuts(monkeypatch):
                slow = _agent(name, st.seat).rank_placements(st, legal)
            assert fast == slow  # scores compared exactly, actions and their order too
            assert fast[0][0] > -1.0  # a real ranking, not a list of -inf


def test_batched_mark_areas_equal_one_call_each() -> None:
    positions = _placement_positions(None, seed=5, keep=6)
    checked = 0
    for st in positions:
        for a in st.legal_actions()[:12]:
            pvs = S.previews(st, a)
            if not pvs:
                continue
            ring = pvs[0].ring
            wants = [(pv.markers[o][0], n) for pv in pvs for o in range(2) for n in (9, 21)]
            S._RING_MEMOS.clear()
            single = [S.area_clear(ring, st.geom, m, n) for m, n in wants]
            S._RING_MEMOS.clear()
            S.prefetch_areas(ring, st.geom, wants)
            batched = [S.area_clear(ring, st.geom, m, n) for m, n in wants]
            assert batched == single
            checked += 1
    assert checked >= 20
