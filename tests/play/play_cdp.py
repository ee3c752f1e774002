"""A small Chrome DevTools Protocol client for the browser tests: headless Chromium opens a page,
the test runs JavaScript in it and takes screenshots (the websockets library, no browser driver)."""

from __future__ import annotations

import base64
import itertools
import json
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any


class Browser:
    """Headless Chromium showing ``url``; :meth:`js` evaluates an expression in the page."""

    def __init__(self, chromium: str, url: str, profile: Path, width: int = 1280, height: int = 900) -> None:
        from websockets.sync.client import connect

        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-extensions", "--mute-audio", "--remote-debugging-port=0", f"--user-data-dir={profile}",
               f"--window-size={width},{height}", url]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() or len(port_file.read_text().split()) < 2:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("headless Chromium did not open its DevTools port")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        page = None
        while page is None:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                targets = json.load(r)
            page = next((t for t in targets if t.get("type") == "page"), None)
            if page is None:
                if time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError("headless Chromium opened no page")
                time.sleep(0.1)
        self.ws = connect(page["webSocketDebuggerUrl"], max_size=64 * 2**20, open_timeout=30)
        self._ids = itertools.count(1)
        # the page given on the command line may still be loading (about:blank until then)
        while self.js("location.href + ' ' + document.readyState") != f"{url} complete":
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"headless Chromium did not load {url}")
            time.sleep(0.05)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command's result (events in between are skipped)."""
        i = next(self._ids)
        self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == i:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise).

        Raises:
            RuntimeError: the expression threw.
        """
        r = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression[:80]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait(self, expression: str, timeout: float = 60.0) -> Any:
        """Poll ``expression`` until it is truthy; its value.

        Raises:
            TimeoutError: still falsy after ``timeout`` seconds.
        """
        end = time.monotonic() + timeout
        while True:
            v = self.js(expression)
            if v:
                return v
            if time.monotonic() > end:
                raise TimeoutError(f"waited {timeout} s for {expression[:100]}")
            time.sleep(0.02)

    def screenshot(self, path: Path) -> Path:
        """The page as a PNG file."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """End the browser and every process it started."""
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001 - closing after a failure
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
