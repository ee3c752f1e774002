"""The report: files written, findings worded from the numbers, atomic replacement, game sections."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analysis.stats import wilson

import analysis.report as R
from analysis.load import load_run
from analysis.synthetic import result, toy_spec, write_store


def _toy(tmp: Path, n: int = 20, seat0_wins: int = 15) -> Path:
    res = [result(i, [0] if i < seat0_wins else [1], length=10 + i % 3, leads=[[1, 1], [5, 0]] if i % 2 else [[2, 0]])
           for i in range(n)]
    return write_store(tmp, toy_spec(), res, scenario={"name": "toy-study", "game": "toy", "seed": 7, "games": n})


def test_report_files_and_findings(tmp_path: Path) -> None:
    run = _toy(tmp_path)
    page_path = R.build_report(run)
    assert page_path == run / "report" / "report.html"
    page = page_path.read_text()
    for stem in ("win_rate_by_seat", "length", "scores", "drama"):
        assert (run / "report" / f"{stem}.png").stat().st_size > 1000
        assert (run / "report" / f"{stem}.svg").read_text().lstrip().startswith("<?xml")
    assert page.count("data:image/png;base64,") >= 4
    # seat 0 won 15 of 20 decisive games: 75 %, Wilson [53, 89]; binomial p = 0.041
    assert ("Seat effect: seat 0 (the first seat) won 75 % [53, 89] of the 20 decisive games against an equal share "
            "of 50 % (p = 0.041, exact binomial test): a slight first-player advantage") in page
    assert "toy-study" in page and "root seed" in page and "games stored" in page
    assert 'seed = 7' in page  # the scenario, rendered as TOML
    # no temporary folders left behind
    assert [p.name for p in run.iterdir() if p.name.startswith(".report")] == []


def test_report_of_empty_store(tmp_path: Path) -> None:
    write_store(tmp_path, toy_spec(), [])
    page = R.build_report(tmp_path).read_text()
    assert "No finished games" in page


def test_failed_build_keeps_previous_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _toy(tmp_path)
    first = R.build_report(run).read_text()

    def boom(*a: object, **k: object) -> str:
        raise RuntimeError("disk full")

    monkeypatch.setattr(R, "render", boom)
    with pytest.raises(RuntimeError):
        R.build_report(run)
    assert (run / "report" / "report.html").read_text() == first
    assert [p.name for p in run.iterdir() if p.name.startswith(".report")] == []


def test_short_labels() -> None:
    got = R.short_labels(["greedy(a=1, b=2)", "greedy(a=1, b=3)", "random", "mcts(iterations=9)"])
    assert got == {"greedy(a=1, b=2)": "greedy(b=2)", "greedy(a=1, b=3)": "greedy(b=3)", "random": "random",
                   "mcts(iterations=9)": "mcts"}


def test_sweep_section(tmp_path: Path) -> None:
    res = [result(i, [0] if i < 8 else [1], point=0, sweep={"rules.x": 1}) for i in range(10)]
    res += [result(i, [1], point=1, sweep={"rules.x": 3}) for i in range(10)]
    write_store(tmp_path, toy_spec(), res, points=[(0, {"rules.x": 1}), (1, {"rules.x": 3})],
                scenario={"name": "sw", "game": "toy", "sweep": {"rules.x": [1, 3]}})
    page = R.build_report(tmp_path).read_text()
    assert (tmp_path / "report" / "sweep_rules_x.png").exists()
    assert "Sweeping rules.x from 1 to 3: seat 0&#x27;s sole-win rate goes from 80 % [49, 94] to 0 % [0, 28]" in page
    assert "win rates differ beyond their intervals" in page


def _druids_store(tmp: Path) -> Path:
    from sim.games import get_game

    spec = get_game("druids").spec
    names = [c.name for c in spec.result_columns]
    res = []
    for i in range(2):
        cols = {n: 0 for n in names}
        cols.update({"games": 1, "lines2_0": 3, "lines4_1": 3, "early_0": 1, "full_0": 2, "full_1": 3})
        claims = [{"game": 0, "line": "A", "direction": 0, "length": 2, "seat": 0, "early": int(j == 0), "ply": 5}
                  for j in range(3)]
        claims += [{"game": 0, "line": "B", "direction": 1, "length": 4, "seat": 1, "early": 0, "ply": 9}
                   for _ in range(3)]
        res.append(result(i, [0], columns=cols, rows={"claims": claims, "matchgames": []}))
    return write_store(tmp, spec, res, scenario={"name": "d", "game": "druids"})


def test_druids_section_by_hand(tmp_path: Path) -> None:
    from sim.druids import report as druids

    sec = druids.section(load_run(_druids_store(tmp_path)))
    assert sec is not None
    text = " ".join(sec.findings)
    # seat 0 won all 3 lines of length 2, seat 1 half of the 6 lines of length 4, in both games
    assert "2 spaces: seat 0 100 %, seat 1 0 % (unclaimed 0 %)" in text
    assert "4 spaces: seat 0 0 %, seat 1 50 % (unclaimed 50 %)" in text
    # 2 early claims out of 12 (one per game, by seat 0: 1 of its 3 claims)
    assert re.search(r"17 % \[\d+, \d+\] of the 12 claims are early", text)
    assert "seat 0 33 %, seat 1 0 %" in text


def test_rocks_section_by_hand(tmp_path: Path) -> None:
    from sim.rocks import report as rocks
    from sim.games import get_game

    spec = get_game("rocks").spec
    res = []
    for i, (box0, guard) in enumerate([(6, 0), (12, 2)]):
        cols = {c.name: None for c in spec.result_columns}
        cols.update({"seat0_box_points": box0, "seat0_trilithon_points": 4, "seat0_tshirt_points": 10,
                     "seat0_guard_removals": guard, "seat1_box_points": 0, "seat1_trilithon_points": 2,
                     "seat1_tshirt_points": 8, "seat1_guard_removals": 1, "turns": 30})
        res.append(result(i, [0], columns=cols))
    run = load_run(write_store(tmp_path, spec, res, scenario={"name": "r", "game": "rocks"}))
    sec = rocks.section(run)
    assert sec is not None
    text = " ".join(sec.findings)
    # totals: box 18, trilithon 12, T-shirts 36 of 66 points
    assert "Points come from box seats 27 %, trilithon 18 %, T-shirts 55 %" in text
    assert "Points per game: seat 0 23 [" in text and "; seat 1 10 [" in text
    # guard: 1 and 3 fans per game -> mean 2, at least one in every game
    assert "sends back 2 fans per game on average; at least one in 100 %" in text
    name, _, series = rocks.headline(run)
    assert series.tolist() == [1.0, 3.0]


def test_sozoikum_section_by_hand(tmp_path: Path) -> None:
    from sim.sozoikum import report as sozoikum
    from sim.games import get_game

    spec = get_game("sozoikum").spec
    res = []
    for i, (hr, spent) in enumerate([(4, (6, 2)), (8, (10, 4)), (None, (0, 0))]):
        cols = {c.name: None for c in spec.result_columns}
        cols.update({"rounds": hr or 60, "house_round": hr, "gems_spent_0": spent[0], "gems_spent_1": spent[1]})
        builds = [{"round": 1, "seat": 0, "stones": "", "stood": 0, "max_displacement": 2.0},
                  {"round": 2, "seat": 1, "stones": "", "stood": 1, "max_displacement": 0.1}]
        seats = [{"seat": 0, "skill": 0.5}, {"seat": 1, "skill": 0.9}]
        res.append(result(i, [0] if hr else [], columns=cols, rows={"builds": builds, "seats": seats}))
    run = load_run(write_store(tmp_path, spec, res, scenario={"name": "s", "game": "sozoikum"}))
    text = " ".join(sozoikum.section(run).findings)
    assert "A house stood in 67 % [21, 94] of games" in text  # 2 of 3
    assert "round 6.0 on average" in text  # (4 + 8) / 2
    assert "seat 0 5.3 [" in text and "seat 1 2.0 [" in text  # (6 + 10 + 0) / 3, (2 + 4 + 0) / 3
    assert "The house builder spent 8.0 gems, the others 3.0" in text  # seat 0 won both: (6+10)/2, (2+4)/2
    assert "6 build attempts in 3 games" in text and "50 % [" in text
    assert "0.5: 100 % of 3, 0.9: 0 % of 3" in text
    assert sozoikum.headline(run)[2].tolist()[:2] == [4.0, 8.0]


def test_sun_section_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sim.sun.report import section as sun
    from sim.games import get_game

    spec = get_game("sun").spec
    pcols = [c.name for c in spec.detail_tables["passes"]]

    def p(seat: int, turn: int, pen: int, causes: str = "", mid: float = 10.0, game: int = 0) -> dict:
        row = {c: 0 for c in pcols}
        row.update({"seat": seat, "turn": turn, "penalties": pen, "causes": causes, "area_mid_deg": mid,
                    "area_width_mm": 100.0, "noise_aim_deg": 0.5 * turn + 0.001 * game})
        return row

    res = []
    for i in range(2):
        # the two games differ in the noise drawn only (equal Sun records would be one game replayed)
        passes = [p(0, 0, 0, game=i), p(1, 1, 1, "3:slab:toppled", game=i),
                  p(0, 2, 2, "4:pillar:pushed_off;5:slab:toppled", 200.0, game=i), p(1, 3, 0, game=i)]
        placements = [{"seat": 0, "turn": 0, "kind": "stand", "stone": 3, "shape": "slab", "standing": 1},
                      {"seat": 0, "turn": 0, "kind": "stack", "stone": 5, "shape": "slab", "standing": 1}]
        res.append(result(i, [1], columns={"penalty_total": 3, "passes": 4},
                          rows={"passes": passes, "placements": placements, "frames": []}))
    scen = {"name": "s", "game": "sun", "seats": [{"agent": "careful", "skill": "expert"},
                                                  {"agent": "careful", "skill": "child"}]}
    run = load_run(write_store(tmp_path, spec, res, scenario=scen))
    noise = sun.seat_noise(run).set_index("seat")
    from sim.sun.players.thrower import SKILLS

    lo, hi = SKILLS["expert"].sigma_aim_deg, SKILLS["child"].sigma_aim_deg
    assert noise.loc[0, "sigma_aim_deg"] == lo and noise.loc[1, "sigma_aim_deg"] == hi
    lost = sun.lost_stones(run)
    assert len(lost) == 6 and sorted(lost["shape"].value_counts().items()) == [("pillar", 2), ("slab", 4)]
    assert (lost["level"] == "stacked (level 2)").sum() == 2 and (lost["level"] == "on the base").sum() == 2
    text = " ".join(sun.section(run).findings)
    # 8 passes, 6 stones: 0.75 per pass; 4 clean (50 %); seat 0 (0.5°): (0 + 2) / 2 = 1, seat 1 (4°): (1 + 0) / 2
    # the two games cost alike, so the interval clustered by game has no spread between games: no
    # interval is claimed (not [0.75, 0.75])
    assert "Over 8 passes in 2 games a pass costs 0.75 (no spread in 2 distinct games) stones lost to the ball" in text
    w_lo, w_hi = wilson(4, 8)
    assert f"50 % [{100 * w_lo:.0f}, {100 * w_hi:.0f}] of passes are clean" in text
    # 4 passes per noise level are too few to compare (sun.MIN_PASSES) ...
    assert "Fewer than two thrower aim noise groups hold 30 passes" in text and "goes from" not in text
    # ... unless the minimum is lowered
    monkeypatch.setattr(sun, "MIN_PASSES", 4)
    text = " ".join(sun.section(run).findings)
    assert f"({lo:.1f}°, 4 passes, to {hi:.1f}°, 4 passes) the cost per pass goes from 1.00 [" in text and "to 0.50 [" in text
    assert "0 of 8 passes (0.0 %" in text
    assert sun.headline(run)[2].tolist() == [0.75, 0.75]


def test_a_large_export_is_written_in_chunks_with_progress(tmp_path, monkeypatch, capsys) -> None:
    # Exports of large stores show progress; chunked writing gives the same CSV and Parquet as one
    # write (chunk size lowered so a small frame spans several chunks).
    import pandas as pd

    from analysis import load as L

    df = pd.DataFrame({"a": range(23), "b": [f"x{i}" for i in range(23)], "c": [i / 7 for i in range(23)]})
    monkeypatch.setattr(L, "EXPORT_CHUNK_ROWS", 5)
    for fmt in ("csv", "parquet"):
        out = tmp_path / f"t.{fmt}"
        L._write_export(df, out, fmt, "export t")
        back = pd.read_csv(out) if fmt == "csv" else pd.read_parquet(out)
        pd.testing.assert_frame_equal(back, df)
    empty = tmp_path / "e.csv"
    L._write_export(df.iloc[:0], empty, "csv", "export e")
    assert empty.read_text().strip() == "a,b,c"


def test_key_findings_name_each_section_once(tmp_path: Path) -> None:
    """A section with several findings is named once in the key findings, its findings under it."""
    page = R.build_report(_toy(tmp_path)).read_text()
    key = page.split("<h2>Key findings</h2>", 1)[1].split("</ul>\n", 1)[0].split("<h2>", 1)[0]
    titles = re.findall(r"<li><b>([^<]+)\.</b>", key)
    assert titles and len(titles) == len(set(titles)), titles
    # the toy study's lengths section has more than one finding: they are listed under its title
    assert re.search(r"<li><b>[^<]+\.</b><ul><li>.+?</li><li>", key)
