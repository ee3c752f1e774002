"""What Knizia's druid *Stonehenge* brings to stonelab (registered in ``sim/games.py``)."""

from __future__ import annotations

from sim.core.registry import GamePlugin

PLUGIN = GamePlugin(
    game="sim.druids.game:GAME",
    report="sim.druids.report:REPORT",
    replay="sim.druids.replay:REPLAY",
    benches=("sim.druids.bench:benchmarks",),
    seat="sim.druids.seat:SEAT",
)
