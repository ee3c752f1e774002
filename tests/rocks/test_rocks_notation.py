"""Notation round trips, malformed notations, observations without leaks, determinization."""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.errors import InputError
from sim.core.game import CHANCE
from sim.core.play import play_random
from sim.rocks.game import GAME
from sim.rocks.notation import build_position
from sim.rocks.actions import DECK
from sim.rocks.rules import RocksState


def random_state(seed: int, steps: int, players: int = 3, **rules: object) -> RocksState:
    """A position after ``steps`` random actions (chance included) from a fresh game."""
    return cast(RocksState, play_random(GAME, GAME.config(players, **rules), np.random.default_rng(seed), steps=steps).state)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 600), players=st.integers(2, 5))
def test_notation_round_trips(seed: int, steps: int, players: int) -> None:
    s = random_state(seed, steps, players)
    text = s.to_notation()
    back = GAME.from_notation(text)
    assert back == s and back.to_notation() == text
    assert back.legal_actions() == s.legal_actions()
    assert back.current_player() == s.current_player()


def test_notation_keeps_rule_options() -> None:
    s = build_position(2, rules={"target_points": 12, "allow_pass": False, "guard_setup_trilithon": "discard"})
    back = GAME.from_notation(s.to_notation())
    assert back.options.target_points == 12 and back.options.allow_pass is False
    assert back.options.guard_setup_trilithon == "discard"


@pytest.mark.parametrize(
    "mutate",
    [
        lambda t: "",
        lambda t: "chess " + t,
        lambda t: t.replace("n=2", "n=7"),
        lambda t: t.replace("phase=start", "phase=lunch"),
        lambda t: t.replace("box=0/0", "box=0"),
        lambda t: t.replace("guard=20", "guard=31"),
        lambda t: t.replace("target_points:20", "target_points:0"),
        lambda t: t.replace("target_points:20", "colour:red"),
        lambda t: t.replace("hands=3/-", "hands=3.3.3/-"),  # three 3s: cards not conserved
        lambda t: t.replace("fans=9:3", "fans=9:3.4"),  # eleven fans
        lambda t: t.replace(" out=-", ""),
        lambda t: t + " extra=1",
        lambda t: t.replace("tri=-/-", "tri=1@1/-"),  # fans not conserved
    ],
)
def test_malformed_notation_raises_input_error(mutate) -> None:  # noqa: ANN001
    text = build_position(2, fans={0: {3: 1}}, hands={0: [3]}, guard=20).to_notation()
    assert "hands=3/-" in text and "fans=9:3/10:" in text
    with pytest.raises(InputError):
        GAME.from_notation(mutate(text))


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80))
def test_garbage_notation_raises_input_error(text: str) -> None:
    with pytest.raises(InputError):
        GAME.from_notation(text)


def test_observation_hides_other_hands_and_draw_order() -> None:
    s = build_position(3, hands={0: [1, 2, 3], 1: [4, 5, "T"], 2: [6]}, discard=[7, 8], guard=20)
    t = build_position(3, hands={0: [1, 2, 3], 1: [9, 10, 11], 2: [12]}, discard=[7, 8], guard=20)
    o = s.observation(0)
    assert o == t.observation(0)  # different hidden cards, same view
    assert o.hand == (1, 2, 3) and o.hand_sizes == (3, 3, 1) and o.draw_size == s.draw_n
    assert o.discard[7] == 1 and o.discard[8] == 1
    assert s.observation(1) != t.observation(1)
    text = str(o)
    assert "hands=1.2.3/?3/?1" in text and "draw=?" in text and "T.4.5" not in text


def test_determinize_samples_hidden_cards_from_unseen_cards() -> None:
    s = random_state(11, 150, players=4)
    while s.current_player() == CHANCE:
        s.apply_action(s.sample_chance(np.random.default_rng(0)))
    seat = s.current_player()
    obs = s.observation(seat)
    rng = np.random.default_rng(5)
    hands_seen = set()
    for _ in range(20):
        d = GAME.determinize(obs, rng)
        assert d.observation(seat) == obs
        assert d.legal_actions() == s.legal_actions()
        counts = [d.draw[c] + d.disc[c] + d.out[c] + sum(h.count(c) for h in d.hands) for c in range(31)]
        assert counts == list(DECK)
        hands_seen.add(tuple(sorted(d.hands[(seat + 1) % 4])))
    assert len(hands_seen) > 1  # hidden hands really are sampled


VARIANTS = [
    {"allow_pass": False},
    {"guard_setup_trilithon": "discard", "guard_card_to_discard": False},
    {"entry_offset": 1, "guard_needs_fan": False},
    {"box_seats": 2, "trilithons": 1, "tshirts_per_player": 0, "target_points": 6},
    {"hand_size": 1, "max_turns": 40},
    {"hand_size": 10, "fans_per_player": 3},
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: ",".join(r))
def test_rule_variants_keep_the_generic_invariants(rules: dict) -> None:
    from sim.core.testing import random_sim_test

    for players, seed in ((2, 1), (5, 2)):
        final = random_sim_test(GAME, GAME.config(players, **rules), seed=seed, check_every=3)
        assert final.is_terminal()
        cards = [final.draw[c] + final.disc[c] + final.out[c] + sum(h.count(c) for h in final.hands) for c in range(31)]
        assert cards == list(DECK)
