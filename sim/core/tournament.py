"""Agent tournaments: a round-robin of listed agents, played as the points of a study.

A scenario with a ``[tournament]`` table lists its entrants instead of fixed seats::

    [tournament]
    players = 2                       # seats per game; default: the fewest the game allows
    agents = ["random", "greedy"]     # short form: agent names (or import paths)

    [[tournament.agents]]             # long form: a seat table per entrant
    agent = "mcts"
    iterations = 300
    name = "mcts-300"

Every combination of ``players`` entrants plays in every rotation of its seats (both seat orders
for two players), ``games`` games each. Each such *seating* is one point of the study (like a
``[sweep]`` point), so a tournament runs through the same runner on every backend, resumes like
``run`` and lands in one store; the games of every seating share seeds (game ``i`` meets the same
deals and throws in both seat orders). Ratings are fitted from the store by
:mod:`analysis.tournament`.
"""

from __future__ import annotations

import copy
import itertools
import math
from dataclasses import dataclass
from typing import Any, Mapping

from sim.core.errors import ScenarioError, allowed
from sim.core.game import Game
from sim.core.outputs import default_run_folder
from sim.core.seats import SeatSpec, rotations, validate_seats

#: keys of the [tournament] table
TOURNAMENT_KEYS = ("players", "agents")
#: the point value naming a seating (the entrants' labels in seat order, joined by " vs ")
SEATING_KEY = "seating"
#: more seatings than this is almost surely a typo in ``players`` or the list
MAX_SEATINGS = 10_000


@dataclass(frozen=True)
class Tournament:
    """A validated ``[tournament]`` table.

    Attributes:
        players: seats per game.
        entrants: each entrant's seat table as written (an ``agent`` key at least).
        labels: each entrant's label (unique), as the store's ``seats.label`` will hold it.
    """

    players: int
    entrants: tuple[Mapping[str, Any], ...]
    labels: tuple[str, ...]

    def seatings(self) -> list[tuple[int, ...]]:
        """Entrant indices per seat of every seating: each combination of ``players`` entrants in
        each rotation of its seats (for two players: ``(0, 1), (1, 0), (0, 2), (2, 0), ...``)."""
        return [order for combo in itertools.combinations(range(len(self.entrants)), self.players)
                for order in rotations(combo)]

    def seating_label(self, seating: tuple[int, ...]) -> str:
        """``"random vs greedy"``: the entrants' labels in seat order."""
        return " vs ".join(self.labels[i] for i in seating)


def parse_tournament(value: Any, raw: Mapping[str, Any], game: Game, source: str) -> Tournament:
    """Validate the ``[tournament]`` table of scenario ``raw`` (entrants from ``[[seats]]`` when it
    lists no ``agents``).

    Raises:
        ScenarioError: not a table, an unknown key, a bad ``players``, fewer entrants than
            players, a bad entrant (unknown agent, import path, parameter; the key names
            ``tournament.agents[i]``), two entrants with one label, or a ``[sweep]`` beside it.
    """
    if not isinstance(value, dict):
        raise ScenarioError("must be a table ([tournament])", source=source, key="tournament")
    for k in value:
        if k not in TOURNAMENT_KEYS:
            raise ScenarioError(f"unknown key; allowed: {allowed(TOURNAMENT_KEYS)}", source=source, key=f"tournament.{k}")
    if "sweep" in raw:
        raise ScenarioError("a tournament cannot be swept; run one tournament per variant", source=source, key="sweep")
    if "seat_order" in raw:
        raise ScenarioError("a tournament plays every rotation of each seating already; remove seat_order",
                            source=source, key="seat_order")
    spec = game.spec
    lo, hi = spec.min_players, spec.max_players
    players = value.get("players", lo)
    if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
        between = f"{lo}" if lo == hi else f"an integer from {lo} to {hi}"
        raise ScenarioError(f"got {players!r}; allowed: {between} ({spec.name} players)", source=source,
                            key="tournament.players")
    where = "tournament.agents"
    if "agents" in value:
        if "seats" in raw:
            raise ScenarioError("give the entrants either in [tournament] agents or as [[seats]], not both",
                                source=source, key="seats")
        listed = value["agents"]
        if not isinstance(listed, list):
            raise ScenarioError("must be a list of agent names or an array of tables ([[tournament.agents]])",
                                source=source, key=where)
        entrants = [{"agent": e} if isinstance(e, str) else e for e in listed]
    else:
        where = "seats"
        listed = raw.get("seats")
        if not isinstance(listed, list):
            raise ScenarioError("list the entrants: agents = [...] or [[tournament.agents]] tables (or [[seats]])",
                                source=source, key="tournament.agents")
        entrants = list(listed)
    if len(entrants) < players:
        raise ScenarioError(f"{len(entrants)} entrants; a tournament of {players}-player games needs at least {players}",
                            source=source, key=where)
    # counted, not listed, and before each entrant is checked: listing the combinations of many
    # entrants would itself never end
    n = math.comb(len(entrants), players) * players
    if n > MAX_SEATINGS:
        raise ScenarioError(f"{len(entrants)} entrants in {players}-player games make {n:,} seatings; at most "
                            f"{MAX_SEATINGS:,} are allowed", source=source, key=where)
    labels: list[str] = []
    for i, e in enumerate(entrants):
        key = f"{where}[{i}]"
        if not isinstance(e, dict):
            raise ScenarioError(f"got {e!r}; allowed: an agent name or a seat table", source=source, key=key)
        try:
            # the game checks seats alone and in company: validate the entrant in every seat of a game
            # of its own kind (seat options such as a skill file are read here too)
            seat: SeatSpec = validate_seats([e] * players, game, source)[0]
        except ScenarioError as err:
            k = err.key or ""
            k = key + k[k.index("]") + 1:] if k.startswith("seats[") else (k or key)
            raise ScenarioError(err.message, source=source, key=k) from None
        label = seat.label()
        if label in labels:
            raise ScenarioError(f"label {label!r} is already {where}[{labels.index(label)}]'s; give one a distinct name",
                                source=source, key=key)
        labels.append(label)
    return Tournament(players=players, entrants=tuple(dict(e) for e in entrants), labels=tuple(labels))


def seating_raw(raw: Mapping[str, Any], t: Tournament, seating: tuple[int, ...]) -> dict[str, Any]:
    """The scenario dict of one seating: ``raw`` without ``[tournament]``, its seats the entrants in
    the seating's order (``seat_order = "fixed"``)."""
    out = copy.deepcopy(dict(raw))
    out.pop("tournament", None)
    out["seats"] = [copy.deepcopy(dict(t.entrants[i])) for i in seating]
    # a seating is one order of its entrants: the tournament's seatings are its rotations
    out["seat_order"] = "fixed"
    return out


def tournament_raw(raw: Mapping[str, Any], name: str, source: str) -> dict[str, Any]:
    """The raw scenario of the tournament of a plain scenario's seats (its seats become the
    entrants), its run folder ``runs/<game>/<name>-tournament`` unless the file sets ``out``; what
    :meth:`sim.core.scenario.Scenario.as_tournament` validates.

    Raises:
        ScenarioError: the scenario has a ``[sweep]``.
    """
    if raw.get("sweep"):
        raise ScenarioError("a tournament cannot be swept: stonelab tournament plays the seats' agents against each "
                            "other; remove [sweep] (or use stonelab run for the sweep)", source=source, key="sweep")
    out = copy.deepcopy(dict(raw))
    out.pop("seat_order", None)  # the tournament rotates every seating itself
    out["tournament"] = {}
    if not out.get("out"):
        out["out"] = default_run_folder(str(raw.get("game")), name, "-tournament")
    return out
