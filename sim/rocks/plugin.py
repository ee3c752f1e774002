"""What *Stonehenge Rocks!* brings to stonelab (registered in ``sim/games.py``)."""

from __future__ import annotations

from sim.core.registry import GamePlugin

PLUGIN = GamePlugin(
    game="sim.rocks.game:GAME",
    report="sim.rocks.report:REPORT",
    replay="sim.rocks.replay:REPLAY",
    benches=("sim.rocks.bench:benchmarks",),
    seat="sim.rocks.seat:SEAT",
)
