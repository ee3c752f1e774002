"""A person's whole game through the page in headless Chromium: druids and Rocks! against a random
agent. The test clicks (and types) on the page as a person would; the stored game must be the one
the engine plays with the same moves, and a typed illegal move is refused with the rule's reason.

Set STONELAB_KEEP_SHOTS=DIR to keep a screenshot of each page in the middle of its game.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from play_cdp import Browser
from play_helpers import ROOT, engine_game, playable
from sim.core.errors import IllegalActionError
from sim.core.store import Store
from sim.games import REGISTRY
from sim.play.session import seat_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _seat_view(game: str) -> Any:
    return seat_view(REGISTRY, game)


def _start(scenario: str, seat: int, out: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "play", str(ROOT / "scenarios" / scenario),
                             "--seat", str(seat), "--out", str(out)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if m is None:
        proc.kill()
        raise AssertionError(f"no address printed: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    return proc, m[0]


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "state", timeout=10) as r:
        return json.load(r)


#: the page's own controls, as a person uses them
_YOUR_TURN = "(document.getElementById('status') || {textContent: ''}).textContent"
_CLICK_FIRST = "document.querySelector('#moves button[data-i=\"1\"]').click(), true"


_SYNCED = (f"fetch('/state').then(r => r.json()).then(s => {{ const t = {_YOUR_TURN};"
           " if (s.finished) return t.startsWith('Game over') ? 'over' : '';"
           " return s.decision && String(s.decision) === document.body.dataset.decision && t.startsWith('Your turn')"
           " ? String(s.decision) : ''; })")


def _type(move: str) -> str:
    return (f"(() => {{ const t = document.getElementById('typed'); t.value = {json.dumps(move)};"
            "t.dispatchEvent(new Event('input')); document.getElementById('send').click(); return true; })()")


def _play_through_page(chromium: str, tmp_path: Path, scenario: str, seat: int, illegal: Any,
                       short_form: Any = None) -> tuple[dict[str, Any], Any, str]:
    """Play the game on the page taking the first listed move each time, except: at the second
    decision ``illegal(view)`` is typed first (it must be refused), and at the third the first move
    is typed in ``short_form(text)`` instead of clicked. Returns the stored game row, the engine's
    result and the refusal shown."""
    out = tmp_path / "run"
    proc, url = _start(scenario, seat, out)
    browser = Browser(chromium, url, tmp_path / "profile")
    refusal = ""
    try:
        decisions = 0
        while True:
            # the page shows the position the game asks about (or the end)
            status = browser.wait(_SYNCED)
            if status == "over":
                break
            decisions += 1
            n_before = int(status)
            if decisions == 2:
                # the game's replay drawing of the position, the last step in words above it
                assert browser.js("document.querySelectorAll('#board svg').length") == 1
                assert browser.js("document.getElementById('lastmove').textContent").startswith("Last step: ")
            if decisions == 2:
                browser.js(_type(illegal(_state(url)["view"])))
                # the refusal is shown, and the page has its answer (a click while a move is on its
                # way is ignored, as for a person clicking twice)
                refusal = browser.wait("(() => { const r = document.getElementById('refusal');"
                                       " return r.hidden || document.body.dataset.busy !== '0' ? '' : r.textContent; })()")
                keep = os.environ.get("STONELAB_KEEP_SHOTS")
                if keep:
                    Path(keep).mkdir(parents=True, exist_ok=True)
                    browser.screenshot(Path(keep) / f"play-{scenario.split('/')[0]}.png")
            if decisions == 3 and short_form is not None:
                first = browser.js("document.querySelector('#moves button[data-i=\"1\"]').dataset.text")
                browser.js(_type(short_form(first)))
            else:
                browser.js(_CLICK_FIRST)
            # the page moves on: the next decision, or the end
            browser.wait(f"fetch('/state').then(r => r.json()).then(s => s.decision !== {n_before} || !!s.finished)")
        result_text = browser.js("document.getElementById('result').textContent")
        assert "Stored in" in result_text
        proc.wait(60)
    finally:
        browser.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    with Store.open(out) as store:
        rows = store.query("SELECT scores_json, winners_json, length, termination, agents_json FROM games")
    assert len(rows) == 1
    sc = playable(scenario, seat, out)
    expected, asked = engine_game(sc)
    return {"row": rows[0], "asked": asked, "decisions": decisions}, expected, refusal


def _check_same(got: dict[str, Any], expected: Any) -> None:
    scores, winners, length, termination, labels = got["row"]
    assert json.loads(scores) == expected.scores
    assert json.loads(winners) == expected.winners
    assert length == expected.length
    assert termination == expected.termination
    assert json.loads(labels)[0] != ""
    assert got["decisions"] == len(got["asked"])  # every decision the engine asked was asked on the page


def test_a_game_of_druids_through_the_page(chromium: str, tmp_path: Path) -> None:
    def taken(view: dict[str, Any]) -> str:
        name = next(p["name"] for p in view["points"] if p["owner"] is not None)
        return f"Place({name}=1)"

    got, expected, refusal = _play_through_page(
        chromium, tmp_path, "druids/classic.toml", 1, taken,
        short_form=lambda text: re.sub(r"Place\((\w)=(\d)\)", r"\1\2", text))
    _check_same(got, expected)
    # the engine's own reason, for the same position
    state = got["asked"][1]
    view_taken = re.search(r"Place\((\w)=1\)", refusal)
    assert view_taken, refusal
    try:
        state.clone().apply_action(_seat_view("druids").parse(view_taken[0]))
    except IllegalActionError as e:
        assert refusal.endswith(e.reason), refusal
        assert "is taken" in refusal
    else:
        raise AssertionError("the typed move was legal")


def test_a_game_of_rocks_through_the_page(chromium: str, tmp_path: Path) -> None:
    typed = "move 29 by 1"
    got, expected, refusal = _play_through_page(chromium, tmp_path, "rocks/greedy-vs-random.toml", 0,
                                                lambda view: typed)
    _check_same(got, expected)
    SEAT = _seat_view("rocks")
    try:
        got["asked"][1].clone().apply_action(SEAT.parse(typed))
    except IllegalActionError as e:
        assert refusal == f"{SEAT.parse(typed)} is not allowed: {e.reason}", refusal
    else:
        raise AssertionError("the typed move was legal")


def test_the_suns_pass_from_its_aim_and_release_fields(chromium: str, tmp_path: Path) -> None:
    proc, url = _start("sun/classic-2p.toml", 1, tmp_path / "run")
    browser = Browser(chromium, url, tmp_path / "profile")
    try:
        # the listed placements and marker moves until the person is to pass
        while True:
            status = browser.wait(_SYNCED)
            assert status != "over"
            if not browser.js("document.getElementById('fields-form').hidden"):
                break
            browser.js(_CLICK_FIRST)
            browser.wait(f"fetch('/state').then(r => r.json()).then(s => s.decision !== {int(status)} || !!s.finished)")
        assert browser.js("document.getElementById('fields-title').textContent") == "Pass the ball"
        aim = float(browser.js("document.querySelector('#fields input[data-field=\"aim\"]').value"))
        decision = int(browser.js("document.body.dataset.decision"))
        # a release inside a hand span of the base is refused with the rules' reason
        browser.js("(() => { document.querySelector('#fields input[data-field=\"release\"]').value = '0.05';"
                   " document.getElementById('fields-send').click(); return true; })()")
        refusal = browser.wait("(() => { const r = document.getElementById('refusal');"
                               " return r.hidden || document.body.dataset.busy !== '0' ? '' : r.textContent; })()")
        assert refusal.startswith(f"Pass(aim {aim:.2f} deg, release 0.050 m) is not allowed: release 0.050 m outside "
                                  "the base is less than a hand span"), refusal
        browser.js("(() => { document.querySelector('#fields input[data-field=\"release\"]').value = '0.25';"
                   " document.getElementById('fields-send').click(); return true; })()")
        browser.wait(f"fetch('/state').then(r => r.json()).then(s => s.decision !== {decision} || !!s.finished)")
        log = _state(url)["log"]
        assert any(e["who"] == "you" and e["text"] == f"Pass(aim {aim:.2f} deg, release 0.250 m)" for e in log), log
        # the pass in 3-D: a link on the page to its viewer, served from memory
        href = browser.wait("(() => { const a = document.querySelector('#turns3d-list a'); return a ? a.href : ''; })()")
        assert re.fullmatch(re.escape(url) + r"turn/\d+", href), href
        with urllib.request.urlopen(href, timeout=30) as r:
            page = r.read().decode("utf-8")
            assert "'unsafe-inline'" in r.headers["Content-Security-Policy"]
        assert "__VISER_EMBED_DATA__" in page and "Loading the 3-D replay viewer" in page
    finally:
        browser.close()
        proc.terminate()
        proc.wait(30)
