"""Sozoikum: the rules engine (turn structure, legal moves, chance, transitions, outcome). No I/O.

The actions are in :mod:`sim.sozoikum.actions`, the options in :mod:`sim.sozoikum.options`, the
physics boundary in :mod:`sim.sozoikum.physics` (the only way to the house's physics: importing
this module loads no pymunk), what a position holds (and its notation writer) in
:mod:`sim.sozoikum.position`, the notation reader in :mod:`sim.sozoikum.notation`; this module
holds the rules that move a position (the endings are ``endings.py``'s).

Players build a house of five stones won at the campfire; the first house that stands wins.
``docs/rules-sozoikum.md`` lists every decision beyond the rule text; the short form:

State
    Each seat: a reserve of stones, gems (public counts), the three one-shot cards it still holds
    (tiger ``T``, dumnopterix ``D``, veto ``V``; camp, gems and steal are never used up). The mine's
    gems; the bag (``fresh`` stones never seen yet, plus stones the dumnopterix sent back, known by
    id); the fire (stones nobody took stay there). Every stone that left the bag has an id and a
    shape seed (``shapes.stone_shape``): its shape is drawn by chance **when it is first drawn from
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
       ``physics.HousePhysics`` protocol; the game's is ``PymunkHouse``, the 2-D simulation of
       ``house.build_house``; a search's states use ``QuickHouse``, rules tests the double
       ``ScriptedHouse``). The
       first house that stands ends the game (that seat wins); a collapse costs only the turn.
    The game also ends, as a draw, after ``max_rounds`` rounds.
"""

from __future__ import annotations

from typing import Any, Mapping, Self, Sequence, cast

import numpy as np

from sim.core.errors import ScenarioError
from sim.core.game import CHANCE, SIMULTANEOUS, TERMINAL, Action, Outcome, State
from sim.sozoikum.actions import (
    CAMP, CARDS, DUMNO, FIRE, GEMS, ONE_SHOT_LETTER, REUSABLE, STEAL, TIGER, VETO, Ally, Announce, Bid,
    BuildChoice, BuildNoise, Challenge, Dumno, DrawStone, Fist, Pass, Pick, Place, PlayCard, Reply, Sealed,
    Setup, Tiger, Veto,
)
from sim.sozoikum.options import MAX_PLAYERS, OPTION_BY_NAME, SEAT_OPTIONS, SozoikumOptions
from sim.sozoikum.physics import PYMUNK_HOUSE, ROLES, HousePhysics
from sim.sozoikum.position import HIDDEN, BuildLogEntry, SozoikumObservation, encode_option, join_ints
from sim.sozoikum.shapes import SEED_BOUND
from sim.sozoikum.endings import SozoikumEnd


#: stones in a house
HOUSE_STONES = 5
#: noise seeds for builds are drawn below this bound
NOISE_BOUND = 2**31


class SozoikumState(State):
    """A Sozoikum position with its rules: its facts (below), copying, the seat helpers, the
    information a seat gets (:class:`~sim.sozoikum.position.SozoikumObservation`), the notation, the
    turn structure, legal actions, chance, transitions and outcome. Build one with :meth:`new` or
    :func:`sim.sozoikum.notation.parse_notation`.

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


    HIDDEN = HIDDEN  # sim.sozoikum.position's, where the state's readers look for it

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


    def clone(self) -> Self:
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


    # --- construction -----------------------------------------------------------------------
    @classmethod
    def new(
        cls, num_players: int, rules: SozoikumOptions | Mapping[str, Any], skills: Sequence[float],
        physics: HousePhysics | None = None,
    ) -> "SozoikumState":
        """The start of a game under ``rules`` (the options, or a scenario's ``[rules]`` table that
        :meth:`SozoikumOptions.from_rules` validates); houses are judged by ``physics`` (default:
        the pymunk house).

        Raises:
            ScenarioError: bad player count, rules or skills.
        """
        if not 2 <= num_players <= MAX_PLAYERS:
            raise ScenarioError(f"Sozoikum takes 2 to {MAX_PLAYERS} players, got {num_players}", key="seats")
        r = rules if isinstance(rules, SozoikumOptions) else SozoikumOptions.from_rules(rules)
        problem = r.size_problem()
        if problem:
            raise ScenarioError(problem[1], key=problem[0])
        if len(skills) != num_players:
            raise ScenarioError(f"need {num_players} skills, got {len(skills)}", key="seats")
        s = cls()
        s.num_players = num_players
        s.options = r
        s.skills = [float(SEAT_OPTIONS[0].validate(float(k), key="skill")) for k in skills]
        s.fresh = r.bag_stones
        s.reserve = [[] for _ in range(num_players)]
        s.gems = [r.start_gems] * num_players
        s.mine = r.mine_gems
        s.oneshots = ["TDV"] * num_players
        s.played = ["-"] * num_players
        s.fists = [None] * num_players
        s.ann = [None] * num_players
        s.spent = [0] * num_players
        s.taken = [0] * num_players
        s.attempts = [0] * num_players
        s.collapses = [0] * num_players
        s.draws_left = r.fire_draw
        s.phase = "draw"
        if physics is not None:
            s.physics = physics
        s._normalize()
        return s

    @classmethod
    def from_observation(cls, obs: SozoikumObservation) -> "SozoikumState":
        """The state an observation shows, with no history; the other seats' fists in hand stay
        ``HIDDEN`` (a search draws them, ``SozoikumGame.determinize``). Builds are judged by the
        pymunk house.

        Raises:
            ScenarioError: the observation's rules or skills are not valid.
        """
        s = cls.new(obs.num_players, obs.options, obs.skills)
        s.round, s.start, s.phase, s.draws_left = obs.round, obs.start, obs.phase, obs.draws_left
        s.stones, s.fresh, s.back, s.fire = list(obs.stones), obs.fresh, list(obs.back), list(obs.fire)
        s.reserve = [list(r) for r in obs.reserve]
        s.gems, s.mine, s.oneshots = list(obs.gems), obs.mine, list(obs.oneshots)
        s.cards_on, s.rule, s.played, s.camp = obs.cards_on, obs.rule, list(obs.played), list(obs.camp)
        s.effects = list(obs.effects)
        s.act, s.high, s.holders, s.out = obs.act, obs.high, list(obs.holders), list(obs.out)
        s.offer, s.refused = obs.offer, obs.refused
        s.bidders, s.rebids = list(obs.bidders), obs.rebids
        s.fists, s.ann, s.idx, s.chal = list(obs.fists), list(obs.ann), obs.idx, list(obs.chal)
        s.pickers, s.queue, s.builder, s.plan = list(obs.pickers), list(obs.queue), obs.builder, list(obs.plan)
        s.spent, s.taken = list(obs.spent), list(obs.taken)
        s.attempts, s.collapses = list(obs.attempts), list(obs.collapses)
        s.winner, s.termination, s.log = obs.winner, obs.termination, list(obs.log)
        return s


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
        cp = self.options.card_play
        cards = (True, False) if cp == "choice" else (cp == "always",)
        return [Setup(c, r) for c in cards for r in self.options.gathering_rules]

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
            if self.options.coalitions and len(self.holders) == 1 and not self.refused:
                out += [Ally(x) for x in range(1, self.gems[p] + 1)]
            return out
        if ph == "reply":
            return [Reply(True), Reply(False)]
        if ph == "announce":
            return [Announce(x) for x in range(self.options.announce_max + 1)]
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
                    self.options.coalitions and len(self.holders) == 1 and not self.refused
                    and 1 <= action.amount <= self.gems[p]
                )
            return False
        if ph == "announce":
            return type(action) is Announce and 0 <= action.amount <= self.options.announce_max
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
            k = min(self.options.gather_gems, self.mine)
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
            if self.rebids > self.options.hidden_rebids:
                self._to_build()
            else:
                self.bidders = tops

    # bluff
    def _start_challenges(self) -> None:
        h = self.highest()
        camp = self.camp
        i = camp.index(h)
        self.chal = [camp[(i + k) % len(camp)] for k in range(1, len(camp))]
        self.phase = "challenge"

    def highest(self) -> int:
        """The seat whose announcement stands highest among those still in camp (-1: none)."""
        best, who = -1, -1
        for s in self.camp:  # ties: the earliest announcement in turn order holds
            if self.ann[s] > best:  # type: ignore[operator]
                best, who = self.ann[s], s  # type: ignore[assignment]
        return who

    def _resolve_bluff(self, challenger: int | None) -> None:
        h = self.highest()
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
        res = self.physics.build(seeds, self.skills[s], seed, self.options)
        stood, disp = res.stood, round(res.max_displacement, 4)
        self.attempts[s] += 1
        self.log.append((self.round, s, tuple(self.plan), int(stood), disp, seed))
        if stood:
            self.winner = s
            self.termination = SozoikumEnd.HOUSE
            self.phase = "over"
            self.plan = []
            return
        self.collapses[s] += 1
        self._next_builder()

    def _end_round(self) -> None:
        if self.round >= self.options.max_rounds:
            self.phase = "over"
            self.termination = SozoikumEnd.ROUND_CAP
            return
        self.round += 1
        self.start = (self.start + 1) % self.num_players
        self.played = ["-"] * self.num_players
        self.camp = []
        self.cards_on = False
        self.rule = ""
        self.draws_left = self.options.fire_draw
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
        assert self.termination is not None  # set with phase "over"
        return Outcome(self.termination, winners, tuple(float(len(r)) for r in self.reserve))
