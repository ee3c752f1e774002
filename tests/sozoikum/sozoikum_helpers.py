"""Helpers for Sozoikum tests: hand-built positions (imported by the test modules)."""

from __future__ import annotations

from sim.sozoikum import actions as A
from sim.sozoikum import rules as R


def fresh(n: int = 4, skills: float = 0.7, **rules: object) -> R.SozoikumState:
    """A new game with default rules overridden by ``rules``."""
    return R.SozoikumState.new(n, rules, [skills] * n)


def draw(state: R.SozoikumState, *seeds: int) -> None:
    """Apply draw chance outcomes with the given shape seeds."""
    for s in seeds:
        state.apply_action(A.DrawStone(-1, s))


def give(state: R.SozoikumState, seat: int, *seeds: int) -> list[int]:
    """Put new stones (by shape seed) straight into a seat's reserve, taking them out of the bag."""
    ids = []
    for s in seeds:
        state.stones.append(s)
        state.fresh -= 1
        state.reserve[seat].append(len(state.stones) - 1)
        ids.append(len(state.stones) - 1)
    return ids


def at_cards(n: int = 4, rule: str = "auction", **rules: object) -> R.SozoikumState:
    """Round 1 at the simultaneous card step, ``fire_draw`` stones (seeds 11, 12, ...) on the fire."""
    s = fresh(n, **rules)
    draw(s, *(11, 12, 13, 14)[: s.options.fire_draw])
    s.apply_action(A.Setup(True, rule))
    assert s.phase == "cards"
    return s


def play(state: R.SozoikumState, *cards: str) -> None:
    """Every seat plays the card at its index."""
    state.apply_actions({i: A.PlayCard(c) for i, c in enumerate(cards)})
