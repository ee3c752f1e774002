"""The design search (`stonelab tune`): the [tune] table's validation, the objective and its
error, the search on a toy whose best design is known in closed form, resume after a kill, the
skill index against a toy whose skill share is known, and the written winner and report."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from analysis.load import load_run
from analysis.skill import skill_index
from sim.core.errors import InputError, ScenarioError
from sim.core.registry import Registry
from sim.core.runner import run_study
from sim.core.scenario import load_scenario, scenario_from_dict
from sim.core.tune import TrialEstimate, Target, TrialResult, Tune, objective_values, pareto_front
from sim.cli_tune import run_tune
from tune_toy import FAIR_DUEL

HERE = Path(__file__).parent


@pytest.fixture
def duel() -> Registry:
    return Registry({"duel": "tune_toy:GAME"})


def duel_raw(trials: int = 12, games: int = 100, recheck_games: int = 400, sampler: str = "tpe",
             pruning: bool = True) -> dict:
    return tomllib.loads(FAIR_DUEL.format(trials=trials, games=games, recheck_games=recheck_games, sampler=sampler,
                                          pruning="true" if pruning else "false"))


def one_param(raw: dict) -> dict:
    """The fair-duel search on p_first alone (stop fixed at 0.25): the best value is 0.5 exactly."""
    raw["rules"]["stop"] = 0.25
    del raw["tune"]["params"]["rules.stop"]
    raw["tune"]["targets"] = [raw["tune"]["targets"][0]]
    return raw


# --- the [tune] table ----------------------------------------------------------------------------------
@pytest.mark.parametrize("edit, key, words", [
    (lambda t: t["params"].update({"rules.nope": {"low": 0, "high": 1}}), 'tune.params."rules.nope"', "unknown key"),
    (lambda t: t["params"].update({"rules.p_first": {"low": 0.5, "high": 2.0}}), 'tune.params."rules.p_first"',
     "2.0"),
    (lambda t: t["params"].update({"rules.p_first": {"low": 0.6, "high": 0.5}}), 'tune.params."rules.p_first".high',
     "low must be below high"),
    (lambda t: t["params"].update({"rules.p_first": {"low": 0.0, "high": 0.5, "log": True}}),
     'tune.params."rules.p_first".low', "log scale needs low > 0"),
    (lambda t: t["params"].update({"seed": {"low": 0, "high": 5}}), 'tune.params."seed"', "the study"),
    (lambda t: t["params"].update({"rules.p_first": {"choices": [0.5]}}), 'tune.params."rules.p_first".choices',
     "two or more"),
    (lambda t: t["params"].update({"rules.p_first": {"low": 0.1}}), 'tune.params."rules.p_first".high', "missing"),
    (lambda t: t["params"].update({"rules.p_first": {"low": 0.1, "high": 0.9, "grid": 1}}),
     'tune.params."rules.p_first".grid', "allowed: 'low'"),
    (lambda t: t["targets"][0].update({"range": [1, 2]}), "tune.targets.0", "exactly one of"),
    (lambda t: t["targets"][0].pop("value"), "tune.targets.0", "exactly one of"),
    (lambda t: t["targets"][0].update({"value": "zero"}), "tune.targets.0.value", "a finite number"),
    (lambda t: t["targets"][1].update({"weight": -1}), "tune.targets.1.weight", "above 0"),
    (lambda t: t["targets"].append({"metric": "beats", "player": "a", "at_least": 0.5}), "tune.targets.2.opponent",
     "needs 'player' or 'opponent'"),
    (lambda t: t["targets"].append({"metric": "score", "opponent": "a", "at_least": 0.5}),
     "tune.targets.2.opponent", "takes no opponent"),
    (lambda t: t["targets"].append({"metric": "param", "key": "rules.coin", "direction": "minimize"}),
     "tune.targets.2.key", "a searched parameter"),
    (lambda t: t["targets"].append({"metric": "x", "direction": "up"}), "tune.targets.2.direction", "'minimize'"),
    (lambda t: t.update({"sampler": "nsga2"}), "tune.sampler", "two or more objectives"),
    (lambda t: t.update({"sampler": "cma"}), "tune.sampler", "'tpe'"),
    (lambda t: t.update({"trials": 0}), "tune.trials", "1"),
    (lambda t: t.update({"recheck_games": 10}), "tune.recheck_games", "at least the trial's"),
    (lambda t: t.update({"turbo": True}), "tune.turbo", "unknown"),
])
def test_a_bad_tune_table_names_the_key_and_what_is_allowed(duel: Registry, edit, key: str, words: str) -> None:
    raw = duel_raw()
    edit(raw["tune"])
    with pytest.raises(ScenarioError) as e:
        scenario_from_dict(raw, duel, source="fair.toml")
    assert e.value.key == key, str(e.value)
    assert words in str(e.value)
    assert str(e.value).startswith("fair.toml: key ")


def test_tune_with_a_sweep_is_refused(duel: Registry) -> None:
    raw = duel_raw()
    raw["sweep"] = {"rules.stop": [0.2, 0.3]}
    with pytest.raises(ScenarioError, match="cannot also have"):
        scenario_from_dict(raw, duel)


def test_a_valid_table_parses_its_params_and_objectives(duel: Registry) -> None:
    sc = scenario_from_dict(duel_raw(), duel)
    t = sc.tune
    assert t is not None and [p.key for p in t.params] == ["rules.p_first", "rules.stop"]
    assert t.params[1].log and not t.params[0].integer
    assert t.objectives == [("distance", "minimize")]
    assert t.recheck_games == 400


def test_cli_refuses_a_bad_table_and_an_unknown_metric_with_exit_2(tmp_path: Path, capsys) -> None:
    from sim.cli import main

    base = (Path(__file__).parents[2] / "scenarios" / "sun" / "tune-gap.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(base.replace('"ball.diameter" = { low = 0.03, high = 0.06 }',
                                '"ball.diameter" = { low = 0.03, high = 7.0 }'))
    assert main(["tune", str(bad), "--out", str(tmp_path / "o1")]) == 2
    err = capsys.readouterr().err
    assert 'key \'tune.params."ball.diameter"\'' in err and "7.0" in err
    metric = tmp_path / "metric.toml"
    metric.write_text(base.replace('metric = "penalties"', 'metric = "penalty"'))
    assert main(["tune", str(metric), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err
    assert "tune.targets.0.metric" in err and "'penalties_per_game'" in err
    player = tmp_path / "player.toml"
    player.write_text(base.replace('player = "casual"', 'player = "grandma"'))
    assert main(["tune", str(player), "--out", str(tmp_path / "o3")]) == 2
    assert "'grandma'" in capsys.readouterr().err
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


def test_cli_refuses_a_folder_of_other_files(tmp_path: Path, capsys) -> None:
    from sim.cli import main

    (tmp_path / "mine.txt").write_text("keep me")
    scen = Path(__file__).parents[2] / "scenarios" / "sun" / "tune-gap.toml"
    assert main(["tune", str(scen), "--out", str(tmp_path)]) == 2
    assert "other files" in capsys.readouterr().err
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_a_scenario_without_tune_is_refused(tmp_path: Path, capsys) -> None:
    from sim.cli import main

    assert main(["tune", str(Path(__file__).parents[2] / "scenarios" / "sun" / "ladder.toml")]) == 2
    assert "key 'tune'" in capsys.readouterr().err


# --- objective and verdicts ------------------------------------------------------------------------------
def test_the_distance_objective_and_its_error() -> None:
    tune = Tune(params=(), targets=(Target("a", "range", 2.0, 4.0), Target("b", "at_least", 0.9, math.inf,
                                                                                   weight=2.0, scale=0.1),
                                    Target("c", "direction", direction="maximize")))
    est = {"a": TrialEstimate(5.0, 0.5, 10), "b": TrialEstimate(0.8, 0.05, 10), "c": TrialEstimate(3.0, 0.2, 10)}
    vals, ses = objective_values(tune, est)
    # a is 1 above its range; b is 0.1 below its bound, in units of 0.1, weighed twice
    assert vals == pytest.approx([1.0 + 2.0 * 1.0, 3.0])
    assert ses == pytest.approx([math.sqrt(0.5**2 + (2 * 0.05 / 0.1) ** 2), 0.2])
    assert tune.objectives == [("distance", "minimize"), ("c", "maximize")]


def test_verdicts() -> None:
    rng = Target("a", "range", 2.0, 4.0)
    assert rng.verdict(2.5, 3.0, 3.5) == "met"
    assert rng.verdict(4.5, 5.0, 5.5) == "missed"
    assert rng.verdict(3.5, 4.5, 5.5) == "unsure"
    val = Target("e", "value", 0.0, 0.0)
    assert val.verdict(-0.1, 0.02, 0.14) == "met"  # the interval covers the value
    assert val.verdict(0.05, 0.1, 0.15) == "missed"


def test_pareto_front() -> None:
    def t(n: int, a: float, b: float) -> TrialResult:
        return TrialResult(n, "complete", {}, [a, b])

    trials = [t(0, 1, 5), t(1, 2, 2), t(2, 3, 3), t(3, 5, 1), t(4, 2, 2.5)]
    assert [x.number for x in pareto_front(trials, ["minimize", "minimize"])] == [0, 1, 3]
    assert [x.number for x in pareto_front(trials, ["minimize", "maximize"])] == [0]


# --- the search finds the known best design ----------------------------------------------------------------
def test_the_search_finds_the_fair_first_player_chance_within_its_interval(tmp_path: Path, duel: Registry) -> None:
    # a fair duel (first-player edge 0) has p_first = 0.5 exactly: the winner and its interval agree
    raw = one_param(duel_raw(trials=16, games=120, recheck_games=480))
    sc = scenario_from_dict(raw, duel, source="fair.toml", default_name="fair")
    info, s = run_tune(sc, duel, tmp_path / "t", backend="serial", workers=1, progress=False, report=True)
    lo, hi = s["parameter_intervals"]["rules.p_first"]
    best = s["best"][0]["values"]["rules.p_first"]
    assert lo <= 0.5 <= hi, (lo, best, hi)
    assert abs(best - 0.5) < 0.1
    assert hi - lo < 0.4  # an interval that says something
    assert s["best"][0]["games"] == 480  # re-checked with more games
    assert s["best"][0]["targets"][0]["verdict"] == "met"
    # the winner is a scenario run reads, with the design's value and no [tune]
    won = load_scenario(tmp_path / "t" / "best.toml", duel)
    assert won.tune is None and won.rules["p_first"] == pytest.approx(best)
    assert (tmp_path / "t" / "report" / "report.html").is_file()
    assert (tmp_path / "t" / "report" / "history.png").stat().st_size > 1000


def test_two_parameters_two_targets_land_near_the_closed_form_design(tmp_path: Path, duel: Registry) -> None:
    sc = scenario_from_dict(duel_raw(trials=30, games=150, recheck_games=600), duel, default_name="fair2")
    info, s = run_tune(sc, duel, tmp_path / "t", backend="serial", workers=1, progress=False, report=False)
    v = s["best"][0]["values"]
    assert abs(v["rules.p_first"] - 0.5) < 0.12 and abs(v["rules.stop"] - 0.25) < 0.08, v
    assert set(s["importance"]["distance"]) == {"rules.p_first", "rules.stop"}
    assert s["trials"]["pruned"] > 0  # median pruning stopped some poor designs half-way


def test_common_random_numbers_same_seed_same_search(tmp_path: Path, duel: Registry) -> None:
    raw = one_param(duel_raw(trials=6, games=40, recheck_games=80))
    sc = scenario_from_dict(raw, duel, default_name="crn")
    a, _ = run_tune(sc, duel, tmp_path / "a", backend="serial", workers=1, progress=False, report=False)
    b, _ = run_tune(sc, duel, tmp_path / "b", backend="serial", workers=1, progress=False, report=False)
    assert [t.values for t in a.trials] == [t.values for t in b.trials]
    assert [t.objectives for t in a.trials] == [t.objectives for t in b.trials]
    # every trial played the same games: game i of every design drew the same chance stream, so a
    # design's first games are the same games whatever the other designs were
    folders = {t.folder for t in a.trials}
    assert len(folders) == len(a.trials)


def test_a_killed_search_resumes_to_the_uninterrupted_result(tmp_path: Path, duel: Registry) -> None:
    raw = one_param(duel_raw(trials=8, games=60, recheck_games=120))
    sc = scenario_from_dict(raw, duel, default_name="resume")
    whole, _ = run_tune(sc, duel, tmp_path / "whole", backend="serial", workers=1, progress=False, report=False)
    # stop the search in the middle of its fourth trial (Ctrl-C), then give the same call again
    import sim.core.runner as runner

    calls = {"n": 0}
    real = runner.run_study

    def stopping(*args, **kw):  # noqa: ANN002, ANN003
        calls["n"] += 1
        if calls["n"] == 7:  # the fourth trial's second stage (each trial: half, then the rest)
            raise KeyboardInterrupt
        return real(*args, **kw)

    import sim.cli_tune as cli_mod

    runner.run_study = stopping
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tune(sc, duel, tmp_path / "cut", backend="serial", workers=1, progress=False, report=False)
    finally:
        runner.run_study = real
    assert cli_mod  # imported for the patch's sake
    again, _ = run_tune(sc, duel, tmp_path / "cut", backend="serial", workers=1, progress=False, report=False)
    assert [t.values for t in again.trials if t.state != "infeasible"] == \
        [t.values for t in whole.trials if t.state != "infeasible"]
    assert [t.objectives for t in again.trials] == [t.objectives for t in whole.trials]
    assert again.best[0].values == whole.best[0].values
    # issue 29, item 9: a fresh search said "(a resumed search: its part)"; only the resumed one is
    assert not whole.resumed and again.resumed


_KILL_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
import tomllib
from pathlib import Path
from sim.core.registry import Registry
from sim.core.scenario import scenario_from_dict
from sim.cli_tune import run_tune
reg = Registry({{"duel": "tune_toy:GAME"}})
raw = tomllib.loads(Path({path!r}).read_text())
sc = scenario_from_dict(raw, reg, default_name="kill")
run_tune(sc, reg, Path({out!r}), backend="serial", workers=1, progress=False, report=False)
"""


@pytest.mark.slow
def test_a_sigkilled_search_resumes(tmp_path: Path, duel: Registry) -> None:
    from sim.core.tomlw import to_toml

    raw = one_param(duel_raw(trials=10, games=300, recheck_games=600))
    path = tmp_path / "kill.toml"
    path.write_text(to_toml(raw))
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-c", _KILL_SCRIPT.format(here=str(HERE), path=str(path), out=str(out))],
                            env={**os.environ, "PYTHONPATH": str(HERE.parents[1])})
    import optuna

    deadline = time.time() + 120
    while time.time() < deadline:
        time.sleep(0.3)
        try:
            st = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / 'tune.sqlite'}")
            if sum(t.state.is_finished() for t in st.trials) >= 3:
                break
        except Exception:  # noqa: BLE001 - the storage is not there yet
            continue
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    sc = scenario_from_dict(raw, duel, default_name="kill")
    again, _ = run_tune(sc, duel, out, backend="serial", workers=1, progress=False, report=False)
    whole, _ = run_tune(sc, duel, tmp_path / "whole", backend="serial", workers=1, progress=False, report=False)
    assert [t.values for t in again.trials] == [t.values for t in whole.trials]
    assert again.best[0].values == whole.best[0].values


def test_another_search_in_the_folder_is_refused_unless_forced(tmp_path: Path, duel: Registry) -> None:
    raw = one_param(duel_raw(trials=2, games=20, recheck_games=20))
    sc = scenario_from_dict(raw, duel, default_name="one")
    run_tune(sc, duel, tmp_path / "t", backend="serial", workers=1, progress=False, report=False)
    raw["tune"]["targets"][0]["value"] = 0.2
    other = scenario_from_dict(raw, duel, default_name="one")
    with pytest.raises(InputError, match="another scenario or"):
        run_tune(other, duel, tmp_path / "t", backend="serial", workers=1, progress=False, report=False)
    info, _ = run_tune(other, duel, tmp_path / "t", backend="serial", workers=1, progress=False, report=False,
                       force=True)
    assert len(info.trials) == 2


# --- skill against chance ---------------------------------------------------------------------------------
def test_the_skill_index_recovers_the_toys_skill_share(tmp_path: Path, duel: Registry) -> None:
    # with probability |skill_0 - skill_1| = 0.6 the stronger seat wins, else a fair coin: p = 0.6
    raw = {"game": "duel", "games": 800, "seed": 3, "backend": "serial", "rules": {"p_first": 0.5, "stop": 0.9},
           "seats": [{"agent": "random", "skill": 0.8, "strength": 2, "name": "strong"},
                     {"agent": "random", "skill": 0.2, "strength": 1, "name": "weak"}], "out": str(tmp_path / "r")}
    run_study(scenario_from_dict(raw, duel), duel, progress=False)
    si = skill_index(load_run(tmp_path / "r"))
    assert si is not None
    assert si.p_lo <= 0.6 <= si.p_hi and abs(si.p - 0.6) < 0.08
    assert si.spread_elo > si.chance_spread_elo  # far beyond what a coin spreads
    assert "60 %" in si.sentence() or "%" in si.sentence()


def test_no_skill_index_without_a_declared_order(tmp_path: Path, duel: Registry) -> None:
    raw = {"game": "duel", "games": 20, "seed": 3, "backend": "serial",
           "seats": [{"agent": "random", "name": "a"}, {"agent": "random", "name": "b"}], "out": str(tmp_path / "r")}
    run_study(scenario_from_dict(raw, duel), duel, progress=False)
    assert skill_index(load_run(tmp_path / "r")) is None


def test_several_objectives_rank_the_compromise_first() -> None:
    from sim.core.tune import rank_rechecked

    tune = Tune(params=(), targets=(Target("edge", "value", 0.0, 0.0), Target("draws", "direction",
                                                                               direction="minimize")))
    def t(n: int, a: float, b: float) -> TrialResult:
        return TrialResult(n, "complete", {}, [a, b])

    # all draws (edge 0 trivially), no draws but a large edge, and a compromise
    ranked = rank_rechecked([t(8, 0.0, 1.0), t(12, 0.35, 0.0), t(15, 0.04, 0.16)], tune)
    assert [x.number for x in ranked] == [15, 8, 12]


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["process", "dask"])
def test_every_backend_searches_the_same_designs(tmp_path: Path, duel: Registry, backend: str) -> None:
    raw = one_param(duel_raw(trials=4, games=30, recheck_games=60))
    sc = scenario_from_dict(raw, duel, default_name="backends")
    serial, _ = run_tune(sc, duel, tmp_path / "serial", backend="serial", workers=1, progress=False, report=False)
    other, _ = run_tune(sc, duel, tmp_path / backend, backend=backend, workers=2, progress=False, report=False)
    assert [t.values for t in other.trials] == [t.values for t in serial.trials]
    assert [t.objectives for t in other.trials] == [t.objectives for t in serial.trials]
    assert other.best[0].recheck["metrics"] == serial.best[0].recheck["metrics"]


# --- the Sun end to end: the winner as a scenario and a layout file, run and compared ---------------
SUN_TUNE = """
name = "sun-tiny-tune"
game = "sun"
games = 2
seed = 3
backend = "serial"

[physics]
preset = "fast"

[record]
frames = "none"

[[seats]]
agent = "careful"
skill = "casual"

[[seats]]
agent = "aggressive"
skill = "casual"

[tune]
trials = 2
games = 2
recheck = 1
recheck_games = 2
pruning = false

[tune.params]
"table.pass_clearance" = { low = 0.0, high = 0.01 }
"shapes.block.width" = { low = 0.022, high = 0.04 }

[[tune.targets]]
metric = "penalties_per_game"
range = [2.0, 4.0]
"""


@pytest.mark.slow
def test_the_suns_winner_is_a_scenario_and_a_layout_that_run_sun_pass_and_compare_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`stonelab tune` on the Sun writes best.toml and best-layout.toml; `stonelab run` reads the
    first, `stonelab sun pass` the second (with the winning table and stones), and `stonelab
    compare` compares the confirmation run against the original scenario's."""
    from sim.cli import main
    from sim.sun.table.layout import load_layout

    monkeypatch.chdir(tmp_path)  # every default run folder (runs/sun/...) lands here
    sc_path = tmp_path / "tiny.toml"
    sc_path.write_text(SUN_TUNE)
    assert main(["tune", str(sc_path), "--out", "tuned", "--no-report"]) == 0
    out = capsys.readouterr().out
    best = tmp_path / "tuned" / "best.toml"
    layout_file = tmp_path / "tuned" / "best-layout.toml"
    assert best.is_file() and layout_file.is_file() and "best-layout.toml" in out
    summary = json.loads((tmp_path / "tuned" / "tune.json").read_text())
    values = summary["best"][0]["values"]
    assert [Path(f).resolve() for f in summary["design_files"]] == [layout_file.resolve()]
    # the layout file carries the winning values the search chose (away from the defaults)
    lay = load_layout(layout_file)
    assert lay.table.pass_clearance == pytest.approx(values["table.pass_clearance"])
    assert lay.shapes["block"].width == pytest.approx(values["shapes.block.width"])
    assert lay.shapes["pillar"].width == pytest.approx(0.020) and lay.stones == ()
    # ... and the scenario has the same table: what `stonelab run` plays is what the layout says
    from sim.games import REGISTRY
    from sim.sun.sections import layout_of

    best_sc = load_scenario(best, REGISTRY)
    assert best_sc.tune is None and best_sc.name == "sun-tiny-tune-best"
    played = layout_of(best_sc.sections)
    assert (played.table, played.ball, played.physics) == (lay.table, lay.ball, lay.physics)
    assert dict(played.shapes) == dict(lay.shapes)
    # a `stonelab sun` command reads the layout file
    assert main(["sun", "pass", str(layout_file), "--aim", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["layout"] == str(layout_file)
    # confirm the winner with a study, play the original, and compare the two
    assert main(["run", str(best), "--games", "2", "--no-report"]) == 0
    assert main(["run", str(sc_path), "--games", "2", "--no-report"]) == 0
    capsys.readouterr()
    confirm, original = tmp_path / "runs" / "sun" / "sun-tiny-tune-best", tmp_path / "runs" / "sun" / "sun-tiny-tune"
    assert (confirm / "results.sqlite").is_file() and (original / "results.sqlite").is_file()
    assert main(["compare", str(original), str(confirm), "--json"]) == 0
    comp = json.loads(capsys.readouterr().out)
    assert comp["a"]["games"] == 2 and comp["b"]["games"] == 2
    assert comp["b"]["scenario"] == "sun-tiny-tune-best"
    # the winner's own table is among the changes the comparison names (not only the [tune] table's removal)
    assert any(c.startswith("table.pass_clearance: '(default)' -> ") for c in comp["scenario_changes"])
