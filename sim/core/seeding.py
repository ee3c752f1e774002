"""Seeding: a game's randomness depends only on the root seed and the game's index.

Stream ``k`` of game ``i`` is ``SeedSequence(root, spawn_key=(i, k))``: stream 0 is chance (dice,
shuffles, the thrower's hand), stream ``1 + s`` is seat ``s``'s agent. Sweep points share streams,
so two policy variants meet the same deals and throws (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CHANCE_STREAM = 0


def stream(root_seed: int, game_index: int, k: int) -> np.random.Generator:
    """The ``k``-th independent generator of game ``game_index`` under ``root_seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(root_seed, spawn_key=(game_index, k))))


@dataclass
class GameStreams:
    """The generators of one game: one for chance, one per seat's agent."""

    chance: np.random.Generator
    seats: list[np.random.Generator]


def game_streams(root_seed: int, game_index: int, num_seats: int) -> GameStreams:
    """Independent generators for game ``game_index``; independent of worker count and order."""
    return GameStreams(
        chance=stream(root_seed, game_index, CHANCE_STREAM),
        seats=[stream(root_seed, game_index, 1 + s) for s in range(num_seats)],
    )
