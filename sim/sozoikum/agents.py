"""Sozoikum agents: ``greedy``, ``builder`` and ``ismcts`` (``random`` comes from sim.core).

Every agent reads its observation with ``GAME.parse_observation`` (other seats' bluff fists are
hidden there) and never sees the state.

greedy (documented heuristics, deterministic)
    * Stone value: a stone is worth ``stone_value * (0.5 + fit)`` gems, where ``fit`` in [0, 1] is
      half the flatness of its top (``StoneInfo.top_flat``) and half its width within the size
      range (wide flat stones make walls and roofs). Stones are worth half as much to a seat
      that already holds 5 or more. The fire is worth the sum of its stones.
    * Setup (as start player): cards on when allowed; gathering rule: auction if it holds the most
      gems, else hidden bid, else bluff (the first of these the options allow).
    * Cards: gems when it holds fewer than 3 gems (and the mine has some) or the fire is empty;
      tiger (while in hand) when another seat holds 5 or more stones and it holds fewer; else camp.
    * Veto: the camp player holding the most stones. Tiger: the best-fitting stone of the seat with
      the most stones. Dumnopterix: the best stone of a seat holding 5 or more, else the best fire
      stone when it is not at the camp, else the best stone of the seat with the most stones.
    * Auction: raises by one while the bid stays within the fire's value and its gems; never
      offers a coalition; accepts every offer. Hidden bid: 75 % of the fire's value. Bluff: puts
      60 % of the fire's value in the fist and announces it honestly; challenges when an
      announcement exceeds every gem the announcer holds.
    * Picks the best-fitting stone. Building: always builds, with the assignment that
      ``house.house_quality`` rates best (no physics).

builder
    Plays like greedy, but picks the house assignment by simulation: the ``candidates`` best
    assignments by ``house_quality`` are each built ``sims`` times in its own pymunk simulation with
    its own skill and noise seeds from its own generator; it takes the one that stood most often
    (ties: the better quality rating).

ismcts
    Information-set MCTS (sim.core.mcts, decoupled UCT at the simultaneous card, sealed-bid and fist
    steps) for every choice except building, which it leaves to the builder's simulation. Its
    search states are judged by ``physics.QuickHouse``: a build inside a rollout is decided by a
    quality rating and a hashed coin, not by pymunk, which keeps rollouts cheap (a physics build
    costs about 3 ms).
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence, cast

import numpy as np

from sim.core.agents import SEARCH_OPTIONS, check_rollout_agent
from sim.core.game import Action, AgentSpec, Game, GameConfig, require_legal_actions
from sim.core.mcts import SearchAgent
from sim.core.options import Option
from sim.sozoikum.actions import (CAMP, FIRE, GEMS, TIGER, VETO, Announce, Bid, BuildChoice, Challenge, Dumno, Fist,
                                  Pass, Pick, Place, PlayCard, Reply, Sealed, Setup, Tiger, Veto)
from sim.sozoikum.rules import HOUSE_STONES, NOISE_BOUND, SozoikumState
from sim.sozoikum.physics import QUICK_HOUSE, ROLES, build_from_seeds, house_quality
from sim.sozoikum.position import SozoikumObservation
from sim.sozoikum.shapes import StoneInfo, stone_info

#: at most this many of a seat's stones are considered for a house (the best by fit)
MAX_HOUSE_POOL = 8


def _infos(state: SozoikumState, ids: Sequence[int]) -> list[StoneInfo]:
    lo, hi = state.options.stone_size_min, state.options.stone_size_max
    return [stone_info(state.stones[i], lo, hi) for i in ids]


def stone_fit(state: SozoikumState, stone: int) -> float:
    """How useful a stone is for a house, in [0, 1] (see the module docstring)."""
    lo, hi = state.options.stone_size_min, state.options.stone_size_max
    info = stone_info(state.stones[stone], lo, hi)
    span = max(1e-9, hi - lo)
    return 0.5 * info.top_flat + 0.5 * min(1.0, max(0.0, (info.width - lo * 0.6) / span))


def assignments(state: SozoikumState, stones: Sequence[int]) -> list[tuple[float, tuple[int, ...]]]:
    """Every house assignment (A1, A2, B1, B2, roof) of the best ``MAX_HOUSE_POOL`` of ``stones``,
    with its ``house_quality``, best first (ties: the order of enumeration)."""
    pool = sorted(stones, key=lambda s: -stone_fit(state, s))[:MAX_HOUSE_POOL]
    info = dict(zip(pool, _infos(state, pool)))
    gap = state.options.wall_gap
    out: list[tuple[float, tuple[int, ...]]] = []
    for roof in pool:
        rest = [s for s in pool if s != roof]
        for four in itertools.combinations(rest, 4):
            a, b, c, d = four
            for (p, q), (u, v) in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
                for a1, a2 in ((p, q), (q, p)):
                    for b1, b2 in ((u, v), (v, u)):
                        plan = (a1, a2, b1, b2, roof)
                        out.append((house_quality([info[x] for x in plan], gap), plan))
    out.sort(key=lambda t: -t[0])
    return out


class GreedyAgent:
    """The documented greedy policy (module docstring)."""

    def __init__(self, *, game: Game, seat: int, rng: np.random.Generator, config: GameConfig, stone_value: float = 3.0) -> None:
        self.game = game
        self.seat = seat
        self.rng = rng
        self.config = config
        self.stone_value = stone_value
        self._plan: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    # --- valuation --------------------------------------------------------------------------
    def stone_worth(self, st: SozoikumState, stone: int) -> float:
        """Gems this seat would pay for ``stone``."""
        w = self.stone_value * (0.5 + stone_fit(st, stone))
        return w * (0.5 if len(st.reserve[self.seat]) >= HOUSE_STONES else 1.0)

    def fire_worth(self, st: SozoikumState) -> float:
        """Gems this seat would pay for the whole fire."""
        return sum(self.stone_worth(st, s) for s in st.fire)

    def best_stone(self, st: SozoikumState, stones: Sequence[int]) -> int:
        """The best-fitting of ``stones``."""
        return max(stones, key=lambda s: (stone_fit(st, s), -s))

    # --- house ------------------------------------------------------------------------------
    def house_plan(self, st: SozoikumState) -> tuple[int, ...]:
        """The stones for roles A1, A2, B1, B2, roof (best ``house_quality``)."""
        return assignments(st, st.reserve[self.seat])[0][1]

    def _cached_plan(self, st: SozoikumState) -> tuple[int, ...]:
        key = tuple(sorted(st.reserve[self.seat]))
        if self._plan is None or self._plan[0] != key:
            self._plan = (key, self.house_plan(st))
        return self._plan[1]

    # --- acting -----------------------------------------------------------------------------
    def act(self, observation: SozoikumObservation, legal_actions: Sequence[Action]) -> Action:
        """The greedy choice (falls back to the first legal action if a rule leaves none).

        Raises:
            ValueError: no legal action was offered.
        """
        require_legal_actions(self.seat, legal_actions)
        _, st = self.game.parse_observation(observation)  # type: ignore[attr-defined]
        a = self.choose(st, legal_actions)
        return a if a in legal_actions else legal_actions[0]

    def choose(self, st: SozoikumState, legal: Sequence[Action]) -> Action:  # noqa: C901 - a table of cases
        me = self.seat
        ph = st.phase
        if ph == "setup":
            cards = any(a.cards for a in cast(Sequence[Setup], legal))  # setup offers only Setup actions
            richest = st.gems[me] >= max(st.gems)
            prefs = ("auction", "hidden", "bluff") if richest else ("hidden", "bluff", "auction")
            for rule in prefs:
                if Setup(cards, rule) in legal:
                    return Setup(cards, rule)
            return legal[0]
        if ph == "cards":
            if (st.gems[me] < 3 and st.mine > 0) or not st.fire:
                return PlayCard(GEMS)
            mine_n = len(st.reserve[me])
            if mine_n < HOUSE_STONES and any(len(r) >= HOUSE_STONES for s, r in enumerate(st.reserve) if s != me):
                if PlayCard(TIGER) in legal:
                    return PlayCard(TIGER)
            return PlayCard(CAMP)
        if ph == "effect":
            kind, _ = st.effects[0]
            others = [s for s in st.order() if s != me]
            if kind == VETO:
                return Veto(max(st.camp, key=lambda s: (len(st.reserve[s]), -st.order().index(s))))
            rich = max(others, key=lambda s: (len(st.reserve[s]), -st.order().index(s)))
            if kind == TIGER:
                return Tiger(rich, self.best_stone(st, st.reserve[rich]))
            big = [s for s in others if len(st.reserve[s]) >= HOUSE_STONES]
            if big:
                return Dumno(big[0], self.best_stone(st, st.reserve[big[0]]))
            if st.fire and me not in st.camp:
                return Dumno(FIRE, self.best_stone(st, st.fire))
            if st.reserve[rich]:
                return Dumno(rich, self.best_stone(st, st.reserve[rich]))
            return legal[0]
        if ph == "auction":
            cap = min(st.gems[me], int(self.fire_worth(st)))
            return Bid(st.high + 1) if st.high + 1 <= cap else Pass()
        if ph == "reply":
            return Reply(True)
        if ph == "hidden":
            return Sealed(min(st.gems[me], int(round(0.75 * self.fire_worth(st)))))
        if ph == "fist":
            return Fist(min(st.gems[me], int(round(0.6 * self.fire_worth(st)))))
        if ph == "announce":
            return Announce(min(st.options.announce_max, st.fists[me] or 0))
        if ph == "challenge":
            h = st.highest()
            return Challenge((st.ann[h] or 0) > st.gems[h])
        if ph == "pick":
            return Pick(self.best_stone(st, st.fire))
        if ph == "decide":
            return BuildChoice(True)
        if ph == "place":
            plan = self._cached_plan(st)
            return Place(ROLES[len(st.plan)], plan[len(st.plan)])
        return legal[0]


class BuilderAgent(GreedyAgent):
    """Greedy, but chooses its house by simulating candidate builds (module docstring)."""

    def __init__(self, *, candidates: int = 6, sims: int = 3, **kw: Any) -> None:
        super().__init__(**kw)
        self.candidates = candidates
        self.sims = sims

    def house_plan(self, st: SozoikumState) -> tuple[int, ...]:
        """The candidate assignment that stood most often in this agent's own simulations."""
        return simulate_plan(st, self.seat, self.rng, self.candidates, self.sims)


def simulate_plan(st: SozoikumState, seat: int, rng: np.random.Generator, candidates: int, sims: int) -> tuple[int, ...]:
    """The best of the top ``candidates`` assignments of ``seat``'s stones, each built ``sims``
    times with noise seeds from ``rng`` and the seat's skill (ties: the better quality rating)."""
    ranked = assignments(st, st.reserve[seat])[:candidates]
    best, best_key = ranked[0][1], (-1, -1.0)
    skill = st.skills[seat]
    for q, plan in ranked:
        seeds = [st.stones[i] for i in plan]
        stood = 0
        for _ in range(sims):
            res = build_from_seeds(seeds, skill, int(rng.integers(NOISE_BOUND)), st.options)
            stood += res.stood
        key = (stood, q)
        if key > best_key:
            best, best_key = plan, key
    return best


class _FastGame:
    """A view of the game for search: determinized states decide builds with the quick verdict."""

    def __init__(self, game: Game) -> None:
        self._game = game
        self.spec = game.spec
        self.agents = game.agents  # the search's rollout agent is looked up here

    def __getattr__(self, name: str) -> Any:
        # everything else (parse_observation for rollout agents, ...) is the game's own
        return getattr(self._game, name)

    def determinize(self, observation: Any, rng: np.random.Generator) -> SozoikumState:
        s = cast(SozoikumState, self._game.determinize(observation, rng))  # the game is sozoikum
        s.physics = QUICK_HOUSE
        return s


class IsmctsAgent:
    """ISMCTS for cards, setup, effects, bids, fists, announcements and challenges; the builder's
    simulated choice for building (module docstring)."""

    def __init__(
        self,
        *,
        game: Game,
        seat: int,
        rng: np.random.Generator,
        config: GameConfig,
        iterations: int = 200,
        exploration: float = 1.4,
        rollout_limit: int = 2000,
        rollout_agent: str = "random",
        candidates: int = 6,
        sims: int = 3,
    ) -> None:
        self.game = game
        self.search = SearchAgent(
            game=_FastGame(game),  # type: ignore[arg-type]
            seat=seat,
            rng=rng,
            config=config,
            iterations=iterations,
            exploration=exploration,
            rollout_limit=rollout_limit,
            rollout_agent=rollout_agent,
            determinize_each=True,
        )
        self.builder = BuilderAgent(game=game, seat=seat, rng=rng, config=config, candidates=candidates, sims=sims)

    def act(self, observation: SozoikumObservation, legal_actions: Sequence[Action]) -> Action:
        """Search, or build like the builder."""
        _, st = self.game.parse_observation(observation)  # type: ignore[attr-defined]
        if st.phase in ("decide", "place"):
            return self.builder.act(observation, legal_actions)
        return self.search.act(observation, legal_actions)


GREEDY_OPTIONS = (Option("stone_value", float, 3.0, "gems a well-fitting stone is worth", min=0.0, max=1000.0),)
BUILD_OPTIONS = (
    Option("candidates", int, 6, "house assignments (best by quality rating) tried in simulation", min=1, max=200),
    Option("sims", int, 3, "noisy simulated builds per candidate", min=1, max=100),
)

GREEDY = AgentSpec("greedy", GreedyAgent, GREEDY_OPTIONS, "documented heuristics; builds the best-rated house")
BUILDER = AgentSpec(
    "builder",
    BuilderAgent,
    GREEDY_OPTIONS + BUILD_OPTIONS,
    "greedy, but picks its house by simulating candidate builds in pymunk",
)
ISMCTS = AgentSpec(
    "ismcts",
    IsmctsAgent,
    SEARCH_OPTIONS + BUILD_OPTIONS,
    "information-set MCTS (quick build verdict in rollouts); builds like 'builder'",
    check=check_rollout_agent,
)

AGENTS: dict[str, AgentSpec] = {"greedy": GREEDY, "builder": BUILDER, "ismcts": ISMCTS}
