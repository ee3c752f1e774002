"""Stonehenge Rocks!: the deck and the actions (interned frozen dataclasses). No state, no I/O.

The rules that say when each action is legal are in :mod:`sim.rocks.rules` (``docs/rules-rocks.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

# --- board and deck ------------------------------------------------------------------------------
SPACES = 30  #: festival spaces 1..30; index 0 of a fan array is the pile beside the board
TRILITHON_CARD = 0  #: card index of a trilithon card
NUM_CARDS = 31  #: card indices 0 (trilithon) and 1..30
DECK: tuple[int, ...] = (5,) + (2,) * SPACES  #: copies of each card in the 65-card deck
DECK_SIZE = sum(DECK)


# --- actions -------------------------------------------------------------------------------------
def card_text(card: int) -> str:
    """A card as written in actions and notations: ``T`` for a trilithon card, else its number."""
    return "T" if card == TRILITHON_CARD else str(card)


@dataclass(frozen=True, slots=True)
class Move:
    """Play number card ``card`` to move one own fan from ``space`` (0: the pile) clockwise."""

    space: int
    card: int

    def __str__(self) -> str:
        return f"enter by {self.card}" if self.space == 0 else f"move {self.space} by {self.card}"


@dataclass(frozen=True, slots=True)
class SeatBox:
    """Play the card equal to ``space`` to seat one own fan from ``space`` in a box seat."""

    space: int

    def __str__(self) -> str:
        return f"box seat from {self.space}"


@dataclass(frozen=True, slots=True)
class SeatTrilithon:
    """Play a trilithon card to seat one own fan from ``space`` on the seat's trilithon."""

    space: int

    def __str__(self) -> str:
        return f"trilithon seat from {self.space}"


@dataclass(frozen=True, slots=True)
class MoveGuard:
    """Play the card equal to ``space`` to put the security guard on ``space``."""

    space: int

    def __str__(self) -> str:
        return f"guard to {self.space}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End the turn: guard removal, win check, draw back up."""

    def __str__(self) -> str:
        return "end turn"


@dataclass(frozen=True, slots=True)
class Draw:
    """Chance outcome: the card drawn from the draw pile (a deal, the guard's card or a refill)."""

    card: int

    def __str__(self) -> str:
        return f"draw {card_text(self.card)}"


# Interned actions: legal_actions hands out these objects, so search trees hit by identity.
MOVES: tuple[tuple[Move, ...], ...] = tuple(tuple(Move(s, c) for c in range(NUM_CARDS)) for s in range(NUM_CARDS))
SEAT_BOX: tuple[SeatBox, ...] = tuple(SeatBox(s) for s in range(NUM_CARDS))
SEAT_TRI: tuple[SeatTrilithon, ...] = tuple(SeatTrilithon(s) for s in range(NUM_CARDS))
GUARD: tuple[MoveGuard, ...] = tuple(MoveGuard(s) for s in range(NUM_CARDS))
END_TURN = EndTurn()
DRAWS: tuple[Draw, ...] = tuple(Draw(c) for c in range(NUM_CARDS))
