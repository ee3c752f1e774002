"""Knizia's *Stonehenge*: the pieces (a seat's druid stones and megaliths) and a hand as one integer
code, with the tables indexed by it that keep sorting and counting out of the turn. No state, no I/O.

``docs/rules-druids.md`` states the rules; the board is in :mod:`sim.druids.geometry`.
"""

from __future__ import annotations

from sim.druids.geometry import LINE_LENGTH

#: one seat's druid stones
STONES: tuple[int, ...] = (1, 1, 2, 2, 3, 3, 4, 5, 6)
#: megaliths per seat; placing the last one wins
MEGALITHS = 8
MAX_VALUE = max(STONES)

# A hand (multiset of unplaced stones) is one int in a mixed radix: digit v counts the stones of
# value v. Tables indexed by that code replace per-turn sorting and counting in the hot path.
_COUNT_MAX = tuple(STONES.count(v) for v in range(MAX_VALUE + 1))
_WEIGHT: list[int] = [0] * (MAX_VALUE + 1)
_w = 1
for _v in range(1, MAX_VALUE + 1):
    _WEIGHT[_v] = _w
    _w *= _COUNT_MAX[_v] + 1
NUM_HAND_CODES = _w
WEIGHT: tuple[int, ...] = tuple(_WEIGHT)
FULL_HAND = sum(WEIGHT[v] for v in STONES)


def hand_counts(code: int) -> tuple[int, ...]:
    """Counts of each value 0..6 (index 0 unused, always 0) in the hand ``code``."""
    out = [0] * (MAX_VALUE + 1)
    for v in range(1, MAX_VALUE + 1):
        out[v] = code // WEIGHT[v] % (_COUNT_MAX[v] + 1)
    return tuple(out)


def _best_prefix(code: int) -> tuple[int, ...]:
    """best[k] = sum of the k highest stones of the hand (k = 0..longest line), saturating."""
    vals = sorted((v for v in range(MAX_VALUE, 0, -1) for _ in range(hand_counts(code)[v])), reverse=True)
    longest = max(LINE_LENGTH)
    out, s = [0], 0
    for k in range(longest):
        if k < len(vals):
            s += vals[k]
        out.append(s)
    return tuple(out)


#: per hand code: the distinct values held, ascending
HAND_VALUES: tuple[tuple[int, ...], ...] = tuple(
    tuple(v for v in range(1, MAX_VALUE + 1) if hand_counts(c)[v]) for c in range(NUM_HAND_CODES)
)
#: per hand code: best-k prefix sums
HAND_BEST: tuple[tuple[int, ...], ...] = tuple(_best_prefix(c) for c in range(NUM_HAND_CODES))
#: per hand code: number of stones
HAND_SIZE: tuple[int, ...] = tuple(sum(hand_counts(c)) for c in range(NUM_HAND_CODES))
