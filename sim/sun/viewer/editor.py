"""The layout editor's model: edits of a *Stonehenge and the Sun* layout, each one validated.

:class:`LayoutEditor` holds a :class:`~sim.sun.table.layout.Layout` and changes it one step at a time:
add a stone of a shape at an angle, stack a stone, lay a gate between two neighbouring positions,
move or delete a stone or a gate, undo. Every change builds the candidate layout and runs
:func:`sim.sun.table.layout.validate_layout` on it, the same check ``load_layout`` makes (gap widths and
gate spans from ``sim.sun.geometry.ring``); a change it refuses raises the :class:`~sim.core.errors.ScenarioError`
with the reason and leaves the layout as it was. Nothing here imports viser: the browser page
(``sim.sun.viewer.editor_app``) and the tests drive the same methods.

The physics buttons run here too (PyBullet DIRECT, the engine's own table): :meth:`LayoutEditor.settle`,
:meth:`LayoutEditor.run_pass` and :meth:`LayoutEditor.sweep`. Angles are degrees in this API, as in
layout files; lengths are metres.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.errors import InputError, ScenarioError, allowed
from sim.core.outputs import check_output_file, write_atomically
from sim.sun.table.layout import (SHAPE_NAMES, GateSpec, Layout, StoneSpec, dump_layout_toml, layout_ring, load_layout,
                                  parse_layout, validate_layout)
from sim.sun.geometry.ring import Geometry
from sim.sun.players.thrower import DEFAULT_SKILL
from sim.sun.players.thrower import skill as skill_level

#: Decimals of an angle in a saved layout (``dump_layout_toml`` writes ``%.4f``): the editor rounds
#: every angle it is given to this, so the page shows exactly what a save writes.
ANGLE_DECIMALS = 4


def _same(a_deg: float, b_deg: float) -> bool:
    # the layout's own tolerance for "the same angle" (a stack sits at its support's angle)
    return abs((a_deg - b_deg + 180.0) % 360.0 - 180.0) <= 1e-6


def rounded(layout: Layout) -> Layout:
    """``layout`` with its angles rounded as a saved file stores them, if that is still valid
    (else unchanged): what the editor shows is then what a save writes."""
    r = replace(layout, stones=tuple(replace(s, angle_deg=_angle(s.angle_deg, "angle")) for s in layout.stones))
    try:
        validate_layout(r)
    except ScenarioError:
        return layout
    return r


def _angle(value: float, key: str) -> float:
    """A finite angle (degrees) normalised to [0, 360) and rounded as a file stores it.

    Raises:
        ScenarioError: for a value that is not a finite number.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ScenarioError(f"must be a finite number of degrees, not {value!r}", key=key)
    a = round(float(value) % 360.0, ANGLE_DECIMALS)
    return 0.0 if a >= 360.0 else a


@dataclass(frozen=True)
class GapInfo:
    """One gap of the ring between neighbouring positions ``a`` then ``b`` (layout indices of their
    level-1 stones, counter-clockwise).

    Attributes:
        start_deg, end_deg: the clear opening (degrees; ``end`` may exceed 360).
        width_m: clear width across the middle ray (``inf`` for a gap wider than a half turn).
        gate: index into ``layout.gates`` of the gate over it, or None.
        passable: the ball fits (width, and height under a gate), by ``Ring.passable``.
    """

    a: int
    b: int
    start_deg: float
    end_deg: float
    width_m: float
    gate: int | None
    passable: bool

    @property
    def middle_deg(self) -> float:
        """Angle (degrees, [0, 360)) of the opening's middle."""
        return (0.5 * (self.start_deg + self.end_deg)) % 360.0

    def label(self) -> str:
        """Short text for a drop-down: ``stones[a] - stones[b]`` with the width in mm."""
        w = "wide open" if math.isinf(self.width_m) else f"{self.width_m * 1000:.1f} mm"
        return f"stones[{self.a}] - stones[{self.b}] ({w}{', gate' if self.gate is not None else ''})"


def ring_gaps(layout: Layout) -> list[GapInfo]:
    """The gaps of a layout's ring, counter-clockwise from the lowest angle (empty with < 2 stones)."""
    ring = layout_ring(layout)
    if ring.n < 2:
        return []
    geom = Geometry(layout.table, layout.ball, layout.shapes)
    gate_of = {tuple(sorted(g.between)): k for k, g in enumerate(layout.gates)}
    out = []
    for i in range(ring.n):
        a, b = ring.keys[i]
        # the ring knows which of the two gaps between a pair of positions a gate covers (with only
        # two positions both gaps join the same pair)
        gate = gate_of.get((min(a, b), max(a, b))) if ring.under[i] is not None else None
        out.append(GapInfo(a, b, math.degrees(ring.start[i]), math.degrees(ring.end[i]), ring.width[i], gate,
                           ring.passable(i, geom)))
    return out


@dataclass
class SettleOutcome:
    """What the settle button found: stones lost (``penalties``: id, shape, cause), each stone's
    drift (mm) from where the layout puts it, the final poses (id -> (pos, quat xyzw); ids are layout
    indices, gates follow the stones) and whether everything came to rest in the time limit."""

    penalties: list[dict[str, Any]]
    drift_mm: dict[int, float]
    poses: dict[int, tuple[tuple[float, float, float], tuple[float, float, float, float]]]
    settled: bool


@dataclass
class PassOutcome:
    """One pass from the editor: the engine's result (``TablePass.as_dict()``) and the pose
    recording (``PoseRecorder.to_dict()``, docs/pose-recording.md) for the animation."""

    result: dict[str, Any]
    recording: dict[str, Any]

    @property
    def penalties(self) -> list[dict[str, Any]]:
        """Stones lost: ``{"stone", "shape", "cause"}``."""
        return list(self.result["penalties"])


@dataclass
class LayoutEditor:
    """A layout being edited. Every editing method validates the result and raises
    :class:`ScenarioError` (the layout unchanged) when the change is illegal.

    Attributes:
        layout: the current, valid layout.
        path: where :meth:`save` writes by default (the opened file, if any).
        name, description: written at the top of the saved file.
    """

    layout: Layout = field(default_factory=Layout)
    path: Path | None = None
    name: str | None = None
    description: str | None = None
    _history: list[Layout] = field(default_factory=list, repr=False)

    # ---- files ----------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path) -> "LayoutEditor":
        """Load a layout file (validated by ``load_layout``) with its name and description.

        Raises:
            ScenarioError: missing, not TOML, or an invalid layout.
        """
        lay = load_layout(path)
        return cls.parse(Path(path).read_text(encoding="utf-8"), path, lay)

    @classmethod
    def parse(cls, text: str, path: str | Path, layout: Layout | None = None) -> "LayoutEditor":
        """The editor of the layout TOML ``text`` (read from ``path``, which messages name and
        Save writes by default); ``layout`` if it was parsed already.

        Raises:
            ScenarioError: not TOML, or an invalid layout.
        """
        try:
            raw = tomllib.loads(text.removeprefix("\ufeff"))  # a byte-order mark is fine
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"not valid TOML: {e}", source=path) from None
        lay = layout if layout is not None else parse_layout(raw, path)
        name, desc = raw.get("name"), raw.get("description")
        return cls(rounded(replace(lay, source=None)), Path(path), name if isinstance(name, str) else None,
                   desc if isinstance(desc, str) else None)

    def toml(self) -> str:
        """The text :meth:`save` writes (``dump_layout_toml``)."""
        return dump_layout_toml(self.layout, self.name, self.description)

    def save(self, path: str | Path | None = None) -> Path:
        """Write the layout as TOML (whole, via a temporary file and a rename: never half-written).

        Raises:
            InputError: no path given or known, a path not ending in ``.toml``, or unwritable.
        """
        target = Path(path) if path is not None and str(path).strip() else self.path
        if target is None:
            raise InputError("no file to save to: give a path ending in .toml", key="save")
        check_output_file(target, "save", (".toml",))
        text = self.toml()
        try:
            write_atomically(target, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        except OSError as e:
            raise InputError(f"cannot write the layout: {e.strerror or e}", source=target, key="save") from None
        self.path = target
        return target

    # ---- edits ----------------------------------------------------------------------------

    def _commit(self, candidate: Layout) -> None:
        # the engine's own check, on the whole candidate: the same reasons load_layout gives
        validate_layout(candidate)
        self._history.append(self.layout)
        self.layout = candidate

    def _shape(self, shape: str) -> str:
        if shape not in self.layout.shapes:
            raise ScenarioError(f"unknown shape {shape!r}; allowed shapes are {allowed(SHAPE_NAMES)}", key="shape")
        return shape

    def _stone_index(self, index: int) -> int:
        n = len(self.layout.stones)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise ScenarioError(f"no stone {index!r}: the layout has stones 0 to {n - 1}" if n else
                                f"no stone {index!r}: the layout has no stones", key="stone")
        return index

    def add_stone(self, shape: str, angle_deg: float) -> int:
        """Stand a stone of ``shape`` on the base at ``angle_deg``; returns its index.

        Raises:
            ScenarioError: unknown shape, bad angle, the set has no more of that shape, it
                overlaps or touches a neighbour, or it sticks out over the base edge.
        """
        st = StoneSpec(self._shape(shape), _angle(angle_deg, "angle"), 1)
        self._commit(replace(self.layout, stones=self.layout.stones + (st,)))
        return len(self.layout.stones) - 1

    def stack_stone(self, shape: str, on: int) -> int:
        """Stack a stone of ``shape`` on the level-1 stone ``stones[on]``; returns its index.

        Raises:
            ScenarioError: ``on`` is not a level-1 stone, the position already has two levels,
                the set has none left, the wider top would touch a neighbour, or a gate resting
                on that position would no longer lie level.
        """
        below = self.layout.stones[self._stone_index(on)]
        if below.level != 1:
            raise ScenarioError(f"stones[{on}] is itself stacked; stack on a level-1 stone", key="stone")
        st = StoneSpec(self._shape(shape), below.angle_deg, 2)
        self._commit(replace(self.layout, stones=self.layout.stones + (st,)))
        return len(self.layout.stones) - 1

    def add_gate(self, shape: str, a: int, b: int) -> int:
        """Lay a ``shape`` as a gate across the level-1 stones ``a`` and ``b``; returns its index.

        Raises:
            ScenarioError: supports that are not neighbouring level-1 stones, of unequal heights,
                a gap the lintel cannot span with its overlap, an end that would hit the next
                stone, a gap already gated, or no stone of that shape left.
        """
        g = GateSpec(self._shape(shape), (self._stone_index(a), self._stone_index(b)))
        self._commit(replace(self.layout, gates=self.layout.gates + (g,)))
        return len(self.layout.gates) - 1

    def move_stone(self, index: int, angle_deg: float) -> None:
        """Move ``stones[index]`` to ``angle_deg``. A level-1 stone takes its stacked stone with
        it (gates on it stay, if they still fit); a level-2 stone moves onto the level-1 stone at
        the new angle.

        Raises:
            ScenarioError: the new place is illegal (overlap, no stone to stack on, a gate that
                no longer spans or is no longer between neighbours...).
        """
        st = self.layout.stones[self._stone_index(index)]
        new = _angle(angle_deg, "angle")
        stones = list(self.layout.stones)
        for j, s in enumerate(stones):
            if j == index or (st.level == 1 and s.level == 2 and _same(s.angle_deg, st.angle_deg)):
                stones[j] = replace(s, angle_deg=new)
        self._commit(replace(self.layout, stones=tuple(stones)))

    def delete_stone(self, index: int) -> list[str]:
        """Take ``stones[index]`` away, with what rests on it (its stacked stone and any gate on
        its position); later indices shift down and gates are renumbered. Returns what was removed,
        as ``stones[i]`` / ``gates[k]`` labels of the layout before the deletion."""
        st = self.layout.stones[self._stone_index(index)]
        gone = {index}
        if st.level == 1:
            gone |= {j for j, s in enumerate(self.layout.stones) if s.level == 2 and _same(s.angle_deg, st.angle_deg)}
        base = index if st.level == 1 else next(j for j, s in enumerate(self.layout.stones)
                                                if s.level == 1 and _same(s.angle_deg, st.angle_deg))
        # a gate rests on the top of its position: removing either level of a support drops it
        gates_gone = {k for k, g in enumerate(self.layout.gates) if base in g.between}
        new_index: dict[int, int] = {}
        for j in range(len(self.layout.stones)):
            if j not in gone:
                new_index[j] = len(new_index)
        stones = tuple(s for j, s in enumerate(self.layout.stones) if j not in gone)
        gates = tuple(GateSpec(g.shape, (new_index[g.between[0]], new_index[g.between[1]]))
                      for k, g in enumerate(self.layout.gates) if k not in gates_gone)
        self._commit(replace(self.layout, stones=stones, gates=gates))
        return [f"stones[{j}]" for j in sorted(gone)] + [f"gates[{k}]" for k in sorted(gates_gone)]

    def delete_gate(self, k: int) -> None:
        """Take ``gates[k]`` away.

        Raises:
            ScenarioError: no such gate.
        """
        n = len(self.layout.gates)
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < n:
            raise ScenarioError(f"no gate {k!r}: the layout has gates 0 to {n - 1}" if n else
                                f"no gate {k!r}: the layout has no gates", key="gate")
        self._commit(replace(self.layout, gates=self.layout.gates[:k] + self.layout.gates[k + 1:]))

    def undo(self) -> bool:
        """Go back one change; False when there is nothing to undo."""
        if not self._history:
            return False
        self.layout = self._history.pop()
        return True

    def replace_layout(self, layout: Layout, path: Path | None = None, name: str | None = None,
                       description: str | None = None) -> None:
        """Swap in another (validated) layout, e.g. one loaded from a file; undo brings the old one back."""
        validate_layout(layout)
        self._history.append(self.layout)
        self.layout = rounded(replace(layout, source=None))
        self.path, self.name, self.description = path, name, description

    # ---- what the page lists --------------------------------------------------------------

    def gaps(self) -> list[GapInfo]:
        """The ring's gaps (:func:`ring_gaps`)."""
        return ring_gaps(self.layout)

    def stone_label(self, i: int) -> str:
        """``"3: block at 103.2200 deg"`` (with ``, stacked`` for level 2)."""
        s = self.layout.stones[i]
        return f"{i}: {s.shape} at {s.angle_deg:.4f} deg{', stacked' if s.level == 2 else ''}"

    def gate_label(self, k: int) -> str:
        """``"gate 0: slab on stones[1] and stones[0]"``."""
        g = self.layout.gates[k]
        return f"gate {k}: {g.shape} on stones[{g.between[0]}] and stones[{g.between[1]}]"

    def left_in_set(self) -> dict[str, int]:
        """Stones of each shape not yet used (the set's ``count`` minus stones and gates)."""
        used = {n: 0 for n in self.layout.shapes}
        for s in self.layout.stones:
            used[s.shape] += 1
        for g in self.layout.gates:
            used[g.shape] += 1
        return {n: self.layout.shapes[n].count - used[n] for n in self.layout.shapes}

    # ---- physics --------------------------------------------------------------------------

    def settle(self) -> SettleOutcome:
        """Build the table in PyBullet at the layout's nominal poses, let it settle untouched and
        judge every stone as a pass would (knocked over, fell from its support, off the base)."""
        # start-up: the PyBullet table adds 18 ms (pybullet; CPU, python -X importtime), paid at the first settle
        from sim.sun.table.sun_table import SunTable

        with SunTable.from_layout(self.layout, settle_s=0.0) as t:
            start = {s.id: s.pos for s in t.stones()}
            # a zero kick: shake() wakes every stone, settles, and judges against the start poses
            pens, settled = t.shake(0.0, 0.0, remove_penalties=False)
            poses = {s.id: (s.pos, s.quat) for s in t.stones()}
        drift = {sid: 1000.0 * math.dist(start[sid], poses[sid][0]) for sid in start if sid in poses}
        return SettleOutcome([p.as_dict() for p in pens], drift, poses, settled)

    def run_pass(self, aim_deg: float, skill: str = DEFAULT_SKILL, seed: int = 0, release_m: float | None = None,
                 record_hz: float = 30.0) -> PassOutcome:
        """One pass released at ``aim_deg`` (the ball swings through the centre towards aim + 180)
        by a thrower of ``skill`` (noise drawn from ``default_rng(seed)``, as ``stonelab sun pass``
        does), recorded at ``record_hz`` frames per simulated second.

        Raises:
            InputError: a bad aim, skill or release (the engine's messages).
        """
        # start-up: the PyBullet table adds 18 ms (pybullet; CPU, python -X importtime), paid at the first pass
        from sim.sun.table.recording import PoseRecorder
        from sim.sun.table.sun_table import SunTable

        aim = _angle(aim_deg, "aim")
        thrower = skill_level(skill)
        noise = thrower.draw_pass(np.random.default_rng(seed))
        rec = PoseRecorder(record_hz)
        with SunTable.from_layout(self.layout) as t:
            res = t.pass_ball(math.radians(aim), release_m, noise, record=rec)
        out = res.as_dict(poses=False)
        out.update({"skill": thrower.name, "seed": seed})
        return PassOutcome(out, rec.to_dict())

    def sweep(self, skill: str = DEFAULT_SKILL, trials: int = 3, seed: int = 0, step_deg: float = 15.0) -> dict[str, Any]:
        """The aim sweep of ``sim.sun.table.stability.aim_sweep`` (chance of a clean pass by aim).

        Raises:
            InputError: bad skill, trials < 1 or a step outside 0.5 to 180 degrees.
        """
        # start-up: the stability tests add 21 ms (pybullet; CPU, python -X importtime), paid at the first sweep
        from sim.sun.table.stability import aim_sweep

        if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= 1000:
            raise InputError(f"trials must be a whole number from 1 to 1000, not {trials!r}", key="trials")
        if not (isinstance(step_deg, (int, float)) and 0.5 <= step_deg <= 180.0):
            raise InputError(f"step must be from 0.5 to 180 degrees, not {step_deg!r}", key="step")
        return aim_sweep(self.layout, skill_level(skill), trials, seed, float(step_deg))
