"""The `stonelab sozoikum house` command, the shipped scenarios, and the agents in play."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.cli import main
from sim.core.agents import make_agent
from sim.core.play import play as play_game
from sim.core.scenario import load_scenario
from sim.games import REGISTRY
from sim.sozoikum.game import GAME

SCENARIOS = sorted(Path(__file__).resolve().parents[2].joinpath("scenarios", "sozoikum").glob("*.toml"))


def play(agents: list[str], seed: int, params: dict | None = None, **rules: object):
    cfg = GAME.config(len(agents), **rules)
    rng = np.random.default_rng(seed)
    seats = [
        make_agent(GAME, a, (params or {}).get(a, {}), seat=i, rng=np.random.default_rng(seed * 10 + i), config=cfg)
        for i, a in enumerate(agents)
    ]
    return play_game(GAME, cfg, seats, rng).state


def test_cli_house_draws_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "house.png"
    assert main(["sozoikum", "house", "--stones", "19.16.17.18.15", "--seed", "1", "--skill", "1.0", "--png", str(png), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert png.stat().st_size > 10_000
    assert out["stones"] == {"A1": 19, "A2": 16, "B1": 17, "B2": 18, "roof": 15}
    assert set(out["displacement_cm"]) == {"A1", "A2", "B1", "B2", "roof"}


@pytest.mark.parametrize(
    "args",
    [
        ["--stones", "1,2,3"],
        ["--stones", "a,b,c,d,e"],
        ["--stones", "1,2,3,4,5", "--rule", "wall_gap=-1"],
        ["--stones", "1,2,3,4,5", "--rule", "nonsense=1"],
    ],
)
def test_cli_house_bad_input_exits_2(args: list[str]) -> None:
    assert main(["sozoikum", "house", *args]) == 2


def test_stored_build_reproduces_with_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    s = play(["greedy", "greedy"], 3)
    rows = GAME.details(s).rows["builds"]
    assert rows
    row = rows[-1]
    args = ["sozoikum", "house", "--stones", row["stones"], "--seed", str(row["noise_seed"]), "--skill", str(s.skills[row["seat"]]), "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stood"] == bool(row["stood"])
    assert max(out["displacement_cm"].values()) == pytest.approx(row["max_displacement"], abs=1e-3)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_shipped_scenarios_validate(path: Path) -> None:
    sc = load_scenario(path, REGISTRY)
    assert sc.game == "sozoikum"


def test_scenario_set_is_complete() -> None:
    names = {p.stem for p in SCENARIOS}
    assert {"classic-4p", "auction", "hidden-bid", "bluff", "no-cards", "sweep-bag"} <= names


def test_greedy_and_builder_games_finish() -> None:
    s = play(["greedy", "builder", "random"], 1, params={"builder": {"candidates": 3, "sims": 1}})
    assert s.is_terminal()
    d = GAME.details(s)
    assert d.columns["rounds"] >= 1


def test_ismcts_plays_legal_moves() -> None:
    s = play(["ismcts", "greedy"], 2, params={"ismcts": {"iterations": 8, "rollout_limit": 200, "candidates": 2, "sims": 1}}, max_rounds=4)
    assert s.is_terminal()


def test_greedy_challenges_an_impossible_announcement() -> None:
    from sozoikum_helpers import at_cards, play as play_cards

    from sim.sozoikum import actions as A

    s = at_cards(rule="bluff")
    play_cards(s, A.CAMP, A.CAMP, A.CAMP, A.CAMP)
    s.apply_actions({i: A.Fist(0) for i in range(4)})
    for a in (1, 15, 0, 0):  # seat 1 announces more than its 10 gems
        s.apply_action(A.Announce(a))
    agent = make_agent(GAME, "greedy", {}, seat=2, rng=np.random.default_rng(0), config=GAME.config(4))
    assert agent.act(s.observation(2), s.legal_actions()) == A.Challenge(True)
