"""Headless Chromium drives the layout editor page: load, add a stone, refuse an overlapping one, run
a pass, save; the saved file equals the layout text the page shows.

Chromium comes from Debian's ``chromium`` package (scripts/setup-test-env.sh). The test talks to it
over the Chrome DevTools Protocol (a WebSocket, with the ``websockets`` package viser already
needs): it types into the page's number fields and clicks its buttons as a user would, and reads
the page's text back. Set STONELAB_KEEP_SHOTS=DIR to keep a screenshot.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest

from sim.sun.table.layout import dump_layout_toml, load_layout
from sim.sun.viewer.editor_app import EditorApp, open_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 1200, 900


class _Page:
    """One Chromium tab over the DevTools protocol: evaluate JavaScript, wait for a condition."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self._ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        i = next(self._ids)
        self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == i:
                assert "error" not in msg, msg
                return msg["result"]

    def js(self, expr: str) -> Any:
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in r, r["exceptionDetails"]
        return r["result"].get("value")

    def wait(self, cond: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            v = cond()
            if v:
                return v
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; page text: {self.text()[:1500]}")

    def text(self) -> str:
        return str(self.js("document.body ? document.body.innerText : ''"))

    def click(self, label: str) -> None:
        ok = self.js(f"""(() => {{
            const b = [...document.querySelectorAll('button')].find(x => x.textContent.trim() === {json.dumps(label)});
            if (!b) return false; b.click(); return true; }})()""")
        assert ok, f"no button {label!r}"

    def type_number(self, label: str, value: float) -> None:
        # React keeps its own copy of an input's value: set it through the native setter and send
        # the input event React listens to, as typing does
        ok = self.js(f"""(() => {{
            const l = [...document.querySelectorAll('label')].find(x => x.textContent.trim() === {json.dumps(label)});
            if (!l) return false;
            const inp = document.getElementById(l.htmlFor);
            const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
            inp.focus(); set.call(inp, {json.dumps(str(value))});
            inp.dispatchEvent(new Event('input', {{bubbles: true}})); inp.blur(); return true; }})()""")
        assert ok, f"no field {label!r}"

    def layout_text(self) -> str:
        """The TOML the page shows under "Layout file (what Save writes)"."""
        return str(self.js("""(() => {
            const c = [...document.querySelectorAll('pre')].map(p => p.innerText).find(t => t.includes('[[stones]]'));
            return c || ''; })()"""))


def test_editor_page_in_headless_chromium(tmp_path: Path, chromium: str) -> None:
    from websockets.sync.client import connect

    src = tmp_path / "gates.toml"
    shutil.copy(ROOT / "scenarios" / "sun" / "layouts" / "gates.toml", src)
    saved = tmp_path / "saved.toml"
    app = EditorApp(open_editor(src), port=0, save_path=saved)
    profile = tmp_path / "profile"
    profile.mkdir()
    proc = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio",
         "--use-angle=swiftshader", "--enable-unsafe-swiftshader", f"--user-data-dir={profile}",
         f"--window-size={WIDTH},{HEIGHT}", "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        end = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().strip()) and time.monotonic() < end:
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:  # noqa: S310 - loopback
            target = next(t for t in json.load(r) if t["type"] == "page")
        with connect(target["webSocketDebuggerUrl"], max_size=None) as ws:
            page = _Page(ws)
            page.call("Page.enable")
            page.call("Page.navigate", url=app.url)
            # load: the layout's stones are listed and its text shown
            page.wait(lambda: "Add stone" in page.text() and "[[stones]]" in page.layout_text(), "the editor page")
            assert page.layout_text() == app.editor.toml()
            assert len(app.editor.layout.stones) == 11

            # add a block at 170 degrees (the gap between stones[3] at 136.8 and stones[7] at 195 is open)
            page.type_number("angle (deg)", 170)
            page.wait(lambda: float(app.angle.value) == 170.0, "the angle to reach the server")
            page.click("Add stone")
            page.wait(lambda: "added 11: block at 170.0000 deg" in page.text(), "the added stone")
            assert len(app.editor.layout.stones) == 12

            # an overlapping one, 3 degrees on: refused in the page with the engine's reason
            page.type_number("angle (deg)", 173)
            page.wait(lambda: float(app.angle.value) == 173.0, "the angle to reach the server")
            page.click("Add stone")
            page.wait(lambda: "Refused:" in page.text(), "the refusal")
            assert "overlaps or touches stones[11]" in page.text()
            assert len(app.editor.layout.stones) == 12

            # a pass at 0 degrees (through the pillars' gate, towards 180): the result in the page
            page.type_number("aim (deg)", 0)
            page.click("Pass")
            page.wait(lambda: "pass at 0.0 deg" in page.text(), "the pass result", timeout=120)
            assert app.last_pass is not None
            shot = page.call("Page.captureScreenshot", format="png")["data"]

            page.click("Save")
            page.wait(lambda: f"saved {saved}" in page.text(), "the save")
            shown = page.wait(lambda: page.layout_text() if "170.0000" in page.layout_text() else "",
                              "the layout text with the new stone")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        app.close()

    text = saved.read_text(encoding="utf-8")
    assert shown == text  # the page shows exactly what was saved
    lay = load_layout(saved)
    assert len(lay.stones) == 12 and lay.stones[11].shape == "block" and lay.stones[11].angle_deg == 170.0
    assert dump_layout_toml(lay, "gates") == text  # byte-stable round trip

    import imageio.v3 as iio

    png = tmp_path / "editor.png"
    png.write_bytes(base64.b64decode(shot))
    keep = os.environ.get("STONELAB_KEEP_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(keep) / "editor.png")
    img = iio.imread(png)[..., :3]
    view = img[150:HEIGHT - 100, 250:WIDTH - 450]  # the 3-D view, left of the control panel
    assert view.std() > 10, "blank 3-D view"
    r, g, b = (view[..., k].astype(int) for k in range(3))
    assert ((r - b > 40) & (r > g) & (g > b)).sum() > 2000  # the wooden base is drawn
