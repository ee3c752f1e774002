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


def _sync(browser: Browser) -> str:
    """Wait until the page shows the position the server asks about (``_SYNCED``); when it does not
    within the wait, say what the page shows instead (its status line: a script error lands there)."""
    try:
        return str(browser.wait(_SYNCED))
    except TimeoutError:
        shown = browser.js("JSON.stringify({status: document.getElementById('status').textContent,"
                           " decision: document.body.dataset.decision, busy: document.body.dataset.busy})")
        raise AssertionError(f"the page did not catch up with the server: {shown}") from None


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
            status = _sync(browser)
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
            status = _sync(browser)
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


def _mouse_click(browser: Browser, x: float, y: float) -> None:
    """A person's click at page point (x, y) (CSS pixels): the browser finds what is there."""
    for kind in ("mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


def _ghost_point(browser: Browser, cls: str) -> tuple[float, float, str] | None:
    """The centre of the first ghost of class ``cls`` whose centre shows that ghost (not a stone
    or marker in front of it), and its move; None when there is none."""
    return browser.js(f"""(() => {{
      for (const g of document.querySelectorAll('#table .ghost.{cls}')) {{
        const r = g.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.dataset && hit.dataset.move === g.dataset.move) return [x, y, g.dataset.move];
      }}
      return null; }})()""")


def _table_point(browser: Browser, radius_m: float, angle_deg: float) -> tuple[float, float]:
    """The page point of the base's point at ``radius_m`` and ``angle_deg`` (the page's projection)."""
    return browser.js(f"""(() => {{ const root = document.getElementById('table');
      const [sx, sy] = tablePoint(lastDrawing, {radius_m}, {angle_deg}, 0);
      const p = root.createSVGPoint(); p.x = sx; p.y = sy; const q = p.matrixTransform(root.getScreenCTM());
      return [q.x, q.y]; }})()""")


def _mouse_drag(browser: Browser, points: list[tuple[float, float]]) -> None:
    """A press at the first point, the mouse moved through the others with the button held, and a
    release at the last (CSS pixels)."""
    browser.call("Input.dispatchMouseEvent", type="mousePressed", x=points[0][0], y=points[0][1], button="left",
                 clickCount=1)
    for x, y in points[1:]:
        browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y, button="left", buttons=1)
    browser.call("Input.dispatchMouseEvent", type="mouseReleased", x=points[-1][0], y=points[-1][1], button="left",
                 clickCount=1)


def _field(browser: Browser, name: str, attr: str = "value") -> float:
    """The pass form's field ``name``: its value (or another attribute) as a number."""
    return float(browser.js(f"document.querySelector('#fields input[data-field=\"{name}\"]').{attr}"))


def _release_point_distance(browser: Browser) -> float:
    """How far (SVG units) the drawn release point is from the centre of the base."""
    return float(browser.js("(() => { const c = document.querySelector('#table .aimline .releasepoint');"
                            " const [x, y] = tablePoint(lastDrawing, 0, 0, 0);"
                            " return Math.hypot(c.cx.baseVal.value - x, c.cy.baseVal.value - y); })()"))


def test_the_suns_moves_are_chosen_on_the_table(chromium: str, tmp_path: Path) -> None:
    """A stand by clicking its ghost on the table, a stand typed by a click on the table where a
    stone already stands (refused with the rules' reason), the marker by its ghost, and a pass
    aimed by a click and a drag on the table with its release from the slider under it: each is
    the move the stored log shows."""
    proc, url = _start("sun/classic-2p.toml", 0, tmp_path / "run")
    browser = Browser(chromium, url, tmp_path / "profile")
    played: list[str] = []
    refused = ""
    try:
        while True:
            status = _sync(browser)
            assert status != "over", "the game ended before the person passed"
            decision = int(status)
            phase = _state(url)["view"]["phase"]
            if phase == "pass" and len(played) >= 2:
                break
            if phase == "place" and played and not refused:
                # a click on the table over stone #0's place: a stand there, typed for the person
                # (at the radius nearest the ring's where no ghost is drawn over the base there)
                a0 = _state(url)["view"]["positions"][0]["angle_deg"]
                spots = [_table_point(browser, r, a0) for r in (0.13, 0.125, 0.135, 0.12, 0.14, 0.115)]
                spot = next((p for p in spots if browser.js(
                    f"(() => {{ const e = document.elementFromPoint({p[0]}, {p[1]});"
                    " return !!e && !!e.closest('#table') && e.dataset.move === undefined; })()")), None)
                assert spot is not None, "every spot over stone #0 is covered by a ghost"
                _mouse_click(browser, *spot)
                typed = browser.js("document.getElementById('typed').value")
                assert re.fullmatch(r"Stand\((pillar|block|slab) at \d+\.\d deg\)", typed), typed
                assert abs((float(typed.split(" at ")[1].split()[0]) - a0 + 180) % 360 - 180) < 1.0
                browser.js("document.getElementById('send').click(), true")
                refused = browser.wait("(() => { const r = document.getElementById('refusal');"
                                       " return r.hidden || document.body.dataset.busy !== '0' ? '' : r.textContent; })()")
                shape, angle = re.fullmatch(r"Stand\((\w+) at ([\d.]+) deg\)", typed).groups()
                assert refused.startswith(f"Stand({shape} at {float(angle):.2f} deg) is not allowed: "), refused
                continue
            kind = {"place": "stand", "marker": "movemarker", "pass": "pass"}[phase]
            hit = _ghost_point(browser, kind) or _ghost_point(browser, "stack")
            assert hit is not None, f"no {kind} ghost to click in the {phase} phase"
            if not played:
                # tabbing to the move in the list lights its ghost on the table, and only that one
                lit = browser.js(f"(() => {{ const b = [...document.querySelectorAll('#moves button')]"
                                 f".find(b => b.dataset.text === {json.dumps(hit[2])}); b.focus();"
                                 " return [...document.querySelectorAll('#table .hot')].map(e => e.dataset.move); })()")
                assert lit and set(lit) == {hit[2]}, lit
                browser.js("document.activeElement.blur(), true")
                # and pointing at the ghost lights its button in the list
                browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=hit[0], y=hit[1])
                lit = browser.js("[...document.querySelectorAll('#moves button.hot')].map(b => b.dataset.text)")
                assert lit == [hit[2]], lit
            # the page shows the server's latest version (no answer on its way that would redraw it)
            browser.wait("fetch('/state').then(r => r.json()).then(s => s.version === shown"
                         " && document.body.dataset.busy !== '1')")
            under = browser.js(f"(() => {{ const e = document.elementFromPoint({hit[0]}, {hit[1]});"
                               " return e ? e.tagName + ' ' + (e.dataset.move || e.getAttribute('class')) : 'nothing'; })()")
            # Seen about once in ten runs, only right after the refused stand: the first click on a
            # ghost fires no click event (its cause in the page or in CDP's synthetic mouse is not
            # found). A person clicks again; so does the test, once, and says so if
            # the second click plays nothing either.
            moved = f"fetch('/state').then(r => r.json()).then(s => s.decision !== {decision} || !!s.finished)"
            for attempt in range(2):
                _mouse_click(browser, hit[0], hit[1])
                try:
                    browser.wait(moved, timeout=10.0 if attempt == 0 else 60.0)
                    break
                except TimeoutError:
                    if attempt == 1:
                        page = browser.js("JSON.stringify({refusal: document.getElementById('refusal').textContent,"
                                          " busy: document.body.dataset.busy, decision: document.body.dataset.decision,"
                                          " typed: document.getElementById('typed').value})")
                        raise AssertionError(f"two clicks on the ghost of {hit[2]} ({under} under it) played "
                                             f"nothing: {page}") from None
            played.append(hit[2])
        if os.environ.get("STONELAB_KEEP_SHOTS"):
            browser.screenshot(Path(os.environ["STONELAB_KEEP_SHOTS"]) / "play-sun-table.png")
        # the pass: the aim from a click on the table 90 deg away from the form's first aim (the
        # middle of an arc of aims the rules allow), then dragged round back to that aim
        goal = _field(browser, "aim")
        _mouse_click(browser, *_table_point(browser, 0.1, goal + 90.0))
        assert abs((_field(browser, "aim") - goal - 90.0 + 180) % 360 - 180) < 1.0, _field(browser, "aim")
        assert browser.js("!!document.querySelector('#table .aimline')"), "no aim line drawn"
        _mouse_drag(browser, [_table_point(browser, 0.1, goal + a) for a in (60.0, 40.0, 20.0, 0.0)])
        aim = _field(browser, "aim")
        assert abs((aim - goal + 180) % 360 - 180) < 1.0, (aim, goal)
        # the release from the slider under the table: a click three quarters along it
        near = _release_point_distance(browser)
        lo, hi = _field(browser, "release", "min"), _field(browser, "release", "max")
        box = browser.js("(() => { const r = document.getElementById('release-slider').getBoundingClientRect();"
                         " return [r.x, r.y, r.width, r.height]; })()")
        _mouse_click(browser, box[0] + 0.75 * box[2], box[1] + box[3] / 2)
        release = _field(browser, "release")
        assert lo + 0.5 * (hi - lo) < release < hi, (lo, release, hi)
        assert release == float(browser.js("document.getElementById('release-slider').value"))
        assert _release_point_distance(browser) > near + 1.0, "the release point did not move out"
        assert abs(_field(browser, "aim") - aim) < 1e-9, "the slider moved the aim"
        if os.environ.get("STONELAB_KEEP_SHOTS"):
            browser.screenshot(Path(os.environ["STONELAB_KEEP_SHOTS"]) / "play-sun-table-aimed.png")
        browser.js("document.getElementById('fields-send').click(), true")
        outcome = browser.wait("fetch('/state').then(r => r.json()).then(s => { const r = document.getElementById('refusal');"
                               f" return s.decision !== {decision} || s.finished ? 'played'"
                               " : (!r.hidden && r.textContent ? 'refused: ' + r.textContent : ''); })")
        assert outcome == "played", outcome
        mine = [e["text"] for e in _state(url)["log"] if e["who"] == "you"]
        assert mine[:len(played)] == played, (mine, played)
        assert f"Pass(aim {aim:.2f} deg, release {release:.3f} m)" in mine, mine
        assert refused, "no click on an occupied place was tried"
    finally:
        browser.close()
        proc.terminate()
        proc.wait(30)
