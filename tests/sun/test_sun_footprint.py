"""The rules see the footprint the stones have (sim/sun/geometry/ring.py ``footprint``).

A position's footprint is the least ring-aligned box covering the horizontal projection of all its
stones as they stand (docs/rules-sun.md, "What the rules see"). Before, the rules put a position at
its bottom stone's angle with the widest of its shapes: a stack whose top stone a placement or a
pass had shifted 4.9 mm towards a gap left, to the rules, a 4 mm clearance where the stones
overlapped, and the stand they called legal fell on the table at zero noise.
"""

from __future__ import annotations

import math

import pytest

from sim.core.quaternions import quat_multiply, quat_yaw
from sim.sun.actions import Gate, Stand
from sim.sun.rules.legality import check_gate
from sim.sun.position import STACK, STAND
from sim.sun.physics import ScriptedTable
from sim.sun.geometry.gaps import seps_for_widths, side_clearance, upright_side
from sim.sun.geometry.ring import (Geometry, Pos, Pose, clear_width, footprint, gap_width, lintel_overlaps, position_of,
                                   sep_for_width)
from sim.sun.rules.state import SunState
from sim.sun.geometry.specs import ShapeSpec
from sim.sun.rules.stand_angles import check_stand

G = Geometry()
RR = G.table.ring_radius
BLOCK, PILLAR = G.shapes["block"], G.shapes["pillar"]


def _upright(angle: float, shape: ShapeSpec, yaw: float = 0.0, radius: float = RR, z: float | None = None,
             lean: float = 0.0) -> Pose:
    """A stone centred at ``radius`` on the ray at ``angle`` (rad), facing the centre, turned ``yaw``
    about the vertical and leant ``lean`` (rad) about its own width axis (outwards)."""
    q = quat_yaw(angle + yaw)
    if lean:
        q = quat_multiply(q, (0.0, math.sin(0.5 * lean), 0.0, math.cos(0.5 * lean)))
    return (radius * math.cos(angle), radius * math.sin(angle), 0.5 * shape.height if z is None else z, *q)


def test_a_stone_standing_as_intended_keeps_its_own_size() -> None:
    for ang in (0.0, 1.0, 3.5, 6.0):
        a, r, w, d = footprint([(_upright(ang, BLOCK), BLOCK)])
        assert a == pytest.approx(ang, abs=1e-12)
        assert (r, w, d) == pytest.approx((RR, BLOCK.width, BLOCK.depth), abs=1e-12)


def test_a_turned_or_leaning_stone_covers_its_projection() -> None:
    psi = math.radians(10.0)
    _, r, w, d = footprint([(_upright(0.3, BLOCK, yaw=psi), BLOCK)])
    # a box turned psi about the vertical: its projection on the ring's axes (the rectangle's hull)
    assert w == pytest.approx(BLOCK.width * math.cos(psi) + BLOCK.depth * math.sin(psi), abs=1e-9)
    assert d == pytest.approx(BLOCK.depth * math.cos(psi) + BLOCK.width * math.sin(psi), abs=1e-9)
    assert r == pytest.approx(RR, abs=1e-9)
    beta = math.radians(5.0)
    _, _, w, d = footprint([(_upright(0.3, PILLAR, lean=beta), PILLAR)])
    assert w == pytest.approx(PILLAR.width, abs=1e-9)
    assert d == pytest.approx(PILLAR.depth * math.cos(beta) + PILLAR.height * math.sin(beta), abs=1e-9)


def _overhang_state(offset: float) -> SunState:
    """Blocks at 0, 120 and 240 deg, a block stacked on the one at 0 deg and shifted ``offset`` m
    along the ring (counter-clockwise); seat 1 to place, the other seat's marker opposite."""
    s = SunState.new(2, table=ScriptedTable(G))
    s.set_position([("block", 0.0, 1), ("block", 0.0, 2), ("block", math.radians(120.0), 1),
                    ("block", math.radians(240.0), 1)])
    s.played = [True, True]
    s.seat = 1
    s.markers = [[math.radians(180.0)], [math.radians(300.0)]]
    top = next(i for i, r in enumerate(s.role) if r == STACK)
    p = s.pose[top]
    s.pose[top] = (p[0], p[1] + offset, *p[2:])
    s.cache.invalidate()
    s._begin_turn()
    return s


def test_a_stand_overlapping_a_stack_top_that_overhangs_the_gap_is_refused() -> None:
    # the case of the sensitivity study: the top 4.9 mm off its base towards the spot, the stand
    # where the base alone would leave it a 4 mm clearance
    s = _overhang_state(0.0049)
    base = Pos(0, 0.0, RR, BLOCK.width, BLOCK.depth, BLOCK.height)  # the base stone alone
    sep = sep_for_width(base, RR, PILLAR, 0.004, True)
    assert sep is not None
    ccw, cw = Stand("pillar", math.degrees(sep)), Stand("pillar", 360.0 - math.degrees(sep))
    # that stand overlaps the top by 4.9 - 4 = 0.9 mm (less the top's own cos): refused
    assert check_stand(s.ctx, ccw) == f"not clear of stone #{s.ring().pos[0].id}"
    lo, hi = sep - 1e-9, sep + 1e-9
    assert not any(a <= lo and hi <= b for a, b in s.stand_intervals("pillar"))
    # on the other side the top overhangs nothing: the same clearance stays legal
    assert check_stand(s.ctx, cw) is None
    # the ring sees the top where it is: the position reaches 4.9 mm further counter-clockwise (a
    # little more: the box is aligned with the ray through the stack's middle, 1.1 deg off the
    # stones' faces, so it is 0.2 mm wider than their hull)
    p = s.ring().pos[0]
    edge, exact = math.degrees(p.angle + p.half), math.degrees(math.asin((0.5 * BLOCK.width + 0.0049) / RR))
    assert exact <= edge <= exact + 0.1
    # with the top on its base, the stand is legal again
    assert check_stand(_overhang_state(0.0).ctx, ccw) is None


def test_a_stack_on_a_turned_base_is_as_wide_as_its_stones() -> None:
    s = _overhang_state(0.0)
    base = next(i for i, r in enumerate(s.role) if r == STAND and s.pose[i][1] > 0.1)  # the one at 120 deg
    p0 = s.pose[base]
    s.pose[base] = (*p0[:3], *quat_multiply(quat_yaw(math.radians(8.0)), p0[3:]))
    s.cache.invalidate()
    p = s.ring().pos[s.ring().index[base]]
    new = s.stacked_pos(p, "block")
    psi = math.radians(8.0)
    # the stacked block stands turned as its base: both stones' projections, no wider than one
    assert new.width == pytest.approx(BLOCK.width * math.cos(psi) + BLOCK.depth * math.sin(psi), abs=1e-9)
    assert new.top_z == pytest.approx(2 * BLOCK.height, abs=1e-12)
    assert new.angle == pytest.approx(p.angle, abs=1e-12)


def test_position_of_takes_the_highest_point_and_the_top_id() -> None:
    a = _upright(0.5, BLOCK)
    t = _upright(0.5, PILLAR, z=BLOCK.height + 0.5 * PILLAR.height)
    p = position_of(3, [(a, BLOCK), (t, PILLAR)], 7)
    assert p.ids == (3, 7)
    assert p.top_z == pytest.approx(BLOCK.height + PILLAR.height)
    assert p.width == pytest.approx(BLOCK.width)


def test_a_gate_needs_its_overlap_on_the_supports_top_stones() -> None:
    # two blocks facing the centre, 60 mm apart (chord), a slab (65 mm) laid centred between them:
    # each block reaches w/2 cos(h) + d/2 sin(h) along the chord (h: the chord's angle to its face)
    slab = G.shapes["slab"]
    h = math.asin(0.030 / RR)
    a, b = _upright(-h, BLOCK), _upright(h, BLOCK)
    chord = 2 * RR * math.sin(h)
    ov = lintel_overlaps(G, "slab", a, b, (a, BLOCK), (b, BLOCK))
    reach = 0.5 * BLOCK.width * math.cos(h) + 0.5 * BLOCK.depth * math.sin(h)
    assert ov == pytest.approx((0.5 * slab.lintel_length - 0.5 * chord + reach,) * 2, abs=1e-12)
    # the top of one support turned a right angle: it offers its depth along the chord, not its width
    b2 = _upright(h, BLOCK, yaw=math.pi / 2)
    ov2 = lintel_overlaps(G, "slab", a, b, (a, BLOCK), (b2, BLOCK))
    reach2 = 0.5 * BLOCK.depth * math.cos(h) + 0.5 * BLOCK.width * math.sin(h)
    assert ov2 == pytest.approx((ov[0], 0.5 * slab.lintel_length - 0.5 * chord + reach2), abs=1e-12)


def _gate_state(shift: float) -> tuple[SunState, Gate]:
    """Two stacks of blocks leaving a 40 mm gap (a slab lintel, 65 mm, may span 49 mm), the top of
    the counter-clockwise one shifted ``shift`` m away from the gap; the gate of the slab across."""
    s = SunState.new(2, table=ScriptedTable(G))
    sep = sep_for_width(Pos(0, 0.0, RR, BLOCK.width, BLOCK.depth, BLOCK.height), RR, BLOCK, 0.040, True)
    assert sep is not None
    s.set_position([("block", 0.0, 1), ("block", 0.0, 2), ("block", sep, 1), ("block", sep, 2),
                    ("block", math.radians(120.0), 1), ("block", math.radians(240.0), 1),
                    ("slab", math.radians(300.0), 1)])
    s.played = [True, True]
    s.seat = 1
    s.markers = [[math.radians(270.0)], [math.radians(180.0)]]
    top = max((i for i, r in enumerate(s.role) if r == STACK), key=lambda i: s.pose[i][1])
    p = s.pose[top]
    s.pose[top] = (p[0] - shift * math.sin(sep), p[1] + shift * math.cos(sep), *p[2:])
    s.cache.invalidate()
    s._begin_turn()
    ring = s.ring()
    slab = next(i for i, r in enumerate(s.role) if r == STAND and s.shapes[i] == "slab")
    return s, Gate(slab, ring.pos[0].id, ring.pos[1].id)


def test_a_gate_is_refused_when_a_support_top_offers_less_than_the_least_overlap() -> None:
    s, gate = _gate_state(0.0)
    assert check_gate(s.ctx, gate) is None
    assert gate in s.legal_actions()
    # the lintel rests 12.5 mm on each top; with one top 10 mm off its base along the ring, away
    # from the gap (9.6 mm along the lintel), 2.9 mm on it (the old rules saw the base stone's
    # angle and the block's width only, and called the gate legal)
    s, gate = _gate_state(0.010)
    why = check_gate(s.ctx, gate)
    assert why is not None and why.startswith("a slab gate would rest 2.9 mm on #"), why
    assert gate not in s.legal_actions()


# --- the real outline: the gap kernel measures the stones' own rectangles (sim/sun/geometry/gaps.py) ---------


def _turned_clearance(h: float, yaw: float, s: ShapeSpec, r: float = RR) -> float:
    """Closed form: distance (m) from a ray ``h`` rad counter-clockwise of the centre of an upright
    stone of shape ``s`` at radius ``r``, turned ``yaw`` about the vertical, to that stone (its
    rectangle's support function: ``r sin h - (d/2)|sin(h - yaw)| - (w/2)|cos(h - yaw)|``)."""
    return r * math.sin(h) - 0.5 * s.depth * abs(math.sin(h - yaw)) - 0.5 * s.width * abs(math.cos(h - yaw))


@pytest.mark.parametrize("yaw_deg", [-25.0, -8.0, -2.0, 0.0, 3.0, 10.0, 40.0])
def test_a_turned_stone_is_measured_on_its_own_rectangle(yaw_deg: float) -> None:
    yaw = math.radians(yaw_deg)
    p = position_of(0, [(_upright(0.7, BLOCK, yaw=yaw), BLOCK)])
    for h in (0.01, 0.05, 0.12, 0.3, 0.8, 1.4):
        # the ray h counter-clockwise of the stone's own centre, measured from the position's ray
        off = 0.7 - p.angle
        assert side_clearance(p.ccw, h - off) == pytest.approx(_turned_clearance(h, yaw, BLOCK), abs=1e-12)
        # clockwise, the stone is turned the other way as seen from the ray
        assert side_clearance(p.cw, h + off) == pytest.approx(_turned_clearance(h, -yaw, BLOCK), abs=1e-12)


def test_a_turned_stone_costs_no_ring_space_it_does_not_occupy() -> None:
    # the box aligned with the ring (the footprint: w' = w cos a + d sin a, d' = d cos a + w sin a)
    # stands (d'/2) sin h + (w'/2) cos h inside the ray's clearance; the rectangle turned a stands
    # d sin a cos h farther from a ray on the side it turns towards, w sin a sin h on the other
    yaw = math.radians(10.0)
    p = position_of(0, [(_upright(0.0, BLOCK, yaw=yaw), BLOCK)])
    box = upright_side(p.radius, p.depth, p.width)
    h = 0.2
    real_ccw, real_cw, boxed = side_clearance(p.ccw, h), side_clearance(p.cw, h), side_clearance(box, h)
    assert real_ccw == pytest.approx(_turned_clearance(h, yaw, BLOCK), abs=1e-12)
    assert real_cw == pytest.approx(_turned_clearance(h, -yaw, BLOCK), abs=1e-12)
    assert real_ccw - boxed == pytest.approx(BLOCK.depth * math.sin(yaw) * math.cos(h), abs=1e-12)
    assert real_cw - boxed == pytest.approx(BLOCK.width * math.sin(yaw) * math.sin(h), abs=1e-12)
    assert min(real_ccw, real_cw) - boxed > 0.001  # the box cost over a millimetre on each side


def test_a_gap_between_turned_stones_has_the_closed_form_width_and_its_inverse() -> None:
    ya, yb = math.radians(7.0), math.radians(-12.0)
    sep = 0.31
    a = position_of(0, [(_upright(0.0, BLOCK, yaw=ya), BLOCK)])
    b = position_of(1, [(_upright(sep, PILLAR, yaw=yb), PILLAR)])
    h = 0.5 * sep
    # each stone's clearance from the ray through the gap's middle, the second seen clockwise
    exact = _turned_clearance(h, ya, BLOCK) + _turned_clearance(h, -yb, PILLAR)
    assert gap_width(a, b) == pytest.approx(exact, abs=1e-12)
    # the inverse: the separation leaving a given width beside a stone standing as intended
    for width in (0.0005, 0.004, 0.039):
        for ccw in (True, False):
            d = sep_for_width(a, RR, PILLAR, width, ccw)
            assert d is not None
            new = Pos(9, (a.angle + d) if ccw else (a.angle - d), RR, PILLAR.width, PILLAR.depth, PILLAR.height)
            got = gap_width(a, new) if ccw else gap_width(new, a)
            assert got == pytest.approx(width, abs=1e-12)
    # a corner pair that never reaches the width below a half turn: None
    assert seps_for_widths(a.ccw, b.cw, [1.0]) == [None]


def test_a_stack_top_overhangs_only_the_stones_tall_enough_to_reach_it() -> None:
    # a block stacked on a pillar (underside 70 mm up), shifted 4.9 mm counter-clockwise: a block
    # (50 mm tall) beside the pillar passes under the overhang, a pillar does not
    s = SunState.new(2, table=ScriptedTable(G))
    s.set_position([("pillar", 0.0, 1), ("block", 0.0, 2), ("block", math.radians(120.0), 1),
                    ("block", math.radians(240.0), 1)])
    s.played = [True, True]
    s.seat = 1
    s.markers = [[math.radians(180.0)], [math.radians(300.0)]]
    top = next(i for i, r in enumerate(s.role) if r == STACK)
    p = s.pose[top]
    s.pose[top] = (p[0], p[1] + 0.0049, *p[2:])
    s.cache.invalidate()
    s._begin_turn()
    stack = s.ring().pos[0]
    assert len(stack.layers) == 2
    base_alone = Pos(0, 0.0, RR, PILLAR.width, PILLAR.depth, PILLAR.height)
    for shape, refused in (("block", False), ("pillar", True)):
        sep = sep_for_width(base_alone, RR, G.shapes[shape], 0.002, True)
        assert sep is not None
        why = check_stand(s.ctx, Stand(shape, math.degrees(sep)))
        assert (why == f"not clear of stone #{stack.id}") is refused, (shape, why)
        inside = any(a <= sep - 1e-9 and sep + 1e-9 <= b for a, b in s.stand_intervals(shape))
        assert inside is not refused
    # the block's stand still leaves the ball no way through under the overhang: the gap the ball
    # sees is measured on the whole stack (its width is less than with the base alone)
    sep = sep_for_width(base_alone, RR, BLOCK, 0.002, True)
    assert sep is not None
    new = Pos(9, sep, RR, BLOCK.width, BLOCK.depth, BLOCK.height)
    assert clear_width(stack, new) == pytest.approx(0.002, abs=2e-4)
    assert gap_width(stack, new) < 0.0
