"""The share of passes that lose a stone rises with the thrower's aim noise.

Fixed layouts, passes aimed at the middle of each gap whose line is open on both sides, common
random numbers: every noise level replays the same seed, so each pass draws the same four normals
and only their aim component is scaled (``Thrower.draw_pass``); the release and push noise stay a
steady hand's. On the PyBullet table (fast preset). A study in which no pass lost a stone even at
4 deg of aim noise made this worth holding: the cause was the games, not the noise (the rings
stayed wide), and this test keeps it that way round.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from sim.sun.table.layout import layout_ring, load_layout
from sim.sun.geometry.ring import Geometry
from sim.sun.table.sun_table import SunTable
from sim.sun.players.thrower import SKILLS

LAYOUTS = Path(__file__).resolve().parents[2] / "scenarios" / "sun" / "layouts"
#: aim noise levels (deg, one sigma)
LEVELS = (0.5, 3.0, 6.0, 12.0)


def _loss_shares(name: str, trials: int) -> list[float]:
    """Per level of :data:`LEVELS`, the share of ``trials`` passes per open gap that lose a stone."""
    lay = load_layout(LAYOUTS / f"{name}.toml", "fast")
    ring, g = layout_ring(lay), Geometry()
    # a gap whose opposite crossing is open too (the line through the centre leaves through a gap)
    aims = [ring.middle(i) for i in range(ring.n) if ring.passable(i, g)
            and (j := ring.gap_of_angle(ring.middle(i) + np.pi)) is not None and ring.passable(j, g)]
    assert aims, name
    shares = []
    with SunTable.from_layout(lay, "fast") as t:
        snap = t.snapshot()
        for sigma in LEVELS:
            hand = dataclasses.replace(SKILLS["steady"], sigma_aim_deg=sigma)
            rng = np.random.default_rng(7)  # the same draws at every level
            lost = 0
            for _ in range(trials):
                for aim in aims:
                    t.restore(snap)
                    lost += bool(t.pass_ball(aim, None, hand.draw_pass(rng)).penalties)
            shares.append(lost / (trials * len(aims)))
    return shares


@pytest.mark.slow
@pytest.mark.parametrize(("name", "trials"), [("even-ring", 12), ("full-32", 24)])
def test_the_share_of_passes_that_lose_a_stone_rises_with_the_aim_noise(name: str, trials: int) -> None:
    shares = _loss_shares(name, trials)
    assert all(a <= b for a, b in zip(shares, shares[1:])), shares
    assert shares[0] <= 0.05, shares  # a steady aim through an open gap hardly ever loses a stone
    assert shares[-1] - shares[0] >= 0.25, shares
