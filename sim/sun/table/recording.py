"""Pose recording of the Sun's table: per-frame poses of every body (format: docs/pose-recording.md).

:class:`PoseRecorder` collects the frames and events of one physics call; the table fills it during
a pass (:meth:`sim.sun.table.sun_table.SunTable.pass_ball` with ``record=``) through :func:`record_setup` and
:func:`record_frame`; :func:`still_recording` is the one-frame recording of a placement. The viewer
(``sim.sun.viewer.replay``) converts recordings into replays.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

import pybullet as p

from sim.core.errors import InputError
from sim.sun.table.layout import BallSpec, ShapeSpec, TableSpec
import json


class PoseRecorder:
    """Collects per-frame poses of every body at a chosen rate (format: docs/pose-recording.md).

    Args:
        rate_hz: frames per simulated second (rounded to a whole number of steps per frame).
    """

    FORMAT = "stonelab.sun.poses"
    VERSION = 1

    def __init__(self, rate_hz: float = 60.0) -> None:
        if not (math.isfinite(rate_hz) and rate_hz > 0):
            raise InputError(f"recording rate must be a positive number of Hz, not {rate_hz!r}", key="rate_hz")
        self.rate_hz = float(rate_hz)
        self.bodies: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}
        self.frames: list[list[Any]] = []
        self.events: list[dict[str, Any]] = []
        self.meta: dict[str, Any] = {}

    def body(self, key: str, info: dict[str, Any]) -> int:
        """Register a body (idempotent); returns its column."""
        if key not in self._index:
            self._index[key] = len(self.bodies)
            self.bodies.append({"key": key, **info})
        return self._index[key]

    def frame(self, t: float, poses: dict[str, list[float]]) -> None:
        """Add a frame: ``poses`` maps body keys to [x, y, z, qx, qy, qz, qw]; absent bodies are null."""
        row: list[Any] = [None] * len(self.bodies)
        for k, v in poses.items():
            row[self._index[k]] = [round(float(x), 7) for x in v]
        self.frames.append([round(t, 6), row])

    def event(self, t: float, kind: str, **info: Any) -> None:
        """Note an event (release, catch, settled, penalty) at simulated time ``t``."""
        self.events.append({"t": round(t, 6), "type": kind, **info})

    def to_dict(self) -> dict[str, Any]:
        """The recording as a JSON-friendly dict."""
        n = len(self.bodies)
        frames = [[t, row + [None] * (n - len(row))] for t, row in self.frames]
        return {"format": self.FORMAT, "version": self.VERSION, "rate_hz": self.rate_hz, **self.meta,
                "bodies": self.bodies, "events": self.events, "frames": frames}

    def save(self, path: str) -> None:
        """Write the recording as JSON."""
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh, separators=(",", ":"))



def _stone_body(rec: PoseRecorder, sid: int, shape: str, shapes: Mapping[str, ShapeSpec]) -> str:
    """Register stone ``sid`` (a box of its shape's half extents); returns its body key."""
    shp = shapes[shape]
    key = f"stone:{sid}"
    rec.body(key, {"kind": "stone", "stone": sid, "shape": shape,
                   "half_extents": [0.5 * shp.depth, 0.5 * shp.width, 0.5 * shp.height]})
    return key


def record_setup(rec: PoseRecorder, *, preset: str, dt: float, table: TableSpec, ball: BallSpec,
                 stones: Iterable[tuple[int, str]], shapes: Mapping[str, ShapeSpec]) -> None:
    """Describe the table (preset, time step ``dt`` in s, base) and register every stone
    (``(id, shape)`` pairs) and the ball as bodies of ``rec``."""
    rec.meta.setdefault("preset", preset)
    rec.meta.setdefault("dt", dt)
    rec.meta.setdefault("base", {"radius": table.base_radius, "thickness": table.base_thickness})
    for sid, shape in stones:
        _stone_body(rec, sid, shape, shapes)
    rec.body("ball", {"kind": "ball", "radius": ball.radius, "pivot": [0.0, 0.0, ball.pivot_z]})


def record_frame(rec: PoseRecorder | None, t: float, client: int, bodies: Mapping[int, int],
                 ball_body: int | None, ball_client: int | None = None) -> None:
    """Add a frame at simulated time ``t`` (s) with the live poses of the stones (``bodies``: stone
    id to PyBullet body id in connection ``client``) and of the ball (in ``ball_client``, default
    ``client``: in flight the ball is in a world of its own); nothing when ``rec`` is None."""
    if rec is None:
        return
    poses: dict[str, list[float]] = {}
    for sid, b in bodies.items():
        pos, quat = p.getBasePositionAndOrientation(b, physicsClientId=client)
        poses[f"stone:{sid}"] = list(pos) + list(quat)
    if ball_body is not None:
        s = p.getLinkState(ball_body, 0, physicsClientId=client if ball_client is None else ball_client)
        poses["ball"] = list(s[0]) + list(s[1])
    rec.frame(t, poses)


def still_recording(stones: Iterable[Any], shapes: Mapping[str, ShapeSpec], rate_hz: float, t: float,
                    event: Mapping[str, Any]) -> dict[str, Any]:
    """A one-frame recording (as a dict) of ``stones`` (objects with ``id``, ``shape``, ``pos``,
    ``quat``) at simulated time ``t`` (s), with one ``"placed"`` event carrying ``event``: the table
    records passes frame by frame, a placement only as where the stones came to rest."""
    rec = PoseRecorder(rate_hz)
    poses = {}
    for s in stones:
        poses[_stone_body(rec, s.id, s.shape, shapes)] = list(s.pose)
    rec.frame(t, poses)
    rec.event(t, "placed", **event)
    return rec.to_dict()
