"""The ``human`` agent: a person at the table, for ``stonelab play`` (docs/howto.md, "Play a game").

A human seat is an agent like any other in the one play loop (:func:`sim.core.play.play`): its
``act(observation, legal_actions)`` hands the decision to a :class:`Channel`, the thing that asks
the person (a page in the browser, a terminal) and waits for the answer. The channel is given for
the duration of one game with :func:`seated`; building a human agent anywhere else (a study, a
tournament, a re-simulated replay) raises a :class:`~sim.core.errors.ScenarioError`, since no one
would answer.

Nothing here names a game: what a seat sees is the game's own ``observation(seat)``, and how a
position is shown and a typed move read is the game's :class:`SeatView` (its plug-in's ``seat``).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, Protocol, Sequence

import numpy as np

from sim.core.errors import ScenarioError
from sim.core.game import Action, AgentSpec, Game, GameConfig, require_legal_actions

#: the agent name a scenario seat gives for a person
HUMAN_AGENT = "human"


class Channel(Protocol):
    """Asks a person for a decision and waits for it (a page, a terminal)."""

    def choose(self, seat: int, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """One of ``legal_actions``, chosen by the person sitting in ``seat`` who sees ``observation``.

        Raises:
            Abandoned: the person left (Ctrl-C, SIGTERM, the input ended) before choosing.
        """
        ...


class SeatView(Protocol):
    """How a game shows a position to the person in one seat and reads the moves they type.

    A game's plug-in names one (``GamePlugin.seat``); everything it shows is computed from the
    seat's own observation, so hidden information stays hidden by construction. It may also have
    ``play_sections``: scenario tables set for a person's game (``{table: {key: value}}``), e.g.
    the Sun's frames kept for a replay, since a person's choices cannot be re-simulated.
    """

    def view(self, observation: Any) -> dict[str, Any]:
        """What the seat sees, as JSON-ready data; its ``"text"`` is the position as plain text."""
        ...

    def parse(self, text: str) -> Action:
        """The action a person typed in the game's notation (``str(action)`` read back), legal or not.

        Raises:
            InputError: the text is not an action of the game (the message shows the forms).
        """
        ...

    def step_text(self, seat: int, action: Action, observation: Any) -> str:
        """How the seat whose ``observation`` (after the step) is given sees the step ``action``
        taken by ``seat`` (a seat or CHANCE): the action's notation with what that seat may not
        know left out."""
        ...


class Abandoned(Exception):
    """The person left the table before the game ended: nothing is stored."""


_CHANNEL: ContextVar[Channel | None] = ContextVar("human_channel", default=None)


@contextmanager
def seated(channel: Channel) -> Iterator[Channel]:
    """Within the block, human agents that are built ask ``channel``."""
    token = _CHANNEL.set(channel)
    try:
        yield channel
    finally:
        _CHANNEL.reset(token)


class HumanAgent:
    """The person in ``seat``: each decision is asked of the channel given at construction."""

    def __init__(self, seat: int, channel: Channel) -> None:
        self.seat = seat
        self.channel = channel

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """The person's choice among ``legal_actions``.

        Raises:
            ValueError: no legal action was offered (a caller's bug).
            Abandoned: the person left before choosing.
        """
        require_legal_actions(self.seat, legal_actions)
        return self.channel.choose(self.seat, observation, legal_actions)


def _human_factory(*, game: Game, seat: int, rng: np.random.Generator, config: GameConfig,
                   **params: Any) -> HumanAgent:
    channel = _CHANNEL.get()
    if channel is None:
        raise ScenarioError(f"seat {seat} is agent {HUMAN_AGENT!r}: a person plays it with 'stonelab play "
                            "SCENARIO'; a study, a tournament or a re-simulation has no one to ask",
                            key=f"seats[{seat}].agent")
    return HumanAgent(seat, channel)


HUMAN = AgentSpec(HUMAN_AGENT, _human_factory, (), "a person at the table: stonelab play (never in a study)")


def human_seats(seats: Sequence[Any]) -> list[int]:
    """The seats whose ``agent`` is :data:`HUMAN_AGENT` (``seats``: scenario seat specs)."""
    return [i for i, s in enumerate(seats) if getattr(s, "agent", None) == HUMAN_AGENT]


def refuse_human_study(points: Sequence[Any], source: str | None = None) -> None:
    """A study plays its games unattended: a human seat in any of its points is refused.

    ``points`` are sweep points (``.scenario.seats``) or scenarios (``.seats``).

    Raises:
        ScenarioError: a seat is agent ``human``; the message says how to play it instead.
    """
    for p in points:
        seats = human_seats(getattr(getattr(p, "scenario", p), "seats", ()))
        if seats:
            raise ScenarioError(f"seat {seats[0]} is agent {HUMAN_AGENT!r}: a study plays unattended; play the game "
                                "yourself with 'stonelab play SCENARIO', or give the seat an agent",
                                source=source, key=f"seats[{seats[0]}].agent")
