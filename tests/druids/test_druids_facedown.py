"""The face-down variant: hidden values, turning stones over, no early claims, determinization."""

from __future__ import annotations

import numpy as np
import pytest

from sim.core.play import play_random
from sim.druids.game import GAME
from sim.druids.actions import Place
from sim.druids.geometry import LINES, POINT_LINES
from sim.druids.pieces import STONES
from sim.druids.rules import HIDDEN, DruidsState

RULES = {"tie_loser": "last_placer", "early_domination": "tie_rule", "face_down": True, "match_games": 1}


def _prefixes(seed: int, rules: dict = RULES) -> list[DruidsState]:
    out: list[DruidsState] = []  # copies of every state, the start and the end included
    play_random(GAME, GAME.config(2, **rules), np.random.default_rng(seed), before_step=lambda s, _step: out.append(s.clone()))
    return out


def _reassign_hidden(s: DruidsState, seat: int, rng: np.random.Generator) -> DruidsState:
    """The same position with the opponent's face-down values redrawn from their unseen stones."""
    opp = 1 - seat
    moves = list(s.moves())
    hidden = [i for i, (p, _) in enumerate(moves) if s.owner(p) == opp and not s.is_face_up(p)]
    unseen = list(STONES)
    for p, v in moves:
        if s.owner(p) == opp and s.is_face_up(p):
            unseen.remove(v)
    pick = rng.permutation(len(unseen))
    for j, i in enumerate(hidden):
        moves[i] = (moves[i][0], unseen[int(pick[j])])
    return DruidsState.from_parts(s.options, s.records()[:-1] if s.is_terminal() else s.records(), moves)


@pytest.mark.parametrize("seed", range(8))
def test_observation_leaks_no_hidden_value(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    changed = 0
    for s in _prefixes(seed):
        for seat in (0, 1):
            twin = _reassign_hidden(s, seat, rng)
            if twin.moves() != s.moves() or twin.hand(1 - seat) != s.hand(1 - seat):
                changed += 1
            assert twin.observation(seat) == s.observation(seat)
    assert changed  # the check compared genuinely different hidden states


def test_observation_shows_own_values_and_hides_opponents() -> None:
    s = GAME.new_initial_state(GAME.config(2, face_down=True))
    s.apply_action(Place(9, 5))  # seat 0 puts a 5 on j
    assert s.observation(0).values == (5,)
    assert s.observation(1).values == (HIDDEN,)
    assert s.observation(1).hand == STONES and s.observation(0).hand == (1, 1, 2, 2, 3, 3, 4, 6)
    assert not s.is_face_up(9)
    # the face-up game shows everything
    u = GAME.new_initial_state(GAME.config(2))
    u.apply_action(Place(9, 5))
    assert u.observation(1).values == (5,)


def test_stones_turn_face_up_when_any_of_their_lines_is_full() -> None:
    s = GAME.new_initial_state(GAME.config(2, face_down=True))
    s.apply_action(Place(0, 4))  # seat 0: a=4 (lines A, F, L)
    s.apply_action(Place(1, 2))  # seat 1: b=2 fills line A (a b)
    assert s.is_face_up(0) and s.is_face_up(1)
    assert s.observation(1).values == (4, 2) and s.observation(0).values == (4, 2)
    s.apply_action(Place(5, 6))  # seat 0: f=6, its lines are not full
    assert not s.is_face_up(5) and s.observation(1).values == (4, 2, HIDDEN)


def test_revealed_values_match_full_lines_throughout() -> None:
    for seed in range(10):
        for s in _prefixes(seed):
            for p, _ in s.moves():
                full = any(s.line_empty(L) == 0 for L in POINT_LINES[p])
                assert s.is_face_up(p) == full


def test_no_early_claims_face_down_whatever_the_option() -> None:
    for early in ("tie_rule", "strict"):
        for seed in range(20):
            final = _prefixes(seed, {**RULES, "early_domination": early})[-1]
            claims = final.records()[0]
            assert claims and all(not c[2] for c in claims)
            assert all(final.line_empty(c[0]) == 0 for c in claims)


def test_determinize_samples_hidden_values_from_unseen_stones() -> None:
    s = _prefixes(4)[9]
    seat = s.current_player()
    obs = s.observation(seat)
    seen = set()
    for k in range(30):
        d = GAME.determinize(obs, np.random.default_rng(k))
        assert d.observation(seat) == obs
        assert d.legal_actions() == s.legal_actions()
        assert sorted(d.hand(seat)) == sorted(s.hand(seat))
        opp = 1 - seat
        placed = [v for p, v in d.moves() if d.owner(p) == opp]
        assert sorted(placed + list(d.hand(opp))) == sorted(STONES)
        seen.add(tuple(v for p, v in d.moves() if d.owner(p) == opp and not d.is_face_up(p)))
    assert len(seen) > 1


def test_determinize_face_up_is_exact() -> None:
    for s in _prefixes(2, {**RULES, "face_down": False}):
        if s.is_terminal():
            continue
        d = GAME.determinize(s.observation(s.current_player()), np.random.default_rng(0))
        assert d.to_notation() == s.to_notation()


def test_line_points_helper_is_consistent() -> None:
    # every point's lines contain it (guards the precomputed membership tuples used on the hot path)
    for p, lines in enumerate(POINT_LINES):
        assert all(p in LINES[L] for L in lines)
