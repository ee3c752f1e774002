"""Report wording a newcomer reads: endings say what they mean and are not repeated, the
Replays section lists a few games with why, every game names what its endings mean."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import analysis.report as R
from analysis.load import load_run
from analysis.page import table_html
from analysis.synthetic import result, toy_spec, write_store


def test_every_game_says_what_each_of_its_endings_means() -> None:
    from sim.games import REGISTRY

    for name in REGISTRY.names():
        ends = REGISTRY.get(name).spec.terminations
        assert ends is not None
        meanings = R.ending_meanings(name)
        assert set(meanings) == {e.value for e in ends}, name
        assert all(len(v) > 15 for v in meanings.values())
    assert R.ending_meanings("no-such-game") == {}


def test_a_cut_short_ending_is_explained_not_repeated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'Games cut short (stalemate): 20.0 %' repeated the share said just before and never said
    what a stalemate is."""
    res = [result(i, [i % 2], termination="stalemate" if i < 2 else "normal") for i in range(10)]
    run = load_run(write_store(tmp_path, toy_spec(), res))
    monkeypatch.setattr(R, "ending_meanings", lambda game: {"stalemate": "nobody could place a stone",
                                                            "normal": "a seat reached the target"})
    sec = R.length_section(run)
    text = " ".join(sec.findings)
    assert "Games cut short" not in text and "20.0 %" not in text
    assert text.count("'stalemate'") == 2 and "'stalemate' (nobody could place a stone)" in text
    assert text.count("20 % [") == 1
    caption = next(p.note for p in sec.plots if p.name == "endings")
    assert "'normal': a seat reached the target" in caption


def _sun_games(n: int, points: int = 1) -> pd.DataFrame:
    rows = []
    for p in range(points):
        for i in range(n):
            winners = [] if i == 7 else ([0, 1] if i == 5 else [i % 2])
            rows.append({"point": p, "game_index": i, "winners": winners, "scores_json": json.dumps([i % 4, 3]),
                         "termination": "stalemate" if i == 9 else "field_empty"})
    return pd.DataFrame(rows)


def test_replay_picks_a_few_games_and_says_why() -> None:
    from sim.sun.report.section import REPLAY_ROWS, replay_picks

    picks = replay_picks(_sun_games(100))
    assert 4 <= len(picks) <= REPLAY_ROWS
    why = {int(r["game_index"]): w for r, w in picks}
    assert why[0].startswith("the first game") and "first win of seat 0" in why[0]
    assert why[1] == "first win of seat 1" and why[5] == "first shared win" and why[7] == "first draw"
    assert "first ended by 'stalemate'" in why[9]
    assert any("most penalty stones (6)" in w for w in why.values())  # 3 + 3, game 3 first


def test_replays_section_is_short_and_drops_a_constant_point_column(tmp_path: Path) -> None:
    """A 100-row table whose 'point' column was always 0."""
    from sim.sun.report.section import REPLAY_ROWS, replays_section

    class Run:
        games = _sun_games(100)
        run_dir = tmp_path

    html = replays_section(Run()).html  # type: ignore[arg-type]
    assert html.count("<tr>") <= REPLAY_ROWS + 1
    assert "<th>sweep point</th>" not in html and "<th>point</th>" not in html
    assert f"stonelab replay view {tmp_path} --game N</code> (N from 0 to 99)" in html
    Run.games = _sun_games(3, points=2)
    html = replays_section(Run()).html  # type: ignore[arg-type]
    assert "<th>sweep point</th>" in html and "--point P --game N" in html
    assert re.search(r"--point 1 --game \d", html)


def test_values_are_printed_as_a_reader_wants_them() -> None:
    from analysis.wording import value_text

    assert value_text(0.4833333333333333) == "0.4833"
    assert value_text(2.0) == "2.0" and value_text(3) == "3" and value_text("casual") == "casual"
    assert value_text(1e-7) == "1e-07" and value_text(float("nan")) == "n/a"


def test_a_tournament_calls_its_points_seatings(tmp_path: Path) -> None:
    """The report said '2 sweep points' of a tournament's two seatings."""
    res = [result(i, [i % 2], point=p) for p in (0, 1) for i in range(5)]
    run = write_store(tmp_path, toy_spec(), res, points=[(0, {}), (1, {})], games=5,
                      scenario={"name": "t", "game": "toy", "games": 5,
                                "tournament": {"players": 2, "agents": [{"agent": "a"}, {"agent": "b"}]}})
    page = R.build_report(run).read_text()
    assert "over 2 seatings (5 each; 5 planned each)" in page
    assert "sweep point" not in page


def test_prose_columns_are_left_aligned() -> None:
    """The "what it counts" column read right-aligned like the numbers beside it."""
    df = pd.DataFrame({"event": ["stands", "gates"], "total": [3, 0],
                       "what it counts": ["stones placed on the base that came to rest standing",
                                          "never happened; stones laid across two positions"]})
    html = table_html(df)
    tid = re.search(r"id=\"(t[0-9a-f]+)\"", html).group(1)
    assert f"#{tid} td:nth-child(3)" in html and f"#{tid} th:nth-child(3)" in html
    assert "nth-child(2)" not in html  # numbers stay right-aligned
    assert "<style>" not in table_html(df[["event", "total"]])


def test_a_seat_varied_over_many_points_is_summarised() -> None:
    """A sensitivity study listed every sampled label: 'sigma_aim_deg=1.5000000000000002 / ...'."""
    from analysis.wording import pooled_label, tidy_label

    assert tidy_label("careful(skill=steady, sigma_aim_deg=1.5000000000000002)") == "careful(skill=steady, sigma_aim_deg=1.5)"
    assert tidy_label("mcts(iterations=300)") == "mcts(iterations=300)" and tidy_label("random") == "random"
    assert pooled_label(["greedy(cost=0.01)", "greedy(cost=0.5)"]) == "greedy(cost=0.01) / greedy(cost=0.5)"
    many = [f"careful(skill=steady, sigma_aim_deg={a!r}, sigma_release_m=0.023333333333333338)"
            for a in (0.25, 1.5000000000000002, 2.75, 4.0)]
    assert pooled_label(many) == "careful(skill=steady, sigma_release_m=0.02333; 4 variants: sigma_aim_deg 0.25 to 4.0)"
