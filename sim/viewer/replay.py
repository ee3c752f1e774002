"""The replay file: per-frame poses of every body plus the turn events (format: docs/replay-format.md).

A replay is one ``.npz`` archive (``numpy.savez_compressed``, no pickles) with four members:

- ``header``: UTF-8 JSON as a ``uint8`` array: ``format`` (``"stonelab.replay"``), ``version``, the
  table (base radius and thickness, the string's pivot, the ball's radius), the bodies (key, kind,
  shape, full size along the body's local axes in metres, colour), the turns (seat, placements, the
  marker move, the aim, penalties, outcome, and the frame range ``[start, end)``) and free ``meta``;
- ``times``: ``float32 (F,)`` seconds on the replay's timeline, non-decreasing;
- ``pos``: ``float32 (F, B, 3)`` body centres in metres (world, z up, base top at z = 0); a body
  absent from a frame (not placed yet, removed as a penalty, the ball between passes) is NaN;
- ``quat``: ``float32 (F, B, 4)`` orientations as (x, y, z, w) quaternions, as PyBullet gives them.

:func:`load_replay` validates everything and raises :class:`sim.core.errors.ReplayError` (an
``InputError``: the CLI exits 2) for a truncated, foreign, inconsistent or newer file.

Replays are built from the table's pose recordings (``sim.sun.recording.PoseRecorder``, format
``stonelab.sun.poses``, docs/pose-recording.md) by :func:`from_pose_recording` (one pass) or a
:class:`ReplayBuilder` (a whole game: one recording per pass, laid end to end on one timeline).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, cast

import numpy as np

from sim.core.errors import ReplayError
from sim.core.files import check_input_file
from sim.core.outputs import write_atomically

FORMAT = "stonelab.replay"
VERSION = 1
#: The table engineer's per-pass recording format (sim.sun.recording.PoseRecorder).
POSE_FORMAT = "stonelab.sun.poses"
POSE_VERSIONS = (1,)

SHAPE_COLOURS: dict[str, str] = {"pillar": "#8f9cab", "block": "#cbb58d", "slab": "#9a8470"}
STONE_COLOUR = "#b4a48e"
BALL_COLOUR = "#c9ced8"
BASE_COLOUR = "#6e4b2c"
STRING_COLOUR = "#303030"
#: Colour of the stones that became penalties during the turn being shown.
PENALTY_COLOUR = "#e02424"
#: Pause (s) inserted on the timeline between two passes laid end to end.
DEFAULT_GAP_S = 0.5

_REQUIRED = ("header", "times", "pos", "quat")


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Body:
    """One rendered body.

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
        """The event as markdown: who stood what where, the marker, the aim, the penalties."""
        lines = [f"**{self.title()}**", ""]
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
            lines.append(f"- {verb} a {pl.get('shape', 'stone')}{sid}{where}{fell}")
        if self.marker:
            m = self.marker
            if "gap_deg" in m:
                a, b = m["gap_deg"]
                lines.append(f"- marker to the gap {float(a):.0f}°–{float(b):.0f}°")
            else:
                lines.append("- marker: " + ", ".join(f"{k} {v}" for k, v in m.items()))
        if self.aim_deg is not None:
            rel = f", released {self.release_m:.3f} m out" if self.release_m is not None else ""
            lines.append(f"- pass thrown at {self.aim_deg:.1f}°{rel}")
            if self.noise:
                bits = [f"{k} {float(v):+.3g}" for k, v in self.noise.items() if isinstance(v, (int, float))]
                if bits:
                    lines.append("- thrower's error: " + ", ".join(bits))
        if self.penalties:
            lines.append("- penalties: " + ", ".join(
                f"stone {p.get('stone')} ({p.get('shape', '?')}, {str(p.get('cause', '?')).replace('_', ' ')})"
                for p in self.penalties))
        elif self.aim_deg is not None:
            lines.append("- no penalty")
        flags = [k.replace("_", " ") for k, v in self.outcome.items() if v is True]
        if flags:
            lines.append("- " + ", ".join(flags))
        if self.text:
            lines += ["", self.text]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "frames": list(self.frames), "seat": self.seat, "player": self.player,
                "placements": self.placements, "marker": self.marker, "aim_deg": self.aim_deg,
                "release_m": self.release_m, "noise": self.noise, "penalties": self.penalties,
                "outcome": self.outcome, "text": self.text}


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

    bodies: list[Body]
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
        from dataclasses import replace

        k = int(np.searchsorted(self.times, self.times[0] + seconds + 1e-4, side="right")) if self.n_frames else 0
        turns = [replace(t, frames=(t.frames[0], min(t.frames[1], k))) for t in self.turns if t.frames[0] < k]
        return Replay(self.bodies, self.times[:k], self.pos[:k], self.quat[:k], turns, self.table, self.meta)

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
        _validate(self, source)

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


# --------------------------------------------------------------------------------------------
# Save and load
# --------------------------------------------------------------------------------------------


def save_replay(replay: Replay, path: str | Path, *, fps: float | None = None) -> Path:
    """Validate and write ``replay`` to ``path`` (an ``.npz``), optionally downsampled to ``fps``.

    The file is written to a temporary name and renamed, so a crash never leaves half a replay.
    Returns the path written. Raises :class:`ReplayError` if the replay is inconsistent.
    """
    if fps is not None:
        replay = replay.downsample(fps)
    replay.validate()
    path = Path(path)
    header = json.dumps(replay.header(), separators=(",", ":"), default=_json_default).encode("utf-8")
    buf = io.BytesIO()
    np.savez_compressed(buf, header=np.frombuffer(header, dtype=np.uint8),
                        times=replay.times.astype(np.float32), pos=replay.pos.astype(np.float32),
                        quat=replay.quat.astype(np.float32))
    return write_atomically(path, lambda tmp: tmp.write_bytes(buf.getvalue()))


def load_replay(path: str | Path) -> Replay:
    """Read and validate a replay file.

    Raises:
        ReplayError: the file is missing, truncated, not a replay (foreign), of a newer version,
            or its arrays disagree with its header. The message names the file and the problem.
    """
    path = Path(path)
    src = str(path)
    check_input_file(path, "replay file", ReplayError)  # also refuses a FIFO, whose read would block
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"PK\x03\x04":
        raise ReplayError("not a stonelab replay (not an .npz archive)", source=src)
    try:
        with np.load(path, allow_pickle=False) as z:
            names = set(z.files)
            missing = [k for k in _REQUIRED if k not in names]
            if missing:
                raise ReplayError(f"not a stonelab replay: missing {', '.join(missing)}", source=src)
            raw = {k: z[k] for k in _REQUIRED}
    except ReplayError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError) as e:
        raise ReplayError(f"not a readable replay (truncated or foreign file): {e}", source=src) from None
    try:
        header = json.loads(raw["header"].astype(np.uint8).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as e:
        raise ReplayError(f"the replay's header is not JSON: {e}", source=src, key="header") from None
    return replay_from_parts(header, raw["times"], raw["pos"], raw["quat"], source=src)


def _floats3(v: Iterable[Any]) -> tuple[float, float, float]:
    """``tuple(float(x) for x in v)``, typed as a 3-tuple (``Replay.validate`` rejects another length)."""
    return cast("tuple[float, float, float]", tuple(float(x) for x in v))


def replay_from_parts(header: Mapping[str, Any], times: np.ndarray, pos: np.ndarray, quat: np.ndarray,
                      source: str | Path | None = None) -> Replay:
    """Build and validate a :class:`Replay` from a header dict and its three arrays."""
    if not isinstance(header, Mapping):
        raise ReplayError("the header is not a JSON object", source=source, key="header")
    fmt = header.get("format")
    if fmt != FORMAT:
        raise ReplayError(f"not a stonelab replay (format {fmt!r}, expected {FORMAT!r})", source=source,
                          key="format")
    ver = header.get("version")
    if not isinstance(ver, int) or ver < 1:
        raise ReplayError(f"bad version {ver!r}", source=source, key="version")
    if ver > VERSION:
        raise ReplayError(f"replay version {ver} is newer than this stonelab reads (up to {VERSION})",
                          source=source, key="version")
    _objects(header, "bodies", source)
    _objects(header, "turns", source, required=False)
    try:
        bodies = [Body(key=str(b["key"]), kind=str(b["kind"]), size=_floats3(b["size"]),
                       colour=str(b.get("colour", STONE_COLOUR)), shape=str(b.get("shape", "")),
                       stone=None if b.get("stone") is None else int(b["stone"])) for b in header["bodies"]]
        turns = [TurnEvent(index=int(t["index"]), frames=(int(t["frames"][0]), int(t["frames"][1])),
                           seat=None if t.get("seat") is None else int(t["seat"]), player=str(t.get("player", "")),
                           placements=list(t.get("placements") or []), marker=t.get("marker"),
                           aim_deg=_opt_float(t.get("aim_deg")), release_m=_opt_float(t.get("release_m")),
                           noise=dict(t.get("noise") or {}), penalties=list(t.get("penalties") or []),
                           outcome=dict(t.get("outcome") or {}), text=str(t.get("text", "")))
                 for t in header.get("turns", [])]
        table = dict(header.get("table") or {})
        meta = dict(header.get("meta") or {})
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise ReplayError(f"malformed header: {type(e).__name__} {e}", source=source, key="header") from None
    rep = Replay(bodies, np.asarray(times), np.asarray(pos), np.asarray(quat), turns, table, meta)
    _validate(rep, source)
    return rep


def _opt_float(v: Any) -> float | None:
    return None if v is None else float(v)


def _validate(r: Replay, source: str | Path | None) -> None:
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
    if piv is not None and (len(piv) != 3 or not all(math.isfinite(float(x)) for x in piv)):
        raise bad(f"pivot must be [x, y, z], not {piv!r}", "table")


def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (set, tuple)):
        return list(o)
    return str(o)


# --------------------------------------------------------------------------------------------
# Converters from the table's pose recordings
# --------------------------------------------------------------------------------------------


_JSON_TYPES = {str: "a string", bool: "true or false", int: "a number", float: "a number", dict: "an object",
               list: "a list", type(None): "null"}


def _objects(d: Mapping[str, Any], key: str, source: str | Path | None, *, required: bool = True) -> list[Any]:
    """``d[key]`` checked to be a JSON list of objects (each a dict), as the readers below index them.

    Raises:
        ReplayError: missing (when ``required``), not a list, or an item that is not an object; the
            message names the key and what it holds (a string where the bodies should be was an
            AttributeError traceback).
    """
    if key not in d:
        if required:
            raise ReplayError("missing; expected a list of objects", source=source, key=key)
        return []
    v = d[key]
    if not isinstance(v, list):
        raise ReplayError(f"must be a list of objects, not {_JSON_TYPES.get(type(v), type(v).__name__)}",
                          source=source, key=key)
    for i, item in enumerate(v):
        if not isinstance(item, Mapping):
            raise ReplayError(f"must be an object, not {_JSON_TYPES.get(type(item), type(item).__name__)}",
                              source=source, key=f"{key}[{i}]")
    return v


def _recording_dict(rec: Any, source: str | Path | None = None) -> dict[str, Any]:
    if hasattr(rec, "to_dict"):
        rec = rec.to_dict()
    elif isinstance(rec, (str, Path)):
        source = source or str(rec)
        try:
            rec = json.loads(Path(rec).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ReplayError(f"not a readable pose recording: {e}", source=source) from None
    if not isinstance(rec, Mapping) or rec.get("format") != POSE_FORMAT:
        fmt = rec.get("format") if isinstance(rec, Mapping) else type(rec).__name__
        raise ReplayError(f"not a pose recording (format {fmt!r}, expected {POSE_FORMAT!r})", source=source,
                          key="format")
    if rec.get("version") not in POSE_VERSIONS:
        raise ReplayError(f"pose recording version {rec.get('version')!r} is not supported "
                          f"(reads {', '.join(map(str, POSE_VERSIONS))})", source=source, key="version")
    return dict(rec)


def from_pose_recording(rec: Any, *, seat: int | None = None, player: str = "",
                        placements: Sequence[Mapping[str, Any]] = (), marker: Mapping[str, Any] | None = None,
                        outcome: Mapping[str, Any] | None = None, noise: Mapping[str, Any] | None = None,
                        release_m: float | None = None, text: str = "", meta: Mapping[str, Any] | None = None,
                        source: str | Path | None = None) -> Replay:
    """Convert one pass recorded by ``sim.sun.recording.PoseRecorder`` into a one-turn :class:`Replay`.

    Args:
        rec: a ``PoseRecorder``, its ``to_dict()``, or the path of its JSON file.
        seat, player, placements, marker, outcome, noise, release_m, text: the turn's event (see
            :class:`TurnEvent`); the aim and the penalties are read from the recording's events.
        meta: extra header metadata.

    Raises:
        ReplayError: ``rec`` is not a pose recording of a supported version, or is malformed.
    """
    d = _recording_dict(rec, source)
    body_list = _objects(d, "bodies", source)
    event_list = _objects(d, "events", source, required=False)
    if not isinstance(d.get("base") or {}, Mapping):
        raise ReplayError("must be an object with radius and thickness (m)", source=source, key="base")
    try:
        bodies: list[Body] = []
        for b in body_list:
            if b.get("kind") == "ball":
                r = float(b["radius"])
                bodies.append(Body("ball", "ball", (2 * r, 2 * r, 2 * r), BALL_COLOUR, "ball", None))
            else:
                he = [float(x) for x in b["half_extents"]]
                shape = str(b.get("shape", ""))
                bodies.append(Body(str(b["key"]), "stone", (2 * he[0], 2 * he[1], 2 * he[2]),
                                   SHAPE_COLOURS.get(shape, STONE_COLOUR), shape,
                                   None if b.get("stone") is None else int(b["stone"])))
        nb = len(bodies)
        frames = d["frames"]
        nf = len(frames)
        times = np.empty(nf, dtype=np.float64)
        pos = np.full((nf, nb, 3), np.nan, dtype=np.float64)
        quat = np.zeros((nf, nb, 4), dtype=np.float64)
        quat[..., 3] = 1.0
        for i, (t, row) in enumerate(frames):
            times[i] = float(t)
            for j, v in enumerate(row[:nb]):
                if v is not None:
                    pos[i, j] = v[:3]
                    quat[i, j] = v[3:7]
        pivot = None
        ball_r = None
        for b in body_list:
            if b.get("kind") == "ball":
                pivot = [float(x) for x in b.get("pivot", [0.0, 0.0, 0.0])]
                ball_r = float(b["radius"])
        base = d.get("base") or {}
        table: dict[str, Any] = {"base_radius": float(base.get("radius", 0.15)),
                                 "base_thickness": float(base.get("thickness", 0.02)),
                                 "pivot": pivot, "ball_radius": ball_r}
        aim = None
        horizontal = None
        penalties: list[dict[str, Any]] = []
        shape_of = {b.stone: b.shape for b in bodies if b.stone is not None}
        for ev in event_list:
            if ev.get("type") == "release":
                aim = _opt_float(ev.get("aim_deg"))
                horizontal = _opt_float(ev.get("horizontal_m"))
            elif ev.get("type") == "penalty":
                sid = int(ev["stone"])
                penalties.append({"stone": sid, "shape": shape_of.get(sid, "?"), "cause": ev.get("cause", "?")})
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise ReplayError(f"malformed pose recording: {type(e).__name__} {e}", source=source) from None
    if nf == 0:
        raise ReplayError("the pose recording has no frames", source=source, key="frames")
    if release_m is None and horizontal is not None:
        release_m = horizontal - table["base_radius"]
    m: dict[str, Any] = {k: d[k] for k in ("preset", "dt", "rate_hz") if k in d}
    m.update(meta or {})
    turn = TurnEvent(0, (0, nf), seat, player, [dict(p) for p in placements], dict(marker) if marker else None,
                     aim, release_m, dict(noise or {}), penalties, dict(outcome or {}), text)
    rep = Replay(bodies, times.astype(np.float32), pos.astype(np.float32), quat.astype(np.float32), [turn], table, m)
    _normalise_quats(rep)
    rep.validate(source)
    return rep


def _normalise_quats(rep: Replay) -> None:
    n = np.linalg.norm(rep.quat, axis=2, keepdims=True)
    n[n == 0] = 1.0
    rep.quat = (rep.quat / n).astype(np.float32)


def concat_replays(parts: Sequence[Replay], gap_s: float = DEFAULT_GAP_S, meta: Mapping[str, Any] | None = None
                   ) -> Replay:
    """Lay replays end to end on one timeline (``gap_s`` seconds apart), merging bodies by key.

    A body missing from a part is absent (NaN) during that part. Turns are renumbered in order.
    """
    if not parts:
        raise ReplayError("nothing to put in the replay (no recorded pass)")
    keys: dict[str, Body] = {}
    for rp in parts:
        for b in rp.bodies:
            keys.setdefault(b.key, b)
    bodies = list(keys.values())
    col = {b.key: i for i, b in enumerate(bodies)}
    nb = len(bodies)
    times: list[np.ndarray] = []
    poss: list[np.ndarray] = []
    quats: list[np.ndarray] = []
    turns: list[TurnEvent] = []
    offset = 0.0
    nframes = 0
    for k, rp in enumerate(parts):
        t = rp.times.astype(np.float64)
        shift = (offset - t[0]) if k else 0.0
        times.append(t + shift)
        pos = np.full((rp.n_frames, nb, 3), np.nan, dtype=np.float32)
        quat = np.zeros((rp.n_frames, nb, 4), dtype=np.float32)
        quat[..., 3] = 1.0
        cols = [col[b.key] for b in rp.bodies]
        pos[:, cols] = rp.pos
        quat[:, cols] = rp.quat
        poss.append(pos)
        quats.append(quat)
        for tr in rp.turns:
            turns.append(replace(tr, index=len(turns), frames=(tr.frames[0] + nframes, tr.frames[1] + nframes)))
        nframes += rp.n_frames
        offset = float(times[-1][-1]) + gap_s
    table = next((dict(rp.table) for rp in parts if rp.table), {})
    m = dict(parts[0].meta)
    m.update(meta or {})
    rep = Replay(bodies, np.concatenate(times).astype(np.float32), np.concatenate(poss), np.concatenate(quats),
                 turns, table, m)
    rep.validate()
    return rep


class ReplayBuilder:
    """Collects the passes of a whole game into one replay.

    Usage (the game layer, with recording on)::

        b = ReplayBuilder(meta={"game": "sun", "seed": 7})
        for each turn:
            rec = PoseRecorder(60)
            result = table.pass_ball(aim, release, noise, record=rec)
            b.add_pass(rec, seat=s, player="careful", placements=[{"action": "stand", "shape": "block",
                       "stone": 33, "angle_deg": 41.0}], outcome={"through_aim_gap": True})
        save_replay(b.build(), "game-0001.npz", fps=30)
    """

    def __init__(self, gap_s: float = DEFAULT_GAP_S, meta: Mapping[str, Any] | None = None) -> None:
        self.gap_s = float(gap_s)
        self.meta = dict(meta or {})
        self.parts: list[Replay] = []

    def add_pass(self, rec: Any, **turn: Any) -> TurnEvent:
        """Add one recorded pass (see :func:`from_pose_recording` for the turn keywords)."""
        rp = from_pose_recording(rec, **turn)
        self.parts.append(rp)
        return rp.turns[0]

    def build(self) -> Replay:
        """The whole replay. Raises :class:`ReplayError` if no pass was added."""
        return concat_replays(self.parts, self.gap_s, self.meta)


def load_any(path: str | Path, game_index: int | None = None, point: int = 0) -> Replay:
    """Load a replay from whatever holds one, converting on the fly:

    a replay file (``.npz``); a pose recording of one pass (JSON, ``stonelab sun pass --record``);
    a game record (JSON with ``calls``, ``sim.sun.game.record_game``); a run folder or its
    ``results.sqlite`` (game ``game_index`` of sweep point ``point``, see :func:`from_store`).

    Raises:
        ReplayError: none of these, or an invalid one.
    """
    path = Path(path)
    if path.is_dir() or path.suffix in (".sqlite", ".db"):
        return from_store(path, game_index, point)
    check_input_file(path, "replay file", ReplayError)
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip()
    if head.startswith(b"{"):
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ReplayError(f"not valid JSON: {e}", source=str(path)) from None
        if isinstance(d, Mapping) and "calls" in d:
            return from_game_record(d, source=str(path))
        return from_pose_recording(d, source=str(path))
    return load_replay(path)


def _placement_from_still(d: Mapping[str, Any]) -> dict[str, Any]:
    """What a one-frame placement recording (``kind: place``) says was stood where."""
    ev: Mapping[str, Any] = next((e for e in d.get("events", []) if e.get("type") == "placed"), {})
    sid = ev.get("stone")
    out: dict[str, Any] = {"action": "place", "stone": sid, "fell": not bool(ev.get("standing", True))}
    if ev.get("cause"):
        out["cause"] = ev["cause"]
    bodies = d.get("bodies", [])
    frames = d.get("frames", [])
    for j, b in enumerate(bodies):
        if b.get("stone") == sid and sid is not None:
            out["shape"] = b.get("shape", "stone")
            row = frames[-1][1] if frames else []
            pose = row[j] if j < len(row) else None
            if pose is not None:
                x, y, z, qx, qy, qz, qw = pose
                out["angle_deg"] = round(math.degrees(math.atan2(y, x)) % 360.0, 1)
                # local z axis' vertical component: a lying stone is a gate's lintel
                up = 1.0 - 2.0 * (qx * qx + qy * qy)
                half_h = float(b.get("half_extents", [0, 0, 0.03])[2])
                if abs(up) < 0.5:
                    out["action"] = "gate"
                elif z > 1.6 * half_h:
                    out["action"] = "stack"
                else:
                    out["action"] = "stand"
    return out


def from_game_record(record: Any, *, hold_s: float = 0.6, gap_s: float = DEFAULT_GAP_S,
                     meta: Mapping[str, Any] | None = None, source: str | Path | None = None) -> Replay:
    """Convert the physics calls of a whole game into one replay, one turn event per game turn.

    ``record`` is what ``sim.sun.game.record_game`` returns (a dict with ``calls``), or the list of
    calls itself: ``{"turn", "seat", "kind": "place"|"pass", "data": <pose recording>}`` (the rows of
    a run's ``sun_frames`` table have the same keys, ``data`` as JSON text). A placement's
    one-frame recording is held ``hold_s`` seconds on the timeline.

    Raises:
        ReplayError: no calls, or a malformed recording.
    """
    calls = record.get("calls") if isinstance(record, Mapping) else record
    if not calls:
        raise ReplayError("the game record holds no recorded physics call (was recording on?)", source=source)
    m: dict[str, Any] = {}
    if isinstance(record, Mapping):
        m.update({k: record[k] for k in ("game", "seed", "index", "outcome") if k in record})
    m.update(meta or {})
    groups: list[list[Mapping[str, Any]]] = []
    for c in calls:
        key = (c.get("turn"), c.get("seat"))
        if groups and (groups[-1][0].get("turn"), groups[-1][0].get("seat")) == key:
            groups[-1].append(c)
        else:
            groups.append([c])
    parts: list[Replay] = []
    for g in groups:
        seat = g[0].get("seat")
        seat = None if seat is None or int(seat) < 0 else int(seat)
        placements: list[dict[str, Any]] = []
        pieces: list[Replay] = []
        pass_info: dict[str, Any] = {}
        for c in g:
            data = c.get("data")
            if isinstance(data, (str, bytes)):
                try:
                    data = json.loads(data)
                except json.JSONDecodeError as e:
                    raise ReplayError(f"a recorded call is not JSON: {e}", source=source) from None
            d = _recording_dict(data, source)
            if c.get("kind") == "place":
                placements.append(_placement_from_still(d))
                rp = from_pose_recording(d, source=source)
                if rp.n_frames == 1:  # hold the still a moment so it can be seen
                    rp = Replay(rp.bodies, np.array([rp.times[0], rp.times[0] + hold_s], np.float32),
                                np.repeat(rp.pos, 2, axis=0), np.repeat(rp.quat, 2, axis=0),
                                [replace(rp.turns[0], frames=(0, 2))], rp.table, rp.meta)
                pieces.append(rp)
            else:
                rp = from_pose_recording(d, source=source)
                t = rp.turns[0]
                pass_info = {"aim_deg": t.aim_deg, "release_m": t.release_m}
                pieces.append(rp)
        whole = concat_replays(pieces, gap_s=0.0) if len(pieces) > 1 else pieces[0]
        penalties = [p for rp in pieces for tr in rp.turns for p in tr.penalties]
        turn = TurnEvent(0, (0, whole.n_frames), seat, "", placements, None, pass_info.get("aim_deg"),
                         pass_info.get("release_m"), {}, penalties, {}, "")
        parts.append(Replay(whole.bodies, whole.times, whole.pos, whole.quat, [turn], whole.table, whole.meta))
    return concat_replays(parts, gap_s=gap_s, meta=m)


def from_store(run: str | Path, game_index: int | None = None, point: int = 0, resimulate: bool = True) -> Replay:
    """The replay of one game of a run (a run folder or its ``results.sqlite``).

    Uses the frames the run kept (``sun_frames``, scenario ``[record] frames``) when it has them for
    that game; otherwise, with ``resimulate``, re-plays the game exactly from its seed with
    recording on (``sim.sun.game.record_game``). ``game_index`` None: the first game with frames,
    else game 0.

    Raises:
        ReplayError: not a run store, not a sun run, no such game, nothing recorded and no re-simulation.
    """
    import sqlite3

    path = Path(run)
    db = path / "results.sqlite" if path.is_dir() else path
    src = str(db)
    if not db.is_file():
        raise ReplayError("no results.sqlite here (not a run folder)", source=str(path))
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise ReplayError(f"cannot open the store: {e}", source=src) from None
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall()) if _has_table(con, "meta") else {}
        game = meta.get("game")
        if game != "sun":
            raise ReplayError(f"replays exist for sun runs only; this run is of {game!r}", source=src)
        rows: list[tuple[Any, ...]] = []
        if _has_table(con, "sun_frames"):
            if game_index is None:
                r = con.execute("SELECT game_index FROM sun_frames WHERE point = ? ORDER BY game_index LIMIT 1",
                                (point,)).fetchone()
                game_index = int(r[0]) if r else 0
            rows = con.execute("SELECT turn, seat, kind, data FROM sun_frames WHERE point = ? AND game_index = ? "
                               "ORDER BY seq", (point, game_index)).fetchall()
        game_index = 0 if game_index is None else game_index
        n = con.execute("SELECT COUNT(*) FROM games WHERE point = ? AND game_index = ?",
                        (point, game_index)).fetchone()[0] if _has_table(con, "games") else 0
        scenario_json = meta.get("scenario_json")
    except sqlite3.Error as e:
        raise ReplayError(f"cannot read the store: {e}", source=src) from None
    finally:
        con.close()
    info = {"run": str(path), "point": point, "game_index": game_index}
    if rows:
        calls = [{"turn": t, "seat": s, "kind": k, "data": d} for t, s, k, d in rows]
        return from_game_record(calls, meta=info, source=src)
    if not resimulate:
        raise ReplayError(f"the run kept no frames for game {game_index} (point {point})", source=src)
    if not n:
        raise ReplayError(f"the run has no game {game_index} at point {point}", source=src)
    if not scenario_json:
        raise ReplayError("the store does not hold its scenario; cannot re-simulate", source=src)
    from sim.core.scenario import scenario_from_dict
    from sim.games import REGISTRY
    from sim.sun.game import record_game

    sc = scenario_from_dict(json.loads(scenario_json), REGISTRY, source=src)
    pts = sc.points(REGISTRY)
    if not (0 <= point < len(pts)):
        raise ReplayError(f"the run has sweep points 0..{len(pts) - 1}, not {point}", source=src)
    rec = record_game(pts[point].scenario, game_index)
    return from_game_record(rec, meta={**info, "resimulated": True}, source=src)


def _has_table(con: Any, name: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone() is not None


# --------------------------------------------------------------------------------------------
# Synthetic replays (tests, demos)
# --------------------------------------------------------------------------------------------


def synthetic_replay(n_stones: int = 8, seconds: float = 3.0, fps: float = 30.0, turns: int = 1,
                     ring_radius: float = 0.13, string_m: float = 2.0) -> Replay:
    """A small replay made without physics: a ring of blocks, a pendulum swinging through a gap.

    In each turn the ball swings across the table; the first stone of the ring topples over in the
    first turn and is gone in the next ones (a penalty). For unit tests and demos only.
    """
    he = (0.0075, 0.015, 0.025)
    bodies = [Body(f"stone:{i}", "stone", (2 * he[0], 2 * he[1], 2 * he[2]), SHAPE_COLOURS["block"], "block", i)
              for i in range(n_stones)]
    bodies.append(Body("ball", "ball", (0.035,) * 3, BALL_COLOUR, "ball", None))
    pivot = np.array([0.0, 0.0, string_m + 0.0275])
    nper = max(2, int(round(seconds * fps)))
    parts = []
    for k in range(turns):
        t = np.arange(nper) / fps
        pos = np.full((nper, len(bodies), 3), np.nan)
        quat = np.zeros((nper, len(bodies), 4))
        quat[..., 3] = 1.0
        for i in range(n_stones):
            a = 2 * math.pi * (i + 0.5) / n_stones
            if i == 0 and k > 0:
                continue
            pos[:, i] = [ring_radius * math.cos(a), ring_radius * math.sin(a), he[2]]
            yaw = a
            quat[:, i] = [0, 0, math.sin(yaw / 2), math.cos(yaw / 2)]
            if i == 0 and k == 0:
                # topple outward about the outer bottom edge over the second half of the pass
                tilt = np.clip((t - seconds / 2) / (seconds / 4), 0, 1) * (math.pi / 2)
                for j, th in enumerate(tilt):
                    ax = np.array([-math.sin(a), math.cos(a), 0.0])  # tangent: tipping outward
                    q = np.r_[ax * math.sin(th / 2), math.cos(th / 2)]
                    qyaw = np.array([0, 0, math.sin(yaw / 2), math.cos(yaw / 2)])
                    quat[j, i] = _qmul(q, qyaw)
                    edge = np.array([(ring_radius + he[0]) * math.cos(a), (ring_radius + he[0]) * math.sin(a), 0])
                    rel = np.array([-he[0] * math.cos(a), -he[0] * math.sin(a), he[2]])
                    pos[j, i] = edge + _rotate(q, rel)
        aim = 2 * math.pi * k / max(turns, 1)
        amp = 0.35
        phase = np.cos(math.pi * t / seconds)  # from +amp to -amp over the pass
        x = amp * phase * math.cos(aim)
        y = amp * phase * math.sin(aim)
        z = pivot[2] - np.sqrt(string_m ** 2 - (amp * phase) ** 2)
        pos[:, -1] = np.stack([x, y, z], axis=1)
        turn = TurnEvent(0, (0, nper), seat=k % 2, player="synthetic", aim_deg=math.degrees(aim), release_m=0.2,
                         placements=[{"action": "stand", "shape": "block", "stone": n_stones - 1,
                                      "angle_deg": 360.0 * (n_stones - 0.5) / n_stones}],
                         penalties=[{"stone": 0, "shape": "block", "cause": "toppled"}] if k == 0 else [])
        parts.append(Replay(bodies, t.astype(np.float32), pos.astype(np.float32), quat.astype(np.float32), [turn],
                            {"base_radius": 0.15, "base_thickness": 0.02, "pivot": pivot.tolist(),
                             "ball_radius": 0.0175}, {"synthetic": True}))
    return concat_replays(parts) if turns > 1 else parts[0]


def _qmul(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> np.ndarray:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def _rotate(q: Sequence[float], v: Iterable[float]) -> np.ndarray:
    x, y, z, w = q
    u = np.array([x, y, z])
    v = np.asarray(list(v), dtype=float)
    return v + 2 * np.cross(u, np.cross(u, v) + w * v)


def quat_xyzw_to_wxyz(q: np.ndarray) -> np.ndarray:
    """Reorder (x, y, z, w) quaternions to (w, x, y, z) (viser's order)."""
    q = np.asarray(q)
    return np.concatenate([q[..., 3:4], q[..., :3]], axis=-1)


def hex_rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` to an (r, g, b) tuple of 0..255."""
    c = colour.lstrip("#")
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))
