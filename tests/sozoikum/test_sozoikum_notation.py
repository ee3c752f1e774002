"""Notation round trips, malformed notations, observations and determinization."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sozoikum_helpers import at_cards, play

from sim.core.errors import InputError
from sim.core.play import play_random
from sim.core.testing import random_sim_test
from sim.sozoikum import actions as A
from sim.sozoikum import rules as R
from sim.sozoikum.game import GAME


def random_walk(seed: int, steps: int, n: int = 3, **rules: object) -> R.SozoikumState:
    s = R.SozoikumState.new(n, rules, [0.6] * n)
    play_random(GAME, None, np.random.default_rng(seed), state=s, steps=steps)
    return s


@given(st.integers(0, 10_000), st.integers(0, 120), st.integers(2, 5))
@settings(max_examples=40, deadline=None)
def test_notation_round_trips_anywhere(seed: int, steps: int, n: int) -> None:
    s = random_walk(seed, steps, n)
    back = GAME.from_notation(s.to_notation())
    assert back == s and back.to_notation() == s.to_notation()
    assert back.legal_actions(back.current_player() if back.current_player() >= 0 else None) == s.legal_actions(
        s.current_player() if s.current_player() >= 0 else None
    )


@given(st.integers(0, 10_000), st.integers(0, 120), st.integers(2, 5))
@settings(max_examples=30, deadline=None)
def test_observation_shows_what_the_hidden_notation_shows(seed: int, steps: int, n: int) -> None:
    # two independent channels: the typed observation read back into a state, and the notation
    # writer hiding the same fists; they must agree field for field, for every seat
    s = random_walk(seed, steps, n, gathering_rules=["bluff", "auction", "hidden"])
    for k in range(n):
        seen = R.SozoikumState.from_observation(s.observation(k))
        assert seen.to_notation() == s.to_notation(hide_for=k)
        assert seen.observation(k) == s.observation(k)


def test_notation_carries_rule_options_and_skills() -> None:
    s = R.SozoikumState.new(3, {"gathering_rules": ["bluff", "auction"], "wall_gap": 1.25, "coalitions": False}, [0.1, 0.5, 1.0])
    back = GAME.from_notation(s.to_notation())
    assert back.options == s.options and back.skills == [0.1, 0.5, 1.0]


@given(st.text(max_size=200))
@settings(max_examples=100, deadline=None)
def test_garbage_raises_input_error(text: str) -> None:
    with pytest.raises(InputError):
        GAME.from_notation(text)


@given(st.integers(0, 2000), st.integers(0, 400))
@settings(max_examples=60, deadline=None)
def test_mutated_notation_is_rejected_or_valid(seed: int, pos: int) -> None:
    good = random_walk(seed, 40).to_notation()
    i = pos % len(good)
    bad = good[:i] + "x" + good[i + 1 :]
    try:
        s = GAME.from_notation(bad)
    except InputError:
        return
    assert GAME.from_notation(s.to_notation()) == s


def test_specific_malformations() -> None:
    good = at_cards().to_notation()
    for bad in (
        good.replace("phase=cards", "phase=dance"),
        good.replace("fire=0,1", "fire=0"),  # a stone lost
        good.replace("gems=10,10,10,10", "gems=10,10,10"),
        good.replace("n=4", "n=9"),
        good.replace("wall_gap:2.0", "wall_gap:-1"),
        good + " extra=1",
        good.replace("sozoikum", "druids", 1),
    ):
        with pytest.raises(InputError):
            GAME.from_notation(bad)
    with pytest.raises(InputError):
        GAME.from_notation(good.replace("fists=-,-,-,-", "fists=?,-,-,-"))  # hidden only in observations


def test_observation_does_not_leak_fists_and_determinize_reproduces_it() -> None:
    s = at_cards(rule="bluff")
    play(s, A.CAMP, A.CAMP, A.CAMP, A.GEMS)
    s.apply_actions({0: A.Fist(7), 1: A.Fist(1), 2: A.Fist(3)})
    obs = s.observation(1)
    assert obs.fists[0] == R.SozoikumState.HIDDEN and 7 not in obs.fists
    rng = np.random.default_rng(5)
    dets = [GAME.determinize(obs, rng) for _ in range(20)]
    assert all(d.observation(1) == obs for d in dets)
    assert len({d.fists[0] for d in dets}) > 1  # sampled, not copied


def test_other_game_sizes_keep_invariants() -> None:
    for n, rules in ((5, {"card_play": "always"}), (2, {"gathering_rules": ["bluff"]}), (3, {"gathering_rules": ["auction"], "bag_stones": 12})):
        cfg = GAME.config(n, **rules)
        random_sim_test(GAME, cfg, seed=n, check_every=3)
