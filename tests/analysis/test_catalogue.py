"""Issue 29: one definition per metric, read by every output, each sized by its real sample.

- every catalogue metric of a played Sun study computed here by hand from the store (SQL written
  in the test), and every output (the catalogue, the report page, the run summary, the export,
  ``stonelab compare``, ``tune``'s measurements) printing that number;
- two small studies that differ in one rule: every row of ``compare`` is B - A of the two reports;
- intervals over passes clustered by game: Wilson's with independent passes, wider with passes that
  move together in a game;
- identical games of a game without chance counted once; shares inside [0, 1].
"""

from __future__ import annotations

import csv
import html
import json
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from analysis import catalogue as C
from analysis.load import export_table, load_run
from analysis.stats import wilson
from analysis.synthetic import result, write_store
from sim.cli import main

ROOT = Path(__file__).resolve().parents[2]

def scenario_text(fall: str) -> str:
    """The main job (scenarios/sun/classic-2p.toml) with 4 games, no recorded frames, a third seat
    (a child's hand) and ``rules.placement_fall`` set to ``fall``."""
    text = (ROOT / "scenarios" / "sun" / "classic-2p.toml").read_text(encoding="utf-8")
    for old, new in (("games = 100", "games = 4"), ('frames = "first"', 'frames = "none"'),
                     ('placement_fall = "retry"', f'placement_fall = "{fall}"'),
                     ('name = "classic-2p"', f'name = "p3-{fall}"')):
        assert old in text, old
        text = text.replace(old, new)
    return text + '\n[[seats]]\nagent = "careful"\nskill = "child"\n'



@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two 4-game, 3-player Sun studies that differ only in ``rules.placement_fall``, with reports."""
    tmp = tmp_path_factory.mktemp("catalogue")
    out = {}
    for tag, fall in (("a", "retry"), ("b", "penalty")):
        toml = tmp / f"{tag}.toml"
        toml.write_text(scenario_text(fall), encoding="utf-8")
        out[tag] = tmp / tag
        assert main(["run", str(toml), "--out", str(out[tag]), "--backend", "serial", "--json"]) == 0
    return out


def by_hand(run_dir: Path) -> dict[str, float]:
    """Every catalogue metric of a Sun store, from SQL written here (not the code under test)."""
    con = sqlite3.connect(run_dir / "results.sqlite")
    q = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731
    n = q("SELECT COUNT(*) FROM games")
    fall = json.loads(q("SELECT value FROM meta WHERE key = 'scenario_json'"))["rules"]["placement_fall"]
    winners = [json.loads(w) for (w,) in con.execute("SELECT winners_json FROM games")]
    n_seats = q("SELECT MAX(num_players) FROM games")
    out: dict[str, float] = {}
    for s in range(n_seats):
        out[f"sole_win_rate[seat {s}]"] = sum(w == [s] for w in winners) / n
        out[f"shared_win_rate[seat {s}]"] = sum(len(w) > 1 and s in w for w in winners) / n
        out[f"score[seat {s}]"] = sum((1 / len(w) if s in w else 0) if w else 1 / n_seats for w in winners) / n
        out[f"final_score[seat {s}]"] = q(f"SELECT AVG(score) FROM seats WHERE seat = {s}")
    decisive = [w for w in winners if len(w) == 1]
    out["seat_effect[seat 0]"] = sum(w == [0] for w in decisive) / len(decisive)
    for lab, in con.execute("SELECT DISTINCT label FROM seats"):
        rows = con.execute("SELECT g.winners_json, s.seat, g.num_players FROM seats s JOIN games g USING(point, game_index) "
                           "WHERE s.label = ?", (lab,)).fetchall()
        share = sum((1 / len(json.loads(w)) if seat in json.loads(w) else 0) if json.loads(w) else 1 / k
                    for w, seat, k in rows)
        out[f"score[{lab}]"] = share / q(f"SELECT COUNT(DISTINCT point || '-' || game_index) FROM seats WHERE label = '{lab}'")
        # the Sun: a player's penalty stones of all causes are its seats' final scores
        out[f"penalties[{lab}]"] = q(f"SELECT SUM(score) FROM seats WHERE label = '{lab}'") / \
            q(f"SELECT COUNT(DISTINCT point || '-' || game_index) FROM seats WHERE label = '{lab}'")
    out["draw_rate"] = sum(not w for w in winners) / n
    out["shared_win_share"] = sum(len(w) > 1 for w in winners) / n
    out["draw_share"] = sum(len(w) != 1 for w in winners) / n
    out["first_player_edge"] = np.mean([(w == [0]) - sum(w == [s] for s in range(1, n_seats)) / (n_seats - 1)
                                        for w in winners])
    out["mean_length"] = q("SELECT AVG(length) FROM games")
    out["penalties_per_game"] = q("SELECT SUM(score) FROM seats") / n
    out["ball_penalties_per_game"] = q("SELECT SUM(penalties) FROM sun_passes") / n
    out["knocked_penalties_per_game"] = q("SELECT SUM(knocked) FROM sun_placements") / n
    # the k-th failed placement of a turn becomes a penalty under "penalty" always, under "retry" from the 4th
    tries = q("SELECT COUNT(*) FROM (SELECT ROW_NUMBER() OVER (PARTITION BY point, game_index, turn, seat ORDER BY seq) "
              f"AS k FROM sun_placements WHERE standing = 0) WHERE {'1' if fall == 'penalty' else 'k >= 4'}")
    out["tries_penalties_per_game"] = tries / n
    out["ball_stones_per_pass"] = q("SELECT 1.0 * SUM(penalties) / COUNT(*) FROM sun_passes")
    out["clean_pass_share"] = q("SELECT AVG(penalties = 0) FROM sun_passes")
    for lo, hi in ((0, 60), (60, 100), (100, 150), (150, None)):
        # a pass over an empty ring (no finite width stored, but the area's middle) is the widest bin
        where = f"area_width_mm >= {lo}" + (f" AND area_width_mm < {hi}" if hi else
                                             " OR (area_width_mm IS NULL AND area_mid_deg IS NOT NULL)")
        if q(f"SELECT COUNT(*) FROM sun_passes WHERE {where}"):
            out[f"clean_pass_{lo}_{hi or 'inf'}mm"] = q(f"SELECT AVG(penalties = 0) FROM sun_passes WHERE {where}")
    out["field_empty_share"] = q("SELECT AVG(field_left = 0) FROM sun_games")
    out.update(by_hand_comparisons(con))
    con.close()
    return out


def bradley_terry_spread(wins: dict[tuple[str, str], float]) -> float:
    """The sd (ddof 0, Elo points) of the Bradley-Terry maximum-likelihood ratings of summed scores
    ``wins[(a, b)]`` (a's score against b), fitted here with scipy.optimize: maximise
    ``sum W_ab log sigmoid(b_a - b_b)``; where some group never scored against the rest (no finite
    maximum: the "scored against" graph is not strongly connected) one virtual draw is added to
    every pair that met, as docs/compare.md says."""
    from scipy.optimize import minimize

    labels = sorted({x for pair in wins for x in pair})
    k = len(labels)
    w = np.zeros((k, k))
    for (a, b), v in wins.items():
        w[labels.index(a), labels.index(b)] += v
    met = (w + w.T) > 0
    reach = (w > 0) | np.eye(k, dtype=bool)
    for _ in range(k):
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    if not reach.all():
        w = w + 0.5 * met

    def nll(b: np.ndarray) -> float:
        d = b[:, None] - b[None, :]
        return float((w * np.logaddexp(0.0, -d)).sum()) + 0.5 * b.sum() ** 2  # the sum pins the mean

    def grad(b: np.ndarray) -> np.ndarray:
        d = b[:, None] - b[None, :]
        q = w / (1.0 + np.exp(d))  # W_ab (1 - p_ab)
        return -(q.sum(axis=1) - q.sum(axis=0)) + b.sum()

    res = minimize(nll, np.zeros(k), jac=grad, method="BFGS", options={"gtol": 1e-12, "maxiter": 10_000})
    b = res.x - res.x.mean()
    return float(np.std(b) * 400.0 / np.log(10.0))


def by_hand_comparisons(con: sqlite3.Connection) -> dict[str, float]:
    """The metrics over pairwise comparisons, from the store's seats and winners: ``pair_score[a]``
    (a's score over all its comparisons: the tournament's score), ``beats[a|b]``,
    ``stronger_score`` (the careful casual hand, [[seats]] entry 0, declared stronger than the
    careful child, entry 2; the aggressive casual hand is another agent: no declared order) and
    ``skill_spread_elo`` (the spread of all the players' Bradley-Terry ratings)."""
    seats: dict[tuple[int, int], dict[int, str]] = {}
    for pt, gi, seat, lab in con.execute("SELECT point, game_index, seat, label FROM seats"):
        seats.setdefault((pt, gi), {})[seat] = lab
    entry = dict(con.execute("SELECT DISTINCT player, label FROM seats").fetchall())
    stronger = {(entry[0], entry[2])}
    # per game (a, b, a's score against b) for every two seats, unless both lost to a third
    sums: dict[tuple[str, str], list[float]] = {}
    for pt, gi, w, k in con.execute("SELECT point, game_index, winners_json, num_players FROM games"):
        w = json.loads(w)
        share = [(1 / len(w) if s in w else 0.0) if w else 1 / k for s in range(k)]
        for i in range(k):
            for j in range(i + 1, k):
                if share[i] == share[j] == 0:
                    continue
                a, b = seats[(pt, gi)][i], seats[(pt, gi)][j]
                if a == b:
                    continue
                s = 1.0 if share[i] > share[j] else 0.5 if share[i] == share[j] else 0.0
                sums.setdefault((a, b), []).append(s)
                sums.setdefault((b, a), []).append(1 - s)
    out: dict[str, float] = {}
    labels = sorted({lab for pair in sums for lab in pair})
    for a in labels:
        mine = [s for (x, _y), v in sums.items() if x == a for s in v]
        out[f"pair_score[{a}]"] = sum(mine) / len(mine)
        for b in labels:
            if (a, b) in sums:
                out[f"beats[{a}|{b}]"] = sum(sums[(a, b)]) / len(sums[(a, b)])
    strong = [s for pair in stronger for s in sums.get(pair, [])]
    if strong:
        out["stronger_score"] = sum(strong) / len(strong)
        out["skill_spread_elo"] = bradley_terry_spread({pair: sum(v) for pair, v in sums.items()})
    return out


def close(name: str, want: float) -> object:
    """``pytest.approx`` of a by-hand value: exact sums to 1e-12; the rating spread, two numerical
    maximisations of one likelihood, to 1e-6 Elo."""
    return pytest.approx(want, abs=1e-6 if name == "skill_spread_elo" else 1e-12)


def report_values(run_dir: Path) -> dict[str, str]:
    """The report page's Metrics table: metric title -> its printed value cell."""
    page = (run_dir / "report" / "report.html").read_text(encoding="utf-8")
    part = page[page.index("<h3>Metrics</h3>"):]
    part = part[:part.index("</table>")]
    rows = {}
    for tr in re.findall(r"<tr>(.*?)</tr>", part, flags=re.S):
        cells = [html.unescape(c).replace("\u00a0", " ") for c in re.findall(r"<td>(.*?)</td>", tr, flags=re.S)]
        if cells:
            rows[cells[0]] = cells[1]
    return rows


@pytest.mark.slow  # two played Sun studies with their reports: about 20 s on an idle core
def test_every_metric_by_hand_and_every_output_prints_it(pair: dict[str, Path], tmp_path: Path) -> None:
    from analysis.compare import compare_runs, to_json
    from analysis.summary import summarize
    from analysis.tune import measure_run
    from sim.core.store import Store

    from analysis.strength import stronger_pairs
    from analysis.tournament import summary as tournament_summary

    run_dir = pair["b"]
    hand = by_hand(run_dir)
    run = load_run(run_dir)
    assert C.distinct_records(run) == (4, 4)  # the by-hand sums count every game once
    est = C.estimates(run, every=True)
    # every catalogue metric (those measured on request too) has its by-hand twin, and no more:
    # a new catalogue metric without one fails here
    assert set(est) == set(hand), (set(est) ^ set(hand))
    assert {"stronger_score", "skill_spread_elo"} <= set(hand) and any(k.startswith("pair_score[") for k in hand)
    entry = {lab for pair in stronger_pairs(run) for lab in pair}
    assert len(stronger_pairs(run)) == 1 and len(entry) == 2  # the declared order the by-hand sums use
    for name, v in hand.items():
        assert est[name].value == close(name, v), name
    # the spread is a fit with a bootstrap interval over the 4 distinct games
    sp = est["skill_spread_elo"]
    assert sp.metric.scheme == "fit" and sp.distinct == 4 and (sp.lo != sp.lo or sp.lo <= sp.value <= sp.hi)
    listed = {m.name for m in C.catalogue(run)}
    assert {"stronger_score", "skill_spread_elo"} <= listed and not any(k.startswith(("beats[", "pair_score[")) for k in listed)
    # the tournament's score of an entrant is the catalogue's pair_score
    for r in tournament_summary(run_dir)["ratings"]:
        assert r["score"] == pytest.approx(hand[f"pair_score[{r['entrant']}]"], abs=1e-12), r["entrant"]
    # penalties by cause sum to the final scores, and "per pass" counts the ball's stones only
    causes = sum(hand[f"{c}_penalties_per_game"] for c in ("ball", "knocked", "tries"))
    assert causes == pytest.approx(hand["penalties_per_game"])
    assert hand["tries_penalties_per_game"] > 0  # "penalty": every failed placement costs a stone
    # the report page prints each value (shares with one decimal, means with three)
    page = report_values(run_dir)
    for name, v in hand.items():
        if name not in listed:
            continue  # measured on request (tune, the tournament): checked below
        m = est[name].metric
        printed = page[m.title]
        digits = 3 if m.decimals is None else m.decimals  # the rating spread in whole Elo points
        assert printed.startswith(f"{100 * v:.1f} %" if m.share else f"{v:.{digits}f}"), (name, printed)
    # the export's metrics table
    rows = {r["metric"]: r for r in csv.DictReader(export_table(run_dir, "metrics", "csv", tmp_path / "m.csv").open())}
    for name, v in hand.items():
        if name in listed:
            assert float(rows[name]["value"]) == close(name, v), name
    # the run summary (seats and the game-wide metrics)
    with Store.open(run_dir) as st:
        s = summarize(st)
    for r in s["seats"]:
        assert r["win_rate"] == pytest.approx(hand[f"sole_win_rate[seat {r['seat']}]"])
        assert r["score"] == pytest.approx(hand[f"score[seat {r['seat']}]"])
    for m in s["metrics"]:
        if m["metric"] in hand:
            assert m["value"] == close(m["metric"], hand[m["metric"]]), m["metric"]
    assert {p["player"] for p in s["players"]} == {k[6:-1] for k in hand if k.startswith("score[") and "seat" not in k}
    # compare (run against itself: A is the run)
    comp = to_json(compare_runs(run_dir, pair["a"]))
    for r in comp["rows"]:
        if r["name"] in hand:
            assert r["a"] == close(r["name"], hand[r["name"]]), r["name"]
    # tune's measurements of the same run
    meas = measure_run(run)
    for name in ("draw_share", "mean_length", "first_player_edge", "penalties_per_game", "field_empty_share"):
        assert meas[name].mean == pytest.approx(hand[name], abs=1e-12), name
    for name, v in hand.items():
        if name.startswith(("beats[", "pair_score[", "penalties[")):
            assert meas[name].mean == pytest.approx(v, abs=1e-12), name
    assert meas["skill_index"].mean == pytest.approx(2 * hand["stronger_score"] - 1, abs=1e-12)
    assert meas["skill_spread_elo"].mean == close("skill_spread_elo", hand["skill_spread_elo"])
    assert (meas["skill_spread_elo"].lo, meas["skill_spread_elo"].hi) == pytest.approx((sp.lo, sp.hi), nan_ok=True)
    # the report's "Skill against chance" sentence prints the catalogue's spread and index
    text = html.unescape((run_dir / "report" / "report.html").read_text(encoding="utf-8"))
    assert f"Rating spread {hand['skill_spread_elo']:.0f} Elo" in text
    assert f"Skill index {100 * (2 * hand['stronger_score'] - 1):.0f} % skill" in text


@pytest.mark.slow
def test_compare_rows_are_b_minus_a_of_the_two_reports(pair: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.compare import compare_runs

    comp = compare_runs(pair["a"], pair["b"])
    pa, pb = report_values(pair["a"]), report_values(pair["b"])
    run_a = load_run(pair["a"])
    titles = {m.name: m.title for m in C.catalogue(run_a) + C.catalogue(load_run(pair["b"]))}
    digits = {m.name: 3 if m.decimals is None else m.decimals for m in C.catalogue(run_a)}
    checked = 0
    for r in comp.rows.itertuples():
        assert r.diff == pytest.approx(r.b - r.a, abs=1e-12), r.metric
        title = titles[r.name]
        for value, page in ((r.a, pa), (r.b, pb)):
            if title in page:
                printed = page[title]
                want = f"{100 * value:.1f} %" if r.kind == "proportion" else f"{value:.{digits.get(r.name, 3)}f}"
                assert printed.startswith(want), (r.name, printed, want)
                checked += 1
    assert checked >= 2 * 20
    # the rule changed: stones past the placement tries go up, the ball's stones per pass are a pass's only
    rows = comp.rows.set_index("name")
    assert rows.loc["tries_penalties_per_game", "diff"] > 0
    hand_a, hand_b = by_hand(pair["a"]), by_hand(pair["b"])
    assert rows.loc["ball_stones_per_pass", "diff"] == pytest.approx(hand_b["ball_stones_per_pass"]
                                                                      - hand_a["ball_stones_per_pass"])
    # the terminal: one line per metric, none wider than 80 columns when piped
    assert main(["compare", str(pair["a"]), str(pair["b"])]) == 0
    out = capsys.readouterr().out.splitlines()
    table = out[1:out.index(next(ln for ln in out if ln.startswith("B - A of a share")))]
    assert max(map(len, table)) <= 80
    assert len(table) == len(comp.rows) + 2  # header, rule, then one line per metric (none folded)
    assert all(re.search(r"(differs \*|p<\.05 alone|no diff\.|too few \(\d+\)|no spread|1 distinct|no data)$", ln)
               for ln in table[2:]), table
    # the verdict's power figure is the HTML's: "too few (N)" with N the games per run it names
    from analysis.compare import power_need, verdict

    for r in comp.rows.itertuples():
        if verdict(r).startswith("too few"):
            assert f"about {power_need(r)} per run needed" in verdict(r)
    assert any(ln.rstrip().endswith("differs *") or "too few" in ln or "no diff." in ln for ln in table)


# --- clustered intervals ------------------------------------------------------------------------------
def _passes_store(tmp: Path, clean_of: "callable", games: int = 200, per_game: int = 20) -> Path:  # type: ignore[valid-type]
    from sim.games import get_game

    spec = get_game("sun").spec
    cols = [c.name for c in spec.detail_tables["passes"]]
    rng = np.random.default_rng(5)
    res = []
    for g in range(games):
        clean = clean_of(rng, per_game)
        passes = []
        for t, ok in enumerate(clean):
            row = {c: 0 for c in cols}
            row.update({"seat": t % 2, "turn": t, "penalties": 0 if ok else 1, "causes": "" if ok else "1:slab:toppled",
                        "area_width_mm": 80.0, "noise_aim_deg": float(rng.normal())})
            passes.append(row)
        lost = int(sum(1 for ok in clean if not ok))
        res.append(result(g, [0], scores=[float(lost), 0.0], length=per_game + g % 7,
                          columns={"penalty_total": lost, "passes": per_game},
                          rows={"passes": passes, "placements": [], "frames": []}))
    return write_store(tmp, spec, res, scenario={"name": "clustered", "game": "sun"})


def test_independent_passes_give_wilson_and_correlated_ones_a_wider_interval(tmp_path: Path) -> None:
    indep = load_run(_passes_store(tmp_path / "i", lambda rng, k: list(rng.random(k) < 0.8)))
    e = C.estimates(indep, ["clean_pass_share"])["clean_pass_share"]
    k, n = int(e.num), int(e.den)
    lo, hi = wilson(k, n)
    assert n == 4000 and e.value == k / n
    # the design effect of independent passes is about 1: Wilson over the passes, within noise
    assert e.lo == pytest.approx(lo, abs=0.006) and e.hi == pytest.approx(hi, abs=0.006)
    # every pass of a game alike (a game's layout decides): 200 games, not 4000 passes, were sampled
    corr = load_run(_passes_store(tmp_path / "c", lambda rng, k: [rng.random() < 0.8] * k))
    f = C.estimates(corr, ["clean_pass_share"])["clean_pass_share"]
    lo2, hi2 = wilson(int(f.num), int(f.den))
    assert (f.hi - f.lo) > 3.5 * (hi2 - lo2)
    games_lo, games_hi = wilson(int(f.num) // 20, 200)  # what 200 independent games would give
    assert f.lo == pytest.approx(games_lo, abs=0.01) and f.hi == pytest.approx(games_hi, abs=0.01)
    assert 0.0 <= f.lo <= f.value <= f.hi <= 1.0


def test_ratio_interval_by_hand() -> None:
    y, x = np.array([1.0, 3.0, 0.0, 2.0]), np.array([10.0, 12.0, 8.0, 10.0])
    r, lo, hi, se = C.ratio_interval(y, x, share=False)
    assert r == pytest.approx(6 / 40)
    resid = y - r * x
    want = np.sqrt((resid ** 2).sum() / (4 * 3)) / 10.0  # mean denominator 10
    assert se == pytest.approx(want)
    from scipy.stats import t

    assert hi == pytest.approx(r + t.ppf(0.975, 3) * want)
    with pytest.raises(ValueError):
        C.ratio_interval([1.0], [0.0], share=True)


# --- identical games -----------------------------------------------------------------------------------
def test_identical_games_of_a_game_without_chance_count_once(tmp_path: Path) -> None:
    from analysis.compare import compare_runs
    from analysis.tune import measure_run, target_rows
    from sim.core.tune import Target, TrialResult, Tune
    from sim.games import get_game

    spec = get_game("druids").spec
    assert not spec.has_chance
    labels = ["greedy", "random"]
    same = [result(i, [0], labels=labels, length=30) for i in range(24)]
    run_dir = write_store(tmp_path / "same", spec, same, scenario={"name": "same", "game": "druids"})
    run = load_run(run_dir)
    assert C.distinct_records(run) == (24, 1)
    assert C.repeat_note(run).startswith("24 games, 1 distinct")
    e = C.estimates(run)
    assert e["sole_win_rate[seat 0]"].value == 1.0
    assert e["sole_win_rate[seat 0]"].lo != e["sole_win_rate[seat 0]"].lo  # one distinct game: no interval
    assert e["sole_win_rate[seat 0]"].sample_words() == "24 games, 1 distinct"
    # two distinct games, each played 12 times: the interval of 2 games, not of 24
    two = same[:12] + [result(12 + i, [1], labels=labels, length=31) for i in range(12)]
    run2 = load_run(write_store(tmp_path / "two", spec, two, scenario={"name": "two", "game": "druids"}))
    w = C.estimates(run2)["sole_win_rate[seat 0]"]
    assert w.value == 0.5 and (w.lo, w.hi) == pytest.approx(wilson(1, 2))
    comp = compare_runs(run_dir, run2.run_dir)
    row = comp.rows.set_index("name").loc["sole_win_rate[seat 0]"]
    assert (row["n_a"], row["n_b"]) == (1, 2) and row["diff"] == -0.5
    # tune: the distinct count, no interval from one game, and shares inside [0, 1]
    meas = measure_run(run)
    assert meas["first_player_edge"].n == 1
    tune = Tune(params=(), targets=(Target("first_player_edge", "value", 0.0, 0.0),))
    t = TrialResult(number=0, state="complete", values={"rules.x": 0.5}, objectives=[1.0], objective_se=[0.0],
                    games=24, metrics={k: v.as_list() for k, v in meas.items()})
    (tr,) = target_rows(tune, t)
    assert "no interval" in tr["verdict"] and tr["lo"] != tr["lo"]
    beats = measure_run(run2)["beats[greedy|random]"]
    assert 0.0 <= beats.interval()[0] <= beats.mean <= beats.interval()[1] <= 1.0


def test_a_game_with_chance_counts_equal_records_as_games(tmp_path: Path) -> None:
    from sim.games import get_game

    spec = get_game("rocks").spec
    assert spec.has_chance
    res = [result(i, [i % 2], length=30) for i in range(20)]
    run = load_run(write_store(tmp_path / "r", spec, res, scenario={"name": "r", "game": "rocks"}))
    assert C.distinct_records(run) == (20, 20) and C.repeat_note(run) == ""
    assert (C.estimates(run)["sole_win_rate[seat 0]"].lo, C.estimates(run)["sole_win_rate[seat 0]"].hi) == \
        pytest.approx(wilson(10, 20))


def test_no_order_and_stronger_do_not_clash(tmp_path: Path) -> None:
    """Issue 29, item 6: a 3-player study said "no agent is called stronger" under Skill importance
    and "the stronger player scores 80 %" under Skill against chance."""
    from analysis.report import skill_against_chance, skill_section
    from sim.games import get_game

    labels = ["careful(skill=casual)", "aggressive(skill=casual)", "careful(skill=steady)"]
    seats = [{"agent": "careful", "skill": "casual"}, {"agent": "aggressive", "skill": "casual"},
             {"agent": "careful", "skill": "steady"}]
    res = [result(i, [2] if i % 3 else [0], labels=labels, n_seats=3, length=20 + i) for i in range(12)]
    run = load_run(write_store(tmp_path, get_game("sun").spec, res,
                               scenario={"name": "three", "game": "sun", "seats": seats, "seat_order": "fixed"}))
    text = " ".join(skill_section(run).findings)
    chance = skill_against_chance(run)
    assert chance is not None and "the stronger player scores" in " ".join(chance.findings)
    assert "no agent is called stronger" not in text
    assert "between two of them it does: careful(skill=steady) over careful(skill=casual)" in text


def test_tournament_and_summary_size_by_distinct_games_and_keep_label_order(tmp_path: Path) -> None:
    """Identical druids games count once in the tournament's intervals; a seat's labels read in
    game order, whatever order the store received the games in (a resumed run's labels swapped)."""
    from analysis.summary import summarize
    from analysis.tournament import summary as tournament_summary
    from sim.core.store import Store
    from sim.games import get_game

    spec = get_game("druids").spec
    rot = [["greedy", "random"], ["random", "greedy"]]
    res = [result(i, [i % 2], labels=rot[i % 2], length=30 + i % 4) for i in range(16)]
    out = write_store(tmp_path / "d", spec, list(reversed(res)), scenario={"name": "d", "game": "druids"})
    t = tournament_summary(out)
    assert (t["games"], t["distinct_games"]) == (16, 4)
    with Store.open(out) as st:
        s = summarize(st)
    assert s["distinct_games"] == 4 and "4 distinct" not in json.dumps(s["seats"])
    assert [r["label"] for r in s["seats"]] == ["greedy / random", "random / greedy"]
    one = write_store(tmp_path / "one", spec, [result(i, [0], labels=rot[0], length=30) for i in range(8)],
                      scenario={"name": "one", "game": "druids"})
    t1 = tournament_summary(one)
    assert t1["distinct_games"] == 1 and all(r["ci95"] == [None, None] for r in t1["ratings"])


def test_a_start_layout_gives_each_starting_stone_its_level(tmp_path: Path) -> None:
    """Issue 29, item 4: with ``[layout] start = "layout"`` half the lost stones were "unknown"."""
    from sim.sun.report.rules_exercised import lost_stones, start_levels
    from sim.games import get_game

    spec = get_game("sun").spec
    cols = [c.name for c in spec.detail_tables["passes"]]
    row = {c: 0 for c in cols}
    row.update({"seat": 0, "turn": 0, "penalties": 3, "causes": "25:slab:toppled;13:block:pushed_off;0:pillar:toppled"})
    scen = {"name": "lay", "game": "sun", "seats": [{"agent": "careful"}, {"agent": "careful"}],
            "layout": {"file": str(ROOT / "scenarios/sun/layouts/gates.toml"), "start": "layout"}}
    run = load_run(write_store(tmp_path, spec, [result(0, [1], rows={"passes": [row], "placements": [], "frames": []})],
                               scenario=scen))
    levels = start_levels(run)
    # gates.toml: pillars 0-1 and blocks hold the gates; blocks 9 and 10 stack; three slab gates
    assert levels[0] == "on the base" and levels[13] == "stacked (level 2)" and levels[25] == "gate"
    lost = lost_stones(run).set_index("stone")
    assert lost.loc[25, "level"] == "gate" and lost.loc[13, "level"] == "stacked (level 2)"
    assert (lost["level"] != "unknown").all()
