"""Rules of Stonehenge and the Sun on the scripted test double (no physics)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from sim.core.errors import IllegalActionError, InputError
from sim.core.game import TERMINAL, GameConfig
from sim.core.play import play as play_game
from sim.core.play import play_random
from sim.sun.actions import Draw, Gate, MoveMarker, Pass, Stack, Stand
from sim.sun.game import GAME
from sim.sun.rules.legality import check_gate, check_marker_after
from sim.sun.position import FIELD, GATE, OUT, STACK, STAND
from sim.sun.geometry.stone import Stone
from sim.sun.physics import Placement, ScriptedTable, nominal_pose
from sim.sun.geometry.ring import Geometry, Pos, sep_for_width
from sim.sun.notation import parse_notation
from sim.sun.rules.state import SunState
from sim.sun.geometry.specs import TAU
from sim.sun.rules.stand_angles import check_stand
from sim.sun.players.thrower import SKILLS, PlaceNoise, ThrowNoise

G = Geometry()


def build(stones: list[tuple[str, float]], markers: list[list[float]], *, seat: int = 0, played: bool = True,
          stacks: dict[int, str] | None = None, gates: list[tuple[int, int, int]] | None = None,
          rules: dict | None = None, players: int = 2) -> SunState:
    """A state at the placement step with the given stones standing (shape, angle deg), markers in
    degrees, optional stacks {position index: shape} and gates [(stone index of a standing stone to
    lay, support index a, support index b)] (indices into ``stones``)."""
    s = SunState.new(players, rules, table=ScriptedTable(G))
    free = {name: [i for i, sh in enumerate(s.shapes) if sh == name] for name in G.shapes}
    ids = []
    for shape, ang in stones:
        i = free[shape].pop(0)
        ids.append(i)
        s.role[i] = STAND
        s.pose[i] = nominal_pose(G, Placement("stand", i, shape, angle=math.radians(ang)), {})
    for k, shape in (stacks or {}).items():
        i = free[shape].pop(0)
        b = ids[k]
        bodies = {x: Stone(x, s.shapes[x], s.role[x], s.on.get(x, ()), s.pose[x]) for x in s.pose}
        s.pose[i] = nominal_pose(G, Placement("stack", i, shape, on=b), bodies)
        s.role[i], s.on[i] = STACK, (b,)
    for g, a, b in gates or []:
        gi = ids[g]
        bodies = {x: Stone(x, s.shapes[x], s.role[x], s.on.get(x, ()), s.pose[x]) for x in s.pose}
        s.pose[gi] = nominal_pose(G, Placement("gate", gi, s.shapes[gi], between=(ids[a], ids[b])), bodies)
        s.role[gi], s.on[gi] = GATE, (ids[a], ids[b])
    s.markers = [[math.radians(m) for m in ms] for ms in markers]
    s.seat = seat
    s.played = [played] * players
    s._begin_turn()
    s.ids = ids  # type: ignore[attr-defined]
    return s


def angle_for_gap(a_deg: float, shape_a: str, shape_b: str, width: float) -> float:
    """Angle (deg) of a stone of ``shape_b`` counter-clockwise of one at ``a_deg`` leaving ``width``."""
    sa = G.shapes[shape_a]
    p = Pos(0, math.radians(a_deg), G.table.ring_radius, sa.width, sa.depth, sa.height)
    return a_deg + math.degrees(sep_for_width(p, G.table.ring_radius, G.shapes[shape_b], width, True))


def play(s: SunState, *actions) -> None:
    for a in actions:
        s.apply_action(a)


# --- geometry ---------------------------------------------------------------------------------------


def test_passable_width_matches_physics_md():
    assert G.pass_width == pytest.approx(0.039)
    # the ball's top crosses the ring at about 0.049 m (docs/sun-physics.md); at the outer face slightly higher
    assert G.gate_clear_z - G.table.pass_clearance == pytest.approx(0.0497, abs=0.0005)


def test_gap_width_formula_round_trips():
    b = angle_for_gap(0.0, "block", "block", 0.041)
    s = build([("block", 0.0), ("block", b), ("block", 180.0)], [[90.0], [270.0]])
    ring = s.ring()
    assert ring.width[0] == pytest.approx(0.041, abs=1e-9)
    assert ring.passable(0, G)
    b2 = angle_for_gap(0.0, "block", "block", 0.037)
    assert not build([("block", 0.0), ("block", b2), ("block", 180.0)], [[90.0], [270.0]]).ring().passable(0, G)


def test_gate_on_blocks_is_impassable_on_pillars_passable():
    for shape, passable in (("block", False), ("pillar", True)):
        b = angle_for_gap(0.0, shape, shape, 0.042)
        s = build([(shape, 0.0), (shape, b), ("slab", 120.0), ("block", 240.0)], [[150.0], [300.0]],
                  gates=[(2, 0, 1)])
        ring = s.ring()
        k = ring.index[s.ids[0]]
        assert ring.under[k] is not None
        assert ring.width[k] >= G.pass_width
        assert ring.passable(k, G) is passable


# --- golden examples from the rule text ----------------------------------------------------------------


def test_gate_over_a_mark_area_forces_a_marker_move():
    b = angle_for_gap(10.0, "block", "block", 0.042)
    mid = 0.5 * (10.0 + b)
    # seat 1's mark area is the gap between the two blocks; a slab stands elsewhere
    s = build([("block", 10.0), ("block", b), ("slab", 120.0), ("pillar", 200.0), ("block", 280.0)],
              [[160.0], [mid]], seat=0)
    gate = Gate(s.ids[2], s.ids[0], s.ids[1])
    assert gate in s.legal_actions()
    play(s, gate, PlaceNoise())
    assert s.phase == "pass"  # no marker move after a gate
    ring = s.ring()
    assert not ring.passable(ring.gap_of_angle(math.radians(mid)), G)
    play(s, s.legal_actions()[0], ThrowNoise())
    # seat 1 cannot make a gate now: its area is impassable; every legal placement stands a stone
    assert s.current_player() == 1
    legal = s.legal_actions()
    assert legal and not any(isinstance(a, Gate) for a in legal)
    play(s, legal[0], PlaceNoise())
    assert s.phase == "marker"
    play(s, s.legal_actions()[0])
    ring = s.ring()
    assert ring.passable(ring.gap_of_angle(s.markers[1][0]), G)


def test_a_stone_cannot_be_removed_if_two_mark_areas_would_merge():
    # slab at 90 separates seat 0's gap (from 0) and seat 1's gap (to 180); two blocks for a gate
    b = angle_for_gap(200.0, "block", "block", 0.030)
    s = build([("block", 0.0), ("slab", 90.0), ("block", 180.0), ("block", 200.0), ("block", b),
               ("pillar", 300.0)], [[45.0], [135.0]], seat=0)
    slab, b1, b2 = s.ids[1], s.ids[3], s.ids[4]
    assert check_gate(s.ctx, Gate(slab, b1, b2)) == "removing it would merge two players' mark areas"
    with pytest.raises(IllegalActionError):
        s.apply_action(Gate(slab, b1, b2))
    # without seat 1's marker there, the same gate is legal
    s2 = build([("block", 0.0), ("slab", 90.0), ("block", 180.0), ("block", 200.0), ("block", b),
                ("pillar", 300.0)], [[45.0], [320.0]], seat=0)
    assert check_gate(s2.ctx, Gate(s2.ids[1], s2.ids[3], s2.ids[4])) is None


def test_marker_moves_only_to_gaps_touching_the_new_stone():
    s = build([("block", 0.0), ("block", 90.0), ("block", 180.0), ("block", 270.0)], [[45.0], [225.0]], seat=0)
    play(s, Stand("pillar", 135.0), PlaceNoise())
    assert s.phase == "marker"
    new = s.placed
    moves = s.legal_actions()
    assert {m.side for m in moves} == {"ccw", "cw"}
    for m in moves:
        c = s.clone()
        c.apply_action(m)
        ring = c.ring()
        key = ring.keys[ring.gap_of_angle(c.markers[0][0])]
        assert new in key
    with pytest.raises(IllegalActionError):
        s.apply_action(MoveMarker("ccw", 1))


def test_marker_cannot_move_onto_another_players_area():
    s = build([("block", 0.0), ("block", 90.0), ("block", 180.0), ("block", 270.0)], [[45.0], [150.0]], seat=0)
    play(s, Stand("pillar", 135.0), PlaceNoise())
    # seat 1's marker (150) is in the new ccw gap: only cw remains
    assert s.legal_actions() == [MoveMarker("cw")]


def test_a_stand_needs_a_legal_marker_move_and_an_impassable_gap_is_no_target():
    # standing a stone in the middle of a 60 mm gap leaves two impassable halves: illegal
    b = angle_for_gap(0.0, "block", "block", 0.060)
    s = build([("block", 0.0), ("block", b), ("block", 180.0)], [[100.0], [270.0]], seat=0)
    why = check_stand(s.ctx, Stand("slab", 0.5 * b))
    assert why == "no legal marker move would follow"


def test_stalemate_when_no_placement_is_legal():
    stones = [("pillar" if k % 2 == 0 else "block", 22.5 * k) for k in range(16)]
    s = build(stones, [[11.0], [191.0]], seat=0)
    assert s.field_stones()
    assert s.is_terminal()
    assert s.outcome().termination == "stalemate"
    assert s.current_player() == TERMINAL


def test_first_turn_has_no_marker_move():
    s = SunState.new(2, table=ScriptedTable(G))
    play(s, Stand("block", 40.0), PlaceNoise())
    assert s.phase == "pass"
    play(s, s.legal_actions()[0], ThrowNoise())
    assert s.seat == 1 and s.phase == "place"
    play(s, Stand("block", 200.0), PlaceNoise())
    assert s.phase == "pass"  # seat 1's own first turn
    play(s, s.legal_actions()[0], ThrowNoise())
    play(s, Stand("block", 120.0), PlaceNoise())
    assert s.phase == "marker"


def test_first_only_option():
    s = SunState.new(2, {"free_first_turn": "first_only"}, table=ScriptedTable(G))
    play(s, Stand("block", 40.0), PlaceNoise(), Pass(220.0, 0.2), ThrowNoise())
    # seat 1's first turn is not free: after standing it moves its marker, away from seat 0's gap
    play(s, Stand("block", 100.0), PlaceNoise())
    assert s.phase == "marker"
    ring = s.ring()
    seat0 = ring.keys[ring.gap_of_angle(s.markers[0][0])]
    for m in s.legal_actions():
        c = s.clone()
        c.apply_action(m)
        assert c.ring().keys[c.ring().gap_of_angle(c.markers[1][0])] != seat0


# --- placement falls ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["retry", "penalty"])
def test_placement_fall(mode):
    tab = ScriptedTable(G)
    tab.falls = {1}
    s = SunState.new(2, {"placement_fall": mode}, table=tab)
    play(s, Stand("block", 0.0), PlaceNoise(), Pass(180.0, 0.2), ThrowNoise())
    n_field = len(s.field_stones())
    play(s, Stand("block", 90.0), PlaceNoise())
    assert s.phase == "place" and s.seat == 1
    if mode == "retry":
        assert len(s.field_stones()) == n_field and s.penalties() == [0, 0]
    else:
        assert len(s.field_stones()) == n_field - 1 and s.penalties() == [0, 1]
    assert s.placements[-1]["standing"] == 0


def test_retry_is_bounded_by_max_place_attempts():
    tab = ScriptedTable(G)
    tab.falls = {0, 1}
    s = SunState.new(2, {"max_place_attempts": 2}, table=tab)
    play(s, Stand("block", 0.0), PlaceNoise())
    assert s.penalties() == [0, 0]
    play(s, Stand("block", 0.0), PlaceNoise())
    assert s.penalties() == [1, 0]


# --- passes ------------------------------------------------------------------------------------------


def test_pass_penalties_leave_and_ring_is_read_back():
    s = build([("block", 0.0), ("block", 90.0), ("block", 180.0), ("block", 270.0)], [[45.0], [225.0]], seat=0)
    a, b = s.ids[0], s.ids[1]
    moved = list(s.pose[b])
    moved[0] += 0.003
    s.table.outcomes.append({"penalties": [(a, "toppled")], "moves": {b: tuple(moved)}})
    play(s, Stand("pillar", 135.0), PlaceNoise())
    play(s, s.legal_actions()[0])
    play(s, s.legal_actions()[0], ThrowNoise())
    assert s.role[a] == OUT and s.owner[a] == 0
    assert s.pose[b][0] == moved[0]
    row = s.passes[-1]
    assert row["penalties"] == 1 and "toppled" in row["causes"] and row["seat"] == 0
    assert s.penalties() == [1, 0]


def test_pass_must_cross_the_mark_area_and_release_a_hand_span_out():
    s = build([("block", 0.0), ("block", 90.0), ("block", 180.0), ("block", 270.0)], [[45.0], [225.0]], seat=0)
    play(s, Stand("pillar", 135.0), PlaceNoise(), MoveMarker("cw"))
    mid = math.degrees(s.markers[0][0])
    for bad in (Pass(mid + 90.0, 0.2), Pass(mid, 0.1)):
        before = s.to_notation()
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
        assert s.to_notation() == before
    s.clone().apply_action(Pass(mid + 180.0, 0.25))  # the area may be the far crossing


def test_orbit_pass_goes_through_both_areas():
    s = build([("block", 0.0), ("block", 90.0), ("block", 180.0), ("block", 270.0)],
              [[45.0, 225.0], [135.0, 315.0]], seat=0, rules={"mode": "orbit"})
    play(s, Stand("pillar", 60.0), PlaceNoise())
    moves = s.legal_actions()
    assert moves and all(m.marker in (0, 1) for m in moves)
    play(s, moves[0])
    for p in s.legal_actions():
        a = math.radians(p.aim)
        ring = s.ring()
        areas = {ring.gap_of_angle(m) for m in s.markers[0]}
        assert {ring.gap_of_angle(a), ring.gap_of_angle(a + math.pi)} == areas


def _play_random(s: SunState, seed: int) -> SunState:
    """``s`` played to its end with random legal choices and chance drawn from one seeded stream."""
    play_random(GAME, GameConfig(num_players=s.num_players), np.random.default_rng(seed), state=s)
    return s


def test_game_ends_when_the_field_is_empty():
    s = _play_random(SunState.new(2, {"field": "random"}, table=ScriptedTable(G)), 3)
    assert s.outcome().termination in ("field_empty", "stalemate")
    if s.outcome().termination == "field_empty":
        assert not s.field_stones()
    # 32 stones never all fit a random ring (the game above ends in a stalemate): a field of six
    # empties, and that ends the game
    small = Geometry(shapes={k: replace(v, count=2) for k, v in G.shapes.items()})
    for seed in range(3):
        s = _play_random(SunState.new(2, {"field": "random"}, table=ScriptedTable(small), geometry=small), seed)
        assert s.outcome().termination == "field_empty"
        assert not s.field_stones() and s.drawn < 0
        assert all(r != FIELD for r in s.role)


# --- interface ---------------------------------------------------------------------------------------


def _random_states(n_games: int = 6):
    for seed in range(n_games):
        rng = np.random.default_rng(seed)
        players = 2 + seed % 3
        rules = {"mode": "orbit" if seed % 3 == 2 else "standard", "field": "random" if seed % 2 else "open"}
        s = SunState.new(players, rules, table=ScriptedTable(G), throwers=[SKILLS["casual"]] * players)
        seen: list[SunState] = []  # copies of every state, the end included
        play_random(GAME, GameConfig(num_players=players), rng, state=s, before_step=lambda st, _step: seen.append(st.clone()))
        yield from seen


def test_notation_round_trips_exactly():
    def build_state(n, rules, sections, seats):
        return SunState.new(n, rules, table=ScriptedTable(G), sections=sections, seat_cfg=seats)

    for s in _random_states(4):
        text = s.to_notation()
        back = parse_notation(text, build=build_state)
        assert back.to_notation() == text
        assert back.pose == s.pose  # exact floats


@pytest.mark.parametrize("bad", ["", "sun:", "sun:{}", "sun:{\"c\":{\"n\":2},\"p\":\"nowhere\"}", "druids:x",
                                 "sun:{\"c\":{\"n\":9}}"])
def test_malformed_notation_raises_input_error(bad):
    with pytest.raises(InputError):
        parse_notation(bad, build=lambda n, r, x, s: SunState.new(n, r, table=ScriptedTable(G)))


def test_fast_marker_check_agrees_with_the_full_ring():
    checked = 0
    for s in _random_states(6):
        if s.phase != "place" or s.rules.mode != "standard" or s.is_free_turn() or s.ring().n < 2:
            continue
        for shape in s.available_shapes():
            for ang in s.stand_samples(shape)[:12]:
                a = Stand(shape, ang)
                fast = check_stand(s.ctx, a)
                st = s.stone_for(shape)
                sh = G.shapes[shape]
                full = check_marker_after(s.ctx, st, Pos(st, math.radians(ang) % TAU, G.table.ring_radius,
                                                        sh.width, sh.depth, sh.height))
                if fast in (None, "no legal marker move would follow"):
                    assert fast == full, (a, fast, full, s.to_notation())
                    checked += 1
    assert checked > 50


def test_illegal_actions_leave_the_state_unchanged():
    for s in _random_states(2):
        if s.current_player() < 0:
            continue
        before = s.to_notation()
        for bad in (Stand("pillar", float("nan")), Stack("slab", 999), Gate(0, 0, 0), Pass(0.0, 0.0),
                    MoveMarker("up"), Draw(0)):
            if bad in s.legal_actions():
                continue
            with pytest.raises(IllegalActionError):
                s.apply_action(bad)
            assert s.to_notation() == before


def test_every_candidate_is_legal_and_clone_is_independent():
    for s in _random_states(3):
        if s.current_player() < 0:
            continue
        before = s.to_notation()
        for a in s.legal_actions()[:20]:
            c = s.clone()
            c.apply_action(a)
            assert c.to_notation() != before  # the action took effect on the clone...
        assert s.to_notation() == before  # ...and none on the original
        assert s.clone().to_notation() == s.to_notation()


# --- the marker rule's readings, exact stalemate, the whole set on the ring -------------------------


def test_marker_change_new_stone_lets_a_stack_keep_the_area_beside_it() -> None:
    # Two stones 4 mm apart on one side of seat 0's area, the area itself wide: a stack on the
    # stone bounding the area leaves the far side (4 mm) impassable. The rule text: "the new mark
    # area must involve the stone you just stood"; read as new_stone the area beside the stack is
    # one (it is now bounded by the stack), read as new_gap it is not (it is the same gap).
    a_deg = 0.0
    b_deg = angle_for_gap(a_deg, "block", "block", 0.004)
    for reading, legal in (("new_stone", True), ("new_gap", False)):
        s = build([("block", a_deg), ("block", b_deg), ("block", 200.0)], [[100.0], [280.0]],
                  rules={"marker_change": reading})
        on = s.ids[1]  # the stone counter-clockwise of the 4 mm gap: its ccw side is seat 0's area
        why = s.placement_problem(Stack("pillar", on))
        assert (why is None) is legal, (reading, why)


def test_careful_players_with_perfect_hands_empty_the_field() -> None:
    # The rule text's normal ending is reachable with the default stones: two careful players
    # with perfect hands (no noise, no physics) play every one of the 32 stones onto the ring,
    # with stacks and gates, and the game ends with the field empty.
    from sim.sun.agents.policies import AGENTS

    cfg = GameConfig(num_players=2, seats=({"agent": "careful"}, {"agent": "careful"}))
    s = SunState.new(2, table=ScriptedTable(G), throwers=[SKILLS["perfect"]] * 2)
    agents = [AGENTS["careful"].factory(game=GAME, seat=i, rng=np.random.default_rng(i), config=cfg) for i in range(2)]
    play_game(GAME, cfg, agents, np.random.default_rng(0), state=s)
    assert s.over == "field_empty"
    assert not s.field_stones() and sum(s.penalties()) == 0
    kinds = [r["kind"] for r in s.placements if r["standing"]]
    assert kinds.count("stand") + kinds.count("stack") == len(s.shapes) == 32
    assert kinds.count("stack") >= 8 and kinds.count("gate") >= 1
    assert sum(1 for r in s.role if r in (STAND, STACK, GATE)) == 32


@pytest.mark.slow
def test_aggressive_agent_narrows_the_opponents_area() -> None:
    # On the placement positions of a careful-vs-careful game, each agent chooses a placement for
    # the seat to move: summed over the positions, the aggressive agent takes more of the
    # opponents' best pass clearance than the careful one, and keeps its own pass clear.
    from sim.sun.agents.policies import AGENTS, _opponents_clearance, best_aim

    cfg = GameConfig(num_players=2, seats=({"agent": "careful"}, {"agent": "careful"}))
    s = SunState.new(2, table=ScriptedTable(G), throwers=[SKILLS["perfect"]] * 2)
    players = [AGENTS["careful"].factory(game=GAME, seat=i, rng=np.random.default_rng(i), config=cfg) for i in range(2)]
    lost = {"careful": 0.0, "aggressive": 0.0}
    positions = 0

    def compare(s: SunState, _step: int) -> None:  # before each step of the careful game
        nonlocal positions
        p = s.current_player()
        if s.is_terminal() or s.phase != "place" or s.is_free_turn() or s.turn % 2:
            return
        positions += 1
        for name in lost:
            ag = AGENTS[name].factory(game=GAME, seat=p, rng=np.random.default_rng(0), config=cfg)
            c = s.clone()
            c.apply_action(ag.act(c.observation(p), c.legal_actions()))
            c.apply_action(PlaceNoise())
            if c.phase == "marker":
                c.apply_action(ag.act(c.observation(p), c.legal_actions()))
            assert best_aim(c)[0] > 0.0  # its own pass stays clear
            lost[name] += _opponents_clearance(s, p) - _opponents_clearance(c, p)

    play_game(GAME, cfg, players, np.random.default_rng(0), state=s, before_step=compare)
    assert positions >= 10
    assert lost["aggressive"] > lost["careful"] + 0.005, lost
