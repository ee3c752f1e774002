"""The ``[[seats]]`` of a scenario: one :class:`SeatSpec` per seat, validated against the game.

Below :mod:`sim.core.scenario` and :mod:`sim.core.tournament`, which both validate seats (a
tournament validates each entrant as a seat): neither imports the other for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, TypeVar

from sim.core.errors import ScenarioError, allowed
from sim.core.game import Game
from sim.core.options import validate_options

#: seat keys every game takes: the agent, a display name, and a declared strength (a number,
#: higher is stronger) that reports use to say which agent is stronger (analysis/strength.py)
SEAT_BASE = ("agent", "name", "strength")
#: values of a scenario's ``seat_order`` key: ``rotate`` (the default) plays every cyclic rotation
#: of the seats equally often when the seats differ; ``fixed`` keeps ``[[seats]]`` entry i in seat i
SEAT_ORDERS = ("rotate", "fixed")

_T = TypeVar("_T")


def rotations(items: Sequence[_T]) -> list[tuple[_T, ...]]:
    """Every cyclic rotation of ``items``, the unrotated first: ``(a, b, c), (b, c, a), (c, a, b)``.

    In the rotations each item sits in each position exactly once (a Latin square), so a seat's
    and an item's effects on winning are not mixed; all ``n!`` orders would balance the same first
    and second order effects at a cost of 24 orders for 4 players instead of 4. The tournament
    seats each combination of entrants this way, and a study with differing seats rotates them so.
    """
    t = tuple(items)
    return [t[r:] + t[:r] for r in range(len(t))]


@dataclass(frozen=True)
class SeatSpec:
    """One seat: its agent, the agent's validated parameters and the game's seat options."""

    agent: str
    params: Mapping[str, Any]
    seat_options: Mapping[str, Any]
    name: str = ""
    #: the keys the file sets explicitly (labels show only these, not every default)
    given: tuple[str, ...] = ()

    def label(self) -> str:
        """Readable label, e.g. ``mcts(iterations=300)``, or the seat's given name."""
        if self.name:
            return self.name
        extra = [f"{k}={v}" for k, v in {**self.params, **self.seat_options}.items() if k in self.given]
        return f"{self.agent}({', '.join(extra)})" if extra else self.agent


def validate_seats(value: Any, game: Game, source: str) -> tuple[SeatSpec, ...]:
    """Validate a scenario's ``seats`` (an array of seat tables) for ``game``.

    Raises:
        ScenarioError: missing or not an array of tables, a seat count the game does not take, an
            unknown agent or key, a bad name, strength, agent parameter or seat option; the key
            names the seat (``seats[i].<key>``).
    """
    spec = game.spec
    lo, hi = spec.min_players, spec.max_players
    between = f"{lo}" if lo == hi else f"{lo} to {hi}"
    if value is None:
        raise ScenarioError(f"missing: give {between} [[seats]] tables", source=source, key="seats")
    if not isinstance(value, list) or not all(isinstance(s, dict) for s in value):
        raise ScenarioError("must be an array of tables ([[seats]])", source=source, key="seats")
    if not lo <= len(value) <= hi:
        raise ScenarioError(
            f"{len(value)} seats; {spec.name} takes {between} players", source=source, key="seats"
        )
    # start-up: the agent loader adds 3 ms to the scenario loader's start-up (CPU, python -X importtime)
    from sim.core.agents import agent_spec, check_outside_ref, outside_agents_imported

    seats = []
    for i, seat in enumerate(value):
        where = f"seats[{i}]"
        agent = seat.get("agent")
        if not isinstance(agent, str):
            raise ScenarioError(
                f"missing or not a string; allowed agents: {allowed(game.agents)}", source=source, key=f"{where}.agent"
            )
        seat_keys = {o.name for o in spec.seat_options}
        if ":" in agent and not outside_agents_imported():
            # outside code, not imported (sim/core/agents.py): its path's shape is checked; its
            # parameters are unknown until it is imported, and are kept as written
            check_outside_ref(agent, source=source, key=f"{where}.agent")
            seats.append(_seat(seat, agent, {k: v for k, v in seat.items() if k not in seat_keys | set(SEAT_BASE)},
                               game, source, where))
            continue
        aspec = agent_spec(game, agent, source=source, key=f"{where}.agent")
        agent_keys = {o.name for o in aspec.options}
        for k in seat:
            if k not in agent_keys and k not in seat_keys and k not in SEAT_BASE:
                raise ScenarioError(
                    f"unknown key for agent {agent!r}; allowed: {allowed(sorted(agent_keys | seat_keys | set(SEAT_BASE)))}",
                    source=source,
                    key=f"{where}.{k}",
                )
        params = validate_options({k: v for k, v in seat.items() if k in agent_keys}, aspec.options, source=source, prefix=where)
        problem = aspec.check(game, params) if aspec.check else None
        if problem:
            raise ScenarioError(problem[1], source=source, key=f"{where}.{problem[0]}")
        seats.append(_seat(seat, agent, params, game, source, where))
    return tuple(seats)


def seats_differ(seats: Sequence[SeatSpec]) -> bool:
    """True when two seats hold different players: another agent, parameter, seat option (a hand,
    a skill) or name."""
    keys = {(s.agent, tuple(sorted(s.params.items(), key=str)), tuple(sorted(s.seat_options.items(), key=str)),
             s.name) for s in seats}
    return len(keys) > 1


def seat_orders(seats: Sequence[SeatSpec], mode: str) -> tuple[tuple[int, ...], ...]:
    """The seat orders a study plays: for each order, the ``[[seats]]`` entry (the *player*) in each
    seat. One order (entry i in seat i) when ``mode`` is ``fixed`` or every seat holds the same
    player; else every cyclic rotation (:func:`rotations`)."""
    ident = tuple(range(len(seats)))
    if mode == "fixed" or not seats_differ(seats):
        return (ident,)
    return tuple(rotations(ident))


def _seat(seat: Mapping[str, Any], agent: str, params: Mapping[str, Any], game: Game, source: str,
          where: str) -> SeatSpec:
    """The seat with its agent's ``params`` (validated by the caller): name, strength and the
    game's seat options checked here."""
    label = seat.get("name", "")
    if not isinstance(label, str):
        raise ScenarioError(f"got {label!r}; allowed: a string", source=source, key=f"{where}.name")
    strength = seat.get("strength")
    if strength is not None and (isinstance(strength, bool) or not isinstance(strength, (int, float))
                                 or not math.isfinite(strength)):
        raise ScenarioError(f"got {strength!r}; allowed: a finite number (higher is stronger)",
                            source=source, key=f"{where}.strength")
    seat_options = game.spec.seat_options
    sopts = validate_options({k: v for k, v in seat.items() if k in {o.name for o in seat_options}}, seat_options,
                             source=source, prefix=where)
    given = tuple(k for k in seat if k not in SEAT_BASE)
    return SeatSpec(agent=agent, params=params, seat_options=sopts, name=label, given=given)
