"""Open-loop Monte Carlo tree search for any game of the shared interface.

One algorithm serves perfect-information games (UCT on the exact state) and hidden-information
games (single-observer information-set MCTS, Cowling, Powley & Whitehouse 2012): each iteration
starts from a determinization of the agent's observation (``Game.determinize``), and a child's
UCB term uses its *availability* count (how often it was legal when its parent was visited) in
place of the parent's visits, as ISMCTS prescribes. Chance nodes are sampled, not stored (open
loop). Simultaneous steps use decoupled UCT: each seat picks by UCB over its own action statistics.

Returns are the game's [0, 1] returns. A rollout cut at ``rollout_limit`` actions is scored by the
game's running leader (``State.provisional_scores``): a truncated rollout with a heuristic
evaluation, which lets long games (Rocks!) be searched with short rollouts; 1/n each where the
game keeps no running score.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from sim.core.errors import ScenarioError, allowed
from sim.core.game import CHANCE, SIMULTANEOUS, Action, Game, GameConfig, State, require_legal_actions


class _Node:
    __slots__ = ("children", "visits", "value", "avail", "player", "sim_stats")

    def __init__(self, player: int) -> None:
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.value = 0.0  # sum of returns of the seat that chose the edge into this node
        self.avail = 0
        self.player = player  # seat whose choice led here (SIMULTANEOUS for joint edges)
        # decoupled statistics at a simultaneous node: seat -> action -> [visits, value]
        self.sim_stats: dict[int, dict[Action, list[float]]] | None = None


class SearchAgent:
    """MCTS / ISMCTS agent.

    Args:
        game: the game (for ``determinize``).
        seat: the seat it plays.
        rng: its own generator (determinizations, tie breaks, rollouts).
        config: the game's config (unused; part of the factory protocol).
        iterations: search iterations per decision.
        exploration: UCB constant c.
        rollout_limit: maximum actions per rollout.
        rollout_agent: the game's agent that plays the rollouts (``"random"``: uniformly random).
        determinize_each: draw a new determinization per iteration (ISMCTS) or once per decision.

    Raises:
        ScenarioError: ``rollout_agent`` is not one of the game's agents.
    """

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
        determinize_each: bool = True,
    ) -> None:
        self.game = game
        self.seat = seat
        self.rng = rng
        self.iterations = iterations
        self.c = exploration
        self.rollout_limit = rollout_limit
        self.determinize_each = determinize_each or game.spec.hidden_information
        # a heuristic rollout policy: the game's own agent (default parameters) for every seat,
        # sharing this searcher's generator; None means uniformly random rollouts
        self._policy: list[Any] | None = None
        if rollout_agent != "random":
            # the game's own agent by name (the scenario loader checked it is a non-search one); not
            # through sim.core.agents.make_agent, which lists this search and so imports this module
            spec = game.agents.get(rollout_agent)
            if spec is None:
                raise ScenarioError(f"got {rollout_agent!r}; allowed: {allowed(game.agents)}",
                                    key=f"seats[{seat}].rollout_agent")
            self._policy = [spec.build(game, {}, seat=s, rng=rng, config=config) for s in range(config.num_players)]

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """Search from ``observation`` and return the most visited legal root action.

        Raises:
            ValueError: no legal action was offered.
        """
        require_legal_actions(self.seat, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        root = _Node(player=-99)
        base = None if self.determinize_each else self.game.determinize(observation, self.rng)
        for _ in range(self.iterations):
            state = self.game.determinize(observation, self.rng) if base is None else base.clone()
            self._iterate(root, state)
        return self._best(root, legal_actions)

    # --- one iteration ----------------------------------------------------------------------
    def _iterate(self, root: _Node, state: State) -> None:
        rng = self.rng
        node = root
        path: list[_Node] = []
        sim_path: list[tuple[_Node, dict[int, Action]]] = []
        expanded = False
        while not expanded and not state.is_terminal():
            p = state.current_player()
            if p == CHANCE:
                state.apply_action(state.sample_chance(rng))
                continue
            if p == SIMULTANEOUS:
                joint = self._select_joint(node, state)
                key = tuple(sorted(joint.items()))
                child = node.children.get(key)
                if child is None:
                    child = node.children[key] = _Node(SIMULTANEOUS)
                    expanded = True
                sim_path.append((node, joint))
                state.apply_actions(joint)
                path.append(child)
                node = child
                continue
            legal = state.legal_actions()
            untried = []
            for a in legal:
                ch = node.children.get(a)
                if ch is None:
                    untried.append(a)
                else:
                    ch.avail += 1
            if untried:
                a = untried[int(rng.integers(len(untried)))] if len(untried) > 1 else untried[0]
                child = node.children[a] = _Node(p)
                child.avail = 1
                expanded = True
            else:
                a = self._ucb(node, legal)
                child = node.children[a]
            state.apply_action(a)
            path.append(child)
            node = child
        returns = self._rollout(state)
        for n in path:
            n.visits += 1
            if n.player >= 0:
                n.value += returns[n.player]
        for n, joint in sim_path:
            for seat, a in joint.items():
                st = n.sim_stats[seat][a]  # type: ignore[index]
                st[0] += 1
                st[1] += returns[seat]
        root.visits += 1

    def _ucb(self, node: _Node, legal: Sequence[Action]) -> Action:
        c = self.c
        best_a, best_v = legal[0], -math.inf
        children = node.children
        for a in legal:
            ch = children[a]
            v = ch.value / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits) if ch.visits else math.inf
            if v > best_v:
                best_a, best_v = a, v
        return best_a

    def _select_joint(self, node: _Node, state: State) -> dict[int, Action]:
        if node.sim_stats is None:
            node.sim_stats = {}
        joint: dict[int, Action] = {}
        total = max(1, node.visits)
        for seat in state.simultaneous_seats():
            legal = state.legal_actions(seat)
            stats = node.sim_stats.setdefault(seat, {})
            untried = [a for a in legal if a not in stats]
            if untried:
                a = untried[int(self.rng.integers(len(untried)))]
                stats[a] = [0, 0.0]
            else:
                a = max(
                    legal,
                    key=lambda x: (stats[x][1] / stats[x][0] + self.c * math.sqrt(math.log(total) / stats[x][0]))
                    if stats[x][0]
                    else math.inf,
                )
            joint[seat] = a
        return joint

    def _rollout(self, state: State) -> tuple[float, ...]:
        rng = self.rng
        for _ in range(self.rollout_limit):
            p = state.current_player()
            if p < 0:
                if state.is_terminal():
                    return state.returns()
                if p == CHANCE:
                    state.apply_action(state.sample_chance(rng))
                else:
                    state.apply_actions(
                        {s: _pick(state.legal_actions(s), rng) for s in state.simultaneous_seats()}
                    )
                continue
            if self._policy is None:
                state.apply_action(_pick(state.legal_actions(), rng))
            else:
                state.apply_action(self._policy[p].act(state.observation(p), state.legal_actions(p)))
        if state.is_terminal():
            return state.returns()
        return _cut_returns(state)

    def _best(self, root: _Node, legal_actions: Sequence[Action]) -> Action:
        if root.sim_stats is not None and self.seat in root.sim_stats:
            stats = root.sim_stats[self.seat]
            scored = [(stats.get(a, [0, 0.0])[0], i) for i, a in enumerate(legal_actions)]
        else:
            scored = [
                (root.children[a].visits if a in root.children else 0, i) for i, a in enumerate(legal_actions)
            ]
        # most visits; ties broken by the order of legal_actions (deterministic)
        best = max(scored, key=lambda t: (t[0], -t[1]))
        return legal_actions[best[1]]


def _cut_returns(state: State) -> tuple[float, ...]:
    """Returns of a rollout cut before the end: the running leader by the game's provisional
    scores takes the win (shared on ties); 1/n each where the game keeps no running score."""
    n = state.num_players
    scores = state.provisional_scores()
    if scores is None:
        return tuple(1.0 / n for _ in range(n))
    best = max(scores)
    top = [i for i, x in enumerate(scores) if x == best]
    return tuple(1.0 / len(top) if i in top else 0.0 for i in range(n))


def _pick(legal: Sequence[Action], rng: np.random.Generator) -> Action:
    return legal[int(rng.integers(len(legal)))] if len(legal) > 1 else legal[0]
