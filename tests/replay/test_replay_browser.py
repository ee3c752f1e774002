"""Headless Chromium opens each turn-based game's exported replay page from its file (offline) and
steps through it as a user would: the buttons, the arrow keys, jump to turn (any number, clamped),
the hidden-information selector; no console error and no uncaught exception on the way.

The browser is Debian's Chromium driven by Playwright (the ``page`` fixture of tests/conftest.py).
Set STONELAB_KEEP_SHOTS=DIR to keep a screenshot of each board at a mid-game step.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from sim.cli import main

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _step(page: Any) -> str:
    return str(page.text_content("#step"))


def _choose(page: Any, view: str, go: int | None = None) -> None:
    page.select_option("#view", view)
    if go is not None:
        page.evaluate("i => window.stonelabReplay.go(i)", go)


@pytest.mark.parametrize("game", ["druids", "rocks", "sozoikum"])
def test_replay_page_steps_offline_without_console_errors(runs: dict[str, Path], tmp_path: Path, page: Any,
                                                          game: str) -> None:
    t0 = time.monotonic()
    page_file = tmp_path / f"{game}.html"
    assert main(["replay", "export", str(runs[game]), "--game", "0", "--out", str(page_file)]) == 0
    page.goto(page_file.as_uri())
    page.wait_for_function("!!(window.stonelabReplay && document.querySelector('#boardbox svg'))")
    n = int(page.evaluate("window.stonelabReplay.count"))
    assert _step(page) == f"step 0 of {n - 1}"
    first_text = page.text_content("#text")
    # forward by the button, then by the arrow key; back by the key
    page.click("#next")
    assert _step(page).startswith(f"step 1 of {n - 1}")
    assert page.text_content("#text") != first_text
    page.locator("body").press("ArrowRight")
    assert _step(page).startswith(f"step 2 of {n - 1}")
    page.locator("body").press("ArrowLeft")
    assert _step(page).startswith(f"step 1 of {n - 1}")
    # jump to a turn: the first step of that turn or later
    frames = json.loads(str(page.text_content("#replay-data")))["frames"]
    turn = frames[n // 2]["turn"]
    page.fill("#turn", str(turn))
    page.press("#turn", "Enter")
    cur = int(page.evaluate("window.stonelabReplay.current()"))
    assert frames[cur]["turn"] >= turn and all(f["turn"] < turn for f in frames[:cur])
    # any number is accepted and clamped: no browser validation bubble stops it
    for typed, step in (("99999", None), ("-7", 0), ("2.6", None)):
        page.fill("#turn", typed)
        page.click("#jump button[type=submit]")
        cur = int(page.evaluate("window.stonelabReplay.current()"))
        if typed == "99999":
            assert frames[cur]["turn"] == frames[-1]["turn"] and page.input_value("#turn") == str(frames[-1]["turn"])
        elif typed == "-7":
            assert cur == step and page.input_value("#turn") == "0"
        else:
            assert frames[cur]["turn"] >= 3 and all(f["turn"] < 3 for f in frames[:cur])
    # every step draws (the board script never throws), in each view of the selector
    views = page.evaluate("[...document.getElementById('view').options].map(o => o.value)")
    assert views[0] == "all" and "none" in views and "0" in views
    for v in views:
        _choose(page, v)
        for i in range(0, n, max(1, n // 25)):
            page.evaluate("i => window.stonelabReplay.go(i)", i)
            assert page.evaluate("document.querySelectorAll('#boardbox svg *').length") > 20
    # a hidden note is shown only for the chosen seat
    noted = next((i for i, f in enumerate(frames) for s, h in f["hidden"].items() if h.get("note")), None)
    if noted is not None:
        seat = next(s for s, h in frames[noted]["hidden"].items() if h.get("note"))
        for v, shown in (("none", False), (seat, True)):
            _choose(page, v, noted)
            assert bool(page.text_content("#notes")) is shown
    page.evaluate("i => window.stonelabReplay.go(i)", n // 2)
    page.click("#next")
    assert page.errors == [], page.errors
    keep = os.environ.get("STONELAB_KEEP_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(keep) / f"replay-{game}.png"))
    print(f"replay page of {game}: {time.monotonic() - t0:.1f} s in the browser")
