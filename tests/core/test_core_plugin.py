"""A game joins stonelab through the registry alone: the toy game "race to N", installed as a
third party would (an entry point in the group ``stonelab.games``), gets ``stonelab games``,
``run``, ``report`` and ``bench`` without a line of sim/cli.py or analysis/ naming it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from sim.cli import main
from sim.core.errors import InputError
from sim.core.registry import ENTRY_POINT_GROUP, GamePlugin, Registry
from sim.games import REGISTRY

SCENARIO = """
game = "race"
games = 8
seed = 5
backend = "serial"
[rules]
target = 10
[[seats]]
agent = "random"
[[seats]]
agent = "random"
"""


def install_entry_point(folder: Path, name: str, value: str) -> None:
    """What ``pip install`` of a package declaring ``[project.entry-points."stonelab.games"]``
    leaves on sys.path: a dist-info folder with the entry point."""
    info = folder / "stonelab_toy-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: stonelab-toy\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{name} = {value}\n", encoding="utf-8")


@pytest.fixture
def race_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install_entry_point(tmp_path / "site", "race", "toy_plugin:PLUGIN")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    REGISTRY.refresh()
    yield
    monkeypatch.undo()
    REGISTRY.refresh()


def test_an_installed_game_gets_replay_pages_from_its_plugin_alone(race_installed: None, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # the toy's plug-in names a ReplayBook (tests/core/toy_replay): `stonelab run` writes the first
    # games' pages and `stonelab replay export` any game's, with no 3-D viewer and no line of sim/
    # naming the race
    scen = tmp_path / "race.toml"
    scen.write_text(SCENARIO, encoding="utf-8")
    out = tmp_path / "run"
    assert main(["run", str(scen), "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    pages = [Path(f) for f in summary["replays"]]
    assert pages and all(p.suffix == ".html" and p.is_file() for p in pages)
    assert summary.get("replay_viewer") is None  # no 3-D viewer folder
    page = tmp_path / "game3.html"
    assert main(["replay", "export", str(out), "--game", "3", "--out", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "the race starts at 0" in html and "seat 0 adds" in html  # the toy's frames, in its words
    assert "StonelabBoard" in html and "total " in html  # its own drawing script, inlined


@pytest.mark.slow  # several seconds (the default suite stays a few minutes)
def test_an_installed_game_is_listed_run_reported_and_benched(race_installed: None, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert REGISTRY.names()[-1] == "race"  # after the project's own games
    assert main(["games", "--json"]) == 0
    race = next(g for g in json.loads(capsys.readouterr().out)["games"] if g["name"] == "race")
    assert race["title"] == "Race to N" and race["players"] == [2, 3]

    scen = tmp_path / "race.toml"
    scen.write_text(SCENARIO, encoding="utf-8")
    out = tmp_path / "run"
    assert main(["run", str(scen), "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "race" and summary["games"] == 8
    assert summary.get("replay_viewer") is None  # the toy declares no 3-D replays (its pages: the test above)
    # two seats adding 1 or 2 from 0 reach 10 in 5 to 10 moves
    assert 5 <= summary["mean_length"] <= 10

    assert main(["report", str(out)]) == 0
    page = Path(capsys.readouterr().out.strip()).read_text(encoding="utf-8")
    assert "Race to N" in page
    # the toy's own section, found through its plug-in: a total of 9 or less can still move, so
    # every game ends at exactly 10 or 11 (one past, by adding 2 to 9)
    mean = float(page.split("ended at a mean total of ")[1].split(".</")[0].rstrip("."))
    assert 10.0 <= mean <= 11.0
    assert "ended by &#x27;normal&#x27;" in page or "ended by 'normal'" in page  # the declared ending

    assert main(["bench", "race", "--quick", "--json"]) == 0
    rows = {r["metric"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert rows["notation_round_trips_per_s"]["game"] == "race"  # filled in for the plug-in's bench
    assert rows["actions_per_s"]["value"] > 0  # not declared slow: the random-playout loop ran


def test_without_the_entry_point_the_game_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    REGISTRY.refresh()
    assert "race" not in REGISTRY.names()
    assert main(["bench", "race", "--quick"]) == 2
    assert "unknown game 'race'" in capsys.readouterr().err


def test_an_entry_point_cannot_take_a_registered_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    install_entry_point(tmp_path / "site", "druids", "toy_plugin:PLUGIN")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    reg = Registry({"druids": "sim.druids.plugin:PLUGIN"}, entry_points=True)
    assert reg.path("druids") == "sim.druids.game:GAME"
    assert "skipped: the name is taken" in capsys.readouterr().err


def test_a_bare_game_entry_brings_nothing_else_and_a_wrong_one_is_named() -> None:
    reg = Registry({"race": "toy_game:GAME", "bad": "toy_game:RaceState", "gone": "no_such_module:X",
                    "sprint": "toy_game:GAME"})
    assert reg.plugin("race") == GamePlugin(game="toy_game:GAME")
    assert reg.get("race").spec.name == "race"
    with pytest.raises(InputError, match="'toy_game:RaceState' names <class 'toy_game.RaceState'>, not a GamePlugin or Game"):
        reg.get("bad")
    with pytest.raises(InputError, match="cannot load 'no_such_module:X'"):
        reg.get("gone")
    with pytest.raises(InputError, match="registered as 'sprint' but its spec is named 'race'"):
        reg.get("sprint")


def test_a_game_without_a_report_gets_the_no_op_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    from analysis.games import GameReport, game_report

    monkeypatch.setattr(REGISTRY, "find", lambda name: GamePlugin(game="toy_game:GAME"))
    rep = game_report("race")
    assert type(rep) is GameReport
    assert rep.section(None) is None and rep.headline(None) is None  # type: ignore[arg-type]
    assert rep.seat_skill({"skill": 3}) == {} and rep.compare_sections(None, None) == []  # type: ignore[arg-type]
    assert rep.design_files({}, ["rules.x"], Path("nowhere"), "t") == []
    monkeypatch.setattr(REGISTRY, "find", lambda name: None)  # a game this installation lacks
    assert type(game_report("gone")) is GameReport


@pytest.mark.parametrize("ref,says", [
    ("toy_plugin", "cannot load its report 'toy_plugin' (a 'module:attribute' naming a GameReport)"),
    ("toy_plugin:NoSuchReport", "cannot load its report 'toy_plugin:NoSuchReport'"),
    ("toy_plugin:benchmarks", "names <function benchmarks"),
])
def test_a_report_that_is_not_a_game_report_is_named(monkeypatch: pytest.MonkeyPatch, ref: str, says: str) -> None:
    from analysis.games import game_report

    monkeypatch.setattr(REGISTRY, "find", lambda name: GamePlugin(game="toy_game:GAME", report=ref))
    with pytest.raises(InputError, match="game 'race'") as e:
        game_report("race")
    assert says in str(e.value)


def test_the_toy_names_its_report_class_and_gets_its_section_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from analysis.games import GameReport, game_report
    from toy_plugin import PLUGIN, RaceReport

    monkeypatch.setattr(REGISTRY, "find", lambda name: PLUGIN)
    rep = game_report("race")
    assert isinstance(rep, RaceReport)
    overridden = {k for k, v in vars(RaceReport).items() if callable(v)}
    assert overridden == {"section"}
    assert rep.player_model(None) is GameReport().player_model(None) is None  # type: ignore[arg-type]


@pytest.mark.slow  # a run and a report: a few seconds
def test_a_game_that_brings_no_report_gets_the_generic_sections(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.load import load_run
    from analysis.report import build_sections

    install_entry_point(tmp_path / "site", "race", "toy_game:GAME")  # a bare game: no plug-in, no report
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    REGISTRY.refresh()
    try:
        scen = tmp_path / "race.toml"
        scen.write_text(SCENARIO, encoding="utf-8")
        out = tmp_path / "run"
        assert main(["run", str(scen), "--out", str(out), "--json"]) == 0
        capsys.readouterr()
        sections, errors = build_sections(load_run(out))
    finally:
        monkeypatch.undo()
        REGISTRY.refresh()
    assert not errors
    titles = [s.title for s in sections]
    assert len(titles) >= 3 and "Race to N" not in titles  # the generic ones, and nothing of the toy's
    assert (out / "report" / "report.html").is_file()
