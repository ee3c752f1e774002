"""Tournaments: seatings, validation of [tournament] tables, outside agents by import path (one is
defined in this module), a small real druids tournament end to end with resume, and the shipped
skill ladders' order (slow)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pytest

from sim.cli import main
from sim.core.errors import ScenarioError
from sim.core.runner import run_study
from sim.core.scenario import load_scenario, scenario_from_dict
from sim.games import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
#: how this module is importable in the test process (pytest puts tests/core on sys.path)
HERE = __name__


class FirstLegal:
    """Plays the first legal action: a deterministic outside agent."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        return legal_actions[0]


class Picky:
    """An outside agent with a declared parameter (a seat key)."""

    from sim.core.options import Option

    OPTIONS = (Option("index", int, 0, "which legal action to play (from the end when negative)", min=-5, max=5),)

    def __init__(self, *, index: int, **context: Any) -> None:
        self.index = index
        self.context = context

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        return legal_actions[self.index % len(legal_actions)]


class NoAct:
    """Not an agent: no act method."""


class WrongAct:
    def act(self, observation: Any) -> Any:
        return observation


class NeedsToken:
    def __init__(self, token: str) -> None:
        self.token = token

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        return legal_actions[0]


NOT_A_CLASS = 42


def druids(extra: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"game": "druids", "games": 2, "seed": 3, "backend": "serial"}
    raw.update(top)
    if extra:
        raw.update(extra)
    return raw


def refused(raw: dict[str, Any], key: str, *needles: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        scenario_from_dict(raw, REGISTRY, source="t.toml")
    assert e.value.key == key, (e.value.key, str(e.value))
    for n in needles:
        assert n in str(e.value), (n, str(e.value))
    assert "\n" not in str(e.value)
    return e.value


# --- seatings -------------------------------------------------------------------------------------
def test_two_player_round_robin_has_both_orders_of_every_pair() -> None:
    sc = scenario_from_dict(druids({"tournament": {"agents": ["random", "greedy", {"agent": "mcts", "iterations": 5}]}}),
                            REGISTRY)
    pts = sc.points(REGISTRY)
    seats = [tuple(s.label() for s in p.scenario.seats) for p in pts]
    names = ["random", "greedy", "mcts(iterations=5)"]
    # 3 pairs x 2 orders, each ordered pair exactly once
    assert sorted(seats) == sorted((a, b) for a in names for b in names if a != b)
    assert [p.values["seating"] for p in pts][:2] == ["random vs greedy", "greedy vs random"]
    assert all(p.scenario.seed == 3 for p in pts)  # seeds from the scenario seed: common deals


def test_three_player_games_rotate_every_combination() -> None:
    raw = {"game": "rocks", "games": 1, "seed": 1, "tournament": {"players": 3, "agents": [
        "random", "greedy", {"agent": "greedy", "guard_weight": 5.0}, {"agent": "random", "name": "r2"}]}}
    sc = scenario_from_dict(raw, REGISTRY)
    pts = sc.points(REGISTRY)
    assert len(pts) == 4 * 3  # C(4, 3) combinations x 3 rotations
    for p in pts:
        assert len(p.scenario.seats) == 3
    # every entrant sits in every seat equally often: 3 times (3 combinations hold it, one rotation each)
    for seat in range(3):
        labels = [p.scenario.seats[seat].label() for p in pts]
        assert sorted(set(labels)) == sorted(sc.tournament.labels)
        assert all(labels.count(lab) == 3 for lab in set(labels))


def test_plain_seats_become_entrants_with_their_own_folder() -> None:
    sc = load_scenario(ROOT / "scenarios" / "druids" / "mcts-vs-greedy.toml", REGISTRY)
    t = sc.as_tournament(REGISTRY)
    assert t.tournament.labels == ("mcts(iterations=1000, exploration=1.4, rollout_limit=2000)", "greedy")
    assert t.out == "runs/druids/mcts-vs-greedy-tournament"
    assert len(t.points(REGISTRY)) == 2
    assert t.fingerprint() != sc.fingerprint()


# --- validation -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "tournament, top, key, needles",
    [
        ("not a table", {}, "tournament", ["must be a table"]),
        ({"agents": ["random", "greedy"], "rounds": 2}, {}, "tournament.rounds", ["unknown key", "'players'"]),
        ({"agents": ["random", "greedy"], "players": 3}, {}, "tournament.players", ["got 3", "2"]),
        ({"agents": ["random", "greedy"], "players": True}, {}, "tournament.players", ["got True"]),
        ({"agents": ["random"]}, {}, "tournament.agents", ["1 entrants", "at least 2"]),
        ({"agents": "random"}, {}, "tournament.agents", ["must be a list"]),
        ({"agents": ["random", "chess-engine"]}, {}, "tournament.agents[1].agent", ["unknown agent 'chess-engine'"]),
        ({"agents": ["random", {"agent": "mcts", "iterationz": 3}]}, {}, "tournament.agents[1].iterationz",
         ["unknown key", "'iterations'"]),
        ({"agents": ["random", {"agent": "mcts", "iterations": 0}]}, {}, "tournament.agents[1].iterations", ["got 0"]),
        ({"agents": ["random", 7]}, {}, "tournament.agents[1]", ["got 7"]),
        ({"agents": ["greedy", "random", {"agent": "random"}]}, {}, "tournament.agents[2]",
         ["label 'random'", "tournament.agents[1]", "distinct name"]),
        ({"agents": ["random", "greedy"]}, {"seats": [{"agent": "random"}, {"agent": "greedy"}]}, "seats",
         ["not both"]),
        ({"agents": ["random", "greedy"]}, {"sweep": {"rules.tie_loser": ["first_placer"]}}, "sweep",
         ["cannot be swept"]),
        ({}, {}, "tournament.agents", ["list the entrants"]),
    ],
)
def test_bad_tournament_tables_are_refused(tournament: Any, top: dict[str, Any], key: str, needles: list[str]) -> None:
    refused(druids({"tournament": tournament}, **top), key, "t.toml", *needles)


# --- outside agents -------------------------------------------------------------------------------
def test_outside_agent_plays_in_a_seat(tmp_path: Path) -> None:
    raw = druids(seats=[{"agent": f"{HERE}:FirstLegal"}, {"agent": f"{HERE}:Picky", "index": -1}],
                 out=str(tmp_path / "run"))
    sc = scenario_from_dict(raw, REGISTRY)
    assert sc.seats[1].params == {"index": -1}
    info = run_study(sc, REGISTRY, progress=False)
    assert info.played == 2
    con = sqlite3.connect(tmp_path / "run" / "results.sqlite")
    assert [r[0] for r in con.execute("SELECT agent FROM seats WHERE game_index = 0 ORDER BY seat")] == \
        [f"{HERE}:FirstLegal", f"{HERE}:Picky"]


def test_outside_agent_is_built_with_the_context_it_asks_for() -> None:
    from sim.core.agents import make_agent

    game = REGISTRY.get("druids")
    sc = scenario_from_dict(druids(seats=[{"agent": "random"}, {"agent": "random"}]), REGISTRY)
    a = make_agent(game, f"{HERE}:FirstLegal", {}, seat=1, rng=np.random.default_rng(0), config=sc.config())
    assert isinstance(a, FirstLegal) and a.seat == 1
    b = make_agent(game, f"{HERE}:Picky", {"index": 2}, seat=0, rng=np.random.default_rng(0), config=sc.config())
    assert b.index == 2 and set(b.context) == {"game", "seat", "rng", "config"}


@pytest.mark.parametrize(
    "ref, needles",
    [
        ("nosuchpkg_h9.agents:Bot", ["module 'nosuchpkg_h9.agents' not found"]),
        (f"{HERE}:Missing", ["has no attribute 'Missing'"]),
        (f"{HERE}:NOT_A_CLASS", ["int 'NOT_A_CLASS' is not an agent", "act(observation, legal_actions)"]),
        (f"{HERE}:NoAct", ["class 'NoAct' has no act(observation, legal_actions) method"]),
        (f"{HERE}:WrongAct", ["WrongAct.act must take (observation, legal_actions)"]),
        (f"{HERE}:NeedsToken", ["needs argument 'token'"]),
        ("bad path:X", ["'package.module:ClassName'"]),
    ],
)
def test_bad_outside_agents_are_refused_at_load(ref: str, needles: list[str]) -> None:
    refused(druids(seats=[{"agent": "random"}, {"agent": ref}]), "seats[1].agent", *needles)
    refused(druids({"tournament": {"agents": ["random", ref]}}), "tournament.agents[1].agent", *needles)


def test_outside_agent_parameters_are_validated() -> None:
    refused(druids(seats=[{"agent": "random"}, {"agent": f"{HERE}:Picky", "index": 9}]), "seats[1].index", "got 9")
    refused(druids(seats=[{"agent": "random"}, {"agent": f"{HERE}:FirstLegal", "depth": 2}]), "seats[1].depth",
            "unknown key")


def test_cli_refuses_a_missing_outside_module_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "t.toml"
    p.write_text('game = "druids"\ngames = 2\n[tournament]\nagents = ["random", "nosuchpkg_h9.m:Bot"]\n')
    rc = main(["tournament", str(p), "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and "key 'tournament.agents[1].agent'" in err and "nosuchpkg_h9.m" in err
    assert not (tmp_path / "run").exists()
    # a plain scenario's seats can enter, a sweep cannot
    rc = main(["tournament", str(ROOT / "scenarios" / "rocks" / "sweep-target.toml"), "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert rc == 2 and "key 'sweep'" in err and "remove [sweep]" in err
    assert not (tmp_path / "run").exists()


# --- a real tournament ----------------------------------------------------------------------------
def test_druids_tournament_end_to_end_with_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "t.toml"
    p.write_text(
        'game = "druids"\ngames = 3\nseed = 21\nbackend = "serial"\n[tournament]\n'
        f'agents = ["random", "greedy", "{HERE}:FirstLegal"]\n'
    )
    out = tmp_path / "run"
    assert main(["tournament", str(p), "--out", str(out), "--no-report", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["played"] == 6 * 3 and first["resumed_skipped"] == 0
    con = sqlite3.connect(out / "results.sqlite")
    rows = con.execute("SELECT point, game_index, winners_json FROM games ORDER BY point, game_index").fetchall()
    con.close()
    assert len(rows) == 18
    # resume with more games: only the new ones are played, the old rows are untouched
    assert main(["tournament", str(p), "--out", str(out), "--games", "4", "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["played"] == 6 and second["resumed_skipped"] == 18
    con = sqlite3.connect(out / "results.sqlite")
    again = con.execute("SELECT point, game_index, winners_json FROM games WHERE game_index < 3 "
                        "ORDER BY point, game_index").fetchall()
    seats = con.execute("SELECT point, game_index, seat, label, won FROM seats").fetchall()
    con.close()
    assert again == rows
    ratings = {r["entrant"]: r for r in second["ratings"]}
    assert set(ratings) == {"random", "greedy", f"{HERE}:FirstLegal"}
    # each entrant played 2 opponents x 2 seat orders x 4 games
    assert all(r["games"] == 16 for r in ratings.values())
    # the ratings' scores are the stored results: wins plus half the draws, per entrant, each
    # distinct game once (druids has no chance: deterministic entrants replay one game; a copy is
    # a game of the same seating, winners, scores, length, lead changes and druids rows)
    con = sqlite3.connect(out / "results.sqlite")
    rec = {(pt, g): [row] for pt, g, *row in con.execute(
        "SELECT point, game_index, agents_json, winners_json, scores_json, length, termination, leads_json FROM games")}
    for table in ("druids_games", "druids_claims", "druids_matchgames"):
        cols = [c[1] for c in con.execute(f"PRAGMA table_info({table})") if c[1] not in ("point", "game_index")]
        for pt, g, *row in con.execute(f"SELECT point, game_index, {', '.join(cols)} FROM {table} ORDER BY rowid"):
            rec[(pt, g)].append(row)
    con.close()
    copies = {k: sum(1 for v in rec.values() if v == rec[k]) for k in rec}
    for lab, r in ratings.items():
        mine = [(1 / copies[(pt, g)], won) for pt, g, s, label, won in seats if label == lab]
        assert r["score"] == pytest.approx(sum(k * w for k, w in mine) / sum(k for k, _ in mine))
    lo, hi = ratings["greedy"]["ci95"]
    assert lo < ratings["greedy"]["rating"] < hi
    assert sum(r["rating"] for r in ratings.values()) == pytest.approx(0.0, abs=1e-6)
    report = Path(second["report"])
    page = report.read_text(encoding="utf-8")
    assert "Bradley-Terry ratings" in page and "Win-rate matrix" in page
    # every seating has 4 games: seat balance is a fair first-player test, and the skill verdicts
    # know each seating's agents (greedy over random by the declared tier)
    assert "Every entrant sat in every seat equally often" in page
    assert "greedy, stronger by agent tier" in page
    assert (report.parent / "tournament_matrix.png").stat().st_size > 5000


# --- the shipped ladders --------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("game, games, drop", [("druids", 10, ()), ("rocks", 4, ("ismcts-400",))])
def test_skill_ladder_order_holds(tmp_path: Path, game: str, games: int, drop: tuple[str, ...]) -> None:
    """The shipped ladder lists its entrants weakest first; the fitted ratings must agree."""
    from analysis.load import load_run
    from analysis.tournament import run_ratings

    sc = load_scenario(ROOT / "scenarios" / game / "ladder.toml", REGISTRY)
    raw = json.loads(json.dumps(sc.raw))
    # rungs too slow for a test (a rocks ISMCTS game takes 15 s) are checked by the full ladder only
    raw["tournament"]["agents"] = [e for e in raw["tournament"]["agents"]
                                   if (e.get("name") if isinstance(e, dict) else e) not in drop]
    sc = scenario_from_dict(raw, REGISTRY, source=sc.source).with_overrides(
        REGISTRY, games=games, out=str(tmp_path / "run"), workers=2)
    run_study(sc, REGISTRY, progress=False)
    _, r = run_ratings(load_run(tmp_path / "run"))
    ladder = list(sc.tournament.labels)
    assert [r.labels[i] for i in r.order()] == ladder[::-1], r.table()


@pytest.mark.parametrize("game, entrants", [("druids", 4), ("rocks", 4), ("sun", 2)])
def test_shipped_ladders_validate(capsys: pytest.CaptureFixture[str], game: str, entrants: int) -> None:
    assert main(["validate", str(ROOT / "scenarios" / game / "ladder.toml")]) == 0
    out = capsys.readouterr().out
    assert f"{game} tournament of {entrants} entrants" in out
    assert f"{entrants * (entrants - 1)} seatings" in out
