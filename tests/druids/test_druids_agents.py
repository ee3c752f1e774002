"""Agents of the druid game and what the store receives (details)."""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest

from sim.core.agents import make_agent
from sim.core.errors import ScenarioError
from sim.core.play import play as play_game
from sim.druids.game import GAME, RESULT_COLUMNS, SPEC
from sim.druids.geometry import LINE_LENGTH
from sim.druids.pieces import MEGALITHS
from sim.druids.rules import DruidsState


def play(a0: str, a1: str, seed: int, rules: dict | None = None, p0: dict | None = None, p1: dict | None = None) -> DruidsState:
    config = GAME.config(2, **(rules or {}))
    agents = [
        make_agent(GAME, a0, p0 or {}, seat=0, rng=np.random.default_rng([seed, 1]), config=config),
        make_agent(GAME, a1, p1 or {}, seat=1, rng=np.random.default_rng([seed, 2]), config=config),
    ]
    # the druids' game has no chance: the stream is never drawn from
    return cast(DruidsState, play_game(GAME, config, agents, np.random.default_rng(0)).state)


def wins_of(agent: str, opponent: str, games: int, rules: dict | None = None, params: dict | None = None) -> int:
    """Games ``agent`` (with ``params``) wins against ``opponent``, alternating seats."""
    won = 0
    for g in range(games):
        if g % 2 == 0:
            won += play(agent, opponent, g, rules, p0=params).outcome().winners == (0,)  # type: ignore[union-attr]
        else:
            won += play(opponent, agent, g, rules, p1=params).outcome().winners == (1,)  # type: ignore[union-attr]
    return won


def test_greedy_beats_random_clearly() -> None:
    assert wins_of("greedy", "random", 30) >= 26


def test_greedy_beats_random_face_down() -> None:
    assert wins_of("greedy", "random", 30, rules={"face_down": True}) >= 24


def test_mcts_beats_random_clearly() -> None:
    assert wins_of("mcts", "random", 6, params={"iterations": 100}) >= 5


def test_search_agents_play_face_down_matches() -> None:
    s = play("ismcts", "mcts", 0, rules={"face_down": True, "match_games": 2}, p0={"iterations": 20}, p1={"iterations": 20})
    assert len(s.records()) == 2


def test_greedy_is_reproducible_and_validates_options() -> None:
    a = play("greedy", "greedy", 5).to_notation()
    b = play("greedy", "greedy", 5).to_notation()
    assert a == b
    with pytest.raises(ScenarioError):
        make_agent(GAME, "greedy", {"cost": -1.0}, seat=0, rng=np.random.default_rng(0), config=GAME.config(2))
    with pytest.raises(ScenarioError):
        make_agent(GAME, "greedy", {"depth": 2}, seat=0, rng=np.random.default_rng(0), config=GAME.config(2))


def test_greedy_takes_an_immediate_line() -> None:
    # seat 1 has a 1 on b of line A (a b); seat 0 completes A with any stone above 1 and wins it
    s = GAME.from_notation(
        "druids|tie_loser=last_placer|early_domination=off|face_down=0|match_games=1|done=|moves=r1b1"
    )
    agent = make_agent(GAME, "greedy", {}, seat=0, rng=np.random.default_rng(0), config=GAME.config(2))
    a = agent.act(s.observation(0), s.legal_actions())
    assert a.point == 0 and a.value >= 2  # completes and wins line A


@pytest.mark.parametrize("rules", [{}, {"match_games": 3, "face_down": True}])
def test_details_fill_every_column_consistently(rules: dict) -> None:
    s = play("random", "greedy", 3, rules=rules)
    det = GAME.details(s)
    assert set(det.columns) == {c.name for c in RESULT_COLUMNS}
    games = det.columns["games"]
    assert games == rules.get("match_games", 1)
    for seat in (0, 1):
        meg = det.columns[f"megaliths_{seat}"]
        assert meg == sum(det.columns[f"lines{n}_{seat}"] for n in sorted(set(LINE_LENGTH)))
        assert meg == det.columns[f"early_{seat}"] + det.columns[f"full_{seat}"]
        assert meg + det.columns[f"noted_{seat}"] == MEGALITHS * games
    out = s.outcome()
    assert out is not None and out.scores == (det.columns["megaliths_0"], det.columns["megaliths_1"])
    claims = det.rows["claims"]
    assert len(claims) == det.columns["megaliths_0"] + det.columns["megaliths_1"]
    assert {c.name for c in SPEC.detail_tables["claims"]} == set(claims[0])
    games_rows = det.rows["matchgames"]
    assert len(games_rows) == games and [r["first"] for r in games_rows] == [g % 2 for g in range(games)]
    assert all(max(r["megaliths_0"], r["megaliths_1"]) == MEGALITHS for r in games_rows)
