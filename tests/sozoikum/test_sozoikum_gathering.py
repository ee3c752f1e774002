"""The three gathering rules: auction (with coalitions), hidden bid (ties), bluff (challenges)."""

from __future__ import annotations

import pytest
from sozoikum_helpers import at_cards, play

from sim.core.errors import IllegalActionError
from sim.core.game import SIMULTANEOUS
from sim.sozoikum import actions as A
from sim.sozoikum import rules as R
from sim.sozoikum.game import GAME

C = A.CAMP


def camp_all(rule: str, **rules: object) -> R.SozoikumState:
    s = at_cards(rule=rule, **rules)
    play(s, C, C, C, C)
    return s


# --- auction ------------------------------------------------------------------------------------


def test_auction_ascending_bids_until_all_but_one_pass() -> None:
    s = camp_all("auction")
    assert s.current_player() == 0
    s.apply_action(A.Bid(3))
    assert A.Bid(3) not in s.legal_actions() and A.Bid(4) in s.legal_actions()
    s.apply_action(A.Pass())  # seat 1 out
    s.apply_action(A.Bid(4))  # seat 2
    s.apply_action(A.Pass())  # seat 3 out
    assert s.current_player() == 0
    s.apply_action(A.Pass())  # seat 0 out: seat 2 wins
    assert s.reserve[2] == [0, 1]
    assert s.gems[2] == 6 and s.mine == 64 and s.spent == [0, 0, 4, 0]


def test_auction_bid_above_gems_is_illegal_and_changes_nothing() -> None:
    s = camp_all("auction")
    before = s.to_notation()
    with pytest.raises(IllegalActionError):
        s.apply_action(A.Bid(11))
    assert s.to_notation() == before


def test_auction_nobody_bids_stones_stay() -> None:
    s = camp_all("auction")
    for _ in range(4):
        s.apply_action(A.Pass())
    assert s.fire == [0, 1] and s.round == 2 and sum(s.spent) == 0


def test_auction_coalition_larger_contributor_picks_first() -> None:
    s = camp_all("auction")
    s.apply_action(A.Bid(3))  # seat 0
    s.apply_action(A.Ally(4))  # seat 1 offers to join with 4
    assert s.phase == "reply" and s.current_player() == 0
    s.apply_action(A.Reply(True))
    assert s.high == 7 and s.holders == [(0, 3), (1, 4)]
    assert s.current_player() == 2
    s.apply_action(A.Pass())
    s.apply_action(A.Pass())
    # seat 1 paid more: it picks first, seat 0 takes the other stone
    assert s.phase == "pick" and s.current_player() == 1
    s.apply_action(A.Pick(1))
    assert s.current_player() == 0 and s.legal_actions() == [A.Pick(0)]
    s.apply_action(A.Pick(0))
    assert s.reserve[1] == [1] and s.reserve[0] == [0]
    assert s.spent == [3, 4, 0, 0] and s.mine == 67


def test_auction_refused_coalition_and_outbid_coalition_dissolves() -> None:
    s = camp_all("auction")
    s.apply_action(A.Bid(3))
    s.apply_action(A.Ally(2))
    s.apply_action(A.Reply(False))
    assert s.current_player() == 1
    assert not any(isinstance(a, A.Ally) for a in s.legal_actions())
    s.apply_action(A.Pass())  # seat 1 out
    s.apply_action(A.Ally(3))  # seat 2 joins seat 0: 6
    s.apply_action(A.Reply(True))
    s.apply_action(A.Bid(7))  # seat 3 outbids the coalition
    assert s.holders == [(3, 7)]
    assert s.current_player() == 0  # coalition members bid again
    s.apply_action(A.Pass())
    s.apply_action(A.Pass())
    assert s.reserve[3] == [0, 1] and s.spent == [0, 0, 0, 7]


def test_auction_without_coalitions_option() -> None:
    s = camp_all("auction", coalitions=False)
    s.apply_action(A.Bid(1))
    assert not any(isinstance(a, A.Ally) for a in s.legal_actions())


# --- hidden bid ---------------------------------------------------------------------------------


def test_hidden_bid_highest_pays_and_takes_both() -> None:
    s = camp_all("hidden")
    assert s.current_player() == SIMULTANEOUS and s.simultaneous_seats() == (0, 1, 2, 3)
    s.apply_actions({0: A.Sealed(3), 1: A.Sealed(5), 2: A.Sealed(1), 3: A.Sealed(0)})
    assert s.reserve[1] == [0, 1] and s.spent == [0, 5, 0, 0]


def test_hidden_bid_tie_of_two_each_takes_one_and_pays() -> None:
    s = camp_all("hidden")
    s.apply_actions({0: A.Sealed(1), 1: A.Sealed(4), 2: A.Sealed(0), 3: A.Sealed(4)})
    assert s.phase == "pick" and s.current_player() == 1  # first in turn order picks first
    s.apply_action(A.Pick(0))
    s.apply_action(A.Pick(1))
    assert s.reserve[1] == [0] and s.reserve[3] == [1]
    assert s.spent == [0, 4, 0, 4]


def test_hidden_bid_tie_of_two_with_one_stone() -> None:
    s = at_cards(rule="hidden", fire_draw=1)
    play(s, C, C, C, A.GEMS)
    s.apply_actions({0: A.Sealed(2), 1: A.Sealed(2), 2: A.Sealed(0)})
    s.apply_action(A.Pick(0))
    assert s.reserve[0] == [0] and s.spent == [2, 0, 0, 0]


def test_hidden_bid_tie_of_three_rebids_among_the_tied() -> None:
    s = camp_all("hidden")
    s.apply_actions({0: A.Sealed(4), 1: A.Sealed(4), 2: A.Sealed(4), 3: A.Sealed(1)})
    assert s.phase == "hidden" and s.simultaneous_seats() == (0, 1, 2) and s.rebids == 1
    assert sum(s.spent) == 0
    s.apply_actions({0: A.Sealed(1), 1: A.Sealed(2), 2: A.Sealed(0)})
    assert s.reserve[1] == [0, 1] and s.spent == [0, 2, 0, 0]


def test_hidden_bid_rebid_limit_leaves_stones_on_the_fire() -> None:
    s = camp_all("hidden", hidden_rebids=1)
    s.apply_actions({0: A.Sealed(4), 1: A.Sealed(4), 2: A.Sealed(4), 3: A.Sealed(1)})
    s.apply_actions({0: A.Sealed(2), 1: A.Sealed(2), 2: A.Sealed(2)})
    assert s.fire == [0, 1] and s.round == 2 and sum(s.spent) == 0


def test_hidden_bid_missing_seat_is_illegal() -> None:
    s = camp_all("hidden")
    with pytest.raises(IllegalActionError):
        s.apply_actions({0: A.Sealed(1), 1: A.Sealed(1)})


# --- bluff --------------------------------------------------------------------------------------


def bluff(fists: list[int], announcements: list[int]) -> R.SozoikumState:
    s = camp_all("bluff")
    s.apply_actions({i: A.Fist(f) for i, f in enumerate(fists)})
    for a in announcements:
        s.apply_action(A.Announce(a))
    assert s.phase == "challenge"
    return s


def test_bluff_no_challenge_highest_pays_the_fist() -> None:
    s = bluff([2, 5, 0, 3], [2, 6, 1, 3])
    assert s.current_player() == 2  # challengers in turn order after the announcer
    for _ in range(3):
        s.apply_action(A.Challenge(False))
    assert s.reserve[1] == [0, 1] and s.spent == [0, 5, 0, 0] and s.gems[1] == 5


def test_bluff_correct_challenge() -> None:
    s = bluff([2, 5, 3, 3], [2, 6, 1, 3])
    s.apply_action(A.Challenge(True))  # seat 2: fist 5 < announced 6
    assert s.reserve[2] == [0, 1] and s.spent == [0, 5, 0, 0]


def test_bluff_wrong_challenge() -> None:
    s = bluff([2, 6, 3, 3], [2, 6, 1, 3])
    s.apply_action(A.Challenge(False))  # seat 2 lets it stand
    s.apply_action(A.Challenge(True))  # seat 3 challenges wrongly: pays its own fist
    assert s.reserve[1] == [0, 1] and s.spent == [0, 0, 0, 3]


def test_bluff_announcement_tie_earliest_holds_and_may_exceed_gems() -> None:
    s = bluff([0, 0, 0, 0], [12, 12, 0, 0])
    assert s.highest() == 0 and s.chal == [1, 2, 3]


def test_bluff_fists_hidden_in_observations_and_determinized() -> None:
    import numpy as np

    s = camp_all("bluff")
    s.apply_actions({0: A.Fist(2), 1: A.Fist(5), 2: A.Fist(0), 3: A.Fist(3)})
    obs = s.observation(0)
    hid = R.SozoikumState.HIDDEN
    assert obs.seat == 0 and obs.fists == (2, hid, hid, hid)
    assert s.observation(1).fists == (hid, 5, hid, hid)
    det = GAME.determinize(obs, np.random.default_rng(0))
    assert det.fists[0] == 2 and all(0 <= f <= 10 for f in det.fists)
    assert det.observation(0) == obs
