"""A toy game whose best design is known in closed form, for the design search's tests: "duel".

Two seats take turns saying "go"; after each go a coin with probability ``stop`` ends the game, so
a game lasts ``1 / stop`` actions on average (geometric). Then a second coin decides the winner:
seat 0 with probability ``p_first``. So

- the first-player edge (seat 0's sole-win share minus seat 1's) is ``2 p_first - 1``: a fair game
  (edge 0) has ``p_first = 0.5`` exactly;
- the mean length is ``1 / stop``: a length of 4 has ``stop = 0.25`` exactly.

A seat's ``skill`` (0 to 1) tilts the winner coin: with probability ``|skill_0 - skill_1|`` the
more skilled seat wins for sure, otherwise the ``p_first`` coin decides: a game that is exactly
``|skill_0 - skill_1|`` skill in the sense of the skill index (``analysis.skill``) when
``p_first = 0.5``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.core.agents import RANDOM
from sim.core.errors import InputError
from sim.core.game import CHANCE, TERMINAL, Column, Game, GameConfig, GameDetails, GameSpec, Outcome, State, Termination
from sim.core.options import Option


@dataclass(frozen=True, slots=True)
class Go:
    def __str__(self) -> str:
        return "Go"


@dataclass(frozen=True, slots=True)
class Coin:
    what: str  # "stop", "on", "skill", "luck", "0", "1"

    def __str__(self) -> str:
        return f"Coin({self.what})"


class DuelEnd(Termination):
    """A duel always ends with a winner."""

    REACHED = "normal"


class DuelState(State):
    def __init__(self, p_first: float, stop: float, skills: tuple[float, float]) -> None:
        self.num_players = 2
        self.p_first = p_first
        self.stop = stop
        self.skills = skills
        self.to_move = 0
        self.phase = "move"  # move | stop_coin | skill_coin | luck_coin | over
        self.winner = -1
        self._history: list[tuple[int, object]] = []

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        return self.to_move if self.phase == "move" else CHANCE

    def legal_actions(self, seat: int | None = None) -> list:
        if self.phase != "move" or (seat is not None and seat != self.to_move):
            return []
        return [Go()]

    def chance_outcomes(self) -> list:
        if self.phase == "stop_coin":
            return [(Coin("stop"), self.stop), (Coin("on"), 1.0 - self.stop)]
        if self.phase == "skill_coin":
            d = abs(self.skills[0] - self.skills[1])
            return [(Coin("skill"), d), (Coin("luck"), 1.0 - d)]
        if self.phase == "luck_coin":
            return [(Coin("0"), self.p_first), (Coin("1"), 1.0 - self.p_first)]
        return []

    def apply_action(self, action: object) -> None:
        if self.phase == "move":
            if not isinstance(action, Go):
                raise self._illegal(action, "say go")
            self._history.append((self.to_move, action))
            self.phase = "stop_coin"
            return
        if not isinstance(action, Coin):
            raise self._illegal(action, "a coin is due")
        self._history.append((CHANCE, action))
        if self.phase == "stop_coin":
            if action.what == "on":
                self.to_move = 1 - self.to_move
                self.phase = "move"
            else:
                self.phase = "skill_coin"
        elif self.phase == "skill_coin":
            if action.what == "skill":
                self.winner = 0 if self.skills[0] > self.skills[1] else 1
                self.phase = "over"
            else:
                self.phase = "luck_coin"
        elif self.phase == "luck_coin":
            self.winner = int(action.what)
            self.phase = "over"

    def outcome(self) -> Outcome | None:
        if self.winner < 0:
            return None
        return Outcome(DuelEnd.REACHED, (self.winner,), tuple(float(s == self.winner) for s in range(2)))

    def observation(self, seat: int) -> str:
        return self.to_notation()

    def clone(self) -> "DuelState":
        c = DuelState(self.p_first, self.stop, self.skills)
        c.to_move, c.phase, c.winner, c._history = self.to_move, self.phase, self.winner, list(self._history)
        return c

    def history(self) -> list:
        return list(self._history)

    def to_notation(self) -> str:
        return f"{self.p_first}/{self.stop}/{self.skills[0]}/{self.skills[1]}/{self.to_move}/{self.phase}/{self.winner}"


class DuelGame(Game):
    spec = GameSpec(
        name="duel",
        title="Duel (a toy with a known best design)",
        min_players=2,
        max_players=2,
        has_chance=True,
        options=(
            Option("p_first", float, 0.7, "chance that seat 0 wins a game luck decides", min=0.0, max=1.0),
            Option("stop", float, 0.5, "chance that the game ends after each go", min=0.01, max=1.0),
        ),
        seat_options=(Option("skill", float, 0.0, "the seat's skill (0 to 1)", min=0.0, max=1.0),),
        result_columns=(Column("rounds", "INTEGER"),),
        detail_tables={},
        terminations=DuelEnd,
        score_unit="1 for the winner",
    )
    agents = {"random": RANDOM}

    def new_initial_state(self, config: GameConfig) -> DuelState:
        skills = (float(config.seats[0].get("skill", 0.0)), float(config.seats[1].get("skill", 0.0)))
        return DuelState(config.rules["p_first"], config.rules["stop"], skills)

    def from_notation(self, text: str) -> DuelState:
        try:
            p, stop, s0, s1, to_move, phase, winner = text.split("/")
            s = DuelState(float(p), float(stop), (float(s0), float(s1)))
            s.to_move, s.phase, s.winner = int(to_move), phase, int(winner)
        except ValueError:
            raise InputError(f"not a duel notation: {text!r}") from None
        return s

    def determinize(self, observation: str, rng: np.random.Generator) -> DuelState:
        return self.from_notation(observation)

    def details(self, state: State) -> GameDetails:
        assert isinstance(state, DuelState)
        return GameDetails(columns={"rounds": state.length()}, rows={})


GAME = DuelGame()

#: a search toward a fair duel of mean length 4: the best design is p_first = 0.5, stop = 0.25
#: (``str.format`` it with ``trials``, ``games`` and ``sampler``)
FAIR_DUEL = """
game = "duel"
seed = 5
backend = "serial"
[rules]
p_first = 0.7
stop = 0.5
[[seats]]
agent = "random"
[[seats]]
agent = "random"
[tune]
trials = {trials}
games = {games}
recheck = 2
recheck_games = {recheck_games}
sampler = "{sampler}"
pruning = {pruning}
[tune.params]
"rules.p_first" = {{ low = 0.05, high = 0.95 }}
"rules.stop" = {{ low = 0.05, high = 0.9, log = true }}
[[tune.targets]]
metric = "first_player_edge"
value = 0.0
[[tune.targets]]
metric = "mean_length"
value = 4.0
scale = 4.0
"""
