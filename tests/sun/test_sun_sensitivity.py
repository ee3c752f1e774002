"""The Sun's sensitivity study: seat overrides of every sigma, default inputs, bad input at the
command line, and a tiny end-to-end study (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.cli import main
from sim.core.scenario import load_scenario, scenario_from_dict
from sim.games import REGISTRY
from sim.sun.sections import SEAT_OPTIONS, thrower_of
from sim.sun.sensitivity import DEFAULT_KEYS, INPUTS
from sim.sun.players.thrower import SKILLS

ROOT = Path(__file__).resolve().parents[2]


def test_each_sigma_override_replaces_only_its_own_sigma() -> None:
    defaults = {o.name: o.default for o in SEAT_OPTIONS}
    base = SKILLS["casual"]
    assert thrower_of({**defaults, "skill": "casual"}) == base
    for key, value in (("sigma_aim_deg", 0.3), ("sigma_release_m", 0.007), ("sigma_push_mps", 0.003),
                       ("sigma_place_m", 0.0004), ("sigma_place_deg", 0.7)):
        th = thrower_of({**defaults, "skill": "casual", key: value})
        assert getattr(th, key) == value
        for other in ("sigma_aim_deg", "sigma_release_m", "sigma_push_mps", "sigma_place_m", "sigma_place_deg"):
            if other != key:
                assert getattr(th, other) == getattr(base, other)


def test_every_documented_input_is_a_scenario_key_that_takes_its_range() -> None:
    # the 12 documented inputs, each validated at both ends against the real scenario (no physics run)
    sc = load_scenario(ROOT / "scenarios/sun/classic-2p.toml", REGISTRY)
    raw = dict(sc.raw)
    raw["sensitivity"] = {"inputs": {k: v["range"] for k, v in INPUTS.items()}}
    plan = scenario_from_dict(raw, REGISTRY, source="test").plan
    assert plan is not None
    assert len(plan.inputs) == len(INPUTS) == 12
    doc = (ROOT / "docs/sensitivity.md").read_text()
    for k in INPUTS:
        assert f"`{k}`" in doc, k  # documented with its range and source


def test_a_scenario_without_the_section_gets_the_eight_default_inputs() -> None:
    sc = load_scenario(ROOT / "scenarios/sun/classic-2p.toml", REGISTRY)
    plan = sc.with_plan(REGISTRY, trajectories=2).plan
    assert plan is not None and plan.keys == sorted(DEFAULT_KEYS) and len(plan.keys) == 8
    assert plan.n_points() == 2 * 9
    shipped = load_scenario(ROOT / "scenarios/sun/sensitivity.toml", REGISTRY).plan
    assert shipped is not None and shipped.keys == plan.keys


@pytest.mark.parametrize(
    "inputs, key, words",
    [
        ('"physics.restitution" = [0.1, 1.5]\n"table.topple_tilt_deg" = [15.0, 45.0]',
         "sensitivity.inputs.physics.restitution", "from 0.0 to 1.0"),
        ('"seats.*.sigma_aim_deg" = [0.25, 120.0]\n"physics.restitution" = [0.1, 0.5]',
         "sensitivity.inputs.seats.*.sigma_aim_deg", "key 'seats[0].sigma_aim_deg'"),
        ('"shapes.pillar.colour" = [1, 2]\n"physics.restitution" = [0.1, 0.5]',
         "sensitivity.inputs.shapes.pillar.colour", "unknown key"),
    ],
)
def test_bad_inputs_exit_2_with_file_key_and_allowed(tmp_path: Path, capsys, inputs: str, key: str, words: str) -> None:
    text = (ROOT / "scenarios/sun/classic-2p.toml").read_text() + f"\n[sensitivity]\n[sensitivity.inputs]\n{inputs}\n"
    p = tmp_path / "bad.toml"
    p.write_text(text)
    out = tmp_path / "run"
    assert main(["sensitivity", str(p), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and str(p) in err and key in err and words in err, err
    assert not out.exists()  # nothing written


def test_bad_command_line_settings_exit_2(tmp_path: Path, capsys) -> None:
    scen = str(ROOT / "scenarios/sun/classic-2p.toml")
    assert main(["sensitivity", scen, "--method", "fast", "--out", str(tmp_path / "r")]) == 2
    assert "'morris' or 'sobol'" in capsys.readouterr().err
    assert main(["sensitivity", scen, "--method", "sobol", "--samples", "48", "--out", str(tmp_path / "r")]) == 2
    assert "power of 2" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_tiny_study_end_to_end(tmp_path: Path, capsys) -> None:
    text = (ROOT / "scenarios/sun/classic-2p.toml").read_text().replace('frames = "first"', 'frames = "none"')
    text += ('\n[sensitivity]\ntrajectories = 2\n[sensitivity.inputs]\n"seats.*.sigma_aim_deg" = [0.25, 8.0]\n'
             '"seats.*.sigma_place_m" = [0.0005, 0.006]\n')
    p = tmp_path / "tiny.toml"
    p.write_text(text)
    out = tmp_path / "run"
    assert main(["sensitivity", str(p), "--games-per-point", "1", "--backend", "serial", "--out", str(out),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 6 and data["points"] == 6
    names = [o["name"] for o in data["outputs"]]
    # the catalogue's sensitivity metrics in its order: the generic ones, then the Sun's
    assert names[:3] == ["draw_share", "first_player_edge", "penalties_per_game"] and "field_empty_share" in names
    assert any(n.startswith("clean_pass_") for n in names)
    assert json.loads((out / "sensitivity.json").read_text())["outputs"] == data["outputs"]
    html = (out / "report" / "report.html").read_text()
    assert "What the conclusions depend on" in html and "player model" in html
    assert (out / "report" / "sensitivity_indices.png").stat().st_size > 10_000
    # resumed: nothing left to play, same indices
    assert main(["sensitivity", str(p), "--games-per-point", "1", "--backend", "serial", "--out", str(out),
                 "--json", "--no-report"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["played"] == 0 and again["outputs"] == data["outputs"]


def test_the_per_process_table_cache_stays_bounded() -> None:
    # a sensitivity study meets a new parameter set at every point: one PyBullet connection each
    # would grow a worker by about 10 MB per point
    from sim.sun import physics_table as G
    from sim.sun.table.layout import parse_layout

    G._TABLES.clear()
    tables = [G._sun_table(parse_layout({"physics": {"restitution": 0.1 + 0.05 * i}})) for i in range(6)]
    assert len(G._TABLES) == G._TABLES_KEPT == 4
    assert [t._cid for t in tables[:2]] == [-1, -1] and all(t._cid >= 0 for t in tables[2:])
    again = G._sun_table(parse_layout({"physics": {"restitution": 0.1 + 0.05 * 5}}))
    assert again is tables[5]  # a kept set is reused, not rebuilt
    G._TABLES.clear()
    for t in tables:
        t.close()
