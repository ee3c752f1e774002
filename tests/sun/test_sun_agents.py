"""The Sun agents' shortcuts give the very numbers of scoring every candidate afresh: the
per-decision memo (bump chance, room bonus, clearances, a stand's gap widths, previews), the
batched quick scores (plain floats, :class:`~sim.sun.agents.measures.QuickRing`), the per-ring cache of
mark-area clearances and passable gaps, and the mark areas of all of a decision's previews computed
in one vectorised call (sim/sun/agents/policies.py, sim/sun/agents/measures.py). A game's decisions must not depend on them."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np
import pytest

from sim.core.game import CHANCE, GameConfig
from sim.core.play import play
from sim.sun.agents import base as agent_base
from sim.sun.agents import policies as A
from sim.sun.agents import measures as S
from sim.sun.actions import Gate, Stack, Stand
from sim.sun.physics import ScriptedTable
from sim.sun.geometry.ring import Geometry, Pos, Ring
from sim.sun.rules.state import SunState
from sim.sun.geometry.specs import TAU
from sim.sun.players.thrower import SKILLS

G = Geometry()
CFG = GameConfig(num_players=2, seats=({"agent": "careful"}, {"agent": "aggressive"}))


def _agent(name: str, seat: int) -> Any:
    from sim.sun.game import GAME

    return A.AGENTS[name].factory(game=GAME, seat=seat, rng=np.random.default_rng(seat), config=CFG)


def _placement_positions(rules: dict[str, Any] | None, seed: int, keep: int) -> list[SunState]:
    """Copies of the placement positions (after the first turns) of a careful-vs-aggressive game on
    the scripted table with casual hands (so that the bump chance is neither 0 nor 1)."""
    from sim.sun.game import GAME

    s = SunState.new(2, rules, table=ScriptedTable(G), throwers=[SKILLS["casual"]] * 2)
    out: list[SunState] = []

    def keep_placement(st: SunState, _step: int) -> None:
        if not st.is_terminal() and st.current_player() != CHANCE and st.phase == "place" and not st.is_free_turn():
            out.append(st.clone())

    play(GAME, CFG, [_agent("careful", 0), _agent("aggressive", 1)], np.random.default_rng(seed), state=s,
         before_step=keep_placement, until=lambda _st: len(out) >= keep, leads=False)
    return out


@contextmanager
def _no_shortcuts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every candidate scored afresh: no per-decision memo, no ring cache, no batched areas."""

    @contextmanager
    def no_memo(self: Any, st: SunState) -> Iterator[None]:
        yield

    def one_by_one(self: Any, st: SunState, cands: Any) -> list[float]:
        return [self.quick_score(st, a) for a in cands]

    with monkeypatch.context() as m:
        m.setattr(A.AgentBase, "_deciding", no_memo)
        m.setattr(A.CarefulAgent, "quick_scores", one_by_one)
        m.setattr(A.AggressiveAgent, "quick_scores", one_by_one)
        m.setattr(S, "ring_memo", lambda ring, g: S.RingMemo(ring, g))
        m.setattr(A, "prefetch_areas", lambda ring, g, wants: None)
        m.setattr(agent_base, "prefetch_rings", lambda g, jobs, base=None: None)
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


@pytest.mark.parametrize("rules", [None, {"mode": "orbit"}, {"field": "random"}])
def test_batched_quick_scores_equal_one_candidate_at_a_time(rules: dict[str, Any] | None) -> None:
    positions = _placement_positions(rules, seed=6, keep=12)
    kinds: set[str] = set()
    for st in positions:
        legal = st.legal_actions()
        kinds |= {type(a).__name__ for a in legal}
        for name in ("careful", "aggressive", "planner"):
            ag = _agent(name, st.seat)
            batched = ag.quick_scores(st, legal)
            assert batched == [ag.quick_score(st, a) for a in legal]  # exactly, not approximately
    assert {"Stand", "Stack"} <= kinds


def test_quick_scores_kept_in_gap_memos_from_earlier_turns_are_the_same_numbers() -> None:
    """A stand's widths and bump chance, and the far crossings, are kept in the memo of the gap
    (of its two positions): a later position whose ring kept the gap reads them, and the scores
    equal scoring each candidate afresh."""
    positions = _placement_positions(None, seed=6, keep=12)
    found = 0
    for st in positions:
        ring, legal = st.ring(), st.legal_actions()
        stands = [a for a in legal if isinstance(a, Stand)]
        # kept there by the scoring of this ring or an earlier one that shared the gap (the game's agents)
        found += sum(1 for memo in ring.memo for k in memo if isinstance(k, tuple) and k[:1] == ("agents.stand",))
        ag = _agent("careful", st.seat)
        assert ag.quick_scores(st, stands) == [ag.quick_score(st, a) for a in stands]
    assert found > 0


def test_seat_clearance_is_best_aims_clearance() -> None:
    """seat_clearance (in standard mode a mark area's area_clear, which a decision's prefetch may
    have computed) equals best_aim's clearance for every seat and sample count, exactly, on
    empty, crowded and random-field rings, and with the areas batched first."""
    positions = (_placement_positions(None, seed=5, keep=10) + _placement_positions({"field": "random"}, seed=2, keep=6)
                 + [SunState.new(2, None, table=ScriptedTable(G))])
    for st in positions:
        for seat in range(st.num_players):
            for n in (9, 21):
                S._RING_MEMOS.clear()
                want = S.best_aim(st, n, seat=seat)[0]
                assert S.seat_clearance(st, n, seat=seat) == want
                S._RING_MEMOS.clear()
                S.prefetch_areas(st.ring(), st.geom, [(st.markers[o][0], n) for o in range(st.num_players)])
                assert S.seat_clearance(st, n, seat=seat) == want
    assert any(st.ring().empty for st in positions) and any(st.ring().n >= 4 for st in positions)


def test_free_gaps_of_a_ring_counts_what_free_gaps_counts() -> None:
    """free_gaps_of (the previews' count, as the passable gaps less the other seats' areas) equals
    free_gaps (gap by gap) on every placement position, and on the state after each marker move."""
    checked = 0
    for st in _placement_positions(None, seed=5, keep=14) + _placement_positions({"field": "random"}, seed=2, keep=6):
        S._RING_MEMOS.clear()
        assert S.free_gaps_of(st.ring(), st.geom, st.markers, st.seat) == S.free_gaps(st)
        for seat in range(st.num_players):
            c = st.clone()
            c.position.seat = seat
            assert S.free_gaps_of(c.ring(), c.geom, c.markers, seat) == S.free_gaps(c)
            checked += 1
    assert checked >= 30


def test_quick_ring_equals_the_ring_and_stand_sides() -> None:
    rng = np.random.default_rng(3)
    checked = 0
    for st in _placement_positions(None, seed=7, keep=10):
        ring, qr = st.ring(), S.QuickRing(st)
        for a in st.legal_actions():
            if isinstance(a, Stand):
                i, new, widths = S.stand_sides(st, ring, a)
                assert qr.stand(a.angle, st.geom.shapes[a.shape]) == (i, new.angle, *widths)
                assert qr.bump(*widths) == S.bump_of(st, widths)
                checked += 1
        for x in rng.uniform(-1.0, 8.0, 200):
            assert qr.clearance_at(float(x)) == ring.clearance_at(float(x), st.geom)
    assert checked >= 50


def test_mark_areas_of_many_rings_in_one_pass_equal_one_call_each() -> None:
    """prefetch_rings' numbers are area_clear's own: each ring on its own, and (with the
    decision's ring as ``base``) the rings previews spliced from it through base's rows and search."""
    positions = _placement_positions(None, seed=5, keep=14) + _placement_positions({"field": "random"}, seed=2, keep=6)
    checked = spliced = others = 0

    def jobs_of(st: SunState) -> list[tuple[Ring, list[tuple[float, int]]]]:
        jobs = []
        legal = st.legal_actions()
        # stands (spliced: one position more), stacks (spliced: one grown) and gates (their own rows)
        for a in ([a for a in legal if isinstance(a, Stand)][:10] + [a for a in legal if isinstance(a, Stack)][:4]
                  + [a for a in legal if isinstance(a, Gate)][:4]):
            pvs = S.previews(st, a)
            if pvs:
                jobs.append((pvs[0].ring, [(pv.markers[o][0], n) for pv in pvs for o in range(2) for n in (9, 21)]))
        return jobs

    for st in positions:
        S._RING_MEMOS.clear()
        jobs = jobs_of(st)
        single = [[S.area_clear(ring, st.geom, m, n) for m, n in wants] for ring, wants in jobs]
        for base in (None, st.ring()):
            S._RING_MEMOS.clear()
            jobs = jobs_of(st)  # fresh rings (previews notes how it spliced them in their memos)
            if base is not None:
                spliced += sum(S.ring_memo(ring, st.geom).splice is not None for ring, _ in jobs)
                others += sum(S.ring_memo(ring, st.geom).splice is None for ring, _ in jobs)
            S.prefetch_rings(st.geom, jobs, base=base)
            assert all(S.ring_memo(ring, st.geom).area for ring, _ in jobs)  # computed by the one pass
            batched = [[S.area_clear(ring, st.geom, m, n) for m, n in wants] for ring, wants in jobs]
            assert batched == single
        checked += len(jobs)
    assert checked >= 20 and spliced >= 20 and others >= 5


def test_ring_plus_is_the_ring_that_ring_with_builds() -> None:
    checked = 0
    for st in _placement_positions(None, seed=8, keep=10) + _placement_positions({"field": "random"}, seed=2, keep=6):
        ring, g = st.ring(), st.geom
        stands = [a for a in st.legal_actions() if isinstance(a, Stand)]
        # every legal stand, and angles right at the ring's start and end (the wrap-around cases)
        for a in stands + [Stand(stands[0].shape, x) for x in (0.0, 1e-9, 359.999999)] if stands else []:
            sh = g.shapes[a.shape]
            new = Pos(st.stone_for(a.shape), np.radians(a.angle) % TAU, g.table.ring_radius,
                        sh.width, sh.depth, sh.height)
            fast, slow = ring.plus(new), st.ring_with(new_pos=new)
            for name in Ring.__slots__:
                assert getattr(fast, name) == getattr(slow, name), name
            # the gaps that did not change share their memo with this ring, as __init__'s reuse does
            shared = {id(m): i for i, m in enumerate(ring.memo)}
            assert [shared.get(id(m)) for m in fast.memo] == [shared.get(id(m)) for m in slow.memo]
            assert sum(id(m) not in shared for m in fast.memo) == 2
            checked += 1
    assert checked >= 100


def test_stack_preview_ring_is_the_ring_that_ring_with_builds() -> None:
    """previews() builds a stack's ring with Ring.replaced: the very ring ring_with builds."""
    checked = 0
    for st in _placement_positions(None, seed=8, keep=10) + _placement_positions({"field": "random"}, seed=2, keep=6):
        ring = st.ring()
        for a in st.legal_actions():
            if not isinstance(a, Stack) or ring.n < 2:
                continue
            pvs = S.previews(st, a)
            assert pvs
            grown = pvs[0].ring.pos[pvs[0].ring.index[a.on]]
            slow = st.ring_with(new_pos=grown)
            for name in Ring.__slots__:
                if name not in ("memo", "_gap_of", "_nearest", "_arrays"):  # the caches
                    assert getattr(pvs[0].ring, name) == getattr(slow, name), name
            shared = {id(m): i for i, m in enumerate(ring.memo)}
            assert [shared.get(id(m)) for m in pvs[0].ring.memo] == [shared.get(id(m)) for m in slow.memo]
            checked += 1
    assert checked >= 20
