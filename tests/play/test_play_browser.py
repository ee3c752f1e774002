"""A person's whole game through the page in headless Chromium: druids and Rocks! against a random
agent, and the Sun's moves on its table. The test clicks, types and drags on the page as a person
would (Playwright driving Debian's Chromium: the ``page`` fixture of tests/conftest.py); the stored
game must be the one the engine plays with the same moves, and a typed illegal move is refused with
the rule's reason. The page's console stays clean.

Set STONELAB_KEEP_SHOTS=DIR to keep a screenshot of each page in the middle of its game.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

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


def _served(scenario: str, seat: int, out: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc, url = _start(scenario, seat, out)
    try:
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(30)


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "state", timeout=10) as r:
        return json.load(r)


def _wait(page: Any, expression: str, timeout: float = 60.0) -> Any:
    """Wait until the JavaScript ``expression`` is truthy (a promise is awaited: Playwright's own
    ``wait_for_function`` does not await one); its value.

    Raises:
        TimeoutError: still falsy after ``timeout`` seconds.
    """
    end = time.monotonic() + timeout
    while not (value := page.evaluate(expression)):
        if time.monotonic() > end:
            raise TimeoutError(f"waited {timeout} s for {expression[:100]}")
        page.wait_for_timeout(50)
    return value


#: the page shows the position the server asks about (its decision number), or the end ("over")
_SYNCED = ("fetch('/state').then(r => r.json()).then(s => { const t = document.getElementById('status').textContent;"
           " if (s.finished) return t.startsWith('Game over') ? 'over' : '';"
           " return s.decision && String(s.decision) === document.body.dataset.decision && t.startsWith('Your turn')"
           " ? String(s.decision) : ''; })")

#: the refusal the page shows once its answer is in
_REFUSAL = ("(() => { const r = document.getElementById('refusal');"
            " return r.hidden || document.body.dataset.busy !== '0' ? '' : r.textContent; })()")


def _sync(page: Any) -> str:
    """Wait until the page shows the position the server asks about (``_SYNCED``); when it does not
    within the wait, say what the page shows instead (its status line: a script error lands there)."""
    try:
        return str(_wait(page, _SYNCED))
    except TimeoutError:
        shown = page.evaluate("JSON.stringify({status: document.getElementById('status').textContent,"
                              " decision: document.body.dataset.decision, busy: document.body.dataset.busy})")
        raise AssertionError(f"the page did not catch up with the server: {shown}") from None


def _moved_on(page: Any, decision: int, timeout: float = 60.0) -> None:
    """Wait until the server asks another decision than ``decision`` (or the game is over)."""
    _wait(page, f"fetch('/state').then(r => r.json()).then(s => s.decision !== {decision} || !!s.finished)", timeout)


def _decisions(page: Any) -> Iterator[int]:
    """The decisions the page asks, as the page shows them (``_sync``), until the game is over."""
    while (status := _sync(page)) != "over":
        yield int(status)


def _keep(page: Any, name: str) -> None:
    keep = os.environ.get("STONELAB_KEEP_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(keep) / name))


def _play_through_page(page: Any, tmp_path: Path, scenario: str, seat: int, illegal: Callable[[dict[str, Any]], str],
                       short_form: Callable[[str], str] | None = None) -> tuple[dict[str, Any], Any, str]:
    """Play the game on the page taking the first listed move each time, except: at the second
    decision ``illegal(view)`` is typed first (it must be refused), and at the third the first move
    is typed in ``short_form(text)`` instead of clicked. Returns the stored game row, the engine's
    result and the refusal shown."""
    t0 = time.monotonic()
    out = tmp_path / "run"
    refusal = ""
    for proc, url in _served(scenario, seat, out):
        page.goto(url)
        decisions = 0
        for n_before in _decisions(page):  # the page shows the position the game asks about
            decisions += 1
            if decisions == 2:
                # the game's replay drawing of the position, the last step in words above it
                assert page.locator("#board svg").count() == 1
                assert str(page.text_content("#lastmove")).startswith("Last step: ")
                page.fill("#typed", illegal(_state(url)["view"]))
                page.click("#send")
                # the refusal is shown, and the page has its answer
                refusal = str(_wait(page, _REFUSAL))
                _keep(page, f"play-{scenario.split('/')[0]}.png")
            if decisions == 3 and short_form is not None:
                first = str(page.get_attribute('#moves button[data-i="1"]', "data-text"))
                page.fill("#typed", short_form(first))
                page.click("#send")
            else:
                page.click('#moves button[data-i="1"]')
            # the page moves on: the next decision, or the end
            _moved_on(page, n_before)
        # the page's last render says where the game is stored (the status line may say "Game over:
        # storing the result..." from the render before it)
        _wait(page, "document.getElementById('result').textContent.includes('Stored in')")
        proc.wait(60)
        assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    assert page.errors == [], page.errors
    with Store.open(out) as store:
        rows = store.query("SELECT scores_json, winners_json, length, termination, agents_json FROM games")
    assert len(rows) == 1
    sc = playable(scenario, seat, out)
    expected, asked = engine_game(sc)
    print(f"{scenario}: {decisions} decisions through the page in {time.monotonic() - t0:.1f} s")
    return {"row": rows[0], "asked": asked, "decisions": decisions}, expected, refusal


def _check_same(got: dict[str, Any], expected: Any) -> None:
    scores, winners, length, termination, labels = got["row"]
    assert json.loads(scores) == expected.scores
    assert json.loads(winners) == expected.winners
    assert length == expected.length
    assert termination == expected.termination
    assert json.loads(labels)[0] != ""
    assert got["decisions"] == len(got["asked"])  # every decision the engine asked was asked on the page


def test_a_game_of_druids_through_the_page(page: Any, tmp_path: Path) -> None:
    def taken(view: dict[str, Any]) -> str:
        name = next(p["name"] for p in view["points"] if p["owner"] is not None)
        return f"Place({name}=1)"

    got, expected, refusal = _play_through_page(
        page, tmp_path, "druids/classic.toml", 1, taken,
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


def test_a_game_of_rocks_through_the_page(page: Any, tmp_path: Path) -> None:
    typed = "move 29 by 1"
    got, expected, refusal = _play_through_page(page, tmp_path, "rocks/greedy-vs-random.toml", 0,
                                                lambda view: typed)
    _check_same(got, expected)
    SEAT = _seat_view("rocks")
    try:
        got["asked"][1].clone().apply_action(SEAT.parse(typed))
    except IllegalActionError as e:
        assert refusal == f"{SEAT.parse(typed)} is not allowed: {e.reason}", refusal
    else:
        raise AssertionError("the typed move was legal")


def test_the_suns_pass_from_its_aim_and_release_fields(page: Any, tmp_path: Path) -> None:
    t0 = time.monotonic()
    for _, url in _served("sun/classic-2p.toml", 1, tmp_path / "run"):
        page.goto(url)
        # the listed placements and marker moves until the person is to pass
        while True:
            status = _sync(page)
            assert status != "over"
            if page.is_visible("#fields-form"):
                break
            page.click('#moves button[data-i="1"]')
            _moved_on(page, int(status))
        assert page.text_content("#fields-title") == "Pass the ball"
        aim = float(page.input_value('#fields input[data-field="aim"]'))
        decision = int(str(page.get_attribute("body", "data-decision")))
        # a release inside a hand span of the base is refused with the rules' reason
        page.fill('#fields input[data-field="release"]', "0.05")
        page.click("#fields-send")
        refusal = str(_wait(page, _REFUSAL))
        assert refusal.startswith(f"Pass(aim {aim:.2f} deg, release 0.050 m) is not allowed: release 0.050 m outside "
                                  "the base is less than a hand span"), refusal
        page.fill('#fields input[data-field="release"]', "0.25")
        page.click("#fields-send")
        _moved_on(page, decision)
        log = _state(url)["log"]
        assert any(e["who"] == "you" and e["text"] == f"Pass(aim {aim:.2f} deg, release 0.250 m)" for e in log), log
        # the pass in 3-D: a link on the page to its viewer, served from memory
        href = str(_wait(page, "(() => { const a = document.querySelector('#turns3d-list a'); return a ? a.href : ''; })()"))
        assert re.fullmatch(re.escape(url) + r"turn/\d+", href), href
        with urllib.request.urlopen(href, timeout=30) as r:
            turn_page = r.read().decode("utf-8")
            assert "'unsafe-inline'" in r.headers["Content-Security-Policy"]
        assert "__VISER_EMBED_DATA__" in turn_page and "Loading the 3-D replay viewer" in turn_page
    assert page.errors == [], page.errors
    print(f"the Sun's pass from its fields: {time.monotonic() - t0:.1f} s")


def _ghost_point(page: Any, cls: str) -> tuple[float, float, str] | None:
    """The centre of the first ghost of class ``cls`` whose centre shows that ghost (not a stone
    or marker in front of it), and its move; None when there is none."""
    return page.evaluate(f"""(() => {{
      for (const g of document.querySelectorAll('#table .ghost.{cls}')) {{
        const r = g.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.dataset && hit.dataset.move === g.dataset.move) return [x, y, g.dataset.move];
      }}
      return null; }})()""")


def _table_point(page: Any, radius_m: float, angle_deg: float) -> tuple[float, float]:
    """The page point of the base's point at ``radius_m`` and ``angle_deg`` (the page's projection)."""
    x, y = page.evaluate(f"""(() => {{ const root = document.getElementById('table');
      const [sx, sy] = tablePoint(lastDrawing, {radius_m}, {angle_deg}, 0);
      const p = root.createSVGPoint(); p.x = sx; p.y = sy; const q = p.matrixTransform(root.getScreenCTM());
      return [q.x, q.y]; }})()""")
    return float(x), float(y)


def _table_xy(page: Any, x: float, y: float) -> tuple[float, float]:
    """The page point of the base's point (x, y) (m)."""
    return _table_point(page, math.hypot(x, y), math.degrees(math.atan2(y, x)))


#: every placement handle and marker ghost drawn, with the least distance (SVG units) from its disc
#: to any stone's drawn outline (negative: it overlaps one), computed from the page's own elements
_GHOST_ROOM = """(() => {
  const stones = [...document.querySelectorAll('#table polygon.stone')].map(p =>
    [...p.points].map(q => [q.x, q.y]));
  const room = (x, y, poly) => {
    let inside = true, sign = 0, d = Infinity;
    for (let i = 0; i < poly.length; i++) {
      const [x0, y0] = poly[i], [x1, y1] = poly[(i + 1) % poly.length], ex = x1 - x0, ey = y1 - y0;
      const c = ex * (y - y0) - ey * (x - x0);
      if (c !== 0) { if (sign === 0) sign = c; else if ((c > 0) !== (sign > 0)) inside = false; }
      const u = Math.max(0, Math.min(1, ((x - x0) * ex + (y - y0) * ey) / Math.max(1e-12, ex * ex + ey * ey)));
      d = Math.min(d, Math.hypot(x - x0 - u * ex, y - y0 - u * ey));
    }
    return inside ? -d : d;
  };
  return [...document.querySelectorAll('#table circle.ghost')].filter(g => !g.classList.contains('pass')).map(g => {
    const x = g.cx.baseVal.value, y = g.cy.baseVal.value, r = g.r.baseVal.value;
    return [g.dataset.move, Math.min(...stones.map(p => room(x, y, p))) - r];
  });
})()"""

#: the placement previews (the stone a handle would place) that are shown now
_PREVIEWS_SHOWN = ("[...new Set([...document.querySelectorAll('#table .preview')]"
                   ".filter(e => getComputedStyle(e).visibility === 'visible').map(e => e.dataset.move))]")


def _field(page: Any, name: str, attr: str = "value") -> float:
    """The pass form's field ``name``: its value (or another attribute) as a number."""
    return float(page.evaluate(f"document.querySelector('#fields input[data-field=\"{name}\"]').{attr}"))


def _release_point_distance(page: Any) -> float:
    """How far (SVG units) the drawn release point is from the centre of the base."""
    return float(page.evaluate("(() => { const c = document.querySelector('#table .aimline .releasepoint');"
                               " const [x, y] = tablePoint(lastDrawing, 0, 0, 0);"
                               " return Math.hypot(c.cx.baseVal.value - x, c.cy.baseVal.value - y); })()"))


def test_the_suns_moves_are_chosen_on_the_table(page: Any, tmp_path: Path) -> None:
    """A stand by clicking its ghost on the table, a stand typed by a click on the table where a
    stone already stands (refused with the rules' reason), the marker by its ghost, and a pass
    aimed by a click and a drag on the table with its release from the slider under it: each is
    the move the stored log shows."""
    t0 = time.monotonic()
    played: list[str] = []
    ghost_checks: list[int] = []
    refused = ""
    for _, url in _served("sun/classic-2p.toml", 0, tmp_path / "run"):
        page.goto(url)
        while True:
            status = _sync(page)
            assert status != "over", "the game ended before the person passed"
            decision = int(status)
            phase = _state(url)["view"]["phase"]
            if phase == "pass" and len(played) >= 2:
                break
            if phase == "place" and played and not refused:
                # a click on the table over stone #0's place: a stand there, typed for the person
                # (at the radius nearest the ring's where no ghost is drawn over the base there)
                a0 = _state(url)["view"]["positions"][0]["angle_deg"]
                spots = [_table_point(page, r, a0) for r in (0.13, 0.125, 0.135, 0.12, 0.14, 0.115)]
                spot = next((p for p in spots if page.evaluate(
                    f"(() => {{ const e = document.elementFromPoint({p[0]}, {p[1]});"
                    " return !!e && !!e.closest('#table') && e.dataset.move === undefined; })()")), None)
                assert spot is not None, "every spot over stone #0 is covered by a ghost"
                page.mouse.click(*spot)
                typed = page.input_value("#typed")
                assert re.fullmatch(r"Stand\((pillar|block|slab) at \d+\.\d deg\)", typed), typed
                assert abs((float(typed.split(" at ")[1].split()[0]) - a0 + 180) % 360 - 180) < 1.0
                # the stand typed by the click says what it risks before it is sent (the server's measure)
                words = _read(url, typed)["risk"]["words"]
                _wait(page, f"document.getElementById('risk').textContent === {json.dumps(words)}")
                page.click("#send")
                refused = str(_wait(page, _REFUSAL))
                m = re.fullmatch(r"Stand\((\w+) at ([\d.]+) deg\)", typed)
                assert m is not None
                assert refused.startswith(f"Stand({m[1]} at {float(m[2]):.2f} deg) is not allowed: "), refused
                continue
            kind = {"place": "stand", "marker": "movemarker", "pass": "pass"}[phase]
            if phase in ("place", "marker"):
                # crowded ghosts: no ghost disc covers a stone's drawn outline, and no
                # preview stone is shown but that of the move pointed at or focused (the page
                # focuses the first listed move)
                rooms = page.evaluate(_GHOST_ROOM)
                assert rooms and min(r for _, r in rooms) > 0.0, sorted(rooms, key=lambda m: m[1])[:3]
                ghost_checks.append(len(rooms))
                focused = page.evaluate("document.activeElement.dataset.text || ''")
                assert set(page.evaluate(_PREVIEWS_SHOWN)) <= {focused}, focused
            hit = _ghost_point(page, kind) or _ghost_point(page, "stack")
            assert hit is not None, f"no {kind} ghost to click in the {phase} phase"
            if not played:
                # tabbing to the move in the list lights its ghost on the table, and only that one
                page.locator("#moves button").filter(has_text=hit[2]).first.focus()
                lit = page.evaluate("[...document.querySelectorAll('#table .hot')].map(e => e.dataset.move)")
                assert lit and set(lit) == {hit[2]}, lit
                page.evaluate("document.activeElement.blur()")
                # and pointing at the ghost lights its button in the list, and shows its preview stone
                page.mouse.move(hit[0], hit[1])
                lit = page.evaluate("[...document.querySelectorAll('#moves button.hot')].map(b => b.dataset.text)")
                assert lit == [hit[2]], lit
                assert page.evaluate(_PREVIEWS_SHOWN) == [hit[2]]
                # and says what the stand risks, as the server measured it, before it is played
                risk = _state(url)["risks"][hit[2]]
                assert page.text_content("#risk") == risk["words"] and page.is_visible("#risk"), risk
            # the page shows the server's latest version (no answer on its way that would redraw it)
            _wait(page, "fetch('/state').then(r => r.json()).then(s => s.version === shown"
                        " && document.body.dataset.busy !== '1')")
            # the ghost itself, clicked where it shows (Playwright checks nothing covers it there)
            page.locator(f"#table .ghost[data-move={json.dumps(hit[2])}]").first.click()
            _moved_on(page, decision)
            played.append(hit[2])
        _keep(page, "play-sun-table.png")
        # the Sun's "Last step" line says the step before this decision, as the log does
        last = _state(url)["log"][-1]
        assert page.text_content("#lastmove") == f"Last step: {last['who']}: {last['text']}"
        # the pass: the aim from a click on the table 90 deg away from the form's first aim (the
        # middle of an arc of aims the rules allow)
        goal = _field(page, "aim")
        page.mouse.click(*_table_point(page, 0.1, goal + 90.0))
        assert abs((_field(page, "aim") - goal - 90.0 + 180) % 360 - 180) < 1.0, _field(page, "aim")
        assert page.locator("#table .aimline").count() > 0, "no aim line drawn"
        # a pass that may cost a stone says so before it is played: the server's measure of a
        # touching line, aimed by a drag, then of the listed passes pointed at
        risky = next(((a, r) for a in range(0, 360, 5)
                      if (r := _read(url, f"pass {a} {_field(page, 'release'):.3f}")["risk"])["touches"]), None)
        assert risky is not None, "no aim touches a stone"
        _drag_aim(page, float(risky[0]))
        _wait(page, "document.getElementById('risk').textContent.startsWith('Risky pass: this line touches stone #')")
        shown = _read(url, f"pass {_field(page, 'aim')} {_field(page, 'release')}")["risk"]
        assert page.text_content("#risk") == shown["words"] and shown["touches"], shown
        assert f"stone #{shown['touches'][0]} " in shown["words"] and "with your skill (" in shown["words"]
        listed = _state(url)["risks"]
        for text, risk in list(listed.items())[:3]:
            page.locator("#moves button").filter(has_text=text).first.focus()
            assert page.text_content("#risk") == risk["words"], (text, risk)
        page.evaluate("document.activeElement.blur()")
        # a drag aims along the drag: pressed 90 deg off the goal and dragged straight the way the
        # ball should roll, let go at a point whose own angle is far from the goal
        end = _drag_aim(page, goal)
        aim = _field(page, "aim")
        assert abs((aim - goal + 180) % 360 - 180) < 1.0, (aim, goal)
        assert abs((end - goal + 180) % 360 - 180) > 30.0, "the let-go point's angle is the goal: the test proves nothing"
        # the release from the slider under the table: a click three quarters along it
        near = _release_point_distance(page)
        lo, hi = _field(page, "release", "min"), _field(page, "release", "max")
        box = page.locator("#release-slider").bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 0.75 * box["width"], box["y"] + box["height"] / 2)
        release = _field(page, "release")
        assert lo + 0.5 * (hi - lo) < release < hi, (lo, release, hi)
        assert release == float(page.input_value("#release-slider"))
        assert _release_point_distance(page) > near + 1.0, "the release point did not move out"
        assert abs(_field(page, "aim") - aim) < 1e-9, "the slider moved the aim"
        _keep(page, "play-sun-table-aimed.png")
        page.click("#fields-send")
        outcome = _wait(page, "fetch('/state').then(r => r.json()).then(s => { const r = document.getElementById('refusal');"
                              f" return s.decision !== {decision} || s.finished ? 'played'"
                              " : (!r.hidden && r.textContent ? 'refused: ' + r.textContent : ''); })")
        assert outcome == "played", outcome
        mine = [e["text"] for e in _state(url)["log"] if e["who"] == "you"]
    assert mine[:len(played)] == played, (mine, played)
    assert f"Pass(aim {aim:.2f} deg, release {release:.3f} m)" in mine, mine
    assert refused, "no click on an occupied place was tried"
    assert ghost_checks, "no ghosts were checked against the stones"
    assert page.errors == [], page.errors
    print(f"the Sun's moves on its table: {time.monotonic() - t0:.1f} s (ghosts checked: {ghost_checks})")


def _read(url: str, text: str) -> Any:
    with urllib.request.urlopen(url + "read?text=" + urllib.parse.quote(text), timeout=30) as r:
        return json.load(r)


def _drag_aim(page: Any, goal: float) -> float:
    """Drag on the table the way a ball aimed at ``goal`` (deg) rolls (from the release point's side
    through the centre): pressed 5 cm from the centre at ``goal`` + 90 deg, moved 8 cm in four steps,
    let go. Returns the angle (deg) of the point let go (not the aim a drag gives)."""
    g = math.radians(goal)
    x0, y0 = 0.05 * math.cos(g + math.pi / 2), 0.05 * math.sin(g + math.pi / 2)
    page.mouse.move(*_table_xy(page, x0, y0))
    page.mouse.down()
    for k in range(1, 5):
        x, y = x0 - 0.02 * k * math.cos(g), y0 - 0.02 * k * math.sin(g)
        page.mouse.move(*_table_xy(page, x, y), steps=2)
    page.mouse.up()
    return math.degrees(math.atan2(y, x)) % 360


def test_a_game_of_druids_by_keyboard_alone(page: Any, tmp_path: Path) -> None:
    """The page opens with the focus on the first listed move, and from the page's start the skip
    link (the first Tab) leads there; Enter plays it, and after
    each move the focus is back on the move list, so Enter plays the next. Typing a short form
    (``c3``) filters the list to the move it reads as. No mouse at all."""
    t0 = time.monotonic()
    out = tmp_path / "run"
    for proc, url in _served("druids/classic.toml", 1, out):
        page.goto(url)
        _sync(page)
        # the page opens with the focus on the first move; from the page's start the skip link leads there
        _wait(page, "document.activeElement && document.activeElement.matches('#moves button[data-i=\"1\"]')")
        for _ in range(12):  # back to the page's start, as a person would
            page.keyboard.press("Shift+Tab")
            if page.evaluate("document.activeElement.id") == "skip":
                break
        assert page.evaluate("document.activeElement.id") == "skip"
        page.keyboard.press("Enter")
        decisions = 0
        for asked in _decisions(page):
            decisions += 1
            _wait(page, "document.activeElement && document.activeElement.matches('#moves button')")
            first = str(page.evaluate("document.activeElement.dataset.text"))
            if decisions == 2:
                # the short form filters the list to its move (it contains no listed text)
                short = re.sub(r"Place\((\w)=(\d)\)", r"\1\2", first)
                page.keyboard.press("Shift+Tab")  # back from the moves into the typed field's form
                page.focus("#typed")
                page.keyboard.type(short)
                note = str(_wait(page, "(() => { const n = document.getElementById('nomatch');"
                                       " return n.textContent.includes(' is ') ? n.textContent : ''; })()"))
                assert note.startswith(f"\u201c{short}\u201d is {first}"), note
                shown = page.evaluate("[...document.querySelectorAll('#moves button')].filter(b => !b.hidden)"
                                      ".map(b => b.dataset.text)")
                assert shown == [first], shown
                page.keyboard.press("Enter")  # plays the typed move
            else:
                page.keyboard.press("Enter")
            _moved_on(page, asked)
        # the page's last render says where the game is stored (the status line may say "Game over:
        # storing the result..." from the render before it)
        _wait(page, "document.getElementById('result').textContent.includes('Stored in')")
        proc.wait(60)
        assert proc.returncode == 0
    assert decisions >= 8, decisions
    assert page.errors == [], page.errors
    print(f"druids by keyboard: {decisions} decisions in {time.monotonic() - t0:.1f} s")


def test_a_refusal_is_not_shown_again_after_a_reload(page: Any, tmp_path: Path) -> None:
    """A refused move is said on the page that sent it; the same page reloaded while the decision
    is still pending does not show it again as if just refused."""
    for _, url in _served("druids/classic.toml", 1, tmp_path / "run"):
        page.goto(url)
        first = int(_sync(page))
        page.click('#moves button[data-i="1"]')  # a point is taken: placing there again is refused
        _moved_on(page, first)
        _sync(page)
        taken = next(p["name"] for p in _state(url)["view"]["points"] if p["owner"] is not None)
        page.fill("#typed", f"Place({taken}=1)")
        page.click("#send")
        assert "is taken" in str(_wait(page, _REFUSAL))
        page.reload()
        _sync(page)
        assert page.is_hidden("#refusal")
        assert _state(url)["refusal"], "the server still knows the refusal: the check is not vacuous"
    assert page.errors == [], page.errors


def test_the_suns_ghosts_never_hide_the_stones_they_stand_between(page: Any, tmp_path: Path) -> None:
    """Crowded ghosts: on a ring of many stones with many candidate placements, no
    handle or marker ghost covers a stone's drawn outline, and a placement's preview stone shows only
    while its handle is pointed at (the page's elements, measured in the page)."""
    t0 = time.monotonic()
    for _, url in _served("sun/classic-2p.toml", 0, tmp_path / "run"):
        page.goto(url)
        while True:
            decision = int(_sync(page))
            state = _state(url)
            if state["view"]["phase"] == "place" and len(state["view"]["positions"]) >= 8 and len(state["legal"]) >= 30:
                break
            page.click('#moves button[data-i="1"]')
            _moved_on(page, decision)
        page.evaluate("document.activeElement.blur()")
        # the pointer off the table: it was left where the last move's button was, and the table
        # redrawn under it may put a handle there (a preview shown by that hover, not by the page)
        page.mouse.move(5, 5)
        rooms = page.evaluate(_GHOST_ROOM)
        assert len(rooms) >= 20 and min(r for _, r in rooms) > 0.0, sorted(rooms, key=lambda m: m[1])[:3]
        assert page.evaluate(_PREVIEWS_SHOWN) == []
        hit = _ghost_point(page, "handle")
        assert hit is not None
        page.mouse.move(hit[0], hit[1])
        assert page.evaluate(_PREVIEWS_SHOWN) == [hit[2]]
        _keep(page, "play-sun-crowded.png")
        page.mouse.move(5, 5)
        assert page.evaluate(_PREVIEWS_SHOWN) == []
        print(f"the Sun's crowded table: {len(state['legal'])} moves, {len(rooms)} ghosts clear of "
              f"{len(state['view']['positions'])} positions; least room {min(r for _, r in rooms):.1f} mm")
    assert page.errors == [], page.errors
    print(f"the Sun's crowded ghosts: {time.monotonic() - t0:.1f} s")


def test_a_face_down_druids_game_says_each_value_once_it_is_turned_up(page: Any, tmp_path: Path) -> None:
    """Face down: "What happened" says every step in the replay's words, and a stone
    placed face down gets its value in its own line once a line through it is full (never before:
    tests/play/test_play_board.py checks the JSON); the end is said in words, not a code."""
    t0 = time.monotonic()
    for proc, url in _served("druids/classic-face-down.toml", 1, tmp_path / "run"):
        page.goto(url)
        before_turned = 0
        for asked in _decisions(page):
            shown = page.evaluate("[...document.querySelectorAll('#log li')].map(li => li.textContent)")
            words = _state(url)["board"]["words"]
            assert shown == [w["text"] + (f" (only you know: {w['note']})" if w["note"] else "") for w in words]
            before_turned = max(before_turned, sum("turned up since" in t for t in shown))
            page.click('#moves button[data-i="1"]')
            _moved_on(page, asked)
        _wait(page, "document.getElementById('result').textContent.includes('Stored in')")
        shown = page.evaluate("[...document.querySelectorAll('#log li')].map(li => li.textContent)")
        status = str(page.text_content("#status"))
        proc.wait(60)
    turned = [t for t in shown if "(face down; turned up since)" in t]
    assert turned and re.search(r"places a [1-6] on [a-s] \(face down; turned up since\)", turned[0]), shown
    assert before_turned > 0, "no value was turned up while the person still had moves to make"
    assert status.startswith("Game over: ") and "_" not in status, status
    assert page.errors == [], page.errors
    print(f"druids face down: {len(shown)} lines, {len(turned)} values turned up, in {time.monotonic() - t0:.1f} s")
