"""Issue 20: seat effect and player effect apart, one meaning of draw and shared win in every
output, and verdict words sized to their sample (analysis/seating.py, analysis/power.py)."""

from __future__ import annotations

import csv
import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import analysis.report as R
from analysis import power
from analysis.load import export_table, load_run
from analysis.synthetic import result, toy_spec, write_store
from sim.core.game import Outcome, Termination, outcome_kind
from sim.core.store import Store

ROOT = Path(__file__).resolve().parents[2]
STRONG, WEAK = "careful(skill=expert)", "careful(skill=child)"


def _rotated_store(tmp: Path, n: int, winner_of: Any, name: str = "r") -> Path:
    """A Sun store of ``n`` games, players 0 (strong) and 1 (weak) swapping seats each game;
    ``winner_of(i, players)`` gives game i's winning seats."""
    res = []
    for i in range(n):
        players = [0, 1] if i % 2 == 0 else [1, 0]
        labels = [[STRONG, WEAK][p] for p in players]
        r = result(i, winner_of(i, players), labels=labels, agents=["careful", "careful"])
        res.append(dataclasses.replace(r, players=players))
    from sim.games import get_game

    scen = {"name": name, "game": "sun", "seats": [{"agent": "careful", "skill": "expert"},
                                                     {"agent": "careful", "skill": "child"}]}
    return write_store(tmp / name, get_game("sun").spec, res, scenario=scen)


# --- seats and players apart -------------------------------------------------------------------------
def test_a_strong_player_in_rotated_seats_is_a_player_effect_not_a_seat_effect(tmp_path: Path) -> None:
    # the strong player wins 3 of every 4 games wherever it sits: seat 0 wins half, the player 75 %
    rng = np.random.default_rng(3)
    wins = rng.random(400) < 0.75
    run = load_run(_rotated_store(tmp_path, 400, lambda i, ps: [ps.index(0) if wins[i] else ps.index(1)]))
    text = " ".join(R.balance_section(run).findings)
    assert "Seat effect (every player sat in every seat equally often): seat 0 (the first seat) won" in text
    assert "no detectable first-player advantage" in text
    assert f"Player effect: share of the 400 decisive games won, {STRONG} 7" in text
    assert f"a clear player effect, {STRONG} winning more often than an equal share" in text
    assert "mixes seat order" not in text


def test_fixed_seats_say_that_they_mix_seat_and_player(tmp_path: Path) -> None:
    res = [result(i, [0], labels=[STRONG, WEAK], agents=["careful", "careful"]) for i in range(30)]
    from sim.games import get_game

    run = load_run(write_store(tmp_path / "f", get_game("sun").spec, res,
                               scenario={"name": "f", "game": "sun", "seat_order": "fixed"}))
    text = " ".join(R.balance_section(run).findings)
    assert "mixes seat order with player strength" in text and "seat_order" in text



def test_a_one_game_run_says_one_game(tmp_path: Path) -> None:
    # a game a person played (stonelab play) is a run of one game: "1 game", never "1 games"
    from analysis.compare import _run_line, compare_runs, render_html
    from sim.games import get_game

    spec = get_game("sun").spec
    one = load_run(write_store(tmp_path / "one", spec, [result(0, [0], labels=[STRONG, WEAK])],
                               scenario={"name": "one", "game": "sun", "seat_order": "fixed"}))
    text = " ".join(R.balance_section(one).findings)
    assert "of the 1 decisive game against" in text and "1 decisive games" not in text
    many = write_store(tmp_path / "many", spec, [result(i, [i % 2], labels=[STRONG, WEAK]) for i in range(6)],
                       scenario={"name": "many", "game": "sun", "seat_order": "fixed"})
    comp = compare_runs(many, tmp_path / "one")
    assert "scenario one, 1 game, seed" in _run_line("B", comp.b) and "scenario many, 6 games, seed" in _run_line("A", comp.a)
    page = render_html(comp)
    assert "; 1 game, seed" in page and "; 6 games, seed" in page

# --- one meaning of draw and shared win --------------------------------------------------------------
def test_outcome_is_defined_once() -> None:
    assert [outcome_kind(w) for w in ((), (1,), (0, 2))] == ["draw", "sole", "shared"]
    end = Termination("Ending", {"NORMAL": "normal"})
    shared = Outcome(end.NORMAL, (0, 1), (1.0, 1.0))
    assert shared.is_shared and not shared.is_draw  # a shared win is not a draw
    assert Outcome(end.NORMAL, (), (0.0, 0.0)).is_draw


def check_outputs_count_what_the_store_holds(run_dir: Path, tmp: Path) -> tuple[int, int]:
    """Every output's draw and shared-win counts against the store's; returns them."""
    from analysis.compare import compare_runs, to_json
    from analysis.sensitivity import point_outputs
    from analysis.summary import summarize
    from analysis.tournament import summary as tournament_summary

    con = sqlite3.connect(run_dir / "results.sqlite")
    stored = con.execute("SELECT winners_json, draw, shared_win FROM games").fetchall()
    con.close()
    for w, d, s in stored:
        kind = outcome_kind(json.loads(w))
        assert (d, s) == (int(kind == "draw"), int(kind == "shared"))
    draws, shared = sum(r[1] for r in stored), sum(r[2] for r in stored)
    n = len(stored)
    with Store.open(run_dir) as st:
        s = summarize(st)
    assert (s["draws"], s["shared_wins"]) == (draws, shared)
    rows = list(csv.DictReader(export_table(run_dir, "games", "csv", tmp / "g.csv").open()))
    assert (sum(int(r["draw"]) for r in rows), sum(int(r["shared_win"]) for r in rows)) == (draws, shared)
    run = load_run(run_dir)
    text = " ".join(R.length_section(run).findings)
    if draws + shared:
        assert f"{R.plural(draws, 'draw')} and {R.plural(shared, 'shared win')}" in text
    comp = to_json(compare_runs(run_dir, run_dir))
    got = {r["metric"]: round(r["a"] * r["n_a"]) for r in comp["rows"] if r["group"] == "game" and "rate" in r["metric"]}
    assert got["draw rate (no winner)"] == draws
    assert got.get("shared-win rate (2+ winners)", 0) == shared
    no_sole = next(o for o in point_outputs(run) if o.name == "draw_share")
    assert no_sole.mean.iloc[0] * n == pytest.approx(draws + shared)
    assert "without a sole winner" in no_sole.label
    t = tournament_summary(run_dir)
    assert (t["draws"], t["shared_wins"]) == (draws, shared)
    return draws, shared


def test_every_output_counts_draws_and_shared_wins_as_the_store_does(tmp_path: Path) -> None:
    outcomes = [[0], [1], [0, 1], [0, 1], [0, 1], [], [1], []]
    res = [result(i, w, length=10 + i) for i, w in enumerate(outcomes)]  # distinct games (identical ones count once)
    run_dir = write_store(tmp_path / "h", toy_spec(), res)
    assert check_outputs_count_what_the_store_holds(run_dir, tmp_path) == (2, 3)


@pytest.mark.slow
def test_a_played_sun_study_with_shared_wins_counts_them_alike_everywhere(tmp_path: Path) -> None:
    from sim.cli import main

    # In-process (main with a list), the maths path is the machine's own, so which games share a
    # win depends on the CPU: 48 games, about 14 % of them shared wins, hold none with a chance of
    # 0.86 ** 48 = 0.07 % (8 games, as before, held 2 on one path and none on another).
    out = tmp_path / "sun"
    rc = main(["run", str(ROOT / "scenarios/sun/classic-2p.toml"), "--games", "48", "--seed", "1", "--backend",
               "serial", "--out", str(out), "--no-report"])
    assert rc == 0
    draws, shared = check_outputs_count_what_the_store_holds(out, tmp_path)
    assert shared > 0, "the seeded study should hold shared wins (8 and 7 of 48 games on two maths paths when written)"


# --- verdicts sized to their sample ------------------------------------------------------------------
def test_games_needed_is_the_textbook_sample_size() -> None:
    # 50 % against 60 %, two-sided 5 %, power 80 %: 194 (one sample), 388 per group (two samples)
    assert power.games_needed(0.5) == 194
    assert power.games_needed(0.5, two_sample=True) == 388
    assert power.too_few(4, 0.5) == "too few games to tell (n = 4; about 194 needed for a difference of 10 points)"


def test_four_games_do_not_say_the_game_rewards_skill(tmp_path: Path) -> None:
    # the strong hand wins all 4: Wilson [51, 100] excludes 50 %, but 4 games tell nothing
    run = load_run(_rotated_store(tmp_path, 4, lambda i, ps: [ps.index(0)]))
    sk = " ".join(R.skill_section(run).findings)
    assert "rewards skill" not in sk
    assert "too few games to tell (n = 4; about 194 needed for a difference of 10 points)" in sk
    bal = " ".join(R.balance_section(run).findings)
    assert "too few decisive games to tell (n = 4;" in bal and "strongly" not in bal


def test_strongly_needs_the_interval_not_just_the_estimate() -> None:
    # 80 % of 40: the old rule said "strongly" (score >= 80 %); the interval's low end is 65 %
    j = power.judge(40, 0.65, 0.90, 0.5, 0.0002)
    assert (j.kind, j.word) == ("higher", "clearly")
    assert power.judge(100, 0.41, 0.60, 0.5, 0.6).kind == "too few"  # no difference shown, none ruled out
    assert power.judge(400, 0.45, 0.55, 0.5, 0.9).kind == "none"


def test_morris_on_two_trajectories_does_not_rank() -> None:
    import pandas as pd

    from analysis.sensitivity import Indices, Output, sentence

    out = Output("y", "y", pd.Series([0.0, 1.0, 2.0, 0.5, 1.5, 2.5]))
    table = pd.DataFrame({"key": ["a", "b"], "label": ["a", "b"], "mu": [1.5, 0.0], "mu_star": [1.5, 0.0],
                          "mu_star_conf": [0.0, 0.0], "sigma": [0.0, 0.0]})
    text = sentence(Indices(out, "morris", table=table, used=2))
    assert "not ranked" in text and "at least 10" in text and "clearly ahead" not in text


def test_morris_with_trajectories_left_out_says_why_not_to_run_ten() -> None:
    # 10 trajectories planned, 5 complete (an output undefined at some points, as the Sun's
    # clean-pass chance through 60-100 mm gaps in the 900-game screening): advising
    # "--trajectories 10" would repeat the study; the sentence must name the dropped ones instead
    import pandas as pd

    from analysis.sensitivity import Indices, Output, sentence

    out = Output("y", "y", pd.Series([0.0, 1.0, 2.0, 0.5, 1.5, 2.5]))
    table = pd.DataFrame({"key": ["a", "b"], "label": ["a", "b"], "mu": [1.5, 0.0], "mu_star": [1.5, 0.0],
                          "mu_star_conf": [0.0, 0.0], "sigma": [0.0, 0.0]})
    text = sentence(Indices(out, "morris", table=table, used=5, planned=10))
    assert "not ranked" in text and "only 5 of the study's 10 have a value at every point" in text
    assert "--trajectories 10" not in text and "clearly ahead" not in text
    # with nothing left out the old advice stands
    assert "--trajectories 10 or more" in sentence(Indices(out, "morris", table=table, used=2, planned=2))
