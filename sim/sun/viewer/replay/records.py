"""The replay in memory: :class:`DrawnBody`, :class:`TurnEvent` and :class:`Replay`, the format's
constants and colours, and the consistency check every reader and writer runs
(:func:`validate_replay`). The file itself is :mod:`sim.sun.viewer.replay.fileformat`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.errors import ReplayError

FORMAT = "stonelab.replay"
#: 2: turns may carry the rules' view (``TurnEvent.rules``) and the table its geometry (ring radius,
#: string length); a version-1 file reads as before, without them (docs/replay-format.md)
VERSION = 2
#: The table engineer's per-pass recording format (sim.sun.table.recording.PoseRecorder).
POSE_FORMAT = "stonelab.sun.poses"
POSE_VERSIONS = (1,)

# the stones' palette is the engine's (one place for every picture)
from sim.sun.geometry.palette import SHAPE_COLOURS as SHAPE_COLOURS, STONE_COLOUR as STONE_COLOUR  # noqa: E402 - re-exported
BALL_COLOUR = "#c9ced8"
BASE_COLOUR = "#6e4b2c"
# the string's and the penalty stones' colours are the rules' view's (one place: its legend names them)
from sim.sun.viewer.replay.overlay import cause_words, rules_lines  # noqa: E402
#: Pause (s) inserted on the timeline between two passes laid end to end.
DEFAULT_GAP_S = 0.5



# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawnBody:
    """One body as the viewer draws it, a stone or the ball: the replay's drawing record (its
    shape's box or sphere and colour; the poses are in the frames). The game's record of a stone
    (its role, what it rests on, its pose) is :class:`sim.sun.geometry.stone.Stone`, whose id is
    ``stone``.

    Attributes:
        key: unique key (``"stone:<id>"`` for stones, ``"ball"`` for the ball).
        kind: ``"stone"`` (a box) or ``"ball"`` (a sphere; ``size`` is its diameter three times).
        size: full extents (m) along the body's local x, y, z axes (stones: radial depth, width
            along the ring, height when standing, as the table builds them).
        colour: ``"#rrggbb"``.
        shape: the stone's shape name (``pillar``, ``block``, ``slab``, ...) or ``"ball"``.
        stone: the table's stone id, or None for the ball.
    """

    key: str
    kind: str
    size: tuple[float, float, float]
    colour: str
    shape: str = ""
    stone: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "size": list(self.size), "colour": self.colour,
                "shape": self.shape, "stone": self.stone}


@dataclass
class TurnEvent:
    """One turn (or one recorded pass): what was done and what it cost, with its frame range.

    Attributes:
        index: 0-based turn number on this replay.
        frames: ``(start, end)`` frame indices, end exclusive.
        seat: the seat that played, or None (a lone ``sun pass``).
        player: a label for the seat (agent name, ...).
        placements: what was stood where, in order: dicts with at least ``action`` (``stand``,
            ``stack``, ``gate``) and ``shape``, usually ``stone`` (id) and ``angle_deg``, and
            ``fell`` (bool) when the placement did not come to rest standing.
        marker: the marker move, a dict (e.g. ``{"gap_deg": [a, b]}``), or None.
        aim_deg, release_m: the pass as commanded (degrees, metres beyond the base edge).
        noise: the thrower's errors drawn for the pass (``aim_deg``, ``release_m``, ``push_*``).
        penalties: ``{"stone", "shape", "cause"}`` for each stone lost in this turn.
        outcome: free flags of the pass (``through_aim_gap``, ``reached_far_side``, ``invalid`` ...).
        text: extra free text shown under the event.
        rules: the rules' view of the turn's pass (``sim.sun.rules.pass_view.pass_view``: the ring's gaps
            and whether each is passable, every seat's markers and mark areas, the pass's aim,
            release point and allowed arcs, the penalties with their causes; checked on load by
            :func:`sim.sun.viewer.replay.overlay.check_rules_view`), or None (a version-1 file, a
            lone pass, a source that did not record it).
    """

    index: int
    frames: tuple[int, int]
    seat: int | None = None
    player: str = ""
    placements: list[dict[str, Any]] = field(default_factory=list)
    marker: dict[str, Any] | None = None
    aim_deg: float | None = None
    release_m: float | None = None
    noise: dict[str, Any] = field(default_factory=dict)
    penalties: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    rules: dict[str, Any] | None = None

    @property
    def penalty_stones(self) -> set[int]:
        """Ids of the stones that became penalties in this turn."""
        return {int(p["stone"]) for p in self.penalties if p.get("stone") is not None}

    def title(self) -> str:
        """One line: ``turn 3 · seat 1 (careful) · 2 penalties``."""
        parts = [f"turn {self.index + 1}"]
        if self.seat is not None:
            parts.append(f"seat {self.seat}" + (f" ({self.player})" if self.player else ""))
        elif self.player:
            parts.append(self.player)
        if self.aim_deg is not None:
            parts.append(f"aim {self.aim_deg:.0f}°")
        n = len(self.penalties)
        parts.append("clean" if n == 0 else f"{n} penalt{'y' if n == 1 else 'ies'}")
        return " · ".join(parts)

    def markdown(self) -> str:
        """The event as markdown: who stood what where, the marker, the aim, the penalties. Text
        from the replay file (labels, names) is escaped: it shows as text, never as a link or an image."""
        # start-up: the viewer's guard adds 1.6 ms to every command's start-up (CPU, python -X importtime)
        from sim.sun.viewer.guard import md_text

        lines = [f"**{md_text(self.title())}**", ""]
        for pl in self.placements:
            what = pl.get("action", "placed")
            verb = {"stand": "stood", "stack": "stacked", "gate": "made a gate of"}.get(what, what)
            where = ""
            if pl.get("angle_deg") is not None:
                where = f" at {float(pl['angle_deg']):.1f}°"
            if pl.get("on") is not None:
                where += f" on stone {pl['on']}"
            sid = f" (stone {pl['stone']})" if pl.get("stone") is not None else ""
            fell = " — it fell" if pl.get("fell") else ""
            lines.append(f"- {md_text(verb)} a {md_text(pl.get('shape', 'stone'))}{md_text(sid)}{where}{fell}")
        if self.marker:
            m = self.marker
            if "gap_deg" in m:
                a, b = m["gap_deg"]
                lines.append(f"- marker to the gap {float(a):.0f}°–{float(b):.0f}°")
            else:
                lines.append("- marker: " + md_text(", ".join(f"{k} {v}" for k, v in m.items())))
        if self.rules is not None:
            lines += [f"- {md_text(x)}" for x in rules_lines(self.rules)]
        if self.aim_deg is not None:
            rel = f", released {self.release_m:.3f} m out" if self.release_m is not None else ""
            lines.append(f"- pass thrown at {self.aim_deg:.1f}°{rel}")
            if self.noise:
                bits = [f"{k} {float(v):+.3g}" for k, v in self.noise.items() if isinstance(v, (int, float))]
                if bits:
                    lines.append("- thrower's error: " + md_text(", ".join(bits)))
        if self.penalties:
            lines.append("- penalties: " + md_text(", ".join(
                f"stone {p.get('stone')} ({p.get('shape', '?')}, {cause_words(str(p.get('cause', '?')))})"
                for p in self.penalties)))
        elif self.aim_deg is not None:
            lines.append("- no penalty")
        flags = [k.replace("_", " ") for k, v in self.outcome.items() if v is True]
        if flags:
            lines.append("- " + md_text(", ".join(flags)))
        if self.text:
            lines += ["", md_text(self.text)]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "frames": list(self.frames), "seat": self.seat, "player": self.player,
                "placements": self.placements, "marker": self.marker, "aim_deg": self.aim_deg,
                "release_m": self.release_m, "noise": self.noise, "penalties": self.penalties,
                "outcome": self.outcome, "text": self.text, "rules": self.rules}


@dataclass
class Replay:
    """A replay in memory (see the module docstring for the arrays' meaning).

    Attributes:
        bodies: the rendered bodies, one column of ``pos``/``quat`` each.
        times: ``(F,)`` float32 seconds.
        pos: ``(F, B, 3)`` float32 metres, NaN where the body is absent.
        quat: ``(F, B, 4)`` float32 (x, y, z, w).
        turns: turn events with frame ranges.
        table: ``base_radius``, ``base_thickness`` (m), ``pivot`` ([x, y, z] m) and ``ball_radius`` (m).
        meta: free JSON (preset, layout, seed, game id ...).
    """

    bodies: list[DrawnBody]
    times: np.ndarray
    pos: np.ndarray
    quat: np.ndarray
    turns: list[TurnEvent] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def n_frames(self) -> int:
        return int(self.times.shape[0])

    @property
    def duration(self) -> float:
        """Length of the timeline (s)."""
        return float(self.times[-1] - self.times[0]) if self.n_frames else 0.0

    def head(self, seconds: float) -> "Replay":
        """The first ``seconds`` of the timeline (turns cut to it, turns starting later dropped)."""
        k = int(np.searchsorted(self.times, self.times[0] + seconds + 1e-4, side="right")) if self.n_frames else 0
        turns = [replace(t, frames=(t.frames[0], min(t.frames[1], k))) for t in self.turns if t.frames[0] < k]
        return Replay(self.bodies, self.times[:k], self.pos[:k], self.quat[:k], turns, self.table, self.meta)

    def turn_range(self, first: int, stop: int) -> "Replay":
        """The turns ``first`` to ``stop - 1`` (0-based) alone, on their own frames (the turns keep
        their numbers, so turn 31 is still called turn 31).

        Raises:
            ReplayError: the range holds no turn of this replay.
        """
        picked = [t for t in self.turns if first <= t.index < stop]
        if not picked:
            raise ReplayError(f"the replay has turns 0..{len(self.turns) - 1}, none in {first}..{stop - 1}", key="turn")
        lo, hi = min(t.frames[0] for t in picked), max(t.frames[1] for t in picked)
        turns = [replace(t, frames=(t.frames[0] - lo, t.frames[1] - lo)) for t in picked]
        return Replay(self.bodies, self.times[lo:hi].copy(), self.pos[lo:hi].copy(), self.quat[lo:hi].copy(), turns,
                      dict(self.table), dict(self.meta))

    def frame_at(self, t: float) -> int:
        """Index of the last frame at or before time ``t`` (clamped to the timeline)."""
        i = int(np.searchsorted(self.times, np.float32(t), side="right")) - 1
        return min(max(i, 0), self.n_frames - 1)

    def turn_at(self, frame: int) -> TurnEvent | None:
        """The turn whose frame range holds ``frame`` (the last one starting before it otherwise)."""
        best = None
        for tr in self.turns:
            if tr.frames[0] <= frame:
                best = tr
            if tr.frames[0] <= frame < tr.frames[1]:
                return tr
        return best

    def index_of(self, key: str) -> int:
        for i, b in enumerate(self.bodies):
            if b.key == key:
                return i
        raise KeyError(key)

    def visible(self) -> np.ndarray:
        """``(F, B)`` bool: whether each body is on the table in each frame."""
        return np.isfinite(self.pos).all(axis=2)

    def validate(self, source: str | Path | None = None) -> None:
        """Check the arrays against the header; raise :class:`ReplayError` naming what is wrong."""
        validate_replay(self, source)

    def downsample(self, fps: float) -> "Replay":
        """A copy keeping at most about ``fps`` frames per second of timeline.

        The first and last frame of every turn and the frames around a body appearing or
        disappearing are always kept, so no event is lost.
        """
        if not (math.isfinite(fps) and fps > 0):
            raise ReplayError(f"frame rate must be a positive number, not {fps!r}", key="fps")
        n = self.n_frames
        if n <= 2:
            return self
        keep = np.zeros(n, dtype=bool)
        keep[0] = keep[-1] = True
        for tr in self.turns:
            keep[tr.frames[0]] = True
            keep[max(tr.frames[1] - 1, tr.frames[0])] = True
        vis = self.visible()
        change = np.nonzero((vis[1:] != vis[:-1]).any(axis=1))[0]
        keep[change] = True
        keep[change + 1] = True
        step = 1.0 / fps
        last = -math.inf
        for i, t in enumerate(self.times.astype(np.float64)):
            if keep[i] or t - last >= step * 0.98:  # float32 times: allow rounding
                keep[i] = True
                last = t
        idx = np.nonzero(keep)[0]
        before = np.concatenate([[0], np.cumsum(keep)])  # kept frames before each old index
        turns = [replace(tr, frames=(int(before[tr.frames[0]]), int(before[tr.frames[1]]))) for tr in self.turns]
        return Replay(list(self.bodies), self.times[idx].copy(), self.pos[idx].copy(), self.quat[idx].copy(),
                      turns, dict(self.table), dict(self.meta))

    def header(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "n_frames": self.n_frames, "n_bodies": len(self.bodies),
                "table": self.table, "bodies": [b.as_dict() for b in self.bodies],
                "turns": [t.as_dict() for t in self.turns], "meta": self.meta}



def validate_replay(r: Replay, source: str | Path | None = None) -> None:
    """Check a replay's arrays against its bodies, turns and table.

    Raises:
        ReplayError: the first inconsistency found, naming the key (``bodies``, ``pos``, ...).
    """
    def bad(msg: str, key: str | None = None) -> ReplayError:
        return ReplayError(msg, source=source, key=key)

    nb = len(r.bodies)
    if nb == 0:
        raise bad("the replay has no bodies", "bodies")
    keys = [b.key for b in r.bodies]
    if len(set(keys)) != nb:
        raise bad("duplicate body keys", "bodies")
    for b in r.bodies:
        if b.kind not in ("stone", "ball"):
            raise bad(f"body {b.key!r}: kind must be 'stone' or 'ball', not {b.kind!r}", "bodies")
        if len(b.size) != 3 or not all(math.isfinite(s) and s > 0 for s in b.size):
            raise bad(f"body {b.key!r}: size must be three positive lengths, not {list(b.size)}", "bodies")
        if not (isinstance(b.colour, str) and len(b.colour) == 7 and b.colour.startswith("#")):
            raise bad(f"body {b.key!r}: colour must be '#rrggbb', not {b.colour!r}", "bodies")
    for name, arr, tail in (("times", r.times, ()), ("pos", r.pos, (nb, 3)), ("quat", r.quat, (nb, 4))):
        if arr.dtype != np.float32:
            raise bad(f"{name} must be float32, not {arr.dtype}", name)
        if arr.ndim != 1 + len(tail) or tuple(arr.shape[1:]) != tail:
            raise bad(f"{name} has shape {arr.shape}, expected (frames, {', '.join(map(str, tail))})".replace(
                ", )", ")"), name)
    f = r.times.shape[0]
    if f == 0:
        raise bad("the replay has no frames", "times")
    if r.pos.shape[0] != f or r.quat.shape[0] != f:
        raise bad(f"frame counts differ: times {f}, pos {r.pos.shape[0]}, quat {r.quat.shape[0]}", "pos")
    if not np.isfinite(r.times).all() or (np.diff(r.times) < 0).any():
        raise bad("times must be finite and non-decreasing", "times")
    fin = np.isfinite(r.pos)
    vis = fin.all(axis=2)
    if (fin.any(axis=2) & ~vis).any():
        raise bad("a position has some coordinates NaN and others not", "pos")
    q = r.quat[vis]
    if not np.isfinite(q).all():
        raise bad("a visible body has a non-finite orientation", "quat")
    if q.size and (np.abs(np.linalg.norm(q, axis=1) - 1.0) > 1e-2).any():
        raise bad("orientations must be unit quaternions", "quat")
    for t in r.turns:
        lo, hi = t.frames
        if not (0 <= lo < hi <= f):
            raise bad(f"turn {t.index}: frame range [{lo}, {hi}) is outside 0..{f}", "turns")
    piv = r.table.get("pivot")
    if piv is not None and (not isinstance(piv, (list, tuple)) or len(piv) != 3
                            or not all(_finite_number(x) for x in piv)):
        raise bad(f"pivot must be [x, y, z], not {piv!r}", "table")
    for k in TABLE_LENGTHS:
        v = r.table.get(k)
        if v is not None and not (_finite_number(v) and v > 0):
            raise bad(f"{k} must be a positive length in metres, not {v!r}", "table")


#: The table's lengths a replay's header may give (m; each positive when present).
TABLE_LENGTHS = ("base_radius", "base_thickness", "ball_radius", "ring_radius", "string_length", "pass_width",
                 "gate_clear_z")


def _finite_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)



def hex_rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` to an (r, g, b) tuple of 0..255."""
    c = colour.lstrip("#")
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))
