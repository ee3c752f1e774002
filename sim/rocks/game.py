"""``GAME``: Stonehenge Rocks! as the registry serves it (spec, agents, states, store details).

Store layout (read by the analysis code):

* ``rocks_games`` (one row per game): per seat ``seat{i}_box_points``, ``seat{i}_trilithon_points``,
  ``seat{i}_tshirt_points`` and ``seat{i}_guard_removals`` (fans the guard sent back to that seat's
  pile), NULL for seats the game does not have; ``turns`` (turns played, all seats together),
  ``reshuffles`` and ``box_seats_left``.
* ``rocks_seats`` (one row per seat): the same figures in long form, plus the fan and T-shirt counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.agents import ISMCTS, MCTS, RANDOM
from sim.core.errors import InputError
from sim.core.game import AgentSpec, Column, Game, GameConfig, GameDetails, GameSpec
from sim.rocks.agents import GREEDY
from sim.rocks.notation import parse_notation
from sim.rocks.options import OPTIONS, RocksOptions
from sim.rocks.rules import RocksEnd, RocksObservation, RocksState

MAX_SEATS = 5

_SEAT_COLUMNS: tuple[Column, ...] = tuple(
    col
    for i in range(MAX_SEATS)
    for col in (
        Column(f"seat{i}_box_points", "INTEGER", f"seat {i}: points from fans in box seats"),
        Column(f"seat{i}_trilithon_points", "INTEGER", f"seat {i}: points from fans on its trilithon"),
        Column(f"seat{i}_tshirt_points", "INTEGER", f"seat {i}: points from T-shirts"),
        Column(f"seat{i}_guard_removals", "INTEGER", f"seat {i}: fans the guard sent back to the pile"),
    )
)


SPEC = GameSpec(
    name="rocks",
    title="Stonehenge Rocks!",
    min_players=2,
    max_players=MAX_SEATS,
    has_chance=True,
    hidden_information=True,
    simultaneous=False,
    options=OPTIONS,
    result_columns=_SEAT_COLUMNS
    + (
        Column("turns", "INTEGER", "turns played (all seats together)"),
        Column("reshuffles", "INTEGER", "times the discard pile became the draw pile"),
        Column("box_seats_left", "INTEGER", "free box seats at the end"),
    ),
    detail_tables={
        "seats": (
            Column("seat", "INTEGER", "seat (0-based, play order)"),
            Column("points", "INTEGER", "total points"),
            Column("box_points", "INTEGER", "points from box seats"),
            Column("trilithon_points", "INTEGER", "points from the trilithon"),
            Column("tshirt_points", "INTEGER", "points from T-shirts"),
            Column("box_fans", "INTEGER", "fans in box seats"),
            Column("trilithon_fans", "INTEGER", "fans on the seat's trilithon"),
            Column("tshirts", "INTEGER", "T-shirts collected"),
            Column("guard_removals", "INTEGER", "fans the guard sent back to the pile"),
            Column("fans_on_track", "INTEGER", "fans in the festival area at the end"),
        )
    },
    terminations=RocksEnd,
    score_unit="points",
)


class RocksGame(Game):
    """Stonehenge Rocks! for 2-5 players (see :mod:`sim.rocks.rules`)."""

    spec = SPEC
    agents: dict[str, AgentSpec] = {"random": RANDOM, "greedy": GREEDY, "mcts": MCTS, "ismcts": ISMCTS}

    def new_initial_state(self, config: GameConfig) -> RocksState:
        """The position before the deal: the first chance nodes deal the hands and turn the
        guard's card.

        Raises:
            InputError: player count outside 2-5; ScenarioError: bad rule options.
        """
        return RocksState(config.num_players, RocksOptions.from_rules(config.rules))

    def from_notation(self, text: str) -> RocksState:
        """Parse a notation (:meth:`RocksState.to_notation`).

        Raises:
            InputError: malformed or inconsistent notation.
        """
        return parse_notation(text)

    def determinize(self, observation: RocksObservation, rng: np.random.Generator) -> RocksState:
        """A full state consistent with ``observation``: the other hands are dealt uniformly from
        the unseen cards and the rest forms the draw pile.

        Raises:
            InputError: ``observation`` is not a Stonehenge Rocks! observation.
        """
        if not isinstance(observation, RocksObservation):
            raise InputError(f"not a Stonehenge Rocks! observation: {type(observation).__name__}")
        return RocksState.from_observation(observation, rng)

    def details(self, state: RocksState) -> GameDetails:  # type: ignore[override]
        """Points by source and guard removals per seat; turns, reshuffles, free box seats."""
        cols: dict[str, Any] = {}
        rows = []
        r = state.options
        for i in range(MAX_SEATS):
            if i < state.num_players:
                src = state.points_by_source(i)
                cols[f"seat{i}_box_points"] = src["box"]
                cols[f"seat{i}_trilithon_points"] = src["trilithon"]
                cols[f"seat{i}_tshirt_points"] = src["tshirts"]
                cols[f"seat{i}_guard_removals"] = state.removed[i]
                rows.append(
                    {
                        "seat": i,
                        "points": state.points(i),
                        "box_points": src["box"],
                        "trilithon_points": src["trilithon"],
                        "tshirt_points": src["tshirts"],
                        "box_fans": state.box[i],
                        "trilithon_fans": state.tri[i],
                        "tshirts": state.shirts[i],
                        "guard_removals": state.removed[i],
                        "fans_on_track": sum(state.fans[i][1:]),
                    }
                )
            else:
                for k in ("box_points", "trilithon_points", "tshirt_points", "guard_removals"):
                    cols[f"seat{i}_{k}"] = None
        cols["turns"] = state.turn
        cols["reshuffles"] = state.reshuffles
        cols["box_seats_left"] = r.box_seats - state.box_total
        return GameDetails(columns=cols, rows={"seats": rows})


GAME = RocksGame()
