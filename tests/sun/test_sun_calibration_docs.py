"""The calibration's sample log and documented figures are what the physics gives now
(sim/sun/players/calib_figures.py, docs/playtest-log.md, docs/sun-physics.md "What the presets imply").

A physics change that moves a figure fails here until ``python -m sim.sun.players.calib_figures --write``
regenerates the sample log and the docs' marked passages.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sim.sun.players import calib_figures
from sim.sun.players.playtest_log import main as sample_main

ROOT = Path(__file__).resolve().parents[2]


def _pinned(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter that first takes the pinned maths code path (as the
    commands that write the sample and the figures do): the files hold the pinned path's bits, which
    this process, started by pytest on whatever CPU, need not take (docs/reproducibility.md)."""
    return subprocess.run([sys.executable, "-c", "from sim.core import mathpath; mathpath.pin()\n" + code],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_the_sample_log_is_what_the_physics_gives() -> None:
    # 120 physics passes: quick enough to run always, and the first thing a physics change moves.
    r = _pinned("from sim.sun.players.playtest_log import main; raise SystemExit(main(['--check-sample']))")
    assert r.returncode == 0, f"stale sample: run `python -m sim.sun.players.calib_figures --write`\n{r.stderr}"


def test_the_sample_commands_check_and_refuse_bad_arguments(capsys) -> None:  # noqa: ANN001
    assert sample_main(["--nonsense"]) == 2 and "usage" in capsys.readouterr().err
    assert calib_figures.main([]) == 2


@pytest.mark.slow
def test_documented_figures_are_recomputed_and_the_sample_fit_covers_casual() -> None:
    r = _pinned(
        "from sim.sun.players import calib_figures\n"
        "passages, res = calib_figures.compute()\n"
        "sc = next(e for e in res.estimates if e.name == 'scale')\n"
        "print('scale', sc.low, sc.high)\n"
        "print('stale', '; '.join(calib_figures.check(passages)))\n")
    assert r.returncode == 0, r.stderr
    lines = dict(ln.split(" ", 1) for ln in r.stdout.splitlines() if ln.startswith(("scale ", "stale ")))
    low, high = map(float, lines["scale"].split())
    # the sample was drawn from exactly casual: its interval must contain 1
    assert low <= 1.0 <= high, (low, high)
    assert not lines["stale"].strip(), "stale figures (run `python -m sim.sun.players.calib_figures --write`): " + lines["stale"]
