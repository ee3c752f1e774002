"""The druid game's own policies. ``random``, ``mcts`` and ``ismcts`` come from ``sim.core``.

Greedy (one ply)
    For every legal ``Place(point, value)`` the agent scores the change it makes to the three
    lines through ``point`` (lines already carrying a megalith are ignored), and plays the best
    (ties broken at random with its own generator):

        score = sum over open lines L through point of  f(L after) - f(L before)  -  cost * value

    where ``f`` rates a line from the agent's side with its totals ``m`` (own) and ``o``
    (opponent), and ``e`` empty spaces:

    * full line: +1 if the agent wins it (tie rule applied), -1 otherwise;
    * early claims on: +1 if the agent dominates it early (the rules' test), -1 if the opponent
      does (the same test with the agent's own best stones);
    * otherwise the lead ``(m - o) / (3 e + 3)`` clipped to [-0.8, 0.8]: a lead counts for more when
      few spaces remain to overturn it (3 is about the mean stone).

    ``cost`` (default 0.03) makes it prefer the smaller of two stones that do the same job. In the
    face-down variant a hidden opponent stone counts as the mean of the opponent's unseen stones.
"""

from __future__ import annotations

from typing import Any, Sequence, cast

import numpy as np

from sim.core.game import Action, AgentSpec, GameConfig, require_legal_actions
from sim.core.options import Option
from sim.druids.actions import Place
from sim.druids.geometry import LINE_LENGTH, NUM_LINES, POINT_LINES
from sim.druids.options import EARLY_TIE_RULE
from sim.druids.rules import HIDDEN, DruidsObservation

_LONGEST = max(LINE_LENGTH)


def _best_prefix(values: Sequence[float]) -> list[float]:
    vals = sorted(values, reverse=True)
    out, s = [0.0], 0.0
    for k in range(_LONGEST):
        if k < len(vals):
            s += vals[k]
        out.append(s)
    return out


class GreedyAgent:
    """One-ply heuristic player (see the module docstring for the score)."""

    def __init__(self, *, game: Any, seat: int, rng: np.random.Generator, config: GameConfig, cost: float = 0.03) -> None:
        self.seat = seat
        self.rng = rng
        self.cost = cost

    def act(self, observation: DruidsObservation, legal_actions: Sequence[Action]) -> Place:
        """The best-scoring legal placement.

        Raises:
            ValueError: no legal action was offered.
        """
        require_legal_actions(self.seat, legal_actions)
        obs = observation
        me = obs.seat
        opp = 1 - me
        face_down = obs.options.face_down
        early = obs.options.early_level
        tie_last = obs.options.tie_last
        pool = obs.opponent_pool()
        hidden_mean = sum(pool) / len(pool) if pool else 0.0
        # line facts from the observation
        tot = [[0.0] * NUM_LINES, [0.0] * NUM_LINES]
        empty = list(LINE_LENGTH)
        firstp = [-1] * NUM_LINES
        lastp = [-1] * NUM_LINES
        for i, (p, v) in enumerate(zip(obs.order, obs.values)):
            s = (obs.first + i) & 1
            val = hidden_mean if v == HIDDEN else float(v)
            for L in POINT_LINES[p]:
                tot[s][L] += val
                empty[L] -= 1
                if firstp[L] < 0:
                    firstp[L] = s
                lastp[L] = s
        claimed = {c[0] for c in obs.claims}
        # opponent's unplaced stones: face up they are exactly the pool; face down early is off
        opp_left = len(pool) - sum(1 for i, v in enumerate(obs.values) if v == HIDDEN)
        opp_best = _best_prefix(pool) if not face_down else [0.0] * (_LONGEST + 1)
        my_hand = list(obs.hand)

        def rate(m: float, o: float, e: int, first: int, last: int, my_best: list[float], my_left: int) -> float:
            tl = last if tie_last else first
            if e == 0:
                return 1.0 if m > o or (m == o and tl == opp) else -1.0
            if early:
                ob = o + opp_best[e]
                if m and (ob < m or (ob == m and early == EARLY_TIE_RULE and (opp_left < e or tie_last or tl == opp))):
                    return 1.0
                mb = m + my_best[e]
                if o and (mb < o or (mb == o and early == EARLY_TIE_RULE and (my_left < e or tie_last or tl == me))):
                    return -1.0
            lead = (m - o) / (3.0 * e + 3.0)
            return 0.8 if lead > 0.8 else -0.8 if lead < -0.8 else lead

        before_best = _best_prefix(my_hand)
        before = {
            L: rate(tot[me][L], tot[opp][L], empty[L], firstp[L], lastp[L], before_best, len(my_hand))
            for L in range(NUM_LINES)
            if L not in claimed
        }
        after_best: dict[int, list[float]] = {}
        best_score = -1e18
        best: list[Place] = []
        for a in cast(Sequence[Place], legal_actions):  # druids offers only Place actions
            v = a.value
            if v not in after_best:
                rest = my_hand[:]
                rest.remove(v)
                after_best[v] = _best_prefix(rest)
            ab = after_best[v]
            score = -self.cost * v
            for L in POINT_LINES[a.point]:
                if L in claimed:
                    continue
                first = firstp[L] if firstp[L] >= 0 else me
                score += rate(tot[me][L] + v, tot[opp][L], empty[L] - 1, first, me, ab, len(my_hand) - 1) - before[L]
            if score > best_score + 1e-12:
                best_score, best = score, [a]
            elif score > best_score - 1e-12:
                best.append(a)
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]


def _greedy_factory(*, game: Any, seat: int, rng: np.random.Generator, config: GameConfig, **params: Any) -> GreedyAgent:
    return GreedyAgent(game=game, seat=seat, rng=rng, config=config, **params)


GREEDY = AgentSpec(
    "greedy",
    _greedy_factory,
    (Option("cost", float, 0.03, "score penalty per pip of the stone played (prefers small stones)", min=0.0, max=10.0),),
    "one-ply heuristic: best change in line ratings (won/lost lines, leads) minus a small stone cost",
)
