"""Stonehenge Rocks!: the rule options (scenario table ``[rules]``) and :class:`RocksOptions`, their
validated, frozen form that the rules, the agents and the notation read. No I/O.

``docs/rules-rocks.md`` explains each option.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.options import Option, RuleOptions

OPTIONS: tuple[Option, ...] = (
    Option("target_points", int, 20, "a seat with this many points at the end of its own turn wins", min=1, max=500),
    Option("max_turns", int, 500, "turns (all seats together) after which the game ends as a draw", min=1, max=1_000_000),
    Option("box_seats", int, 19, "box seats (bluestones), a pool shared by all seats", min=0, max=200),
    Option("trilithons", int, 5, "trilithons; a seat's first trilithon seating claims a free one", min=0, max=20),
    Option("fans_per_player", int, 10, "fans (discs) per seat", min=1, max=100),
    Option("tshirts_per_player", int, 10, "T-shirts (bars) per seat; passing 30 without one left scores nothing", min=0, max=1000),
    Option("hand_size", int, 5, "cards a hand is drawn back up to at the end of each turn", min=1, max=10),
    Option("box_points", int, 3, "points per fan in a box seat", min=0, max=100),
    Option("trilithon_points", int, 2, "points per fan on a trilithon", min=0, max=100),
    Option("tshirt_points", int, 1, "points per T-shirt", min=0, max=100),
    Option("allow_pass", bool, True, "a turn may move no fan and seat none (the guard may still move)"),
    Option("guard_needs_fan", bool, True, "the guard may only be moved to a space holding a fan of any seat"),
    Option(
        "guard_setup_trilithon",
        str,
        "reshuffle",
        "a trilithon card turned for the guard at setup: 'reshuffle' it back, or 'discard' it; then turn another",
        choices=("reshuffle", "discard"),
    ),
    Option("guard_card_to_discard", bool, True, "the guard's setup card goes to the discard pile (else out of the game)"),
    Option("entry_offset", int, 0, "0: a card k puts an entering fan on space k (space 1 is its first step); 1: on k+1", min=0, max=1),
)


@dataclass(frozen=True)
class RocksOptions(RuleOptions, options=OPTIONS):
    """The validated rule options of a game (build with :meth:`from_rules`), shared read-only by
    every state of that game."""

    target_points: int
    max_turns: int
    box_seats: int
    trilithons: int
    fans_per_player: int
    tshirts_per_player: int
    hand_size: int
    box_points: int
    trilithon_points: int
    tshirt_points: int
    allow_pass: bool
    guard_needs_fan: bool
    guard_setup_trilithon: str
    guard_card_to_discard: bool
    entry_offset: int
