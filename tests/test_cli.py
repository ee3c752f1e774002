"""The `stonelab` command end to end on the druid game: exit codes, JSON, nothing written on bad
input, export."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from cli_scenarios import druids_scenario

from sim.cli import main

SCEN = druids_scenario(12)


def scenario(tmp_path: Path, text: str = SCEN) -> Path:
    p = tmp_path / "study.toml"
    p.write_text(text)
    return p


def test_games_json_lists_every_registered_game(capsys) -> None:
    from sim.games import game_names

    assert main(["games", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [g["name"] for g in data["games"]] == game_names()
    druids = next(g for g in data["games"] if g["name"] == "druids")
    assert {"random", "greedy", "mcts"} <= {a["name"] for a in druids["agents"]}


def test_run_json_summary_and_export(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    rc = main(["run", str(scenario(tmp_path)), "--out", str(out), "--json", "--no-report"])
    assert rc == 0
    cap = capsys.readouterr()
    s = json.loads(cap.out)
    # not a terminal: plain progress lines on stderr, the last at 100 %
    assert "study: 12/12 games (100 %)" in cap.err
    for key in ("scenario", "game", "games", "seed", "seats", "draws", "shared_wins", "mean_length", "wall_s", "out"):
        assert key in s
    assert s["games"] == 12 and s["game"] == "druids" and s["seed"] == 4
    # every game has a sole winner, a shared win or no winner (a draw): one definition everywhere
    wins = sum(seat["wins"] for seat in s["seats"]) + s["draws"] + s["shared_wins"]
    assert wins == 12
    assert sum(seat["score"] for seat in s["seats"]) == pytest.approx(1.0)  # the shares of each game sum to 1
    for seat in s["seats"]:
        lo, hi = seat["ci95"]
        assert 0 <= lo <= seat["win_rate"] <= hi <= 1
    # the same command again plays nothing and reports the same figures
    assert main(["run", str(scenario(tmp_path)), "--out", str(out), "--json", "--no-report"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["played"] == 0 and again["seats"] == s["seats"]
    # export
    assert main(["export", str(out), "--format", "csv"]) == 0
    path = Path(capsys.readouterr().out.strip())
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 12 and "score_0" in rows[0] and "megaliths_0" in rows[0]
    assert sum(int(r["draw"]) for r in rows) == s["draws"] and sum(int(r["shared_win"]) for r in rows) == s["shared_wins"]
    assert main(["export", str(out), "--format", "parquet", "--out", str(tmp_path / "g.parquet")]) == 0
    assert (tmp_path / "g.parquet").stat().st_size > 0


@pytest.mark.parametrize(
    "text, words",
    [
        (SCEN.replace("games = 12", "games = -3"), "key 'games'"),
        (SCEN.replace('agent = "greedy"', 'agent = "oracle"'), "key 'seats[1].agent'"),
        (SCEN + "[rules]\ntie_loser = 'nobody'\n", "key 'rules.tie_loser'"),
        (SCEN + "[rules]\nbogus = 1\n", "key 'rules.bogus'"),
        ("game = [1", "not valid TOML"),
    ],
)
def test_bad_scenario_exits_2_with_message_and_writes_nothing(tmp_path: Path, capsys, text: str, words: str) -> None:
    out = tmp_path / "never"
    assert main(["run", str(scenario(tmp_path, text)), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and "study.toml" in err and "Traceback" not in err
    assert not out.exists()
    assert main(["validate", str(scenario(tmp_path, text))]) == 2


def test_bad_command_line_values_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["run", str(scenario(tmp_path)), "--backend", "gpu", "--out", str(tmp_path / "x")]) == 2
    assert "'serial', 'process' or 'dask'" in capsys.readouterr().err
    assert main(["run", str(scenario(tmp_path)), "--games", "0"]) == 2
    assert main(["bench", "chess"]) == 2
    assert main(["export", str(tmp_path / "nothing"), "--format", "csv"]) == 2
    assert not (tmp_path / "x").exists()


def test_run_folder_of_another_scenario_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["run", str(scenario(tmp_path)), "--out", str(out), "--games", "2", "--no-report"]) == 0
    assert main(["run", str(scenario(tmp_path)), "--out", str(out), "--seed", "5", "--no-report"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["run", str(scenario(tmp_path)), "--out", str(out), "--seed", "5", "--force", "--games", "2", "--no-report"]) == 0


@pytest.mark.slow  # several seconds (the default suite stays a few minutes)
def test_bench_json_reports_playout_speed(capsys) -> None:
    assert main(["bench", "druids", "--quick", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    by = {(r["game"], r["metric"]): r for r in rows}
    assert by[("druids", "actions_per_s")]["value"] > 1000 and by[("druids", "actions_per_s")]["unit"] == "actions/s"
    assert ("druids", "games_per_s") in by


def test_progress_starts_at_0_and_the_steps_after_the_games_are_announced(tmp_path: Path, capsys,
                                                                           monkeypatch) -> None:
    # 22 s once passed silently after 100 % while the report and the replay were written
    out = tmp_path / "run"
    assert main(["run", str(scenario(tmp_path, druids_scenario(4))), "--out", str(out), "--json"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("study: 0/4 games (0 %)"), lines
    done = next(i for i, ln in enumerate(lines) if ln.startswith("study: 4/4 games (100 %)"))
    assert lines[done + 1:] == ["study: writing the replays of games 0, 1, 2...", "study: writing the report..."], lines
    import sim.cli as cli
    import sim.replay.runs as pages
    import sim.replay.source as source
    import sim.sun.replays as replays_3d

    # as for a run of the Sun, whose plug-in's replays_3d names sim.sun.replays
    monkeypatch.setattr(pages, "has_turn_replays", lambda run_dir: False)
    monkeypatch.setattr(source, "run_game_name", lambda run_dir: "sun")
    monkeypatch.setattr(replays_3d, "has_replays", lambda run_dir: True)
    monkeypatch.setattr(replays_3d, "export_run_replays", lambda run_dir: None)
    cli._export_replays(out, "sun-study")
    assert capsys.readouterr().err == "sun-study: recording the replay of game 0...\n"
