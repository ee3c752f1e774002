"""GAME wiring: spec, store details, scenarios validate, a small study through the runner."""

from __future__ import annotations

import glob
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from sim.core.errors import InputError, ScenarioError
from sim.core.play import play_random
from sim.rocks.game import GAME
from sim.rocks.notation import build_position

SCENARIOS = sorted(glob.glob(str(Path(__file__).resolve().parents[2] / "scenarios" / "rocks" / "*.toml")))


def test_spec_defaults_follow_rules_md() -> None:
    d = GAME.spec.default_rules()
    assert d["target_points"] == 20 and d["max_turns"] == 500 and d["box_seats"] == 19
    assert d["trilithons"] == 5 and d["fans_per_player"] == 10 and d["tshirts_per_player"] == 10
    assert (d["box_points"], d["trilithon_points"], d["tshirt_points"]) == (3, 2, 1)
    assert GAME.spec.min_players == 2 and GAME.spec.max_players == 5
    assert {"random", "greedy", "ismcts"} <= set(GAME.agents)


def test_bad_options_and_player_counts_are_input_errors() -> None:
    with pytest.raises(ScenarioError):
        GAME.config(2, target_points=0)
    with pytest.raises(ScenarioError):
        GAME.config(2, colour="red")
    with pytest.raises(InputError):
        GAME.new_initial_state(GAME.config(6))


def test_details_points_by_source_and_guard_removals() -> None:
    s = build_position(3, box={0: 2}, tri={1: 3}, shirts={0: 4, 2: 1}, fans={2: {12: 2}}, hands={2: [5]}, to=2, guard=12)
    s.apply_action(s.legal_actions()[-1])  # end turn: the guard removes seat 2's two fans
    d = GAME.details(s)
    c = d.columns
    assert (c["seat0_box_points"], c["seat0_trilithon_points"], c["seat0_tshirt_points"]) == (6, 0, 4)
    assert (c["seat1_box_points"], c["seat1_trilithon_points"], c["seat1_tshirt_points"]) == (0, 6, 0)
    assert c["seat2_guard_removals"] == 2 and c["seat0_guard_removals"] == 0
    assert c["seat3_box_points"] is None and c["seat4_guard_removals"] is None
    assert c["turns"] == 1 and c["box_seats_left"] == 17
    assert set(c) == {col.name for col in GAME.spec.result_columns}
    rows = d.rows["seats"]
    assert [r["points"] for r in rows] == [10, 6, 1]
    assert set(rows[0]) == {col.name for col in GAME.spec.detail_tables["seats"]}


def test_points_add_up_at_the_end_of_a_random_game() -> None:
    s = play_random(GAME, GAME.config(4), np.random.default_rng(4)).state
    d = GAME.details(s)
    out = s.outcome()
    assert out is not None
    for i in range(4):
        total = sum(d.columns[f"seat{i}_{k}_points"] for k in ("box", "trilithon", "tshirt"))
        assert total == out.scores[i]
    assert max(out.scores) >= 20 and out.scores[out.winners[0]] == max(out.scores)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: Path(p).name)
def test_scenarios_validate(path: str) -> None:
    from sim.core.scenario import load_scenario
    from sim.games import REGISTRY

    sc = load_scenario(path, REGISTRY)
    assert sc.game == "rocks" and sc.points(REGISTRY)


def test_scenario_set_is_complete() -> None:
    names = {Path(p).name for p in SCENARIOS}
    assert {"classic-3p.toml", "5p.toml", "greedy-vs-random.toml", "ismcts.toml"} <= names
    assert any("[sweep]" in Path(p).read_text() and "rules.target_points" in Path(p).read_text() for p in SCENARIOS)


def test_small_study_through_the_runner(tmp_path: Path) -> None:
    from sim.core.runner import run_study
    from sim.core.scenario import scenario_from_dict
    from sim.games import REGISTRY

    raw = {
        "game": "rocks",
        "games": 4,
        "seed": 9,
        "backend": "serial",
        "out": str(tmp_path / "run"),
        "rules": {"target_points": 10},
        "seats": [{"agent": "greedy"}, {"agent": "random"}],
    }
    sc = scenario_from_dict(raw, REGISTRY, source="test", default_name="rocks-test")
    info = run_study(sc, REGISTRY, progress=False)
    assert info.played == 4
    db = next((tmp_path / "run").glob("*.sqlite"))
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seat0_box_points, seat0_tshirt_points, turns FROM rocks_games").fetchall()
    seats = con.execute("SELECT COUNT(*) FROM rocks_seats").fetchone()
    assert len(rows) == 4 and seats[0] == 8


def test_states_and_observations_pickle() -> None:
    import pickle

    s = build_position(2, fans={0: {3: 1}}, hands={0: [3, "T"]}, guard=20)
    assert pickle.loads(pickle.dumps(s)) == s
    o = s.observation(1)
    assert pickle.loads(pickle.dumps(o)) == o
