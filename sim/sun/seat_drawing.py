"""The Sun's table as the play page draws it: the base, the stones as they stand, the gaps the ball
can pass or not, each seat's markers and mark areas, and the moves of the seat to act as ghosts a
person clicks (``stonelab play``; docs/howto.md, "Play a game").

The drawing is data, not markup: a list of SVG primitives (``tag`` and attributes; ``move`` on the
clickable ones) in one oblique projection of the table, which the page turns into elements with
``setAttribute`` alone (sim/play/page.py). Seen from the -y side, ``elevation_deg`` above the base,
a point (x, y, z) in metres is drawn at

    sx = 1000 x,    sy = -1000 (y sin(e) + z cos(e))        (SVG units: mm, y down)

and lies at depth y cos(e) - z sin(e) (larger: farther, drawn first). :data:`PROJECTION` carries
``e`` to the page, which inverts the same formula on the base's plane (z = 0) to turn a click into
an angle on the table (a stand, the aim of a pass). No I/O and no physics: the stones are drawn at
the poses the rules hold, the ghosts where the rules' candidate moves would put them.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from sim.core.quaternions import quat_rotate
from sim.sun.actions import Gate, MoveMarker, Pass, Stack, Stand
from sim.sun.geometry.palette import (AIM_COLOUR, BLOCKED_COLOUR, PASSABLE_COLOUR, SEAT_COLOURS, SHAPE_COLOURS,
                                      STONE_COLOUR)
from sim.sun.position import GATE, STACK, STAND
from sim.sun.geometry.ring import Pose, pose_yaw

#: the view's elevation (deg above the base's plane): steep enough to see every gap, low enough
#: that stacks and gates show their height
ELEVATION_DEG = 55.0
_SIN = math.sin(math.radians(ELEVATION_DEG))
_COS = math.cos(math.radians(ELEVATION_DEG))
#: what the page needs to turn a click back into a point of the base (see the module docstring)
PROJECTION = {"elevation_deg": ELEVATION_DEG, "scale": 1000.0}
#: the ball's centre above the base at a release (m): where release points are drawn
BALL_Z = 0.01
#: Release points lie a hand span (20 cm by default) or more outside a base of 15 cm radius: drawn
#: to scale they would shrink the table to a third of the picture. They are drawn on a band just
#: outside the rim instead (m beyond the base edge: the least release at the first value, a
#: release :data:`RELEASE_SPREAD_M` larger or more at the second); the move's text, shown on
#: hover, gives the true distance.
RELEASE_BAND_M = (0.02, 0.045)
RELEASE_SPREAD_M = 0.2

Vec = tuple[float, float, float]
#: the 6 faces of a box by corner index (corner k: bit 0 -> +x, bit 1 -> +y, bit 2 -> +z), each with
#: its outward normal in the box's own axes
_FACES: tuple[tuple[tuple[int, int, int, int], Vec], ...] = (
    ((0, 2, 6, 4), (-1.0, 0.0, 0.0)), ((1, 5, 7, 3), (1.0, 0.0, 0.0)),
    ((0, 4, 5, 1), (0.0, -1.0, 0.0)), ((2, 3, 7, 6), (0.0, 1.0, 0.0)),
    ((0, 1, 3, 2), (0.0, 0.0, -1.0)), ((4, 6, 7, 5), (0.0, 0.0, 1.0)),
)
#: towards the viewer (a face is seen when its normal points this way)
_TO_VIEWER: Vec = (0.0, -_COS, _SIN)


def project(x: float, y: float, z: float) -> tuple[float, float]:
    """Where the page draws the point (x, y, z) (m), in SVG units (mm, y down)."""
    return 1000.0 * x, -1000.0 * (y * _SIN + z * _COS)


def _depth(x: float, y: float, z: float) -> float:
    return y * _COS - z * _SIN


def _pts(points: Sequence[tuple[float, float, float]]) -> str:
    return " ".join(f"{sx:.1f},{sy:.1f}" for sx, sy in (project(*p) for p in points))


def _shade(hex_colour: str, factor: float) -> str:
    """``hex_colour`` darkened (factor < 1) or lightened towards white (factor > 1)."""
    rgb = [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]
    if factor <= 1.0:
        out = [round(c * factor) for c in rgb]
    else:
        out = [round(c + (255 - c) * (factor - 1.0)) for c in rgb]
    return "#" + "".join(f"{max(0, min(255, c)):02x}" for c in out)


def _axes_of_quat(q: Sequence[float]) -> tuple[Vec, Vec, Vec]:
    """The body's local x, y, z axes in world coordinates (``q`` = x, y, z, w)."""
    ex, ey, ez = (quat_rotate(q, axis) for axis in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)))
    return ((float(ex[0]), float(ex[1]), float(ex[2])), (float(ey[0]), float(ey[1]), float(ey[2])),
            (float(ez[0]), float(ez[1]), float(ez[2])))


def _box(centre: Vec, axes: tuple[Vec, Vec, Vec], half: Vec, colour: str, extra: dict[str, Any]) -> list[dict[str, Any]]:
    """The faces of a box seen from the viewer: polygons shaded by their slope (top lightest)."""
    corners: list[Vec] = []
    for k in range(8):
        s = [1.0 if k & (1 << i) else -1.0 for i in range(3)]
        x, y, z = (centre[j] + sum(s[i] * half[i] * axes[i][j] for i in range(3)) for j in range(3))
        corners.append((x, y, z))
    out = []
    for idx, n_local in _FACES:
        n = tuple(sum(n_local[i] * axes[i][j] for i in range(3)) for j in range(3))
        facing = sum(n[j] * _TO_VIEWER[j] for j in range(3))
        if facing <= 1e-9:
            continue
        light = 1.15 if n[2] > 0.7 else (0.78 + 0.2 * facing)
        out.append({"tag": "polygon", "points": _pts([corners[i] for i in idx]), "fill": _shade(colour, light),
                    "stroke": _shade(colour, 0.55), "stroke-width": 0.6, **extra})
    return out


def _standing_axes(angle: float) -> tuple[Vec, Vec, Vec]:
    """Axes of a stone standing in the ring at ``angle`` (rad), facing the centre: depth radial,
    width along the ring, height up."""
    c, s = math.cos(angle), math.sin(angle)
    return ((c, s, 0.0), (-s, c, 0.0), (0.0, 0.0, 1.0))


def _arc(radius: float, a0: float, a1: float, z: float = 0.0, n: int = 24) -> str:
    """Points of the arc of ``radius`` (m) from ``a0`` counter-clockwise to ``a1`` (rad) at height ``z``."""
    span = (a1 - a0) % (2 * math.pi)
    return _pts([(radius * math.cos(a0 + span * k / n), radius * math.sin(a0 + span * k / n), z) for k in range(n + 1)])


def release_band_radius(release: float, least: float) -> float:
    """How far outside the base edge (m) the release ``release`` (m) is drawn, given the least
    release ``least`` (m): see :data:`RELEASE_BAND_M`."""
    lo, hi = RELEASE_BAND_M
    return lo + (hi - lo) * min(1.0, max(0.0, (release - least) / RELEASE_SPREAD_M))


def table_drawing(state: Any, seat: int) -> dict[str, Any]:
    """The drawing of ``state`` (a :class:`~sim.sun.rules.state.SunState`) for the person in ``seat``:
    ``{"view_box", "projection", "items", "pick", "choices", "legend", "caption"}``.

    ``items`` are drawn in order (far to near); those with ``move`` are the candidate moves of the
    seat to act, as their notation (the page plays the listed move of that text). ``choices`` are
    the shapes the person may place now: a ghost with ``choice`` is drawn only while that shape is
    chosen (three shapes at one spot would hide each other). ``pick`` says
    what a click elsewhere on the table means in the current phase, when it is the person's turn:
    ``{"kind": "stand", "template": "Stand({choice} at {angle} deg)"}`` (a stand of the chosen
    shape there, typed for the person to confirm) or ``{"kind": "aim", "field": "aim",
    "release_field": "release", "base_radius": R, "ball_z": z, "release_band": {...}, "colour": c,
    "aim_colour": c}`` (the azimuth clicked or dragged to fills the pass form's ``aim`` field, the
    page's release slider its ``release`` field, and the line of that pass is drawn from its release
    point, placed by ``release_band`` as :func:`release_band_radius` places it: ``near + (far -
    near) * clamp((release - least) / spread, 0, 1)`` m outside the base edge); None otherwise.
    An item's ``title`` is its hover text. ``legend`` names the colours drawn; ``caption`` says
    in words what is off the table (the field's stones, the penalty stones).
    """
    st = state
    g = st.geom
    t = g.table
    big_r = t.base_radius
    items: list[dict[str, Any]] = []
    # the base: its side (the front half of the disc's rim, base_thickness deep), then its top
    cx, cy = project(0.0, 0.0, 0.0)
    drop = 1000.0 * t.base_thickness * _COS
    rx, ry = 1000.0 * big_r, 1000.0 * big_r * _SIN
    items.append({"tag": "ellipse", "cx": cx, "cy": cy + drop, "rx": rx, "ry": ry, "fill": "#7a5534"})
    items.append({"tag": "rect", "x": cx - rx, "y": cy, "width": 2 * rx, "height": drop, "fill": "#7a5534"})
    items.append({"tag": "ellipse", "cx": cx, "cy": cy, "rx": rx, "ry": ry, "fill": "#b8895a", "stroke": "#5d4027",
                  "stroke-width": 1, "class": "base"})
    ring = st.ring()
    # the gaps, inside the ring: passable or not, as in the 3-D viewer
    if not ring.empty and ring.n > 1:
        band_r = t.ring_radius - 0.03
        for i in range(ring.n):
            a0, a1 = ring.pos[i].angle, ring.pos[(i + 1) % ring.n].angle
            ok = ring.passable(i, g)
            items.append({"tag": "polyline", "points": _arc(band_r, a0 + 0.06, a1 - 0.06), "fill": "none",
                          "stroke": PASSABLE_COLOUR if ok else BLOCKED_COLOUR, "stroke-width": 4,
                          "stroke-linecap": "round", "class": "gap " + ("passable" if ok else "blocked")})
    # each seat's mark areas along the rim (the gap its marker is in)
    for s in range(st.num_players):
        colour = SEAT_COLOURS[s % len(SEAT_COLOURS)]
        for gi in st.mark_areas(s, ring):
            if gi is None or ring.n < 2:
                continue
            a0, a1 = ring.pos[gi].angle, ring.pos[(gi + 1) % ring.n].angle
            items.append({"tag": "polyline", "points": _arc(big_r - 0.004, a0, a1), "fill": "none", "stroke": colour,
                          "stroke-width": 5, "opacity": 0.85, "class": f"area seat{s}"})
    # the stones on the table, far to near
    bodies = []
    for sid, role in enumerate(st.role):
        if role not in (STAND, STACK, GATE):
            continue
        pose: Pose = st.pose[sid]
        spec = g.shapes[st.shapes[sid]]
        colour = SHAPE_COLOURS.get(st.shapes[sid], STONE_COLOUR)
        extra = {"class": "stone", "title": f"#{sid} {st.shapes[sid]}"}
        bodies.append((_depth(*pose[:3]), _box(pose[:3], _axes_of_quat(pose[3:]),
                                                (spec.depth / 2, spec.width / 2, spec.height / 2), colour, extra)))
    for _, faces in sorted(bodies, key=lambda b: -b[0]):
        items.extend(faces)
    # the seat to act's moves, as ghosts
    to_act = st.current_player()
    ghosts = _ghosts(st, ring) if to_act >= 0 else []
    items.extend(ghosts)
    # the markers: a pin on the rim in the seat's colour
    for s in range(st.num_players):
        colour = SEAT_COLOURS[s % len(SEAT_COLOURS)]
        for a in st.markers[s]:
            x, y = (big_r - 0.004) * math.cos(a), (big_r - 0.004) * math.sin(a)
            (x0, y0), (x1, y1) = project(x, y, 0.0), project(x, y, 0.03)
            items.append({"tag": "line", "x1": x0, "y1": y0, "x2": x1, "y2": y1, "stroke": "#333", "stroke-width": 1.5})
            items.append({"tag": "circle", "cx": x1, "cy": y1, "r": 5, "fill": colour, "stroke": "#222",
                          "stroke-width": 1, "class": f"marker seat{s}"})
    reach = big_r + RELEASE_BAND_M[1] + 0.01
    sxs = [project(reach, 0, 0)[0], project(-reach, 0, 0)[0]]
    top = project(0.0, reach, 0.12)[1]
    bottom = project(0.0, -reach, -t.base_thickness)[1]
    pick: dict[str, Any] | None = None
    choices: list[str] = []
    if to_act == seat and st.phase == "place":
        choices = st.available_shapes()
        if choices:
            pick = {"kind": "stand", "template": "Stand({choice} at {angle} deg)"}
    elif to_act == seat and st.phase == "pass":
        pick = {"kind": "aim", "field": "aim", "release_field": "release", "base_radius": big_r, "ball_z": BALL_Z,
                "release_band": {"least": g.min_release, "spread": RELEASE_SPREAD_M, "near": RELEASE_BAND_M[0],
                                 "far": RELEASE_BAND_M[1]},
                "colour": SEAT_COLOURS[seat % len(SEAT_COLOURS)], "aim_colour": AIM_COLOUR}
    return {"view_box": [round(min(sxs), 1), round(top, 1), round(max(sxs) - min(sxs), 1), round(bottom - top + 5, 1)],
            "projection": PROJECTION, "items": items, "pick": pick, "choices": choices,
            "legend": _legend(st, seat, to_act), "caption": _caption(st, seat)}


def _caption(st: Any, seat: int) -> str:
    """What is off the table, in words: the stones left in the field by shape, and each seat's
    penalty stones (``in the field: 3 pillars, 1 block; penalty stones: seat 0 (you) 2, seat 1 0``)."""
    counts: dict[str, int] = {}
    for i in st.field_stones():
        counts[st.shapes[i]] = counts.get(st.shapes[i], 0) + 1
    field = ", ".join(f"{n} {shape}{'' if n == 1 else 's'}" for shape, n in counts.items()) or "none"
    pen = ", ".join(f"seat {s}" + (" (you)" if s == seat else "") + f" {n}" for s, n in enumerate(st.penalties()))
    return f"in the field: {field}; penalty stones: {pen}"


def _legend(st: Any, seat: int, to_act: int) -> list[dict[str, str]]:
    """What the drawing's colours mean, as ``{"colour", "words"}`` entries (the page draws a swatch
    and the words beside it): the seats, the gaps, and the ghosts and aim line when they are drawn."""
    out = [{"colour": SEAT_COLOURS[s % len(SEAT_COLOURS)],
            "words": f"seat {s}" + (" (you)" if s == seat else "") + ": marker (pin) and mark area (band on the rim)"}
           for s in range(st.num_players)]
    out += [{"colour": PASSABLE_COLOUR, "words": "gap the ball can pass"},
            {"colour": BLOCKED_COLOUR, "words": "gap the ball cannot pass"}]
    if to_act == seat and st.phase in ("place", "marker", "pass"):
        out.append({"colour": SEAT_COLOURS[seat % len(SEAT_COLOURS)],
                    "words": "dashed ghosts: your moves, click one to play it"})
    if to_act == seat and st.phase == "pass":
        out.append({"colour": AIM_COLOUR, "words": "your aim: the line from the release point through the centre"})
    return out


def _ghosts(st: Any, ring: Any) -> list[dict[str, Any]]:
    """The candidate moves of the seat to act, drawn where they would go (``move``: their notation)."""
    g = st.geom
    t = g.table
    out: list[dict[str, Any]] = []
    by_id = {p.id: p for p in ring.pos}
    colour = SEAT_COLOURS[st.seat % len(SEAT_COLOURS)]
    style = {"opacity": 0.55, "stroke-dasharray": "3,2", "cursor": "pointer"}
    for a in st.legal_actions():
        move = str(a)
        extra = {**style, "class": "ghost " + type(a).__name__.lower(), "move": move, "title": move}
        if isinstance(a, (Stand, Stack)):
            extra["choice"] = a.shape  # the page shows one shape's ghosts at a time
        if isinstance(a, Stand):
            spec = g.shapes[a.shape]
            ang = math.radians(a.angle)
            centre = (t.ring_radius * math.cos(ang), t.ring_radius * math.sin(ang), spec.height / 2)
            out.extend(_box(centre, _standing_axes(ang), (spec.depth / 2, spec.width / 2, spec.height / 2), colour, extra))
        elif isinstance(a, Stack) and a.on in st.pose:
            spec = g.shapes[a.shape]
            below = st.pose[a.on]
            base_spec = g.shapes[st.shapes[a.on]]
            z = below[2] + base_spec.height / 2 + spec.height / 2
            ang = pose_yaw(below)
            out.extend(_box((below[0], below[1], z), _standing_axes(ang), (spec.depth / 2, spec.width / 2, spec.height / 2),
                            colour, extra))
        elif isinstance(a, Gate) and a.a in by_id and a.b in by_id:
            spec = g.shapes[st.shapes[a.stone]]
            pa, pb = by_id[a.a], by_id[a.b]
            mid = pa.angle + ((pb.angle - pa.angle) % (2 * math.pi)) / 2
            z = max(pa.top_z, pb.top_z) + spec.depth / 2
            c, s = math.cos(mid), math.sin(mid)
            # lying on its broad face: its height along the ring, its width radial, its depth up
            axes = ((0.0, 0.0, 1.0), (c, s, 0.0), (-s, c, 0.0))
            centre = (t.ring_radius * c, t.ring_radius * s, z)
            out.extend(_box(centre, axes, (spec.depth / 2, spec.width / 2, spec.height / 2), colour, extra))
        elif isinstance(a, MoveMarker):
            after = st.clone()
            after.apply_action(a)
            ang = after.markers[st.seat][a.marker]
            r = t.base_radius - 0.004
            x0, y0 = project(r * math.cos(ang), r * math.sin(ang), 0.03)
            out.append({"tag": "circle", "cx": x0, "cy": y0, "r": 9, "fill": colour, "stroke": "#222",
                        "stroke-width": 1.2, **extra})
        elif isinstance(a, Pass):
            ang = math.radians(a.aim)
            r = t.base_radius + release_band_radius(a.release, g.min_release)
            x0, y0 = project(r * math.cos(ang), r * math.sin(ang), BALL_Z)
            out.append({"tag": "circle", "cx": x0, "cy": y0, "r": 6, "fill": "#444", "stroke": colour,
                        "stroke-width": 2, **extra})
    return out
