"""Converters into replays: one pass recorded by ``sim.sun.table.recording.PoseRecorder``
(:func:`from_pose_recording`), several laid end to end (:func:`concat_replays`,
:class:`ReplayBuilder`), and the physics calls of a whole game (:func:`from_game_record`).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from sim.core.errors import ReplayError
from sim.sun.viewer.replay.fileformat import checked_objects, optional_float
from sim.sun.viewer.replay.overlay import check_rules_view
from sim.sun.viewer.replay.records import (BALL_COLOUR, DEFAULT_GAP_S, POSE_FORMAT, POSE_VERSIONS, SHAPE_COLOURS,
                                           STONE_COLOUR, DrawnBody, Replay, TurnEvent)

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
    """Convert one pass recorded by ``sim.sun.table.recording.PoseRecorder`` into a one-turn :class:`Replay`.

    Args:
        rec: a ``PoseRecorder``, its ``to_dict()``, or the path of its JSON file.
        seat, player, placements, marker, outcome, noise, release_m, text: the turn's event (see
            :class:`TurnEvent`); the aim and the penalties are read from the recording's events.
        meta: extra header metadata.

    Raises:
        ReplayError: ``rec`` is not a pose recording of a supported version, or is malformed.
    """
    d = _recording_dict(rec, source)
    body_list = checked_objects(d, "bodies", source)
    event_list = checked_objects(d, "events", source, required=False)
    if not isinstance(d.get("base") or {}, Mapping):
        raise ReplayError("must be an object with radius and thickness (m)", source=source, key="base")
    try:
        bodies: list[DrawnBody] = []
        for b in body_list:
            if b.get("kind") == "ball":
                r = float(b["radius"])
                bodies.append(DrawnBody("ball", "ball", (2 * r, 2 * r, 2 * r), BALL_COLOUR, "ball", None))
            else:
                he = [float(x) for x in b["half_extents"]]
                shape = str(b.get("shape", ""))
                bodies.append(DrawnBody(str(b["key"]), "stone", (2 * he[0], 2 * he[1], 2 * he[2]),
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
                aim = optional_float(ev.get("aim_deg"))
                horizontal = optional_float(ev.get("horizontal_m"))
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
    keys: dict[str, DrawnBody] = {}
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
    # each key from the first part that knows it: a placement's still has no ball, hence no pivot
    table: dict[str, Any] = {}
    for rp in parts:
        for k, v in rp.table.items():
            if table.get(k) is None:
                table[k] = v
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
    one-frame recording is held ``hold_s`` seconds on the timeline. When the record also holds the
    rules' view of each pass (``rules``, matched to the turns by turn and seat), the table's
    geometry (``geometry``) and the seats' labels (``players``), the replay carries them: each
    turn's ``rules``, its penalties as the rules decided them, its marker move and noise.

    Raises:
        ReplayError: no calls, a malformed recording or rules' view.
    """
    calls = record.get("calls") if isinstance(record, Mapping) else record
    if not calls:
        raise ReplayError("the game record holds no recorded physics call (was recording on?)", source=source)
    m: dict[str, Any] = {}
    views: dict[tuple[int, int], dict[str, Any]] = {}
    geometry: Mapping[str, Any] = {}
    players: list[str] = []
    if isinstance(record, Mapping):
        m.update({k: record[k] for k in ("game", "seed", "index", "outcome") if k in record})
        for k, v in enumerate(checked_objects(record, "rules", source, required=False)):
            view = check_rules_view(v, f"rules[{k}]", source)
            if view is not None:
                views[(int(view.get("turn", -1)), int(view["seat"]))] = view
        geometry = record.get("geometry") or {}
        if not isinstance(geometry, Mapping):
            raise ReplayError("must be an object", source=source, key="geometry")
        players = [str(x) for x in record.get("players") or []]
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
        view = views.get((int(g[0].get("turn", -1)), -1 if seat is None else seat))
        marker: dict[str, Any] | None = None
        noise: dict[str, Any] = {}
        if view is not None:
            penalties = [dict(p) for p in view.get("penalties", [])]  # the rules' verdict, causes and all
            noise = dict((view.get("pass") or {}).get("noise") or {})
            marker = _marker_move(view)
        player = players[seat] if seat is not None and seat < len(players) else ""
        turn = TurnEvent(0, (0, whole.n_frames), seat, player, placements, marker, pass_info.get("aim_deg"),
                         pass_info.get("release_m"), noise, penalties, {}, "", rules=view)
        parts.append(Replay(whole.bodies, whole.times, whole.pos, whole.quat, [turn], whole.table, whole.meta))
    rep = concat_replays(parts, gap_s=gap_s, meta=m)
    for k in GEOMETRY_KEYS:
        if geometry.get(k) is not None and rep.table.get(k) is None:  # the recordings' own values first
            rep.table[k] = geometry[k]
    if players:
        rep.meta.setdefault("players", players)
    rep.validate(source)
    return rep


#: The table geometry a game record's ``geometry`` adds to the replay's header (``table``).
GEOMETRY_KEYS = ("ring_radius", "pivot", "string_length", "ball_radius", "pass_width", "gate_clear_z")


def _marker_move(view: Mapping[str, Any]) -> dict[str, Any] | None:
    """The mover's marker move of the turn (the gap its marker went to), if the rules say it moved."""
    if not view.get("marker_moved"):
        return None
    gaps = view["ring"].get("gaps", [])
    mine = view["markers"][view["seat"]] if view["seat"] < len(view["markers"]) else []
    if not mine or mine[0].get("gap") is None:
        return None
    g = gaps[mine[0]["gap"]]
    a = float(g["start_deg"])
    return {"gap_deg": [round(a % 360, 1), round((a + float(g["span_deg"])) % 360, 1)]}
