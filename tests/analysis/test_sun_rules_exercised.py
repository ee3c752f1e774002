"""The Sun report's "Rules exercised" table: counts, intervals and the never-happened flag, from a
hand-made store, against values computed by hand; and the interval helpers against published
values."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analysis.load import RunData, load_run
from analysis.stats import count_per_game, poisson_ci, wilson
from analysis.synthetic import result, write_store

T2 = 4.302652729749464  # Student t, 2 degrees of freedom, 97.5 % quantile (tables: 4.303)
T1 = 12.706204736174707  # 1 degree of freedom (tables: 12.706)
KEY = "seats.0.sigma_aim_deg"


@pytest.mark.parametrize(("k", "lo", "hi"), [(0, 0.0, 3.6889), (1, 0.0253, 5.5716), (5, 1.6235, 11.6683)])
def test_poisson_ci_matches_published_garwood_values(k: int, lo: float, hi: float) -> None:
    # exact Poisson 95 % limits as tabulated (e.g. Ulm 1990, Am J Epidemiol 131:373)
    assert poisson_ci(k, 1.0) == pytest.approx((lo, hi), abs=1e-4)
    assert poisson_ci(k, 4.0) == pytest.approx((lo / 4, hi / 4), abs=1e-4)


def test_poisson_ci_and_count_per_game_refuse_bad_input() -> None:
    with pytest.raises(ValueError, match="exposure"):
        poisson_ci(1, 0.0)
    with pytest.raises(ValueError, match="non-negative integer"):
        poisson_ci(-1, 3.0)
    with pytest.raises(ValueError, match=">= 0"):
        count_per_game([1.0, -2.0])


def test_count_per_game_by_hand() -> None:
    # [2, 1, 0]: mean 1, sd 1, t interval 1 -/+ 4.303 / sqrt(3); the low end is clipped at 0
    assert count_per_game([2, 1, 0]) == pytest.approx((1.0, 0.0, 1 + T2 / math.sqrt(3)))
    # never seen in 3 games: the exact Poisson upper bound -ln(0.025) / 3, not [0, 0]
    assert count_per_game([0, 0, 0]) == pytest.approx((0.0, 0.0, -math.log(0.025) / 3))
    # no spread between games: the interval is the mean itself
    assert count_per_game([4, 4]) == (4.0, 4.0, 4.0)


def _store(tmp: Path, points: tuple[int, ...] = (0, 1)) -> RunData:
    from sim.games import get_game

    spec = get_game("sun").spec
    pcols = [c.name for c in spec.detail_tables["passes"]]
    lcols = [c.name for c in spec.detail_tables["placements"]]

    def ps(turn: int, moved: int, forced: int, causes: str = "") -> dict[str, Any]:
        row: dict[str, Any] = {c: 0 for c in pcols}
        row.update({"seat": turn % 2, "turn": turn, "marker_moved": moved, "forced_move": forced, "causes": causes,
                    "penalties": len([c for c in causes.split(";") if c]), "area_mid_deg": 30.0 * turn,
                    "area_width_mm": 80.0})
        return row

    def pl(turn: int, kind: str, stone: int, standing: int = 1, cause: str = "", knocked: int = 0) -> dict[str, Any]:
        row: dict[str, Any] = {c: None for c in lcols}
        row.update({"seat": turn % 2, "turn": turn, "kind": kind, "stone": stone, "shape": "slab",
                    "standing": standing, "cause": cause, "knocked": knocked, "wall_s": 0.0})
        return row

    games = {
        0: [  # point 0: three games
            (["field_empty"], [pl(0, "stand", 1), pl(1, "stand", 2), pl(2, "stack", 3),
                               pl(2, "gate", 4, 0, "fell", knocked=1)],
             [ps(0, 1, 0, "3:slab:toppled"), ps(1, 1, 1), ps(2, 0, 0, "4:pillar:pushed_off;5:slab:toppled")]),
            (["stalemate"], [pl(0, "stand", 1), pl(1, "stand", 2, 0, "no legal marker move")],
             [ps(0, 1, 0), ps(1, 0, 0)]),
            (["turn_cap"], [], []),  # no detail rows at all: every count is 0 in this game
        ],
        1: [  # point 1: two games
            (["field_empty"], [pl(0, "stand", 1), pl(1, "stack", 2)], [ps(0, 1, 0, "7:slab:fell_from_support")]),
            (["field_empty"], [pl(0, "stand", 1), pl(1, "gate", 2)], [ps(0, 0, 1)]),
        ],
    }
    sigma = {0: 0.5, 1: 2.0}
    res = [result(i, [0], point=p, termination=end[0], sweep={KEY: sigma[p]},
                  rows={"placements": place, "passes": passes, "frames": []})
           for p in points for i, (end, place, passes) in enumerate(games[p])]
    scen: dict[str, Any] = {"name": "rules", "game": "sun", "seats": [{"agent": "careful"}, {"agent": "careful"}]}
    if len(points) > 1:
        scen["sweep"] = {KEY: [sigma[p] for p in points]}
    return load_run(write_store(tmp, spec, res, points=[(p, {KEY: sigma[p]}) for p in points], scenario=scen))


def test_rules_exercised_by_hand(tmp_path: Path) -> None:
    from sim.sun.report import rules_exercised as sun_rules

    tab = sun_rules.rules_exercised(_store(tmp_path)).set_index(["point", "event"])
    assert set(tab.index.get_level_values(0)) == {0, 1}

    def row(point: int, event: str) -> pd.Series:
        return tab.loc[(point, event)]

    # point 0, per game: stands [2, 1, 0] (the failed stand does not count), stacks [1, 0, 0]
    r = row(0, "stands")
    assert (r["total"], r["games"], r["games_with"]) == (3, 3, 2)
    assert (r["per_game"], r["lo"], r["hi"]) == pytest.approx((1.0, 0.0, 1 + T2 / math.sqrt(3)))
    assert (r["share_lo"], r["share_hi"]) == pytest.approx(wilson(2, 3))
    r = row(0, "stacks")  # mean 1/3, sd sqrt(1/3), se 1/3
    assert (r["per_game"], r["hi"]) == pytest.approx((1 / 3, 1 / 3 + T2 / 3))
    assert r["games_with"] == 1 and r["share"] == pytest.approx(1 / 3)
    # the only gate failed: never a gate at point 0; its upper bound is the Poisson one for 0 in 3 games
    r = row(0, "gates")
    assert (r["total"], r["games_with"], r["lo"]) == (0, 0, 0.0)
    assert r["hi"] == pytest.approx(-math.log(0.025) / 3)
    assert (r["share_lo"], r["share_hi"]) == pytest.approx(wilson(0, 3))
    assert (row(0, "failed placements")["total"], row(0, "failed placements")["games_with"]) == (2, 2)
    assert row(0, "failed placements: fell")["total"] == 1
    assert row(0, "failed placements: no legal marker move")["total"] == 1
    # passes [3, 2, 0], marker moves [2, 1, 0], forced [1, 0, 0]
    assert row(0, "passes")["per_game"] == pytest.approx(5 / 3)
    assert row(0, "passes")["hi"] == pytest.approx(5 / 3 + T2 * math.sqrt(7 / 3) / math.sqrt(3))
    assert (row(0, "marker moves")["total"], row(0, "forced marker moves")["total"]) == (3, 1)
    # penalty stones by cause: toppled twice in game 0, pushed off once, never fallen from support
    assert row(0, "stones toppled in a pass")["total"] == 2
    assert row(0, "stones toppled in a pass")["games_with"] == 1
    assert row(0, "stones pushed off in a pass")["total"] == 1
    assert row(0, "stones fallen from their support in a pass")["total"] == 0
    assert row(0, "stones knocked by a placement")["total"] == 1
    # endings: once per game at most; count per game = share, with the Wilson interval
    for end, k in (("field_empty", 1), ("stalemate", 1), ("turn_cap", 1)):
        r = row(0, f"ending: {end}")
        assert r["binary"] and r["games_with"] == k and r["per_game"] == pytest.approx(k / 3)
        assert (r["lo"], r["hi"]) == pytest.approx(wilson(k, 3))
    # point 1: stands [1, 1] (no spread: the interval is the mean), stacks [1, 0], gates [0, 1]
    r = row(1, "stands")
    assert (r["per_game"], r["lo"], r["hi"]) == (1.0, 1.0, 1.0)
    r = row(1, "stacks")  # mean 1/2, sd sqrt(1/2), se 1/2
    assert (r["per_game"], r["lo"], r["hi"]) == pytest.approx((0.5, 0.0, 0.5 + T1 / 2))
    assert row(1, "gates")["total"] == 1 and row(1, "forced marker moves")["total"] == 1
    assert row(1, "stones fallen from their support in a pass")["total"] == 1
    assert row(1, "ending: field_empty")["games_with"] == 2
    assert row(1, "ending: turn_cap")["total"] == 0  # seen at point 0 only, listed at both


def test_rules_tables_and_flag_in_the_section(tmp_path: Path) -> None:
    from sim.sun.report import section as sun

    run = _store(tmp_path)
    sec = sun.section(run)
    assert sec is not None
    captions = [c for c, _ in sec.tables if c.startswith("Rules exercised")]
    assert captions == [f"Rules exercised: sweep point 0 ({KEY} = 0.5)", f"Rules exercised: sweep point 1 ({KEY} = 2.0)"]
    # the cells keep figure and interval on one line with no-break spaces
    t0 = dict(sec.tables)[captions[0]].set_index("event").map(lambda v: str(v).replace("\u00a0", " "))
    assert t0.loc["stands", "total in 3 games"] == "3" and t0.loc["stands", "games with it"] == "2 of 3"
    assert t0.loc["stands", "per game [95 %]"] == f"1.00 [0.00, {1 + T2 / math.sqrt(3):.2f}]"
    lo, hi = wilson(2, 3)
    assert t0.loc["stands", "share of games [95 %]"] == f"67 % [{100 * lo:.0f}, {100 * hi:.0f}]"
    assert t0.loc["gates", "per game [95 %]"] == f"0.00 [0.00, {-math.log(0.025) / 3:.2f}]"
    # every row says what it counts (the "note" column was empty but for 'never happened')
    what = t0["what it counts"]
    assert what["gates"].startswith("never happened; ") and not what["stacks"].startswith("never")
    assert all(len(v) > 10 for v in what), what.to_dict()
    assert "no legal stand, stack or gate left" in what["ending: stalemate"]
    text = " ".join(sec.findings)
    # pooled over both points: stacks in 2 of 5 games, gates 1 of 5, forced moves 2 of 5
    assert "Rules exercised in 5 games (all sweep points): stacks in 40 % [" in text
    assert "gates in 20 % [" in text and "(0.20 per game)" in text
    assert "endings: field_empty 60 %, stalemate 20 %, turn_cap 20 %." in text
    # nothing is missing at both points but the penalty past the placement tries (no placement of
    # this store failed); what is missing at one point is counted
    assert "Never happened in any of the 5 games: stones lost past the placement tries." in text
    assert "Never happened at some sweep points (see each sweep point's table): gates (1 of 2 sweep points)" in text
    assert "stones fallen from their support in a pass (1 of 2 sweep points)" in text
    assert "ending: stalemate (1 of 2 sweep points)" in text and "stacks (" not in text


def test_single_point_flag(tmp_path: Path) -> None:
    from sim.sun.report import section as sun

    run = _store(tmp_path, points=(0,))
    tables, findings = sun.rules_tables(run)
    assert [c for c, _ in tables] == ["Rules exercised"]
    assert findings[0].startswith("Rules exercised in 3 games: stacks in 33 % [")
    assert findings[1].startswith("Never happened in any of the 3 games: gates, stones fallen from their support "
                                  "in a pass, stones lost past the placement tries. A rule that never comes into play")


@pytest.mark.slow
def test_report_page_shows_the_table(tmp_path: Path) -> None:
    from analysis.report import build_report

    run = _store(tmp_path, points=(0,))
    page = build_report(run.run_dir).read_text()
    # a row that happened in no game says so first in its "what it counts" cell
    assert "<h3>Rules exercised</h3>" in page and "<td>never happened; " in page
    # the table comes first in the Sun section, and its findings lead the section's key findings
    assert page.index("<h3>Rules exercised</h3>") < page.index("<h3>Stones lost to the ball by shape, level and cause</h3>")
    assert page.index("Rules exercised in 3 games") < page.index("Over 5 passes in 3 games a pass costs")
