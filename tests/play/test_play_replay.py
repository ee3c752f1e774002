"""A game a person played is watched from its move record: ``replay export`` and the report's link."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from play_helpers import playable
from sim.cli import main
from sim.core.store import Store
from sim.games import REGISTRY
from sim.play.session import Finished, Session
from sim.replay.played import record_path
from sim.replay.runs import export_game_page
from sim.replay.source import run_replay


class _Last:
    """A person who always takes the last listed move (an agent with that policy does not exist, so
    a replay from the seed alone could not reproduce the game)."""

    def choose(self, seat, observation, legal_actions):  # noqa: ANN001, ANN201 - the Channel protocol
        return legal_actions[-1]


def _played(path: str, seat: int, out: Path) -> Finished:
    session = Session(playable(path, seat, out), REGISTRY)
    with session.held():
        state, played = session.play(_Last())
        return session.store(state, played)


@pytest.mark.parametrize("path, seat", [("druids/classic.toml", 0), ("rocks/greedy-vs-random.toml", 1),
                                        ("sozoikum/bluff.toml", 0)])
def test_a_played_game_replays_from_its_record(tmp_path: Path, path: str, seat: int, capsys) -> None:
    done = _played(path, seat, tmp_path / "run")
    record = json.loads(done.record.read_text())
    doc = run_replay(done.out, done.index)
    assert "move record" in doc["subtitle"]
    assert doc["result"]["scores"] == done.scores and sorted(doc["result"]["winners"]) == sorted(done.winners)
    # every step of the person's seat is in the frames, as they chose it
    assert len(doc["frames"]) > 1 and doc["frames"][-1]["turn"] > 0
    assert sum(1 for s in record["steps"] if s["seat"] == seat) > 0
    page = tmp_path / "p.html"
    assert main(["replay", "export", str(done.out), "--game", "0", "--seat", str(seat), "--out", str(page)]) == 0
    assert "steps" in capsys.readouterr().out and page.read_text().lower().startswith("<!doctype html>")


def test_a_tampered_record_is_refused_naming_the_step(tmp_path: Path, capsys) -> None:
    done = _played("druids/classic.toml", 0, tmp_path / "run")
    rec = json.loads(done.record.read_text())
    mine = next(i for i, s in enumerate(rec["steps"]) if s["seat"] == 0)
    rec["steps"][mine]["action"] = "Place(q=9)"
    record_path(done.out, 0).write_text(json.dumps(rec))
    assert main(["replay", "export", str(done.out), "--game", "0", "--out", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert f"step {mine + 1} of the move record" in err and "Place(q=9)" in err
    assert not (tmp_path / "x.html").exists()
    record_path(done.out, 0).write_text("{not json")
    assert main(["replay", "export", str(done.out), "--game", "0", "--out", str(tmp_path / "x.html")]) == 2
    assert "not JSON" in capsys.readouterr().err
    # without its record, the seed alone has no one to ask for the person's moves
    record_path(done.out, 0).unlink()
    assert main(["replay", "export", str(done.out), "--game", "0", "--out", str(tmp_path / "x.html")]) == 2
    assert "no one to ask" in capsys.readouterr().err


def test_the_report_links_the_played_games_page(tmp_path: Path) -> None:
    from analysis.report import build_report

    done = _played("druids/classic.toml", 1, tmp_path / "run")
    page = export_game_page(done.out, done.index)
    assert page == done.out / "replays" / "game-0.html" and page.is_file()
    report = Path(build_report(done.out)).read_text()
    assert "href='../replays/game-0.html'" in report
    with Store.open(done.out) as store:
        assert store.query("SELECT COUNT(*) FROM games")[0][0] == 1


def test_a_played_game_of_the_sun_is_watched_in_3d_with_the_rules_view(tmp_path: Path, capsys) -> None:
    done = _played("sun/classic-2p.toml", 1, tmp_path / "run")
    record = json.loads(done.record.read_text())
    # the agent's continuous aims are kept exactly: the notation alone rounds them to 0.01 deg
    passes = [s for s in record["steps"] if s["seat"] == 0 and s["action"].startswith("Pass(")]
    assert passes and all(isinstance(s["fields"]["aim"], float) for s in passes)
    out = tmp_path / "export"
    assert main(["replay", "export", str(done.out), "--game", "0", "--out", str(out)]) == 0
    meta = json.loads((out / "replay.json").read_text())["meta"]
    # played again from the move record, frame for frame as kept: the rules' view is there
    assert "rules_view_note" not in meta, meta
    assert meta["outcome"] == {"winners": done.winners, "scores": done.scores}
    assert (out / "standalone.html").is_file()
