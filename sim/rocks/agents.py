"""Stonehenge Rocks! policies beyond the shared ones (``random``, ``mcts``, ``ismcts``).

``greedy`` (:class:`GreedyAgent`) is a one-step heuristic that sees only its observation:

1. **Seat when possible.** A box seat (3 points) first, else a trilithon seat (2 points); the fan
   seated is the one furthest from the souvenir stand (lowest space), because fans near space 30
   are about to earn a T-shirt anyway.
2. **Move fans for T-shirts and seat chances.** Each legal move is scored: ``+tshirt_weight`` when it
   carries the fan past 30 while T-shirts are left; ``+setup_weight`` when the fan lands on a space
   whose number is still in hand after the move (a box seat next turn); ``-setup_weight`` when the
   card played is the number of another own fan's space (that seat chance is lost) or the move
   leaves a fan that could be seated; ``-guard_weight`` when it lands on the guard's space; plus
   ``progress_weight`` times the spaces gained over 30 (closer to the stand is closer to a shirt).
   The best move is played while its score is above ``move_threshold``.
3. **Use the guard against the leader.** When the guard may move, each target space is scored by the
   fans there: the leader's (the opponent with most points) count 2, other opponents' 1, own -3.
   The guard moves to the best space if that beats the guard's current space, or whenever own fans
   stand on the guard's space (they would be removed at the end of the turn). Cards that could seat
   an own fan next turn are not spent on the guard unless fans must be saved. The card for the
   planned guard move is kept back while moving fans (step 2), so the guard move stays possible.
4. Otherwise end the turn.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from sim.core.game import Action, AgentSpec, Game, GameConfig, require_legal_actions
from sim.core.options import Option
from sim.rocks.actions import SPACES, EndTurn, Move, MoveGuard, SeatBox, SeatTrilithon
from sim.rocks.rules import RocksObservation


class GreedyAgent:
    """The documented heuristic of the module docstring (deterministic; ``rng`` is unused)."""

    def __init__(
        self,
        *,
        game: Game,
        seat: int,
        rng: np.random.Generator,
        config: GameConfig,
        tshirt_weight: float = 10.0,
        setup_weight: float = 4.0,
        guard_weight: float = 20.0,
        progress_weight: float = 1.0,
        move_threshold: float = 0.0,
    ) -> None:
        self.seat = seat
        self.rng = rng
        self.w_shirt = tshirt_weight
        self.w_setup = setup_weight
        self.w_guard = guard_weight
        self.w_progress = progress_weight
        self.threshold = move_threshold

    def act(self, observation: RocksObservation, legal_actions: Sequence[Action]) -> Action:
        """Pick an action by the heuristic.

        Raises:
            ValueError: no legal action was offered.
        """
        require_legal_actions(self.seat, legal_actions)
        obs = observation
        boxes = [a for a in legal_actions if type(a) is SeatBox]
        if boxes:
            return min(boxes, key=lambda a: a.space)
        tris = [a for a in legal_actions if type(a) is SeatTrilithon]
        if tris:
            return min(tris, key=lambda a: a.space)
        moves = [a for a in legal_actions if type(a) is Move]
        guards = [a for a in legal_actions if type(a) is MoveGuard]
        if moves and guards:
            # keep the card the guard will need (unless the hand holds two of it)
            plan = self._guard_choice(obs, guards)
            if plan is not None and obs.hand.count(plan.space) == 1:
                moves = [a for a in moves if a.card != plan.space]
        if moves:
            scored = [(self._score_move(obs, a), -i, a) for i, a in enumerate(moves)]
            best = max(scored, key=lambda t: (t[0], t[1]))
            if best[0] > self.threshold:
                return best[2]
        if guards:
            choice = self._guard_choice(obs, guards)
            if choice is not None:
                return choice
        for a in legal_actions:
            if type(a) is EndTurn:
                return a
        return legal_actions[0]

    # --- scoring ---------------------------------------------------------------------------
    def _score_move(self, obs: RocksObservation, a: Move) -> float:
        r = obs.options
        me = obs.fans[self.seat]
        rest = list(obs.hand)
        rest.remove(a.card)
        dest = a.space + a.card if a.space else a.card + r.entry_offset
        score = 0.0
        if dest > SPACES:
            if obs.shirts[self.seat] < r.tshirts_per_player:
                score += self.w_shirt
        else:
            if dest == obs.guard:
                score -= self.w_guard
            elif dest in rest:
                score += self.w_setup
            score += self.w_progress * (dest - a.space if a.space else dest) / SPACES
        # the card spent was a seat chance for another own fan (not one blocked by the guard)
        if a.card != obs.guard and me[a.card] - (1 if a.space == a.card else 0) > 0:
            score -= self.w_setup
        # the fan moved could have been seated from where it stands with a card still in hand
        if a.space and a.space in rest:
            score -= self.w_setup
        return score

    def _guard_choice(self, obs: RocksObservation, guards: list[MoveGuard]) -> MoveGuard | None:
        me = self.seat
        opponents = [s for s in range(obs.num_players) if s != me]
        # leader: most points; ties go to the seat that plays soonest after us
        order = {s: (s - me) % obs.num_players for s in opponents}
        leader = max(opponents, key=lambda s: (obs.points(s), -order[s]))

        def value(space: int) -> float:
            v = 0.0
            for s in range(obs.num_players):
                k = obs.fans[s][space]
                v += k * (-3.0 if s == me else 2.0 if s == leader else 1.0)
            return v

        must_save = obs.fans[me][obs.guard] > 0 and not obs.guard_moved
        own_seat_cards = {c for c in obs.hand if c and obs.fans[me][c] and c != obs.guard}
        candidates = guards if must_save else [g for g in guards if g.space not in own_seat_cards]
        if not candidates:
            candidates = guards if must_save else []
        if not candidates:
            return None
        best = max(candidates, key=lambda g: (value(g.space), -g.space))
        if must_save or value(best.space) > value(obs.guard):
            return best
        return None


def _greedy_factory(*, game: Game, seat: int, rng: np.random.Generator, config: GameConfig, **params: Any) -> GreedyAgent:
    return GreedyAgent(game=game, seat=seat, rng=rng, config=config, **params)


GREEDY = AgentSpec(
    "greedy",
    _greedy_factory,
    (
        Option("tshirt_weight", float, 10.0, "score of a move that earns a T-shirt", min=0.0, max=1000.0),
        Option("setup_weight", float, 4.0, "score of a move that sets up a box seat for next turn", min=0.0, max=1000.0),
        Option("guard_weight", float, 20.0, "penalty of a move onto the guard's space", min=0.0, max=1000.0),
        Option("progress_weight", float, 1.0, "score per lap fraction a move advances a fan", min=0.0, max=1000.0),
        Option("move_threshold", float, 0.0, "play the best move only while its score is above this", min=-1000.0, max=1000.0),
    ),
    "seat when possible, move fans for T-shirts and seat chances, use the guard against the leader",
)
