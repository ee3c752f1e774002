"""``stonelab compare``: the statistics against published and hand-computed values, two small real
druid studies (a real rule change is flagged, two seeds of one study are not), the refusals."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from analysis.compare import (
    bootstrap_mean_diff,
    compare_runs,
    holm,
    newcombe_diff,
    render_html,
    two_proportion_test,
)
from sim.cli import main
from sim.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DRUIDS = ROOT / "scenarios" / "druids" / "classic.toml"


# --- statistics ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "k1, n1, k2, n2, lo, hi",
    [
        # Newcombe (1998), Statistics in Medicine 17:873, table II, method 10 (hybrid score, no
        # continuity correction): the difference p1 - p2
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (0, 10, 0, 20, -0.1611, 0.2775),
    ],
)
def test_newcombe_matches_published_values(k1: int, n1: int, k2: int, n2: int, lo: float, hi: float) -> None:
    # newcombe_diff gives B - A: run B is the paper's first sample
    d, got_lo, got_hi = newcombe_diff(k2, n2, k1, n1)
    assert d == pytest.approx(k1 / n1 - k2 / n2)
    assert got_lo == pytest.approx(lo, abs=1e-4)
    assert got_hi == pytest.approx(hi, abs=1e-4)


def test_newcombe_by_hand() -> None:
    # A: 10 of 40, B: 20 of 40; Wilson by hand with z = 1.959964
    z = 1.959964

    def wilson(k: int, n: int) -> tuple[float, float]:
        p = k / n
        c = (p + z * z / (2 * n)) / (1 + z * z / n)
        h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return c - h, c + h

    la, ua = wilson(10, 40)
    lb, ub = wilson(20, 40)
    d = 0.5 - 0.25
    want_lo = d - math.sqrt((0.5 - lb) ** 2 + (ua - 0.25) ** 2)
    want_hi = d + math.sqrt((ub - 0.5) ** 2 + (0.25 - la) ** 2)
    got = newcombe_diff(10, 40, 20, 40)
    assert got[0] == pytest.approx(0.25)
    assert got[1] == pytest.approx(want_lo, abs=1e-6)
    assert got[2] == pytest.approx(want_hi, abs=1e-6)
    # the numbers themselves: Wilson 10/40 = [0.1419, 0.4019], 20/40 = [0.3520, 0.6480]
    assert (la, ua, lb, ub) == pytest.approx((0.1419, 0.4019, 0.3520, 0.6480), abs=1e-4)


def test_two_proportion_test_is_the_uncorrected_chi_square() -> None:
    from scipy.stats import chi2_contingency

    p, name = two_proportion_test(48, 80, 56, 70)
    chi2_p = chi2_contingency([[48, 32], [56, 14]], correction=False)[1]
    assert name == "two-proportion z"
    assert p == pytest.approx(chi2_p, rel=1e-9)
    # by hand: pooled 104/150, z = 0.2 / sqrt(p (1 - p) (1/80 + 1/70))
    q = 104 / 150
    z = 0.2 / math.sqrt(q * (1 - q) * (1 / 80 + 1 / 70))
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)))


def test_small_counts_use_fisher_and_nothing_varying_gives_one() -> None:
    from scipy.stats import fisher_exact

    p, name = two_proportion_test(1, 20, 6, 20)  # expected successes 3.5 < 5
    assert name == "Fisher exact"
    assert p == pytest.approx(fisher_exact([[1, 19], [6, 14]])[1])
    assert two_proportion_test(0, 50, 0, 80)[0] == 1.0
    assert two_proportion_test(50, 50, 80, 80)[0] == 1.0


def test_holm_by_hand() -> None:
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> 0.06 (monotone)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, float("nan"), 0.9])[0] == pytest.approx(1.0)
    assert math.isnan(holm([0.5, float("nan"), 0.9])[1])


def test_bootstrap_interval_near_the_normal_one() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.normal(10.0, 2.0, 400), rng.normal(10.5, 3.0, 300)
    d, lo, hi = bootstrap_mean_diff(a, b)
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert d == pytest.approx(b.mean() - a.mean())
    # the percentile bootstrap of a mean difference approaches d -+ 1.96 se for samples this size
    assert lo == pytest.approx(d - 1.96 * se, abs=0.25 * se)
    assert hi == pytest.approx(d + 1.96 * se, abs=0.25 * se)
    assert bootstrap_mean_diff(np.ones(5), np.ones(7)) == (0.0, 0.0, 0.0)


# --- two small real studies --------------------------------------------------------------------------
def _study(tmp: Path, name: str, toml: Path, seed: int, games: int = 200) -> Path:
    out = tmp / name
    rc = main(["run", str(toml), "--games", str(games), "--seed", str(seed), "--out", str(out),
               "--backend", "serial", "--no-report", "--json"])
    assert rc == 0
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("compare")
    face_down = tmp / "face-down.toml"
    text = DRUIDS.read_text(encoding="utf-8")
    assert "face_down = false" in text
    face_down.write_text(text.replace("face_down = false", "face_down = true"), encoding="utf-8")
    return {
        "a": _study(tmp, "a", DRUIDS, 1),
        "a2": _study(tmp, "a2", DRUIDS, 2),  # the same study, other seed: no real difference
        "fd": _study(tmp, "fd", face_down, 1),  # face-down variant: no early claims, longer games
        "rocks": _study(tmp, "rocks", ROOT / "scenarios" / "rocks" / "greedy-vs-random.toml", 1, games=20),
        "rocks3": _study(tmp, "rocks3", ROOT / "scenarios" / "rocks" / "classic-3p.toml", 1, games=10),
    }


def _row(comp, group: str, metric: str):  # noqa: ANN001, ANN202
    r = comp.rows[(comp.rows["group"] == group) & comp.rows["metric"].str.startswith(metric)]
    assert len(r) == 1, (group, metric, comp.rows[["group", "metric"]])
    return r.iloc[0]


def test_a_real_rule_change_is_flagged(runs: dict[str, Path]) -> None:
    comp = compare_runs(runs["a"], runs["fd"])
    # face down there are no early claims whatever early_domination says (docs/rules-druids.md,
    # face-down variant): early claims must drop to exactly 0, and that must be flagged
    early = _row(comp, "game", "early claims")
    assert early["b"] == 0.0 and early["a"] > 0
    assert early["significant"] and early["diff_hi"] < 0
    # lines are decided only when full, so games last longer
    length = _row(comp, "game", "game length")
    assert length["significant"] and length["diff_lo"] > 0
    assert "rules.face_down: False -> True" in comp.changes
    # the reported interval is Newcombe's of the stored counts
    s0 = _row(comp, "seat 0", "sole-win rate")
    ka, kb = round(s0["a"] * s0["n_a"]), round(s0["b"] * s0["n_b"])
    assert (s0["diff"], s0["diff_lo"], s0["diff_hi"]) == pytest.approx(newcombe_diff(ka, 200, kb, 200))
    assert s0["p_holm"] >= s0["p"]


def test_same_study_other_seed_shows_no_difference(runs: dict[str, Path]) -> None:
    comp = compare_runs(runs["a"], runs["a2"])
    assert not comp.rows["significant"].any(), comp.rows[["metric", "p", "p_holm"]]
    assert comp.changes == ["seed: 1 -> 2"]
    same = compare_runs(runs["a"], runs["a"])
    assert (same.rows["diff"] == 0).all()
    assert (same.rows["p"] == 1.0).all() and not same.rows["significant"].any()


def test_cli_json_and_html(runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "out" / "compare.html"
    assert main(["compare", str(runs["a"]), str(runs["fd"]), "--html", str(page), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "druids" and out["correction"] == "Holm" and out["html"] == str(page)
    assert any(r["significant"] for r in out["rows"])
    text = page.read_text(encoding="utf-8")
    # self-contained: nothing fetched from elsewhere
    assert "<script src" not in text and "http://" not in text and "https://" not in text
    assert "early claims per game" in text and "Holm" in text
    assert not list(page.parent.glob("*.part"))
    # each run's path whole on a line of its own (never wrapped), what it holds wrapped below
    assert main(["compare", str(runs["a"]), str(runs["a2"])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"A: {runs['a']}" in lines and lines[lines.index(f"A: {runs['a']}") + 1].startswith("  scenario ")
    assert any("No metric differs" in line for line in lines)


@pytest.mark.parametrize("case", ["game", "seats", "missing", "damaged", "not a store"])
def test_refusals(case: str, runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = runs["a"]
    if case == "game":
        b, want = runs["rocks"], "only runs of the same game"
    elif case == "seats":
        a, b, want = runs["rocks"], runs["rocks3"], "seat count"
    elif case == "missing":
        b, want = tmp_path / "nowhere", "no such run folder"
    elif case == "damaged":
        b = tmp_path / "damaged"
        b.mkdir()
        (b / "results.sqlite").write_bytes(b"this is not a database" * 100)
        want = "damaged or not a stonehenge-lab store"
    else:
        b = tmp_path / "other"
        b.mkdir()
        with sqlite3.connect(b / "results.sqlite") as c:
            c.execute("CREATE TABLE meta(key TEXT, value TEXT)")
        want = "no table points, games, seats"
    page = tmp_path / "page.html"
    assert main(["compare", str(a), str(b), "--html", str(page)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and want in err and err.count("\n") == 1, err
    assert not page.exists()


def test_html_renders_without_a_games_own_sections(runs: dict[str, Path]) -> None:
    page = render_html(compare_runs(runs["a"], runs["fd"]))
    assert "difficulty curve" not in page and "Rules exercised" not in page
    assert page.count("<tr class=sig>") >= 2


def test_every_comparison_holds_every_games_section_keys(runs: dict[str, Path]) -> None:
    """The JSON of any two runs has the same keys: each registered game's compare sections (as its
    plug-in declares them), another game's empty."""
    from analysis.compare import to_json
    from analysis.games import every_compare_key

    assert every_compare_key() == ["sun_difficulty", "sun_rules_exercised"]  # the Sun's plug-in declares them
    out = to_json(compare_runs(runs["a"], runs["fd"]))
    assert list(out)[-2:] == every_compare_key() and out["sun_difficulty"] == out["sun_rules_exercised"] == []


def test_a_games_own_section_reaches_every_output(runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """compare shows a game's section through the hook alone: its terminal lines (a heading, lines
    whose brackets are text, not markup), its page body under its escaped title, its rows in JSON."""
    import dataclasses

    import pandas as pd

    from analysis.compare import print_table, to_json
    from analysis.games import CompareSection, TextLine, game_report
    from sim.games import REGISTRY

    class Own(CompareSection):
        def lines(self, width: int) -> list[TextLine]:
            return [TextLine("Own: a heading", heading=True), TextLine(f"  [bold]not bold[/] {width}")]

        def html(self) -> str:
            return "<p>own body</p>"

    tables = {"own_rows": pd.DataFrame({"v": [1.5, float("nan")]}), "own_empty": pd.DataFrame({"v": []})}
    monkeypatch.setattr(type(game_report("druids")), "compare_sections", lambda self, a, b: [
        Own(k, f"Own & {k}", t) for k, t in tables.items()])
    with pytest.raises(InputError, match=r"game 'druids': its report's compare sections \['own_rows', 'own_empty'\] "
                                        r"are not the keys its plug-in declares \(compare_keys \[\]\)"):
        compare_runs(runs["a"], runs["fd"])
    plugin = dataclasses.replace(REGISTRY.plugin("druids"), compare_keys=tuple(tables))
    monkeypatch.setattr(REGISTRY, "find", lambda name: plugin if name == "druids" else None)
    comp = compare_runs(runs["a"], runs["fd"])
    out = to_json(comp)
    assert out["own_rows"] == [{"v": 1.5}, {"v": None}] and out["own_empty"] == [] and out["sun_difficulty"] == []
    print_table(comp)
    lines = capsys.readouterr().out.splitlines()
    assert "Own: a heading" in lines and len([x for x in lines if "Own" in x]) == 1
    assert any(x.startswith("  [bold]not bold[/] ") for x in lines)
    page = render_html(comp)
    assert "<h2>Own &amp; own_rows</h2><p>own body</p>" in page and "own_empty" not in page


def test_a_sweep_is_pooled_with_a_note(runs: dict[str, Path], tmp_path: Path) -> None:
    from analysis.run_data import pooled_run
    from analysis.load import load_run

    sweep = tmp_path / "sweep.toml"
    sweep.write_text(DRUIDS.read_text(encoding="utf-8") + '\n[sweep]\n"rules.face_down" = [false, true]\n',
                     encoding="utf-8")
    run_dir = _study(tmp_path, "sweep", sweep, 1, games=30)
    comp = compare_runs(runs["a"], run_dir)
    assert any("sweep of 2 points" in n for n in comp.notes)
    assert _row(comp, "game", "game length")["n_b"] == 60
    pooled = pooled_run(load_run(run_dir))
    # one point, every game kept once under its own index
    assert set(pooled.games["point"]) == {0} and len(pooled.games) == 60
    assert pooled.games["game_index"].is_unique
    assert len(pooled.seats) == 120 and not pooled.seats.duplicated(["game_index", "seat"]).any()


# --- the Sun -------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_sun_pair(tmp_path: Path) -> None:
    base = (ROOT / "scenarios" / "sun" / "classic-2p.toml").read_text(encoding="utf-8")
    assert 'skill = "casual"' in base
    expert = tmp_path / "expert.toml"
    expert.write_text(base.replace('skill = "casual"', 'skill = "expert"'), encoding="utf-8")
    a = _study(tmp_path, "a", ROOT / "scenarios" / "sun" / "classic-2p.toml", 1, games=3)
    b = _study(tmp_path, "b", expert, 1, games=3)
    comp = compare_runs(a, b)
    assert {"stones lost to the ball per pass", "penalty stones per game (all causes)", "stones lost to the ball per game",
            "stones knocked by a placement per game", "stones lost past the placement tries per game"} <= set(comp.rows["metric"])
    # one curve per run over the same bins, every pass of each run counted once per curve
    assert [s.key for s in comp.sections] == ["sun_difficulty", "sun_rules_exercised"]
    curve, rules = (s.table for s in comp.sections)
    for by in ("aim error", "area width"):
        c = curve[curve["by"] == by]
        assert list(c.loc[c["run"] == "A", "bin"]) == list(c.loc[c["run"] == "B", "bin"])
        for tag, run in (("A", a), ("B", b)):
            # the width curve counts every pass through a marked area: a recorded width, or an
            # empty ring (no finite width, but the area's middle: its own last bin)
            where = "" if by == "aim error" else " WHERE area_width_mm IS NOT NULL OR area_mid_deg IS NOT NULL"
            with sqlite3.connect(run / "results.sqlite") as con:
                n, clean = con.execute(f"SELECT COUNT(*), SUM(penalties = 0) FROM sun_passes{where}").fetchone()
            assert c.loc[c["run"] == tag, "passes"].sum() == n
            assert c.loc[c["run"] == tag, "clean"].sum() == clean
    # the rules-exercised table of both, each run's figures as the report's own table has them
    from sim.sun.report.rules_exercised import rules_exercised
    from analysis.load import load_run

    own = rules_exercised(load_run(a)).set_index("event")
    for r in rules.itertuples():
        if r.event in own.index:
            assert r.a_per_game == pytest.approx(own.loc[r.event, "per_game"])
    assert "passes" in set(rules["event"])
    page = render_html(comp)
    assert "difficulty curve" in page and "data:image/png;base64," in page and "Rules exercised" in page


def test_the_page_title_tells_two_runs_of_one_scenario_apart(runs: dict[str, Path]) -> None:
    """The compare page was titled 'classic vs classic' for two different runs."""
    from analysis.compare import run_names

    comp = compare_runs(runs["a"], runs["a2"])
    a, b = run_names(comp.a, comp.b)
    assert a != b and a.endswith("(a)") and b.endswith("(a2)")
    page = render_html(comp)
    assert f"<h1>{a} vs {b}</h1>" in page
    same = compare_runs(runs["a"], runs["a"])
    assert run_names(same.a, same.b)[1].endswith("(B, the same run)")
    other = compare_runs(runs["a"], runs["fd"])
    assert run_names(other.a, other.b)[0] != run_names(other.a, other.b)[1]
