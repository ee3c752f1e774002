"""What *Sozoikum* brings to stonelab (registered in ``sim/games.py``)."""

from __future__ import annotations

from sim.core.registry import GamePlugin

PLUGIN = GamePlugin(
    game="sim.sozoikum.game:GAME",
    commands={"sozoikum": "sim.sozoikum.cli:app"},
    report="sim.sozoikum.report:REPORT",
    replay="sim.sozoikum.replay:REPLAY",
    benches=("sim.sozoikum.bench:benchmarks",),
    seat="sim.sozoikum.seat:SEAT",
)
