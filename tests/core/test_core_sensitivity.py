"""Sensitivity studies: SALib plumbing against analytic answers, the [sensitivity] section's
validation, sample points as sweep points (determinism, resume after a real SIGKILL)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.load import load_run
from analysis.sensitivity import (Output, analyse, elementary_effects, morris_indices, sentence, sobol_indices,
                                  to_json)
from sim.core.errors import ScenarioError
from sim.core.runner import run_study
from sim.core.scenario import load_scenario, scenario_from_dict
from sim.core.sensitivity import Input, Plan
from sim.core.testing import store_results
from study_process import kill_once_stored, launch
from toy_game import RANDOM_VS_MCTS

HERE = Path(__file__).parent


def output(y: np.ndarray) -> Output:
    idx = list(range(len(y)))
    return Output("y", "y", pd.Series(y, index=idx))


# --- SALib plumbing on analytic functions ----------------------------------------------------------
def test_morris_on_a_linear_model_gives_slope_times_range() -> None:
    # y = 10 a + 1 b + 0 c + 4 d on ranges of width 1, 1, 1 and 0.5: every elementary effect is the
    # slope times the range (no noise, no interaction), so mu* is exactly [10, 1, 0, 2] and sigma 0
    plan = Plan("morris", (Input("a", 0, 1), Input("b", 2, 3), Input("c", 0, 1), Input("d", -1, -0.5)),
                trajectories=12, levels=4, resamples=200)
    x = plan.sample(seed=7)
    y = 10 * x[:, 0] + x[:, 1] + 0 * x[:, 2] + 4 * x[:, 3]
    res = morris_indices(plan, x, output(y), seed=7)
    t = res.table.set_index("key")
    assert t.loc[["a", "b", "c", "d"], "mu_star"].to_numpy() == pytest.approx([10, 1, 0, 2])
    assert t["sigma"].to_numpy() == pytest.approx(np.zeros(4), abs=1e-9)
    assert t["mu_star"].idxmax() == "a"
    res.table["label"] = res.table["key"]
    text = sentence(res)
    assert "depends most on a:" in text and "clearly ahead of d" in text
    # our elementary effects (used for the sigma interval) agree with SALib's mu*
    ee = elementary_effects(plan, x, y)
    assert np.abs(ee).mean(axis=0) == pytest.approx(t.loc[plan.keys, "mu_star"].to_numpy())


def test_morris_drops_a_trajectory_with_an_undefined_output() -> None:
    plan = Plan("morris", (Input("a", 0, 1), Input("b", 0, 1)), trajectories=5, resamples=50)
    x = plan.sample(seed=1)
    y = 3 * x[:, 0] + x[:, 1]
    y[4] = np.nan  # a point of the second trajectory (3 points each)
    res = morris_indices(plan, x, output(y), seed=1)
    assert res.used == 4
    assert res.table.set_index("key")["mu_star"].to_numpy() == pytest.approx([3, 1])


def ishigami(x: np.ndarray, a: float = 7.0, b: float = 0.1) -> np.ndarray:
    return np.sin(x[:, 0]) + a * np.sin(x[:, 1]) ** 2 + b * x[:, 2] ** 4 * np.sin(x[:, 0])


def test_sobol_on_ishigami_matches_the_analytic_indices() -> None:
    # Ishigami & Homma (1990), a = 7, b = 0.1 on [-pi, pi]^3: S1 = 0.314, 0.442, 0; ST = 0.558, 0.442, 0.244
    pi = math.pi
    plan = Plan("sobol", (Input("x1", -pi, pi), Input("x2", -pi, pi), Input("x3", -pi, pi)), samples=2048,
                resamples=200)
    x = plan.sample(seed=3)
    assert x.shape == (2048 * 5, 3) == (plan.n_points(), 3)
    res = sobol_indices(plan, output(ishigami(x)), seed=3)
    t = res.table.set_index("key")
    assert t["S1"].to_numpy() == pytest.approx([0.314, 0.442, 0.0], abs=0.04)
    assert t["ST"].to_numpy() == pytest.approx([0.558, 0.442, 0.244], abs=0.04)
    assert t["ST"].idxmax() == "x1" and t["S1"].idxmax() == "x2"
    res.table["label"] = res.table["key"]
    assert "depends most on x1" in sentence(res)
    few = sobol_indices(Plan("sobol", plan.inputs, samples=4, resamples=50), output(ishigami(
        Plan("sobol", plan.inputs, samples=4).sample(seed=3))), seed=3)
    few.table["label"] = few.table["key"]
    assert "not resolved at 4 base samples" in sentence(few)
    assert (t["S1_conf"] > 0).all()


def test_sobol_refuses_an_incomplete_design() -> None:
    plan = Plan("sobol", (Input("a", 0, 1), Input("b", 0, 1)), samples=8, resamples=20)
    y = plan.sample(seed=0)[:, 0].copy()
    y[0] = np.nan
    res = sobol_indices(plan, output(y), seed=0)
    assert res.table.empty and "no value" in res.problem


# --- the [sensitivity] section ---------------------------------------------------------------------
BASE = RANDOM_VS_MCTS
SECTION = """
[sensitivity]
method = "morris"
trajectories = {traj}
[sensitivity.inputs]
"rules.target" = [6, 24]
"seats.1.iterations" = [2, 40]
"seats.*.handicap" = [0, 5]
"""


def scen(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "extra, key, words",
    [
        ('[sensitivity]\nmethod = "fast"\n[sensitivity.inputs]\n"rules.target" = [5, 9]\n"seats.*.handicap" = [0, 1]',
         "sensitivity.method", "'morris' or 'sobol'"),
        ('[sensitivity]\nrepeats = 3\n', "sensitivity.repeats", "allowed"),
        ('[sensitivity]\nmethod = "sobol"\nsamples = 48\n[sensitivity.inputs]\n"rules.target" = [5, 9]\n'
         '"seats.*.handicap" = [0, 1]', "sensitivity.samples", "power of 2"),
        ('[sensitivity]\nlevels = 5\n[sensitivity.inputs]\n"rules.target" = [5, 9]\n"seats.*.handicap" = [0, 1]',
         "sensitivity.levels", "even"),
        ('[sensitivity]\ntrajectories = 1\n', "sensitivity.trajectories", "from 2"),
        ('[sensitivity.inputs]\n"rules.target" = [5]\n"seats.*.handicap" = [0, 1]',
         "sensitivity.inputs.rules.target", "[low, high]"),
        ('[sensitivity.inputs]\n"rules.target" = [9, 5]\n"seats.*.handicap" = [0, 1]',
         "sensitivity.inputs.rules.target", "low < high"),
        ('[sensitivity.inputs]\n"rules.target" = [5, 2000]\n"seats.*.handicap" = [0, 1]',
         "sensitivity.inputs.rules.target", "value 2000 is not allowed: key 'rules.target'"),
        ('[sensitivity.inputs]\n"rules.speed" = [1, 2]\n"seats.*.handicap" = [0, 1]',
         "sensitivity.inputs.rules.speed", "unknown key"),
        ('[sensitivity.inputs]\n"seats.4.handicap" = [0, 1]\n"rules.target" = [5, 9]',
         "sensitivity.inputs.seats.4.handicap", "does not name an existing seat"),
        ('[sensitivity.inputs]\n"rules.*.x" = [0, 1]\n"rules.target" = [5, 9]',
         "sensitivity.inputs.rules.*.x", "only in seats.*"),
        ('[sensitivity.inputs]\n"games" = [1, 9]\n"rules.target" = [5, 9]', "sensitivity.inputs.games",
         "cannot be varied"),
        ('[sensitivity.inputs]\n"rules.target" = [5, 9]', "sensitivity.inputs", "at least 2"),
        ('[sensitivity]\n', "sensitivity.inputs", "missing"),
        ('[sweep]\n"rules.target" = [5, 9]\n[sensitivity.inputs]\n"rules.target" = [5, 9]\n"seats.*.handicap" = [0, 1]',
         "sensitivity", "not both"),
    ],
)
def test_bad_sections_name_the_file_the_key_and_what_is_allowed(tmp_path: Path, registry, extra: str, key: str,
                                                                 words: str) -> None:
    p = scen(tmp_path, BASE.format(games=2, iters=5) + extra)
    with pytest.raises(ScenarioError) as e:
        load_scenario(p, registry)
    assert e.value.key == key, str(e.value)
    assert words in str(e.value)
    assert str(p) in str(e.value)


def test_a_sweep_cannot_vary_the_section(tmp_path: Path, registry) -> None:
    p = scen(tmp_path, BASE.format(games=2, iters=5) + '[sweep]\n"sensitivity.trajectories" = [2, 3]\n')
    with pytest.raises(ScenarioError, match="cannot be swept"):
        load_scenario(p, registry)


def test_points_are_validated_scenarios_and_a_function_of_the_seed(tmp_path: Path, registry) -> None:
    sc = load_scenario(scen(tmp_path, BASE.format(games=2, iters=5) + SECTION.format(traj=3)), registry)
    pts = sc.points(registry)
    assert len(pts) == 3 * (3 + 1)
    for p in pts:
        assert 6 <= p.scenario.rules["target"] <= 24 and isinstance(p.scenario.rules["target"], int)
        h = p.values["seats.*.handicap"]
        assert [s.seat_options["handicap"] for s in p.scenario.seats] == [h, h]  # '*': every seat
        assert p.scenario.seats[1].params["iterations"] == p.values["seats.1.iterations"]
        assert not p.scenario.sweep and "sensitivity" not in p.scenario.raw
    again = load_scenario(scen(tmp_path, BASE.format(games=2, iters=5) + SECTION.format(traj=3), "t.toml"), registry)
    assert [p.values for p in again.points(registry)] == [p.values for p in pts]
    other = sc.with_overrides(registry, seed=12)
    assert [p.values for p in other.points(registry)] != [p.values for p in pts]
    # command-line settings enter the scenario (and so its fingerprint)
    sob = sc.with_plan(registry, method="sobol", samples=4, games_per_point=1)
    assert len(sob.points(registry)) == 4 * (3 + 2) and sob.games == 1
    assert sob.fingerprint() != sc.fingerprint()


def test_same_seed_same_indices(tmp_path: Path, registry) -> None:
    p = scen(tmp_path, BASE.format(games=4, iters=5) + SECTION.format(traj=3))
    found = []
    for name in ("a", "b"):
        sc = load_scenario(p, registry).with_overrides(registry, out=str(tmp_path / name))
        info = run_study(sc, registry, progress=False)
        assert info.played == 4 * 12
        plan, res = analyse(load_run(info.out))
        found.append(to_json(plan, res))
    assert found[0] == found[1]
    names = [o["name"] for o in found[0]["outputs"]]
    assert names == ["draw_share", "first_player_edge"]
    # seat 1's handicap is never read by the toy game: its effect is exactly zero (same seeds everywhere)
    edge = {r["key"]: r for r in found[0]["outputs"][1]["indices"]}
    assert edge["seats.*.handicap"]["mu_star"] == 0.0


@pytest.mark.slow  # several seconds (the default suite stays a few minutes)
def test_sigkill_then_resume_equals_uninterrupted_study(tmp_path: Path) -> None:
    scen_file = scen(tmp_path, BASE.format(games=5, iters=300) + SECTION.format(traj=4))
    killed = tmp_path / "killed"
    partial = kill_once_stored(launch(scen_file, killed), killed)
    assert 5 <= partial < 80, partial
    # a partial study already has indices from its complete trajectories
    assert launch(scen_file, killed).wait() == 0
    full = tmp_path / "full"
    assert launch(scen_file, full).wait() == 0
    a, b = store_results(killed), store_results(full)
    assert len(a["games"].rows) == 5 * 16 and a == b
    ja = to_json(*analyse(load_run(killed)))
    assert ja == to_json(*analyse(load_run(full)))
    assert json.dumps(ja)  # JSON-ready


def test_scenario_from_dict_keeps_the_section_out_of_points(registry) -> None:
    import tomllib

    raw = tomllib.loads(BASE.format(games=1, iters=3) + SECTION.format(traj=2))
    sc = scenario_from_dict(raw, registry)
    assert sc.raw["sensitivity"]["trajectories"] == 2
    assert all("sensitivity" not in p.scenario.raw for p in sc.points(registry))


@pytest.mark.slow  # several seconds (the default suite stays a few minutes)
def test_sobol_study_through_the_store_and_its_report(tmp_path: Path, registry) -> None:
    from analysis.report import build_report

    sc = load_scenario(scen(tmp_path, BASE.format(games=3, iters=5) + SECTION.format(traj=2)), registry)
    sc = sc.with_plan(registry, method="sobol", samples=8).with_overrides(registry, out=str(tmp_path / "sob"))
    info = run_study(sc, registry, progress=False)
    assert info.played == 3 * 8 * (3 + 2)
    plan, res = analyse(load_run(info.out))
    assert plan.method == "sobol" and plan.keys == ["rules.target", "seats.*.handicap", "seats.1.iterations"]
    edge = res[1].table.set_index("key")
    assert list(edge.columns) == ["label", "S1", "S1_conf", "ST", "ST_conf"]
    assert np.isfinite(edge[["S1", "ST"]].to_numpy()).all()
    # the handicap is never read: with the same seeds at every point its total index is exactly 0
    assert edge.loc["seats.*.handicap", "ST"] == pytest.approx(0.0, abs=1e-12)
    html = build_report(info.out).read_text()
    assert "What the conclusions depend on" in html and "Sobol" in html
    assert "Effect of rules.target" not in html  # the sweep section is replaced, not added


def test_report_section_speaks_in_labels_and_plain_numbers(tmp_path: Path, registry) -> None:
    """The sensitivity report printed internal names (draw_share) and '4-4 games per point'."""
    from analysis.sensitivity import section

    p = scen(tmp_path, BASE.format(games=4, iters=5) + SECTION.format(traj=2))
    sc = load_scenario(p, registry).with_overrides(registry, out=str(tmp_path / "run"))
    info = run_study(sc, registry, progress=False)
    sec = section(load_run(info.out))
    assert sec is not None
    tab = dict(sec.tables)["Sensitivity indices by output and input"]
    outputs = set(tab["output"])
    assert outputs and not outputs & {"draw_share", "first_player_edge"}
    assert all(" " in o for o in outputs)  # words, not identifiers
    assert "4 games per point" in sec.intro and "4-4" not in sec.intro
    assert "rules.target (rules.target)" not in sec.intro
