"""A tiny game for testing the core without any real game: "race to N".

Seats take turns adding 1 or 2 to a shared total; whoever brings it to N (or beyond) wins.
Positions with total ≡ N (mod 3) are lost for the player to move (classic subtraction game), so
the winning move is known analytically: that lets search agents be tested against the truth.
A chance option adds a coin after each move that may add 1 more (to exercise chance nodes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.core.agents import ISMCTS, MCTS, RANDOM
from sim.core.errors import InputError
from sim.core.game import (CHANCE, TERMINAL, Column, Game, GameConfig, GameDetails, GameSpec, Outcome, State,
                           Termination)
from sim.core.options import Option, RuleOptions


@dataclass(frozen=True, slots=True)
class Add:
    n: int

    def __str__(self) -> str:
        return f"Add({self.n})"


@dataclass(frozen=True, slots=True)
class Coin:
    n: int

    def __str__(self) -> str:
        return f"Coin({self.n})"


OPTIONS = (
    Option("target", int, 10, "total that wins", min=1, max=1000),
    Option("coin", bool, False, "a coin may add 1 after each move"),
)


@dataclass(frozen=True)
class RaceOptions(RuleOptions, options=OPTIONS):
    """The race's rule options, read one way: ``RaceOptions.from_rules(config.rules)``."""

    target: int
    coin: bool


class RaceEnd(Termination):
    """How a race ends: always by a seat reaching the target."""

    REACHED = "normal"


class RaceState(State):
    def __init__(self, num_players: int, target: int, coin: bool) -> None:
        self.num_players = num_players
        self.target = target
        self.coin = coin
        self.total = 0
        self.to_move = 0
        self.pending_coin = False
        self.winner = -1
        self._history: list[tuple[int, object]] = []

    def current_player(self) -> int:
        if self.winner >= 0:
            return TERMINAL
        return CHANCE if self.pending_coin else self.to_move

    def legal_actions(self, seat: int | None = None) -> list:
        if self.winner >= 0 or self.pending_coin:
            return []
        if seat is not None and seat != self.to_move:
            return []
        return [Add(1), Add(2)]

    def chance_outcomes(self) -> list:
        return [(Coin(0), 0.5), (Coin(1), 0.5)] if self.pending_coin else []

    def apply_action(self, action: object) -> None:
        if self.pending_coin:
            if not isinstance(action, Coin) or action.n not in (0, 1):
                raise self._illegal(action, "a coin is due")
            self._history.append((CHANCE, action))
            self.total += action.n
            self.pending_coin = False
            self._after_total(self.to_move)
            if self.winner < 0:
                self.to_move = (self.to_move + 1) % self.num_players
            return
        if not isinstance(action, Add) or action.n not in (1, 2) or self.winner >= 0:
            raise self._illegal(action, "add 1 or 2")
        self._history.append((self.to_move, action))
        self.total += action.n
        self._after_total(self.to_move)
        if self.winner < 0:
            if self.coin:
                self.pending_coin = True
            else:
                self.to_move = (self.to_move + 1) % self.num_players

    def _after_total(self, seat: int) -> None:
        if self.total >= self.target:
            self.winner = seat

    def outcome(self) -> Outcome | None:
        if self.winner < 0:
            return None
        return Outcome(RaceEnd.REACHED, (self.winner,), tuple(float(s == self.winner) for s in range(self.num_players)))

    def provisional_scores(self) -> tuple[float, ...]:
        return tuple(float(s == self.to_move) for s in range(self.num_players))

    def observation(self, seat: int) -> str:
        return self.to_notation()

    def clone(self) -> "RaceState":
        c = RaceState(self.num_players, self.target, self.coin)
        c.total, c.to_move, c.pending_coin, c.winner = self.total, self.to_move, self.pending_coin, self.winner
        c._history = list(self._history)
        return c

    def history(self) -> list:
        return list(self._history)

    def to_notation(self) -> str:
        return f"{self.num_players}/{self.target}/{int(self.coin)}/{self.total}/{self.to_move}/{int(self.pending_coin)}/{self.winner}"


class RaceGame(Game):
    spec = GameSpec(
        name="race",
        title="Race to N",
        min_players=2,
        max_players=3,
        has_chance=True,
        options=OPTIONS,
        seat_options=(Option("handicap", int, 0, "unused; tests seat options", min=0, max=5),),
        result_columns=(Column("final_total", "INTEGER"),),
        detail_tables={"moves": (Column("seat", "INTEGER"), Column("added", "INTEGER"))},
        terminations=RaceEnd,
        score_unit="1 for the winner",
    )
    agents = {"random": RANDOM, "mcts": MCTS, "ismcts": ISMCTS}

    def new_initial_state(self, config: GameConfig) -> RaceState:
        options = RaceOptions.from_rules(config.rules)
        return RaceState(config.num_players, options.target, options.coin)

    def from_notation(self, text: str) -> RaceState:
        try:
            n, target, coin, total, to_move, pending, winner = (int(x) for x in text.split("/"))
        except ValueError:
            raise InputError(f"not a race notation: {text!r}") from None
        s = RaceState(n, target, bool(coin))
        s.total, s.to_move, s.pending_coin, s.winner = total, to_move, bool(pending), winner
        return s

    def determinize(self, observation: str, rng: np.random.Generator) -> RaceState:
        return self.from_notation(observation)

    def details(self, state: State) -> GameDetails:
        assert isinstance(state, RaceState)
        rows = [{"seat": s, "added": a.n} for s, a in state.history() if s >= 0]
        return GameDetails(columns={"final_total": state.total}, rows={"moves": rows})


GAME = RaceGame()

#: A study of the race, random against the search agent (``str.format`` it with ``games`` and
#: ``iters``): the scenario text the runner's and the sensitivity section's tests build on.
RANDOM_VS_MCTS = """
game = "race"
games = {games}
seed = 11
backend = "serial"
[rules]
target = 15
coin = true
[[seats]]
agent = "random"
[[seats]]
agent = "mcts"
iterations = {iters}
"""
