"""The rules' fast paths against the straightforward computation, on positions from random games.

The state keeps results between turns (rings that copy the gaps between unmoved positions, stand
pieces and stack verdicts memoised per gap, positions and bodies reused while their poses are the
same) and takes local shortcuts (a gate's effect on the mover's areas read off the current ring).
None of this may change a legal action: a state rebuilt from its notation has none of those
memos, and must offer the very same actions, intervals and samples; a ring built with reuse must
equal one built from scratch; the gate shortcut must agree with the ring built after the gate.
"""

from __future__ import annotations

import gc
import math
import operator
from typing import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hst
from sun_variants import variant_state

from sim.core.play import play_random
from sim.sun.actions import Gate
from sim.sun.game import GAME
from sim.sun.rules.legality import check_gate, gate_candidates, own_areas_ok, pass_candidates, place_facts
from sim.sun.position import STACK, STAND
from sim.sun.physics import ScriptedTable
from sim.sun.geometry.ring import Geometry, Ring
from sim.sun.notation import parse_notation
from sim.sun.rules.state import SunState
from sim.sun.geometry.specs import TAU
from sim.sun.rules.stand_angles import stand_check_at, stand_facts_of, stand_piece_certain

G = Geometry()


def _each_position(n_games: int, seed0: int, visit: Callable[[SunState], None]) -> None:
    """Call ``visit`` on the place-phase states of random games over the rule variants (2-4 players,
    standard and orbit mode, open and random field, both marker_change readings), played by the
    shared loop: the live state each time, so its memos are warm from the game so far."""
    for seed in range(seed0, seed0 + n_games):
        s = variant_state(seed)
        try:
            play_random(GAME, None, np.random.default_rng(seed), state=s, leads=False,
                        before_step=lambda st, _step: visit(st) if st.phase == "place" and not st.is_terminal() else None)
        except ValueError as e:  # orbit mode can leave a seat without a legal pass (a known gap in the rules)
            if "no legal action" not in str(e):
                raise


def _each_step(seed0: int, seed1: int, visit: Callable[[SunState, int], None]) -> None:
    """Call ``visit`` before every step (chance ones included) of random games ``seed0..seed1 - 1``
    over the rule variants, as :func:`_each_position` plays them."""
    for seed in range(seed0, seed1):
        try:
            play_random(GAME, None, np.random.default_rng(seed), state=variant_state(seed), leads=False,
                        before_step=visit)
        except ValueError as e:  # as _each_position: orbit mode can leave a seat without a legal pass
            if "no legal action" not in str(e):
                raise


def _cold(s: SunState) -> SunState:
    """``s`` rebuilt from its notation: a new state whose only earlier ring is the empty one (no
    gap to reuse), with empty memos."""
    def build(n, rules, sections, seats):
        return SunState.new(n, rules, table=ScriptedTable(G), sections=sections, seat_cfg=seats)

    return parse_notation(s.to_notation(), build=build)


def _ring_fields(ring: Ring) -> tuple:
    return (ring.pos, ring.angles, ring.n, ring.start, ring.end, ring.width, ring.under, ring.keys, ring.index,
            ring.lintels)


def test_memoised_state_offers_what_a_cold_copy_computes() -> None:
    checked = 0

    def visit(s: SunState) -> None:
        nonlocal checked
        cold = _cold(s)
        assert s.legal_actions() == cold.legal_actions(), s.to_notation()
        for shape in G.shapes:
            assert s.stand_intervals(shape) == cold.stand_intervals(shape), (s.to_notation(), shape)
            assert s.stand_samples(shape) == cold.stand_samples(shape), (s.to_notation(), shape)
        checked += 1

    _each_position(24, 300, visit)
    assert checked >= 200


def test_a_ring_built_with_reuse_equals_one_built_from_scratch() -> None:
    rings = swaps = 0

    def visit(s: SunState) -> None:
        nonlocal rings, swaps
        ring = s.ring()
        gates = {k: u for k, u in zip(ring.keys, ring.under) if u is not None}
        fresh = Ring(list(ring.pos), gates, ring.lintels)
        assert _ring_fields(ring) == _ring_fields(fresh)
        # and a ring one stone away (the stone of each position in turn taken away) built both ways
        for p in ring.pos:
            rest = [q for q in ring.pos if q.id != p.id]
            built = Ring(rest, gates, ring.lintels, reuse=ring)
            assert _ring_fields(built) == _ring_fields(Ring(rest, gates, ring.lintels))
            if ring.n >= 3 and p.top < 0:
                # the gate check's ring once a stone on the base is taken (Ring.minus, spliced):
                # the same, nearest gaps (their tie-breaking) included
                spliced = ring.minus(p.id)
                assert _ring_fields(spliced) == _ring_fields(built) == _ring_fields(s.ring_with(removed=p.id))
                probes = [m for ms in s.markers for m in ms] + [p.angle, p.angle + 1e-9, *built.start, *built.end]
                assert [spliced.nearest_gap(m) for m in probes] == [built.nearest_gap(m) for m in probes]
            if p.top >= 0:
                # the gate check's ring once a stacked stone is taken (Ring.replaced: its base alone
                # swapped in, spliced), where the base keeps its place in the angle order
                swapped = ring.replaced(s.position_without(p, p.top))
                if swapped is not None:
                    assert _ring_fields(swapped) == _ring_fields(s.ring_with(removed=p.top))
                    swaps += 1
        rings += 1

    _each_position(8, 340, visit)
    assert rings >= 80
    assert swaps >= 20


def test_gate_shortcut_agrees_with_the_ring_after_the_gate() -> None:
    # check_gate reads the mover's areas off the current ring when the taken stone does not bound
    # them; the full computation builds the ring without the stone and with the gate.
    checked = 0

    def visit(s: SunState) -> None:
        nonlocal checked
        ring = s.ring()
        if ring.n < 4:
            return
        own = [ring.gap_of_angle(m) for m in s.markers[s.seat]]
        for st, r in enumerate(s.role):
            if r not in (STAND, STACK) or (r == STAND and ring.pos[ring.index[st]].top >= 0):
                continue
            k_st = ring.index[st] if r == STAND else ring.index[s.on[st][0]]
            if not all(g is not None and g not in (k_st, (k_st - 1) % ring.n) for g in own):
                continue
            for key in ring.keys:
                if st in key:
                    continue
                for under in (0.01, 0.2):
                    full = own_areas_ok(s.ctx, s.ring_with(removed=st, gate=(key[0], key[1], under)))
                    assert own_areas_ok(s.ctx, ring, own, (key, under)) == full, (s.to_notation(), st, key)
                    checked += 1

    _each_position(30, 400, visit)
    assert checked >= 500


def test_certain_stand_verdicts_equal_the_placement_check() -> None:
    # stand_intervals decides a piece without the check where every comparison has a margin to
    # spare; at random angles across every gap with room, such a verdict equals the check's
    # (rings with gates included: the lintels' comparisons are decided with the same margin)
    rng = np.random.default_rng(5)
    decided = with_lintels = 0

    def visit(s: SunState) -> None:
        nonlocal decided, with_lintels
        ring = s.ring()
        for shape in s.available_shapes():
            stone = s.stone_for(shape)
            s.stand_intervals(shape)  # fills each gap's memo with its breakpoints
            facts = stand_facts_of(s.ctx, stone, shape)
            if not facts.local_marker_check:
                continue
            for i in range(ring.n):
                geo = ring.memo[i].get(shape)
                if geo is None or ring.under[i] is not None or geo[1] <= geo[0]:
                    continue
                lo, hi, c_a, c_b, _skip = geo[:5]
                for mid in rng.uniform(lo, hi, 20):
                    certain = stand_piece_certain(s.ctx, facts, i, ring.pos[i].angle, float(mid), lo, hi, c_a, c_b)
                    if certain is None:
                        continue
                    ang = math.radians(math.degrees(float(mid) % TAU)) % TAU
                    assert certain == (stand_check_at(s.ctx, stone, shape, ang, facts) is None), (s.to_notation(), shape, mid)
                    decided += 1
                    with_lintels += bool(ring.lintels)

    _each_position(12, 500, visit)
    assert decided >= 1000 and with_lintels >= 200


def test_gate_hits_kept_per_shape_and_supports_equal_a_fresh_check() -> None:
    # gate_geometry_problem keeps, per (shape, supports), the positions a lintel hits when the
    # stone taken stands on the base, per stone taken its mark-area facts, and per (supports,
    # underside) the mover's-area verdict; every gate's verdict (its reason too) with those kept
    # must equal the verdict with fresh facts
    checked = hits = 0

    def visit(s: SunState) -> None:
        nonlocal checked, hits
        ring = s.ring()
        if ring.n < 3:
            return
        shared = place_facts(s.ctx)
        gate_candidates(s.ctx, ring, shared)  # fills shared.gate_hits
        ids = [p.id for p in ring.pos]
        for st, r in enumerate(s.role):
            if r not in (STAND, STACK):
                continue
            for a in ids:
                for b in ids:
                    gate = Gate(st, a, b)
                    assert check_gate(s.ctx, gate, shared) == check_gate(s.ctx, gate, place_facts(s.ctx)), \
                        (s.to_notation(), st, a, b)
                    checked += 1
        hits += len(shared.gate_hits)

    _each_position(10, 600, visit)
    assert checked >= 5000 and hits >= 100


def test_pass_candidates_kept_by_their_arcs_equal_fresh_ones() -> None:
    # the pass candidates are kept by (arcs, releases) across states: with that memo emptied, the
    # same list must come out
    from sim.sun.rules import legality as L

    checked = 0

    def visit(s: SunState) -> None:
        nonlocal checked
        if s.phase != "pass" or s.is_terminal():
            return
        kept = pass_candidates(s.ctx)
        saved = dict(L._PASSES_OF)
        L._PASSES_OF.clear()
        try:
            assert pass_candidates(s.ctx) == kept, s.to_notation()
        finally:
            L._PASSES_OF.update(saved)
        checked += 1

    for seed in range(700, 712):
        try:
            play_random(GAME, None, np.random.default_rng(seed), state=variant_state(seed), leads=False,
                        before_step=lambda st, _step: visit(st))
        except ValueError as e:  # as _each_position: orbit mode can leave a seat without a legal pass
            if "no legal action" not in str(e):
                raise
    assert checked >= 200


def test_positions_kept_by_pose_identity_equal_fresh_ones() -> None:
    # SunCache.build_ring takes a stone's Pos from pos_last while its pose (and its top's) are the very
    # objects; the ring must equal one built by a state with no memo at all
    checked = 0

    def visit(s: SunState) -> None:
        nonlocal checked
        ring = s.cache.build_ring(s.position, s.geom)
        assert _ring_fields(ring) == _ring_fields(_cold(s).ring()), s.to_notation()
        checked += 1

    _each_position(8, 800, visit)
    assert checked >= 80


def test_kept_bodies_equal_fresh_ones_at_every_step() -> None:
    # bodies() keeps its answer until the cache's next invalidate (a clean pass keeps it for the next
    # placement): at every step of random games it must equal the bodies computed anew
    checked = 0

    def visit(s: SunState, _step: int) -> None:
        nonlocal checked
        kept = s.bodies()
        s.cache.bodies = None
        assert s.bodies() == kept, s.to_notation()
        checked += 1

    _each_step(900, 908, visit)
    assert checked >= 500


def test_rings_spliced_after_a_stand_equal_rings_built_anew() -> None:
    # _settle splices a plain stand's position into the ring before it (SunCache.ring_after_stand), and
    # swaps a stack's base for the position carrying it (SunCache.ring_after_stack), rather than
    # rebuilding the ring: after every placement the ring must equal one built by build_ring
    # (the very Pos objects) and one of a state with no memo at all
    checked = 0

    def visit(s: SunState, _step: int) -> None:
        nonlocal checked
        if s.phase in ("marker", "pass") and s.cache.ring is not None:
            ring = s.ring()
            built = s.cache.build_ring(s.position, s.geom)
            assert _ring_fields(ring) == _ring_fields(built) == _ring_fields(_cold(s).ring()), s.to_notation()
            assert all(map(operator.is_, ring.pos, built.pos))
            checked += 1

    _each_step(940, 948, visit)
    assert checked >= 100



def test_rules_playouts_leave_no_reference_cycles() -> None:
    """The rules' memos hold no reference cycles (a position's memo never holds a neighbour:
    ``legality.stack_side`` keeps its widths with the gap): what a playout drops is freed by
    reference counting, not left to the cyclic collector (when positions formed cycles, about
    1100 of them and 10000 objects per 20 playouts waited for it)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # the next collection keeps what it finds unreachable in gc.garbage
    try:
        for seed in range(4):
            play_random(GAME, None, np.random.default_rng(seed), state=SunState.new(2), leads=False)
        gc.collect()
        cyclic = sorted({type(o).__name__ for o in gc.garbage if type(o).__module__.startswith("sim.")})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert cyclic == [], f"rules objects left in reference cycles: {cyclic}"


def test_actions_made_once_equal_the_dataclass_made_ones() -> None:
    # made_once sets a new action's slots through their own setters, not the frozen dataclass's
    # __init__: the action must be the one __init__ makes (fields, equality, hash, repr), still frozen
    import dataclasses

    import pytest

    from sim.sun.actions import MoveMarker, Pass, Stack, Stand, made_once

    for cls, values in ((Stand, ("slab", 123.456789)), (Stack, ("pillar", 7)), (Gate, (3, 1, 2)),
                        (Pass, (271.5, 0.2)), (MoveMarker, ("cw", 1)), (MoveMarker, ("ccw",))):
        a, b = made_once(cls, *values), cls(*values)
        assert (a, hash(a), repr(a), type(a)) == (b, hash(b), repr(b), cls)
        assert made_once(cls, *values) is a
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.__setattr__(dataclasses.fields(cls)[0].name, values[0])


def test_shape_stones_are_each_shapes_lowest_stone_in_the_field() -> None:
    # RulesContext.shape_stones walks the field once; it must give, for every shape with a stone
    # available, stone_for's stone, ordered by that stone's id
    checked = 0

    def visit(s: SunState) -> None:
        nonlocal checked
        ctx = s.ctx
        expect = sorted(((ctx.stone_for(name), name) for name in s.geom.shapes if ctx.stone_for(name) >= 0))
        assert ctx.shape_stones() == [(name, i) for i, name in expect], s.to_notation()
        checked += 1

    _each_position(8, 900, visit)
    assert checked >= 80


def test_a_stack_bottom_taken_from_the_position_memo_equals_a_fresh_one() -> None:
    # position_without takes a stacked position's bottom-alone form from SunCache.pos_memo when it
    # holds one made from the very pose: it must equal the position made afresh, sides and layers too
    from sim.sun.geometry.ring import position_of
    from sim.sun.rules.legality import position_without

    checked = 0

    def visit(s: SunState) -> None:
        nonlocal checked
        for p in s.ring().pos:
            if p.top < 0:
                continue
            got = position_without(s.ctx, p, p.top)
            fresh = position_of(p.id, [(s.position.pose[p.id], G.shapes[s.position.shapes[p.id]])])
            assert (got, got.ccw, got.cw, got.layers, got.half) == \
                (fresh, fresh.ccw, fresh.cw, fresh.layers, fresh.half), s.to_notation()
            checked += 1

    _each_position(8, 950, visit)
    assert checked >= 40


def test_stack_candidates_equal_each_bases_check_on_a_cold_copy() -> None:
    # stack_candidates decides every base of a shape in one pass (the markers, the memo keys' fixed
    # parts and the open gaps found once): the same stacks, in the same order, as
    # stack_geometry_problem asked base by base on a state without memos
    from sim.sun.rules.legality import current_place_facts, stack_candidates, stack_geometry_problem

    checked = 0

    def visit(s: SunState) -> None:
        nonlocal checked
        cold = _cold(s)
        ctx, cctx = s.ctx, cold.ctx
        facts, cfacts = current_place_facts(ctx), current_place_facts(cctx)
        ring = facts.ring
        bases = [k for k, p in enumerate(ring.pos) if p.top < 0 and p.id not in facts.supports]
        for shape, stone in ctx.shape_stones():
            got = [a.on for a in stack_candidates(ctx, shape, stone, bases, facts)]
            expect = [ring.pos[k].id for k in bases if stack_geometry_problem(cctx, shape, stone, k, cfacts) is None]
            assert got == expect, (s.to_notation(), shape)
            checked += len(bases)

    _each_position(10, 1000, visit)
    assert checked >= 300


@settings(max_examples=3000, derandomize=True, deadline=None)
@given(hst.one_of(hst.floats(-20.0, 20.0),
                 # angles whose degrees lie on or a hair from a 6-decimal tie (x.xxxxxx5)
                 hst.builds(lambda k, e: math.radians(k / 1e6 + 5e-7 + e), hst.integers(0, 360_000_000),
                           hst.sampled_from((0.0, 1e-13, -1e-13, 1e-10, -1e-10, 3e-9, -3e-9))),
                 hst.sampled_from((0.0, -0.0, TAU, -TAU, math.radians(0.0078125), 1e-300, TAU - 1e-16))))
def test_degrees_6_equals_rounding_the_degrees(angle: float) -> None:
    # degrees_6 divides the product rounded to an integer, away from a tie, instead of calling round
    from sim.sun.rules.legality import degrees_6

    got, expect = degrees_6(angle), round(math.degrees(angle % TAU), 6) % 360.0
    assert got == expect and math.copysign(1.0, got) == math.copysign(1.0, expect), angle


def test_records_made_slot_by_slot_equal_the_dataclass_made_ones() -> None:
    # bodies_of makes its Stone records, place_facts its PlaceFacts and stand_turn its StandTurn by
    # setting the slots one by one: every field as the dataclass's __init__ sets it (defaults new)
    from dataclasses import fields

    from sim.sun.geometry.stone import Stone
    from sim.sun.rules.cache import _new_stone
    from sim.sun.rules.legality import PlaceFacts
    from sim.sun.rules.stand_angles import StandTurn, stand_turn

    a, b = _new_stone(3, "pillar", STAND, (), (0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 1.0)), \
        Stone(3, "pillar", STAND, (), (0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 1.0))
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b)
    checked = 0

    def visit(s: SunState) -> None:
        nonlocal checked
        facts = place_facts(s.ctx)
        made = PlaceFacts(**{f.name: getattr(facts, f.name) for f in fields(PlaceFacts) if f.init
                             and f.name not in ("removal", "stones", "gate_hits", "taken", "own_ok", "open_gaps")})
        for f in fields(PlaceFacts):
            assert getattr(facts, f.name) == getattr(made, f.name), f.name
        assert facts.removal is not place_facts(s.ctx).removal  # a new dict each time, as the default factory
        turn = stand_turn(s.ctx)
        again = StandTurn(*(getattr(turn, f.name) for f in fields(StandTurn)))
        assert all(getattr(turn, f.name) == getattr(again, f.name) for f in fields(StandTurn))
        checked += 1

    _each_position(4, 1100, visit)
    assert checked >= 30
