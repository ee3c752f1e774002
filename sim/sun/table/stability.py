"""Layout stability tests of *Stonehenge and the Sun* (``stonelab stability``) and physics checks.

Three tests of one layout:

1. **settle**: the table left alone for 10 s with every stone kept awake (sleeping would make the
   answer trivially zero); the largest drift of any stone's centre, in mm.
2. **bump**: the smallest horizontal velocity kick that makes a stone fall (any penalty), found by
   bisection per direction. The kick gives every stone the same velocity relative to the base at
   once, which is what a sudden jerk of the base by the opposite velocity does, seen from the base.
3. **aim sweep**: for aims all round the ring (every ``step_deg``), ``trials`` noisy passes each at
   the thrower's skill; the expected penalties and the chance of a clean pass per aim, drawn as a
   polar plot with the stones, and the stones most often lost.

Also :func:`tipping_angle_deg`, the analytic check of the contact model (a block on a tilted plane
tips at atan(width / height)).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.progress import Progress, announce
from sim.sun.table.layout import Layout, PhysicsSpec
from sim.sun.table.sun_table import SunTable
from sim.sun.players.thrower import Thrower
import pybullet as p
from sim.sun.geometry.palette import SHAPE_COLOURS, STONE_COLOUR

#: most noisy passes per aim ``stonelab stability`` accepts: 36 aims x 10,000 passes is about two hours
#: at the fast preset; more is a typing error, not a study (a study belongs in a scenario run)
MAX_TRIALS = 10_000


def settle_test(layout: Layout, duration_s: float = 10.0, preset: str | None = None) -> dict[str, Any]:
    """Largest drift (mm) of any stone over ``duration_s`` untouched, stones kept awake.

    Returns:
        ``{"duration_s", "max_drift_mm", "worst_stone", "drift_mm": {id: mm}}``.
    """
    with SunTable.from_layout(layout, preset) as t:
        start = t.read_poses()
        t.wake_all()
        t.step(int(round(duration_s * t.physics.hz)))
        end = t.read_poses()
    drift = {sid: 1000.0 * math.dist(start[sid][0], end[sid][0]) for sid in start}
    worst = max(drift, key=lambda k: drift[k], default=None)
    return {"duration_s": duration_s, "max_drift_mm": drift[worst] if worst is not None else 0.0,
            "worst_stone": worst, "drift_mm": drift}


def bump_test(layout: Layout, directions: int = 8, vmax_mps: float = 1.0, tol_mps: float = 0.005,
              preset: str | None = None) -> dict[str, Any]:
    """Smallest kick (m/s) that makes any stone fall, by bisection in each of ``directions`` directions.

    Returns:
        ``{"min_kick_mps", "direction_deg", "first_lost": [...], "per_direction": [...]}``;
        ``min_kick_mps`` is ``None`` if nothing falls even at ``vmax_mps``.
    """
    per: list[dict[str, Any]] = []
    with SunTable.from_layout(layout, preset) as t:
        snap = t.snapshot()
        if not snap.stones:
            return {"min_kick_mps": None, "direction_deg": None, "first_lost": [], "per_direction": []}

        def falls(v: float, ang: float) -> list[Any]:
            t.restore(snap)
            pen, _ = t.shake(v * math.cos(ang), v * math.sin(ang))
            return pen

        for k in range(directions):
            ang = 2.0 * math.pi * k / directions
            pen_hi = falls(vmax_mps, ang)
            if not pen_hi:
                per.append({"direction_deg": math.degrees(ang), "kick_mps": None, "lost": []})
                continue
            lo, hi = 0.0, vmax_mps
            while hi - lo > tol_mps:
                mid = 0.5 * (lo + hi)
                pen = falls(mid, ang)
                if pen:
                    hi, pen_hi = mid, pen
                else:
                    lo = mid
            per.append({"direction_deg": math.degrees(ang), "kick_mps": hi, "lost": [x.as_dict() for x in pen_hi]})
    found = [d for d in per if d["kick_mps"] is not None]
    if not found:
        return {"min_kick_mps": None, "direction_deg": None, "first_lost": [], "per_direction": per}
    best = min(found, key=lambda d: d["kick_mps"])
    return {"min_kick_mps": best["kick_mps"], "direction_deg": best["direction_deg"], "first_lost": best["lost"],
            "per_direction": per}


def aim_sweep(layout: Layout, thrower: Thrower, trials: int, seed: int, step_deg: float = 10.0,
              release_m: float | None = None, preset: str | None = None, progress: bool = False) -> dict[str, Any]:
    """Noisy passes at aims all round the ring (``progress``: passes done and time left on stderr).

    Randomness: aim ``i`` uses ``default_rng(SeedSequence(seed, spawn_key=(i,)))``, so each aim's
    draws depend only on the seed and the aim's index.

    Returns:
        ``{"step_deg", "trials", "aims": [{"aim_deg", "expected_penalties", "p_clean", "p_through",
        "invalid"}], "most_lost": [{"stone", "shape", "role", "angle_deg", "lost", "rate"}], "passes"}``; a
        stone is named by its table id (layout stones by file index, then the gates' lintels: the
        numbers `stonelab sun show` draws), ``role`` is ``stand``, ``stack`` or ``gate``.
    """
    aims = np.arange(0.0, 360.0, step_deg)
    rows = []
    lost: Counter[int] = Counter()
    # from 0 %: the sweep is most of a stability run, which takes longer than a glance
    bar = Progress(len(aims) * trials, "aim sweep", enabled=progress, unit="passes")
    with bar, SunTable.from_layout(layout, preset) as t:
        snap = t.snapshot()
        info = {s.id: s for s in snap.stones}
        for i, aim in enumerate(aims):
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,)))
            pens = clean = through = invalid = 0
            for _ in range(trials):
                t.restore(snap)
                r = t.pass_ball(math.radians(float(aim)), release_m, thrower.draw_pass(rng))
                pens += len(r.penalties)
                clean += r.clean
                through += r.through_aim_gap
                invalid += r.invalid
                lost.update(x.stone for x in r.penalties)
                bar.advance()
            rows.append({"aim_deg": float(aim), "expected_penalties": pens / trials, "p_clean": clean / trials,
                         "p_through": through / trials, "invalid": invalid})
    n = len(aims) * trials
    # in [0, 360), and a hair under 360 (an angle of -1e-9 rad) as 0: it printed as "360 deg"
    most = [{"stone": sid, "shape": info[sid].shape, "role": info[sid].role,
             "angle_deg": (lambda d: 0.0 if d > 359.5 else d)(math.degrees(info[sid].angle) % 360.0),
             "lost": c, "rate": c / n} for sid, c in lost.most_common(10)]
    return {"step_deg": step_deg, "trials": trials, "passes": n, "aims": rows, "most_lost": most}


def plot_sweep(layout: Layout, sweep: dict[str, Any], path: str | Path, title: str = "") -> Path:
    """Draw the aim sweep as two polar panels (expected penalties, chance of a clean pass) with the
    stones of the layout marked at their angles; write a PNG.

    Returns:
        The path written.
    """
    # start-up: matplotlib.pyplot adds 250-270 ms (python -X importtime, cumulative): `stonelab stability`
    # without --plot does not load it
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    # the one palette of the stones (the replay viewer, the editor and `sun show` draw with it)
    aims = np.radians([r["aim_deg"] for r in sweep["aims"]])
    width = math.radians(sweep["step_deg"]) * 0.9
    exp_pen = np.array([r["expected_penalties"] for r in sweep["aims"]])
    p_clean = np.array([r["p_clean"] for r in sweep["aims"]])
    fig, axes = plt.subplots(1, 2, subplot_kw={"projection": "polar"}, figsize=(11, 5.5))
    top = max(1.0, float(exp_pen.max()) if len(exp_pen) else 1.0)
    for ax, values, label, rmax in ((axes[0], exp_pen, "stones lost per pass (mean)", top * 1.25),
                                    (axes[1], p_clean, "chance of a clean pass", 1.25)):
        ax.bar(aims, values, width=width, color="tab:red" if ax is axes[0] else "tab:green", alpha=0.7)
        for _i, s in enumerate(layout.stones):
            shp = s.shape
            r_mark = rmax * (0.92 if s.level == 1 else 0.98)
            ax.plot([s.angle_rad], [r_mark], marker="s", color=SHAPE_COLOURS.get(shp, STONE_COLOUR), mec="k",
                    mew=0.5, markersize=6 if s.level == 1 else 5)
        for g in layout.gates:
            a1 = layout.stones[g.between[0]].angle_rad
            a2 = layout.stones[g.between[1]].angle_rad
            d = (a2 - a1 + math.pi) % (2 * math.pi) - math.pi
            arc = np.linspace(a1, a1 + d, 12)
            ax.plot(arc, np.full_like(arc, rmax * 1.03), color="k", linewidth=2)
        ax.set_ylim(0, rmax * 1.06)
        # radial ticks only over the data's range: the band beyond it holds the stone markers
        data_top = top if ax is axes[0] else 1.0
        ax.set_yticks([t for t in ax.get_yticks() if 0 < t <= data_top + 1e-9])
        ax.set_title(label, pad=14)
    fig.suptitle(title or "aim sweep")
    shapes = sorted({s.shape for s in layout.stones} | {g.shape for g in layout.gates})
    handles = [Line2D([], [], ls="", marker="s", color=SHAPE_COLOURS.get(n, STONE_COLOUR), mec="k", mew=0.5,
                      markersize=7, label=n) for n in shapes]
    handles.append(Line2D([], [], color="k", lw=2, label="gate"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.04), title="stones at their angle (outer square: stacked); angle = aim azimuth",
               title_fontsize=8)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def run_stability(layout: Layout, trials: int, thrower: Thrower, seed: int, out_dir: str | Path | None = None,
                  step_deg: float = 10.0, settle_s: float = 10.0, directions: int = 8,
                  preset: str | None = None, progress: bool = False) -> dict[str, Any]:
    """All three tests; writes ``aim-sweep.png`` into ``out_dir`` when given.

    ``progress``: show the aim sweep's passes done and the time left on stderr.

    Returns:
        ``{"layout", "preset", "skill", "seed", "settle", "bump", "sweep", "plot"}`` (JSON-friendly).
    """
    lay = layout if preset is None else layout.with_preset(preset)
    announce("stability", f"settle test ({settle_s:g} s simulated)", progress)
    settle = settle_test(lay, settle_s)
    announce("stability", f"bump test ({directions} directions)", progress)
    bump = bump_test(lay, directions)
    sweep = aim_sweep(lay, thrower, trials, seed, step_deg, progress=progress)
    plot = None
    if out_dir is not None:
        name = Path(layout.source).stem if layout.source else "layout"
        plot = str(plot_sweep(lay, sweep, Path(out_dir) / f"{name}-aim-sweep.png",
                              f"{name}: {trials} passes per aim, skill {thrower.name}, seed {seed}"))
    settle = dict(settle)
    settle["drift_mm"] = {str(k): v for k, v in settle["drift_mm"].items()}
    return {"layout": layout.source, "preset": lay.physics.preset, "skill": thrower.name, "seed": seed,
            "settle": settle, "bump": bump, "sweep": sweep, "plot": plot}


def tipping_angle_deg(width: float, height: float, depth: float = 0.015, physics: PhysicsSpec | None = None,
                      friction: float = 1.5, tol_deg: float = 0.05, hold_s: float = 1.5) -> float:
    """Measured tilt (degrees) of a plane at which a block standing on it tips over.

    The plane stays horizontal and gravity is tilted instead (the same mechanics); a fresh world per
    trial, bisection on the angle. The block uses the table's contact settings (maximal coordinates,
    frictionAnchor, damping 0, contact threshold, preset rate and iterations); friction is high
    enough that the block never slides first (it must exceed width / height).

    Args:
        width: block size in the tipping direction (m).
        height: block height (m).
        depth: size across (m).
        physics: rate, iterations, contact threshold; default docs/sun-physics.md (fast preset).
        friction: pair friction coefficient.
        tol_deg: bisection tolerance.
        hold_s: simulated time per trial.

    Returns:
        The tipping angle in degrees (compare with atan(width / height)).
    """
    ph = physics or PhysicsSpec()
    mu = math.sqrt(friction)

    def tips(theta: float) -> bool:
        c = p.connect(p.DIRECT)
        try:
            p.setPhysicsEngineParameter(fixedTimeStep=ph.dt, numSolverIterations=ph.iterations,
                                        deterministicOverlappingPairs=1,
                                        contactBreakingThreshold=ph.contact_threshold, physicsClientId=c)
            g = ph.gravity
            p.setGravity(g * math.sin(theta), 0.0, -g * math.cos(theta), physicsClientId=c)
            gs = p.createCollisionShape(p.GEOM_BOX, halfExtents=[0.5, 0.5, 0.05], physicsClientId=c)
            gb = p.createMultiBody(0.0, gs, -1, [0, 0, -0.05], physicsClientId=c)
            p.changeDynamics(gb, -1, lateralFriction=mu, restitution=0.0, frictionAnchor=1, physicsClientId=c)
            bs = p.createCollisionShape(p.GEOM_BOX, halfExtents=[0.5 * width, 0.5 * depth, 0.5 * height],
                                        physicsClientId=c)
            bb = p.createMultiBody(700.0 * width * depth * height, bs, -1, [0, 0, 0.5 * height],
                                   useMaximalCoordinates=True, physicsClientId=c)
            p.changeDynamics(bb, -1, lateralFriction=mu, restitution=0.0, linearDamping=0.0, angularDamping=0.0,
                             frictionAnchor=1, activationState=p.ACTIVATION_STATE_DISABLE_SLEEPING, physicsClientId=c)
            for _ in range(int(hold_s * ph.hz)):
                p.stepSimulation(physicsClientId=c)
            q = p.getBasePositionAndOrientation(bb, physicsClientId=c)[1]
            up_z = p.getMatrixFromQuaternion(q)[8]
            return up_z < math.cos(math.radians(20.0))
        finally:
            p.disconnect(c)

    lo, hi = 0.0, math.radians(60.0)
    while math.degrees(hi - lo) > tol_deg:
        mid = 0.5 * (lo + hi)
        if tips(mid):
            hi = mid
        else:
            lo = mid
    return math.degrees(0.5 * (lo + hi))
