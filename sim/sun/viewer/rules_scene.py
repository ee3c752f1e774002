"""The rules' view drawn in the viser scene, turn by turn, and its legend (docs/replay-format.md).

:class:`RulesNodes` draws what a turn's ``rules`` (``TurnEvent.rules``, recorded from the rules'
own objects) says, and nothing it does not: each seat's marker (a pin on the rim) and mark area
(a band along the rim) in the seat's colour; each gap of the ring, green when the ball can pass it
and red when it cannot, as a band along its opening just inside the ring; the line of the pass as aimed, with
a drop line from the release point it names and a white dot where the ball really left the hand
(the recorded ball, first frame of the pass); and on each penalty stone a label with its cause.
The live viewer (``viser_app.ReplayViewer``) and the static export share it, so both show the same.

:func:`legend_html` is the legend both show: every colour and what it means.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from sim.sun.viewer.replay import Replay, TurnEvent, hex_rgb
from sim.sun.geometry.palette import BLOCKED_COLOUR, PASSABLE_COLOUR
from sim.sun.viewer.replay.overlay import AIM_COLOUR, RELEASE_COLOUR, cause_words, legend, seat_colour

#: Where the bands are drawn (m from the centre): each gap's band just inside the ring (from
#: ``GAP_BAND_M[0]`` to ``GAP_BAND_M[1]`` inside the ring's radius), each seat's mark-area band along
#: the rim (``AREA_BAND_M`` wide, ``AREA_RIM_M`` in from the edge, each further seat's one band
#: further in, so two seats sharing a gap both show), and how high above the base's top face.
GAP_BAND_M = (0.024, 0.015)
AREA_BAND_M = 0.0045
AREA_RIM_M = 0.0015
BAND_Z_M = 0.0008
#: A marker's pin: height and radius of its stem, radius of its head (m).
PIN_HEIGHT_M = 0.028
PIN_RADIUS_M = 0.0012
PIN_HEAD_M = 0.0045
#: Height (m) of the aim line above the base's top face.
LINE_Z_M = 0.0025
#: How far (m) beyond the far rim the aim line runs.
AIM_BEYOND_M = 0.03
#: Arc sampling: one step per this many degrees at most.
ARC_STEP_DEG = 2.0
#: A gap whose two stones overlap (no opening) is drawn as a band this wide (deg) where they meet.
CLOSED_GAP_DEG = 2.0


def sector_mesh(start_deg: float, span_deg: float, r_in: float, r_out: float, z: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Vertices ``(V, 3)`` and faces ``(F, 3)`` of a flat band between radii ``r_in`` and ``r_out``
    (m) at height ``z``, from ``start_deg`` counter-clockwise by ``span_deg`` (a drawing of the arc,
    nothing more)."""
    n = max(1, int(math.ceil(abs(span_deg) / ARC_STEP_DEG)))
    a = np.radians(start_deg + np.linspace(0.0, span_deg, n + 1))
    c, s_ = np.cos(a), np.sin(a)
    inner = np.stack([r_in * c, r_in * s_, np.full_like(a, z)], axis=1)
    outer = np.stack([r_out * c, r_out * s_, np.full_like(a, z)], axis=1)
    verts = np.concatenate([inner, outer]).astype(np.float32)
    k = np.arange(n)
    faces = np.concatenate([np.stack([k, k + n + 1, k + 1], axis=1), np.stack([k + 1, k + n + 1, k + n + 2], axis=1)])
    return verts, faces.astype(np.uint32)


def _merged(parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """One mesh of several (vertices, faces) parts."""
    verts, faces, n = [], [], 0
    for v, f in parts:
        verts.append(v)
        faces.append(f + n)
        n += len(v)
    return np.concatenate(verts), np.concatenate(faces).astype(np.uint32)


@dataclass(frozen=True)
class Band:
    """A flat band of the rules' view: ``colour`` (``#rrggbb``), from ``start_deg`` by ``span_deg``,
    between radii ``r_in`` and ``r_out`` (m) at height ``z`` (m above the base's top face)."""

    colour: str
    start_deg: float
    span_deg: float
    r_in: float
    r_out: float
    z: float


@dataclass(frozen=True)
class RulesShapes:
    """What a turn's rules' view draws, in the table's frame (m): the bands (gaps green or red, each
    seat's mark areas), the markers (seat, x, y: a pin ``PIN_HEIGHT_M`` high), and the pass (the aim
    line's two ends, the release point and the mover's seat; ``released`` where the ball really
    left the hand, if recorded). One geometry for the 3-D scenes and the video."""

    bands: tuple[Band, ...]
    markers: tuple[tuple[int, float, float], ...]
    aim: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None
    release: tuple[float, float, float] | None = None
    mover: int | None = None
    released: tuple[float, float, float] | None = None


def rules_shapes(replay: Replay, turn: TurnEvent) -> RulesShapes | None:
    """The shapes of ``turn``'s rules' view (None when the turn carries none)."""
    view = turn.rules
    if view is None:
        return None
    tb = replay.table
    base_r = float(tb.get("base_radius", 0.15))
    ring_r = float(tb.get("ring_radius") or base_r * 0.87)
    gaps = view["ring"].get("gaps", [])
    bands = []
    for g in gaps:
        span = float(g["span_deg"])
        a0 = float(g["start_deg"])
        if span <= 0.0:  # the stones overlap: a short band where they meet
            a0, span = a0 + span / 2 - CLOSED_GAP_DEG / 2, CLOSED_GAP_DEG
        bands.append(Band(PASSABLE_COLOUR if g["passable"] else BLOCKED_COLOUR, a0, span, ring_r - GAP_BAND_M[0],
                          ring_r - GAP_BAND_M[1], BAND_Z_M))
    markers = []
    for s, ms in enumerate(view["markers"]):
        r_out = base_r - AREA_RIM_M - AREA_BAND_M * s
        for m in ms:
            gi = m.get("gap")
            if gi is not None:
                g = gaps[gi]
                bands.append(Band(seat_colour(s), float(g["start_deg"]), max(float(g["span_deg"]), CLOSED_GAP_DEG),
                                  r_out - AREA_BAND_M, r_out, 2 * BAND_Z_M))
            a = math.radians(float(m["angle_deg"]))
            r = base_r - AREA_RIM_M - AREA_BAND_M * (s + 0.5)
            markers.append((s, r * math.cos(a), r * math.sin(a)))
    ps = view.get("pass")
    if ps is None:
        return RulesShapes(tuple(bands), tuple(markers))
    x, y, z = (float(v) for v in ps["release_point"])
    rho = math.hypot(x, y)
    ux, uy = (x / rho, y / rho) if rho > 0 else (1.0, 0.0)
    far = base_r + AIM_BEYOND_M  # the line ends just beyond the far rim, where the ball is caught
    return RulesShapes(tuple(bands), tuple(markers), ((x, y, LINE_Z_M), (-ux * far, -uy * far, LINE_Z_M)), (x, y, z),
                       int(view["seat"]), ball_at_release(replay, turn))


def ball_at_release(replay: Replay, turn: TurnEvent) -> tuple[float, float, float] | None:
    """The ball's recorded centre in the first frame of ``turn`` it is on the table (the release:
    the table records the ball from the moment it is let go), None when not recorded."""
    try:
        j = replay.index_of("ball")
    except KeyError:
        return None
    lo, hi = turn.frames
    seen = np.nonzero(np.isfinite(replay.pos[lo:hi, j]).all(axis=1))[0]
    if not len(seen):
        return None
    x, y, z = (float(v) for v in replay.pos[lo + int(seen[0]), j])
    return (x, y, z)


def seats_of(replay: Replay) -> dict[int, str]:
    """Every seat the replay's turns or rules' views name, with its player's label where known."""
    players = [str(x) for x in replay.meta.get("players") or []] if isinstance(replay.meta.get("players"), list) else []
    seats: dict[int, str] = {}
    for t in replay.turns:
        if t.seat is not None:
            seats.setdefault(t.seat, t.player)
        if t.rules is not None:
            for s in range(len(t.rules.get("markers", []))):
                seats.setdefault(s, "")
    for s in list(seats):
        if not seats[s] and s < len(players):
            seats[s] = players[s]
    return seats


def has_rules(replay: Replay) -> bool:
    """Whether any turn of ``replay`` carries the rules' view."""
    return any(t.rules is not None for t in replay.turns)


@dataclass
class RulesNodes:
    """The rules' view of the turn shown, as viser scene nodes (see the module docstring).

    :meth:`show_turn` redraws only when the turn changes; between turns nothing is sent, so the
    static export grows by a few messages per turn.
    """

    replay: Replay
    scene: Any
    body_nodes: Mapping[int, str]
    markers: list[list[Any]] = field(default_factory=list)
    causes: dict[int, Any] = field(default_factory=dict)
    #: the shown turn's own nodes (bands, aim line, release dots), removed when the turn changes
    turn_nodes: list[Any] = field(default_factory=list)
    #: the index of the turn shown (None: none; -1: nothing drawn yet)
    shown: int | None = -1
    _shown_causes: set[int] = field(default_factory=set)

    @classmethod
    def build(cls, scene: Any, replay: Replay, body_nodes: Mapping[int, str]) -> "RulesNodes":
        """Add the markers (hidden) and the penalty labels (each a child of its stone's node
        ``body_nodes[stone]``, so it follows the stone as it falls) to ``scene``."""
        nodes = cls(replay, scene, body_nodes)
        n_seats = max((len(t.rules["markers"]) for t in replay.turns if t.rules is not None), default=0)
        n_marks = max((len(ms) for t in replay.turns if t.rules is not None for ms in t.rules["markers"]), default=0)
        for s in range(n_seats):
            row = []
            col = hex_rgb(seat_colour(s))
            for k in range(n_marks):
                base = f"/rules/marker_{s}_{k}"
                frame = scene.add_frame(base, show_axes=False, visible=False)
                scene.add_cylinder(f"{base}/stem", radius=PIN_RADIUS_M, height=PIN_HEIGHT_M, color=col,
                                   radial_segments=8, position=(0.0, 0.0, PIN_HEIGHT_M / 2))
                scene.add_icosphere(f"{base}/head", radius=PIN_HEAD_M, color=col, subdivisions=2,
                                    position=(0.0, 0.0, PIN_HEIGHT_M))
                scene.add_label(f"{base}/label", f"seat {s}", position=(0.0, 0.0, PIN_HEIGHT_M + 2 * PIN_HEAD_M),
                                anchor="bottom-center", font_screen_scale=0.75)
                row.append(frame)
            nodes.markers.append(row)
        for t in replay.turns:
            for p in (t.rules or {}).get("penalties", []):
                sid = p["stone"]
                if sid in body_nodes and sid not in nodes.causes:
                    nodes.causes[sid] = scene.add_label(f"{body_nodes[sid]}/cause", "", anchor="bottom-center",
                                                        font_screen_scale=0.8, visible=False)
        return nodes

    def show_turn(self, turn: TurnEvent | None, frame: int) -> None:
        """Draw ``turn``'s view (``frame``: the frame shown, for where the ball left the hand)."""
        index = None if turn is None else turn.index
        if index == self.shown:
            return
        self.shown = index
        for h in self.turn_nodes:
            h.remove()
        self.turn_nodes = []
        view = turn.rules if turn is not None else None
        for s, row in enumerate(self.markers):
            for k, h in enumerate(row):
                ms = view["markers"][s] if view is not None and s < len(view["markers"]) else []
                if k < len(ms):
                    a = math.radians(float(ms[k]["angle_deg"]))
                    r = float(self.replay.table.get("base_radius", 0.15)) - AREA_RIM_M - AREA_BAND_M * (s + 0.5)
                    h.position = (r * math.cos(a), r * math.sin(a), 0.0)
                    h.visible = True
                else:
                    h.visible = False
        want = {int(p["stone"]): str(p.get("cause", "?")) for p in (view or {}).get("penalties", [])}
        for sid, lab in self.causes.items():
            if sid in want:
                lab.text = f"stone {sid}: {cause_words(want[sid])}"
                lab.visible = True
            elif sid in self._shown_causes:
                lab.visible = False
        self._shown_causes = set(want) & set(self.causes)
        if view is None or turn is None:
            return
        self._draw(view, turn)

    def _draw(self, view: Mapping[str, Any], turn: TurnEvent) -> None:
        shapes = rules_shapes(self.replay, turn)
        if shapes is None:
            return
        bands: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        for b in shapes.bands:
            bands.setdefault(b.colour, []).append(sector_mesh(b.start_deg, b.span_deg, b.r_in, b.r_out, b.z))
        for k, (colour, parts) in enumerate(bands.items()):
            v, f = _merged(parts)
            self.turn_nodes.append(self.scene.add_mesh_simple(f"/rules/band_{k}", v, f, color=hex_rgb(colour),
                                                           material="toon3", side="double", cast_shadow=False,
                                                           receive_shadow=False))
        if shapes.aim is None or shapes.release is None or shapes.mover is None:
            return
        (x, y, _), far_end = shapes.aim
        z = shapes.release[2]
        aim = np.array([[shapes.aim[0], far_end], [[x, y, 0.0], [x, y, z]]], np.float32)
        self.turn_nodes.append(self.scene.add_line_segments("/rules/aim", points=aim, colors=hex_rgb(AIM_COLOUR),
                                                        thickness=2.5, thickness_units="screen"))
        self.turn_nodes.append(self.scene.add_icosphere("/rules/release", radius=0.007, color=hex_rgb(seat_colour(
            shapes.mover)), subdivisions=2, position=shapes.release))
        if shapes.released is not None:
            self.turn_nodes.append(self.scene.add_icosphere("/rules/released", radius=0.004,
                                                         color=hex_rgb(RELEASE_COLOUR), subdivisions=2,
                                                         position=shapes.released))


# --------------------------------------------------------------------------------------------
# The legend
# --------------------------------------------------------------------------------------------


def legend_html(replay: Replay, *, fixed: bool = True) -> str:
    """The legend as HTML: a swatch and the words for each mark (every text escaped). ``fixed``:
    a box pinned to the page's top-right corner (the static export), else a plain block (the live
    viewer's panel). Without any rules' view in the replay it says so."""
    rows = []
    for key, colour, words in legend(seats_of(replay)):
        shape = "border-radius:50%;" if key in ("release", "aim") else ""
        rows.append(f"<div style='display:flex;align-items:center;gap:6px;margin:2px 0'>"
                    f"<span style='flex:none;width:22px;height:8px;{shape}background:{html.escape(colour)};"
                    f"border:1px solid #888'></span><span>{html.escape(words)}</span></div>")
    note = ""
    if not has_rules(replay):
        why = replay.meta.get("rules_view_note")
        note = ("<div style='margin-top:4px;color:#a33'>This replay does not carry the rules' view "
                f"(markers, mark areas, gaps): {html.escape(str(why))}.</div>" if why else
                "<div style='margin-top:4px;color:#a33'>This replay does not carry the rules' view (markers, "
                "mark areas, gaps): it was recorded without it (an older file, or a lone pass).</div>")
    box = ("position:fixed;top:8px;right:8px;z-index:5;max-width:300px;background:rgba(255,255,255,0.92);"
           "border:1px solid #ccc;border-radius:6px;padding:6px 8px;" if fixed else "")
    return (f"<div id='stonelab-legend' style='{box}font:12px/1.35 sans-serif;color:#222'>"
            f"<b>What the rules see</b>{''.join(rows)}{note}</div>")
