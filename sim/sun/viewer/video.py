"""Replays to video: frames from PyBullet's software renderer (TinyRenderer, DIRECT mode), imageio.

No display and no GPU are needed. The output's suffix picks the format: ``.mp4`` (H.264 through
imageio-ffmpeg) or ``.gif``. The current turn's title is written in the top-left corner.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterator

import numpy as np
import pybullet as p

from sim.core.errors import InputError
from sim.core.progress import Progress
from sim.sun.viewer.pybullet_gui import PyBulletScene
from sim.sun.viewer.replay import Replay

#: The camera: eye and target (m), vertical field of view (degrees).
EYE = (0.34, -0.34, 0.30)
TARGET = (0.0, 0.0, 0.015)
FOV_DEG = 45.0
FORMATS = (".mp4", ".gif")


def frame_times(replay: Replay, fps: float, speed: float = 1.0, turn: int | None = None) -> np.ndarray:
    """Replay times (s) of the video's frames: every ``speed / fps`` seconds over the replay or one turn.

    ``turn`` is 1-based. Raises :class:`InputError` for a turn the replay does not have.
    """
    if turn is not None:
        if not (1 <= turn <= len(replay.turns)):
            raise InputError(f"the replay has turns 1..{len(replay.turns)}, not {turn}", key="--turn")
        a, b = replay.turns[turn - 1].frames
        t0, t1 = float(replay.times[a]), float(replay.times[b - 1])
    else:
        t0, t1 = float(replay.times[0]), float(replay.times[-1])
    n = int(math.floor((t1 - t0) * fps / speed + 1e-9)) + 1
    return t0 + np.arange(n) * (speed / fps)


def render_frames(replay: Replay, times: np.ndarray, size: tuple[int, int] = (640, 480),
                  title: bool = True) -> Iterator[np.ndarray]:
    """Yield an ``(h, w, 3)`` uint8 image for each time (s), rendered with ER_TINY_RENDERER."""
    w, h = size
    cid = p.connect(p.DIRECT)
    try:
        scene = PyBulletScene(replay, cid)
        view = p.computeViewMatrix(EYE, TARGET, [0, 0, 1], physicsClientId=cid)
        proj = p.computeProjectionMatrixFOV(FOV_DEG, w / h, 0.01, 20.0, physicsClientId=cid)
        font = _font(h) if title else None
        for t in times:
            i = replay.frame_at(float(t))
            scene.show(i)
            _, _, rgba, _, _ = p.getCameraImage(w, h, view, proj, renderer=p.ER_TINY_RENDERER, shadow=0,
                                                lightDirection=[0.4, -0.6, 1.0], physicsClientId=cid)
            img = np.reshape(np.asarray(rgba, dtype=np.uint8), (h, w, 4))[:, :, :3]
            if font is not None:
                turn = replay.turn_at(i)
                label = f"t = {float(t) - float(replay.times[0]):5.2f} s    {turn.title() if turn else ''}"
                img = _caption(img, label, font)
            yield img
    finally:
        p.disconnect(cid)


def _font(h: int):  # noqa: ANN202
    try:
        from PIL import ImageFont

        try:
            return ImageFont.truetype("DejaVuSans.ttf", max(10, h // 30))
        except OSError:
            return ImageFont.load_default()
    except ImportError:  # pragma: no cover - pillow comes with imageio
        return None


def _caption(img: np.ndarray, text: str, font) -> np.ndarray:  # noqa: ANN001
    from PIL import Image, ImageDraw

    im = Image.fromarray(img)
    d = ImageDraw.Draw(im)
    d.text((10, 8), text, fill=(20, 20, 20), font=font)
    return np.asarray(im)


def render_video(replay: Replay, out: str | Path, fps: float = 30.0, size: tuple[int, int] = (640, 480),
                 speed: float = 1.0, turn: int | None = None, progress: bool = False) -> int:
    """Render ``replay`` (or one 1-based ``turn`` of it) to ``out`` (.mp4 or .gif); return the frame count.

    ``progress``: show frames done and the time left on stderr (a whole game is thousands of frames,
    minutes of rendering; see :class:`sim.core.progress.Progress`).

    Raises:
        InputError: an unknown suffix, or a non-positive fps, speed or size.
    """
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"the video must end in .mp4 or .gif, not {out.name!r}", key="--out")
    if not (math.isfinite(fps) and 0 < fps <= 120):
        raise InputError(f"fps must be in (0, 120], not {fps}", key="--fps")
    if not (math.isfinite(speed) and speed > 0):
        raise InputError(f"speed must be positive, not {speed}", key="--speed")
    w, h = size
    if not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise InputError(f"size must be 16..4096 pixels each way, not {w}x{h}", key="--width")
    if suffix == ".mp4":
        # H.264 wants even sizes (and ffmpeg prefers multiples of 16): round down
        w, h = w - w % 16, h - h % 16
    times = frame_times(replay, fps, speed, turn)
    out.parent.mkdir(parents=True, exist_ok=True)
    import imageio.v2 as imageio

    # render into a side file (same suffix, so imageio picks the format) and rename it when whole:
    # a failure or an interrupt leaves no half-written video under the requested name
    part = out.with_name(f".{out.stem}.part{suffix}")
    if suffix == ".gif":
        writer = imageio.get_writer(str(part), mode="I", duration=1000.0 / fps, loop=0)
    else:
        writer = imageio.get_writer(str(part), fps=fps, codec="libx264", quality=7, macro_block_size=16,
                                    pixelformat="yuv420p")
    n = 0
    bar = Progress(len(times), f"video {out.name}", enabled=progress, unit="frames", quiet_s=5.0)
    try:
        try:
            for img in render_frames(replay, times, (w, h)):
                writer.append_data(img)
                n += 1
                bar.advance()
        finally:
            bar.close()
            writer.close()
        part.replace(out)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return n
