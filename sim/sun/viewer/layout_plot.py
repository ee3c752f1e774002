"""A picture of a *Stonehenge and the Sun* layout without any physics (``stonelab sun show``).

Two panels: the table from above (base, ring, stones at true size coloured by shape, stacked
positions outlined and marked "x2", gates as lintels across their supports, every gap of the ring
marked passable or not with its clear width) and a 3-D view of the same boxes. Geometry comes from
the layout and ``sim.sun.geometry.ring`` (the engine's gaps and passability); poses are the nominal ones a
layout file describes, with gates laid across their supports' tops like the table lays them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.sun.table.layout import Layout, layout_ring
from sim.sun.geometry.ring import Geometry
from sim.sun.viewer.replay import BASE_COLOUR, SHAPE_COLOURS, STONE_COLOUR

PASSABLE_COLOUR = "#1a9850"
NARROW_COLOUR = "#d73027"
LOW_GATE_COLOUR = "#f08c00"


@dataclass(frozen=True)
class Box:
    """A stone as a box: centre (m), yaw (rad) of its local x axis, sizes along local x, y, z (m)."""

    key: str
    shape: str
    centre: tuple[float, float, float]
    yaw: float
    size: tuple[float, float, float]
    level: int  # 1 standing, 2 stacked, 0 gate

    def corners(self) -> np.ndarray:
        """The 8 corners (8 x 3, m): bottom face then top face, counter-clockwise."""
        hx, hy, hz = (0.5 * s for s in self.size)
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        out = []
        for z in (-hz, hz):
            for x, y in ((-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)):
                out.append((self.centre[0] + c * x - s * y, self.centre[1] + s * x + c * y, self.centre[2] + z))
        return np.array(out)


def layout_boxes(layout: Layout) -> list[Box]:
    """Every stone of a layout as a :class:`Box` at its nominal pose: standing and stacked stones at
    their angle on the ring (local x radial), gates lying across the tops of their two supports
    (length along the chord, the larger cross-section side radial), keys ``stone:i`` and ``gate:k``."""
    R = layout.table.ring_radius
    boxes: list[Box] = []
    for i, s in enumerate(layout.stones):
        shp = layout.shapes[s.shape]
        a = s.angle_rad
        z0 = 0.0
        if s.level == 2:
            below = next(j for j, t in enumerate(layout.stones)
                         if t.level == 1 and abs((t.angle_deg - s.angle_deg + 180.0) % 360.0 - 180.0) <= 1e-6)
            z0 = layout.shapes[layout.stones[below].shape].height
        boxes.append(Box(f"stone:{i}", s.shape, (R * math.cos(a), R * math.sin(a), z0 + 0.5 * shp.height), a,
                         (shp.depth, shp.width, shp.height), s.level))
    for k, g in enumerate(layout.gates):
        shp = layout.shapes[g.shape]
        a1, a2 = (layout.stones[j].angle_rad for j in g.between)
        p1 = np.array([R * math.cos(a1), R * math.sin(a1)])
        p2 = np.array([R * math.cos(a2), R * math.sin(a2)])
        mid = 0.5 * (p1 + p2)
        yaw = math.atan2(p2[1] - p1[1], p2[0] - p1[0])
        top = max(layout.stack_top_height(g.between[0]), layout.stack_top_height(g.between[1]))
        boxes.append(Box(f"gate:{k}", g.shape, (float(mid[0]), float(mid[1]), top + 0.5 * shp.lintel_thickness), yaw,
                         (shp.lintel_length, shp.lintel_depth, shp.lintel_thickness), 0))
    return boxes


def gap_marks(layout: Layout) -> list[dict[str, Any]]:
    """Each gap of the ring for drawing: opening (rad), width (m), passable, and why not
    (``"narrow"`` or ``"low gate"``), from ``sim.sun.geometry.ring`` (the engine's definition)."""
    ring = layout_ring(layout)
    if ring.n < 2:
        return []
    geom = Geometry(layout.table, layout.ball, layout.shapes)
    out = []
    for i in range(ring.n):
        ok = ring.passable(i, geom)
        why = "" if ok else ("narrow" if ring.width[i] < geom.pass_width else "low gate")
        out.append({"start": ring.start[i], "end": ring.end[i], "middle": ring.middle(i), "width": ring.width[i],
                    "passable": ok, "why": why, "gated": ring.under[i] is not None, "key": ring.keys[i]})
    return out


def plot_layout(layout: Layout, path: str | Path, title: str = "") -> Path:
    """Draw ``layout`` from above and in 3-D; write a PNG to ``path`` and return it.

    Raises:
        OSError: the file cannot be written.
    """
    # start-up: matplotlib with mplot3d adds 480 ms, paid only when a layout is drawn (CPU, python -X importtime)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, Patch, Polygon
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    t = layout.table
    boxes = layout_boxes(layout)
    gaps = gap_marks(layout)
    geom = Geometry(layout.table, layout.ball, layout.shapes)
    mm = 1000.0  # the pictures are in millimetres: the unit a designer measures stones in
    fig = plt.figure(figsize=(13.5, 6.6))
    ax = fig.add_subplot(1, 2, 1)
    ax3 = fig.add_subplot(1, 2, 2, projection="3d")

    # ---- from above ----
    ax.add_patch(Circle((0, 0), t.base_radius * mm, color=BASE_COLOUR, alpha=0.25, zorder=0))
    ax.add_patch(Circle((0, 0), t.base_radius * mm, fill=False, color=BASE_COLOUR, lw=1.5, zorder=1))
    ax.add_patch(Circle((0, 0), t.ring_radius * mm, fill=False, ls=":", color="0.35", lw=0.8, zorder=1))
    gap_r = (t.ring_radius - 0.5 * max(s.depth for s in layout.shapes.values())) * mm - 6.0
    for g in gaps:
        colour = PASSABLE_COLOUR if g["passable"] else (NARROW_COLOUR if g["why"] == "narrow" else LOW_GATE_COLOUR)
        span = (g["end"] - g["start"]) % (2 * math.pi) if g["end"] - g["start"] < 2 * math.pi else 2 * math.pi
        arc = np.linspace(g["start"], g["start"] + span, 40)
        ax.plot(gap_r * np.cos(arc), gap_r * np.sin(arc), color=colour, lw=3.5, solid_capstyle="butt", zorder=2)
        w = "open" if math.isinf(g["width"]) else f"{g['width'] * mm:.0f}"
        rt = gap_r - 13.0
        ax.text(rt * math.cos(g["middle"]), rt * math.sin(g["middle"]), w, color=colour, fontsize=7.5,
                ha="center", va="center", fontweight="bold", zorder=3)
    for b in boxes:
        c = b.corners()[4:, :2] * mm
        face = SHAPE_COLOURS.get(b.shape, STONE_COLOUR)
        if b.level == 0:
            ax.add_patch(Polygon(c, closed=True, fc=face, ec="k", lw=1.0, alpha=0.55, hatch="///", zorder=5))
            # a lintel's index is the table's (stones first, then gates): the one `stonelab stability`
            # and the pass results name when it falls
            k = int(b.key.split(":")[1])
            ax.text(b.centre[0] * mm, b.centre[1] * mm, str(len(layout.stones) + k), fontsize=6.5, ha="center",
                    va="center", zorder=6, bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                                 "alpha": 0.85})
            continue
        ax.add_patch(Polygon(c, closed=True, fc=face, ec="k" if b.level == 1 else "#7b2cbf",
                             lw=0.8 if b.level == 1 else 2.2, zorder=4 if b.level == 1 else 4.5))
        i = int(b.key.split(":")[1])
        if b.level == 1:
            a = layout.stones[i].angle_rad
            rl = (t.base_radius + 0.012) * mm
            ax.text(rl * math.cos(a), rl * math.sin(a), str(i), fontsize=7.5, ha="center", va="center", zorder=6)
        else:
            ax.text(b.centre[0] * mm, b.centre[1] * mm, f"x2\n({i})", fontsize=5.5, ha="center", va="center",
                    color="#3c096c", zorder=6)
    lim = (t.base_radius + 0.022) * mm
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.set_xlabel("x (mm)")
    ax.set_ylabel("y (mm)")
    ax.plot([0, (t.base_radius + 0.004) * mm], [0, 0], color="0.6", lw=0.6, zorder=1)
    ax.text((t.base_radius + 0.005) * mm, -4, "0°", fontsize=7, color="0.4", va="top")
    ax.set_title("from above: numbers are stone indices (lintels on their gate), gap widths in mm", fontsize=10)
    handles: list[Any] = [Patch(fc=SHAPE_COLOURS[n], ec="k",
                     label=f"{n} {layout.shapes[n].width * mm:.0f}×{layout.shapes[n].depth * mm:.0f}"
                           f"×{layout.shapes[n].height * mm:.0f} mm") for n in SHAPE_COLOURS if n in layout.shapes]
    handles += [Patch(fc="white", ec="#7b2cbf", lw=2.2, label="stacked (x2)"),
                Patch(fc="0.8", ec="k", hatch="///", label="gate (lintel)"),
                Line2D([], [], color=PASSABLE_COLOUR, lw=3.5,
                       label=f"passable gap (≥ {geom.pass_width * mm:.0f} mm"
                             f"{', gate ≥ ' + format(geom.gate_clear_z * mm, '.0f') + ' mm high' if layout.gates else ''})"),
                Line2D([], [], color=NARROW_COLOUR, lw=3.5, label="too narrow for the ball")]
    if any(g["why"] == "low gate" for g in gaps):
        handles.append(Line2D([], [], color=LOW_GATE_COLOUR, lw=3.5, label="gate too low for the ball"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(-0.02, -0.09), ncol=3, fontsize=7.5, frameon=False)

    # ---- 3-D ----
    theta = np.linspace(0, 2 * math.pi, 73)
    ring = np.column_stack([t.base_radius * np.cos(theta), t.base_radius * np.sin(theta)]) * mm
    top = [[(x, y, 0.0) for x, y in ring]]
    bottom = [[(x, y, -t.base_thickness * mm) for x, y in ring]]
    ax3.add_collection3d(Poly3DCollection(top + bottom, facecolor=BASE_COLOUR, alpha=0.35, edgecolor="none"))
    faces_idx = ((0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7))
    for b in boxes:
        c = b.corners() * mm
        faces = [[tuple(c[k]) for k in f] for f in faces_idx]
        ax3.add_collection3d(Poly3DCollection(faces, facecolor=SHAPE_COLOURS.get(b.shape, STONE_COLOUR),
                                              edgecolor="k", linewidths=0.4, alpha=1.0 if b.level else 0.9))
    hmax = max([b.centre[2] + 0.5 * b.size[2] for b in boxes], default=0.05) * mm
    r = t.base_radius * mm
    ax3.set_xlim(-r, r)
    ax3.set_ylim(-r, r)
    ax3.set_zlim(-t.base_thickness * mm, max(hmax, 0.05 * mm))
    ax3.set_box_aspect((2 * r, 2 * r, max(hmax, 0.05 * mm) + t.base_thickness * mm))
    ax3.view_init(elev=28, azim=-60)
    ax3.set_xlabel("x (mm)")
    ax3.set_ylabel("y (mm)")
    ax3.set_zlabel("z (mm)")
    ax3.set_title("3-D, true size (mm)", fontsize=10)

    n1 = sum(1 for s in layout.stones if s.level == 1)
    n2 = len(layout.stones) - n1
    npass = sum(g["passable"] for g in gaps)
    fig.suptitle(f"{title or 'layout'}: {n1} positions, {n2} stacked, {len(layout.gates)} gates; "
                 f"{npass} of {len(gaps)} gaps passable" if gaps else f"{title or 'layout'}: "
                 f"{len(layout.stones)} stone{'' if len(layout.stones) == 1 else 's'}, every angle open", fontsize=12)
    fig.subplots_adjust(left=0.05, right=0.98, top=0.9, bottom=0.17, wspace=0.08)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.savefig(out, dpi=100)
    finally:
        plt.close(fig)
    return out
