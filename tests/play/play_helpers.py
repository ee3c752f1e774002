"""Helpers of the play tests: a playable scenario, and the engine's own game for the moves a person chose."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from sim.core.agents import make_agent
from sim.core.game import State
from sim.core.human import human_seats
from sim.core.play import FirstAgent, play
from sim.core.runner import game_result
from sim.core.scenario import Scenario, load_scenario
from sim.core.seeding import game_streams
from sim.games import REGISTRY
from sim.play.session import play_scenario

ROOT = Path(__file__).resolve().parents[2]


def playable(path: str, seat: int, out: Path) -> Scenario:
    """The scenario file ``path`` (under scenarios/) with a person in ``seat``, into ``out``."""
    return play_scenario(load_scenario(ROOT / "scenarios" / path, REGISTRY), REGISTRY, seat, out=str(out))


def engine_game(sc: Scenario, index: int = 0) -> tuple[Any, list[State]]:
    """Game ``index`` of the playable ``sc`` played through the engine alone, the person's seat
    always taking the first legal move: the store's ``GameResult``, and a copy of the state at each
    of the person's decisions."""
    game = REGISTRY.get(sc.game)
    human = human_seats(sc.seats)[0]
    seating = sc.seating(index)
    config = dataclasses.replace(sc.config(seating.seats), game_index=index)
    streams = game_streams(sc.seed, seating.stream_index, config.num_players)
    agents = [FirstAgent() if i == human else make_agent(game, s.agent, s.params, seat=i, rng=streams.seats[i],
                                                         config=config) for i, s in enumerate(seating.seats)]
    asked: list[State] = []

    def before(state: State, step: int) -> None:
        if state.current_player() == human:
            asked.append(state.clone())

    played = play(game, config, agents, streams.chance, before_step=before)
    return game_result(game, sc, seating, played.state, played.leads, point=0, values={}, game_index=index,
                       wall_s=0.0), asked
