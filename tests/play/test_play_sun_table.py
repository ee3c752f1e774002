"""The Sun's table on the play page (sim/sun/seat_drawing.py): every candidate move of the seat to act
is drawn as a ghost where the move puts its stone, marker or release point, every stone on the
table is drawn, and a click means what the phase says. Positions come from random rules-only games
(the state's own scripted table, no PyBullet)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from sim.sun.actions import MoveMarker, Stack, Stand
from sim.sun.geometry.palette import AIM_COLOUR, BLOCKED_COLOUR, PASSABLE_COLOUR, SEAT_COLOURS
from sim.sun.position import GATE, STACK, STAND
from sim.sun.rules.state import SunState
from sim.sun.seat import SEAT
from sim.sun.seat_drawing import ELEVATION_DEG, release_band_radius, table_drawing

#: the tags the page turns into elements (its DRAW_TAGS, sim/play/page.py)
_PAGE_TAGS = {"polygon", "polyline", "ellipse", "circle", "line", "rect"}


def _positions(seed: int, steps: int) -> list[SunState]:
    """States of a random rules-only game, one per seat decision, up to ``steps`` decisions."""
    rng = np.random.default_rng(seed)
    st = SunState.new(2)
    out = []
    while not st.is_terminal() and len(out) < steps:
        if st.current_player() < 0:
            st.apply_action(st.sample_chance(rng))
            continue
        out.append(st.clone())
        acts = st.legal_actions()
        st.apply_action(acts[int(rng.integers(len(acts)))])
    return out


def _unproject(sx: float, sy: float) -> tuple[float, float]:
    """The point of the base's plane (z = 0) drawn at (sx, sy): the page's inverse (tableAngle)."""
    e = math.radians(ELEVATION_DEG)
    return sx / 1000.0, -sy / 1000.0 / math.sin(e)


def _centroid(points: str) -> tuple[float, float]:
    xy = [tuple(map(float, p.split(","))) for p in points.split()]
    return sum(p[0] for p in xy) / len(xy), sum(p[1] for p in xy) / len(xy)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_candidate_move_has_a_ghost_and_every_stone_is_drawn(seed: int) -> None:
    phases = set()
    for st in _positions(seed, 60):
        d = table_drawing(st, st.current_player())
        phases.add(st.phase)
        assert {it["tag"] for it in d["items"]} <= _PAGE_TAGS
        ghosts = {it["move"] for it in d["items"] if "move" in it}
        assert ghosts == {str(a) for a in st.legal_actions()}, st.phase
        drawn = {it["title"] for it in d["items"] if it.get("class") == "stone"}
        assert drawn == {f"#{i} {st.shapes[i]}" for i, r in enumerate(st.role) if r in (STAND, STACK, GATE)}
        assert d["choices"] == (st.available_shapes() if st.phase == "place" else [])
    assert {"place", "pass"} <= phases


def test_a_ghost_stands_where_its_move_puts_the_stone_and_a_pass_handle_lies_at_its_aim() -> None:
    seen = set()
    for st in _positions(4, 80):
        d = table_drawing(st, st.current_player())
        for it in d["items"]:
            move = it.get("move")
            if move is None:
                continue
            if move.startswith("Stand(") and move not in seen:
                seen.add(move)
                angle = float(re.search(r"at (-?[\d.]+) deg", move)[1])
                spec = st.geom.shapes[re.search(r"Stand\((\w+) ", move)[1]]
                pts = [tuple(map(float, p.split(","))) for g in d["items"] if g.get("move") == move
                       for p in g["points"].split()]
                # the lowest drawn point of a standing stone is a corner on the base: back on the
                # base's plane it lies within the stone's half-diagonal of its place in the ring
                low = max(p[1] for p in pts)
                x, y = _unproject(*next(p for p in pts if p[1] == low))
                cx, cy = (st.geom.table.ring_radius * math.cos(math.radians(angle)),
                          st.geom.table.ring_radius * math.sin(math.radians(angle)))
                assert math.hypot(x - cx, y - cy) <= 0.5 * math.hypot(spec.width, spec.depth) + 2e-4  # drawn to 0.1 mm
                seen.add("stand")
            elif move.startswith("Pass("):
                aim = float(re.search(r"aim (-?[\d.]+) deg", move)[1])
                release = float(re.search(r"release ([\d.]+) m", move)[1])
                # drawn at the ball's height: back on the base's plane, shifted by that height
                e = math.radians(ELEVATION_DEG)
                x, y = _unproject(it["cx"], it["cy"] + 1000.0 * 0.01 * math.cos(e))
                assert math.degrees(math.atan2(y, x)) % 360 == pytest.approx(aim % 360, abs=0.01)
                r = st.geom.table.base_radius + release_band_radius(release, st.geom.min_release)
                assert math.hypot(x, y) == pytest.approx(r, abs=1e-4)
                seen.add("pass")
    assert {"stand", "pass"} <= seen


def test_a_marker_ghost_is_where_the_move_puts_the_marker() -> None:
    for st in _positions(5, 120):
        moves = [a for a in st.legal_actions() if isinstance(a, MoveMarker)]
        if not moves:
            continue
        d = table_drawing(st, st.current_player())
        for a in moves:
            after = st.clone()
            after.apply_action(a)
            ang = after.markers[st.seat][a.marker]
            ghost = next(it for it in d["items"] if it.get("move") == str(a))
            e = math.radians(ELEVATION_DEG)
            x, y = _unproject(ghost["cx"], ghost["cy"] + 1000.0 * 0.03 * math.cos(e))
            assert math.degrees(math.atan2(y, x)) % 360 == pytest.approx(math.degrees(ang) % 360, abs=0.01)
        return
    pytest.fail("no marker move in 120 decisions")


def test_a_click_means_what_the_phase_says_and_only_for_the_seat_to_act() -> None:
    kinds = set()
    for st in _positions(6, 60):
        me = st.current_player()
        d = table_drawing(st, me)
        other = table_drawing(st, 1 - me)
        assert other["pick"] is None and other["choices"] == []
        if st.phase == "place":
            assert d["pick"] == {"kind": "stand", "template": "Stand({choice} at {angle} deg)"}
            # the page's typed stand is one the seat view reads
            a = SEAT.parse(d["pick"]["template"].format(choice=d["choices"][0], angle="123.4"))
            assert a == Stand(d["choices"][0], 123.4)
        elif st.phase == "pass":
            assert d["pick"]["kind"] == "aim" and d["pick"]["field"] == "aim"
            assert any(f["name"] == "aim" for f in SEAT.pass_form(st.observation(me))["fields"])
        else:
            assert d["pick"] is None
        kinds.add(st.phase)
    assert {"place", "pass"} <= kinds


def test_the_seat_view_carries_the_drawing_for_its_own_seat() -> None:
    st = _positions(7, 1)[0]
    assert SEAT.view(st.observation(st.current_player()))["drawing"]["pick"] is not None
    assert SEAT.view(st.observation(1 - st.current_player()))["drawing"]["pick"] is None
    # a stack's ghost sits on the stone it names (its polygons over that stone's top)
    for st in _positions(8, 120):
        stacks = [a for a in st.legal_actions() if isinstance(a, Stack)]
        if stacks:
            a = stacks[0]
            d = table_drawing(st, st.current_player())
            ghost = [it for it in d["items"] if it.get("move") == str(a)]
            below = st.pose[a.on]
            sx, _ = _centroid(" ".join(it["points"] for it in ghost))
            assert sx == pytest.approx(1000.0 * below[0], abs=0.6 * 1000.0 * st.geom.shapes[a.shape].width + 1)
            return
    pytest.fail("no stack in 120 decisions")


def test_release_points_are_drawn_in_their_order_on_a_band_just_outside_the_rim() -> None:
    lo = release_band_radius(0.2, 0.2)
    assert 0 < lo < release_band_radius(0.3, 0.2) < release_band_radius(0.5, 0.2) == release_band_radius(0.85, 0.2)
    assert release_band_radius(0.85, 0.2) <= 0.05


def _page_release_band(b: dict[str, float], release: float) -> float:
    """The page's releaseBand (sim/play/page.py) written out: what the drawing's constants give."""
    return b["near"] + (b["far"] - b["near"]) * min(1.0, max(0.0, (release - b["least"]) / b["spread"]))


def test_the_pass_pick_places_the_release_point_as_the_ghosts_are_placed() -> None:
    """The page draws the chosen release point from the drawing's ``release_band``: for every
    release in the form's range it lands where :func:`release_band_radius` puts a ghost."""
    for st in _positions(9, 80):
        if st.phase != "pass":
            continue
        me = st.current_player()
        pick = table_drawing(st, me)["pick"]
        form = SEAT.pass_form(st.observation(me))
        rel = next(f for f in form["fields"] if f["name"] == pick["release_field"])
        assert pick["field"] in {f["name"] for f in form["fields"]}
        for release in np.linspace(rel["min"], rel["max"], 13):
            assert _page_release_band(pick["release_band"], float(release)) == pytest.approx(
                release_band_radius(float(release), st.geom.min_release), abs=1e-12)
        assert pick["aim_colour"] == AIM_COLOUR and pick["colour"] == SEAT_COLOURS[me]
        return
    pytest.fail("no pass in 80 decisions")


def test_the_legend_names_each_seat_and_the_gap_colours_drawn() -> None:
    seen_aim = False
    for st in _positions(10, 60):
        me = st.current_player()
        d = table_drawing(st, me)
        colours = [e["colour"] for e in d["legend"]]
        assert colours[:2] == list(SEAT_COLOURS[:2]) and PASSABLE_COLOUR in colours and BLOCKED_COLOUR in colours
        assert f"seat {me} (you)" in d["legend"][me]["words"]
        drawn = {it.get("stroke") for it in d["items"] if "gap" in str(it.get("class", ""))}
        assert drawn <= {PASSABLE_COLOUR, BLOCKED_COLOUR}
        aim = [e for e in d["legend"] if e["words"].startswith("your aim")]
        assert bool(aim) == (st.phase == "pass")
        seen_aim |= bool(aim)
        # the other seat is not told to click anything
        assert not any("click" in e["words"] for e in table_drawing(st, 1 - me)["legend"])
    assert seen_aim


def test_the_caption_counts_the_field_and_the_penalty_stones() -> None:
    """The caption's counts are the state's: the field's stones by shape and each seat's penalties."""
    for st in _positions(11, 200)[::25]:
        me = st.current_player()
        cap = table_drawing(st, me)["caption"]
        field, pen = re.fullmatch(r"in the field: (.*); penalty stones: (.*)", cap).groups()
        told = {} if field == "none" else {m[2]: int(m[1]) for m in re.finditer(r"(\d+) (\w+?)s?(?:,|$)", field)}
        shapes = [st.shapes[i] for i in st.field_stones()]
        assert told == {sh: shapes.count(sh) for sh in set(shapes)}, cap
        assert [int(n) for n in re.findall(r"seat \d+(?: \(you\))? (\d+)", pen)] == st.penalties(), cap
        assert f"seat {me} (you)" in pen
