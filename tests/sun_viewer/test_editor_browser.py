"""Headless Chromium drives the layout editor page: load, add a stone, refuse an overlapping one, run
a pass, save; the saved file equals the layout text the page shows.

The browser is Debian's Chromium driven by Playwright (the ``page`` fixture of tests/conftest.py): it
types into the page's number fields (Playwright's ``fill``, which React sees as typing) and clicks
its buttons as a user would, and reads the page's text back. Set STONELAB_KEEP_SHOTS=DIR to keep a
screenshot.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from sim.sun.table.layout import dump_layout_toml, load_layout
from sim.sun.viewer.editor_app import EditorApp, open_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

#: the TOML the page shows under "Layout file (what Save writes)"
_LAYOUT_TEXT = ("[...document.querySelectorAll('pre')].map(p => p.innerText).find(t => t.includes('[[stones]]')) || ''")


def _until(cond: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Wait for the server's side of the page (a value the page sent over its websocket)."""
    end = time.monotonic() + timeout
    while not (v := cond()):
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return v


def _says(page: Any, text: str, timeout: float = 60.0) -> None:
    """Wait until the page's text contains ``text``."""
    page.wait_for_function("t => document.body.innerText.includes(t)", arg=text, timeout=timeout * 1000)


def _button(page: Any, label: str) -> Any:
    return page.get_by_role("button", name=label, exact=True)


def test_editor_page_in_headless_chromium(tmp_path: Path, page: Any) -> None:
    t0 = time.monotonic()
    src = tmp_path / "gates.toml"
    shutil.copy(ROOT / "scenarios" / "sun" / "layouts" / "gates.toml", src)
    saved = tmp_path / "saved.toml"
    app = EditorApp(open_editor(src), port=0, save_path=saved)
    try:
        page.goto(app.url)
        # load: the layout's stones are listed and its text shown
        page.wait_for_function(f"document.body.innerText.includes('Add stone') && ({_LAYOUT_TEXT}).length > 0")
        assert page.evaluate(_LAYOUT_TEXT) == app.editor.toml()
        assert len(app.editor.layout.stones) == 11

        def add_at(angle: float, answer: str) -> None:
            page.get_by_label("angle (deg)", exact=True).fill(f"{angle:g}")
            page.get_by_label("angle (deg)", exact=True).blur()
            _until(lambda: float(app.angle.value) == angle, "the angle to reach the server")
            _button(page, "Add stone").click()
            _says(page, answer)

        # add a block at 170 degrees (the gap between stones[3] at 136.8 and stones[7] at 195 is open)
        add_at(170.0, "added 11: block at 170.0000 deg")
        assert len(app.editor.layout.stones) == 12

        # an overlapping one, 3 degrees on: refused in the page with the engine's reason
        add_at(173.0, "Refused:")
        assert "overlaps or touches stones[11]" in page.inner_text("body")
        assert len(app.editor.layout.stones) == 12

        # a pass at 0 degrees (through the pillars' gate, towards 180): the result in the page
        page.get_by_label("aim (deg)", exact=True).fill("0")
        page.get_by_label("aim (deg)", exact=True).blur()
        _until(lambda: float(app.aim.value) == 0.0, "the aim to reach the server")
        _button(page, "Pass").click()
        _says(page, "pass at 0.0 deg", timeout=120)
        assert app.last_pass is not None
        shot = page.screenshot()
        width, height = page.viewport_size["width"], page.viewport_size["height"]

        _button(page, "Save").click()
        _says(page, f"saved {saved}")
        page.wait_for_function(f"({_LAYOUT_TEXT}).includes('170.0000')")
        shown = page.evaluate(_LAYOUT_TEXT)
        assert page.errors == [], page.errors
    finally:
        app.close()
    print(f"editor page: {time.monotonic() - t0:.1f} s")

    text = saved.read_text(encoding="utf-8")
    assert shown == text  # the page shows exactly what was saved
    lay = load_layout(saved)
    assert len(lay.stones) == 12 and lay.stones[11].shape == "block" and lay.stones[11].angle_deg == 170.0
    assert dump_layout_toml(lay, "gates") == text  # byte-stable round trip

    import imageio.v3 as iio

    png = tmp_path / "editor.png"
    png.write_bytes(shot)
    keep = os.environ.get("STONELAB_KEEP_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(keep) / "editor.png")
    img = iio.imread(png)[..., :3]
    view = img[150:height - 100, 250:width - 450]  # the 3-D view, left of the control panel
    assert view.std() > 10, "blank 3-D view"
    r, g, b = (view[..., k].astype(int) for k in range(3))
    assert ((r - b > 40) & (r > g) & (g > b)).sum() > 2000  # the wooden base is drawn
