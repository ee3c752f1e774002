"""Layout files: the shipped layouts load, every kind of mistake is a ScenarioError naming the key."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sim.core.errors import ScenarioError
from sim.sun.table.layout import layout_ring, load_layout, parse_layout
from sim.sun.geometry.ring import Geometry, Pos, gap_width

LAYOUTS = Path(__file__).resolve().parents[2] / "scenarios" / "sun" / "layouts"


@pytest.mark.parametrize("name,n_stones,n_gates", [("empty", 0, 0), ("even-ring", 8, 0), ("gates", 11, 3),
                                                   ("full-32", 28, 4)])
def test_shipped_layouts_load(name: str, n_stones: int, n_gates: int) -> None:
    lay = load_layout(LAYOUTS / f"{name}.toml")
    assert len(lay.stones) == n_stones and len(lay.gates) == n_gates


def test_full32_uses_the_whole_set_and_has_two_open_gates() -> None:
    lay = load_layout(LAYOUTS / "full-32.toml")
    assert len(lay.stones) + len(lay.gates) == 32
    assert sum(s.level == 1 for s in lay.stones) == 24
    ring = layout_ring(lay)
    geom = Geometry(lay.table, lay.ball, dict(lay.shapes))
    open_mid = sorted(round(math.degrees(ring.middle(i))) % 360 for i in range(ring.n) if ring.passable(i, geom))
    assert open_mid == [0, 180]
    gated = [u for u in ring.under if u is not None]
    assert len(gated) == 4


def test_ball_height_at_the_ring_matches_physics_md() -> None:
    # The ball's top where a pass crosses the ring's outer face, plus the clearance: the least
    # passable gate underside (49 mm + 4 mm by docs/sun-physics.md's numbers).
    lay = parse_layout({})
    geom = Geometry(lay.table, lay.ball, dict(lay.shapes))
    rho = lay.table.ring_radius + 0.0075
    ball_top = lay.ball.pivot_z - math.sqrt(lay.ball.string_length ** 2 - rho ** 2) + lay.ball.radius
    assert ball_top == pytest.approx(0.0497, abs=0.0005)
    assert geom.gate_clear_z == pytest.approx(ball_top + lay.table.pass_clearance)


def test_gap_width_of_two_stones_far_apart_is_about_the_chord() -> None:
    # Two thin stones 90 degrees apart: chord minus the half widths (cos 45) and the depth term.
    w = gap_width(Pos(0, 0.0, 0.13, 0.0, 0.0, 0.05), Pos(1, math.pi / 2, 0.13, 0.0, 0.0, 0.05))
    assert w == pytest.approx(2 * 0.13 * math.sin(math.pi / 4))


def _err(data: dict, key: str | None, match: str | None = None) -> ScenarioError:
    with pytest.raises(ScenarioError, match=match) as info:
        parse_layout(data, "x.toml")
    assert info.value.key == key
    assert info.value.source == "x.toml"
    return info.value


def test_unknown_keys_name_the_key() -> None:
    _err({"tabel": {}}, "tabel", "allowed top-level keys")
    _err({"table": {"radius": 1}}, "table.radius", "allowed keys")
    _err({"stones": [{"shape": "block", "angle": 0, "colour": "red"}]}, "stones[0].colour")


def test_wrong_types_and_ranges() -> None:
    _err({"table": {"base_radius": "big"}}, "table.base_radius", "must be a number")
    _err({"ball": {"mass": -1}}, "ball.mass")
    _err({"physics": {"preset": "ultra"}}, "physics.preset", "'fast' or 'reference'")
    _err({"stones": [{"shape": "block", "angle": True}]}, "stones[0].angle")
    _err({"stones": [{"shape": "block", "angle": 0, "level": 3}]}, "stones[0].level")
    _err({"stones": {"shape": "block"}}, "stones", "array of tables")


def test_unknown_shape_lists_the_allowed_ones() -> None:
    e = _err({"stones": [{"shape": "menhir", "angle": 0}]}, "stones[0].shape")
    assert "'pillar'" in str(e) and "'slab'" in str(e)
    _err({"shapes": {"menhir": {"width": 0.1}}}, "shapes.menhir")


def test_overlapping_stones() -> None:
    e = _err({"stones": [{"shape": "block", "angle": 0}, {"shape": "block", "angle": 5}]}, "stones[1].angle",
             "overlaps")
    assert "stones[0]" in str(e)


def test_stack_on_nothing_and_three_levels() -> None:
    _err({"stones": [{"shape": "block", "angle": 0}, {"shape": "block", "angle": 90, "level": 2}]},
         "stones[1].level", "stacks on nothing")
    _err({"stones": [{"shape": "block", "angle": 0}, {"shape": "block", "angle": 0, "level": 2},
                     {"shape": "block", "angle": 0, "level": 2}]}, "stones[2].level", "at most two levels")


def test_too_many_stones_of_a_shape() -> None:
    stones = [{"shape": "slab", "angle": 20.0 * k} for k in range(9)]
    _err({"stones": stones}, "shapes.slab.count", "the set has 8")


def _pillars(sep_deg: float) -> list[dict]:
    return [{"shape": "pillar", "angle": 0.0}, {"shape": "pillar", "angle": sep_deg},
            {"shape": "block", "angle": 180.0}, {"shape": "pillar", "angle": 90.0}]


def test_gates_valid_too_short_too_long_not_neighbours_uneven() -> None:
    ok = parse_layout({"stones": _pillars(29.96), "gates": [{"shape": "slab", "between": [0, 1]}]})
    assert len(ok.gates) == 1
    _err({"stones": _pillars(40.0), "gates": [{"shape": "slab", "between": [0, 1]}]}, "gates[0].between",
         "too short")
    # Two slabs (12 mm wide) 20 mm apart carry a 65 mm slab lintel whose ends overhang by 10 mm
    # towards pillars (taller than the supports) only 5 mm away.
    stones = [{"shape": "pillar", "angle": -16.3}, {"shape": "slab", "angle": -7.05},
              {"shape": "slab", "angle": 7.05}, {"shape": "pillar", "angle": 16.3}]
    assert parse_layout({"stones": stones})
    _err({"stones": stones, "gates": [{"shape": "slab", "between": [1, 2]}]}, "gates[0].between", "too long")
    _err({"stones": _pillars(29.96), "gates": [{"shape": "slab", "between": [0, 3]}]}, "gates[0].between",
         "not neighbours")
    uneven = _pillars(29.96) + [{"shape": "block", "angle": 0.0, "level": 2}]
    _err({"stones": uneven, "gates": [{"shape": "slab", "between": [0, 1]}]}, "gates[0].between",
         "different heights")
    _err({"stones": _pillars(29.96), "gates": [{"shape": "slab", "between": [0, 7]}]}, "gates[0].between",
         "does not exist")


def test_missing_file_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such layout file"):
        load_layout(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[stones]\nshape=", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_layout(bad)


def test_preset_override() -> None:
    lay = load_layout(LAYOUTS / "even-ring.toml", "reference")
    assert lay.physics.preset == "reference" and lay.physics.hz == 1000
    with pytest.raises(ScenarioError):
        lay.with_preset("turbo")


def test_a_fifo_is_refused_not_read(tmp_path) -> None:
    # load_layout itself refuses what is not a regular file (reading a FIFO would block for ever),
    # so every caller (CLI, scenarios, benches, the editor) is covered.
    import os

    fifo = tmp_path / "ring.toml"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match="named pipe"):
        load_layout(fifo)


def test_two_positions_put_the_gate_over_the_short_gap() -> None:
    # With two positions both gaps join the same stones; the gate spans the short one (given
    # either way round in the file).
    for between in ([0, 1], [1, 0]):
        lay = parse_layout({"stones": [{"shape": "pillar", "angle": 10.0}, {"shape": "pillar", "angle": -10.0}],
                            "gates": [{"shape": "slab", "between": between}]})
        ring = layout_ring(lay)
        gated = [i for i in range(ring.n) if ring.under[i] is not None]
        assert len(gated) == 1 and ring.width[gated[0]] < 0.05


def test_one_gate_overhanging_its_supports_is_not_two_gates() -> None:
    # A slab (65 mm) across two 12 mm slabs about 30 mm apart overhangs both supports' outer edges
    # with nothing beside them: allowed, not "two gates' ends do not both fit".
    lay = parse_layout({"stones": [{"shape": "slab", "angle": 7.5}, {"shape": "slab", "angle": -7.5},
                                   {"shape": "block", "angle": 180.0}],
                        "gates": [{"shape": "slab", "between": [0, 1]}]})
    assert len(lay.gates) == 1
