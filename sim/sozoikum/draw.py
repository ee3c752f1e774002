"""Drawing of one Sozoikum house build with matplotlib (I/O lives here, not in house.py).

Four panels share axes, in the order the hand builds: (1) both bottom stones released; (2) both
top stones released on the settled bottoms; (3) the roof released on the settled walls; (4) the
end, with every stone's release outline dashed, an arrow from its release centroid to its final
centroid and its displacement in cm (red beyond the tolerance; such a stone is also hatched).
Stones are coloured by role: wall A blues, wall B greens, roof red.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from sim.sozoikum.house import ROLE_NAMES, ROLES, HouseResult, Pose, fallen_roles
from sim.sozoikum.shapes import rotate

COLOURS = {"A1": "#3b6fb6", "A2": "#8fb3e3", "B1": "#2f8f4e", "B2": "#93d1a6", "roof": "#c8553d"}


def _outline(verts: Sequence[tuple[float, float]], pose: Pose) -> np.ndarray:
    v = rotate(tuple(verts), pose.angle) + np.array([pose.x, pose.y])
    return np.vstack([v, v[:1]])


def draw_house(
    result: HouseResult,
    path: str | Path,
    *,
    title: str = "",
    tolerance: float = 1.0,
    fall_tilt: float = 20.0,
    verdict: HouseResult | None = None,
) -> Path:
    """Write a PNG (or any matplotlib format, by suffix) of ``result`` to ``path``; return the path.

    Stones that fell (moved more than ``tolerance`` cm, turned more than ``fall_tilt`` degrees, or
    a top stone / the roof on the ground) are hatched.
    ``verdict`` is the game's own build of the same house (which stops when a stone reaches the ground)
    when ``result`` is a full simulation drawn to show the whole fall; its verdict is the title.

    Raises:
        OSError: the file cannot be written.
    """
    # start-up: matplotlib.pyplot adds 480 ms, paid only when a house is drawn (CPU, python -X importtime)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon

    verts = dict(zip(ROLES, result.verts))
    final = dict(zip(ROLES, result.final))
    placed = dict(zip(ROLES, result.placed))
    disp = dict(zip(ROLES, result.displacement))
    fallen = set(fallen_roles(result, tolerance, fall_tilt))
    stages = list(result.stages) or [placed]
    panels = [
        (st, name)
        for st, name in zip(
            stages,
            ("1. bottom stones released", "2. top stones released on the settled bottoms", "3. roof released on the settled walls"),
        )
    ] + [(final, "4. after settling: displacement from release")]
    pts = np.vstack([_outline(verts[r], p) for st, _ in panels for r, p in st.items()])
    xmin, xmax = pts[:, 0].min() - 1.0, pts[:, 0].max() + 1.0
    ymax = pts[:, 1].max() + 1.0

    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True, sharey=True, layout="constrained")
    for ax, (poses, name) in zip(axes.flat, panels):
        last = poses is final
        ax.axhspan(-1.0, 0.0, color="#b9a88c")
        ax.axhline(0.0, color="#6b5b45", lw=1)
        for r, pose in poses.items():
            fell = last and r in fallen
            ax.add_patch(
                Polygon(_outline(verts[r], pose), closed=True, facecolor=COLOURS[r], edgecolor="black",
                        lw=1.0, alpha=0.9, hatch="//" if fell else None)
            )
            ax.text(pose.x, pose.y, r, ha="center", va="center", fontsize=8)
        if last:
            for r in ROLES:
                p, f, d = placed[r], final[r], disp[r]
                ghost = _outline(verts[r], p)
                ax.plot(ghost[:, 0], ghost[:, 1], ls="--", lw=0.9, color=COLOURS[r])
                if d > 0.05:
                    ax.annotate("", xy=(f.x, f.y), xytext=(p.x, p.y), arrowprops=dict(arrowstyle="->", color="black", lw=1))
                ax.text(f.x, f.y - 0.45, f"{d:.2f} cm", ha="center", va="top", fontsize=7,
                        color="red" if d > tolerance else "black",
                        bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.8))
        ax.set_title(name, fontsize=10)
        ax.set_aspect("equal")
        ax.set_xlim(xmin, xmax)
        ax.set_ylim(-1.0, ymax)
    for ax in axes[1]:
        ax.set_xlabel("x (cm)")
    for ax in axes[:, 0]:
        ax.set_ylabel("y (cm)")
    judged = verdict if verdict is not None else result
    verdict_text = "STANDS" if judged.stood else f"COLLAPSED: {judged.reason}"
    legend = ", ".join(f"{r} = {ROLE_NAMES[r]}" for r in ROLES)
    fig.suptitle(
        f"{title}\n{verdict_text}  (tolerance {tolerance:g} cm, fall tilt {fall_tilt:g} deg; drawing: "
        f"{result.sim_time:.2f} s simulated)\n{legend}",
        fontsize=10,
    )
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
