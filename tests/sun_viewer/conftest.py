"""Fixtures of the viewer tests: a synthetic replay (no physics) and a real recorded pass."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sim.sun.viewer.replay import Replay, synthetic_replay


@pytest.fixture
def synth() -> Replay:
    """Two turns of a ring of 8 blocks and a swinging ball; stone 0 topples in turn 1."""
    return synthetic_replay(n_stones=8, seconds=2.0, fps=30.0, turns=2)


@pytest.fixture(scope="session")
def real_pass_recording() -> dict:
    """One pass on the evenly spaced ring, aimed at a stone, recorded by the table (its own API)."""
    from sim.sun.table.layout import load_layout
    from sim.sun.table.recording import PoseRecorder
    from sim.sun.table.sun_table import SunTable

    root = Path(__file__).resolve().parents[2]
    lay = load_layout(root / "scenarios" / "sun" / "layouts" / "full-32.toml", preset="fast")
    rec = PoseRecorder(60.0)
    with SunTable.from_layout(lay) as t:
        t.pass_ball(math.radians(10.0), None, record=rec)
    return rec.to_dict()
