"""``GAME``: Sozoikum as the registry serves it (spec, agents, states, store details).

Store layout (read by the analysis code):

* ``sozoikum_games`` (one row per game): ``rounds`` played, ``house_round`` (the round in which the
  first house stood; NULL when the game hit ``max_rounds``), ``builder`` (the winning seat or
  NULL), ``build_attempts`` and ``collapses`` (all seats), ``gems_spent_total`` and per seat
  ``gems_spent_<i>`` (gems paid to the mine in auctions, hidden bids and bluffs; NULL for seats
  the game does not have), ``gems_taken_total`` (gems taken from the mine with the gems card).
* ``sozoikum_seats`` (one row per seat): seat, skill, gems_spent, gems_taken, gems_end, stones_end,
  build_attempts, collapses.
* ``sozoikum_builds`` (one row per build attempt): round, seat, the five stones' shape seeds in
  role order A1.A2.B1.B2.roof, stood, max_displacement (cm; -1 for a search's quick verdict),
  noise_seed: ``stonelab sozoikum house --stones <stones> --seed <noise_seed> --skill <skill>``
  rebuilds the attempt.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.agents import RANDOM
from sim.core.errors import InputError
from sim.core.game import AgentSpec, Column, Game, GameConfig, GameDetails, GameSpec
from sim.sozoikum.agents import AGENTS
from sim.sozoikum.notation import parse_notation
from sim.sozoikum.options import MAX_PLAYERS, OPTIONS, SEAT_OPTIONS, SozoikumOptions
from sim.sozoikum.position import SozoikumObservation
from sim.sozoikum.rules import SozoikumEnd, SozoikumState


def check_config(config: GameConfig) -> tuple[str, str] | None:
    """Rule options that must agree (GameSpec.check): checked when a scenario loads (the rules
    are validated one by one before)."""
    return SozoikumOptions.from_rules(config.rules).size_problem()



SPEC = GameSpec(
    name="sozoikum",
    title="Sozoikum",
    min_players=2,
    max_players=MAX_PLAYERS,
    has_chance=True,
    hidden_information=True,
    simultaneous=True,
    options=OPTIONS,
    seat_options=SEAT_OPTIONS,
    result_columns=(
        Column("rounds", "INTEGER", "rounds played"),
        Column("house_round", "INTEGER", "round in which the first house stood (NULL: none by max_rounds)"),
        Column("builder", "INTEGER", "seat whose house stood (NULL: none)"),
        Column("build_attempts", "INTEGER", "house building attempts, all seats"),
        Column("collapses", "INTEGER", "houses that fell, all seats"),
        Column("gems_spent_total", "INTEGER", "gems paid to the mine, all seats"),
        Column("gems_taken_total", "INTEGER", "gems taken from the mine with the gems card, all seats"),
    )
    + tuple(Column(f"gems_spent_{i}", "INTEGER", f"seat {i}: gems paid to the mine") for i in range(MAX_PLAYERS)),
    detail_tables={
        "seats": (
            Column("seat", "INTEGER", "seat (0-based; seat 0 starts)"),
            Column("skill", "REAL", "placement skill"),
            Column("gems_spent", "INTEGER", "gems paid to the mine"),
            Column("gems_taken", "INTEGER", "gems taken from the mine with the gems card"),
            Column("gems_end", "INTEGER", "gems held at the end"),
            Column("stones_end", "INTEGER", "stones held at the end"),
            Column("build_attempts", "INTEGER", "houses tried"),
            Column("collapses", "INTEGER", "houses that fell"),
        ),
        "builds": (
            Column("round", "INTEGER", "round of the attempt"),
            Column("seat", "INTEGER", "builder"),
            Column("stones", "TEXT", "shape seeds in role order A1.A2.B1.B2.roof"),
            Column("stood", "INTEGER", "1 if the house stood"),
            Column("max_displacement", "REAL", "largest stone centroid displacement (cm)"),
            Column("noise_seed", "INTEGER", "placement noise seed (stonelab sozoikum house --seed)"),
        ),
    },
    check=check_config,
    terminations=SozoikumEnd,
    score_unit="stones held at the end",
)


class SozoikumGame(Game):
    """Sozoikum for 2-5 players (see :mod:`sim.sozoikum.rules`)."""

    spec = SPEC

    def __init__(self) -> None:
        self.agents: dict[str, AgentSpec] = {"random": RANDOM, **AGENTS}
        self._det_cache: tuple[SozoikumObservation, SozoikumState] | None = None

    def new_initial_state(self, config: GameConfig) -> SozoikumState:
        """The start of a game for ``config`` (seat skills from ``config.seats``, default 0.7).

        Raises:
            ScenarioError: bad player count or options.
        """
        skills = [float(s.get("skill", 0.7)) for s in config.seats] if config.seats else [0.7] * config.num_players
        return SozoikumState.new(config.num_players, SozoikumOptions.from_rules(config.rules), skills)

    def from_notation(self, text: str) -> SozoikumState:
        """Parse a notation.

        Raises:
            InputError: not a valid Sozoikum notation.
        """
        return parse_notation(text)

    def parse_observation(self, observation: SozoikumObservation) -> tuple[int, SozoikumState]:
        """The seat and the (partly hidden) state of an observation; hidden fists are
        ``SozoikumState.HIDDEN``.

        Raises:
            InputError: not a Sozoikum observation.
        """
        if not isinstance(observation, SozoikumObservation):
            raise InputError(f"not a sozoikum observation: {type(observation).__name__}")
        # agents read the same observation several times per decision: keep the last one
        if self._det_cache is not None and self._det_cache[0] == observation:
            return observation.seat, self._det_cache[1].clone()
        state = SozoikumState.from_observation(observation)
        self._det_cache = (observation, state.clone())
        return observation.seat, state

    def determinize(self, observation: SozoikumObservation, rng: np.random.Generator) -> SozoikumState:
        """A full state consistent with ``observation``: other seats' hidden bluff fists are drawn
        uniformly from 0 to their gems. Nothing else is hidden (see rules docstring)."""
        seat, state = self.parse_observation(observation)
        for s, f in enumerate(state.fists):
            if f == SozoikumState.HIDDEN:
                state.fists[s] = int(rng.integers(state.gems[s] + 1))
        return state

    def details(self, state: SozoikumState) -> GameDetails:  # type: ignore[override]
        """The per-game columns and the seats and builds rows."""
        n = state.num_players
        cols: dict[str, Any] = {
            "rounds": state.round,
            "house_round": state.round if state.winner >= 0 else None,
            "builder": state.winner if state.winner >= 0 else None,
            "build_attempts": sum(state.attempts),
            "collapses": sum(state.collapses),
            "gems_spent_total": sum(state.spent),
            "gems_taken_total": sum(state.taken),
        }
        for i in range(MAX_PLAYERS):
            cols[f"gems_spent_{i}"] = state.spent[i] if i < n else None
        seats = [
            {
                "seat": s,
                "skill": state.skills[s],
                "gems_spent": state.spent[s],
                "gems_taken": state.taken[s],
                "gems_end": state.gems[s],
                "stones_end": len(state.reserve[s]),
                "build_attempts": state.attempts[s],
                "collapses": state.collapses[s],
            }
            for s in range(n)
        ]
        builds = [
            {
                "round": r,
                "seat": s,
                "stones": ".".join(str(state.stones[i]) for i in st),
                "stood": ok,
                "max_displacement": d,
                "noise_seed": ns,
            }
            for r, s, st, ok, d, ns in state.log
        ]
        return GameDetails(columns=cols, rows={"seats": seats, "builds": builds})


GAME = SozoikumGame()
