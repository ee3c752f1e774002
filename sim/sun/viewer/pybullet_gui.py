"""The replay drawn with PyBullet: visual-only bodies posed frame by frame (no physics runs).

:class:`PyBulletScene` builds the base, a floor, the stones (boxes), the ball and its string in a
PyBullet connection and poses them for a frame; it serves both :func:`play_in_gui` (PyBullet's
own GUI window, for desktop users: needs a display) and :mod:`sim.sun.viewer.video` (the software
renderer in DIRECT mode).
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pybullet as p

from sim.core.errors import InputError
from sim.core.quaternions import quat_z_to
from sim.sun.viewer.replay import BASE_COLOUR, STRING_COLOUR, Replay, hex_rgb
from sim.sun.viewer.replay.overlay import cause_colour

FLOOR_COLOUR = "#d9d6cf"
#: Where hidden bodies are parked (m): far below the floor, out of every camera's view.
_PARKED = (0.0, 0.0, -50.0)
_STRING_RADIUS = 0.0008


def _rgba(colour: str, alpha: float = 1.0) -> list[float]:
    r, g, b = hex_rgb(colour)
    return [r / 255, g / 255, b / 255, alpha]


class PyBulletScene:
    """Visual-only bodies for one replay in the PyBullet connection ``cid``."""

    def __init__(self, replay: Replay, cid: int, floor: bool = True) -> None:
        self.replay = replay
        self.cid = cid
        tb = replay.table
        r = float(tb.get("base_radius", 0.15))
        th = float(tb.get("base_thickness", 0.02))
        if floor:
            fv = p.createVisualShape(p.GEOM_BOX, halfExtents=[0.8, 0.8, 0.002], rgbaColor=_rgba(FLOOR_COLOUR),
                                     physicsClientId=cid)
            p.createMultiBody(0, -1, fv, basePosition=[0, 0, -th - 0.002], physicsClientId=cid)
        bv = p.createVisualShape(p.GEOM_CYLINDER, radius=r, length=th, rgbaColor=_rgba(BASE_COLOUR),
                                 physicsClientId=cid)
        p.createMultiBody(0, -1, bv, basePosition=[0, 0, -th / 2], physicsClientId=cid)
        self.ids: list[int] = []
        self._colour: list[str] = []
        self.ball: int | None = None
        for i, b in enumerate(replay.bodies):
            if b.kind == "ball":
                v = p.createVisualShape(p.GEOM_SPHERE, radius=b.size[0] / 2, rgbaColor=_rgba(b.colour),
                                        physicsClientId=cid)
                self.ball = i
            else:
                v = p.createVisualShape(p.GEOM_BOX, halfExtents=[s / 2 for s in b.size], rgbaColor=_rgba(b.colour),
                                        physicsClientId=cid)
            self.ids.append(p.createMultiBody(0, -1, v, basePosition=_PARKED, physicsClientId=cid))
            self._colour.append(b.colour)
        self.pivot = np.array(tb["pivot"], dtype=float) if tb.get("pivot") is not None else None
        self.string: int | None = None
        self._string_len = 0.0
        if self.ball is not None and self.pivot is not None:
            vis = replay.visible()[:, self.ball]
            if vis.any():
                first = int(np.argmax(vis))
                self._string_len = float(np.linalg.norm(replay.pos[first, self.ball] - self.pivot))
                sv = p.createVisualShape(p.GEOM_CYLINDER, radius=_STRING_RADIUS, length=self._string_len,
                                         rgbaColor=_rgba(STRING_COLOUR), physicsClientId=cid)
                self.string = p.createMultiBody(0, -1, sv, basePosition=_PARKED, physicsClientId=cid)

    def show(self, frame: int) -> None:
        """Pose every body as in ``frame``; the turn's penalty stones take their cause's colour."""
        rp = self.replay
        frame = min(max(int(frame), 0), rp.n_frames - 1)
        turn = rp.turn_at(frame)
        lost = {int(p["stone"]): str(p.get("cause", "")) for p in turn.penalties if p.get("stone") is not None} \
            if turn is not None else {}
        pos = rp.pos[frame].astype(float)
        quat = rp.quat[frame].astype(float)
        cid = self.cid
        for i, (b, bid) in enumerate(zip(rp.bodies, self.ids)):
            if np.isfinite(pos[i]).all():
                p.resetBasePositionAndOrientation(bid, pos[i].tolist(), quat[i].tolist(), physicsClientId=cid)
            else:
                p.resetBasePositionAndOrientation(bid, _PARKED, (0, 0, 0, 1), physicsClientId=cid)
            if b.kind == "stone":
                want = cause_colour(lost[b.stone]) if b.stone in lost else b.colour
                if want != self._colour[i]:
                    p.changeVisualShape(bid, -1, rgbaColor=_rgba(want), physicsClientId=cid)
                    self._colour[i] = want
        if self.string is not None and self.ball is not None:
            bp = pos[self.ball]
            if np.isfinite(bp).all():
                d = bp - self.pivot
                # the string is drawn at its recorded length, hanging from the pivot towards the ball
                mid = self.pivot + d / np.linalg.norm(d) * (self._string_len / 2)
                p.resetBasePositionAndOrientation(self.string, mid.tolist(), quat_z_to(d), physicsClientId=cid)
            else:
                p.resetBasePositionAndOrientation(self.string, _PARKED, (0, 0, 0, 1), physicsClientId=cid)


def has_display() -> bool:
    """Whether a GUI window can be opened (an X display or Wayland on Linux; assumed elsewhere)."""
    if not sys.platform.startswith("linux"):
        return True
    if os.environ.get("WAYLAND_DISPLAY"):
        return True
    disp = os.environ.get("DISPLAY", "")
    if not disp:
        return False
    if disp.startswith(":"):
        # a local display: its socket must exist, or PyBullet aborts the whole process
        num = disp[1:].split(".")[0]
        return Path(f"/tmp/.X11-unix/X{num}").exists()
    return True


def play_in_gui(replay: Replay, speed: float = 1.0, loop: bool = True, max_wall_s: float | None = None,
                screenshot: str | Path | None = None) -> None:
    """Play ``replay`` in PyBullet's GUI window until the window is closed.

    Controls in the window's side panel: a time slider (moving it jumps there and pauses), a
    play/pause button, the speed, and a jump-to-turn slider; the turn's event is written over the
    table and its penalty stones are coloured by their cause (as in the viser viewer's legend).

    Args:
        speed: replay seconds per wall second (positive).
        loop: start over at the end; otherwise return at the end.
        max_wall_s: return after this many wall seconds (tests, demos).
        screenshot: write a PNG of the window (through the renderer) just before returning.

    Raises:
        InputError: no display to open a window on, or a bad speed.
    """
    if not (math.isfinite(speed) and speed > 0):
        raise InputError(f"speed must be a positive number, not {speed}", key="--speed")
    if not has_display():
        raise InputError("the pybullet viewer needs a display (DISPLAY is not set or not reachable); "
                         "use `stonelab replay view FILE` (browser) or `stonelab replay video` instead",
                         key="--viewer")
    cid = p.connect(p.GUI)
    if cid < 0:
        raise InputError("could not open PyBullet's GUI window on this display", key="--viewer")
    try:
        _gui_loop(replay, cid, speed, loop, max_wall_s, screenshot)
    finally:
        if p.isConnected(cid):
            p.disconnect(cid)


def _gui_loop(rp: Replay, cid: int, speed: float, loop: bool, max_wall_s: float | None,
              screenshot: str | Path | None) -> None:
    p.configureDebugVisualizer(p.COV_ENABLE_GUI, 1, physicsClientId=cid)
    p.configureDebugVisualizer(p.COV_ENABLE_SHADOWS, 1, physicsClientId=cid)
    p.resetDebugVisualizerCamera(cameraDistance=0.55, cameraYaw=35, cameraPitch=-35,
                                 cameraTargetPosition=[0, 0, 0.02], physicsClientId=cid)
    scene = PyBulletScene(rp, cid)
    t0, t1 = float(rp.times[0]), float(rp.times[-1])
    s_time = p.addUserDebugParameter("time (s)", t0, max(t1, t0 + 1e-3), t0, physicsClientId=cid)
    s_speed = p.addUserDebugParameter("speed", 0.05, 4.0, speed, physicsClientId=cid)
    b_play = p.addUserDebugParameter("play / pause", 1, 0, 0, physicsClientId=cid)
    s_turn = p.addUserDebugParameter("jump to turn", 1, max(len(rp.turns), 1) + 0.001, 1, physicsClientId=cid)
    last_time_val, last_play, last_turn = t0, 0.0, 1.0
    text_id = -1
    shown_title = None
    t = t0
    playing = True
    start = last = time.perf_counter()
    while p.isConnected(cid):
        now = time.perf_counter()
        dt, last = now - last, now
        if max_wall_s is not None and now - start > max_wall_s:
            break
        try:
            tv = p.readUserDebugParameter(s_time, physicsClientId=cid)
            sp = p.readUserDebugParameter(s_speed, physicsClientId=cid)
            pv = p.readUserDebugParameter(b_play, physicsClientId=cid)
            tn = p.readUserDebugParameter(s_turn, physicsClientId=cid)
        except p.error:
            break  # the window was closed
        if tv != last_time_val:
            t, playing, last_time_val = tv, False, tv
        if pv != last_play:
            playing, last_play = not playing, pv
        if round(tn) != round(last_turn) and rp.turns:
            k = min(max(int(round(tn)) - 1, 0), len(rp.turns) - 1)
            t, playing = float(rp.times[rp.turns[k].frames[0]]), False
        last_turn = tn
        if playing:
            t += dt * sp
            if t > t1:
                if not loop:
                    break
                t = t0
        i = rp.frame_at(t)
        scene.show(i)
        turn = rp.turn_at(i)
        title = f"{turn.title() if turn else ''}   t = {t - t0:5.2f} s"
        if title != shown_title:
            text_id = p.addUserDebugText(title, [0, 0, 0.12], textColorRGB=[0.1, 0.1, 0.1], textSize=1.3,
                                         replaceItemUniqueId=text_id if text_id >= 0 else -1,
                                         physicsClientId=cid)
            shown_title = title
        time.sleep(1 / 60)
    if screenshot is not None and p.isConnected(cid):
        cam = p.getDebugVisualizerCamera(physicsClientId=cid)
        w, h, rgb, _, _ = p.getCameraImage(cam[0], cam[1], viewMatrix=cam[2], projectionMatrix=cam[3],
                                           renderer=p.ER_BULLET_HARDWARE_OPENGL, physicsClientId=cid)
        # start-up: imageio adds 13 ms, paid only when a frame is saved (CPU, python -X importtime)
        import imageio.v2 as imageio

        imageio.imwrite(str(screenshot), np.reshape(rgb, (h, w, 4))[:, :, :3].astype(np.uint8))
