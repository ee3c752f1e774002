"""Sozoikum: what a position holds (the facts, copying, seat helpers, observations, notation
writing). The rules that move a position (and the endings they report) are in
:mod:`sim.sozoikum.rules`, the notation reader in :mod:`sim.sozoikum.notation`. No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, TypeVar, cast

from sim.core.game import CHANCE, SIMULTANEOUS, Action, State
from sim.sozoikum.options import OPTION_BY_NAME, SozoikumOptions
from sim.sozoikum.endings import SozoikumEnd
from sim.sozoikum.physics import PYMUNK_HOUSE, HousePhysics

#: the phases of a round, in order (``over``: the game has ended)
PHASES = (
    "draw", "setup", "cards", "effect", "auction", "reply", "hidden", "fist", "announce", "challenge",
    "pick", "decide", "place", "noise", "over",
)

_P = TypeVar("_P", bound="SozoikumPosition")


#: a build attempt in ``log``: (round, seat, stone ids in role order, stood 0/1, largest stone
#: displacement cm or -1 for a search's quick verdict, noise seed)
BuildLogEntry = tuple[int, int, tuple[int, ...], int, float, int]


@dataclass(frozen=True, slots=True)
class SozoikumObservation:
    """What one seat knows: every fact of the position, with the other seats' bluff fists hidden.

    Sozoikum hides only the fists of a bluff while they are in hand (everything else, shapes
    included, is public once drawn), so the fields are the position's own (see
    :class:`SozoikumPosition`) as tuples, and ``fists`` holds ``SozoikumPosition.HIDDEN`` for
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


class SozoikumPosition(State):
    """What a Sozoikum position holds: its facts, copying, the seat helpers, the information a
    seat gets and the notation. The rules that move it are :class:`sim.sozoikum.rules.SozoikumState`
    (build one with its ``new`` or :func:`sim.sozoikum.notation.parse_notation`); the split follows
    python-chess's ``BaseBoard`` (the pieces) and ``Board`` (the moves).

    Attributes (all public facts are plain lists/ints so agents can read a parsed observation):
        options: the validated rule options; skills: per seat placement skill.
        round, start, phase: round number (1-based), start seat, phase name.
        stones: shape seed per stone id; fresh: never-seen stones in the bag; back: ids in the bag.
        fire: stone ids on the fire; reserve: per seat stone ids; gems: per seat; mine: gems.
        oneshots: per seat the one-shot cards still in hand; played: this round's revealed cards.
        camp: seats at the camp this round, turn order from the start seat.
        fists: bluff fists per seat (None: none, or hidden in an observation: ``HIDDEN``).
        physics: judges builds (:class:`~sim.sozoikum.physics.HousePhysics`; the pymunk house
            unless the state was made with another: a search's states use
            :class:`~sim.sozoikum.physics.QuickHouse`, rules tests the double
            :class:`~sim.sozoikum.physics.ScriptedHouse`); clones share it.
    """

    HIDDEN = -99

    def __init__(self) -> None:
        self.num_players = 0
        self.options: SozoikumOptions = SozoikumOptions.from_rules({})
        self.skills: list[float] = []
        self.round = 1
        self.start = 0
        self.phase = "draw"
        self.draws_left = 0
        self.stones: list[int] = []
        self.fresh = 0
        self.back: list[int] = []
        self.fire: list[int] = []
        self.reserve: list[list[int]] = []
        self.gems: list[int] = []
        self.mine = 0
        self.oneshots: list[str] = []
        self.cards_on = False
        self.rule = ""
        self.played: list[str] = []
        self.camp: list[int] = []
        self.effects: list[tuple[str, int]] = []
        # auction
        self.act = -1
        self.high = -1
        self.holders: list[tuple[int, int]] = []
        self.out: list[int] = []
        self.offer: tuple[int, int] | None = None
        self.refused = False
        # hidden bid
        self.bidders: list[int] = []
        self.rebids = 0
        # bluff
        self.fists: list[int | None] = []
        self.ann: list[int | None] = []
        self.idx = 0
        self.chal: list[int] = []
        # picks
        self.pickers: list[int] = []
        # building
        self.queue: list[int] = []
        self.builder = -1
        self.plan: list[int] = []
        # statistics
        self.spent: list[int] = []
        self.taken: list[int] = []
        self.attempts: list[int] = []
        self.collapses: list[int] = []
        self.winner = -1
        #: a SozoikumEnd once the game is over, None while it runs
        self.termination: SozoikumEnd | None = None
        self.log: list[BuildLogEntry] = []
        self._history: list[tuple[int, Action]] = []
        self.physics: HousePhysics = PYMUNK_HOUSE


    def clone(self: _P) -> _P:
        """An independent deep copy (of the same class)."""
        c = type(self).__new__(type(self))
        d = self.__dict__.copy()
        for k in ("skills", "stones", "back", "fire", "gems", "oneshots", "played", "camp", "effects",
                  "holders", "out", "bidders", "fists", "ann", "chal", "pickers", "queue", "plan",
                  "spent", "taken", "attempts", "collapses", "log", "_history"):
            d[k] = list(d[k])
        d["reserve"] = [list(r) for r in self.reserve]
        c.__dict__ = d
        return c


    # --- helpers ----------------------------------------------------------------------------
    def order(self) -> list[int]:
        """Seats in turn order from the start seat."""
        n = self.num_players
        return [(self.start + i) % n for i in range(n)]

    def _in_order(self, seats: Sequence[int]) -> list[int]:
        pos = {s: i for i, s in enumerate(self.order())}
        return sorted(seats, key=pos.__getitem__)

    def _beneficiary(self, seats: Sequence[int]) -> int:
        ordered = self._in_order(seats)
        return ordered[-1] if self.options.beneficiary == "last" else ordered[0]

    def bag_size(self) -> int:
        """Stones in the bag."""
        return self.fresh + len(self.back)

    def _pay(self, seat: int, amount: int) -> None:
        amount = min(amount, self.gems[seat])
        self.gems[seat] -= amount
        self.mine += amount
        self.spent[seat] += amount

    def _take_fire(self, seat: int) -> None:
        self.reserve[seat].extend(self.fire)
        self.fire = []


    # --- information ------------------------------------------------------------------------
    def observation(self, seat: int) -> SozoikumObservation:
        """What ``seat`` knows: the position with the other seats' bluff fists hidden."""
        fists = tuple(f if (s == seat or f is None) else self.HIDDEN for s, f in enumerate(self.fists))
        return SozoikumObservation(
            seat=seat, num_players=self.num_players, options=self.options, skills=tuple(self.skills), round=self.round,
            start=self.start, phase=self.phase, draws_left=self.draws_left, stones=tuple(self.stones),
            fresh=self.fresh, back=tuple(self.back), fire=tuple(self.fire),
            reserve=tuple(tuple(r) for r in self.reserve), gems=tuple(self.gems), mine=self.mine,
            oneshots=tuple(self.oneshots), cards_on=self.cards_on, rule=self.rule, played=tuple(self.played),
            camp=tuple(self.camp), effects=tuple(self.effects), act=self.act, high=self.high,
            holders=tuple(self.holders), out=tuple(self.out), offer=self.offer, refused=self.refused,
            bidders=tuple(self.bidders), rebids=self.rebids, fists=fists, ann=tuple(self.ann), idx=self.idx,
            chal=tuple(self.chal), pickers=tuple(self.pickers), queue=tuple(self.queue), builder=self.builder,
            plan=tuple(self.plan), spent=tuple(self.spent), taken=tuple(self.taken),
            attempts=tuple(self.attempts), collapses=tuple(self.collapses), winner=self.winner,
            termination=self.termination, log=tuple(self.log),
        )

    def history(self) -> list[tuple[int, Action]]:
        """Applied actions: ``(seat, action)``, ``(CHANCE, outcome)`` or ``(SIMULTANEOUS, ((seat,
        action), ...))`` for a joint step. A state parsed from notation starts with an empty
        history."""
        return list(self._history)

    def length(self) -> int:
        """Decisions taken (a simultaneous step counts once per acting seat)."""
        n = 0
        for seat, a in self._history:
            if seat == SIMULTANEOUS:
                n += len(cast("tuple[tuple[int, Action], ...]", a))  # the joint step's (seat, action) pairs
            elif seat != CHANCE:
                n += 1
        return n


    # --- notation ---------------------------------------------------------------------------
    def to_notation(self, hide_for: int | None = None) -> str:
        """The compact text of this state (see :func:`parse_notation`). With ``hide_for``, the
        bluff fists of the other seats are written as ``?``."""
        n = self.num_players
        fists = self.fists
        if hide_for is not None:
            fists = [f if (s == hide_for or f is None) else self.HIDDEN for s, f in enumerate(fists)]
        parts = [
            "sozoikum",
            f"n={n}",
            "rules=" + ",".join(f"{k}:{encode_option(getattr(self.options, k))}" for k in OPTION_BY_NAME),
            "skill=" + ",".join(repr(x) for x in self.skills),
            f"round={self.round}",
            f"start={self.start}",
            f"phase={self.phase}",
            f"draws={self.draws_left}",
            "stones=" + join_ints(self.stones),
            f"fresh={self.fresh}",
            "back=" + join_ints(self.back),
            "fire=" + join_ints(self.fire),
            "res=" + "/".join(join_ints(r) for r in self.reserve),
            "gems=" + join_ints(self.gems),
            f"mine={self.mine}",
            "oneshots=" + ",".join(o or "-" for o in self.oneshots),
            f"setup={int(self.cards_on)}:{self.rule or '-'}",
            "played=" + ",".join(self.played),
            "camp=" + join_ints(self.camp),
            "effects=" + (",".join(f"{k}:{s}" for k, s in self.effects) or "-"),
            f"auction={self.act}:{self.high}:{'.'.join(f'{s}x{c}' for s, c in self.holders) or '-'}:"
            f"{join_ints(self.out, '.')}:{'-' if self.offer is None else f'{self.offer[0]}x{self.offer[1]}'}:{int(self.refused)}",
            f"hidden={join_ints(self.bidders)}:{self.rebids}",
            "fists=" + ",".join("-" if f is None else "?" if f == self.HIDDEN else str(f) for f in fists),
            "ann=" + ",".join("-" if a is None else str(a) for a in self.ann),
            f"idx={self.idx}",
            "chal=" + join_ints(self.chal),
            "pickers=" + join_ints(self.pickers),
            f"build={self.builder}:{join_ints(self.queue, '.')}:{join_ints(self.plan, '.')}",
            "spent=" + join_ints(self.spent),
            "taken=" + join_ints(self.taken),
            "attempts=" + join_ints(self.attempts),
            "collapses=" + join_ints(self.collapses),
            f"end={self.winner}:{'-' if self.termination is None else self.termination.value}",
            "log=" + (";".join(f"{r}:{s}:{'.'.join(map(str, st))}:{ok}:{d!r}:{ns}" for r, s, st, ok, d, ns in self.log) or "-"),
        ]
        return " ".join(parts)


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

