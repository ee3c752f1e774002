"""``stonelab play --tui`` driven through a pipe, as a person at a terminal would."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from play_helpers import ROOT, engine_game, playable
from sim.core.store import Store


def _tui(args: list[str], lines: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "sim.cli", "play", *args, "--tui"], input="\n".join(lines) + "\n",
                          cwd=ROOT, env=env, text=True, capture_output=True, timeout=timeout)


def test_a_whole_game_in_the_terminal(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # the first move typed, then the same point again (refused), then the first listed move each time
    lines = ["zz", "a1", "Place(a=2)", "999", *["1"] * 20]
    r = _tui([str(ROOT / "scenarios" / "druids" / "classic.toml"), "--seat", "0", "--out", str(out)], lines)
    assert r.returncode == 0, r.stderr
    assert "refused: 'zz' is not a move" in r.stdout
    assert "refused: Place(a=2) is not allowed: point a is taken" in r.stdout
    assert "refused: there is no move 999" in r.stdout
    assert "1. Place(a=1)" in r.stdout and "you play Place(a=1)" in r.stdout
    assert "seat 1 (greedy(cost=0.03)): Place(" in r.stdout  # the opponent's moves, as they happen
    assert "game over:" in r.stdout
    expected, _ = engine_game(playable("druids/classic.toml", 0, out))
    with Store.open(out) as store:
        (scores, winners, length), = store.query("SELECT scores_json, winners_json, length FROM games")
    assert (json.loads(scores), json.loads(winners), length) == (expected.scores, expected.winners, expected.length)


def test_rocks_in_the_terminal_hides_the_cards_drawn(tmp_path: Path) -> None:
    out = tmp_path / "rocks"
    r = _tui([str(ROOT / "scenarios" / "rocks" / "greedy-vs-random.toml"), "--seat", "1", "--out", str(out)],
             ["1"] * 400)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "chance: a card is drawn" in r.stdout and "draw " not in r.stdout.replace("draw pile", "")
    assert "your hand:" in r.stdout


def test_input_that_ends_early_stores_nothing(tmp_path: Path) -> None:
    out = tmp_path / "left"
    r = _tui([str(ROOT / "scenarios" / "druids" / "classic.toml"), "--seat", "1", "--out", str(out)], ["1"])
    assert r.returncode == 1
    assert "nothing of it was stored" in r.stderr
    assert not out.exists()


def test_a_bad_seat_is_exit_2(tmp_path: Path) -> None:
    r = _tui([str(ROOT / "scenarios" / "druids" / "classic.toml"), "--seat", "5", "--out", str(tmp_path / "x")], [])
    assert r.returncode == 2 and "key '--seat'" in r.stderr
    r = _tui([str(ROOT / "scenarios" / "druids" / "classic.toml"), "--out", str(tmp_path / "x")], [])
    assert r.returncode == 2 and "no seat is agent 'human'" in r.stderr


@pytest.mark.slow
def test_a_game_of_the_sun_in_the_terminal_keeps_its_3d_replay(tmp_path: Path) -> None:
    out = tmp_path / "sun"
    # a pass typed where a placement is due (refused with the rule), a stand at an angle of one's
    # own choosing, then the listed moves
    lines = ["pass 45 0.1", "Stand(pillar at 40 deg)", *["1"] * 120]
    r = _tui([str(ROOT / "scenarios" / "sun" / "classic-2p.toml"), "--seat", "1", "--out", str(out)], lines,
             timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "refused: Pass(aim 45.00 deg, release 0.100 m) is not allowed: not a placement" in r.stdout
    assert "you play Stand(pillar at 40.00 deg)" in r.stdout
    assert re.search(r"release 0\.\d+ m: \d penalty stones? \((nothing fell|#\d+ \w+ [a-z ]+)", r.stdout)  # a pass's cost and why
    assert f"stonelab replay view {out} --game 0" in r.stdout
    with Store.open(out) as store:
        assert store.query("SELECT COUNT(*) FROM sun_frames")[0][0] > 0
