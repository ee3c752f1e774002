"""Headless Chromium opens each turn-based game's exported replay page from its file (offline) and
steps through it as a user would: the buttons, the arrow keys, jump to turn, the hidden-information
selector; no console error and no uncaught exception on the way.

Chromium comes from Debian's ``chromium`` package (scripts/setup-test-env.sh); the test talks to it
over the Chrome DevTools Protocol (a WebSocket, with the ``websockets`` package viser already needs).
Set STONELAB_KEEP_SHOTS=DIR to keep a screenshot of each board at a mid-game step.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest

from sim.cli import main

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTH, HEIGHT = 1300, 1000


class _Page:
    """One Chromium tab over the DevTools protocol; console errors and exceptions are collected."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self.errors: list[str] = []

    def _event(self, msg: dict[str, Any]) -> None:
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(p.get("exceptionDetails"))[:800])
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append(json.dumps(p.get("args"))[:800])
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            self.errors.append(json.dumps(p["entry"])[:800])

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        i = next(self._ids)
        self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == i:
                assert "error" not in msg, msg
                return msg["result"]
            self._event(msg)

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
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; page text: {self.text()[:1500]}")

    def text(self) -> str:
        return str(self.js("document.body ? document.body.innerText : ''"))

    def step(self) -> str:
        return str(self.js("document.getElementById('step').textContent"))

    def key(self, key: str) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                      windowsVirtualKeyCode={"ArrowRight": 39, "ArrowLeft": 37}[key])


def _browser(chromium: str, profile: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio",
         f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}", "--remote-debugging-port=0",
         "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.parametrize("game", ["druids", "rocks", "sozoikum"])
def test_replay_page_steps_offline_without_console_errors(runs: dict[str, Path], tmp_path: Path, chromium: str,
                                                          game: str) -> None:
    from websockets.sync.client import connect

    page_file = tmp_path / f"{game}.html"
    assert main(["replay", "export", str(runs[game]), "--game", "0", "--out", str(page_file)]) == 0
    profile = tmp_path / "profile"
    profile.mkdir()
    proc = _browser(chromium, profile)
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
            for domain in ("Page", "Runtime", "Log"):
                page.call(f"{domain}.enable")
            page.call("Page.navigate", url=page_file.as_uri())
            page.wait(lambda: page.js("!!(window.stonelabReplay && document.querySelector('#boardbox svg'))"),
                      "the replay page and its board")
            n = int(page.js("window.stonelabReplay.count"))
            assert page.step() == f"step 0 of {n - 1}"
            first_text = page.js("document.getElementById('text').textContent")
            # forward by the button, then by the arrow key; back by the key
            page.js("document.getElementById('next').click()")
            assert page.step().startswith(f"step 1 of {n - 1}")
            assert page.js("document.getElementById('text').textContent") != first_text
            page.key("ArrowRight")
            assert page.step().startswith(f"step 2 of {n - 1}")
            page.key("ArrowLeft")
            assert page.step().startswith(f"step 1 of {n - 1}")
            # jump to a turn: the first step of that turn or later
            frames = json.loads(page.js("document.getElementById('replay-data').textContent"))["frames"]
            turn = frames[n // 2]["turn"]
            page.js(f"document.getElementById('turn').value = '{turn}';"
                    "document.getElementById('jump').requestSubmit()")
            cur = int(page.js("window.stonelabReplay.current()"))
            assert frames[cur]["turn"] >= turn and all(f["turn"] < turn for f in frames[:cur])
            # every step draws (the board script never throws), in each view of the selector
            views = page.js("[...document.getElementById('view').options].map(o => o.value)")
            assert views[0] == "all" and "none" in views and "0" in views
            for v in views:
                page.js(f"(() => {{ const s = document.getElementById('view'); s.value = {json.dumps(v)};"
                        "s.dispatchEvent(new Event('change')); })()")
                for i in range(0, n, max(1, n // 25)):
                    page.js(f"window.stonelabReplay.go({i})")
                    assert page.js("document.querySelectorAll('#boardbox svg *').length") > 20
            # a hidden note is shown only for the chosen seat
            noted = next((i for i, f in enumerate(frames) for s, h in f["hidden"].items() if h.get("note")), None)
            if noted is not None:
                seat = next(s for s, h in frames[noted]["hidden"].items() if h.get("note"))
                for v, shown in (("none", False), (seat, True)):
                    page.js(f"(() => {{ const s = document.getElementById('view'); s.value = {json.dumps(v)};"
                            f"s.dispatchEvent(new Event('change')); window.stonelabReplay.go({noted}); }})()")
                    assert bool(page.js("document.getElementById('notes').textContent")) is shown
            page.js(f"window.stonelabReplay.go({n // 2})")
            page.js("document.getElementById('next').click()")
            assert page.errors == [], page.errors
            keep = os.environ.get("STONELAB_KEEP_SHOTS")
            if keep:
                shot = page.call("Page.captureScreenshot", format="png")
                Path(keep).mkdir(parents=True, exist_ok=True)
                (Path(keep) / f"replay-{game}.png").write_bytes(base64.b64decode(shot["data"]))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
