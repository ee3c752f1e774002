"""What *Stonehenge and the Sun* brings to stonelab (registered in ``sim/games.py``).

The Sun is a physics game (a random game takes seconds), and its runs keep 3-D replays that
``sim.sun.viewer`` shows (``sim.sun.replays`` is what the generic commands call); the viewer also
measures how fast it renders the Sun's passes to video.
"""

from __future__ import annotations

from sim.core.registry import GamePlugin

PLUGIN = GamePlugin(
    game="sim.sun.game:GAME",
    commands={"sun": "sim.sun.cli:app", "stability": "sim.sun.cli:stability"},
    report="sim.sun.report:REPORT",
    compare_keys=("sun_difficulty", "sun_rules_exercised"),  # sim/sun/report/compare.py
    benches=("sim.sun.bench:benchmarks", "sim.sun.viewer.bench:benchmarks"),
    slow=True,
    replays_3d="sim.sun.replays",
    replay_recorder="sim.sun.game:record_game",
    sensitivity="sim.sun.sensitivity",
    seat="sim.sun.seat:SEAT",
)
