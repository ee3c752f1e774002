"""A look at a file or a run runs no code from it (docs/security.md): ``validate`` checks an outside
agent's import path without importing it, ``replay`` of a run folder does not import the agents
its stored scenario names, unless the person passes ``--import-agents``.

The outside module writes a marker file when imported: its import-time code ran iff the marker exists.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tomllib
from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def evil(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """An importable module ``evil_mod_<id>`` whose import writes ``marker``; its agent class ``Agent``."""
    name = f"evil_mod_{abs(hash(str(tmp_path))) % 10**8}"
    marker = tmp_path / "ran.marker"
    (tmp_path / f"{name}.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('import-time code ran')\n"
        "class Agent:\n    def act(self, observation, legal_actions):\n        return legal_actions[0]\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name, marker
    sys.modules.pop(name, None)
    from sim.core import agents

    agents._OUTSIDE.pop(f"{name}:Agent", None)


def _druids(tmp_path: Path, agent: str, file: str = "s.toml", **extra: object) -> Path:
    seat = "".join(f"{k} = {json.dumps(v)}\n" for k, v in extra.items())
    p = tmp_path / file
    p.write_text(f'game = "druids"\ngames = 2\n[[seats]]\nagent = "random"\n[[seats]]\nagent = "{agent}"\n{seat}',
                 encoding="utf-8")
    return p


def test_validate_checks_an_outside_agent_without_importing_it(tmp_path: Path, evil: tuple[str, Path],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    name, marker = evil
    p = _druids(tmp_path, f"{name}:Agent", depth=3)
    assert main(["validate", str(p)]) == 0
    out = capsys.readouterr().out
    assert not marker.exists()
    assert "ok" in out and f"{name}:Agent not imported" in out and "--import-agents" in out
    # a malformed path is still refused, without an import
    assert main(["validate", str(_druids(tmp_path, "bad path:X", "bad.toml"))]) == 2
    assert "'package.module:ClassName'" in capsys.readouterr().err
    # tournaments too
    t = tmp_path / "t.toml"
    t.write_text(f'game = "druids"\ngames = 2\n[tournament]\nagents = ["random", "{name}:Agent"]\n', encoding="utf-8")
    assert main(["validate", str(t)]) == 0 and not marker.exists()
    capsys.readouterr()
    # asked for, the import happens (and checks the parameters: Agent declares none)
    assert main(["validate", str(p), "--import-agents"]) == 2
    assert marker.exists() and "key 'seats[1].depth'" in capsys.readouterr().err


def _sun_store(run: Path, agent: str) -> None:
    """A run folder of the Sun with one stored game and no kept frames: ``replay`` re-simulates it
    from the scenario the store holds, whose second seat is ``agent``."""
    raw = tomllib.loads((ROOT / "scenarios" / "sun" / "classic-2p.toml").read_text(encoding="utf-8"))
    raw["seats"][1]["agent"] = agent
    run.mkdir()
    con = sqlite3.connect(run / "results.sqlite")
    con.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
    con.executemany("INSERT INTO meta VALUES (?, ?)", [("game", "sun"), ("scenario_json", json.dumps(raw))])
    con.execute("CREATE TABLE games(point INTEGER, game_index INTEGER)")
    con.execute("INSERT INTO games VALUES (0, 0)")
    # the other core tables, empty: a store without them is refused as damaged before anything else
    con.execute("CREATE TABLE points(point INTEGER)")
    con.execute("CREATE TABLE seats(point INTEGER, game_index INTEGER, seat INTEGER)")
    con.commit()
    con.close()


@pytest.mark.parametrize("command", [["info"], ["convert", "--out", "{tmp}/r.npz"], ["export", "--out", "{tmp}/e"]])
def test_replay_of_a_run_folder_imports_no_agent_it_names(tmp_path: Path, evil: tuple[str, Path], command: list[str],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    name, marker = evil
    run = tmp_path / "run"
    _sun_store(run, f"{name}:Agent")
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    assert main(["replay", args[0], str(run), *args[1:]]) == 2
    err = capsys.readouterr().err
    assert not marker.exists()
    assert f"{name}:Agent" in err and "--import-agents" in err and err.count("\n") == 1
    assert not (tmp_path / "r.npz").exists() and not (tmp_path / "e").exists()
