"""The toy game "race to N" as a third party would plug it in (docs/game-interface.md).

``PLUGIN`` is what the entry point ``race = "toy_plugin:PLUGIN"`` of the group ``stonelab.games``
names; the test in test_core_plugin.py installs that entry point in a temporary folder. Beside the
game it brings a report (:class:`RaceReport`, one hook of :class:`analysis.games.base.GameReport`
overridden), a benchmark (:func:`benchmarks`) and turn-by-turn replay pages (``toy_replay``: its
frames and the script that draws one).
"""

from __future__ import annotations

import time
from typing import Any

from analysis.games import GameReport, has_columns, own_aligned
from analysis.load import RunData
from analysis.plots import Section
from sim.core.registry import GamePlugin

PLUGIN = GamePlugin(
    game="toy_game:GAME",
    report="toy_plugin:RaceReport",
    benches=("toy_plugin:benchmarks",),
    replay="toy_replay.book:BOOK",
)


class RaceReport(GameReport):
    """The race's report: its own section; every other hook keeps its no-op default."""

    def section(self, run: RunData) -> Section | None:
        """The race's own report section: the mean total the games ended at."""
        own = own_aligned(run)
        if not has_columns(own, "final_total"):
            return None
        mean = float(own["final_total"].mean())
        return Section("Race to N", findings=[f"The games ended at a mean total of {mean:.2f}."])


def benchmarks(quick: bool = False) -> list[dict[str, Any]]:
    """How fast a position's notation round-trips (parse of its own text), per second."""
    from toy_game import GAME

    state = GAME.new_initial_state(GAME.config(2))
    n = 2_000 if quick else 20_000
    t0 = time.perf_counter()
    for _ in range(n):
        GAME.from_notation(state.to_notation())
    return [{"metric": "notation_round_trips_per_s", "value": n / (time.perf_counter() - t0), "unit": "1/s"}]
