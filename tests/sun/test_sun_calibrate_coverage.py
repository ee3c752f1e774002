"""Coverage of the calibration's 95 % intervals on logs drawn by the physics (docs/playtest-log.md, "Measured").

The logs are drawn here, by code that shares nothing with the fit or with ``simulate_log``: its
own random streams, its own noise (aim, release distance and a push in both horizontal
directions, normal), its own reading of a pass's outcome. Twenty logs per hand; each 95 %
interval must cover its truth at least 17 times in 20 (a binomial(20, 0.95) falls below 17 with
probability 1.6 %), the fit of a hand whose ratio of aim to push is the base's must seldom warn,
and the fit of one whose ratio differs must warn. Slow (about 13,000 physics passes, on two
processes).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pytest

#: name: (sigma_aim_deg, sigma_push_mps, fit mode); the release sigma is casual's 20 mm throughout.
HANDS = {"casual": (1.2, 0.012, "scale"), "2x casual": (2.4, 0.024, "scale"),
         "aim-heavy": (2.4, 0.006, "aim,push"), "push-heavy": (0.6, 0.024, "aim,push")}
SIGMA_RELEASE_M = 0.02
WIDTHS_MM = (42.0, 50.0)
OFFSETS_MM = (0.0, 4.0, -4.0)
PASSES = 120
LOGS = 20


def _draw_log(hand: str, j: int) -> list[tuple[float, float, str]]:
    """One log of ``hand``: PASSES passes alternating the widths, offsets cycling (physics)."""
    from sim.sun.players.calib_physics import two_gap_layout
    from sim.sun.table.layout import Layout
    from sim.sun.table.sun_table import SunTable
    from sim.sun.players.thrower import ThrowNoise

    sa_deg, sp, _ = HANDS[hand]
    rng = np.random.default_rng([7_202_612, list(HANDS).index(hand), j])
    R = Layout().table.ring_radius
    out = []
    tables = {w: SunTable.from_layout(two_gap_layout(w / 1000.0)) for w in WIDTHS_MM}
    try:
        starts = {w: t.snapshot() for w, t in tables.items()}
        for i in range(PASSES):
            w = WIDTHS_MM[i % len(WIDTHS_MM)]
            off = OFFSETS_MM[(i // len(WIDTHS_MM)) % len(OFFSETS_MM)]
            aim, rel, px, py = rng.normal(0.0, [math.radians(sa_deg), SIGMA_RELEASE_M, sp, sp])
            t = tables[w]
            t.restore(starts[w])
            res = t.pass_ball(off / 1000.0 / R, None, ThrowNoise(math.degrees(float(aim)), float(rel), float(px), float(py)))
            causes = {pen.cause for pen in res.penalties}
            out.append((w, off, "clean" if not causes else ("pushed_off" if "pushed_off" in causes else "knocked")))
    finally:
        for t in tables.values():
            t.close()
    return out


def _table(w: float) -> Any:
    from sim.sun.players.calibrate import outcome_table

    return outcome_table(w)


def _fit(rows: list[tuple[float, float, str]], mode: str, tables: dict[float, Any]) -> dict[str, Any]:
    from sim.sun.players.calibrate import fit
    from sim.sun.players.playtest_log import PassRecord, PlaytestLog
    from sim.sun.players.thrower import skill

    log = PlaytestLog("coverage", [PassRecord(w, off, o, i) for i, (w, off, o) in enumerate(rows)])
    res = fit(log, skill("casual"), mode, tables=tables)
    return {"estimates": {e.name: (e.value, e.low, e.high, e.bound) for e in res.estimates},
            "warns": bool(res.warnings), "ratio_p": res.ratio_p, "gof_p": res.gof_p}


@pytest.mark.slow
def test_intervals_cover_the_truth_and_the_fit_warns_when_the_ratio_differs() -> None:
    workers = min(2, os.cpu_count() or 1)
    with ProcessPoolExecutor(workers) as pool:
        tables = dict(zip(WIDTHS_MM, pool.map(_table, WIDTHS_MM)))
        keys = [(h, j) for h in HANDS for j in range(LOGS)]
        logs = dict(zip(keys, pool.map(_draw_log, *zip(*keys))))
        jobs = [(k, HANDS[k[0]][2]) for k in keys] + [(k, "scale") for k in keys if HANDS[k[0]][2] != "scale"]
        fits = dict(zip(jobs, pool.map(_fit, [logs[k] for k, _ in jobs], [m for _, m in jobs],
                                       [tables] * len(jobs))))
    report = []
    failures = []
    for hand, (sa, sp, mode) in HANDS.items():
        own = [fits[((hand, j), mode)] for j in range(LOGS)]
        truth = {"sigma_aim_deg": sa, "sigma_push_mps": sp}
        if mode == "scale":
            truth = {"scale": sa / 1.2}
        for name, v in truth.items():
            est = [f["estimates"][name] for f in own]
            covered = sum(lo <= v <= hi for _, lo, hi, _ in est)
            mean = float(np.mean([e[0] for e in est if not e[3]])) if any(not e[3] for e in est) else math.nan
            report.append(f"{hand} {mode} {name}: covers {v:g} in {covered}/{LOGS}, mean estimate {mean:.4g} "
                          f"({mean / v:.3f} x truth), bounds only {sum(bool(e[3]) for e in est)}")
            if covered < 17:
                failures.append(report[-1])
        scale_fits = [fits[((hand, j), "scale")] for j in range(LOGS)]
        warns = sum(f["warns"] for f in scale_fits)
        report.append(f"{hand} scale mode: warns in {warns}/{LOGS}")
        if mode == "scale" and warns > 4:
            failures.append(f"{hand}: the base's ratio, yet the fit warns in {warns}/{LOGS}")
        if mode != "scale" and warns < 17:
            failures.append(f"{hand}: a ratio of aim to push unlike the base's, yet the fit warns in only {warns}/{LOGS}")
    print("\n".join(report))
    assert not failures, "\n".join(failures + ["---"] + report)
