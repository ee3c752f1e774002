"""Fixtures of the whole suite: the headless browser of the browser tests (``@pytest.mark.browser``).

Playwright for Python drives Debian's Chromium (``/usr/bin/chromium``, installed by
scripts/setup-test-env.sh) through ``executable_path``: no browser is downloaded. A test asks for
``page`` (a fresh tab in a fresh profile, 1280x900, its console errors and uncaught exceptions in
``page.errors``) or for ``browser`` to open several. Playwright's sync API runs an event loop in the
test's thread, which ``asyncio.run`` refuses to share: the browser lives for one test module.

Missing Chromium or Playwright: a failure on CI, a skip elsewhere.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

#: the flags Debian's Chromium needs here (as root in a container: no sandbox; no GPU; nothing
#: fetched from the network behind the tests' back)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
                 # WebGL (the 3-D viewer and editor) on the CPU: no GPU here
                 "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]

#: the size of every test's tab, CSS pixels
VIEWPORT = {"width": 1280, "height": 900}


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing: scripts/setup-test-env.sh and the test extra install it")
    pytest.skip(f"{what} is not installed (scripts/setup-test-env.sh, pip install -e '.[test]')")


def chromium_path() -> str | None:
    """Debian's Chromium (or another on PATH), None when there is none."""
    for c in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(c) or (c if os.path.isfile(c) else None)
        if p:
            return p
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium driven by Playwright, for one test module."""
    exe = chromium_path()
    if exe is None:
        _missing("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A fresh tab (its own profile) whose console errors and uncaught exceptions are collected in
    ``page.errors``. Set STONELAB_KEEP_SHOTS=DIR to keep a screenshot of the page when its test
    fails (``<test name>.png``)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("console", lambda m: errors.append(f"console.{m.type}: {m.text} ({m.location.get('url', '')})")
          if m.type in ("error", "assert") else None)
    pg.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    pg.errors = errors
    try:
        yield pg
    finally:
        keep = os.environ.get("STONELAB_KEEP_SHOTS")
        rep = getattr(request.node, "rep_call", None)
        if keep and rep is not None and rep.failed:
            Path(keep).mkdir(parents=True, exist_ok=True)
            try:
                pg.screenshot(path=str(Path(keep) / f"{request.node.name}.png"))
            except Exception:  # noqa: BLE001 - a page that died cannot be shown; the failure says why
                pass
        context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the test item (``rep_call``): the ``page`` fixture screenshots a
    failed test's page."""
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep
