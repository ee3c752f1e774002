"""Rules of Knizia's Stonehenge: the rule text's example, claims, ties, the end, notation, matches."""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.core.errors import IllegalActionError, InputError
from sim.core.game import TERMINAL
from sim.core.play import play_random
from sim.druids.game import GAME
from sim.druids.actions import Place
from sim.druids.geometry import LINE_NAMES, LINES, NUM_LINES, POINT_NAMES
from sim.druids.pieces import MEGALITHS, STONES
from sim.druids.rules import DruidsEnd, DruidsState, record_megaliths, record_winner


def notation(moves: str, **rules: object) -> str:
    r = {"tie_loser": "last_placer", "early_domination": "tie_rule", "face_down": 0, "match_games": 1, **rules}
    return (
        f"druids|tie_loser={r['tie_loser']}|early_domination={r['early_domination']}|face_down={int(r['face_down'])}"
        f"|match_games={r['match_games']}|done={r.get('done', '')}|moves={moves}"
    )


def P(point: str, value: int) -> Place:
    return Place(POINT_NAMES.index(point), value)


LINE_C = LINE_NAMES.index("C")  # row 3: points f g h i
LINE_A = LINE_NAMES.index("A")  # row 1: points a b

# The rule text's example on line C (f g h i): the opponent (seat 1) put its 1 on g and has since
# played 2, 3, 4, 5, 6 elsewhere, holding only 3, 2, 1; brown (seat 0) now puts its 6 on f.
EXAMPLE_BEFORE = "a1g1b1c2d2e3j2m4k3n5l3o6"
EXAMPLE = EXAMPLE_BEFORE + "f6"


# --- independent reference of the claim rule (sorting hands, summing the board) -------------------
def ref_dominates(s: DruidsState, seat: int, L: int) -> bool:
    """Does ``seat`` dominate line ``L`` at the end of its turn, per docs/rules-druids.md?"""
    opp = 1 - seat
    pts = LINES[L]
    mine = sum(s.value(p) for p in pts if s.owner(p) == seat)
    theirs = sum(s.value(p) for p in pts if s.owner(p) == opp)
    empty = sum(1 for p in pts if s.owner(p) == -1)
    order = [p for p, _ in s.moves() if p in pts]
    first_placer = s.owner(order[0]) if order else None
    last_placer = s.owner(order[-1]) if order else None
    tie_last = s.options.tie_loser == "last_placer"
    if empty == 0:
        return mine > theirs or (mine == theirs and (last_placer if tie_last else first_placer) == opp)
    mode = "off" if s.options.face_down else s.options.early_domination
    if mode == "off":
        return False
    hand = sorted(s.hand(opp), reverse=True)
    best = theirs + sum(hand[:empty])
    if best < mine:
        return True
    if mode == "strict" or best != mine:
        return False
    # equal best total: it does not beat us when the opponent cannot fill the line alone (we add
    # at least 1) or when the tie it reaches by filling the line goes against it
    return len(hand) < empty or tie_last or first_placer == opp


# --- the rule text's worked example ---------------------------------------------------------------
def test_worked_example_dominates_at_once() -> None:
    before = GAME.from_notation(notation(EXAMPLE_BEFORE))
    assert before.hand(1) == (1, 2, 3)
    assert before.line_owner(LINE_C) == -1
    assert before.line_total(LINE_C, 0) == 0 and before.line_total(LINE_C, 1) == 1
    before.apply_action(P("f", 6))
    assert before.line_total(LINE_C, 0) == 6 and before.line_empty(LINE_C) == 2
    assert before.line_owner(LINE_C) == 0
    assert (LINE_C, 0, True, 13) in before.claims()


def test_worked_example_not_dominated_with_strict_rule() -> None:
    s = GAME.from_notation(notation(EXAMPLE, early_domination="strict"))
    assert s.line_owner(LINE_C) == -1
    off = GAME.from_notation(notation(EXAMPLE, early_domination="off"))
    assert off.line_owner(LINE_C) == -1


def test_worked_example_first_placer_tie_rule_depends_on_who_placed_first() -> None:
    # the opponent placed first on C: an equal total would lose for them -> dominated
    s = GAME.from_notation(notation(EXAMPLE, tie_loser="first_placer"))
    assert s.line_owner(LINE_C) == 0
    # brown placed first on C (the 6 on f before the opponent's 1 on g): an equal total would lose
    # for brown -> not dominated while two spaces are empty
    t = GAME.from_notation(notation("f6g1a1c2b1e3d2m4j2n5k3o6l3", tie_loser="first_placer"))
    assert t.hand(1) == (1, 2, 3) and t.line_total(LINE_C, 0) == 6
    assert t.line_owner(LINE_C) == -1


def test_strict_rule_needs_a_strictly_lower_best_total() -> None:
    # brown 5 against 1 + best two of (3, 2, 1) = 6: not dominated under either rule
    s = GAME.from_notation(notation("a1g1b1c2d2e3j2m6k3n5l3o4f5", early_domination="strict"))
    assert s.line_owner(LINE_C) == -1
    # brown 6 against 1 + best two of (2, 2, 1) = 5 < 6: dominated even under the strict rule
    t = GAME.from_notation(notation("a1g1b1c3d2e3j2m4k3n5l3o6f6", early_domination="strict"))
    assert t.hand(1) == (1, 2, 2)
    assert t.line_owner(LINE_C) == 0 and (LINE_C, 0, True, 13) in t.claims()


# --- ties on a full line --------------------------------------------------------------------------
def test_tie_last_placer_loses() -> None:
    s = GAME.from_notation(notation("a3b3"))
    # seat 1 filled line A with an equal total: it placed last, so it loses; seat 0 claims on its turn
    assert s.line_owner(LINE_A) == -1
    s.apply_action(P("j", 1))
    assert s.line_owner(LINE_A) == 0
    assert (LINE_A, 0, False, 3) in s.claims()


def test_tie_first_placer_loses() -> None:
    s = GAME.from_notation(notation("a3b3", tie_loser="first_placer"))
    # seat 0 placed first on line A, so seat 1 wins the tie and claims at the end of its own turn
    assert s.line_owner(LINE_A) == 1
    assert (LINE_A, 1, False, 2) in s.claims()


def test_higher_total_wins_a_full_line_whoever_placed() -> None:
    for tie in ("last_placer", "first_placer"):
        s = GAME.from_notation(notation("a2b3", tie_loser=tie))
        assert s.line_owner(LINE_A) == 1


def test_chance_arising_in_opponents_turn_waits_for_own_turn() -> None:
    # seat 1 fills line A so that seat 0 wins it; seat 0 only claims at the end of its next turn
    s = GAME.from_notation(notation("a5b1"))
    assert s.line_owner(LINE_A) == -1 and s.current_player() == 0
    s.apply_action(P("r", 1))
    assert s.line_owner(LINE_A) == 0


# --- the end of the game --------------------------------------------------------------------------
def _random_game(seed: int, **rules: object) -> tuple[DruidsState, list[DruidsState]]:
    trail: list[DruidsState] = []  # copies of every state, the start and the end included
    played = play_random(GAME, GAME.config(2, **rules), np.random.default_rng(seed),
                         before_step=lambda s, _step: trail.append(s.clone()))
    return cast(DruidsState, played.state), trail


@pytest.mark.parametrize("rules", [{}, {"face_down": True}, {"early_domination": "strict"}, {"tie_loser": "first_placer"}])
def test_game_ends_the_turn_the_eighth_megalith_is_placed(rules: dict) -> None:
    for seed in range(40):
        final, trail = _random_game(seed, **rules)
        rec = final.records()[0]
        meg = record_megaliths(rec)
        w = record_winner(rec)
        assert w is not None and meg[w] == MEGALITHS and meg[1 - w] < MEGALITHS
        out = final.outcome()
        assert out is not None and out.winners == (w,) and out.scores == (float(meg[0]), float(meg[1]))
        before = trail[-2]
        assert not before.is_terminal()
        assert max(before.megaliths(0), before.megaliths(1)) < MEGALITHS
        # the last claim was made at the final ply, and nothing more was placed afterwards
        assert rec[-1][3] == len(final.moves())
        assert final.legal_actions() == [] and final.current_player() == TERMINAL


def test_claims_stop_at_eight_megaliths() -> None:
    found = 0
    for seed in range(300):
        final, _ = _random_game(seed)
        w = record_winner(final.records()[0])
        extra = [L for L in range(NUM_LINES) if final.line_owner(L) == -1 and ref_dominates(final, w, L)]
        if extra:
            found += 1
            assert final.megaliths(w) == MEGALITHS
    assert found, "no game where the winner dominated more lines than it had megaliths"


def test_full_board_gives_the_other_seat_a_claim_only_turn() -> None:
    # without early claims the board often fills; the first player (not the 18th placer) can then
    # reach 8 only in its claim-only turn
    found = 0
    for seed in range(60):
        final, _ = _random_game(seed, early_domination="off")
        rec = final.records()[0]
        if len(final.moves()) == 18 and record_winner(rec) == final.first_player:
            found += 1
            assert any(c[1] == final.first_player and c[3] == 18 for c in rec)
    assert found


def test_all_lines_full_means_eight_for_someone() -> None:
    full = 0
    for seed in range(30):
        final, _ = _random_game(seed, early_domination="off")
        if len(final.moves()) == 18:
            full += 1
            meg = record_megaliths(final.records()[0])
            assert max(meg) == MEGALITHS
    assert full  # some games did fill the board


# --- claims are exactly the dominated lines (reference check at every turn) -------------------
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    tie=st.sampled_from(["last_placer", "first_placer"]),
    early=st.sampled_from(["tie_rule", "strict", "off"]),
    face_down=st.booleans(),
)
def test_claims_match_reference_rule_every_turn(seed: int, tie: str, early: str, face_down: bool) -> None:
    before: list[tuple[int, int]] = []  # (seat to move, claims so far) before the last step

    def check(s: DruidsState, _step: int) -> None:
        """The claims the last step added, checked on the position after it (unless it ended)."""
        if before and not s.is_terminal():
            seat, n_claims = before[-1]
            new = s.claims()[n_claims:]
            assert all(c[1] == seat for c in new)
            for L, _, early_flag, _ in new:
                assert ref_dominates(s, seat, L)
                assert early_flag == (s.line_empty(L) > 0)
            # maximal: the mover left no dominated open line unclaimed
            for L in range(NUM_LINES):
                if s.line_owner(L) == -1:
                    assert not ref_dominates(s, seat, L), f"line {LINE_NAMES[L]} left unclaimed"
        before.append((s.current_player(), len(s.claims())))

    config = GAME.config(2, tie_loser=tie, early_domination=early, face_down=face_down)
    s = cast(DruidsState, play_random(GAME, config, np.random.default_rng(seed), before_step=check).state)
    # soundness of early claims: every early-claimed line that filled up went to its claimant
    for L, seat, early_flag, _ in s.records()[-1]:
        if early_flag and s.line_empty(L) == 0:
            assert ref_dominates(s, seat, L)


# --- illegal actions ------------------------------------------------------------------------------
def test_illegal_actions_raise_and_leave_state_unchanged() -> None:
    s = GAME.from_notation(notation("a6b6"))
    before = s.to_notation()
    for bad in (P("a", 1), P("c", 6), Place(18, 1), Place(-1, 1), Place(3, 0), Place(3, 7), "c1", None):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
        assert s.to_notation() == before
    final, _ = _random_game(1)
    with pytest.raises(IllegalActionError):
        final.apply_action(P("a", 1))


def test_place_str_and_type_check() -> None:
    assert str(P("f", 6)) == "Place(f=6)"
    with pytest.raises(TypeError):
        Place("f", 6)  # type: ignore[arg-type]


def test_legal_actions_are_empty_points_times_distinct_values() -> None:
    s = GAME.new_initial_state(GAME.config(2))
    legal = s.legal_actions()
    assert len(legal) == 18 * 6 and len(set(legal)) == len(legal)
    assert s.legal_actions(1) == []
    s.apply_action(P("a", 1))
    s.apply_action(P("b", 6))
    assert {a.value for a in s.legal_actions()} == {1, 2, 3, 4, 5, 6}
    assert len(s.legal_actions()) == 16 * 6
    s.apply_action(P("c", 1))
    s.apply_action(P("d", 5))
    assert {a.value for a in s.legal_actions()} == {2, 3, 4, 5, 6}  # both 1s spent


# --- notation -------------------------------------------------------------------------------------
def test_notation_round_trip_and_history() -> None:
    final, trail = _random_game(5, match_games=2, tie_loser="first_placer")
    for s in trail:
        back = GAME.from_notation(s.to_notation())
        assert back == s and back.to_notation() == s.to_notation()
        assert back.legal_actions() == s.legal_actions()
    assert final.length() == len(final.history())


@pytest.mark.parametrize(
    "text",
    [
        "",
        "chess|",
        notation("a1a2"),  # point taken
        notation("a7"),  # no such value
        notation("a1b1c1d1e1"),  # seat 0 has only two 1s
        notation("z1"),
        notation("", tie_loser="nobody"),
        notation("", early_domination="sometimes"),
        notation("", match_games=0),
        notation("", done="A0e3"),  # a finished game needs a winner with 8 megaliths
        notation("", done="A0f1.B0f2.C0f3.D0f4.E0f5.F0f6.G0f7.H0f8"),  # match has one game only
        notation("", done="A0f1.A0f2.C0f3.D0f4.E0f5.F0f6.G0f7.H0f8", match_games=2),  # line twice
        notation("", done="Q0f1", match_games=2),
        notation("a1") + "x",
    ],
)
def test_malformed_notation_raises_input_error(text: str) -> None:
    with pytest.raises(InputError):
        GAME.from_notation(text)


def test_moves_past_the_end_of_a_game_are_rejected() -> None:
    final, _ = _random_game(3)
    moves = "".join(f"{POINT_NAMES[p]}{v}" for p, v in final.moves())
    GAME.from_notation(notation(moves))  # fine: the game ends with the last move
    # in a 2-game match the finished first game belongs in 'done', not in 'moves'
    with pytest.raises(InputError):
        GAME.from_notation(notation(moves, match_games=2))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="druids|=_;.:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO0123456789", max_size=80))
def test_notation_fuzz_only_input_errors(text: str) -> None:
    try:
        s = GAME.from_notation(text)
    except InputError:
        return
    assert GAME.from_notation(s.to_notation()) == s


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 17), st.integers(1, 6)), max_size=18))
def test_notation_fuzz_move_lists(moves: list[tuple[int, int]]) -> None:
    text = notation("".join(f"{POINT_NAMES[p]}{v}" for p, v in moves))
    try:
        s = GAME.from_notation(text)
    except InputError:
        return
    assert s.to_notation() == text
    for seat in (0, 1):
        placed = sorted(v for p, v in s.moves() if s.owner(p) == seat)
        assert sorted(placed + list(s.hand(seat))) == sorted(STONES)


# --- match play -----------------------------------------------------------------------------------
def test_match_plays_games_in_sequence_with_alternating_first_player() -> None:
    firsts = []
    games_seen = -1

    def check(s: DruidsState, step: int) -> None:
        nonlocal games_seen
        if s.is_terminal():
            return
        if step > 0:  # the position the last step left round-trips
            assert GAME.from_notation(s.to_notation()) == s
        if len(s.moves()) == 0 and len(s.records()) != games_seen:
            games_seen = len(s.records())
            firsts.append(s.current_player())
            # a new game: fresh board and hands
            assert s.hand(0) == STONES and s.hand(1) == STONES

    s = cast(DruidsState, play_random(GAME, GAME.config(2, match_games=3), np.random.default_rng(11),
                                      before_step=check).state)
    assert firsts == [0, 1, 0]
    records = s.records()
    assert len(records) == 3
    totals = [sum(record_megaliths(r)[k] for r in records) for k in (0, 1)]
    noted = [sum(MEGALITHS - record_megaliths(r)[k] for r in records if record_winner(r) != k) for k in (0, 1)]
    out = s.outcome()
    assert out is not None and out.termination is DruidsEnd.MATCH and out.termination == "match"
    assert out.scores == (float(totals[0]), float(totals[1]))
    # total megaliths = 8 * games - noted remaining megaliths: same order as the text's score
    assert totals[0] + noted[0] == totals[1] + noted[1] == 3 * MEGALITHS
    expected = () if noted[0] == noted[1] else ((0,) if noted[0] < noted[1] else (1,))
    assert out.winners == expected
    assert len(s.history()) == sum(r[-1][3] for r in records)


def test_match_with_equal_noted_totals_is_a_draw() -> None:
    draws = 0
    for seed in range(200):
        final, _ = _random_game(seed, match_games=2)
        out = final.outcome()
        assert out is not None
        if out.scores[0] == out.scores[1]:
            draws += 1
            assert out.winners == () and out.is_draw and out.returns() == (0.5, 0.5)
        else:
            assert out.winners == ((0,) if out.scores[0] > out.scores[1] else (1,))
    assert draws


def test_finished_games_in_done_are_kept() -> None:
    g0 = ".".join(f"{LINE_NAMES[i]}{0 if i < 8 else 1}f18" for i in range(15))
    s = GAME.from_notation(notation("", match_games=2, done=g0))
    assert s.current_player() == 1  # second game: seat 1 starts
    assert record_winner(s.records()[0]) == 0 and record_megaliths(s.records()[0]) == (8, 7)
    assert GAME.from_notation(s.to_notation()) == s
