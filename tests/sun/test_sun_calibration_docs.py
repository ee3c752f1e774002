"""The calibration's sample log and documented figures are what the physics gives now
(sim/sun/calib_figures.py, docs/playtest-log.md, docs/sun-physics.md "What the presets imply").

A physics change that moves a figure fails here until ``python -m sim.sun.calib_figures --write``
regenerates the sample log and the docs' marked passages.
"""

from __future__ import annotations

import pytest

from sim.sun import calib_figures
from sim.sun.playtest_log import SAMPLE_PATH, main as sample_main, sample_log_text


def test_the_sample_log_is_what_the_physics_gives() -> None:
    # 120 physics passes: quick enough to run always, and the first thing a physics change moves.
    assert SAMPLE_PATH.read_text(encoding="utf-8") == sample_log_text(), \
        "stale sample: run `python -m sim.sun.calib_figures --write`"


def test_the_sample_commands_check_and_refuse_bad_arguments(capsys) -> None:  # noqa: ANN001
    assert sample_main(["--nonsense"]) == 2 and "usage" in capsys.readouterr().err
    assert calib_figures.main([]) == 2


@pytest.mark.slow
def test_documented_figures_are_recomputed_and_the_sample_fit_covers_casual() -> None:
    passages, res = calib_figures.compute()
    sc = next(e for e in res.estimates if e.name == "scale")
    # the sample was drawn from exactly casual: its interval must contain 1
    assert sc.low <= 1.0 <= sc.high, sc
    stale = calib_figures.check(passages)
    assert not stale, "stale figures (run `python -m sim.sun.calib_figures --write`): " + "; ".join(stale)
