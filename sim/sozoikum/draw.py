"""Drawing of one Sozoikum house build with matplotlib (I/O lives here, not in house.py).

Two panels share axes: left, every stone where the hand released it; right, where it came to rest,
with the release outline dashed and an arrow from release centroid to final centroid. Stones are
coloured by role (wall A blue, wall B green, roof red); a stone that moved more than the tolerance
is drawn hatched and its displacement is labelled in red.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from sim.sozoikum.house import ROLE_NAMES, ROLES, HouseResult, Pose
from sim.sozoikum.stones import rotate

COLOURS = {"A1": "#3b6fb6", "A2": "#7fa7dd", "B1": "#2f8f4e", "B2": "#86c99a", "roof": "#c8553d"}


def _outline(verts: Sequence[tuple[float, float]], pose: Pose) -> np.ndarray:
    v = rotate(tuple(verts), pose.angle) + np.array([pose.x, pose.y])
    return np.vstack([v, v[:1]])


def draw_house(result: HouseResult, path: str | Path, *, title: str = "", tolerance: float = 1.0) -> Path:
    """Write a PNG (or any matplotlib format, by suffix) of ``result`` to ``path``; return the path.

    Raises:
        OSError: the file cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon

    fig, axes = plt.subplots(1, 2, figsize=(11, 5), sharex=True, sharey=True)
    allpts = np.vstack(
        [_outline(v, p) for v, p in zip(result.verts, result.placed)]
        + [_outline(v, p) for v, p in zip(result.verts, result.final)]
    )
    xmin, xmax = allpts[:, 0].min() - 1.5, allpts[:, 0].max() + 1.5
    ymax = allpts[:, 1].max() + 1.5
    for ax, poses, label in ((axes[0], result.placed, "released (before settling)"), (axes[1], result.final, "after settling")):
        ax.axhspan(-1.0, 0.0, color="#b9a88c")
        ax.axhline(0.0, color="#6b5b45", lw=1)
        for i, r in enumerate(ROLES):
            fell = result.displacement[i] > tolerance
            outline = _outline(result.verts[i], poses[i])
            ax.add_patch(
                Polygon(
                    outline,
                    closed=True,
                    facecolor=COLOURS[r],
                    edgecolor="black",
                    lw=1.0,
                    alpha=0.9,
                    hatch="//" if fell and poses is result.final else None,
                )
            )
            ax.text(poses[i].x, poses[i].y, r, ha="center", va="center", fontsize=8, color="black")
        ax.set_title(label)
        ax.set_aspect("equal")
        ax.set_xlim(xmin, xmax)
        ax.set_ylim(-1.0, ymax)
        ax.set_xlabel("x (cm)")
    axes[0].set_ylabel("y (cm)")
    ax = axes[1]
    for i, r in enumerate(ROLES):
        p, f = result.placed[i], result.final[i]
        ghost = _outline(result.verts[i], p)
        ax.plot(ghost[:, 0], ghost[:, 1], ls="--", lw=0.8, color=COLOURS[r])
        d = result.displacement[i]
        if d > 0.05:
            ax.annotate("", xy=(f.x, f.y), xytext=(p.x, p.y), arrowprops=dict(arrowstyle="->", color="black", lw=1))
        ax.text(
            f.x,
            f.y - 0.45,
            f"{d:.2f} cm",
            ha="center",
            va="top",
            fontsize=7,
            color="red" if d > tolerance else "black",
        )
    verdict = "STANDS" if result.stood else f"COLLAPSED: {result.reason}"
    legend = ", ".join(f"{r} = {ROLE_NAMES[r]}" for r in ROLES)
    fig.suptitle(f"{title}  {verdict}  (tolerance {tolerance:g} cm, {result.sim_time:.2f} s simulated)\n{legend}", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
