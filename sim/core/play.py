"""The one play loop: a game played by its agents and its chance stream, step by step.

Every place that plays a whole game (the runner, the Sun's replay recorder, the invariant test,
the benches) calls :func:`play`, so decisions, chance, simultaneous steps, the step cap and the
running-leader record are written once (after OpenSpiel's ``play_game`` helpers). Nothing here
knows a game: it speaks :class:`sim.core.game.State` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from sim.core.agents import make_agent
from sim.core.game import CHANCE, SIMULTANEOUS, Game, GameConfig, State
from sim.core.seeding import GameStreams

#: A guard against a game that never ends; no real game comes near it.
MAX_STEPS = 10_000_000


class StepCapReached(RuntimeError):
    """The game did not end within the step cap."""


class NoLegalAction(ValueError):
    """A seat asked to move has no legal action (a rules bug: such a seat must not be asked)."""


class RandomAgent:
    """Picks uniformly among the legal actions with a given stream: one ``rng.integers(len(legal))``
    draw per decision, so several agents (and the chance node) sharing one stream draw in the
    order the game asks them."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """One of ``legal_actions``, uniformly.

        Raises:
            NoLegalAction: ``legal_actions`` is empty.
        """
        if not legal_actions:
            raise NoLegalAction("a seat to move has no legal action")
        return legal_actions[int(self.rng.integers(len(legal_actions)))]


def play_random(game: Game, config: GameConfig, rng: np.random.Generator, **kwargs: Any) -> PlayedGame:
    """:func:`play` with every seat a :class:`RandomAgent` on ``rng`` and chance drawn from ``rng``
    too (the one-stream random game of tests and benches); ``kwargs`` go to :func:`play`."""
    return play(game, config, [RandomAgent(rng)] * config.num_players, rng, **kwargs)


@dataclass
class PlayedGame:
    """A finished game.

    Attributes:
        state: the terminal state.
        moves: seat decisions made (chance outcomes not counted; a simultaneous step counts once).
        leads: changes of the running leader by provisional score, ``[move number, seat or -1
            for a tie]`` (empty for games without provisional scores).
    """

    state: State
    moves: int = 0
    leads: list[list[int]] = field(default_factory=list)


def seat_agents(game: Game, seats: Sequence[Any], config: GameConfig, streams: GameStreams) -> list[Any]:
    """The agents of a scenario's seats (``agent``, ``params``), each with its seat's own stream.

    Raises:
        InputError: an unknown agent or a bad parameter.
    """
    return [make_agent(game, seat.agent, seat.params, seat=i, rng=streams.seats[i], config=config)
            for i, seat in enumerate(seats)]


def _leader(scores: Sequence[float]) -> int:
    """The seat with the highest score, or -1 when several share it."""
    best = max(scores)
    top = [i for i, s in enumerate(scores) if s == best]
    return top[0] if len(top) == 1 else -1


def play(game: Game, config: GameConfig, agents: Sequence[Any], chance: np.random.Generator, *,
         state: State | None = None, max_steps: int = MAX_STEPS, label: str = "the game",
         before_step: Callable[[State, int], None] | None = None, steps: int | None = None) -> PlayedGame:
    """Play from the initial state of ``config`` (or from ``state``) to the end.

    Args:
        game: the game.
        config: the configuration (used when ``state`` is None).
        agents: one per seat, each with ``act(observation, legal_actions)``.
        chance: the chance stream (``state.sample_chance(chance)`` at chance nodes).
        state: a state to continue instead of a new one.
        max_steps: the step cap (every step counts, chance included).
        label: names the game in the step-cap error.
        before_step: called as ``before_step(state, step)`` before every step and once on the
            terminal state (the invariant test checks there).
        steps: stop after this many steps (every step counts, chance included) and return the
            state as it is, finished or not (random positions for tests); None plays to the end.

    Raises:
        StepCapReached: the game did not end within ``max_steps`` steps.
    """
    st = game.new_initial_state(config) if state is None else state
    leads: list[list[int]] = []
    leader = -2
    moves = 0
    for step in range(max_steps):
        if step == steps:
            break
        if before_step is not None:
            before_step(st, step)
        p = st.current_player()
        if p >= 0:
            st.apply_action(agents[p].act(st.observation(p), st.legal_actions(p)))
        elif p == CHANCE:
            st.apply_action(st.sample_chance(chance))
            continue
        elif p == SIMULTANEOUS:
            st.apply_actions({s: agents[s].act(st.observation(s), st.legal_actions(s)) for s in st.simultaneous_seats()})
        else:
            break
        moves += 1
        scores = st.provisional_scores()
        if scores is not None:
            now = _leader(scores)
            if now != leader:
                leads.append([moves, now])
                leader = now
    else:
        raise StepCapReached(f"{label} did not end within {max_steps} steps")
    return PlayedGame(st, moves, leads)
