"""Issue 29, the rest: every output reads the catalogue (sensitivity outputs, tune's measurements,
the tournament's fit), copies of one game count once (also under common random numbers in a game
with chance), and prose printed to a pipe is whole at 80 columns.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis import catalogue as C
from analysis.load import load_run
from analysis.stats import wilson
from analysis.synthetic import result, write_store

ROOT = Path(__file__).resolve().parents[2]


def _crn_store(tmp: Path) -> Path:
    """A rocks sweep (rules with chance) of two points on the same seeds (common random numbers):
    games 0 and 1 play the same game at both points (equal records, one random stream each),
    game 2 differs between the points; games 0 and 1 hold equal records of two streams."""
    from sim.games import get_game

    spec = get_game("rocks").spec
    res = []
    for pt, x in ((0, 1), (1, 2)):
        sweep = {"rules.x": x}
        res += [result(0, [0], point=pt, sweep=sweep, length=30), result(1, [0], point=pt, sweep=sweep, length=30),
                result(2, [1] if pt == 0 else [0], point=pt, sweep=sweep, length=31 + pt)]
    return write_store(tmp, spec, res, points=[(0, {"rules.x": 1}), (1, {"rules.x": 2})],
                       scenario={"name": "crn", "game": "rocks", "sweep": {"rules.x": [1, 2]}})


def test_copies_under_common_random_numbers_count_once_in_a_game_with_chance(tmp_path: Path) -> None:
    from analysis.compare import compare_runs
    from analysis.summary import summarize
    from sim.core.store import Store

    run = load_run(_crn_store(tmp_path / "crn"))
    assert C.has_chance(run)
    # 6 games: games 0 and 1 of point 1 copy point 0's (same record, same stream); equal records of
    # two streams (games 0 and 1) are two draws that agree
    assert C.distinct_records(run) == (6, 4)
    assert C.repeat_note(run).startswith("6 games, 4 distinct")
    e = C.estimates(run)["sole_win_rate[seat 0]"]
    # pooled over the points: 3 of the 4 distinct games, not 5 of 6
    assert (e.value, e.games, e.distinct) == (0.75, 6, 4)
    assert (e.lo, e.hi) == pytest.approx(wilson(3, 4))
    assert e.sample_words() == "6 games, 4 distinct"
    # each point alone holds no copy
    assert C.distinct_records(C.point_run(run, 0)) == (3, 3)
    # the summary says the distinct count and pools distinct games
    with Store.open(run.run_dir) as st:
        s = summarize(st)
    assert s["distinct_games"] == 4
    comp = compare_runs(run.run_dir, run.run_dir).rows.set_index("name")
    assert (comp.loc["sole_win_rate[seat 0]", "n_a"], comp.loc["sole_win_rate[seat 0]", "a"]) == (4, 0.75)


def test_mirrored_points_with_rotated_seats_replay_one_game(tmp_path: Path) -> None:
    """A sweep of two players' settings on common random numbers, the seats rotated (game i plays
    rotation i mod 2 on the streams of block i div 2): game 1 of point (a, b) sits player 1 first,
    as game 0 of point (b, a) sits player 0 first with the same settings, on the same streams.
    Equal records there are one game; game 0 of both points (the same streams, the other seating)
    with equal records is one too, and block 1 (games 2, 3) draws other streams."""
    from sim.games import get_game

    spec = get_game("rocks").spec
    res = []
    for pt in (0, 1):
        res += [result(0, [0], point=pt, players=[0, 1], length=30 + pt),  # differ: two games
                result(1, [1], point=pt, players=[1, 0], length=40 if pt == 0 else 50),
                result(2, [0], point=pt, players=[0, 1], length=60),  # block 1: equal records, one stream
                result(3, [1], point=pt, players=[1, 0], length=70 if pt == 0 else 71)]
    # point 0's game 1 and point 1's game 0 would need equal records: make them so
    res[1] = result(1, [0], point=0, players=[1, 0], length=31)
    run = load_run(write_store(tmp_path / "m", spec, res, points=[(0, {"rules.x": 1}), (1, {"rules.x": 2})],
                               scenario={"name": "m", "game": "rocks"}))
    keys = C.stream_keys(run)
    assert keys.tolist() == ["1:0", "1:0", "1:1", "1:1"] * 2
    # copies: p0 g1 = p1 g0 (length 31, winner 0, block 0); p0 g2 = p1 g2 (block 1); p1 g0 and p0 g0 differ
    assert C.distinct_records(run) == (8, 6)
    # the same records on other streams are two draws: a study seated once (no rotation) keeps both
    one = [result(i, [0], players=[0, 1], length=30) for i in range(4)]
    run1 = load_run(write_store(tmp_path / "o", spec, one, scenario={"name": "o", "game": "rocks"}))
    assert C.stream_keys(run1).tolist() == ["1:0", "1:1", "1:2", "1:3"] and C.distinct_records(run1) == (4, 4)


def test_a_mean_over_copies_has_the_interval_of_the_distinct_games(tmp_path: Path) -> None:
    """Copies add no information: the interval of 12 games holding 4 distinct ones, each 3 times,
    is the interval of those 4 games."""
    from sim.games import get_game

    spec = get_game("druids").spec
    lengths = [20, 24, 31, 27]
    res = [result(i, [i % 4 % 2], length=lengths[i % 4]) for i in range(12)]
    run = load_run(write_store(tmp_path / "d", spec, res, scenario={"name": "d", "game": "druids"}))
    e = C.estimates(run)["mean_length"]
    from scipy.stats import t

    sd = float(np.std(lengths, ddof=1))
    assert e.value == pytest.approx(np.mean(lengths)) and e.distinct == 4
    assert e.hi - e.value == pytest.approx(t.ppf(0.975, 3) * sd / 2)


def test_sensitivity_outputs_are_catalogue_metrics(tmp_path: Path) -> None:
    """Every output of analysis.sensitivity.point_outputs is a catalogue metric: per point, the
    catalogue's value on that point's games; its noise the catalogue's standard error."""
    from analysis.sensitivity import point_outputs
    from analysis.synthetic import synthetic_store

    run = load_run(synthetic_store(tmp_path / "s", "sun", 30, sweep={"rules.x": [1, 2, 3]}, seed=4))
    outs = point_outputs(run)
    flagged = [m for m in C.catalogue(run) if m.sensitivity]
    assert [o.name for o in outs] == [m.name for m in flagged] and {"draw_share", "first_player_edge"} <= \
        {o.name for o in outs}
    for o, m in zip(outs, flagged):
        assert o.label == m.words
        ses = []
        for p in o.mean.index:
            e = C.estimate(m, C.point_run(run, p))
            assert o.mean[p] == pytest.approx(e.value, abs=1e-12, nan_ok=True), (m.name, p)
            if e.se == e.se:
                ses.append(e.se ** 2 * e.distinct)
        if ses:
            # the pooled per-game variance: every point has the same number of games here
            assert o.var == pytest.approx(float(np.mean(ses)), rel=1e-9), m.name


def test_tune_reads_every_metric_from_the_catalogue(tmp_path: Path) -> None:
    """beats[a|b], score[player], skill_index and the generic targets are the catalogue's
    estimates (value and interval); beats by hand from the games."""
    from analysis.tune import measure_run
    from sim.games import get_game

    spec = get_game("druids").spec
    rot = [["greedy", "random"], ["greedy", "random"]]  # fixed seats: greedy declared stronger (agent tier)
    wins = [[0], [1], [0], [0], [1], [], [0], [1], [1], [0], [0], [0]]
    res = [result(i, w, labels=rot[i % 2], length=30 + i) for i, w in enumerate(wins)]
    scen = {"name": "t", "game": "druids", "seats": [{"agent": "greedy"}, {"agent": "random"}]}
    run = load_run(write_store(tmp_path / "t", spec, res, scenario=scen))
    meas = measure_run(run)
    every = C.estimates(run, every=True)
    for name, m in meas.items():
        if name == "skill_index":  # the index is 2 s - 1 of stronger_score (below)
            continue
        e = every[name]
        assert m.mean == pytest.approx(e.value) and (m.n, m.games) == (e.distinct, e.games), name
        if e.lo == e.lo:
            assert (m.lo, m.hi) == pytest.approx((e.lo, e.hi)), name
    # greedy's score against random, by hand: a win 1, a draw half
    score = 0.0
    for labs, w in zip((rot[i % 2] for i in range(12)), wins):
        g = labs.index("greedy")
        score += 0.5 if not w else float(w == [g])
    assert meas["beats[greedy|random]"].mean == pytest.approx(score / 12)
    assert meas["beats[random|greedy]"].mean == pytest.approx(1 - score / 12)
    assert 0.0 <= meas["beats[greedy|random]"].lo <= meas["beats[greedy|random]"].hi <= 1.0
    # greedy is declared stronger than random: the skill index is 2 s - 1 of that score
    assert meas["skill_index"].mean == pytest.approx(2 * score / 12 - 1)
    from analysis.skill import skill_index

    si = skill_index(run)
    ss = every["stronger_score"]
    assert ss.value == pytest.approx(score / 12) and 0.0 <= ss.lo <= ss.hi <= 1.0
    assert si is not None and (si.p, si.p_lo, si.p_hi) == pytest.approx((2 * ss.value - 1, 2 * ss.lo - 1,
                                                                         2 * ss.hi - 1))
    assert (meas["skill_index"].lo, meas["skill_index"].hi) == pytest.approx((2 * ss.lo - 1, 2 * ss.hi - 1))
    # beats[] is measured on request only: the tables do not list it
    assert not any(n.startswith("beats[") for n in C.estimates(run))


def test_the_tournament_fit_counts_copies_once(tmp_path: Path) -> None:
    """Ratings and intervals of a run whose games repeat are the fit of its distinct games."""
    from analysis.bradley_terry import fit_bradley_terry, pairwise
    from analysis.tournament import run_ratings
    from sim.games import get_game

    spec = get_game("druids").spec
    rot = [["greedy", "random"], ["random", "greedy"]]
    distinct = [result(i, [0] if i % 3 else [1], labels=rot[i % 2], length=30 + i) for i in range(6)]
    copies = [result(6 + k, [0] if i % 3 else [1], labels=rot[i % 2], length=30 + i)
              for k, i in enumerate([0, 0, 0, 1, 2, 2, 4])]
    run = load_run(write_store(tmp_path / "c", spec, distinct + copies, scenario={"name": "c", "game": "druids"}))
    assert C.distinct_records(run) == (13, 6)
    _, fit = run_ratings(run)
    alone = fit_bradley_terry(pairwise(load_run(write_store(tmp_path / "d", spec, distinct,
                                                            scenario={"name": "d", "game": "druids"})).games))
    assert np.allclose(fit.strength, alone.strength) and np.allclose(fit.se, alone.se)
    everything = fit_bradley_terry(pairwise(run.games))
    assert not np.allclose(everything.se, fit.se)  # counting the copies would narrow the intervals


def test_the_rating_spread_is_a_catalogue_fit_on_the_distinct_games(tmp_path: Path) -> None:
    """skill_spread_elo: one definition (the catalogue's fit, a bootstrap interval over games) that
    tune, the skill section and compare read; copies of one game count once; one distinct game
    gives no interval."""
    from analysis.compare import compare_runs
    from analysis.skill import skill_index
    from analysis.tune import measure_run
    from sim.games import get_game

    spec = get_game("druids").spec
    scen = {"name": "c", "game": "druids", "seats": [{"agent": "greedy"}, {"agent": "random"}]}
    rot = [["greedy", "random"], ["random", "greedy"]]
    wins = [[0], [1], [1], [0], [0], [1], [0], [0], [1], [0]]
    ent = [[0, 1], [1, 0]]  # the [[seats]] entry in each seat (rotated)
    distinct = [result(i, w, labels=rot[i % 2], players=ent[i % 2], length=30 + i) for i, w in enumerate(wins)]
    copies = [result(10 + k, wins[i], labels=rot[i % 2], players=ent[i % 2], length=30 + i)
              for k, i in enumerate([0, 0, 3, 5, 5, 5])]
    run = load_run(write_store(tmp_path / "c", spec, distinct + copies, scenario=scen))
    alone = load_run(write_store(tmp_path / "d", spec, distinct, scenario=scen))
    assert C.distinct_records(run) == (16, 10)
    e, f = C.estimates(run)["skill_spread_elo"], C.estimates(alone)["skill_spread_elo"]
    assert e.metric.scheme == "fit" and (e.games, e.distinct) == (16, 10)
    assert (e.value, e.lo, e.hi) == pytest.approx((f.value, f.lo, f.hi))
    # two players: the fit is exact, b = ln(w / l), and the spread is half the gap in Elo
    greedy = sum(1.0 for w, labs in zip(wins, (rot[i % 2] for i in range(10))) if labs[w[0]] == "greedy")
    want = abs(np.log(greedy / (10 - greedy))) / 2 * 400 / np.log(10)
    assert e.value == pytest.approx(want, abs=1e-6)
    assert e.lo <= e.value <= e.hi and e.se > 0
    # tune's target and the skill section read that estimate
    m = measure_run(run)["skill_spread_elo"]
    assert (m.mean, m.lo, m.hi, m.n) == pytest.approx((e.value, e.lo, e.hi, 10))
    si = skill_index(run)
    assert si is not None and (si.spread_elo, si.spread_lo, si.spread_hi) == pytest.approx((e.value, e.lo, e.hi))
    # compare: B - A with a bootstrap interval of the difference
    row = compare_runs(alone.run_dir, run.run_dir).rows.set_index("name").loc["skill_spread_elo"]
    assert row["diff"] == pytest.approx(0.0, abs=1e-9) and row["test"] == "z (bootstrap)"
    assert row["diff_lo"] <= 0.0 <= row["diff_hi"]
    # one game played 5 times: a value, no interval
    one = load_run(write_store(tmp_path / "o", spec, [result(i, [0], labels=rot[0], length=30) for i in range(5)],
                               scenario=scen))
    g = C.estimates(one)["skill_spread_elo"]
    assert g.distinct == 1 and g.lo != g.lo and "no interval: 1 distinct game" in g.text()


def _piped(args: list[str]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    out = subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_prose_is_wrapped_at_80_columns_on_a_pipe_and_no_word_is_cut(tmp_path: Path) -> None:
    """Notes, legends and findings of ``compare`` and the run summary wrap at 80 columns when
    stdout is a pipe and COLUMNS is unset; every word of them is still printed whole."""
    from analysis.compare import compare_runs, summary_line
    from sim.core.console import wrap_prose

    run_dir = _crn_store(tmp_path / "crn")
    lines = _piped(["compare", str(run_dir), str(run_dir)])
    long_ = [ln for ln in lines if len(ln) > 80]
    # only a path or a command to copy may be longer (one line, never folded)
    assert all(ln.startswith(("A: ", "B: ", "html: ", "run ")) or str(run_dir) in ln for ln in long_), long_
    text = " ".join(ln.strip() for ln in lines)
    comp = compare_runs(run_dir, run_dir)
    for note in comp.notes:
        assert " ".join(f"note: {note}".split()) in " ".join(text.split()), note
    assert " ".join(summary_line(comp).split()) in " ".join(text.split())
    # the wrapper: a word longer than the width stands whole on its own line
    path = "/a/very/long/path/" + "x" * 90 + "/results.sqlite"
    got = wrap_prose(f"results in {path} and more words after it", 80, indent="  ")
    assert path in [ln.strip() for ln in got] and all(len(ln) <= 80 for ln in got if path not in ln)


def test_the_run_summary_wraps_its_prose_at_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    from sim.cli_tables import print_summary as print_run_summary

    s = {"scenario": "a-name", "game": "rocks", "games": 48, "distinct_games": 36, "seed": 3,
         "seats": [{"seat": 0, "label": "x", "wins": 1, "win_rate": 0.5, "ci95": [0.1, 0.9], "shared_wins": 0,
                    "score": 0.5, "score_ci95": [0.1, 0.9]}],
         "metrics": [{"metric": "m", "words": "a metric whose words are long enough to go past the eightieth column "
                      "of a terminal", "value": 0.5, "ci95": [0.25, 0.75], "share": False}],
         "draws": 0, "shared_wins": 0, "mean_length": 10.0, "played": 48, "resumed_skipped": 0, "wall_s": 1.0,
         "out": "/tmp/x"}
    os.environ.pop("COLUMNS", None)
    print_run_summary(s)
    out = capsys.readouterr().out.splitlines()
    assert all(len(ln) <= 80 for ln in out if not ln.startswith("results:")), out
    assert any("36 distinct" in ln for ln in out)
    assert "0.50 [0.25, 0.75]" in " ".join(out)


def test_a_sun_study_without_noise_counts_its_replayed_games_once(tmp_path: Path) -> None:
    """The Sun's records hold the noise drawn in every pass: equal records are one game whatever
    the streams (perfect hands replay one game per seating); a dice game's are not."""
    from sim.games import get_game

    spec = get_game("sun").spec
    cols = [c.name for c in spec.detail_tables["passes"]]
    row = {c: 0 for c in cols}
    row.update({"seat": 0, "turn": 0, "penalties": 1, "causes": "1:slab:toppled", "area_width_mm": 80.0})
    res = [result(i, [i % 2], length=40 + i % 2, rows={"passes": [dict(row, seat=i % 2)], "placements": [],
                                                     "frames": []}) for i in range(12)]
    run = load_run(write_store(tmp_path / "s", spec, res, scenario={"name": "s", "game": "sun"}))
    assert C.distinct_records(run) == (12, 2)
    assert C.repeat_note(run).startswith("12 games, 2 distinct")
    e = C.estimates(run)["sole_win_rate[seat 0]"]
    assert (e.value, e.distinct) == (0.5, 2)


def test_the_report_names_its_scenario_file_when_only_the_run_keys_differ(tmp_path: Path) -> None:
    """``--out`` stored in the scenario is not a change of the file; ``--games`` is named."""
    import json as _json

    from analysis.report import scenario_text
    from sim.games import get_game

    src = tmp_path / "s.toml"
    src.write_text('# a comment\nname = "s"\ngame = "druids"\ngames = 10\n', encoding="utf-8")
    spec = get_game("druids").spec
    for scen, want in (({"name": "s", "game": "druids", "games": 10, "out": "/x"}, "# a comment"),
                       ({"name": "s", "game": "druids", "games": 3, "out": "/x"}, "games = 3")):
        d = write_store(tmp_path / _json.dumps(scen["games"]), spec, [result(0, [0])], scenario=scen)
        import sqlite3

        con = sqlite3.connect(d / "results.sqlite")
        con.execute("UPDATE meta SET value = ? WHERE key = 'source'", (str(src),))
        if not con.execute("SELECT 1 FROM meta WHERE key = 'source'").fetchone():
            con.execute("INSERT INTO meta (key, value) VALUES ('source', ?)", (str(src),))
        con.commit()
        con.close()
        text, where = scenario_text(load_run(d))
        assert want in text
        if scen["games"] == 10:
            assert where == str(src)
        else:
            assert "games differ from the file now" in where and "changed since)" not in where


def test_the_skill_index_stays_inside_its_range_when_every_comparison_goes_one_way(tmp_path: Path) -> None:
    """Issue 29: "1.00 [1.00, 1.00]" (no spread between games) and "0.82 [0.55, 1.09]" (past 1)
    from a ratio interval; the stronger players' score is a share, Wilson on its effective sample."""
    from analysis.skill import skill_index
    from sim.games import get_game

    spec = get_game("druids").spec
    scen = {"name": "t", "game": "druids", "seats": [{"agent": "greedy"}, {"agent": "random"}]}
    res = [result(i, [0], labels=["greedy", "random"], length=30 + i) for i in range(12)]
    run = load_run(write_store(tmp_path / "a", spec, res, scenario=scen))
    ss = C.estimates(run)["stronger_score"]
    assert ss.value == 1.0 and (ss.lo, ss.hi) == pytest.approx(wilson(12, 12))
    si = skill_index(run)
    assert si is not None and si.p == 1.0 and -1.0 <= si.p_lo < 1.0 and si.p_hi <= 1.0
    mixed = [result(i, [0] if i % 5 else [1], labels=["greedy", "random"], length=30 + i) for i in range(12)]
    si2 = skill_index(load_run(write_store(tmp_path / "b", spec, mixed, scenario=scen)))
    assert si2 is not None and -1.0 <= si2.p_lo <= si2.p <= si2.p_hi <= 1.0


def test_the_rules_rows_of_compare_fit_80_columns_and_cut_no_number() -> None:
    from sim.sun.report.compare import rules_lines

    cells = [("stands", "19.33 [18.38, 20.28]", "17.42 [16.22, 18.61]"),
             ("failed placements: no legal marker move", "2.08 [1.05, 3.11]", "1.83 [0.94, 2.73]"),
             ("ending: field_empty", "100 % [76, 100] (12 of 12)", "92 % [65, 99] (11 of 12)")]
    lines = rules_lines(cells, 80)
    assert all(len(ln) <= 80 for ln in lines)
    for ev, a, b in cells:
        assert any(ln.strip() == ev or ln.startswith(ev) for ln in lines)
        assert any(a in ln and b in ln for ln in lines)


def test_the_tournament_score_is_the_catalogue_share_of_comparisons_won(tmp_path: Path) -> None:
    """An entrant's score in the tournament's table and JSON is the catalogue's ``pair_score``:
    comparisons won (ties half) over the distinct games, counted here by hand."""
    from analysis.tournament import summary as tournament_summary
    from sim.games import get_game

    spec = get_game("druids").spec
    rot = [["greedy", "random"], ["random", "greedy"]]
    winners = [[0], [1], [0], [], [0], [0]]
    distinct = [result(i, w, labels=rot[i % 2], length=30 + i) for i, w in enumerate(winners)]
    copies = [result(6 + k, winners[i], labels=rot[i % 2], length=30 + i) for k, i in enumerate([0, 0, 3])]
    out = write_store(tmp_path / "t", spec, distinct + copies, scenario={"name": "t", "game": "druids"})
    run = load_run(out)
    assert C.distinct_records(run) == (9, 6)
    # by hand on the 6 distinct games: greedy sits in seat 0 of the even games, seat 1 of the odd ones
    greedy = 0.0
    for i, w in enumerate(winners):
        mine = i % 2
        greedy += 0.5 if not w else 1.0 if w == [mine] else 0.0
    scores = {r["entrant"]: r["score"] for r in tournament_summary(out)["ratings"]}
    assert scores["greedy"] == pytest.approx(greedy / 6)
    assert scores["random"] == pytest.approx(1 - greedy / 6)
    e = C.entrant_scores(run)["greedy"]
    assert e.value == pytest.approx(greedy / 6) and e.distinct == 6 and 0.0 <= e.lo <= e.value <= e.hi <= 1.0
    assert "pair_score[greedy]" in {m.name for m in C.catalogue(run, every=True)}
    assert "pair_score[greedy]" not in {m.name for m in C.catalogue(run)}


def test_a_mean_with_no_spread_says_so_instead_of_a_zero_width_interval(tmp_path: Path) -> None:
    """Every distinct game gave the same value (all drawn: a first-player edge of 0): no interval,
    and every output says "no spread in N distinct games", not ``0 [0, 0]``."""
    from analysis.tune import measure_run, target_rows
    from sim.core.tune import Target, TrialResult, Tune
    from sim.games import get_game

    spec = get_game("druids").spec
    res = [result(i, [], labels=["greedy", "random"], length=30 + i) for i in range(5)]
    run = load_run(write_store(tmp_path / "d", spec, res, scenario={"name": "d", "game": "druids"}))
    e = C.estimates(run)["first_player_edge"]
    assert (e.value, e.distinct, e.se) == (0.0, 5, 0.0) and e.lo != e.lo and e.no_spread
    assert e.text() == "0.00 (no spread in 5 distinct games)"
    length = C.estimates(run)["mean_length"]  # the games differ in length: an interval
    assert length.lo < length.value < length.hi
    # a ratio over passes that never varies between games: no interval either
    r, lo, hi, se = C.ratio_interval([2.0, 4.0, 6.0], [1.0, 2.0, 3.0], share=False)
    assert (r, se) == (2.0, 0.0) and lo != lo and hi != hi
    meas = measure_run(run)
    tune = Tune(params=(), targets=(Target("first_player_edge", "value", 0.0, 0.0),))
    t = TrialResult(number=0, state="complete", values={"rules.x": 0.5}, objectives=[0.0], objective_se=[0.0],
                    games=5, metrics={k: v.as_list() for k, v in meas.items()})
    (tr,) = target_rows(tune, t)
    assert tr["lo"] != tr["lo"] and tr["verdict"] == "met (no spread in 5 distinct games: no interval)"
    # the search's page agrees: the target is counted met, the trial's distinct games are named,
    # and no "n/a to n/a" stands for the missing interval
    import html as html_

    from analysis.tune import summary, write_report
    from sim.core.tune import SearchInfo

    copies = {k: [v[0], v[1], 2, *v[3:]] for k, v in t.metrics.items()}  # as if 2 distinct of 5
    t2 = TrialResult(number=1, state="complete", values={"rules.x": 0.7}, objectives=[0.0], objective_se=[0.0],
                     games=5, metrics=copies)
    info = SearchInfo(out=tmp_path / "tune", trials=[t, t2], best=[t], played=10, wall_s=1.0,
                      directions=["minimize"], objective_names=["distance"])
    s_ = summary(info, tune, "d", None)
    page = html_.unescape(write_report(info, tune, s_, "", tmp_path / "tune").read_text(encoding="utf-8"))
    assert "1 of 1 targets met on 5 games." in page and "n/a to n/a" not in page
    assert "none (see the verdict)" in page
    import re

    trials = page[page.index("All trials"):]
    trials = trials[:trials.index("</table>")]
    heads = re.findall(r"<th>(.*?)</th>", trials)
    rows = [re.findall(r"<td>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", trials, flags=re.S)]
    rows = [dict(zip(heads, r)) for r in rows if r]
    assert [(r["trial"], r["games"], r["distinct"]) for r in rows] == [("0", "5", "5"), ("1", "5", "2")]
    assert s_["best"][0]["distinct_games"] == 5


def test_tune_names_what_each_target_rests_on() -> None:
    """A Sun tune printed "penalties[casual]: 3.667 [3.026, 4.307] (48 distinct of 72 games)": the
    48 games casual played, none of them a copy. A player's metric reads its own games; copies are
    named only where there are copies; a searched parameter is the design's value, no interval."""
    import contextlib
    import io

    from analysis.tune import _est, print_summary, sample_words

    assert sample_words({"metric": "penalties[casual]", "n": 48, "games": 48}, 72) == " (48 of 72 games)"
    assert sample_words({"metric": "draw_share", "n": 60, "games": 72}, 72) == " (60 distinct of 72 games)"
    assert sample_words({"metric": "draw_share", "n": 72, "games": 72}, 72) == ""
    assert sample_words({"metric": "penalties[casual]", "n": 40, "games": 48}, 72) == " (40 distinct of 48 games)"
    assert sample_words({"metric": "param[table.pass_clearance]", "n": 1, "games": 0}, 72) == \
        " (the design's own value)"
    # a search stored before the games were kept (five numbers): the design's games
    old = _est({"draw_share": [0.5, 0.1, 50, 0.3, 0.7]}, "draw_share")
    assert old is not None and old.games == 0
    assert sample_words({"metric": "draw_share", "n": 50, "games": old.games}, 60) == " (on 50 distinct games)"
    s = {"scenario": "s", "trials": {"complete": 1, "pruned": 0, "infeasible": 0, "asked": 1}, "games_per_trial": 72,
         "recheck_games": 72, "played": 72, "wall_s": 1.0, "objectives": [{"name": "distance"}],
         "best": [{"trial": 5, "values": {"table.pass_clearance": 0.002}, "objectives": [0.1], "objective_se": [0.05],
                   "games": 72, "distinct_games": 72, "targets": [
                       {"metric": "penalties[casual]", "target": "between 2 and 4", "estimate": 3.667, "lo": 3.026,
                        "hi": 4.307, "n": 48, "games": 48, "verdict": "met"},
                       {"metric": "param[table.pass_clearance]", "target": "at most 0", "estimate": 0.002,
                        "lo": 0.002, "hi": 0.002, "n": 1, "games": 0, "verdict": "missed"}]}]}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_summary(s)
    text = " ".join(buf.getvalue().split())
    assert "penalties[casual]: 3.667 [3.026, 4.307] (48 of 72 games), target between 2 and 4: met" in text
    assert "param[table.pass_clearance]: 0.002 (the design's own value), target at most 0: missed" in text
    assert "distinct" not in text


def test_the_width_curve_of_compare_holds_the_empty_ring_passes(tmp_path: Path) -> None:
    """Passes over an empty ring (no finite width, but an area's middle) are the width curve's
    last bin; every pass with an area is in one bin; the intervals are clustered by game."""
    from sim.sun.report.compare import difficulty_side_by_side
    from sim.games import get_game

    spec = get_game("sun").spec
    cols = [c.name for c in spec.detail_tables["passes"]]
    rng = np.random.default_rng(3)

    def passes(g: int) -> list[dict[str, object]]:
        rows = []
        for t in range(10):
            row = {c: 0 for c in cols}
            empty = t >= 8
            row.update({"seat": t % 2, "turn": t, "penalties": int(rng.random() < 0.2),
                        "area_width_mm": None if empty else float(40 + 10 * t + g), "area_mid_deg": 30.0,
                        "noise_aim_deg": float(rng.normal())})
            rows.append(row)
        return rows

    res = [result(g, [g % 2], length=40 + g, rows={"passes": passes(g), "placements": [], "frames": []})
           for g in range(6)]
    run = load_run(write_store(tmp_path / "s", spec, res, scenario={"name": "s", "game": "sun"}))
    curve = difficulty_side_by_side(run, run)
    width = curve[(curve["by"] == "area width") & (curve["run"] == "A")]
    assert width["passes"].sum() == 60 and list(width["bin"])[-1] == "empty ring"
    assert int(width.set_index("bin").loc["empty ring", "passes"]) == 12
    p = run.detail("passes")
    assert width["clean"].sum() == int((p["penalties"] == 0).sum())
    assert ((width["lo"] <= width["rate"]) & (width["rate"] <= width["hi"])).all()


def test_a_sweep_summary_gives_the_stronger_players_score_per_point(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The player effect per sweep point (does the rule change how much skill matters?): each
    point's catalogue stronger_score, in the summary's JSON and the terminal table at 80 columns."""
    from analysis.summary import summarize
    from sim import cli_tables as T
    from sim.core.store import Store
    from sim.games import get_game

    spec = get_game("sun").spec
    seats = [{"agent": "careful", "skill": "expert"}, {"agent": "careful", "skill": "child"}]
    labels = ["careful(skill=expert)", "careful(skill=child)"]
    res = []
    for pt, x in ((0, 1), (1, 2)):
        # point 0: the expert wins 3 of 4; point 1: 4 of 4
        res += [result(i, [0] if (pt == 1 or i < 3) else [1], point=pt, sweep={"rules.x": x}, labels=labels,
                       length=40 + i + 10 * pt) for i in range(4)]
    out = write_store(tmp_path, spec, res, points=[(0, {"rules.x": 1}), (1, {"rules.x": 2})],
                      scenario={"name": "sk", "game": "sun", "seats": seats, "seat_order": "fixed",
                                "sweep": {"rules.x": [1, 2]}})
    with Store.open(out) as st:
        s = summarize(st)
    got = [p["stronger"]["value"] for p in s["points"]]
    assert got == [pytest.approx(0.75), pytest.approx(1.0)]
    run = load_run(out)
    for p in s["points"]:
        e = C.estimates(C.point_run(run, p["point"]), ["stronger_score"])["stronger_score"]
        assert p["stronger"]["ci95"] == [pytest.approx(e.lo), pytest.approx(e.hi)]
    s.update(played=8, resumed_skipped=0, wall_s=1.0)
    T.print_summary(s)
    lines = capsys.readouterr().out.splitlines()
    head = next(ln for ln in lines if ln.startswith("point"))
    assert "stronger" in head and max(len(ln) for ln in lines if not ln.startswith(("results:", "replay"))) <= 80
    rows = [ln for ln in lines if ln.lstrip().startswith(("0 ", "1 "))]
    assert rows[0].endswith("75 % [" + rows[0].rsplit("[", 1)[1]) and "100 % [" in rows[1]


def test_the_first_player_edge_interval_stays_in_its_range(tmp_path: Path) -> None:
    """With 3 seats the edge of a game is 1, 0 or -1/2: its interval stays in [-0.5, 1] (a t
    interval of 5 games gave [-0.92, 1.12])."""
    from sim.games import get_game

    spec = get_game("rocks").spec
    res = [result(i, w, n_seats=3, labels=["random", "greedy", "random"], length=30 + i)
           for i, w in enumerate([[0], [1], [0], [2], [0]])]
    e = C.estimates(load_run(write_store(tmp_path, spec, res, scenario={"name": "e", "game": "rocks"})))["first_player_edge"]
    assert e.value == pytest.approx((3 * 1 - 0.5 - 0.5) / 5)
    assert -0.5 <= e.lo < e.value < e.hi <= 1.0


def test_compare_names_the_games_each_folder_holds_not_its_scenarios_request(tmp_path: Path) -> None:
    """Issue 29, item 9: compare of a played game's folder (one game; its scenario asks for 20)
    against a study of the same scenario asking for 200 said "games: 20 -> 200"."""
    from analysis.compare import scenario_changes
    from sim.games import get_game

    spec = get_game("druids").spec
    one = [result(0, [0], labels=["greedy", "random"], length=30)]
    a = load_run(write_store(tmp_path / "a", spec, one, scenario={"name": "s", "game": "druids", "games": 20},
                             games=20))
    b = load_run(write_store(tmp_path / "b", spec, one, scenario={"name": "s", "game": "druids", "games": 200},
                             games=200))
    assert not any(c.startswith("games") for c in scenario_changes(a, b))
    three = [result(i, [0], labels=["greedy", "random"], length=30 + i) for i in range(3)]
    c = load_run(write_store(tmp_path / "c", spec, three, scenario={"name": "s", "game": "druids", "games": 200}))
    assert "games: 1 -> 3" in scenario_changes(a, c)
