"""The Sun's tuned winner as a layout file (``sim.sun.report.section.design_files``, written by
``stonelab tune`` beside ``best.toml``): only when a physical table was searched, with the winning
values, and with the start layout's stones only while they still fit."""

from __future__ import annotations

from pathlib import Path

from sim.sun.report.section import BEST_LAYOUT, design_files
from sim.core.scenario import scenario_from_dict
from sim.games import REGISTRY
from sim.sun.sections import layout_of
from sim.sun.table.layout import load_layout

ROOT = Path(__file__).parents[2]


def _sections(**tables: dict) -> dict:
    raw = {"name": "t", "game": "sun", "games": 1, "seats": [{"agent": "careful"}, {"agent": "careful"}], **tables}
    return dict(scenario_from_dict(raw, REGISTRY).sections)


def test_no_layout_when_only_rules_or_seats_were_searched(tmp_path: Path) -> None:
    (tmp_path / BEST_LAYOUT).write_text("# an earlier search's winner\n")
    assert design_files(_sections(), ["rules.placement_fall", "seats.*.sigma_aim_deg"], tmp_path, "t") == []
    assert not (tmp_path / BEST_LAYOUT).exists()


def test_the_layout_has_the_winning_table_and_stone_sizes(tmp_path: Path) -> None:
    sections = _sections(table={"pass_clearance": 0.0023}, shapes={"block": {"width": 0.037}})
    [path] = design_files(sections, ["table.pass_clearance", "shapes.block.width"], tmp_path, "t-best")
    lay = load_layout(path)
    assert path == tmp_path / BEST_LAYOUT and lay.stones == ()
    assert lay.table.pass_clearance == 0.0023 and lay.shapes["block"].width == 0.037
    assert lay.table == layout_of(sections).table and lay.shapes == layout_of(sections).shapes
    assert 'name = "t-best"' in path.read_text()


def test_a_start_layouts_stones_are_kept_while_they_fit(tmp_path: Path) -> None:
    gates = str(ROOT / "scenarios" / "sun" / "layouts" / "gates.toml")
    fits = _sections(layout={"file": gates, "start": "layout"}, table={"pass_clearance": 0.003})
    lay = load_layout(design_files(fits, ["table.pass_clearance"], tmp_path, "t")[0])
    assert len(lay.stones) == len(load_layout(gates).stones) and lay.gates == load_layout(gates).gates
    # blocks as wide as 9 cm cannot stand where the file's blocks stand: the tables only, said so
    wide = _sections(layout={"file": gates, "start": "layout"}, shapes={"block": {"width": 0.09}})
    path = design_files(wide, ["shapes.block.width"], tmp_path, "t")[0]
    assert load_layout(path).stones == () and "do not fit" in path.read_text()
