"""The one play loop: a game played by its agents and its chance stream, step by step.

Every place that plays a game (the runner, the Sun's replay recorder, the invariant test, the
benches, the tests' random games and positions) calls :func:`play` or :func:`play_random`, so
decisions, chance, simultaneous steps, the step cap and the running-leader record are written once
(after OpenSpiel's ``play_game`` helpers). Nothing here knows a game: it speaks
:class:`sim.core.game.State` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from sim.core.agents import RandomAgent
from sim.core.agents import make_agent
from sim.core.game import CHANCE, SIMULTANEOUS, Game, GameConfig, State
from sim.core.seeding import GameStreams

#: A guard against a game that never ends; no real game comes near it.
MAX_STEPS = 10_000_000


class StepCapReached(RuntimeError):
    """The game did not end within the step cap."""


@dataclass
class PlayedGame:
    """A played game.

    Attributes:
        state: the terminal state (or the state where ``steps``/``until`` stopped :func:`play`).
        moves: seat decisions made (chance outcomes not counted; a simultaneous step counts once).
        leads: changes of the running leader by provisional score, ``[move number, seat or -1
            for a tie]`` (empty for games without provisional scores).
    """

    state: State
    moves: int = 0
    leads: list[list[int]] = field(default_factory=list)
    #: steps applied, chance outcomes included (a simultaneous step counts once)
    steps: int = 0


class BlindRandomAgent(RandomAgent):
    """The ``random`` agent, telling :func:`play` that it never reads its observation, so the
    loop does not build one (an observation costs more than a random decision)."""

    reads_observation = False


class FirstAgent:
    """Always the first legal action: a deterministic way through set-up steps (benches, tests)."""

    reads_observation = False

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """``legal_actions[0]``.

        Raises:
            IndexError: no legal action was offered.
        """
        return legal_actions[0]


def random_agents(game: Game, config: GameConfig, rng: np.random.Generator) -> list[BlindRandomAgent]:
    """One :class:`BlindRandomAgent` per seat, all drawing from ``rng``: one ``rng.integers(len(legal))``
    per decision, in the order the game asks the seats."""
    return [BlindRandomAgent(game=game, seat=i, rng=rng, config=config) for i in range(config.num_players)]


def play_random(game: Game, config: GameConfig | None, rng: np.random.Generator, *, state: State | None = None,
                **kwargs: Any) -> PlayedGame:
    """:func:`play` with every seat a :class:`BlindRandomAgent` on ``rng`` and chance drawn from ``rng``
    too: the one-stream random game of tests and benches. ``config`` may be None when ``state``
    is given; ``kwargs`` go to :func:`play`.

    Raises:
        StepCapReached: as :func:`play`.
        ValueError: a seat to move had no legal action, or neither a config nor a state was given.
    """
    if config is None:
        if state is None:
            raise ValueError("play_random needs a config or a state")
        config = GameConfig(num_players=state.num_players)
    return play(game, config, random_agents(game, config, rng), chance=rng, state=state, **kwargs)


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
         before_step: Callable[[State, int], None] | None = None, steps: int | None = None,
         until: Callable[[State], bool] | None = None, leads: bool = True) -> PlayedGame:
    """Play from the initial state of ``config`` (or from ``state``) to the end.

    Args:
        game: the game.
        config: the configuration (used when ``state`` is None).
        agents: one per seat, each with ``act(observation, legal_actions)``; an agent with a
            false ``reads_observation`` attribute is given None instead of an observation.
        chance: the chance stream (``state.sample_chance(chance)`` at chance nodes).
        state: a state to continue instead of a new one.
        max_steps: the step cap (every step counts, chance included).
        label: names the game in the step-cap error.
        before_step: called as ``before_step(state, step)`` before every step and once on the
            terminal state (the invariant test checks there).
        steps: stop after this many steps (every step counts, chance included) and return the
            state as it is, finished or not (random positions for tests); None plays to the end.
        until: stop before the first step at which ``until(state)`` is true (e.g. the first
            decision after the deal) and return the state as it is.
        leads: record the running leader (``PlayedGame.leads``); benches turn it off.

    Raises:
        StepCapReached: the game did not end within ``max_steps`` steps.
    """
    st = game.new_initial_state(config) if state is None else state
    reads = [getattr(a, "reads_observation", True) for a in agents]

    def decide(seat: int) -> Any:
        return agents[seat].act(st.observation(seat) if reads[seat] else None, st.legal_actions(seat))

    record: list[list[int]] = []
    leader = -2
    moves = 0
    step = 0
    for step in range(max_steps):
        if step == steps or (until is not None and until(st)):
            break
        if before_step is not None:
            before_step(st, step)
        p = st.current_player()
        if p >= 0:
            st.apply_action(decide(p))
        elif p == CHANCE:
            st.apply_action(st.sample_chance(chance))
            continue
        elif p == SIMULTANEOUS:
            st.apply_actions({s: decide(s) for s in st.simultaneous_seats()})
        else:
            break
        moves += 1
        scores = st.provisional_scores() if leads else None
        if scores is not None:
            now = _leader(scores)
            if now != leader:
                record.append([moves, now])
                leader = now
    else:
        raise StepCapReached(f"{label} did not end within {max_steps} steps")
    return PlayedGame(st, moves, record, step)
