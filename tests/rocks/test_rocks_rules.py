"""One test (or a few) per rule of Stonehenge Rocks!, on small hand-built positions
(``sim.rocks.notation.build_position``)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.core.errors import IllegalActionError
from sim.core.game import CHANCE, TERMINAL
from sim.core.play import play_random
from sim.rocks.game import GAME
from sim.rocks.notation import build_position
from sim.rocks.actions import DECK, DRAWS, END_TURN, Draw, Move, MoveGuard, SeatBox, SeatTrilithon
from sim.rocks.rules import RocksEnd, RocksState


def rejected(state: RocksState, action: object) -> None:
    """``action`` raises IllegalActionError and leaves ``state`` unchanged."""
    before = state.to_notation()
    with pytest.raises(IllegalActionError):
        state.apply_action(action)
    assert state.to_notation() == before


# --- entering and moving ---------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 7, 30])
def test_entering_fan_with_card_k_lands_on_space_k(k: int) -> None:
    s = build_position(2, hands={0: [k]}, guard=15 if k != 15 else 16)
    s.apply_action(Move(0, k))
    assert s.fans[0][k] == 1 and s.fans[0][0] == 9
    assert s.hands[0] == [] and s.disc[k] == 1


def test_entry_offset_option_lands_one_further() -> None:
    s = build_position(2, rules={"entry_offset": 1}, hands={0: [7]}, guard=20)
    s.apply_action(Move(0, 7))
    assert s.fans[0][8] == 1


def test_move_clockwise_and_several_moves_in_one_turn() -> None:
    s = build_position(2, fans={0: {3: 2}}, hands={0: [4, 5, 6]}, guard=20)
    s.apply_action(Move(3, 4))
    s.apply_action(Move(7, 5))  # the same fan again
    s.apply_action(Move(3, 6))  # the other fan
    assert s.fans[0][12] == 1 and s.fans[0][9] == 1 and s.fans[0][3] == 0


def test_move_needs_the_card_and_a_fan_there() -> None:
    s = build_position(2, fans={0: {3: 1}}, hands={0: [4, "T"]}, guard=20)
    rejected(s, Move(3, 5))  # card not in hand
    rejected(s, Move(8, 4))  # no fan on 8
    rejected(s, Move(3, 0))  # a trilithon card moves nothing
    assert Move(3, 0) not in s.legal_actions()


def test_landing_on_30_stays_on_30() -> None:
    s = build_position(2, fans={0: {25: 1}}, hands={0: [5]}, guard=1, shirts={0: 0})
    s.apply_action(Move(25, 5))
    assert s.fans[0][30] == 1 and s.shirts[0] == 0


# --- souvenir stand ----------------------------------------------------------------------------
def test_passing_30_gives_a_tshirt_and_returns_the_fan() -> None:
    s = build_position(2, fans={0: {28: 1}}, hands={0: [3]}, guard=1)
    s.apply_action(Move(28, 3))
    assert s.shirts[0] == 1 and s.fans[0][0] == 10 and sum(s.fans[0][1:]) == 0
    assert s.points(0) == 1


def test_the_eleventh_pass_gives_no_tshirt_but_returns_the_fan() -> None:
    s = build_position(2, fans={0: {28: 1}}, hands={0: [3]}, guard=1, shirts={0: 10})
    s.apply_action(Move(28, 3))
    assert s.shirts[0] == 10 and s.fans[0][0] == 10 and s.points(0) == 10


# --- the guard blocks ---------------------------------------------------------------------------
def test_no_move_or_seat_of_a_fan_on_the_guards_space() -> None:
    s = build_position(2, fans={0: {12: 2}}, hands={0: [12, 3, "T"]}, guard=12)
    legal = s.legal_actions()
    assert not any(isinstance(a, (Move, SeatBox, SeatTrilithon)) and a.space == 12 for a in legal)
    rejected(s, Move(12, 3))
    rejected(s, SeatBox(12))
    rejected(s, SeatTrilithon(12))
    s.apply_action(Move(0, 3))  # fans elsewhere (here: the pile) still move
    assert s.fans[0][3] == 1


def test_fan_may_pass_over_the_guard() -> None:
    s = build_position(2, fans={0: {10: 1}}, hands={0: [8]}, guard=12)
    s.apply_action(Move(10, 8))
    assert s.fans[0][18] == 1


# --- moving the guard -----------------------------------------------------------------------------
def test_guard_cannot_go_to_an_empty_space() -> None:
    s = build_position(2, fans={1: {9: 1}}, hands={0: [9, 14]}, guard=20)
    assert MoveGuard(14) not in s.legal_actions()
    rejected(s, MoveGuard(14))
    s.apply_action(MoveGuard(9))  # a space with any seat's fan is fine (here the opponent's)
    assert s.guard == 9 and s.guard_moved


def test_guard_may_go_onto_own_fan_and_needs_the_card() -> None:
    s = build_position(2, fans={0: {9: 1}, 1: {11: 1}}, hands={0: [9]}, guard=20)
    rejected(s, MoveGuard(11))  # no card 11
    s.apply_action(MoveGuard(9))
    assert s.guard == 9


def test_guard_needs_fan_option_off_allows_empty_space() -> None:
    s = build_position(2, rules={"guard_needs_fan": False}, hands={0: [14]}, guard=20)
    s.apply_action(MoveGuard(14))
    assert s.guard == 14


def test_guard_move_comes_last_in_the_turn() -> None:
    s = build_position(2, fans={0: {3: 1}, 1: {9: 1}}, hands={0: [9, 4, 5]}, guard=20)
    s.apply_action(Move(3, 4))
    s.apply_action(MoveGuard(9))
    assert s.legal_actions() == [END_TURN]
    rejected(s, Move(7, 5))
    rejected(s, MoveGuard(7))


# --- removal by the guard -----------------------------------------------------------------------
def test_removal_when_the_guard_did_not_move_only_current_seats_fans() -> None:
    s = build_position(2, fans={0: {12: 2, 5: 1}, 1: {12: 1}}, hands={0: [3]}, guard=12)
    s.apply_action(END_TURN)
    assert s.fans[0][12] == 0 and s.fans[0][0] == 9 and s.fans[0][5] == 1
    assert s.fans[1][12] == 1  # other seats' fans stay
    assert s.removed == [2, 0]


def test_no_removal_when_the_guard_moved_this_turn() -> None:
    s = build_position(2, fans={0: {12: 2}, 1: {7: 1}}, hands={0: [7]}, guard=12)
    s.apply_action(MoveGuard(7))
    s.apply_action(END_TURN)
    assert s.fans[0][12] == 2 and s.removed == [0, 0]


def test_fan_moved_onto_the_guard_is_removed_at_end_of_turn() -> None:
    s = build_position(2, fans={0: {10: 1}}, hands={0: [2]}, guard=12)
    s.apply_action(Move(10, 2))
    s.apply_action(END_TURN)
    assert s.fans[0][12] == 0 and s.removed[0] == 1


def draw_until_a_seat_moves(s: RocksState, rng: np.random.Generator) -> int:
    """Draw chance outcomes into ``s`` from ``rng`` until a seat is to move; returns how many."""
    return play_random(GAME, None, rng, state=s, until=lambda st: st.current_player() != CHANCE).steps


def test_guard_moved_onto_own_fans_protects_them_this_turn_only() -> None:
    s = build_position(2, fans={0: {9: 1}, 1: {30: 1}}, hands={0: [9], 1: []}, guard=20)
    s.apply_action(MoveGuard(9))
    s.apply_action(END_TURN)
    assert s.fans[0][9] == 1
    # seat 1's turn: its own fans only are checked; seat 0's fan on 9 stays
    draw_until_a_seat_moves(s, np.random.default_rng(0))
    assert s.current_player() == 1 and not s.guard_moved
    s.apply_action(END_TURN)
    assert s.fans[0][9] == 1 and s.removed == [0, 0]


# --- seating -------------------------------------------------------------------------------------
def test_box_seat_needs_the_card_equal_to_the_fans_space() -> None:
    s = build_position(2, fans={0: {12: 1, 4: 1}}, hands={0: [13, 4]}, guard=20)
    rejected(s, SeatBox(12))
    assert SeatBox(12) not in s.legal_actions() and SeatBox(4) in s.legal_actions()
    s.apply_action(SeatBox(4))
    assert s.box == [1, 0] and s.fans[0][4] == 0 and s.points(0) == 3 and 4 not in s.hands[0]


def test_box_seat_needs_a_free_seat_in_the_shared_pool() -> None:
    s = build_position(2, rules={"box_seats": 3}, box={0: 1, 1: 2}, fans={0: {4: 1}}, hands={0: [4]}, guard=20)
    assert SeatBox(4) not in s.legal_actions()
    rejected(s, SeatBox(4))


def test_seat_only_one_fan_and_not_after_moving() -> None:
    s = build_position(2, fans={0: {4: 1, 6: 1}}, hands={0: [4, 6, 2]}, guard=20)
    s.apply_action(SeatBox(4))
    rejected(s, SeatBox(6))
    rejected(s, Move(6, 2))
    t = build_position(2, fans={0: {4: 1, 6: 1}}, hands={0: [4, 6, 2]}, guard=20)
    t.apply_action(Move(4, 2))
    rejected(t, SeatBox(6))


def test_only_festival_fans_can_be_seated() -> None:
    s = build_position(2, hands={0: ["T", 3]}, guard=20)
    rejected(s, SeatTrilithon(0))
    rejected(s, SeatBox(0))


def test_trilithon_card_claims_then_reuses_own_trilithon() -> None:
    s = build_position(3, fans={0: {12: 1}}, tri={1: 1}, hands={0: ["T", 5]}, guard=20)
    s.apply_action(SeatTrilithon(12))
    assert s.tri == [1, 1, 0] and s.tri_id == [2, 1, -1] and s.points(0) == 2
    t = build_position(3, fans={1: {7: 1}}, tri={1: 1}, to=1, hands={1: ["T"]}, guard=20)
    t.apply_action(SeatTrilithon(7))
    assert t.tri == [0, 2, 0] and t.tri_id[1] == 1 and t.tri_claimed == 1


def test_no_trilithon_seat_without_a_free_or_own_trilithon() -> None:
    s = build_position(3, rules={"trilithons": 2}, tri={1: 1, 2: 1}, fans={0: {12: 1}}, hands={0: ["T"]}, guard=20)
    assert not any(isinstance(a, SeatTrilithon) for a in s.legal_actions())
    rejected(s, SeatTrilithon(12))


def test_trilithon_seat_needs_a_trilithon_card() -> None:
    s = build_position(2, fans={0: {12: 1}}, hands={0: [12]}, guard=20)
    rejected(s, SeatTrilithon(12))


# --- passing and end of turn --------------------------------------------------------------------
def test_pass_is_legal_and_guard_may_still_move_after_a_pass() -> None:
    s = build_position(2, fans={1: {9: 1}}, hands={0: [9, 3]}, guard=20)
    assert END_TURN in s.legal_actions() and MoveGuard(9) in s.legal_actions()


def test_allow_pass_false_forces_a_fan_action() -> None:
    s = build_position(2, rules={"allow_pass": False}, fans={1: {9: 1}}, hands={0: [9, 3]}, guard=20)
    legal = s.legal_actions()
    assert END_TURN not in legal and MoveGuard(9) not in legal
    rejected(s, END_TURN)
    rejected(s, MoveGuard(9))
    # no fan action possible: passing is allowed
    t = build_position(2, rules={"allow_pass": False}, fans={0: {9: 10}}, hands={0: ["T"]}, guard=9)
    assert t.legal_actions() == [END_TURN]


def test_draw_back_up_to_five_then_next_seat() -> None:
    s = build_position(2, fans={0: {3: 1}}, hands={0: [4, 5, 6, 7, 8], 1: [1, 1, 2, 2, 3]}, guard=20)
    s.apply_action(Move(3, 4))
    s.apply_action(Move(7, 5))
    s.apply_action(END_TURN)
    draws = draw_until_a_seat_moves(s, np.random.default_rng(1))
    assert draws == 2 and len(s.hands[0]) == 5 and s.current_player() == 1 and s.turn == 1


def test_chance_outcomes_are_proportional_to_counts() -> None:
    s = build_position(2, fans={0: {3: 1}}, hands={0: [4]}, draw=[9, 9, "T"], guard=20)
    s.apply_action(Move(3, 4))
    s.apply_action(END_TURN)
    assert s.current_player() == CHANCE
    out = dict(s.chance_outcomes())
    assert out == pytest.approx({Draw(9): 2 / 3, Draw(0): 1 / 3})
    rejected(s, Draw(5))
    rejected(s, END_TURN)


# --- reshuffle -----------------------------------------------------------------------------------
def test_reshuffle_moves_the_discard_pile_into_the_draw_pile() -> None:
    s = build_position(2, fans={0: {3: 1}}, hands={0: [4, 5, 6, 7, 8], 1: [1, 2, 3, 9, 10]}, draw=[30], guard=20)
    before_discard = sum(s.disc)
    s.apply_action(Move(3, 4))
    s.apply_action(Move(7, 5))
    s.apply_action(END_TURN)
    s.apply_action(Draw(30))  # the last card of the draw pile
    assert s.reshuffles == 1 and s.disc_n == 0 and s.current_player() == CHANCE
    assert s.draw_n == before_discard + 2  # the two cards just played are shuffled in too
    assert [s.draw[c] + sum(h.count(c) for h in s.hands) + s.disc[c] + s.out[c] for c in range(31)] == list(DECK)
    s.apply_action(s.sample_chance(np.random.default_rng(0)))
    assert len(s.hands[0]) == 5 and s.current_player() == 1


# --- winning and the turn cap ---------------------------------------------------------------
def test_win_is_checked_at_the_end_of_the_own_turn() -> None:
    s = build_position(2, box={0: 5}, shirts={0: 3}, fans={0: {8: 1}}, hands={0: [8]}, guard=20)
    assert s.points(0) == 18
    s.apply_action(SeatBox(8))
    assert s.points(0) == 21 and not s.is_terminal() and s.outcome() is None
    s.apply_action(END_TURN)
    assert s.current_player() == TERMINAL
    out = s.outcome()
    assert out is not None and out.termination is RocksEnd.NORMAL and out.termination == "normal" and out.winners == (0,)
    assert out.scores == (21.0, 0.0) and s.returns() == (1.0, 0.0)


def test_another_seats_points_do_not_end_my_turn() -> None:
    s = build_position(2, box={1: 7}, hands={0: [3]}, guard=20)
    assert s.points(1) == 21
    s.apply_action(END_TURN)
    assert not s.is_terminal()


def test_target_points_option() -> None:
    s = build_position(2, rules={"target_points": 3}, shirts={0: 2}, fans={0: {29: 1}}, hands={0: [5]}, guard=1)
    s.apply_action(Move(29, 5))
    s.apply_action(END_TURN)
    assert s.outcome().winners == (0,)  # type: ignore[union-attr]


def test_turn_cap_ends_as_a_draw() -> None:
    s = build_position(2, rules={"max_turns": 10}, turn=9, to=1, hands={1: [3]}, guard=20)
    s.apply_action(END_TURN)
    out = s.outcome()
    assert out is not None and out.termination is RocksEnd.TURN_CAP and out.termination == "turn_cap" and out.winners == ()
    assert s.returns() == (0.5, 0.5)


# --- setup ---------------------------------------------------------------------------------------
def test_setup_deals_five_each_then_turns_a_number_card_for_the_guard() -> None:
    s = GAME.new_initial_state(GAME.config(3))
    rng = np.random.default_rng(3)
    while s.current_player() == CHANCE and s.guard == 0:
        if all(len(h) == 5 for h in s.hands):
            assert Draw(0) not in dict(s.chance_outcomes())  # trilithon shuffled back
            rejected(s, Draw(0))
        s.apply_action(s.sample_chance(rng))
    assert [len(h) for h in s.hands] == [5, 5, 5]
    assert 1 <= s.guard <= 30 and s.disc[s.guard] == 1 and s.current_player() == 0


def test_setup_trilithon_discard_option() -> None:
    s = GAME.new_initial_state(GAME.config(2, guard_setup_trilithon="discard", guard_card_to_discard=False))
    for c in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]:
        s.apply_action(DRAWS[c])
    s.apply_action(Draw(0))
    assert s.guard == 0 and s.disc[0] == 1
    s.apply_action(Draw(17))
    assert s.guard == 17 and s.out[17] == 1 and s.disc[17] == 0
