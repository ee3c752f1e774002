"""Layout files of *Stonehenge and the Sun*: loading, validation and ring geometry.

A **layout** is the designer-level description of a table: the physical parameters (``[table]``,
``[ball]``, ``[physics]``, ``[shapes.<name>]``, every one defaulting to docs/sun-physics.md) and the stones
(``[[stones]]``: shape, angle in degrees, level 1 or 2) and gates (``[[gates]]``: shape and the
indices of the two level-1 stones it rests on). :func:`load_layout` reads and validates a TOML file;
:func:`parse_layout` does the same for an already-parsed mapping.

Per-shape overrides live in ``[shapes.pillar]`` etc. and not in ``[stones.pillar]`` as docs/sun-physics.md
suggests for scenarios: in a layout ``stones`` is the array of standing stones, and TOML cannot
make one key both an array and a table.

Geometry conventions (SI units inside, degrees only in files): a standing stone's local frame has
x radial (its ``depth``), y tangential (its ``width``, "along the ring") and z up (its ``height``);
its yaw equals its angular position. The base's top face is z = 0. A gate ("lintel") is the stone
laid flat: its length is the stone's height, its vertical thickness the smaller of width and depth,
its radial depth the larger.

The **gap** between two neighbouring positions is measured perpendicular to the bisector ray, the
path a pass through the middle of the gap takes (a pendulum released from rest swings through the
centre): each stone's clearance from that ray is ``R sin(d/2) - (depth/2) sin(d/2) - (width/2)
cos(d/2)`` for an angular separation ``d``, which accounts for the stones' inner corners.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from sim.core.errors import ScenarioError, allowed
from sim.core.files import read_toml
from sim.core.tomlw import toml_value

from sim.sun.geometry.ring import Pos, Ring, gap_width, gate_span
# re-exported (``X as X``: explicitly, for type checkers): the layout module is where users look
from sim.sun.geometry.specs import DEFAULT_SHAPES as DEFAULT_SHAPES, PRESETS as PRESETS, SHAPE_NAMES as SHAPE_NAMES
from sim.sun.geometry.specs import TAU as TAU, BallSpec as BallSpec, PhysicsSpec as PhysicsSpec
from sim.sun.geometry.specs import ShapeSpec as ShapeSpec, TableSpec as TableSpec

@dataclass(frozen=True)
class StoneSpec:
    """A standing stone in a layout: shape name, angle (degrees, CCW from +x), level 1 or 2."""

    shape: str
    angle_deg: float
    level: int = 1

    @property
    def angle_rad(self) -> float:
        """Angular position in radians."""
        return math.radians(self.angle_deg)


@dataclass(frozen=True)
class GateSpec:
    """A gate in a layout: shape and the indices (into ``Layout.stones``) of its two level-1 supports."""

    shape: str
    between: tuple[int, int]


@dataclass(frozen=True)
class Layout:
    """A validated layout. Build one with :func:`load_layout` or :func:`parse_layout`."""

    table: TableSpec = field(default_factory=TableSpec)
    ball: BallSpec = field(default_factory=BallSpec)
    physics: PhysicsSpec = field(default_factory=PhysicsSpec)
    shapes: Mapping[str, ShapeSpec] = field(default_factory=lambda: dict(DEFAULT_SHAPES))
    stones: tuple[StoneSpec, ...] = ()
    gates: tuple[GateSpec, ...] = ()
    source: str | None = None

    def with_preset(self, preset: str) -> "Layout":
        """A copy using another fidelity preset.

        Raises:
            ScenarioError: for an unknown preset name.
        """
        if preset not in PRESETS:
            raise ScenarioError(f"preset must be {allowed(PRESETS)}, not {preset!r}", source=self.source,
                                key="physics.preset")
        return replace(self, physics=replace(self.physics, preset=preset))

    def stack_top_height(self, index: int) -> float:
        """Height (m) of the top of the position whose level-1 stone is ``stones[index]``."""
        base = self.stones[index]
        top = self.shapes[base.shape].height
        for s in self.stones:
            if s.level == 2 and _same_angle(s.angle_deg, base.angle_deg):
                top += self.shapes[s.shape].height
        return top


# --------------------------------------------------------------------------------------------
# The layout's ring (geometry itself lives in sim.sun.geometry.ring)
# --------------------------------------------------------------------------------------------


def wrap_angle(a: float) -> float:
    """Angle in [0, 2 pi)."""
    return a % TAU


def _same_angle(a_deg: float, b_deg: float, tol_deg: float = 1e-6) -> bool:
    d = (a_deg - b_deg + 180.0) % 360.0 - 180.0
    return abs(d) <= tol_deg


def layout_positions(layout: Layout) -> list[Pos]:
    """The ring positions of a layout, sorted by angle; ``Pos.id`` (and ``Pos.top``) are indices
    into ``layout.stones``; each position at the ring radius with the footprint of its widest and
    deepest stone (a layout's stones stand at their intended poses, one above the other, so this
    is ``ring.footprint`` of them) and the height of its stack."""
    out = []
    for i, s in enumerate(layout.stones):
        if s.level != 1:
            continue
        shp = layout.shapes[s.shape]
        top_idx = -1
        width, depth = shp.width, shp.depth
        for j, t in enumerate(layout.stones):
            if t.level == 2 and _same_angle(t.angle_deg, s.angle_deg):
                top_idx = j
                width = max(width, layout.shapes[t.shape].width)
                depth = max(depth, layout.shapes[t.shape].depth)
        out.append(Pos(i, wrap_angle(s.angle_rad), layout.table.ring_radius, width, depth,
                       layout.stack_top_height(i), top_idx))
    out.sort(key=lambda p: p.angle)
    return out


def layout_ring(layout: Layout) -> Ring:
    """The ring of a layout (``sim.sun.geometry.ring.Ring``), its gates' undersides filled in (a gate keyed
    by the layout indices of its supports, counter-clockwise first)."""
    pos = layout_positions(layout)
    index_of = {p.id: k for k, p in enumerate(pos)}
    n = len(pos)
    gates: dict[tuple[int, int], float] = {}
    for g in layout.gates:
        ka, kb = index_of[g.between[0]], index_of[g.between[1]]
        if (ka + 1) % n != kb or (n == 2 and (pos[kb].angle - pos[ka].angle) % TAU > math.pi):
            ka, kb = kb, ka  # counter-clockwise first; with two positions, across the short gap
        gates[(pos[ka].id, pos[kb].id)] = max(pos[ka].top_z, pos[kb].top_z)
    return Ring(pos, gates)


# --------------------------------------------------------------------------------------------
# Loading and validation
# --------------------------------------------------------------------------------------------

TABLE_RANGES: dict[str, tuple[float, float]] = {
    "base_radius": (0.01, 5.0), "base_thickness": (0.001, 1.0), "ring_radius": (0.01, 5.0),
    "hand_span": (0.0, 5.0), "pass_clearance": (0.0, 0.1), "gate_min_overlap": (0.0, 0.1),
    "topple_tilt_deg": (1.0, 89.0), "min_clearance": (0.0, 0.05),
}
BALL_RANGES: dict[str, tuple[float, float]] = {
    "diameter": (0.001, 1.0), "mass": (0.001, 100.0), "string_length": (0.05, 50.0),
    "rest_clearance": (0.0, 1.0),
}
PHYSICS_RANGES: dict[str, tuple[float, float]] = {
    "gravity": (0.1, 100.0), "friction_wood_wood": (0.0, 5.0), "friction_steel_wood": (0.0, 5.0),
    "restitution": (0.0, 1.0), "contact_threshold": (0.0001, 0.05), "settle_time_limit_s": (0.0, 60.0),
    "rest_linear_mps": (1e-6, 1.0), "rest_angular_rps": (1e-6, 10.0), "max_swing_s": (0.1, 60.0),
    "energy_tolerance": (0.0, 1.0),
}
_SHAPE_KEYS: dict[str, tuple[float, float]] = {
    "width": (0.001, 1.0), "depth": (0.001, 1.0), "height": (0.001, 1.0), "density": (1.0, 30000.0),
}
_TOP_KEYS = ("table", "ball", "physics", "shapes", "stones", "gates", "name", "description")


def _number(value: Any, src: str | None, key: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ScenarioError(f"must be a number from {lo} to {hi}, not {value!r}", source=src, key=key)
    if not lo <= float(value) <= hi:
        raise ScenarioError(f"must be a number from {lo} to {hi}, not {value!r}", source=src, key=key)
    return float(value)


def _table_of(data: Mapping[str, Any], name: str, src: str | None) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise ScenarioError(f"must be a table ([{name}]), not {type(value).__name__}", source=src, key=name)
    return value


def _numbers(section: Mapping[str, Any], spec: Mapping[str, tuple[float, float]], prefix: str,
             src: str | None, extra: Sequence[str] = ()) -> dict[str, float]:
    out = {}
    for k, v in section.items():
        if k in extra:
            continue
        if k not in spec:
            raise ScenarioError(f"unknown key; allowed keys are {allowed(list(spec) + list(extra))}",
                                source=src, key=f"{prefix}.{k}")
        out[k] = _number(v, src, f"{prefix}.{k}", *spec[k])
    return out


def parse_layout(data: Mapping[str, Any], source: str | Path | None = None) -> Layout:
    """Validate a parsed layout mapping and build a :class:`Layout`.

    Raises:
        ScenarioError: naming the file and key, for an unknown key, a wrong type, an out-of-range
            value, an unknown shape, overlapping stones, a stack on nothing, too many stones of a
            shape, or a gate too long, too short, not between neighbours or on unequal supports.
    """
    src = str(source) if source is not None else None
    for k in data:
        if k not in _TOP_KEYS:
            raise ScenarioError(f"unknown key; allowed top-level keys are {allowed(_TOP_KEYS)}", source=src, key=k)

    table = TableSpec(**_numbers(_table_of(data, "table", src), TABLE_RANGES, "table", src))
    ball = BallSpec(**_numbers(_table_of(data, "ball", src), BALL_RANGES, "ball", src))
    phys_raw = _table_of(data, "physics", src)
    phys_kwargs: dict[str, Any] = _numbers(phys_raw, PHYSICS_RANGES, "physics", src, extra=("preset",))
    if "preset" in phys_raw:
        if phys_raw["preset"] not in PRESETS:
            raise ScenarioError(f"must be {allowed(PRESETS)}, not {phys_raw['preset']!r}", source=src,
                                key="physics.preset")
        phys_kwargs["preset"] = phys_raw["preset"]
    physics = PhysicsSpec(**phys_kwargs)

    shapes = dict(DEFAULT_SHAPES)
    for name, raw in _table_of(data, "shapes", src).items():
        if name not in SHAPE_NAMES:
            raise ScenarioError(f"unknown shape; allowed shapes are {allowed(SHAPE_NAMES)}", source=src,
                                key=f"shapes.{name}")
        if not isinstance(raw, Mapping):
            raise ScenarioError("must be a table", source=src, key=f"shapes.{name}")
        kw: dict[str, Any] = _numbers(raw, _SHAPE_KEYS, f"shapes.{name}", src, extra=("count",))
        if "count" in raw:
            c = raw["count"]
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= 1000:
                raise ScenarioError(f"must be an integer from 0 to 1000, not {c!r}", source=src,
                                    key=f"shapes.{name}.count")
            kw["count"] = c
        shapes[name] = replace(shapes[name], **kw)

    if ball.string_length <= table.base_radius + table.hand_span:
        raise ScenarioError(f"got {ball.string_length}; the string must be longer than table.base_radius + "
                            f"table.hand_span ({table.base_radius + table.hand_span:g} m)", source=src,
                            key="ball.string_length")
    if table.ring_radius >= table.base_radius:
        raise ScenarioError(f"got {table.ring_radius}; the ring must be inside the base: less than "
                            f"table.base_radius ({table.base_radius:g} m)", source=src, key="table.ring_radius")

    stones = tuple(_parse_stone(i, raw, shapes, src) for i, raw in enumerate(_array_of(data, "stones", src)))
    gates = tuple(_parse_gate(i, raw, shapes, src) for i, raw in enumerate(_array_of(data, "gates", src)))
    layout = Layout(table, ball, physics, shapes, stones, gates, src)
    validate_layout(layout)
    return layout


def _array_of(data: Mapping[str, Any], name: str, src: str | None) -> list[Mapping[str, Any]]:
    value = data.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise ScenarioError(f"must be an array of tables ([[{name}]])", source=src, key=name)
    return value


def _shape_name(raw: Mapping[str, Any], shapes: Mapping[str, ShapeSpec], src: str | None, key: str) -> str:
    if "shape" not in raw:
        raise ScenarioError(f"missing; allowed shapes are {allowed(shapes)}", source=src, key=f"{key}.shape")
    shape = raw["shape"]
    if shape not in shapes:
        raise ScenarioError(f"unknown shape {shape!r}; allowed shapes are {allowed(shapes)}", source=src,
                            key=f"{key}.shape")
    return str(shape)


def _parse_stone(i: int, raw: Mapping[str, Any], shapes: Mapping[str, ShapeSpec], src: str | None) -> StoneSpec:
    key = f"stones[{i}]"
    for k in raw:
        if k not in ("shape", "angle", "level"):
            raise ScenarioError(f"unknown key; allowed keys are {allowed(['shape', 'angle', 'level'])}",
                                source=src, key=f"{key}.{k}")
    shape = _shape_name(raw, shapes, src, key)
    if "angle" not in raw:
        raise ScenarioError("missing; give the angle in degrees, counter-clockwise from +x", source=src,
                            key=f"{key}.angle")
    angle = _number(raw["angle"], src, f"{key}.angle", -360.0, 720.0) % 360.0
    level = raw.get("level", 1)
    if isinstance(level, bool) or level not in (1, 2):
        raise ScenarioError(f"must be 1 (on the base) or 2 (stacked), not {level!r}", source=src, key=f"{key}.level")
    return StoneSpec(shape, angle, int(level))


def _parse_gate(i: int, raw: Mapping[str, Any], shapes: Mapping[str, ShapeSpec], src: str | None) -> GateSpec:
    key = f"gates[{i}]"
    for k in raw:
        if k not in ("shape", "between"):
            raise ScenarioError(f"unknown key; allowed keys are {allowed(['shape', 'between'])}",
                                source=src, key=f"{key}.{k}")
    shape = _shape_name(raw, shapes, src, key)
    b = raw.get("between")
    if (not isinstance(b, list) or len(b) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in b)):
        raise ScenarioError(f"must be two stone indices like [3, 4], not {b!r}", source=src, key=f"{key}.between")
    return GateSpec(shape, (int(b[0]), int(b[1])))


def validate_layout(layout: Layout) -> None:
    """Check a layout's stones and gates against each other and the table.

    Raises:
        ScenarioError: for the first problem found, naming the stone or gate key.
    """
    src, t, shapes = layout.source, layout.table, layout.shapes
    counts = {name: 0 for name in shapes}
    for s in layout.stones:
        counts[s.shape] += 1
    for g in layout.gates:
        counts[g.shape] += 1
    for name, n in counts.items():
        if n > shapes[name].count:
            raise ScenarioError(f"{n} {name} stones used but the set has {shapes[name].count}", source=src,
                                key=f"shapes.{name}.count")

    level1: dict[int, int] = {}  # layout index -> itself, for membership
    for i, s in enumerate(layout.stones):
        shp = shapes[s.shape]
        if s.level == 1:
            # the outer corners of the footprint, not just the outer face: a wide stone overhangs first
            if math.hypot(t.ring_radius + 0.5 * shp.depth, 0.5 * shp.width) > t.base_radius:
                raise ScenarioError("stone sticks out over the base edge", source=src, key=f"stones[{i}].shape")
            level1[i] = i
    for i, s in enumerate(layout.stones):
        if s.level == 1:
            for j in level1:
                if j < i and _same_angle(layout.stones[j].angle_deg, s.angle_deg, 1e-3):
                    raise ScenarioError(f"two level-1 stones at {s.angle_deg} degrees (stones[{j}] and "
                                        f"stones[{i}]); use level = 2 to stack", source=src, key=f"stones[{i}].angle")
            continue
        below = [j for j in level1 if _same_angle(layout.stones[j].angle_deg, s.angle_deg)]
        if not below:
            raise ScenarioError(f"level-2 stone at {s.angle_deg} degrees stacks on nothing: no level-1 stone at "
                                "that angle (stacks must use the same angle)", source=src, key=f"stones[{i}].level")
        others = [j for j, o in enumerate(layout.stones)
                  if j != i and o.level == 2 and _same_angle(o.angle_deg, s.angle_deg)]
        if any(j < i for j in others):
            raise ScenarioError("at most two levels: a stone is already stacked at this angle", source=src,
                                key=f"stones[{i}].level")

    pos = layout_positions(layout)
    n = len(pos)
    if n >= 2:
        for k in range(n):
            pa, pb = pos[k], pos[(k + 1) % n]
            w = gap_width(pa, pb)
            if w < t.min_clearance:
                raise ScenarioError(
                    f"stones[{pb.id}] at {math.degrees(pb.angle):.2f} deg overlaps or touches stones[{pa.id}] "
                    f"at {math.degrees(pa.angle):.2f} deg (clear gap {w * 1000:.1f} mm, need at least "
                    f"{t.min_clearance * 1000:.1f} mm)", source=src, key=f"stones[{pb.id}].angle")

    index_of = {p.id: k for k, p in enumerate(pos)}
    used_ends: dict[int, float] = {}
    spanned: set[tuple[int, int]] = set()
    for gi, g in enumerate(layout.gates):
        key = f"gates[{gi}].between"
        a, b = g.between
        for x in (a, b):
            if not 0 <= x < len(layout.stones):
                raise ScenarioError(f"stone index {x} does not exist (0 to {len(layout.stones) - 1})", source=src, key=key)
            if layout.stones[x].level != 1:
                raise ScenarioError(f"stones[{x}] is not a level-1 stone; give the level-1 stone of each position",
                                    source=src, key=key)
        if a == b:
            raise ScenarioError("a gate needs two different supports", source=src, key=key)
        ka, kb = index_of[a], index_of[b]
        if not ((ka + 1) % n == kb or (kb + 1) % n == ka):
            raise ScenarioError(f"stones[{a}] and stones[{b}] are not neighbours on the ring", source=src, key=key)
        pair = (min(a, b), max(a, b))
        if pair in spanned:
            raise ScenarioError("a gate already spans this gap", source=src, key=key)
        spanned.add(pair)
        pa, pb = pos[ka], pos[kb]
        if abs(pa.top_z - pb.top_z) > 0.001:
            raise ScenarioError(f"supports have different heights ({pa.top_z * 1000:.1f} and {pb.top_z * 1000:.1f} mm); "
                                "a gate must lie level", source=src, key=key)
        shp = shapes[g.shape]
        inner, _outer = gate_span(pa, pb)
        most = shp.lintel_length - 2.0 * t.gate_min_overlap
        if inner > most:
            raise ScenarioError(f"gate too short: a {g.shape} ({shp.lintel_length * 1000:.0f} mm) spans at most "
                                f"{most * 1000:.1f} mm with {t.gate_min_overlap * 1000:.0f} mm on each support, "
                                f"the gap is {inner * 1000:.1f} mm", source=src, key=key)
        overlap = 0.5 * (shp.lintel_length - inner)
        # An end may overhang its support's outer edge, but not into a neighbour as tall as the gate.
        for k_sup, k_next in ((ka, (ka - 1) % n if (ka + 1) % n == kb else (ka + 1) % n),
                              (kb, (kb - 1) % n if (kb + 1) % n == ka else (kb + 1) % n)):
            sup, nxt = pos[k_sup], pos[k_next]
            overhang = overlap - sup.width
            if overhang <= 0.0 or k_next in (ka, kb) or nxt.top_z < sup.top_z:
                continue
            free = min(gap_width(sup, nxt), gap_width(nxt, sup))
            if overhang > free - t.min_clearance:
                raise ScenarioError(
                    f"gate too long: a {g.shape} ({shp.lintel_length * 1000:.0f} mm) overhangs stones[{sup.id}] "
                    f"by {overhang * 1000:.1f} mm and would hit stones[{nxt.id}] ({free * 1000:.1f} mm away)",
                    source=src, key=key)
        for x, p in ((a, pa), (b, pb)):
            # an end may overhang its support (checked above against the neighbour); on the support
            # it takes at most the support's width, and two gates' ends must share that width
            first = x not in used_ends
            used_ends[x] = used_ends.get(x, 0.0) + min(overlap, p.width)
            if not first and used_ends[x] > p.width + 1e-9:
                raise ScenarioError(f"two gates' ends do not both fit on stones[{x}]", source=src, key=key)


def load_layout(path: str | Path, preset: str | None = None) -> Layout:
    """Read and validate a layout TOML file.

    Args:
        path: the file.
        preset: override of ``[physics] preset`` (``"fast"`` or ``"reference"``).

    Raises:
        ScenarioError: if the file is missing, not TOML, or invalid (see :func:`parse_layout`).
    """
    p = Path(path)
    # a folder, a FIFO or a device (whose read would block) is refused here, for every caller
    data = read_toml(p, "layout file", ScenarioError, "scenarios/sun/layouts/*.toml")
    layout = parse_layout(data, p)
    return layout.with_preset(preset) if preset is not None else layout


def _changed(spec: Any, default: Any, keys: Sequence[str]) -> list[str]:
    """``key = value`` lines of the fields of ``spec`` that differ from ``default``."""
    return [f"{k} = {toml_value(getattr(spec, k))}" for k in keys if getattr(spec, k) != getattr(default, k)]


def dump_layout_toml(layout: Layout, name: str | None = None, description: str | None = None) -> str:
    """The layout as TOML text that :func:`load_layout` reads back to an equal layout.

    Written: ``name`` and ``description`` when given, ``[physics] preset`` and every table, ball,
    physics and shape value that differs from the defaults (docs/sun-physics.md), then the stones
    and gates. Deterministic: loading the text and dumping it again gives the same bytes, which
    the layout editor (``stonelab sun edit``) relies on. Comments of an original file are not kept.
    """
    lines = []
    if name:
        lines.append(f"name = {toml_value(name)}")
    if description:
        lines.append(f"description = {toml_value(description)}")
    for section, spec, default, keys in (("table", layout.table, TableSpec(), TABLE_RANGES),
                                         ("ball", layout.ball, BallSpec(), BALL_RANGES)):
        changed = _changed(spec, default, list(keys))
        if changed:
            lines += ["", f"[{section}]", *changed]
    lines += ["", "[physics]", f'preset = "{layout.physics.preset}"',
              *_changed(layout.physics, PhysicsSpec(), list(PHYSICS_RANGES))]
    for sname in SHAPE_NAMES:
        changed = _changed(layout.shapes[sname], DEFAULT_SHAPES[sname], [*_SHAPE_KEYS, "count"])
        if changed:
            lines += ["", f"[shapes.{sname}]", *changed]
    for i, s in enumerate(layout.stones):
        lines += ["", f"[[stones]]  # {i}", f'shape = "{s.shape}"', f"angle = {s.angle_deg:.4f}"]
        if s.level != 1:
            lines.append(f"level = {s.level}")
    for g in layout.gates:
        lines += ["", "[[gates]]", f'shape = "{g.shape}"', f"between = [{g.between[0]}, {g.between[1]}]"]
    return "\n".join(lines) + "\n"
