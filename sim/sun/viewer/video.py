"""Replays to video: frames from PyBullet's software renderer (TinyRenderer, DIRECT mode), imageio.

No display and no GPU are needed. The output's suffix picks the format: ``.mp4`` (H.264 through
imageio-ffmpeg) or ``.gif``. The current turn's title is written in the top-left corner, and a
turn that carries the rules' view has it drawn over the table as the 3-D viewer draws it
(:func:`sim.sun.viewer.rules_scene.rules_shapes`: each gap green when the ball can pass it and red
when it cannot, each seat's mark areas and markers in the seat's colour, the line of the pass as
aimed with its release point, and a white dot where the ball really left the hand), projected with
the camera's own matrices and drawn half transparent over the rendered stones.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import pybullet as p

from sim.core.errors import InputError
from sim.core.progress import Progress
from sim.sun.viewer.pybullet_gui import PyBulletScene
from sim.sun.viewer.replay import Replay, hex_rgb
from sim.sun.viewer.replay.overlay import AIM_COLOUR, RELEASE_COLOUR, seat_colour
from sim.sun.viewer.rules_scene import ARC_STEP_DEG, PIN_HEAD_M, PIN_HEIGHT_M, RulesShapes, rules_shapes

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
                  title: bool = True, rules: bool = True) -> Iterator[np.ndarray]:
    """Yield an ``(h, w, 3)`` uint8 image for each time (s), rendered with ER_TINY_RENDERER, with the
    rules' view of the turn shown drawn over it (``rules``; see the module docstring)."""
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
            turn = replay.turn_at(i)
            shapes = rules_shapes(replay, turn) if turn is not None and rules else None
            if shapes is not None:
                img = draw_rules(img, shapes, camera_matrix(view, proj))
            if font is not None:
                label = f"t = {float(t) - float(replay.times[0]):5.2f} s    {turn.title() if turn else ''}"
                img = _caption(img, label, font)
            yield img
    finally:
        p.disconnect(cid)


#: how opaque the rules' view is drawn over the rendered table (0..1)
RULES_ALPHA = 0.8


def camera_matrix(view: Sequence[float], proj: Sequence[float]) -> np.ndarray:
    """The 4x4 matrix from the table's frame (m) to clip space: PyBullet's view and projection
    matrices (16 numbers each, column-major) multiplied."""
    return np.asarray(proj, dtype=float).reshape(4, 4).T @ np.asarray(view, dtype=float).reshape(4, 4).T


def project(m: np.ndarray, points: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``(N, 2)`` pixel coordinates (x right, y down) of ``(N, 3)`` points (m) in an image of
    ``size`` (w, h), by the camera matrix ``m`` (:func:`camera_matrix`)."""
    w, h = size
    pts = np.c_[np.asarray(points, dtype=float), np.ones(len(points))] @ m.T
    ndc = pts[:, :3] / pts[:, 3:4]
    return np.c_[(ndc[:, 0] + 1.0) * 0.5 * w, (1.0 - ndc[:, 1]) * 0.5 * h]


def _arc(start_deg: float, span_deg: float, r: float, z: float) -> np.ndarray:
    n = max(1, int(math.ceil(abs(span_deg) / ARC_STEP_DEG)))
    a = np.radians(start_deg + np.linspace(0.0, span_deg, n + 1))
    return np.c_[r * np.cos(a), r * np.sin(a), np.full_like(a, z)]


def draw_rules(img: np.ndarray, shapes: RulesShapes, m: np.ndarray) -> np.ndarray:
    """``img`` with the rules' view ``shapes`` drawn over it (projected by the camera matrix ``m``;
    :data:`RULES_ALPHA` opaque): the bands as filled arcs, each marker a pin with its head, the aim
    line with a drop line from the release point, the release point in the mover's colour and the
    actual release in white."""
    # start-up: PIL adds 12 ms, paid only when a video is made (CPU, python -X importtime)
    from PIL import Image, ImageDraw

    h, w = img.shape[:2]
    size = (w, h)
    layer = Image.new("RGBA", size, (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    alpha = int(round(255 * RULES_ALPHA))
    px = max(1, round(h / 240))  # line widths and dot radii grow with the frame

    def rgba(colour: str) -> tuple[int, int, int, int]:
        return (*hex_rgb(colour), alpha)

    for b in shapes.bands:
        outline = np.r_[_arc(b.start_deg, b.span_deg, b.r_out, b.z), _arc(b.start_deg + b.span_deg, -b.span_deg, b.r_in, b.z)]
        d.polygon([tuple(p) for p in project(m, outline, size)], fill=rgba(b.colour))
    for seat, x, y in shapes.markers:
        (x0, y0), (x1, y1) = project(m, np.array([[x, y, 0.0], [x, y, PIN_HEIGHT_M]]), size)
        head = abs(project(m, np.array([[x, y, PIN_HEIGHT_M], [x + PIN_HEAD_M, y, PIN_HEIGHT_M]]), size)[1, 0] - x1)
        d.line([(x0, y0), (x1, y1)], fill=rgba(seat_colour(seat)), width=px)
        r = max(2.0, head)
        d.ellipse([x1 - r, y1 - r, x1 + r, y1 + r], fill=rgba(seat_colour(seat)))
    if shapes.aim is not None and shapes.release is not None and shapes.mover is not None:
        (ax, ay), (bx, by) = project(m, np.array(shapes.aim), size)
        d.line([(ax, ay), (bx, by)], fill=rgba(AIM_COLOUR), width=px + 1)
        rx, ry, rz = shapes.release
        (fx, fy), (tx, ty) = project(m, np.array([[rx, ry, 0.0], [rx, ry, rz]]), size)
        d.line([(fx, fy), (tx, ty)], fill=rgba(AIM_COLOUR), width=px)
        r = 2 * px + 2
        d.ellipse([tx - r, ty - r, tx + r, ty + r], fill=rgba(seat_colour(shapes.mover)), outline=(20, 20, 20, alpha))
        if shapes.released is not None:
            (qx, qy), = project(m, np.array([shapes.released]), size)
            r = px + 2
            d.ellipse([qx - r, qy - r, qx + r, qy + r], fill=rgba(RELEASE_COLOUR), outline=(20, 20, 20, alpha))
    out = Image.alpha_composite(Image.fromarray(img).convert("RGBA"), layer)
    return np.asarray(out.convert("RGB"))


def _font(h: int):  # noqa: ANN202
    try:
        # start-up: PIL's fonts add 20 ms, paid only when a video is made (CPU, python -X importtime)
        from PIL import ImageFont

        try:
            return ImageFont.truetype("DejaVuSans.ttf", max(10, h // 30))
        except OSError:
            return ImageFont.load_default()
    except ImportError:  # pragma: no cover - pillow comes with imageio
        return None


def _caption(img: np.ndarray, text: str, font) -> np.ndarray:  # noqa: ANN001
    # start-up: PIL adds 12 ms, paid only when a video is made (CPU, python -X importtime)
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
    # start-up: imageio adds 13 ms, paid only when a video is made (CPU, python -X importtime)
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
