"""The viewer's figure for ``stonelab bench sun``: how fast a recorded pass renders to video.

The Sun's plug-in lists :func:`benchmarks` among its benches (``sim/sun/plugin.py``), so the
engine (``sim.sun``) needs to know nothing of the viewer that renders its passes.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Any

from sim.sun.bench import LAYOUT
from sim.sun.table.layout import load_layout
from sim.sun.table.recording import PoseRecorder
from sim.sun.table.sun_table import SunTable
from sim.sun.viewer.replay import ReplayBuilder
from sim.sun.viewer.video import render_video


def video_render_s(seconds: float = 3.0) -> float:
    """Wall seconds to render ``seconds`` of a recorded pass on full-32 (passes laid end to end) to
    an MP4 of 640x480 at 30 fps with PyBullet's tiny renderer."""
    rec = PoseRecorder(60.0)
    with SunTable.from_layout(load_layout(LAYOUT, preset="fast")) as t:
        t.pass_ball(math.radians(10.0), None, record=rec)
    b = ReplayBuilder()
    b.add_pass(rec.to_dict())
    while b.build().duration < seconds:  # passes laid end to end until there is enough of it
        b.add_pass(rec.to_dict())
    clip = b.build().head(seconds)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        render_video(clip, Path(d) / "clip.mp4", fps=30, size=(640, 480))
        return time.perf_counter() - t0


def benchmarks(quick: bool = False) -> list[dict[str, Any]]:
    """``video_3s_render_s`` as a ``stonelab bench`` row (one render, quick or not: it is one
    figure of seconds, not a median; ``bench`` fills in the game's name)."""
    return [{"metric": "video_3s_render_s", "value": video_render_s(), "unit": "s",
             "note": "3 s of a recorded pass on full-32 to MP4, 640x480 at 30 fps (tiny renderer)"}]
