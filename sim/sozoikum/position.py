"""Sozoikum's position as plain data: the phases of a round, what one seat knows of a position
(:class:`SozoikumObservation`, every fact of it as an immutable record), a build attempt's log entry
and the notation's codec (keys, integer lists, option values). The state that holds the facts and
moves them is :class:`sim.sozoikum.rules.SozoikumState` (it writes the notation), the notation reader
:mod:`sim.sozoikum.notation`. No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from sim.sozoikum.options import OPTION_BY_NAME, SozoikumOptions
from sim.sozoikum.endings import SozoikumEnd

#: a bluff fist another seat holds, as an observation (and a notation written for one seat) shows it
HIDDEN = -99

#: the phases of a round, in order (``over``: the game has ended)
PHASES = (
    "draw", "setup", "cards", "effect", "auction", "reply", "hidden", "fist", "announce", "challenge",
    "pick", "decide", "place", "noise", "over",
)

#: a build attempt in ``log``: (round, seat, stone ids in role order, stood 0/1, largest stone
#: displacement cm or -1 for a search's quick verdict, noise seed)
BuildLogEntry = tuple[int, int, tuple[int, ...], int, float, int]


@dataclass(frozen=True, slots=True)
class SozoikumObservation:
    """What one seat knows: every fact of the position, with the other seats' bluff fists hidden.

    Sozoikum hides only the fists of a bluff while they are in hand (everything else, shapes
    included, is public once drawn), so the fields are the position's own (see
    :class:`~sim.sozoikum.rules.SozoikumState`) as tuples, and ``fists`` holds :data:`HIDDEN` for
    every other seat's fist in hand. Two observations are equal iff the seat knows the same.
    ``SozoikumState.from_observation`` turns one back into a state (hidden fists stay HIDDEN) for
    an agent to read or a search to determinize.

    Attributes:
        seat: the observer.
        options: the rule options (public).
        fists: per seat, the fist (gems), None when none, or HIDDEN.
        log: the build attempts so far (:data:`BuildLogEntry`).
    """

    seat: int
    num_players: int
    options: SozoikumOptions
    skills: tuple[float, ...]
    round: int
    start: int
    phase: str
    draws_left: int
    stones: tuple[int, ...]
    fresh: int
    back: tuple[int, ...]
    fire: tuple[int, ...]
    reserve: tuple[tuple[int, ...], ...]
    gems: tuple[int, ...]
    mine: int
    oneshots: tuple[str, ...]
    cards_on: bool
    rule: str
    played: tuple[str, ...]
    camp: tuple[int, ...]
    effects: tuple[tuple[str, int], ...]
    act: int
    high: int
    holders: tuple[tuple[int, int], ...]
    out: tuple[int, ...]
    offer: tuple[int, int] | None
    refused: bool
    bidders: tuple[int, ...]
    rebids: int
    fists: tuple[int | None, ...]
    ann: tuple[int | None, ...]
    idx: int
    chal: tuple[int, ...]
    pickers: tuple[int, ...]
    queue: tuple[int, ...]
    builder: int
    plan: tuple[int, ...]
    spent: tuple[int, ...]
    taken: tuple[int, ...]
    attempts: tuple[int, ...]
    collapses: tuple[int, ...]
    winner: int
    termination: SozoikumEnd | None
    log: tuple[BuildLogEntry, ...]


# --- notation codec ---------------------------------------------------------------------------


def join_ints(xs: Sequence[int], sep: str = ",") -> str:
    """``xs`` joined by ``sep``; ``-`` for an empty list (a notation field is never empty)."""
    return sep.join(map(str, xs)) if xs else "-"


def split_ints(text: str, sep: str = ",") -> list[int]:
    """The inverse of :func:`join_ints` (raises ValueError on a non-integer item)."""
    return [] if text == "-" else [int(x) for x in text.split(sep)]


def encode_option(v: Any) -> str:
    """A rule option value as notation text (floats by ``repr``, so they read back exactly)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "+".join(v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def decode_option(name: str, text: str) -> Any:
    """The inverse of :func:`encode_option` for rule option ``name`` (raises ValueError, KeyError)."""
    opt = OPTION_BY_NAME[name]
    if opt.type is bool:
        if text not in ("true", "false"):
            raise ValueError(f"{name}: expected true/false")
        return text == "true"
    if opt.type is int:
        return int(text)
    if opt.type is float:
        return float(text)
    if opt.type is list:
        return text.split("+") if text else []
    return text


NOTATION_KEYS = (
    "n", "rules", "skill", "round", "start", "phase", "draws", "stones", "fresh", "back", "fire", "res",
    "gems", "mine", "oneshots", "setup", "played", "camp", "effects", "auction", "hidden", "fists", "ann",
    "idx", "chal", "pickers", "build", "spent", "taken", "attempts", "collapses", "end", "log",
)

