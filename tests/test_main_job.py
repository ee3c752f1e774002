"""The README's main job end to end, small: a Sun study through `stonelab run` writes the store,
the report with its replay links, the first game's replay file and its static 3-D viewer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_sun_study_writes_store_report_and_replay(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    rc = main(["run", str(ROOT / "scenarios/sun/classic-2p.toml"), "--games", "2", "--backend", "serial",
               "--out", str(out), "--json"])
    assert rc == 0
    s = json.loads(capsys.readouterr().out)
    assert s["games"] == 2 and s["game"] == "sun"
    replay = Path(s["replays"][0])
    assert replay == out / "replays" / "game-0.npz" and replay.stat().st_size > 1000
    viewer = out / "replays" / "viewer"  # one folder for the replays and their viewer
    assert (viewer / "index.html").is_file() and (viewer / "standalone.html").is_file()
    assert not (out / "replay").exists()
    html = (out / "report" / "report.html").read_text()
    # the Replays section lists a few games worth a look, and says how to watch any other
    assert "<h2>Replays</h2>" in html and "../replays/game-0.npz" in html and "--game 0" in html
    assert "--game N</code> (N from 0 to 1)" in html
    assert "../replays/viewer/standalone.html" in html

    from sim.sun.viewer.replay import load_replay

    rep = load_replay(replay)
    assert len(rep.turns) > 0 and rep.times.shape[0] > 10
    # every stored game is replayable: game 1 has no kept frames and is re-simulated from its seed
    assert main(["replay", "info", str(out), "--game", "1"]) == 0


@pytest.mark.slow
def test_sun_study_identical_on_serial_and_process_backends(tmp_path: Path, capsys) -> None:
    """Physics games too: the same seed stores the same results in one process or in a pool."""
    from sim.core.testing import store_results

    scen = str(ROOT / "scenarios/sun/classic-2p.toml")
    for backend, workers in (("serial", "1"), ("process", "2")):
        rc = main(["run", scen, "--games", "3", "--backend", backend, "--workers", workers,
                   "--out", str(tmp_path / backend), "--no-report"])
        assert rc == 0
    a, b = store_results(tmp_path / "serial"), store_results(tmp_path / "process")
    assert len(a["sun_passes"].rows) > 10
    assert a == b
