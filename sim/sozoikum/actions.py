"""Sozoikum: the cards and the actions (what a seat or chance can do). No state, no I/O.

Every action is a frozen dataclass whose ``str`` is its short log form; the rules that say when
each is legal are in :mod:`sim.sozoikum.rules` (see also ``docs/rules-sozoikum.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

CAMP, GEMS, STEAL, TIGER, DUMNO, VETO = "camp", "gems", "steal", "tiger", "dumno", "veto"
CARDS: tuple[str, ...] = (CAMP, GEMS, STEAL, TIGER, DUMNO, VETO)
REUSABLE: tuple[str, ...] = (CAMP, GEMS, STEAL)
ONE_SHOT_LETTER = {TIGER: "T", DUMNO: "D", VETO: "V"}
#: fire marker in ``Dumno.target``
FIRE = -1

@dataclass(frozen=True, slots=True)
class DrawStone:
    """Chance: a stone leaves the bag for the fire. ``stone = -1`` is a never-seen stone whose
    shape seed is ``seed``; otherwise ``stone`` is the id of a stone the dumnopterix sent back."""

    stone: int
    seed: int = 0

    def __str__(self) -> str:
        return f"Draw(new seed={self.seed})" if self.stone < 0 else f"Draw(back s{self.stone})"


@dataclass(frozen=True, slots=True)
class Setup:
    """The start player's choice: cards played this round or not, and the gathering rule."""

    cards: bool
    rule: str

    def __str__(self) -> str:
        return f"Setup(cards={'on' if self.cards else 'off'}, rule={self.rule})"


@dataclass(frozen=True, slots=True)
class PlayCard:
    """A card played face down (simultaneous)."""

    card: str

    def __str__(self) -> str:
        return f"Play({self.card})"


@dataclass(frozen=True, slots=True)
class Veto:
    """The veto beneficiary sends camp player ``target`` away from the camp."""

    target: int

    def __str__(self) -> str:
        return f"Veto(seat {self.target})"


@dataclass(frozen=True, slots=True)
class Tiger:
    """The tiger beneficiary takes stone ``stone`` from seat ``target`` and keeps it."""

    target: int
    stone: int

    def __str__(self) -> str:
        return f"Tiger(s{self.stone} from seat {self.target})"


@dataclass(frozen=True, slots=True)
class Dumno:
    """The dumnopterix beneficiary returns stone ``stone`` of seat ``target`` (or of the fire,
    ``target = -1``) to the bag."""

    target: int
    stone: int

    def __str__(self) -> str:
        where = "fire" if self.target == FIRE else f"seat {self.target}"
        return f"Dumno(s{self.stone} from {where})"


@dataclass(frozen=True, slots=True)
class Bid:
    """Auction: a new standing bid of ``amount`` gems."""

    amount: int

    def __str__(self) -> str:
        return f"Bid({self.amount})"


@dataclass(frozen=True, slots=True)
class Ally:
    """Auction: offer to join the standing (single-player) bid with ``amount`` more gems."""

    amount: int

    def __str__(self) -> str:
        return f"Ally(+{self.amount})"


@dataclass(frozen=True, slots=True)
class Reply:
    """Auction: the standing bidder accepts or refuses a coalition offer."""

    accept: bool

    def __str__(self) -> str:
        return "Accept" if self.accept else "Refuse"


@dataclass(frozen=True, slots=True)
class Pass:
    """Auction: leave the auction for this round."""

    def __str__(self) -> str:
        return "Pass"


@dataclass(frozen=True, slots=True)
class Sealed:
    """Hidden bid: gems in the hand (simultaneous)."""

    amount: int

    def __str__(self) -> str:
        return f"Sealed({self.amount})"


@dataclass(frozen=True, slots=True)
class Fist:
    """Bluff: gems hidden in the fist (simultaneous)."""

    amount: int

    def __str__(self) -> str:
        return f"Fist({self.amount})"


@dataclass(frozen=True, slots=True)
class Announce:
    """Bluff: the announced bid (may exceed the fist)."""

    amount: int

    def __str__(self) -> str:
        return f"Announce({self.amount})"


@dataclass(frozen=True, slots=True)
class Challenge:
    """Bluff: challenge the highest announcement, or let it stand."""

    challenge: bool

    def __str__(self) -> str:
        return "Challenge" if self.challenge else "NoChallenge"


@dataclass(frozen=True, slots=True)
class Pick:
    """Take stone ``stone`` from the fire (coalition or tied winners, one stone at a time)."""

    stone: int

    def __str__(self) -> str:
        return f"Pick(s{self.stone})"


@dataclass(frozen=True, slots=True)
class BuildChoice:
    """Building phase: try to build now, or not this round."""

    build: bool

    def __str__(self) -> str:
        return "Build" if self.build else "NoBuild"


@dataclass(frozen=True, slots=True)
class Place:
    """Put stone ``stone`` in ``role`` (A1, A2, B1, B2, roof, in that order)."""

    role: str
    stone: int

    def __str__(self) -> str:
        return f"Place({self.role}=s{self.stone})"


@dataclass(frozen=True, slots=True)
class BuildNoise:
    """Chance: the seed of the builder's placement noise."""

    seed: int

    def __str__(self) -> str:
        return f"Noise({self.seed})"
