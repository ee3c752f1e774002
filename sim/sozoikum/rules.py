"""Sozoikum: the rules engine (state, actions, legal moves, notation). No I/O.

Players build a house of five stones won at the campfire; the first house that stands wins.
``docs/rules-sozoikum.md`` lists every decision beyond the rule text; the short form:

State
    Each seat: a reserve of stones, gems (public counts), the three one-shot cards it still holds
    (tiger ``T``, dumnopterix ``D``, veto ``V``; camp, gems and steal are never used up). The mine's
    gems; the bag (``fresh`` stones never seen yet, plus stones the dumnopterix sent back, known by
    id); the fire (stones nobody took stay there). Every stone that left the bag has an id and a
    shape seed (``stones.stone_shape``): its shape is drawn by chance **when it is first drawn from
    the bag** (so nothing about the bag is hidden), and it keeps that shape for the game.

A round (the start seat is seat 0 in round 1 and moves one seat left each round)
    1. Chance: ``fire_draw`` stones from the bag to the fire (``DrawStone``; fewer if the bag is
       short).
    2. The start seat chooses cards on/off and the gathering rule (``Setup``) among those the
       options allow (auto-applied when there is only one choice).
    3. Cards on: a SIMULTANEOUS step, every seat plays one card face down (``PlayCard``), revealed
       together. Resolution, in this order: gatherers take ``gather_gems`` each from the mine (in
       turn order from the start seat while the mine lasts); an odd number of steal cards gives
       the beneficiary everything the gatherers just took; then the veto, tiger and dumnopterix
       beneficiaries choose their targets (``Veto``, ``Tiger``, ``Dumno``), each only if the count of
       that card is odd. The beneficiary of a card is the player furthest from the start seat in
       turn order among those who played it (option ``beneficiary``). Cards off: everyone is at
       the camp.
    4. Gathering among the camp players (those who played camp, minus a vetoed one): nobody, or an
       empty fire: nothing; one player: takes the whole fire free; more: the round's rule, auction
       (``Bid``/``Ally``/``Reply``/``Pass``), hidden bid (SIMULTANEOUS ``Sealed``) or bluff
       (SIMULTANEOUS ``Fist``, then ``Announce`` in turn order, then ``Challenge``). Coalition and
       tie winners take their stones one by one with ``Pick``.
    5. Building, in turn order from the start seat: a seat holding 5 or more stones may build
       (``BuildChoice``), assigns five of its stones to the roles A1, A2, B1, B2, roof (``Place``),
       and chance draws the placement noise (``BuildNoise``); the state's ``physics`` decides (the
       :class:`HousePhysics` protocol; the game's is :class:`PymunkHouse`, the 2-D simulation of
       ``house.build_house``; :class:`ScriptedHouse` is a test double). The
       first house that stands ends the game (that seat wins); a collapse costs only the turn.
    The game also ends, as a draw, after ``max_rounds`` rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence, cast

import numpy as np

from sim.core.errors import InputError, ScenarioError
from sim.core.game import CHANCE, SIMULTANEOUS, TERMINAL, Action, Outcome, State
from sim.core.options import Option, validate_options
from sim.sozoikum import house as _house
from sim.sozoikum.stones import SEED_BOUND, stone_info

# --- constants --------------------------------------------------------------------------------

CAMP, GEMS, STEAL, TIGER, DUMNO, VETO = "camp", "gems", "steal", "tiger", "dumno", "veto"
CARDS: tuple[str, ...] = (CAMP, GEMS, STEAL, TIGER, DUMNO, VETO)
REUSABLE: tuple[str, ...] = (CAMP, GEMS, STEAL)
ONE_SHOT_LETTER = {TIGER: "T", DUMNO: "D", VETO: "V"}
GATHERING_RULES: tuple[str, ...] = ("auction", "hidden", "bluff")
ROLES = _house.ROLES
#: stones in a house
HOUSE_STONES = 5
#: fire marker in ``Dumno.target``
FIRE = -1
#: noise seeds for builds are drawn below this bound
NOISE_BOUND = 2**31

MAX_PLAYERS = 5


def _check_rules_list(value: list) -> str | None:
    if not value:
        return "at least one gathering rule is needed"
    bad = [v for v in value if v not in GATHERING_RULES]
    if bad:
        return f"unknown gathering rule(s) {bad}; allowed: {', '.join(GATHERING_RULES)}"
    if len(set(value)) != len(value):
        return "a gathering rule is listed twice"
    return None


OPTIONS: tuple[Option, ...] = (
    Option("bag_stones", int, 40, "stones in the bag at the start", min=5, max=500),
    Option("mine_gems", int, 60, "gems in the mine at the start", min=0, max=10_000),
    Option("start_gems", int, 10, "gems each player starts with", min=0, max=1000),
    Option("gather_gems", int, 5, "gems the 'gather gems' card takes from the mine", min=0, max=1000),
    Option("fire_draw", int, 2, "stones the start player puts on the fire each round", min=1, max=10),
    Option(
        "card_play",
        str,
        "choice",
        "'choice': the start player decides each round whether cards are played; 'always'; 'never'",
        choices=("choice", "always", "never"),
    ),
    Option(
        "gathering_rules",
        list,
        list(GATHERING_RULES),
        "gathering rules the start player may choose from (auction, hidden, bluff)",
        item_type=str,
        check=_check_rules_list,
    ),
    Option(
        "beneficiary",
        str,
        "last",
        "who benefits from an odd count of steal/tiger/dumnopterix/veto cards: the player 'last' "
        "(furthest) or 'first' (nearest) from the start player in turn order",
        choices=("last", "first"),
    ),
    Option("coalitions", bool, True, "auction: a player may join the standing bid as a two-player coalition"),
    Option("hidden_rebids", int, 3, "hidden bid: rebids after a tie of more than two before the stones stay", min=0, max=20),
    Option("announce_max", int, 20, "bluff: the highest announcement allowed (gems)", min=1, max=1000),
    Option("max_rounds", int, 60, "rounds before the game ends as a draw", min=1, max=10_000),
    Option("house_tolerance", float, 1.0, "cm a stone's centroid may end from where it was released", min=0.01, max=50.0),
    Option(
        "house_fall_tilt",
        float,
        20.0,
        "degrees a stone may end turned from lying flat on its longest edge (default: 3 sd of a "
        "stone's top-face slant, 6.9 deg)",
        min=5.0,
        max=90.0,
    ),
    Option(
        "house_ground_margin",
        float,
        0.1,
        "cm above the ground within which a top stone or the roof touches it (and fell); between "
        "pymunk's resting overlap (0.02) and the lowest bottom stone (0.9 at the default sizes)",
        min=0.02,
        max=0.5,
    ),
    Option("wall_gap", float, 2.0, "cm between the two walls (the door)", min=0.1, max=30.0),
    Option("stone_size_min", float, 3.0, "cm, smallest stone (largest extent)", min=0.5, max=50.0),
    Option("stone_size_max", float, 8.0, "cm, largest stone (largest extent)", min=0.5, max=50.0),
    Option("stone_friction", float, 0.7, "friction coefficient of stone on stone and on the ground", min=0.0, max=3.0),
    Option("placement_noise_cm", float, 1.0, "placement offset sd (cm) at skill 0; scaled by 1 - skill", min=0.0, max=20.0),
    Option("placement_noise_deg", float, 6.0, "placement turn sd (degrees) at skill 0; scaled by 1 - skill", min=0.0, max=90.0),
)

SEAT_OPTIONS: tuple[Option, ...] = (
    Option("skill", float, 0.7, "the builder's placement skill: 1 places exactly, 0 with full noise", min=0.0, max=1.0),
)

_OPT = {o.name: o for o in OPTIONS}


@dataclass(frozen=True)
class BuildVerdict:
    """What the rules learn from a build: whether the house stood, why not (``reason`` as in
    :class:`sim.sozoikum.house.HouseResult`), and the largest stone displacement (cm)."""

    stood: bool
    reason: str
    max_displacement: float


class HousePhysics(Protocol):
    """What the rules need from physics. Implementations must be deterministic: the same stones,
    skill, noise seed and rules give the same verdict."""

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, rules: Mapping[str, Any]) -> BuildVerdict:
        """Build the house of stones with shape ``seeds`` (roles A1, A2, B1, B2, roof) and judge it."""
        ...


class PymunkHouse:
    """:class:`HousePhysics` by the 2-D simulation of :func:`sim.sozoikum.house.build_house` (the
    game's physics; stateless)."""

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, rules: Mapping[str, Any]) -> BuildVerdict:
        """See :meth:`HousePhysics.build`."""
        res = build_from_seeds(seeds, skill, noise_seed, rules)
        return BuildVerdict(res.stood, res.reason, res.max_displacement)


class ScriptedHouse:
    """Deterministic test double of :class:`HousePhysics`: build number ``k`` (counted from 0 over
    every state sharing this object, clones included) stands iff ``k`` is in ``stands``; a
    collapse reports the roof moved ``fall_cm``. ``calls`` records every request
    ``(seeds, skill, noise_seed)``."""

    def __init__(self, stands: Sequence[int] = (), fall_cm: float = 5.0) -> None:
        self.stands = set(stands)
        self.fall_cm = fall_cm
        self.calls: list[tuple[tuple[int, ...], float, int]] = []

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, rules: Mapping[str, Any]) -> BuildVerdict:
        """See :meth:`HousePhysics.build`."""
        k = len(self.calls)
        self.calls.append((tuple(seeds), skill, noise_seed))
        if k in self.stands:
            return BuildVerdict(True, "stands", 0.0)
        return BuildVerdict(False, f"roof moved {self.fall_cm:.2f} cm", self.fall_cm)


def house_params(rules: Mapping[str, Any], hold_time: float = 0.0) -> _house.HouseParams:
    """The physical build settings of a rule set."""
    return _house.HouseParams(
        tolerance=rules["house_tolerance"],
        fall_tilt=rules["house_fall_tilt"],
        ground_margin=rules["house_ground_margin"],
        wall_gap=rules["wall_gap"],
        friction=rules["stone_friction"],
        noise_cm=rules["placement_noise_cm"],
        noise_deg=rules["placement_noise_deg"],
        hold_time=hold_time,
    )


# --- actions ----------------------------------------------------------------------------------


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


# --- state ------------------------------------------------------------------------------------

_PHASES = (
    "draw",
    "setup",
    "cards",
    "effect",
    "auction",
    "reply",
    "hidden",
    "fist",
    "announce",
    "challenge",
    "pick",
    "decide",
    "place",
    "noise",
    "over",
)


class SozoikumState(State):
    """A Sozoikum position. Build with :meth:`new` or :func:`parse_notation`.

    Attributes (all public facts are plain lists/ints so agents can read a parsed observation):
        rules: the validated rule options; skills: per seat placement skill.
        round, start, phase: round number (1-based), start seat, phase name.
        stones: shape seed per stone id; fresh: never-seen stones in the bag; back: ids in the bag.
        fire: stone ids on the fire; reserve: per seat stone ids; gems: per seat; mine: gems.
        oneshots: per seat the one-shot cards still in hand; played: this round's revealed cards.
        camp: seats at the camp this round, turn order from the start seat.
        fists: bluff fists per seat (None: none, or hidden in an observation: ``HIDDEN``).
        fast_build: search-only shortcut, see :func:`sim.sozoikum.house.quick_verdict`.
        physics: judges builds (:class:`HousePhysics`; :class:`PymunkHouse` unless the state was
            made with another, e.g. the test double :class:`ScriptedHouse`); clones share it.
    """

    HIDDEN = -99

    def __init__(self) -> None:
        self.num_players = 0
        self.rules: dict[str, Any] = {}
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
        self.termination = ""
        self.log: list[tuple[int, int, tuple[int, ...], int, float, int]] = []
        self._history: list[tuple[int, Action]] = []
        self.fast_build = False
        self.physics: HousePhysics = PymunkHouse()

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def new(
        cls, num_players: int, rules: Mapping[str, Any], skills: Sequence[float], physics: HousePhysics | None = None
    ) -> "SozoikumState":
        """The start of a game; houses are judged by ``physics`` (default :class:`PymunkHouse`).

        Raises:
            ScenarioError: bad player count, rules or skills.
        """
        if not 2 <= num_players <= MAX_PLAYERS:
            raise ScenarioError(f"Sozoikum takes 2 to {MAX_PLAYERS} players, got {num_players}", key="seats")
        r = validate_options(dict(rules), OPTIONS, prefix="rules")
        if r["stone_size_min"] > r["stone_size_max"]:
            raise ScenarioError("stone_size_min must not exceed stone_size_max", key="rules.stone_size_min")
        if len(skills) != num_players:
            raise ScenarioError(f"need {num_players} skills, got {len(skills)}", key="seats")
        s = cls()
        s.num_players = num_players
        s.rules = r
        s.skills = [float(SEAT_OPTIONS[0].validate(float(k), key="skill")) for k in skills]
        s.fresh = r["bag_stones"]
        s.reserve = [[] for _ in range(num_players)]
        s.gems = [r["start_gems"]] * num_players
        s.mine = r["mine_gems"]
        s.oneshots = ["TDV"] * num_players
        s.played = ["-"] * num_players
        s.fists = [None] * num_players
        s.ann = [None] * num_players
        s.spent = [0] * num_players
        s.taken = [0] * num_players
        s.attempts = [0] * num_players
        s.collapses = [0] * num_players
        s.draws_left = r["fire_draw"]
        s.phase = "draw"
        if physics is not None:
            s.physics = physics
        s._normalize()
        return s

    def clone(self) -> "SozoikumState":
        """An independent deep copy."""
        c = SozoikumState.__new__(SozoikumState)
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
        return ordered[-1] if self.rules["beneficiary"] == "last" else ordered[0]

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

    # --- turn structure ---------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to move, CHANCE, SIMULTANEOUS or TERMINAL."""
        ph = self.phase
        if ph == "over":
            return TERMINAL
        if ph in ("draw", "noise"):
            return CHANCE
        if ph in ("cards", "hidden", "fist"):
            return SIMULTANEOUS
        if ph == "setup":
            return self.start
        if ph == "effect":
            return self.effects[0][1]
        if ph == "auction":
            return self.act
        if ph == "reply":
            return self.holders[0][0]
        if ph == "announce":
            return self.camp[self.idx]
        if ph == "challenge":
            return self.chal[0]
        if ph == "pick":
            return self.pickers[0]
        return self.builder  # decide, place

    def simultaneous_seats(self) -> tuple[int, ...]:
        """Seats acting at a SIMULTANEOUS step."""
        if self.phase == "cards":
            return tuple(range(self.num_players))
        if self.phase == "hidden":
            return tuple(self.bidders)
        if self.phase == "fist":
            return tuple(self.camp)
        return ()

    def _setups(self) -> list[Setup]:
        cp = self.rules["card_play"]
        cards = (True, False) if cp == "choice" else (cp == "always",)
        return [Setup(c, r) for c in cards for r in self.rules["gathering_rules"]]

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Legal actions of ``seat`` (default: the seat to move); empty at chance nodes, at the end,
        and for a seat that does not act now."""
        p = self.current_player()
        if p == TERMINAL or p == CHANCE:
            return []
        if p == SIMULTANEOUS:
            if seat is None or seat not in self.simultaneous_seats():
                return []
            if self.phase == "cards":
                hand = self.oneshots[seat]
                return [PlayCard(c) for c in CARDS if c in REUSABLE or ONE_SHOT_LETTER[c] in hand]
            if self.phase == "hidden":
                return [Sealed(x) for x in range(self.gems[seat] + 1)]
            return [Fist(x) for x in range(self.gems[seat] + 1)]
        if seat is not None and seat != p:
            return []
        ph = self.phase
        if ph == "setup":
            return list(self._setups())
        if ph == "effect":
            kind, b = self.effects[0]
            if kind == VETO:
                return [Veto(t) for t in self.camp]
            if kind == TIGER:
                return [Tiger(t, st) for t in self.order() if t != b for st in self.reserve[t]]
            out: list[Action] = [Dumno(FIRE, st) for st in self.fire]
            out += [Dumno(t, st) for t in self.order() if t != b for st in self.reserve[t]]
            return out
        if ph == "auction":
            out = [Pass()]
            out += [Bid(x) for x in range(self.high + 1, self.gems[p] + 1)]
            if self.rules["coalitions"] and len(self.holders) == 1 and not self.refused:
                out += [Ally(x) for x in range(1, self.gems[p] + 1)]
            return out
        if ph == "reply":
            return [Reply(True), Reply(False)]
        if ph == "announce":
            return [Announce(x) for x in range(self.rules["announce_max"] + 1)]
        if ph == "challenge":
            return [Challenge(True), Challenge(False)]
        if ph == "pick":
            return [Pick(st) for st in self.fire]
        if ph == "decide":
            return [BuildChoice(True), BuildChoice(False)]
        # place
        return [Place(ROLES[len(self.plan)], st) for st in self.reserve[p] if st not in self.plan]

    # --- chance -----------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """Discrete outcomes are too many to list (shape and noise seeds); use sample_chance."""
        return []

    def sample_chance(self, rng: np.random.Generator) -> Action:
        """Draw a stone from the bag (a never-seen stone gets a fresh shape seed) or a build noise
        seed.

        Raises:
            RuntimeError: not at a chance node.
        """
        if self.phase == "draw":
            k = int(rng.integers(self.bag_size()))
            if k < len(self.back):
                return DrawStone(self.back[k])
            return DrawStone(-1, int(rng.integers(SEED_BOUND)))
        if self.phase == "noise":
            return BuildNoise(int(rng.integers(NOISE_BOUND)))
        raise RuntimeError("not a chance node")

    # --- applying ---------------------------------------------------------------------------
    def apply_action(self, action: Action) -> None:
        """Apply one action of the seat to move or a chance outcome.

        Raises:
            IllegalActionError: not legal here (the state is unchanged).
        """
        p = self.current_player()
        if p == TERMINAL:
            raise self._illegal(action, "the game is over")
        if p == SIMULTANEOUS:
            raise self._illegal(action, "a simultaneous step: use apply_actions")
        if p == CHANCE:
            self._apply_chance(action)
            self._history.append((CHANCE, action))
            self._normalize()
            return
        if not self._is_legal(p, action):
            raise self._illegal(action, "not among the legal actions")
        self._history.append((p, action))
        self._apply(p, action)
        self._normalize()

    def _is_legal(self, p: int, action: Action) -> bool:
        ph = self.phase
        # fast paths for the large action families; everything else by membership
        if ph == "auction":
            if type(action) is Pass:
                return True
            if type(action) is Bid:
                return self.high < action.amount <= self.gems[p]
            if type(action) is Ally:
                return (
                    self.rules["coalitions"] and len(self.holders) == 1 and not self.refused
                    and 1 <= action.amount <= self.gems[p]
                )
            return False
        if ph == "announce":
            return type(action) is Announce and 0 <= action.amount <= self.rules["announce_max"]
        try:
            return action in self.legal_actions(p)
        except TypeError:
            return False

    def _apply_chance(self, a: Action) -> None:
        if self.phase == "draw":
            if type(a) is not DrawStone:
                raise self._illegal(a, "a stone must be drawn")
            if a.stone < 0:
                if self.fresh <= 0 or not 0 <= a.seed < SEED_BOUND:
                    raise self._illegal(a, "no fresh stone in the bag or seed out of range")
                self.stones.append(a.seed)
                self.fresh -= 1
                self.fire.append(len(self.stones) - 1)
            else:
                if a.stone not in self.back:
                    raise self._illegal(a, "that stone is not in the bag")
                self.back.remove(a.stone)
                self.fire.append(a.stone)
            self.draws_left -= 1
            return
        if type(a) is not BuildNoise or not 0 <= a.seed < NOISE_BOUND:
            raise self._illegal(a, "a build noise seed is due")
        self._resolve_build(a.seed)

    def apply_actions(self, joint: Mapping[int, Action]) -> None:
        """Apply one action per acting seat at a SIMULTANEOUS step (cards, sealed bids, fists).

        Raises:
            IllegalActionError: not a simultaneous step, a seat missing or extra, or an illegal
                action (the state is unchanged).
        """
        if self.current_player() != SIMULTANEOUS:
            raise self._illegal(joint, "not a simultaneous step")
        seats = self.simultaneous_seats()
        if set(joint) != set(seats):
            raise self._illegal(joint, f"expected actions of seats {list(seats)}", seat=SIMULTANEOUS)
        for s in seats:
            if joint[s] not in self.legal_actions(s):
                raise self._illegal(joint[s], "not among the legal actions", seat=s)
        self._history.append((SIMULTANEOUS, tuple(sorted(joint.items()))))
        # every action is legal (checked above), so of the phase's one action type
        if self.phase == "cards":
            self._resolve_cards({s: cast(PlayCard, joint[s]).card for s in seats})
        elif self.phase == "hidden":
            self._resolve_hidden({s: cast(Sealed, joint[s]).amount for s in seats})
        else:
            for s in seats:
                self.fists[s] = cast(Fist, joint[s]).amount
            self.phase = "announce"
            self.idx = 0
        self._normalize()

    def _apply(self, p: int, a: Action) -> None:
        # ``a`` passed _is_legal, so it is of the phase's action type (hence the casts)
        ph = self.phase
        if ph == "setup":
            self._do_setup(cast(Setup, a))
        elif ph == "effect":
            self._do_effect(p, a)
        elif ph == "auction":
            self._do_auction(p, a)
        elif ph == "reply":
            prop, extra = self.offer  # type: ignore[misc]
            self.offer = None
            if cast(Reply, a).accept:
                holder, own = self.holders[0]
                self.holders = [(holder, own), (prop, extra)]
                self.high = own + extra
                self.phase = "auction"
                self._next_bidder(prop)
            else:
                self.phase = "auction"
                self.act = prop
                self.refused = True
        elif ph == "announce":
            self.ann[p] = cast(Announce, a).amount
            self.idx += 1
            if self.idx >= len(self.camp):
                self._start_challenges()
        elif ph == "challenge":
            if cast(Challenge, a).challenge:
                self._resolve_bluff(p)
            else:
                self.chal.pop(0)
                if not self.chal:
                    self._resolve_bluff(None)
        elif ph == "pick":
            pick = cast(Pick, a)
            self.fire.remove(pick.stone)
            self.reserve[p].append(pick.stone)
            self.pickers.pop(0)
            if not self.fire:
                self.pickers = []
            if not self.pickers:
                self._to_build()
        elif ph == "decide":
            if cast(BuildChoice, a).build:
                self.phase = "place"
                self.plan = []
            else:
                self._next_builder()
        elif ph == "place":
            self.plan.append(cast(Place, a).stone)
            if len(self.plan) == HOUSE_STONES:
                self.phase = "noise"

    # --- phases -----------------------------------------------------------------------------
    def _normalize(self) -> None:
        """Skip steps with nothing to decide (empty bag, single setup choice, empty camp...)."""
        while True:
            ph = self.phase
            if ph == "draw" and (self.draws_left <= 0 or self.bag_size() == 0):
                self.phase = "setup"
                continue
            if ph == "setup":
                opts = self._setups()
                if len(opts) == 1:
                    self._do_setup(opts[0])
                    continue
            if ph == "effect":
                while self.effects and not self._effect_possible(*self.effects[0]):
                    self.effects.pop(0)
                if not self.effects:
                    self._start_gathering()
                    continue
            return

    def _do_setup(self, a: Setup) -> None:
        self.cards_on = a.cards
        self.rule = a.rule
        if a.cards:
            self.phase = "cards"
        else:
            self.camp = self.order()
            self._start_gathering()

    def _resolve_cards(self, cards: dict[int, str]) -> None:
        for s, c in cards.items():
            self.played[s] = c
            if c in ONE_SHOT_LETTER:
                self.oneshots[s] = self.oneshots[s].replace(ONE_SHOT_LETTER[c], "")
        by: dict[str, list[int]] = {c: [] for c in CARDS}
        for s in self.order():
            by[cards[s]].append(s)
        took = {}
        for s in by[GEMS]:
            k = min(self.rules["gather_gems"], self.mine)
            self.mine -= k
            self.gems[s] += k
            self.taken[s] += k
            took[s] = k
        if len(by[STEAL]) % 2 == 1:
            thief = self._beneficiary(by[STEAL])
            for s, k in took.items():
                self.gems[s] -= k
                self.gems[thief] += k
        self.camp = list(by[CAMP])
        self.effects = [(c, self._beneficiary(by[c])) for c in (VETO, TIGER, DUMNO) if len(by[c]) % 2 == 1]
        self.phase = "effect"

    def _effect_possible(self, kind: str, b: int) -> bool:
        if kind == VETO:
            return bool(self.camp)
        others = any(self.reserve[t] for t in range(self.num_players) if t != b)
        if kind == TIGER:
            return others
        return others or bool(self.fire)

    def _do_effect(self, b: int, a: Action) -> None:
        kind, _ = self.effects.pop(0)
        # ``a`` is legal, so the effect's action type
        if kind == VETO:
            self.camp.remove(cast(Veto, a).target)
        elif kind == TIGER:
            tiger = cast(Tiger, a)
            self.reserve[tiger.target].remove(tiger.stone)
            self.reserve[b].append(tiger.stone)
        else:
            dumno = cast(Dumno, a)
            if dumno.target == FIRE:
                self.fire.remove(dumno.stone)
            else:
                self.reserve[dumno.target].remove(dumno.stone)
            self.back.append(dumno.stone)
            self.back.sort()

    def _start_gathering(self) -> None:
        self.effects = []
        camp = self.camp
        if not self.fire or not camp:
            self._to_build()
            return
        if len(camp) == 1:
            self._take_fire(camp[0])
            self._to_build()
            return
        if self.rule == "auction":
            self.phase = "auction"
            self.high = -1
            self.holders = []
            self.out = []
            self.offer = None
            self.refused = False
            self.act = camp[0]
        elif self.rule == "hidden":
            self.phase = "hidden"
            self.bidders = list(camp)
            self.rebids = 0
        else:
            self.phase = "fist"
            self.fists = [None] * self.num_players
            self.ann = [None] * self.num_players

    # auction
    def _do_auction(self, p: int, a: Action) -> None:
        t = type(a)
        if t is Pass:
            self.out.append(p)
            self._next_bidder(p)
        elif t is Bid:
            bid = cast(Bid, a)
            self.high = bid.amount
            self.holders = [(p, bid.amount)]
            self._next_bidder(p)
        else:  # Ally
            self.offer = (p, cast(Ally, a).amount)
            self.phase = "reply"

    def _next_bidder(self, after: int) -> None:
        self.refused = False
        camp = self.camp
        held = {h for h, _ in self.holders}
        i = camp.index(after)
        for k in range(1, len(camp) + 1):
            s = camp[(i + k) % len(camp)]
            if s not in self.out and s not in held:
                self.act = s
                return
        # everyone but the standing bid has passed (or nobody bid at all)
        self._end_auction()

    def _end_auction(self) -> None:
        holders = self.holders
        self.act = -1
        if not holders:
            self._to_build()
            return
        for s, c in holders:
            self._pay(s, c)
        if len(holders) == 1:
            self._take_fire(holders[0][0])
            self._to_build()
            return
        (a, ca), (b, cb) = holders
        first, second = (a, b) if ca >= cb else (b, a)
        # coalition: the larger contributor picks first, then they alternate until the fire is empty
        self.pickers = [first if i % 2 == 0 else second for i in range(len(self.fire))]
        self.phase = "pick"

    # hidden bid
    def _resolve_hidden(self, bids: dict[int, int]) -> None:
        top = max(bids.values())
        tops = self._in_order([s for s, x in bids.items() if x == top])
        if len(tops) == 1:
            self._pay(tops[0], top)
            self._take_fire(tops[0])
            self._to_build()
        elif len(tops) == 2:
            # each takes one stone, the first in turn order picks first; a tied bidder pays only
            # if a stone is left for them; stones beyond two stay on the fire
            takers = tops[: len(self.fire)]
            for s in takers:
                self._pay(s, top)
            self.pickers = takers
            self.phase = "pick"
        else:
            self.rebids += 1
            if self.rebids > self.rules["hidden_rebids"]:
                self._to_build()
            else:
                self.bidders = tops

    # bluff
    def _start_challenges(self) -> None:
        h = self._highest()
        camp = self.camp
        i = camp.index(h)
        self.chal = [camp[(i + k) % len(camp)] for k in range(1, len(camp))]
        self.phase = "challenge"

    def _highest(self) -> int:
        best, who = -1, -1
        for s in self.camp:  # ties: the earliest announcement in turn order holds
            if self.ann[s] > best:  # type: ignore[operator]
                best, who = self.ann[s], s  # type: ignore[assignment]
        return who

    def _resolve_bluff(self, challenger: int | None) -> None:
        h = self._highest()
        fist_h = self.fists[h] or 0
        if challenger is None:
            self._pay(h, fist_h)
            self._take_fire(h)
        elif fist_h < (self.ann[h] or 0):
            self._pay(h, fist_h)
            self._take_fire(challenger)
        else:
            self._pay(challenger, self.fists[challenger] or 0)
            self._take_fire(h)
        self.fists = [None] * self.num_players
        self.chal = []
        self._to_build()

    # building
    def _to_build(self) -> None:
        self.phase = "decide"
        self.pickers = []
        self.queue = [s for s in self.order() if len(self.reserve[s]) >= HOUSE_STONES]
        self._next_builder()

    def _next_builder(self) -> None:
        self.plan = []
        if self.queue:
            self.builder = self.queue.pop(0)
            self.phase = "decide"
        else:
            self.builder = -1
            self._end_round()

    def _resolve_build(self, seed: int) -> None:
        s = self.builder
        seeds = [self.stones[i] for i in self.plan]
        r = self.rules
        if self.fast_build:
            lo, hi = r["stone_size_min"], r["stone_size_max"]
            infos = [stone_info(x, lo, hi) for x in seeds]
            stood, disp = _house.quick_verdict(infos, self.skills[s], seed, r["wall_gap"]), -1.0
        else:
            res = self.physics.build(seeds, self.skills[s], seed, r)
            stood, disp = res.stood, round(res.max_displacement, 4)
        self.attempts[s] += 1
        self.log.append((self.round, s, tuple(self.plan), int(stood), disp, seed))
        if stood:
            self.winner = s
            self.termination = "house"
            self.phase = "over"
            self.plan = []
            return
        self.collapses[s] += 1
        self._next_builder()

    def _end_round(self) -> None:
        if self.round >= self.rules["max_rounds"]:
            self.phase = "over"
            self.termination = "round_cap"
            return
        self.round += 1
        self.start = (self.start + 1) % self.num_players
        self.played = ["-"] * self.num_players
        self.camp = []
        self.cards_on = False
        self.rule = ""
        self.draws_left = self.rules["fire_draw"]
        self.phase = "draw"

    # --- end --------------------------------------------------------------------------------
    def provisional_scores(self) -> tuple[float, ...]:
        """Stones held per seat, capped at the five a house needs: who is closest to building."""
        return tuple(float(min(len(r), 5)) for r in self.reserve) if self.reserve else tuple(0.0 for _ in range(self.num_players))

    def outcome(self) -> Outcome | None:
        """The outcome once over: the house builder wins; a round cap is a draw. Scores are the
        stones each seat holds."""
        if self.phase != "over":
            return None
        winners = (self.winner,) if self.winner >= 0 else ()
        return Outcome(self.termination, winners, tuple(float(len(r)) for r in self.reserve))

    # --- information ------------------------------------------------------------------------
    def observation(self, seat: int) -> str:
        """What ``seat`` knows: the notation with other seats' bluff fists hidden (``?``)."""
        return f"seat={seat} " + self.to_notation(hide_for=seat)

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
            "rules=" + ",".join(f"{k}:{_enc_opt(self.rules[k])}" for k in _OPT),
            "skill=" + ",".join(repr(x) for x in self.skills),
            f"round={self.round}",
            f"start={self.start}",
            f"phase={self.phase}",
            f"draws={self.draws_left}",
            "stones=" + _il(self.stones),
            f"fresh={self.fresh}",
            "back=" + _il(self.back),
            "fire=" + _il(self.fire),
            "res=" + "/".join(_il(r) for r in self.reserve),
            "gems=" + _il(self.gems),
            f"mine={self.mine}",
            "oneshots=" + ",".join(o or "-" for o in self.oneshots),
            f"setup={int(self.cards_on)}:{self.rule or '-'}",
            "played=" + ",".join(self.played),
            "camp=" + _il(self.camp),
            "effects=" + (",".join(f"{k}:{s}" for k, s in self.effects) or "-"),
            f"auction={self.act}:{self.high}:{'.'.join(f'{s}x{c}' for s, c in self.holders) or '-'}:"
            f"{_il(self.out, '.')}:{'-' if self.offer is None else f'{self.offer[0]}x{self.offer[1]}'}:{int(self.refused)}",
            f"hidden={_il(self.bidders)}:{self.rebids}",
            "fists=" + ",".join("-" if f is None else "?" if f == self.HIDDEN else str(f) for f in fists),
            "ann=" + ",".join("-" if a is None else str(a) for a in self.ann),
            f"idx={self.idx}",
            "chal=" + _il(self.chal),
            "pickers=" + _il(self.pickers),
            f"build={self.builder}:{_il(self.queue, '.')}:{_il(self.plan, '.')}",
            "spent=" + _il(self.spent),
            "taken=" + _il(self.taken),
            "attempts=" + _il(self.attempts),
            "collapses=" + _il(self.collapses),
            f"end={self.winner}:{self.termination or '-'}",
            "log=" + (";".join(f"{r}:{s}:{'.'.join(map(str, st))}:{ok}:{d!r}:{ns}" for r, s, st, ok, d, ns in self.log) or "-"),
        ]
        return " ".join(parts)


# --- notation helpers -------------------------------------------------------------------------


def _il(xs: Sequence[int], sep: str = ",") -> str:
    return sep.join(map(str, xs)) if xs else "-"


def _pl(text: str, sep: str = ",") -> list[int]:
    return [] if text == "-" else [int(x) for x in text.split(sep)]


def _enc_opt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "+".join(v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _dec_opt(name: str, text: str) -> Any:
    opt = _OPT[name]
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


_KEYS = (
    "n", "rules", "skill", "round", "start", "phase", "draws", "stones", "fresh", "back", "fire", "res",
    "gems", "mine", "oneshots", "setup", "played", "camp", "effects", "auction", "hidden", "fists", "ann",
    "idx", "chal", "pickers", "build", "spent", "taken", "attempts", "collapses", "end", "log",
)


def parse_notation(text: str, *, allow_hidden: bool = False) -> SozoikumState:
    """Parse :meth:`SozoikumState.to_notation` output.

    Args:
        allow_hidden: accept ``?`` for bluff fists (an observation); they become
            ``SozoikumState.HIDDEN``.

    Raises:
        InputError: the text is not a valid Sozoikum notation (the message says what is wrong).
    """
    if not isinstance(text, str):
        raise InputError(f"a notation is a string, got {type(text).__name__}")
    try:
        return _parse(text, allow_hidden)
    except InputError:
        raise
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise InputError(f"not a valid sozoikum notation ({e}): {text[:200]!r}") from None


def _parse(text: str, allow_hidden: bool) -> SozoikumState:
    tokens = text.split()
    if not tokens or tokens[0] != "sozoikum":
        raise ValueError("must start with 'sozoikum'")
    kv: dict[str, str] = {}
    for tok in tokens[1:]:
        k, sep, v = tok.partition("=")
        if not sep or k in kv:
            raise ValueError(f"bad or repeated field {tok!r}")
        kv[k] = v
    if set(kv) != set(_KEYS):
        raise ValueError(f"fields missing or unknown: {sorted(set(_KEYS) ^ set(kv))}")
    n = int(kv["n"])
    rules: dict[str, Any] = {}
    for item in kv["rules"].split(","):
        k, _, v = item.partition(":")
        if k not in _OPT:
            raise ValueError(f"unknown rule {k!r}")
        rules[k] = _dec_opt(k, v)
    skills = [float(x) for x in kv["skill"].split(",")]
    s = SozoikumState.new(n, rules, skills)
    s._history = []
    s.round = int(kv["round"])
    s.start = int(kv["start"])
    s.phase = kv["phase"]
    if s.phase not in _PHASES:
        raise ValueError(f"unknown phase {s.phase!r}")
    s.draws_left = int(kv["draws"])
    s.stones = _pl(kv["stones"])
    s.fresh = int(kv["fresh"])
    s.back = _pl(kv["back"])
    s.fire = _pl(kv["fire"])
    res = kv["res"].split("/")
    if len(res) != n:
        raise ValueError("res needs one list per seat")
    s.reserve = [_pl(r) for r in res]
    s.gems = _pl(kv["gems"])
    s.mine = int(kv["mine"])
    s.oneshots = ["" if o == "-" else o for o in kv["oneshots"].split(",")]
    c, _, rule = kv["setup"].partition(":")
    s.cards_on = c == "1"
    s.rule = "" if rule == "-" else rule
    s.played = kv["played"].split(",")
    s.camp = _pl(kv["camp"])
    s.effects = []
    if kv["effects"] != "-":
        for item in kv["effects"].split(","):
            k, _, b = item.partition(":")
            if k not in (VETO, TIGER, DUMNO):
                raise ValueError(f"unknown effect {k!r}")
            s.effects.append((k, int(b)))
    act, high, hold, out, offer, ref = kv["auction"].split(":")
    s.act, s.high = int(act), int(high)
    s.holders = [] if hold == "-" else [tuple(int(x) for x in h.split("x")) for h in hold.split(".")]  # type: ignore[misc]
    s.out = _pl(out, ".")
    s.offer = None if offer == "-" else tuple(int(x) for x in offer.split("x"))  # type: ignore[assignment]
    s.refused = ref == "1"
    bid, reb = kv["hidden"].split(":")
    s.bidders = _pl(bid)
    s.rebids = int(reb)
    fists: list[int | None] = []
    for f in kv["fists"].split(","):
        if f == "?":
            if not allow_hidden:
                raise ValueError("hidden fist in a full notation")
            fists.append(SozoikumState.HIDDEN)
        else:
            fists.append(None if f == "-" else int(f))
    s.fists = fists
    s.ann = [None if a == "-" else int(a) for a in kv["ann"].split(",")]
    s.idx = int(kv["idx"])
    s.chal = _pl(kv["chal"])
    s.pickers = _pl(kv["pickers"])
    b, q, plan = kv["build"].split(":")
    s.builder = int(b)
    s.queue = _pl(q, ".")
    s.plan = _pl(plan, ".")
    s.spent = _pl(kv["spent"])
    s.taken = _pl(kv["taken"])
    s.attempts = _pl(kv["attempts"])
    s.collapses = _pl(kv["collapses"])
    w, _, term = kv["end"].partition(":")
    s.winner = int(w)
    s.termination = "" if term == "-" else term
    s.log = []
    if kv["log"] != "-":
        for item in kv["log"].split(";"):
            r, seat, st, ok, d, ns = item.split(":")
            s.log.append((int(r), int(seat), tuple(int(x) for x in st.split(".")), int(ok), float(d), int(ns)))
    _check_consistency(s)
    return s


def _check_consistency(s: SozoikumState) -> None:
    """Reject notations whose parts contradict each other (raises ValueError)."""
    n = s.num_players
    for name in ("gems", "oneshots", "played", "fists", "ann", "spent", "taken", "attempts", "collapses"):
        if len(getattr(s, name)) != n:
            raise ValueError(f"{name} needs {n} entries")
    if any(p != "-" and p not in CARDS for p in s.played):
        raise ValueError("unknown card in played")
    if any(set(o) - set("TDV") for o in s.oneshots):
        raise ValueError("one-shot cards are T, D, V")
    ids = s.back + s.fire + [i for r in s.reserve for i in r]
    if sorted(ids) != list(range(len(s.stones))) or len(s.stones) + s.fresh > s.rules["bag_stones"] or s.fresh < 0:
        raise ValueError("every drawn stone must be in exactly one place (bag, fire or a reserve)")
    if any(not 0 <= x < SEED_BOUND for x in s.stones):
        raise ValueError("stone seed out of range")
    if min(s.gems) < 0 or s.mine < 0:
        raise ValueError("negative gems")
    seats = set(range(n))
    if not 0 <= s.start < n or not set(s.camp) <= seats or s.round < 1:
        raise ValueError("bad seat or round")
    cp = s.current_player()
    if cp >= n or (cp >= 0 and s.phase in ("decide", "place") and cp not in seats):
        raise ValueError("bad seat to move")
    if s.phase == "effect" and not s.effects:
        raise ValueError("effect phase without effects")
    if s.phase == "announce" and not 0 <= s.idx < len(s.camp):
        raise ValueError("announcement index out of range")
    if s.phase == "challenge" and not s.chal:
        raise ValueError("challenge phase without challengers")
    if s.phase == "pick" and (not s.pickers or not s.fire):
        raise ValueError("pick phase without pickers")
    if s.phase == "reply" and (s.offer is None or len(s.holders) != 1):
        raise ValueError("reply phase without an offer")
    if s.phase in ("decide", "place", "noise") and not 0 <= s.builder < n:
        raise ValueError("building phase without a builder")
    if s.phase == "auction" and s.act not in seats:
        raise ValueError("auction without a bidder to act")
    if s.phase == "hidden" and not s.bidders:
        raise ValueError("hidden bid without bidders")


def build_from_seeds(seeds: Sequence[int], skill: float, noise_seed: int, rules: Mapping[str, Any], hold_time: float = 0.0, trace: bool = False) -> _house.HouseResult:
    """Build the house of stones with shape ``seeds`` (roles A1, A2, B1, B2, roof) under ``rules``."""
    from sim.sozoikum.stones import stone_shape

    lo, hi = rules["stone_size_min"], rules["stone_size_max"]
    return _house.build_house(
        [stone_shape(x, lo, hi) for x in seeds], skill, noise_seed, house_params(rules, hold_time), trace=trace
    )

