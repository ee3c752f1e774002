"""Speed figures of the Sun's table for ``stonelab bench``.

On ``full-32.toml`` at the ``fast`` preset, zero noise:

- ``pass_clean_ms``: wall ms of :meth:`SunTable.pass_ball` for passes through the open gates at 0
  and 180 degrees (no stone touched);
- ``pass_hit_ms``: the same for passes aimed into the ring (stones knocked over);
- ``pass_overhead_ratio``: the project's pass divided by bare PyBullet stepping of the same scene
  for the same steps, in CPU time of this process (wall time on a shared machine swings by 3x
  between two identical loops; CPU time does not) (the ball spawned the same way, ``stepSimulation`` in a plain loop for the
  swing steps, the ball removed, then the settle steps), measured in the same run, pass and bare
  alternating so that load from other processes hits both alike;
- ``rebuild_ms``: loading the poses into the table's world (sim/sun/table/world.py, ``rebuild``: every
  stone's pose, mass, velocity and sleeping state set, its broadphase entry made anew), which a
  table does before a pass that follows a change; not part of the pass figures.

The bare loop loads the same stones dynamic as the pass's last run (its active set): the ratio is
the pass's bookkeeping (ball reads, contact watch, rest checks, reruns) over the stepping it needs.

``pass_clean_cpu_ms`` and ``pass_hit_cpu_ms`` give the same passes in CPU time. Each figure is a
median over several runs; world rebuilds happen outside the timed region. How fast a recorded pass
renders to video is the viewer's figure (``sim.sun.viewer.bench``): the engine knows no viewer.
"""

from __future__ import annotations

import math
import statistics
import time
from pathlib import Path
from typing import Any

import pybullet as p

from sim.sun import game_bench
from sim.sun.table.layout import load_layout
from sim.sun.table.sun_table import SunTable

LAYOUT = Path(__file__).resolve().parents[2] / "scenarios" / "sun" / "layouts" / "full-32.toml"
CLEAN_AIMS_DEG = (0.0, 180.0)
HIT_AIMS_DEG = (30.0, 45.0, 120.0, 210.0, 300.0)


def _bare(table: SunTable, aim: float, swing_steps: int, settle_steps: int,
          active: frozenset[int] | None) -> tuple[float, float]:
    """Wall and CPU seconds of bare stepping of the same scene (the pass's last active set loaded, the
    ball spawned outside the timed region)."""
    table.load_active(None if active is None else set(active))
    table.spawn_ball(aim, table.table.base_radius + table.table.hand_span)
    c = table.client
    step = p.stepSimulation
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(swing_steps):
        step(physicsClientId=c)
    table.remove_ball()
    for _ in range(settle_steps):
        step(physicsClientId=c)
    return time.perf_counter() - t0, time.process_time() - c0


def measure(runs: int = 5, layout_path: Path = LAYOUT) -> dict[str, Any]:
    """Run the passes and the bare loops; return raw figures (lists of ms) and medians."""
    layout = load_layout(layout_path, "fast")
    clean: list[float] = []
    hit: list[float] = []
    ratios, rebuild, steps = [], [], []
    clean_cpu: list[float] = []
    hit_cpu: list[float] = []
    wall_ratios = []
    with SunTable.from_layout(layout) as table:
        snap = table.snapshot()
        for _ in range(runs):
            for aims, bucket, cpu_bucket in ((CLEAN_AIMS_DEG, clean, clean_cpu), (HIT_AIMS_DEG, hit, hit_cpu)):
                for aim_deg in aims:
                    aim = math.radians(aim_deg)
                    table.restore(snap)
                    t0 = time.perf_counter()
                    table.ensure_world()
                    rebuild.append(1000 * (time.perf_counter() - t0))
                    c0 = time.process_time()
                    res = table.pass_ball(aim)
                    cpu = time.process_time() - c0
                    active = table.active
                    bucket.append(1000 * res.wall_s)
                    cpu_bucket.append(1000 * cpu)
                    steps.append(res.steps)
                    table.restore(snap)
                    bare_wall, bare_cpu = _bare(table, aim, res.swing_steps, res.steps - res.swing_steps, active)
                    ratios.append(cpu / bare_cpu)
                    wall_ratios.append(res.wall_s / bare_wall)
    return {"pass_clean_ms": statistics.median(clean), "pass_hit_ms": statistics.median(hit),
            "pass_overhead_ratio": statistics.median(ratios), "rebuild_ms": statistics.median(rebuild),
            "pass_clean_cpu_ms": statistics.median(clean_cpu), "pass_hit_cpu_ms": statistics.median(hit_cpu),
            "pass_overhead_ratio_wall": statistics.median(wall_ratios),
            "raw": {"clean_ms": clean, "hit_ms": hit, "clean_cpu_ms": clean_cpu, "hit_cpu_ms": hit_cpu,
                    "ratios": ratios, "wall_ratios": wall_ratios, "steps": steps}}


def benchmarks(quick: bool = False) -> list[dict[str, Any]]:
    """The Sun's figures for ``stonelab bench``: ``{"game", "metric", "value", "unit"}`` dicts."""
    m = measure(runs=3 if quick else 7)
    return [
        {"game": "sun", "metric": "pass_clean_ms", "value": float(m["pass_clean_ms"]), "unit": "ms"},
        {"game": "sun", "metric": "pass_hit_ms", "value": float(m["pass_hit_ms"]), "unit": "ms"},
        {"game": "sun", "metric": "pass_overhead_ratio", "value": float(m["pass_overhead_ratio"]), "unit": "ratio"},
        {"game": "sun", "metric": "pass_overhead_ratio_wall", "value": float(m["pass_overhead_ratio_wall"]),
         "unit": "ratio"},
        {"game": "sun", "metric": "rebuild_ms", "value": float(m["rebuild_ms"]), "unit": "ms"},
        {"game": "sun", "metric": "pass_clean_cpu_ms", "value": float(m["pass_clean_cpu_ms"]), "unit": "ms"},
        {"game": "sun", "metric": "pass_hit_cpu_ms", "value": float(m["pass_hit_cpu_ms"]), "unit": "ms"},
        # whole games on the table (careful agents, 32 stones, fast preset) and the rules alone
        *game_bench.benchmarks(quick=quick),
    ]


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(benchmarks(), indent=2))
