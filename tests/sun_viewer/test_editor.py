"""The layout editor's model (no browser): edits, refusals with reasons, the byte-stable save, the
physics buttons, the physics-free picture (``sun show``), and the page's handlers on a live server.

Expected values come from the geometry written out here (the gap across the bisector ray of two
stones, docs/sun-physics.md), not from the code under test.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from sim.core.errors import InputError, ScenarioError
from sim.sun.table.layout import DEFAULT_SHAPES, TableSpec, dump_layout_toml, load_layout
from sim.sun.viewer.editor import LayoutEditor
from sim.sun.viewer.layout_plot import layout_boxes

ROOT = Path(__file__).resolve().parents[2]
LAYOUTS = ROOT / "scenarios" / "sun" / "layouts"
T = TableSpec()
BLOCK, PILLAR, SLAB = DEFAULT_SHAPES["block"], DEFAULT_SHAPES["pillar"], DEFAULT_SHAPES["slab"]


def _gap(sep_deg: float, a=BLOCK, b=BLOCK) -> float:  # noqa: ANN001
    """Clear width (m) between two stones on the ring ``sep_deg`` apart, across the bisector ray:
    each stone's inner corner is (R - depth/2) sin(h) - (width/2) cos(h) from the ray, h = sep/2."""
    h = math.radians(sep_deg) / 2
    return sum((T.ring_radius - s.depth / 2) * math.sin(h) - s.width / 2 * math.cos(h) for s in (a, b))


# ---- edits ------------------------------------------------------------------------------------


def test_add_stone_gap_matches_the_bisector_formula() -> None:
    ed = LayoutEditor()
    assert ed.add_stone("block", 0.0) == 0
    assert ed.add_stone("block", 60.0) == 1
    gaps = ed.gaps()
    assert len(gaps) == 2
    short = min(gaps, key=lambda g: g.width_m)
    assert short.width_m == pytest.approx(_gap(60.0), abs=1e-9)  # 96.5 mm
    assert math.isinf(max(g.width_m for g in gaps))  # the 300-degree side is more than a half turn
    assert short.passable  # wider than the 35 mm ball + 4 mm


def test_overlap_refused_exactly_at_the_clearance_threshold() -> None:
    # the separation at which two blocks leave exactly min_clearance between them
    sep = brentq(lambda s: _gap(s) - T.min_clearance, 1.0, 60.0)
    ed = LayoutEditor()
    ed.add_stone("block", 100.0)
    before = ed.layout
    with pytest.raises(ScenarioError, match="overlaps or touches stones\\[0\\]") as err:
        ed.add_stone("block", 100.0 + sep - 0.01)
    assert "need at least 0.5 mm" in str(err.value)
    assert ed.layout is before  # a refused change leaves the layout as it was
    ed.add_stone("block", 100.0 + sep + 0.01)
    assert len(ed.layout.stones) == 2


@pytest.mark.parametrize(("setup", "action", "reason"), [
    (lambda e: [e.add_stone("pillar", 45.0 * k) for k in range(8)], lambda e: e.add_stone("pillar", 20.0),
     "9 pillar stones used but the set has 8"),
    (lambda e: e.add_stone("block", 0.0), lambda e: e.add_stone("block", 0.0), "use level = 2 to stack"),
    (lambda e: (e.add_stone("block", 0.0), e.stack_stone("block", 0)), lambda e: e.stack_stone("slab", 0),
     "at most two levels"),
    (lambda e: (e.add_stone("block", 0.0), e.stack_stone("block", 0)), lambda e: e.stack_stone("slab", 1),
     "is itself stacked"),
    (lambda e: [e.add_stone("block", a) for a in (0.0, 30.0, 60.0, 90.0)], lambda e: e.add_gate("slab", 0, 2),
     "not neighbours"),
    (lambda e: [e.add_stone("block", a) for a in (0.0, 40.0)], lambda e: e.add_gate("slab", 0, 1),
     "gate too short"),
    (lambda e: (e.add_stone("block", 0.0), e.add_stone("block", 30.0), e.stack_stone("block", 0)),
     lambda e: e.add_gate("slab", 0, 1), "supports have different heights"),
    (lambda e: e.add_stone("block", 0.0), lambda e: e.add_stone("menhir", 90.0), "unknown shape 'menhir'"),
    (lambda e: e.add_stone("block", 0.0), lambda e: e.move_stone(3, 90.0), "no stone 3"),
    (lambda e: e.add_stone("block", 0.0), lambda e: e.add_stone("block", float("nan")), "finite number"),
])
def test_illegal_edits_are_refused_with_the_reason(setup, action, reason) -> None:  # noqa: ANN001
    ed = LayoutEditor()
    setup(ed)
    before = ed.layout
    with pytest.raises(InputError, match=reason):
        action(ed)
    assert ed.layout == before


def test_gate_on_neighbours_and_its_pose() -> None:
    ed = LayoutEditor()
    # two pillars 25 degrees apart: clear gap 2 x ((R - d/2) sin 12.5 - (w/2) cos 12.5) = 33.5 mm, which a
    # 65 mm slab spans with 8 mm or more on each end, and its ends (15.7 mm) fit on the 20 mm pillars
    ed.add_stone("pillar", 347.5)
    ed.add_stone("pillar", 12.5)
    ed.add_stone("block", 180.0)
    h = math.radians(12.5)
    inner = 2 * ((T.ring_radius - PILLAR.depth / 2) * math.sin(h) - PILLAR.width / 2 * math.cos(h))
    assert inner < SLAB.height - 2 * T.gate_min_overlap and (SLAB.height - inner) / 2 < PILLAR.width
    assert ed.add_gate("slab", 1, 0) == 0
    assert len(ed.gaps()) == 3 and [g.gate for g in ed.gaps()].count(0) == 1
    gate = [b for b in layout_boxes(ed.layout) if b.key == "gate:0"][0]
    # lying flat across the pillars' tops: centre at 70 mm + half of its 12 mm thickness, on the +x axis
    assert gate.centre[2] == pytest.approx(PILLAR.height + SLAB.width / 2)
    assert gate.centre[1] == pytest.approx(0.0, abs=1e-12)
    assert gate.size == (SLAB.height, SLAB.depth, SLAB.width)
    g = [x for x in ed.gaps() if x.gate is not None][0]
    assert {g.a, g.b} == {0, 1} and g.width_m == pytest.approx(inner)
    with pytest.raises(ScenarioError, match="already spans"):
        ed.add_gate("slab", 0, 1)


def test_move_carries_the_stack_and_keeps_gates_that_still_fit() -> None:
    ed = LayoutEditor()
    ed.add_stone("pillar", 347.5)
    ed.add_stone("pillar", 12.5)
    ed.add_gate("slab", 0, 1)
    ed.add_stone("block", 180.0)
    ed.stack_stone("block", 2)
    ed.move_stone(2, 200.0)
    assert [s.angle_deg for s in ed.layout.stones] == [347.5, 12.5, 200.0, 200.0]
    ed.move_stone(1, 14.5)  # 2 degrees more gap (about 4.3 mm): the slab still spans it
    assert ed.layout.gates[0].between == (0, 1)
    with pytest.raises(ScenarioError, match="gate too short"):
        ed.move_stone(1, 40.0)
    assert ed.layout.stones[1].angle_deg == 14.5
    with pytest.raises(ScenarioError, match="supports have different heights"):
        ed.move_stone(3, 14.5)  # on a gate's support the gate would no longer lie level
    ed.add_stone("block", 100.0)
    ed.move_stone(3, 100.0)  # a level-2 stone moves onto the level-1 stone at the new angle...
    assert ed.layout.stones[3].angle_deg == 100.0 and ed.layout.stones[2].angle_deg == 200.0
    with pytest.raises(ScenarioError, match="stacks on nothing"):
        ed.move_stone(3, 300.0)  # ...and is refused where there is none


def test_delete_takes_what_rests_on_it_and_renumbers() -> None:
    ed = LayoutEditor.open(LAYOUTS / "gates.toml")
    n, ng = len(ed.layout.stones), len(ed.layout.gates)
    # stones[2] carries stones[9] and, with stones[3], gate 1
    gone = ed.delete_stone(2)
    assert gone == ["stones[2]", "stones[9]", "gates[1]"]
    assert len(ed.layout.stones) == n - 2 and len(ed.layout.gates) == ng - 1
    # the gate on stones[4] and stones[5] is renumbered to stones[3] and stones[4]
    assert ed.layout.gates[1].between == (3, 4)
    assert ed.layout.stones[3].angle_deg == pytest.approx(226.04)
    assert ed.undo() and len(ed.layout.stones) == n
    # the gate on the stacked pair rests on stones[9], the top of stones[2]'s position
    assert ed.delete_stone(9) == ["stones[9]", "gates[1]"]
    assert ed.layout.stones[2].level == 1 and len(ed.layout.stones) == n - 1
    assert ed.undo()
    ed.delete_gate(0)
    assert len(ed.layout.gates) == ng - 1
    with pytest.raises(ScenarioError, match="no gate 7"):
        ed.delete_gate(7)


def test_left_in_set_counts_stones_and_gates() -> None:
    ed = LayoutEditor.open(LAYOUTS / "gates.toml")
    # 3 pillars (two supports and a free one), 7 blocks, 1 free slab + 3 slab gates
    assert ed.left_in_set() == {"pillar": 8 - 3, "block": 16 - 7, "slab": 8 - 4}


# ---- files ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gates.toml", "full-32.toml", "even-ring.toml", "empty.toml"])
def test_save_load_round_trip_is_byte_stable(tmp_path: Path, name: str) -> None:
    ed = LayoutEditor.open(LAYOUTS / name)
    ed.add_stone("slab", 0.0) if name == "empty.toml" else None
    out = ed.save(tmp_path / "saved.toml")
    text = out.read_text(encoding="utf-8")
    again = load_layout(out)
    assert dump_layout_toml(again, ed.name, ed.description) == text
    assert LayoutEditor.open(out).toml() == text
    orig = load_layout(LAYOUTS / name)
    assert [(s.shape, s.level) for s in again.stones] == [(s.shape, s.level) for s in (ed.layout.stones)]
    if name != "empty.toml":
        assert [s.angle_deg for s in again.stones] == pytest.approx([s.angle_deg for s in orig.stones], abs=5e-5)
        assert again.gates == orig.gates


def test_save_keeps_changed_parameters_and_description(tmp_path: Path) -> None:
    src = tmp_path / "custom.toml"
    src.write_text('name = "custom"\ndescription = "wide base,\\n heavy \\"ball\\""\n[table]\nbase_radius = 0.2\n'
                   'ring_radius = 0.16\n[ball]\nmass = 0.2\n[physics]\npreset = "reference"\nrestitution = 0.25\n'
                   '[shapes.slab]\ncount = 10\nheight = 0.07\n[[stones]]\nshape = "slab"\nangle = 12.345678\n',
                   encoding="utf-8")
    ed = LayoutEditor.open(src)
    assert ed.layout.stones[0].angle_deg == 12.3457  # rounded as a file stores it
    out = ed.save(tmp_path / "out.toml")
    back = load_layout(out)
    assert back.table.base_radius == 0.2 and back.table.ring_radius == 0.16 and back.ball.mass == 0.2
    assert back.physics.preset == "reference" and back.physics.restitution == 0.25
    assert back.shapes["slab"].count == 10 and back.shapes["slab"].height == 0.07
    assert LayoutEditor.open(out).description == 'wide base,\n heavy "ball"'
    assert LayoutEditor.open(out).toml() == out.read_text(encoding="utf-8")


def test_save_refuses_bad_targets_and_writes_nothing(tmp_path: Path) -> None:
    ed = LayoutEditor()
    with pytest.raises(InputError, match="no file to save to"):
        ed.save()
    with pytest.raises(InputError, match="must end in .toml"):
        ed.save(tmp_path / "x.txt")
    with pytest.raises(InputError, match="is a folder"):
        ed.save(tmp_path)
    assert list(tmp_path.iterdir()) == []


# ---- physics ----------------------------------------------------------------------------------


def test_settle_of_a_standing_layout_loses_nothing() -> None:
    out = LayoutEditor.open(LAYOUTS / "gates.toml").settle()
    assert out.penalties == [] and out.settled
    assert len(out.poses) == 11 + 3
    # stones built in exact contact shift by a fraction of a millimetre (docs/sun-physics.md), no more
    assert max(out.drift_mm.values()) < 1.0


def test_pass_hits_the_stone_in_its_path_and_misses_on_an_empty_ring() -> None:
    ed = LayoutEditor()
    ed.add_stone("block", 180.0)
    # released at 0 deg the ball swings through the centre towards 180 deg, through the block
    hit = ed.run_pass(0.0, "perfect")
    assert [p["stone"] for p in hit.penalties] == [0]
    assert len(hit.recording["frames"]) > 20
    miss = ed.run_pass(90.0, "perfect")  # its line crosses the ring at 90 and 270 deg, far from the block
    assert miss.penalties == []


def test_sweep_on_a_bare_base_is_clean_everywhere() -> None:
    sw = LayoutEditor().sweep("child", trials=1, seed=0, step_deg=90.0)
    assert [r["aim_deg"] for r in sw["aims"]] == [0.0, 90.0, 180.0, 270.0]
    assert all(r["p_clean"] == 1.0 for r in sw["aims"])
    with pytest.raises(InputError, match="trials"):
        LayoutEditor().sweep("casual", trials=0)


# ---- the picture ------------------------------------------------------------------------------


def test_sun_show_draws_in_under_two_seconds(tmp_path: Path) -> None:
    import imageio.v3 as iio
    from typer.testing import CliRunner

    from sim.sun.cli import app

    runner = CliRunner()
    # CPU time, matplotlib's import included: wall time on a machine shared by many test runs says
    # more about the neighbours than about the drawing
    t0 = time.process_time()
    res = runner.invoke(app, ["show", str(LAYOUTS / "full-32.toml"), "--png", str(tmp_path / "l.png")])
    cpu = time.process_time() - t0
    assert res.exit_code == 0, res.output
    assert cpu < 2.0
    img = iio.imread(tmp_path / "l.png")[..., :3]
    assert img.shape[0] > 400 and img.std() > 20
    # the passable gaps are drawn in the passable green (#1a9850), the narrow ones in red (#d73027)
    flat = img.reshape(-1, 3).astype(int)
    assert (np.abs(flat - [26, 152, 80]).sum(axis=1) < 30).sum() > 100
    assert (np.abs(flat - [215, 48, 39]).sum(axis=1) < 30).sum() > 100
    bad = runner.invoke(app, ["show", str(LAYOUTS / "full-32.toml"), "--png", str(tmp_path / "l.jpg")])
    assert bad.exit_code == 2 and "must end in .png" in bad.output
    bad = runner.invoke(app, ["show", str(tmp_path / "none.toml"), "--png", str(tmp_path / "m.png")])
    assert bad.exit_code == 2 and "no such layout file" in bad.output and not (tmp_path / "m.png").exists()


# ---- the page's handlers on a live server (what the buttons call) --------------------------


def test_page_handlers_edit_refuse_pass_and_save(tmp_path: Path) -> None:
    from sim.sun.viewer.editor_app import EditorApp, open_editor

    app = EditorApp(open_editor(LAYOUTS / "gates.toml"), port=0, save_path=tmp_path / "page.toml")
    try:
        app.angle.value = 170.0
        assert app.do_add() and app.message == "added 11: block at 170.0000 deg"
        assert app.do_add() is False and app.message.startswith("refused:") and "two level-1 stones" in app.message
        assert "**Refused:**" in app.status_md.content
        assert len(app.editor.layout.stones) == 12
        app.select(11)
        assert app.do_stack() and app.editor.layout.stones[12].level == 2
        assert app.do_settle() and "nothing falls" in app.physics_md.content
        gate = app._stone_nodes["gate:0"]
        # the settled lintel lies flat across its supports: its long side (the table's body z axis) is
        # horizontal, and its centre stays over the middle of the supports' tops
        from scipy.spatial.transform import Rotation

        w, x, y, z = gate.wxyz
        rot = Rotation.from_quat([x, y, z, w]).as_matrix()
        dims = np.asarray(gate.dimensions)
        # the box as drawn: 65 mm along the chord (horizontal), 12 mm tall (a slab's thickness)
        assert np.abs(rot[2]) @ dims == pytest.approx(SLAB.lintel_thickness, abs=5e-4)
        assert max(np.hypot(rot[0], rot[1]) * dims) == pytest.approx(SLAB.lintel_length, abs=1e-3)
        drawn = [b for b in layout_boxes(app.editor.layout) if b.key == "gate:0"][0]
        assert np.allclose(gate.position, drawn.centre, atol=0.002)
        app.aim.value = 0.0
        assert app.do_pass(wait=True) and app.last_pass is not None
        assert "pass at 0.0 deg" in app.physics_md.content
        assert app.do_show_layout()
        assert app.do_save()
        text = (tmp_path / "page.toml").read_text(encoding="utf-8")
        assert app.toml_md.content == "```toml\n" + text + "```"  # the page shows what was saved
        assert len(load_layout(tmp_path / "page.toml").stones) == 12 + 1
        app.path.value = "nope.toml"
        assert app.do_load() is False and "no layout file nope.toml" in app.message
    finally:
        app.close()


def test_sun_show_and_edit_bad_input_exit_2(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    from sim.cli import main

    def bad(argv: list[str], *needles: str) -> None:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and all(n in err for n in needles), err

    lay = tmp_path / "bad.toml"
    lay.write_text('[[stones]]\nshape = "block"\nangle = 10.0\n[[stones]]\nshape = "block"\nangle = 12.0\n',
                   encoding="utf-8")
    bad(["sun", "show", str(lay), "--png", str(tmp_path / "a.png")], str(lay), "key 'stones[1].angle'", "overlaps")
    bad(["sun", "show", str(LAYOUTS / "gates.toml"), "--png", str(tmp_path)], "key '--png'", "is a folder")
    bad(["sun", "edit", str(lay)], str(lay), "overlaps")
    bad(["sun", "edit", str(tmp_path)], "is a folder")
    bad(["sun", "edit", str(tmp_path / "new.txt")], "no such layout file", "must end in .toml")
    bad(["sun", "edit", "--port", "70000"], "key '--port'", "1..65535")
    assert list(tmp_path.iterdir()) == [lay]  # nothing written


def test_danger_map_has_a_legend_while_it_is_drawn(tmp_path: Path) -> None:
    """The band round the base had no legend; the strip is the map's own colour scale."""
    from sim.sun.viewer.editor_app import EditorApp, clean_colour, danger_legend_strip, open_editor
    from sim.sun.players.thrower import DEFAULT_SKILL

    strip = danger_legend_strip(50, 3)
    assert strip.shape == (3, 50, 3) and tuple(strip[0, 0]) == clean_colour(0.0) and tuple(strip[0, -1]) == clean_colour(1.0)
    app = EditorApp(open_editor(LAYOUTS / "gates.toml"), port=0, save_path=tmp_path / "page.toml")
    try:
        assert app.skill.value == DEFAULT_SKILL  # the hand `stonelab stability` assumes
        assert not app.danger_md.visible and not app.danger_strip.visible
        app.trials.value, app.step.value = 1, 90.0
        assert app.do_sweep()
        assert app.danger_md.visible and app.danger_strip.visible and "chance of a" in app.danger_md.content
        app.angle.value = 170.0
        assert app.do_add()  # an edit clears the map, and its legend with it
        assert not app.danger_md.visible
    finally:
        app.close()
