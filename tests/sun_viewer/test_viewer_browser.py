"""Headless Chromium plays the static export from a local HTTP server and from its one-file
``standalone.html``: the page raises its ready signal (``<html data-stonelab-ready="drawn">``) once
the scene is drawn, within 30 s at a load of 4 (90 s on a busier machine); two moments of a pass differ; the rules' view is in the picture.

The browser is Debian's Chromium driven by Playwright (the ``page`` fixture of tests/conftest.py).
Set STONELAB_KEEP_SHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from sim.sun.viewer.replay import Replay, from_pose_recording
from sim.sun.viewer.viser_app import EXPORT_STANDALONE, export_static, serve_dir

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: what the project promises a designer: a picture of a replay within this many seconds, on the
#: project's 2-core machine at a load of 4
READY_WITHIN_S = 30.0
#: on a machine busier than that (seen: a load of 14, where the signal once came after 30 s) the
#: page is given this long, and the test still says its time
READY_UNDER_LOAD_S = 90.0


def _ready_budget_s() -> float:
    """The wait for the ready signal: the promise at a load of 4 or less, more on a busier machine."""
    return READY_WITHIN_S if os.getloadavg()[0] <= 4.0 else READY_UNDER_LOAD_S


def _served(out: Path) -> Iterator[str]:
    httpd = serve_dir(out, host="127.0.0.1", port=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _open_until_drawn(page: Any, url: str) -> float:
    """Open ``url`` and wait for the page's own ready signal; the seconds it took."""
    t0 = time.monotonic()
    page.goto(url)
    page.wait_for_selector("html[data-stonelab-ready=drawn]", state="attached", timeout=_ready_budget_s() * 1000)
    return time.monotonic() - t0


def _picture(page: Any, path: Path) -> np.ndarray:
    import imageio.v3 as iio

    page.screenshot(path=str(path))
    keep = os.environ.get("STONELAB_KEEP_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)
    return iio.imread(path)[..., :3]


def _drawn_picture(page: Any, path: Path) -> np.ndarray:
    """A screenshot once it shows the scene the page said it drew: under load (seen at 11-13) the
    screenshot can lag the canvas the ready signal sampled; 10 s at most, then the last one."""
    end = time.monotonic() + 10.0
    while _scene_problem(img := _picture(page, path)) is not None and time.monotonic() < end:
        page.wait_for_timeout(250)
    return img


def _view(img: np.ndarray, right: int = 150) -> np.ndarray:
    """The 3-D view: no notification corner, no timeline, no legend on the right."""
    h, w = img.shape[:2]
    return img[120:h - 60, 150:w - right]


def _scene_problem(img: np.ndarray) -> str | None:
    """Why ``img``'s 3-D view is not a rendered scene, or None when it is: not blank, many colours,
    and the wooden base (many brown pixels: r > g > b, reddish)."""
    view = _view(img)
    if view.std() <= 10:
        return "blank view"
    if len(np.unique(view.reshape(-1, 3) // 8, axis=0)) <= 40:
        return "too few colours: the scene did not render"
    r, g, b = (view[..., k].astype(int) for k in range(3))
    if ((r - b > 40) & (r > g) & (g > b)).sum() <= 2000:
        return "no wooden base in the view"
    return None


def test_exported_viewer_is_drawn_and_plays(tmp_path: Path, real_pass_recording: dict, page: Any) -> None:
    rp = from_pose_recording(real_pass_recording)
    exp = export_static(rp, tmp_path / "export", fps=30)
    for url in _served(exp):
        took = _open_until_drawn(page, url)
        a = _drawn_picture(page, tmp_path / "early.png")
        assert _scene_problem(a) is None, _scene_problem(a)
        # the player plays on: a later moment differs (the ball, and what it pushed, moved); the
        # pass lasts about 2 s and the player loops, so the view is watched for 10 s at most
        end = time.monotonic() + 10.0
        while True:
            page.wait_for_timeout(250)
            b = _picture(page, tmp_path / "late.png")
            if _moments_differ(a, b) or time.monotonic() > end:
                break
    assert _moments_differ(a, b), "the view did not change in 10 s of playing"
    assert page.errors == [] or all("WebGL" in e or "GPU" in e for e in page.errors), page.errors
    print(f"served export drawn in {took:.1f} s")


def test_standalone_export_is_drawn_from_its_file(tmp_path: Path, synth: Replay, page: Any) -> None:
    """The one-file page opens without a server (file://) and raises the same signal."""
    exp = export_static(synth, tmp_path / "export", fps=30)
    took = _open_until_drawn(page, (exp / EXPORT_STANDALONE).as_uri())
    img = _drawn_picture(page, tmp_path / "standalone.png")
    assert _scene_problem(img) is None, _scene_problem(img)
    print(f"standalone export drawn in {took:.1f} s")


def _moments_differ(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the 3-D views of ``a`` and ``b`` differ in more than 150 pixels by more than 30 (mean
    over channels): the ball (and what it pushed) moved between the two moments."""
    diff = np.abs(_view(a).astype(int) - _view(b).astype(int)).mean(axis=2)
    return bool((diff > 30).sum() > 150)


def _near(img: np.ndarray, colour: str, tol: int = 45) -> int:
    """How many pixels of ``img`` are within ``tol`` (per channel) of ``colour`` (``#rrggbb``)."""
    c = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(img.astype(int) - c).max(axis=2) < tol).sum())


def test_exported_viewer_shows_what_the_rules_see(tmp_path: Path, page: Any) -> None:
    """Turn 34 of the main job's game 0 (a stack falls): in the picture, the gaps the ball can
    pass and those it cannot, seat 1's mark area and marker, the legend."""
    from sim.core.scenario import load_scenario
    from sim.games import REGISTRY
    from sim.sun.game import record_game
    # the palette's colours as the viewers draw them (overlay imports them from the palette)
    from sim.sun.viewer.replay.overlay import BLOCKED_COLOUR, PASSABLE_COLOUR, seat_colour
    from sim.sun.viewer.replay import from_game_record

    root = Path(__file__).resolve().parents[2]
    sc = load_scenario(root / "scenarios" / "sun" / "classic-2p.toml", REGISTRY).points(REGISTRY)[0].scenario
    rp = from_game_record(record_game(sc, 0)).turn_range(33, 34)
    assert rp.turns[0].rules is not None
    exp = export_static(rp, tmp_path / "export", fps=30)

    def missing(img: np.ndarray) -> list[str]:
        # the 3-D view left of the legend (pinned top-right), above the timeline bar
        view, w = _view(img, right=330), img.shape[1]
        legend = img[5:300, w - 330:w - 5]
        return [what for what, ok in (
            ("a passable gap", _near(view, PASSABLE_COLOUR) > 300), ("a blocked gap", _near(view, BLOCKED_COLOUR) > 300),
            ("seat 1's mark area and marker", _near(view, seat_colour(1)) > 50),
            ("the legend", _near(legend, PASSABLE_COLOUR, 20) > 50 and _near(legend, seat_colour(0), 20) > 50)) if not ok]

    for url in _served(exp):
        # seen from nearly above: from the replay's default camera a pillar can hide most of a
        # seat's marker and mark area (with another physics, turn 26's picture showed fewer than
        # 50 of seat 1's pixels in 1 run of 6); from above the rim's bands are in view whatever
        # stands on the ring
        took = _open_until_drawn(page, url + "?initialCameraPosition=0.01,-0.06,0.46&initialCameraLookAt=0,0,0")
        # the scene is drawn; the player then plays the two turns in a loop, each turn's view with
        # it (on a machine at a load of 13 its first messages took seconds more): watch it, 30 s at
        # most, until one picture shows all of the view
        end = time.monotonic() + 30.0
        while missing(img := _picture(page, tmp_path / "rules.png")) and time.monotonic() < end:
            page.wait_for_timeout(250)
    assert not missing(img), f"not drawn: {', '.join(missing(img))}"
    print(f"rules' view drawn in {took:.1f} s")
