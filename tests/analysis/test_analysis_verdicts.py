"""Verdicts a designer acts on: draws and shared wins are not losses, "stronger" comes
from the scenario and never from the results, one definition of a draw for the summary, report
and export, no finding resting on a handful of passes, and findings worded as sentences."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

import analysis.report as R
from analysis import metrics as M
from analysis.load import export_table, load_run
from analysis.strength import Strength, compare, profile
from analysis.synthetic import result, synthetic_store, toy_spec, write_store
from sim.core.store import Store

SUN_SEATS = [{"agent": "careful", "skill": "steady", "sigma_aim_deg": 0.25},
             {"agent": "careful", "skill": "steady", "sigma_aim_deg": 1.0}]
LOW, HIGH = "careful(skill=steady, sigma_aim_deg=0.25)", "careful(skill=steady, sigma_aim_deg=1.0)"


def _sun_store(tmp: Path, outcomes: list[list[int]], seats: list[dict[str, Any]] | None = None,
               labels: list[str] | None = None, rows: list[dict[str, list[dict[str, Any]]]] | None = None) -> Path:
    from sim.games import get_game

    labels = labels or [LOW, HIGH]
    res = [result(i, w, labels=labels, agents=["careful", "careful"], rows=(rows[i] if rows else None))
           for i, w in enumerate(outcomes)]
    scen = {"name": "s", "game": "sun", "seats": seats or SUN_SEATS}
    return write_store(tmp, get_game("sun").spec, res, scenario=scen)


# --- skill verdicts ---------------------------------------------------------------------------------
def test_shared_wins_count_half_not_as_losses(tmp_path: Path) -> None:
    # the aim-0.25 seat (seat 0) wins 1, loses 2 and shares 7 of 10 games: score (1 + 7/2) / 10 = 45 %;
    # counting shared wins as losses (as before) gave it 10 %
    run = load_run(_sun_store(tmp_path, [[0]] + [[1]] * 2 + [[0, 1]] * 7))
    sk = M.skill_importance(run.games, run.seats, R_strengths(run)).set_index("label")
    assert sk.loc[LOW, ["wins", "shared", "draws", "losses"]].tolist() == [1, 7, 0, 2]
    assert sk.loc[LOW, "score"] == pytest.approx(0.45) and sk.loc[HIGH, "score"] == pytest.approx(0.55)
    assert bool(sk.loc[LOW, "stronger"]) and not bool(sk.loc[HIGH, "stronger"])
    text = " ".join(R.skill_section(run).findings)
    assert "careful(sigma_aim_deg=0.25), stronger by smaller aim noise, scores 45 % [" in text
    assert "(1 won, 7 shared wins, 0 draws, 2 lost; no-skill score 50 %)" in text
    assert "does worse" not in text  # 45 % [.., ..] of 10 games is no evidence against skill


def R_strengths(run: Any) -> dict[str, Strength | None]:
    from analysis.strength import label_strengths

    return label_strengths(run.game, run.scenario, run.points, run.sweep_keys, run.seats)


def test_stronger_comes_from_the_aim_noise_not_from_who_won_more(tmp_path: Path) -> None:
    # sigma 2.0 against 1.0, and the 2.0 seat wins every game: 1.0 is still the declared stronger one
    seats = [{"agent": "careful", "skill": "steady", "sigma_aim_deg": 2.0},
             {"agent": "careful", "skill": "steady", "sigma_aim_deg": 1.0}]
    labels = ["careful(skill=steady, sigma_aim_deg=2.0)", HIGH]
    # (24 games: under analysis.power.MIN_GAMES = 20 no verdict word is said at all)
    run = load_run(_sun_store(tmp_path, [[0]] * 24, seats=seats, labels=labels))
    sk = M.skill_importance(run.games, run.seats, R_strengths(run)).set_index("label")
    assert bool(sk.loc[HIGH, "stronger"]) and sk.loc[HIGH, "score"] == 0.0
    text = " ".join(R.skill_section(run).findings)
    assert "careful(sigma_aim_deg=1.0), stronger by smaller aim noise, scores 0 % [" in text
    assert "the declared stronger agent does worse" in text


def test_no_declared_order_no_stronger_claim(tmp_path: Path) -> None:
    # two MCTS seats that differ only in the exploration constant: no direction is declared
    from sim.games import get_game

    labels = ["mcts(exploration=0.5)", "mcts(exploration=2.0)"]
    res = [result(i, [0], labels=labels, agents=["mcts", "mcts"]) for i in range(10)]
    scen = {"name": "s", "game": "druids", "seats": [{"agent": "mcts", "exploration": 0.5},
                                                   {"agent": "mcts", "exploration": 2.0}]}
    run = load_run(write_store(tmp_path, get_game("druids").spec, res, scenario=scen))
    sk = M.skill_importance(run.games, run.seats, R_strengths(run))
    assert not sk["stronger"].any() and not sk["ordered"].any()
    text = " ".join(R.skill_section(run).findings)
    assert "the scenario declares no order (they differ in exploration, which has no declared direction)" in text
    assert "stronger by" not in text and "rewards skill" not in text


def test_search_effort_and_agent_tier_order_the_agents(tmp_path: Path) -> None:
    from sim.games import get_game

    # more iterations is stronger even when it loses every game; unknown defaults come from the registry
    labels = ["mcts", "mcts(iterations=50)"]
    res = [result(i, [1], labels=labels, agents=["mcts", "mcts"]) for i in range(6)]
    scen = {"name": "s", "game": "druids", "seats": [{"agent": "mcts"}, {"agent": "mcts", "iterations": 50}]}
    run = load_run(write_store(tmp_path / "a", get_game("druids").spec, res, scenario=scen))
    sk = M.skill_importance(run.games, run.seats, R_strengths(run)).set_index("label")
    assert bool(sk.loc["mcts", "stronger"]) and sk.loc["mcts", "why"] == "more iterations"
    # greedy against random: the agent tier
    res = [result(i, [0], labels=["random", "greedy"]) for i in range(6)]
    scen = {"name": "s", "game": "druids", "seats": [{"agent": "random"}, {"agent": "greedy"}]}
    run = load_run(write_store(tmp_path / "b", get_game("druids").spec, res, scenario=scen))
    sk = M.skill_importance(run.games, run.seats, R_strengths(run)).set_index("label")
    assert bool(sk.loc["greedy", "stronger"]) and sk.loc["greedy", "score"] == 0.0


def test_compare_partial_order() -> None:
    steady_fine = profile("sun", {"agent": "careful", "skill": "steady", "sigma_aim_deg": 0.25})
    casual_fine = profile("sun", {"agent": "careful", "skill": "casual", "sigma_aim_deg": 0.25})
    steady = profile("sun", {"agent": "careful", "skill": "steady"})
    expert = profile("sun", {"agent": "careful", "skill": "expert"})
    assert compare(expert, steady)[0] == 1  # every noise of expert is smaller (sim/sun/players/thrower.py)
    assert compare(steady_fine, steady) == (1, ["smaller aim noise"])
    # casual hands with a finer aim than steady ones: the keys disagree, no order
    sign, why = compare(casual_fine, steady)
    assert sign is None and "disagree" in why[0]
    assert compare(steady, steady) == (0, [])
    # an explicit strength decides alone, and only when both state one
    a = dataclasses.replace(casual_fine, explicit=3.0)
    b = dataclasses.replace(steady, explicit=1.0)
    assert compare(a, b) == (1, ["the scenario's stated strength"])
    assert compare(a, steady)[0] is None
    assert compare(profile("druids", {"agent": "mcts"}), profile("druids", {"agent": "ismcts"}))[0] is None
    assert compare(None, steady)[0] is None
    from analysis.strength import strongest

    assert strongest(["a", "b"], {"a": steady}) == (None, ["the stored scenario does not describe the seats of b"])
    assert strongest(["a", "b"], {"a": steady_fine, "b": steady}) == ("a", ["smaller aim noise"])
    assert strongest(["a", "b", "c"], {"a": expert, "b": steady, "c": casual_fine})[0] is None  # b, c unordered


def test_sun_skill_order_matches_the_thrower_noises() -> None:
    # SKILL_ORDER says each level is at least as good as the one before on all five noises
    from sim.sun.report.section import SKILL_ORDER
    from sim.sun.players.thrower import SKILLS

    assert set(SKILL_ORDER) == set(SKILLS)
    fields = ("sigma_aim_deg", "sigma_release_m", "sigma_push_mps", "sigma_place_m", "sigma_place_deg")
    for weak, strong in zip(SKILL_ORDER, SKILL_ORDER[1:]):
        assert all(getattr(SKILLS[strong], f) <= getattr(SKILLS[weak], f) for f in fields), (weak, strong)


def test_scenario_strength_key(tmp_path: Path) -> None:
    from sim.core.errors import ScenarioError
    from sim.core.scenario import scenario_from_dict
    from sim.games import REGISTRY

    base = {"game": "druids", "games": 2, "seats": [{"agent": "random", "strength": 1},
                                                    {"agent": "greedy", "strength": 0.5}]}
    sc = scenario_from_dict(base, REGISTRY)
    assert sc.seats[0].label() == "random"  # strength is not an agent parameter
    bad = json.loads(json.dumps(base))
    bad["seats"][1]["strength"] = "high"
    with pytest.raises(ScenarioError) as e:
        scenario_from_dict(bad, REGISTRY)
    assert e.value.key == "seats[1].strength" and "finite number" in e.value.message
    # a stated strength overrides the agent tier: random declared stronger than greedy
    res = [result(i, [1], labels=["random", "greedy"]) for i in range(4)]
    from sim.games import get_game

    run = load_run(write_store(tmp_path, get_game("druids").spec, res, scenario=base))
    sk = M.skill_importance(run.games, run.seats, R_strengths(run)).set_index("label")
    assert bool(sk.loc["random", "stronger"]) and sk.loc["random", "why"] == "the scenario's stated strength"


def test_skill_plot_labels_do_not_overlap(tmp_path: Path) -> None:
    # four aim noises give six pairings with long labels: the labels of the old vertical bars overlapped
    sig = [0.25, 1.0, 2.0, 4.0]
    res, i = [], 0
    for a in sig:
        for b in sig:
            if a != b:
                res.append(result(i, [0, 1], labels=[f"careful(skill=steady, sigma_aim_deg={a})",
                                                     f"careful(skill=steady, sigma_aim_deg={b})"],
                                  agents=["careful", "careful"], point=i,
                                  sweep={"seats.0.sigma_aim_deg": a, "seats.1.sigma_aim_deg": b}))
                i += 1
    from sim.games import get_game

    scen = {"name": "s", "game": "sun", "seats": SUN_SEATS,
            "sweep": {"seats.0.sigma_aim_deg": sig, "seats.1.sigma_aim_deg": sig}}
    pts = [(r.point, r.sweep) for r in res]
    run = load_run(write_store(tmp_path, get_game("sun").spec, res, scenario=scen, points=pts))
    fig = R.skill_section(run).plots[0].fig
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    ax = fig.axes[0]
    boxes = [t.get_window_extent(renderer) for t in ax.get_yticklabels() + ax.get_xticklabels() if t.get_text()]
    for j, a in enumerate(boxes):
        for b in boxes[j + 1:]:
            assert not a.overlaps(b), "tick labels overlap"
    assert len(ax.get_yticklabels()) == 6  # one bar per two-agent pairing


# --- one definition of draw and shared win ---------------------------------------------------------------
def test_summary_report_and_export_agree_on_draws(tmp_path: Path) -> None:
    from analysis.summary import summarize

    outcomes = [[0], [1], [0, 1], [0, 1], [0, 1], []]  # 2 sole wins, 3 shared wins, 1 draw
    run_dir = _sun_store(tmp_path, outcomes)
    with Store.open(run_dir) as st:
        s = summarize(st)
    assert (s["draws"], s["shared_wins"]) == (1, 3)
    assert sum(x["wins"] for x in s["seats"]) + s["draws"] + s["shared_wins"] == s["games"] == 6
    assert [x["shared_wins"] for x in s["seats"]] == [3, 3]
    assert s["seats"][0]["score"] == pytest.approx((1 + 1.5 + 0.5) / 6)
    e = M.endings(load_run(run_dir).games)
    assert (e["draws"], e["shared"]) == (1, 3)
    text = " ".join(R.length_section(load_run(run_dir)).findings)
    assert "1 draw and 3 shared wins" in text
    path = export_table(run_dir, "games", "csv", tmp_path / "g.csv")
    rows = list(csv.DictReader(path.open()))
    assert [int(r["draw"]) for r in rows] == [0, 0, 0, 0, 0, 1]  # the store's own column says 1 for shared wins
    assert [int(r["shared_win"]) for r in rows] == [0, 0, 1, 1, 1, 0]
    assert [float(r["win_share_0"]) + float(r["win_share_1"]) for r in rows] == [1.0] * 6
    assert [float(r["win_share_0"]) for r in rows] == [1.0, 0.0, 0.5, 0.5, 0.5, 0.5]


def test_win_share() -> None:
    assert M.win_share([2], 2, 3) == 1.0 and M.win_share([2], 0, 3) == 0.0
    assert M.win_share([0, 2], 0, 3) == 0.5 and M.win_share([], 1, 4) == 0.25
    assert [M.outcome(w) for w in ([], [1], [0, 1])] == ["draw", "sole", "shared"]
    with pytest.raises(ValueError):
        M.win_share([], 0, 0)


def test_sweep_summary_prints_one_row_per_point(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.summary import summarize
    from sim.cli_tables import print_summary as _print_summary

    res = [result(i, [0] if p == 0 else [1], point=p, labels=[f"greedy(cost={c})", "random"],
                  agents=["greedy", "random"], sweep={"seats.0.cost": c})
           for p, c in enumerate([0.01, 0.5]) for i in range(3)]
    write_store(tmp_path, toy_spec(), res, points=[(0, {"seats.0.cost": 0.01}), (1, {"seats.0.cost": 0.5})],
                scenario={"name": "sw", "game": "toy", "seats": [{"agent": "greedy"}, {"agent": "random"}],
                          "sweep": {"seats.0.cost": [0.01, 0.5]}})
    with Store.open(tmp_path) as st:
        s = summarize(st, wall_s=1.0)
    assert [p["seats"][0]["label"] for p in s["points"]] == ["greedy(cost=0.01)", "greedy(cost=0.5)"]
    assert [p["seats"][0]["wins"] for p in s["points"]] == [3, 0]
    s.update(played=6, resumed_skipped=0)
    _print_summary(s)
    out = capsys.readouterr().out
    rows = [ln.split() for ln in out.splitlines() if re.match(r"^\s*[01]\s+0\.", ln)]
    # point, cost, games, seat 0 wins, seat 0 score, seat 1 wins, seat 1 score, then the player
    # effect (greedy is declared stronger than random: its score against it, with the interval)
    assert [r[:9] for r in rows] == [["0", "0.01", "3", "3", "100", "%", "0", "0", "%"],
                                     ["1", "0.5", "3", "0", "0", "%", "3", "100", "%"]]
    assert [" ".join(r[9:11]) for r in rows] == ["100 %", "0 %"]
    assert "stronger" in out
    assert "greedy(cost=0.01) / greedy(cost=0.5)" not in out  # no pooled seat label


# --- the Sun: small groups, labels, causes ----------------------------------------------------------------
def _passes(spec_cols: list[str], rows: list[tuple[int, int, str, float, float]]) -> list[dict[str, Any]]:
    out = []
    for turn, pen, causes, mid, aim in rows:
        r = {c: 0 for c in spec_cols}
        r.update({"seat": turn % 2, "turn": turn, "penalties": pen, "causes": causes, "area_mid_deg": mid,
                  "area_width_mm": 100.0, "noise_aim_deg": aim})
        out.append(r)
    return out


def test_sun_findings_need_min_passes_and_say_unchanged(tmp_path: Path) -> None:
    from sim.sun.report import section as sun
    from sim.games import get_game

    cols = [c.name for c in get_game("sun").spec.detail_tables["passes"]]
    # sector 0 (0-15 deg): 4 passes costing 2 stones each; sector 4 (60-75 deg): 40 passes, 1 in 4 costs one
    rows = [(t, 2, "1:slab:fell_from_support;2:block:fell from its support", 5.0, 0.1 * t) for t in range(4)]
    rows += [(4 + t, 1 if t % 4 == 0 else 0, "3:block:pushed_off" if t % 4 == 0 else "", 65.0, -0.01 * t)
             for t in range(40)]
    seats = [{"agent": "careful", "skill": "steady"}, {"agent": "careful", "skill": "steady"}]
    run = load_run(_sun_store(tmp_path, [[0, 1]], seats=seats, labels=["careful", "careful"],
                              rows=[{"passes": _passes(cols, rows), "placements": [], "frames": []}]))
    assert sun.MIN_PASSES == 30
    text = " ".join(sun.section(run).findings)
    # the 4-pass sector costs most per pass but may not headline; the 40-pass one may, but one game
    # gives no interval that could exclude the overall figure: it is not called "the most"
    assert "No mark-area sector with at least 30 passes (in 10 games or more) costs clearly more or less" in text
    assert "the costliest, 60–75°, 0.25 (no interval: 1 distinct game) (40 passes in 1 game)" in text
    assert "cost the most" not in text
    assert "0–15°" not in text
    # one cause under one name: 4 passes x 2 stones, spelled two ways, are 8 of 18 stones
    assert "fell from its support 44 %" in text and "fell from support " not in text
    tab = next(t for _, t in sun.section(run).tables if "cause" in t.columns)  # the rules-exercised table is first
    assert sorted(set(tab["cause"])) == ["fell from its support", "pushed off"]
    # one noise level: groups of the aim error drawn (|0.0| included), labelled from 0.0, never "-0.0"
    ticks = [t.get_text() for t in sun.section(run).plots[0].fig.axes[0].get_xticklabels()]
    assert re.match(r"0\.0+–", ticks[0]) and not any("-0.0" in t for t in ticks)
    ns = [int(t.split("n=")[1]) for t in ticks]  # n per group under each label
    assert len(ns) == 5 and sum(ns) == 44 and max(ns) - min(ns) <= 2  # quintiles of the 44 passes
    assert "Fewer than two aim error drawn groups hold 30 passes" in text


def test_sun_no_headline_from_small_sectors(tmp_path: Path) -> None:
    from sim.sun.report import section as sun
    from sim.games import get_game

    cols = [c.name for c in get_game("sun").spec.detail_tables["passes"]]
    rows = [(t, t % 2, "1:slab:toppled" if t % 2 else "", 10.0 + 20 * (t % 6), 0.2 * (t % 5)) for t in range(24)]
    run = load_run(_sun_store(tmp_path, [[0]], seats=[{"agent": "careful"}, {"agent": "careful"}],
                              labels=["careful", "careful"],
                              rows=[{"passes": _passes(cols, rows), "placements": [], "frames": []}]))
    text = " ".join(sun.section(run).findings)
    assert "No 15° mark-area sector holds 30 passes yet (the most: 4), so no sector is singled out." in text
    assert "cost the most" not in text


def test_sun_all_clean_passes_stay_at_100(tmp_path: Path) -> None:
    from sim.sun.report import section as sun
    from sim.games import get_game

    cols = [c.name for c in get_game("sun").spec.detail_tables["passes"]]
    rows = [(t, 0, "", 10.0, 0.01 * t) for t in range(300)]
    run = load_run(_sun_store(tmp_path, [[0, 1]], seats=[{"agent": "careful"}, {"agent": "careful"}],
                              labels=["careful", "careful"],
                              rows=[{"passes": _passes(cols, rows), "placements": [], "frames": []}]))
    text = " ".join(sun.section(run).findings)
    assert "the share of clean passes stays at 100 %" in text
    assert not re.search(r"from (\d+ %) to \1", text)


def test_edge_labels() -> None:
    from sim.sun.report.section import _edge_labels

    assert _edge_labels([0.0, 0.3, 0.62]) == ["0.0–0.3", "0.3–0.6"]
    assert _edge_labels([-1e-12, 0.012, 0.018]) == ["0.00–0.01", "0.01–0.02"]


# --- every game's findings are sentences -----------------------------------------------------------------
def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


@pytest.mark.parametrize("game", ["druids", "rocks", "sozoikum", "sun"])
def test_findings_start_with_a_capital_and_never_repeat_a_figure(tmp_path: Path, game: str) -> None:
    run = load_run(synthetic_store(tmp_path, game, 40, sweep={"rules.x": [1, 2]} if False else None))
    sections, errors = R.build_sections(run)
    assert not errors
    for sec in sections:
        for f in sec.findings:
            for s in _sentences(f):
                assert s[0].isupper() or s[0].isdigit(), f"{game}: sentence starts in lower case: {s!r}"
            assert not re.search(r"from (\d[\d.]* %?(?: \[[^\]]*\])?) to \1(?![\d.])", f), f"{game}: {f!r}"
            assert "n/a of" not in f, f"{game}: {f!r}"


def test_all_shared_games_have_no_na_drama(tmp_path: Path) -> None:
    res = [result(i, [0, 1], leads=[[1, 0], [3, -1]]) for i in range(5)]
    run = load_run(write_store(tmp_path, toy_spec(), res))
    text = " ".join(R.drama_section(run).findings)
    assert "n/a" not in text and "No game with recorded leads had a sole winner" in text
    bal = " ".join(R.balance_section(run).findings)
    assert bal.startswith("No game had a sole winner")


def test_no_order_is_said_once_whichever_way_round() -> None:
    # two agents without a declared order: the reason is given once, not once per direction
    from analysis.strength import Strength, strongest

    lab = {"aggressive(skill=casual)": Strength("aggressive"), "careful(skill=casual)": Strength("careful")}
    best, why = strongest(list(lab), lab)
    assert best is None and why == ["no declared order between the agents 'aggressive' and 'careful'"]


def test_a_sector_is_named_only_when_it_clearly_differs_after_the_correction(tmp_path: Path) -> None:
    """Issue 29: "most" or "least" names a sector only when its interval, clustered by game and
    corrected for the number of sectors compared, excludes the overall figure; a sector whose mean
    is higher on few passes (the longest bar) is not called the costliest."""
    from sim.sun.report import section as sun
    from sim.games import get_game

    cols = [c.name for c in get_game("sun").spec.detail_tables["passes"]]
    games = []
    for g in range(30):
        rows = [(0, 1, "1:slab:toppled", 65.0, 0.1), (1, 1, "2:slab:toppled", 65.0, 0.1)]  # 60-75: always costs
        rows += [(2 + t, 0, "", 185.0, 0.0) for t in range(6)]  # 180-195: never
        rows += [(8 + t, int((g + t) % 3 == 0), "3:block:pushed_off" if (g + t) % 3 == 0 else "", 130.0, 0.0)
                 for t in range(4)]  # 120-135: a third of the passes
        if g < 2:  # 0-15: two passes a game in two games, each costing 2 stones: the longest bar, few passes
            rows += [(12 + t, 2, "4:slab:toppled;5:slab:toppled", 5.0, 0.0) for t in range(16)]
        games.append({"passes": _passes(cols, rows), "placements": [], "frames": []})
    run = load_run(_sun_store(tmp_path, [[0]] * 30, seats=[{"agent": "careful"}, {"agent": "careful"}],
                              labels=["careful", "careful"], rows=games))
    text = " ".join(sun.section(run).findings)
    assert "passes through mark areas at 60–75° cost clearly more than overall (the only sector that does)" in text
    assert "corrected for comparing 4 sectors, Bonferroni" in text
    assert "those at 180–195° clearly less" in text
    assert "0–15°" not in text and "cost the most" not in text  # 2 games: its spread is not measured
