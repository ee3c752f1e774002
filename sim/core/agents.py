"""Agents shared by every game, and agent construction from a scenario seat.

A game lists its agents in ``Game.agents`` (name -> :class:`~sim.core.game.AgentSpec`); the
generic ones here (``random``, ``mcts``, ``ismcts``) can be listed by any game.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from sim.core.errors import ScenarioError, allowed
from sim.core.game import Action, AgentSpec, Game, GameConfig
from sim.core.options import Option, validate_options


class RandomAgent:
    """Picks a legal action uniformly at random with its own generator."""

    def __init__(self, *, game: Game, seat: int, rng: np.random.Generator, config: GameConfig) -> None:
        self.seat = seat
        self.rng = rng

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """A uniformly random legal action.

        Raises:
            ValueError: no legal action was offered.
        """
        if not legal_actions:
            raise ValueError(f"seat {self.seat}: no legal action to choose from")
        return legal_actions[int(self.rng.integers(len(legal_actions)))]


RANDOM = AgentSpec("random", RandomAgent, (), "uniformly random legal action")


def _search_agent(determinize_each: bool):  # noqa: ANN202 - returns a factory
    def factory(*, game: Game, seat: int, rng: np.random.Generator, config: GameConfig, **params: Any):  # noqa: ANN202
        from sim.core.mcts import SearchAgent

        return SearchAgent(game=game, seat=seat, rng=rng, config=config, determinize_each=determinize_each, **params)

    return factory


SEARCH_OPTIONS: tuple[Option, ...] = (
    Option("iterations", int, 200, "search iterations per decision", min=1, max=1_000_000),
    Option("exploration", float, 1.4, "UCB exploration constant c", min=0.0, max=100.0),
    Option(
        "rollout_limit", int, 2000,
        "actions per random rollout; a cut rollout is won by the running leader (provisional scores)",
        min=1, max=1_000_000,
    ),
    Option("rollout_agent", str, "random", "the game's agent that plays rollouts (e.g. greedy); random by default"),
)

def check_rollout_agent(game: Game, params: Mapping[str, Any]) -> tuple[str, str] | None:
    """The rollout agent must be one of the game's non-search agents."""
    name = params.get("rollout_agent", "random")
    choices = [a for a in game.agents if a not in ("mcts", "ismcts")]
    if name not in choices:
        return "rollout_agent", f"got {name!r}; allowed: {allowed(choices)}"
    return None


MCTS = AgentSpec(
    "mcts",
    _search_agent(determinize_each=False),
    SEARCH_OPTIONS,
    "UCT Monte Carlo tree search with random rollouts (determinized over hidden information)",
    check=check_rollout_agent,
)
ISMCTS = AgentSpec(
    "ismcts",
    _search_agent(determinize_each=True),
    SEARCH_OPTIONS,
    "information-set MCTS: a new determinization of hidden cards each iteration",
    check=check_rollout_agent,
)


def agent_spec(game: Game, name: str, *, source: str | None = None, key: str = "agent") -> AgentSpec:
    """The agent ``name`` of ``game``.

    Raises:
        ScenarioError: the game has no such agent (the message lists the game's agents).
    """
    if name not in game.agents:
        raise ScenarioError(
            f"unknown agent {name!r} for game {game.spec.name!r}; allowed: {allowed(game.agents)}",
            source=source,
            key=key,
        )
    return game.agents[name]


def make_agent(
    game: Game,
    name: str,
    params: Mapping[str, Any],
    *,
    seat: int,
    rng: np.random.Generator,
    config: GameConfig,
) -> Any:
    """Build the agent ``name`` for ``seat`` with validated ``params``.

    Raises:
        ScenarioError: unknown agent or bad parameter.
    """
    spec = agent_spec(game, name)
    checked = validate_options(params, spec.options, prefix=f"seats[{seat}]")
    problem = spec.check(game, checked) if spec.check else None
    if problem:
        raise ScenarioError(problem[1], key=f"seats[{seat}].{problem[0]}")
    return spec.factory(game=game, seat=seat, rng=rng, config=config, **checked)
