"""Scenario loading and validation: every kind of bad input names the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.core.errors import ScenarioError
from sim.core.scenario import load_scenario

GOOD = """
game = "race"
games = 5
seed = 3
backend = "serial"
[rules]
target = 12
[[seats]]
agent = "random"
[[seats]]
agent = "mcts"
iterations = 20
handicap = 1
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_good_scenario_loads_with_defaults(tmp_path: Path, registry) -> None:
    sc = load_scenario(write(tmp_path, GOOD), registry)
    assert sc.name == "s" and sc.game == "race" and sc.games == 5 and sc.seed == 3
    assert sc.rules == {"target": 12, "coin": False}
    assert sc.seats[1].params["iterations"] == 20 and sc.seats[1].params["exploration"] == 1.4
    assert sc.seats[1].seat_options == {"handicap": 1}
    assert sc.out == str(Path("runs") / "race" / "s")  # with the game: scenario names repeat across games
    assert sc.config().seats[1]["handicap"] == 1


@pytest.mark.parametrize(
    "edit, key, words",
    [
        (("games = 5", "games = 0"), "games", "from 1 to"),
        (("games = 5", 'games = "many"'), "games", "an integer"),
        (("target = 12", "target = 12.5"), "rules.target", "an integer"),
        (("target = 12", "target = 0"), "rules.target", "from 1 to 1000"),
        (("target = 12", "targte = 12"), "rules.targte", "allowed keys here: 'coin' or 'target'"),
        (('backend = "serial"', 'backend = "gpu"'), "backend", "'serial', 'process' or 'dask'"),
        (('game = "race"', 'game = "chess"'), "game", "'race'"),
        (('agent = "random"', 'agent = "oracle"'), "seats[0].agent", "'random', 'mcts', 'ismcts' or 'human'"),
        (("iterations = 20", "iterations = -1"), "seats[1].iterations", "from 1"),
        (("handicap = 1", "depth = 1"), "seats[1].depth", "allowed:"),
        (("seed = 3", "sede = 3"), "sede", "allowed top-level keys"),
    ],
)
def test_bad_values_name_file_key_and_allowed(tmp_path: Path, registry, edit, key, words) -> None:
    text = GOOD.replace(*edit)
    assert text != GOOD
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as e:
        load_scenario(path, registry)
    msg = str(e.value)
    assert str(path) in msg and f"key '{key}'" in msg and words in msg, msg


def test_too_many_seats(tmp_path: Path, registry) -> None:
    text = GOOD + '[[seats]]\nagent = "random"\n[[seats]]\nagent = "random"\n'
    with pytest.raises(ScenarioError, match="4 seats; race takes 2 to 3 players"):
        load_scenario(write(tmp_path, text), registry)


def test_malformed_and_missing_files(tmp_path: Path, registry) -> None:
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_scenario(write(tmp_path, "game = race ["), registry)
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "nope.toml", registry)
    with pytest.raises(ScenarioError, match="key 'game'"):
        load_scenario(write(tmp_path, "games = 3\n"), registry)


def test_sweep_grid_and_validation(tmp_path: Path, registry) -> None:
    text = GOOD + '[sweep]\n"rules.target" = [6, 9]\n"seats.1.iterations" = [5, 10, 15]\n'
    sc = load_scenario(write(tmp_path, text), registry)
    pts = sc.points(registry)
    assert len(pts) == 6
    assert pts[4].values == {"rules.target": 9, "seats.1.iterations": 10}
    assert pts[4].scenario.rules["target"] == 9 and pts[4].scenario.seats[1].params["iterations"] == 10
    bad = GOOD + '[sweep]\n"rules.target" = [6, 0]\n'
    with pytest.raises(ScenarioError, match=r"key 'sweep.rules.target'.*value 0 is not allowed"):
        load_scenario(write(tmp_path, bad), registry)
    bad = GOOD + '[sweep]\n"seats.5.iterations" = [1]\n'
    with pytest.raises(ScenarioError, match="existing seat"):
        load_scenario(write(tmp_path, bad), registry)
    bad = GOOD + '[sweep]\n"seed" = [1, 2]\n'
    with pytest.raises(ScenarioError, match="cannot be swept"):
        load_scenario(write(tmp_path, bad), registry)


def test_fingerprint_ignores_study_size_but_not_rules(tmp_path: Path, registry) -> None:
    a = load_scenario(write(tmp_path, GOOD, "a.toml"), registry)
    b = load_scenario(write(tmp_path, GOOD.replace("games = 5", "games = 50"), "b.toml"), registry)
    c = load_scenario(write(tmp_path, GOOD.replace("target = 12", "target = 13"), "c.toml"), registry)
    assert a.fingerprint() == b.fingerprint() != c.fingerprint()


def test_rollout_agent_must_be_a_non_search_agent_of_the_game(tmp_path: Path, registry) -> None:
    ok = load_scenario(write(tmp_path, GOOD.replace("iterations = 20", 'iterations = 20\nrollout_agent = "random"')), registry)
    assert ok.seats[1].params["rollout_agent"] == "random"
    for bad in ("ismcts", "oracle"):
        with pytest.raises(ScenarioError, match=r"key 'seats\[1\].rollout_agent'.*allowed: 'random'"):
            load_scenario(write(tmp_path, GOOD.replace("iterations = 20", f'iterations = 20\nrollout_agent = "{bad}"')), registry)


def test_tournament_and_sensitivity_together_are_refused(tmp_path) -> None:
    # both choose a study's points: one scenario may not have both
    from sim.core.errors import ScenarioError
    from sim.core.scenario import load_scenario
    from sim.games import REGISTRY

    f = tmp_path / "both.toml"
    f.write_text('game = "druids"\n[[seats]]\nagent = "random"\n[[seats]]\nagent = "greedy"\n'
                 '[tournament]\nagents = ["random", "greedy"]\n'
                 '[sensitivity]\nmethod = "morris"\n')
    with pytest.raises(ScenarioError, match="not both") as info:
        load_scenario(f, REGISTRY)
    assert info.value.key == "sensitivity"
