"""Each card's effect with odd and even counts (docs/rules-sozoikum.md; rule text 'Card Play')."""

from __future__ import annotations

import pytest
from sozoikum_helpers import at_cards, give, play

from sim.core.errors import IllegalActionError
from sim.sozoikum import actions as A
from sim.sozoikum import rules as R

C, G, S, T, D, V = A.CAMP, A.GEMS, A.STEAL, A.TIGER, A.DUMNO, A.VETO


def test_gems_every_player_takes_five() -> None:
    s = at_cards()
    play(s, G, G, S, S)  # even steal: cancelled
    assert s.gems == [15, 15, 10, 10]
    assert s.mine == 50
    assert s.taken == [5, 5, 0, 0]
    # nobody at the camp: the stones stay on the fire for the next round
    assert s.fire == [0, 1] and s.round == 2


def test_gems_odd_count_and_lone_camper_takes_the_fire_free() -> None:
    s = at_cards()
    play(s, G, G, G, C)
    assert s.gems == [15, 15, 15, 10]
    assert s.reserve[3] == [0, 1] and s.fire == []
    assert s.spent == [0, 0, 0, 0]


def test_steal_odd_takes_what_the_gatherers_took() -> None:
    s = at_cards()
    play(s, G, G, S, C)
    assert s.gems == [10, 10, 20, 10]
    assert s.mine == 50


def test_steal_three_players_last_from_start_benefits() -> None:
    s = at_cards()
    play(s, G, S, S, S)
    assert s.gems == [10, 10, 10, 15]


def test_steal_even_cancels() -> None:
    s = at_cards()
    play(s, G, G, S, S)
    assert s.gems == [15, 15, 10, 10]


def test_steal_beneficiary_is_relative_to_the_start_player() -> None:
    s = at_cards()
    s.start = 2  # turn order 2, 3, 0, 1: seat 1 is last
    play(s, G, S, S, S)
    assert s.gems[1] == 15 and s.gems[0] == 10


def test_steal_first_beneficiary_option() -> None:
    s = at_cards(beneficiary="first")
    play(s, G, S, S, S)
    assert s.gems == [10, 15, 10, 10]


def test_tiger_odd_takes_a_stone_and_keeps_it() -> None:
    s = at_cards()
    (stone,) = give(s, 0, 99)
    play(s, C, C, C, T)
    assert s.phase == "effect" and s.current_player() == 3
    assert s.legal_actions() == [A.Tiger(0, stone)]
    s.apply_action(A.Tiger(0, stone))
    assert s.reserve[3] == [stone] and s.reserve[0] == []
    assert s.oneshots[3] == "DV"
    assert s.phase == "auction"  # three at the camp


def test_tiger_even_cancels_and_both_cards_are_spent() -> None:
    s = at_cards()
    give(s, 0, 99)
    play(s, C, C, T, T)
    assert s.phase == "auction"
    assert s.oneshots[2] == s.oneshots[3] == "DV"
    s2 = at_cards()
    give(s2, 0, 99)
    play(s2, C, T, T, T)  # three tigers: odd, the last (seat 3) benefits
    assert s2.current_player() == 3


def test_one_shot_card_cannot_be_played_again() -> None:
    s = at_cards()
    play(s, G, G, T, T)
    s.apply_action(A.DrawStone(-1, 5))
    s.apply_action(A.DrawStone(-1, 6))
    s.apply_action(A.Setup(True, "auction"))
    assert A.PlayCard(T) not in s.legal_actions(2)
    assert A.PlayCard(T) in s.legal_actions(0)
    with pytest.raises(IllegalActionError):
        s.apply_actions({0: A.PlayCard(C), 1: A.PlayCard(C), 2: A.PlayCard(T), 3: A.PlayCard(C)})
    assert s.phase == "cards"


def test_tiger_without_victims_does_nothing() -> None:
    s = at_cards()
    play(s, C, C, C, T)
    assert s.phase == "auction"


def test_dumnopterix_odd_returns_a_fire_stone_to_the_bag() -> None:
    s = at_cards()
    play(s, C, C, G, D)
    assert s.current_player() == 3
    assert set(s.legal_actions()) == {A.Dumno(A.FIRE, 0), A.Dumno(A.FIRE, 1)}
    s.apply_action(A.Dumno(A.FIRE, 1))
    assert s.back == [1] and s.fire == [0]
    assert s.bag_size() == 38 + 1


def test_dumnopterix_odd_takes_from_a_player() -> None:
    s = at_cards()
    (stone,) = give(s, 1, 77)
    play(s, C, C, G, D)
    s.apply_action(A.Dumno(1, stone))
    assert s.reserve[1] == [] and stone in s.back


def test_dumnopterix_even_cancels() -> None:
    s = at_cards()
    play(s, C, C, D, D)
    assert s.phase == "auction" and s.fire == [0, 1]


def test_returned_stone_can_be_drawn_again() -> None:
    s = at_cards()
    play(s, G, G, G, D)
    s.apply_action(A.Dumno(A.FIRE, 0))
    # round 2: draw the returned stone back (same id, same shape)
    assert s.phase == "draw"
    s.apply_action(A.DrawStone(0))
    assert 0 in s.fire and s.back == []


def test_veto_odd_sends_a_camp_player_away() -> None:
    s = at_cards()
    play(s, C, C, V, G)
    assert s.current_player() == 2
    assert set(s.legal_actions()) == {A.Veto(0), A.Veto(1)}
    s.apply_action(A.Veto(0))
    # one player left at the camp: seat 1 takes the fire free
    assert s.reserve[1] == [0, 1] and s.spent == [0, 0, 0, 0]


def test_veto_even_cancels() -> None:
    s = at_cards()
    play(s, C, C, V, V)
    assert s.phase == "auction" and s.camp == [0, 1]


def test_veto_without_camp_players_does_nothing() -> None:
    s = at_cards()
    play(s, G, G, V, G)
    assert s.phase == "draw" and s.fire == [0, 1]


def test_without_cards_everyone_is_at_the_camp() -> None:
    s = R.SozoikumState.new(3, {"card_play": "never", "gathering_rules": ["hidden"]}, [0.7] * 3)
    s.apply_action(A.DrawStone(-1, 1))
    s.apply_action(A.DrawStone(-1, 2))
    assert s.phase == "hidden" and s.simultaneous_seats() == (0, 1, 2)


def test_mine_running_short() -> None:
    s = at_cards(mine_gems=7)
    play(s, G, G, G, C)
    assert s.gems == [15, 12, 10, 10]
    assert s.mine == 0 and s.taken == [5, 2, 0, 0]


def test_mine_running_short_serves_from_the_start_player() -> None:
    s = at_cards(mine_gems=7)
    s.start = 1
    play(s, G, G, C, C)
    assert s.gems[1] == 15 and s.gems[0] == 12
