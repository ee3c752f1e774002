"""Metrics against hand computations on a small hand-made store (no games played)."""

from __future__ import annotations

import math

import pytest

from analysis import metrics as M
from analysis.load import load_run
from analysis.stats import binomial_p, chisquare_uniform, format_p, mean_ci, wilson
from analysis.synthetic import result, toy_spec, write_store


# --- Wilson and friends against published values --------------------------------------------------
@pytest.mark.parametrize(
    "k, n, lo, hi",
    [
        # Newcombe (1998), Statistics in Medicine 17:857, table I, method 3 (Wilson score)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # symmetric case: 5/10 -> [0.2366, 0.7634]
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_wilson_matches_published_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=6e-5)
    assert got[1] == pytest.approx(hi, abs=6e-5)


def test_binomial_and_chisquare_by_hand() -> None:
    # P(X >= 9 or X <= 1) for X ~ Bin(10, 1/2) = 2 * (1 + 10 + 1... ) -> (1 + 10 + 10 + 1) / 1024
    assert binomial_p(9, 10, 0.5) == pytest.approx(22 / 1024)
    assert binomial_p(0, 0, 0.5) == 1.0
    # chi-square of [10, 20] against 15/15: (25 + 25) / 15
    stat, p = chisquare_uniform([10, 20])
    assert stat == pytest.approx(50 / 15)
    assert p == pytest.approx(math.erfc(math.sqrt(stat / 2)))  # 1 degree of freedom
    assert chisquare_uniform([0, 0]) == (0.0, 1.0)


def test_mean_ci_by_hand() -> None:
    m, lo, hi = mean_ci([1.0, 2.0, 3.0])
    # sd = 1, se = 1/sqrt(3), t(0.975, 2) = 4.302653
    assert m == 2.0
    assert hi - m == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    assert lo == pytest.approx(2 * m - hi)
    assert mean_ci([4.0]) == (4.0, 4.0, 4.0)


def test_format_p() -> None:
    assert format_p(0.0004) == "p < 0.001"
    assert format_p(0.0123) == "p = 0.012"
    assert format_p(0.41) == "p = 0.41"


# --- a hand-made store ---------------------------------------------------------------------------------
LABELS = ["mcts(iterations=50)", "random"]
GAMES = [
    # winners, length, termination, leads
    ([0], 10, "normal", [[1, 0], [4, 1], [6, 0]]),  # 2 lead changes, decided at 6/10, comeback
    ([1], 8, "normal", [[2, -1], [3, 1]]),  # no change, decided at 3/8, no comeback
    ([0], 12, "normal", [[1, 1], [5, -1], [9, 1]]),  # winner never led: decided at 1.0, comeback
    ([], 6, "normal", [[1, 0], [2, 1]]),  # draw: 1 change
    ([0, 1], 7, "turn_cap", []),  # shared win at the turn cap, no leads recorded
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    out = tmp_path_factory.mktemp("store")
    res = [
        result(i, w, labels=LABELS, length=L, termination=t, leads=ld, scores=[float(i), float(2 * i)])
        for i, (w, L, t, ld) in enumerate(GAMES)
    ]
    write_store(out, toy_spec(), res)
    return load_run(out)


def test_load(run) -> None:  # noqa: ANN001
    assert run.game == "toy"
    assert run.n_seats == 2
    assert len(run.games) == 5 and len(run.seats) == 10
    assert run.games["winners"].tolist() == [w for w, *_ in GAMES]


def test_seat_win_rates(run) -> None:  # noqa: ANN001
    r = M.seat_win_rates(run.games, run.seats, 2)
    assert r["wins"].tolist() == [2, 1]
    assert r["rate"].tolist() == [0.4, 0.2]
    assert (r["lo"][0], r["hi"][0]) == pytest.approx(wilson(2, 5))
    assert r["label"].tolist() == LABELS


def test_first_player_advantage(run) -> None:  # noqa: ANN001
    f = M.first_player_advantage(run.games, 2)
    assert f["decisive"] == 3 and f["wins"] == 2 and f["counts"] == [2, 1]
    assert f["rate"] == pytest.approx(2 / 3)
    assert f["p_binomial"] == pytest.approx(1.0)  # 2 of 3 at 1/2: every outcome as likely or less
    assert f["p_chi2"] == pytest.approx(math.erfc(math.sqrt((1 / 3) / 2)))  # chi2 = (0.25 + 0.25) / 1.5


def test_length_and_scores(run) -> None:  # noqa: ANN001
    d = M.length_summary(run.games)
    assert d["mean"] == pytest.approx((10 + 8 + 12 + 6 + 7) / 5)
    assert d["median"] == 8 and d["min"] == 6 and d["max"] == 12
    sc = M.score_summary(run.seats, 2)
    assert sc["mean"].tolist() == pytest.approx([2.0, 4.0])  # scores i and 2i for i = 0..4


def test_endings(run) -> None:  # noqa: ANN001
    e = M.endings(run.games)
    assert (e["games"], e["decisive"], e["draws"], e["shared"]) == (5, 3, 1, 1)
    assert e["draw_rate"]["rate"] == pytest.approx(2 / 5)
    assert e["terminations"]["turn_cap"]["k"] == 1
    assert e["terminations"]["normal"]["rate"] == pytest.approx(4 / 5)


def test_skill_importance(run) -> None:  # noqa: ANN001
    from analysis.strength import profile

    # without a declared order nobody is called stronger, whoever won more
    assert not M.skill_importance(run.games, run.seats)["stronger"].any()
    strengths = {"mcts(iterations=50)": profile("druids", {"agent": "mcts", "iterations": 50}),
                 "random": profile("druids", {"agent": "random"})}
    sk = M.skill_importance(run.games, run.seats, strengths).set_index("label")
    assert sk.loc["mcts(iterations=50)", "wins"] == 2 and sk.loc["random", "wins"] == 1
    assert sk.loc["mcts(iterations=50)", "games"] == 5
    # 2 wins, 1 draw, 1 shared win, 1 loss of 5: (2 + 0.5 + 0.5) / 5
    assert sk.loc["mcts(iterations=50)", "score"] == pytest.approx(0.6)
    assert sk.loc["mcts(iterations=50)", ["shared", "draws", "losses"]].tolist() == [1, 1, 1]
    assert (sk.loc["mcts(iterations=50)", "lo"], sk.loc["mcts(iterations=50)", "hi"]) == pytest.approx(wilson(3, 5))
    assert bool(sk.loc["mcts(iterations=50)", "stronger"]) and not bool(sk.loc["random", "stronger"])
    assert sk.loc["random", "expected"] == pytest.approx(0.5)


def test_skill_importance_needs_different_agents(tmp_path) -> None:  # noqa: ANN001
    write_store(tmp_path, toy_spec(), [result(0, [0]), result(1, [1])])
    assert M.skill_importance(load_run(tmp_path).games, load_run(tmp_path).seats).empty


def test_skill_importance_three_seats(tmp_path) -> None:  # noqa: ANN001
    labels = ["greedy", "greedy", "random"]
    write_store(tmp_path, toy_spec(), [result(0, [1], labels=labels), result(1, [2], labels=labels),
                                       result(2, [0], labels=labels), result(3, [], labels=labels)])
    r = load_run(tmp_path)
    sk = M.skill_importance(r.games, r.seats).set_index("label")
    assert sk.loc["greedy", "wins"] == 2 and sk.loc["random", "wins"] == 1
    assert sk.loc["greedy", "expected"] == pytest.approx(2 / 3)


def test_drama_by_hand(run) -> None:  # noqa: ANN001
    d = M.drama_frame(run.games)
    assert d["lead_changes"].tolist() == [2, 0, 0, 1, 0]
    assert d["decided_at"].tolist()[:3] == pytest.approx([0.6, 3 / 8, 1.0])
    assert math.isnan(d["decided_at"][3]) and math.isnan(d["decided_at"][4])
    assert d["comeback"].tolist()[:3] == [1.0, 0.0, 1.0]
    s = M.drama_summary(d)
    assert s["games"] == 4  # the turn-cap game recorded no leads
    assert s["lead_changes"]["mean"] == pytest.approx(3 / 4)
    assert s["comeback"]["k"] == 2 and s["comeback"]["n"] == 3


def test_lead_stats_edge_cases() -> None:
    assert M.lead_stats([[1, 0], [3, -1], [5, 0]], 10, 0)["lead_changes"] == 0  # A, tie, A: no change
    assert M.lead_stats([[1, 0], [3, -1], [5, 1]], 10, 1)["lead_changes"] == 1  # A, tie, B: one
    assert M.lead_stats([[1, 0]], 10, 0)["decided_at"] == pytest.approx(0.1)


def test_sweep_effects_by_hand(tmp_path) -> None:  # noqa: ANN001
    res = [result(0, [0], point=0, sweep={"rules.x": 1}, length=4), result(1, [0], point=0, sweep={"rules.x": 1}, length=6),
           result(0, [1], point=1, sweep={"rules.x": 2}, length=10), result(1, [], point=1, sweep={"rules.x": 2}, length=10)]
    write_store(tmp_path, toy_spec(), res, points=[(0, {"rules.x": 1}), (1, {"rules.x": 2})],
                scenario={"name": "s", "game": "toy", "sweep": {"rules.x": [1, 2]}})
    r = load_run(tmp_path)
    assert r.sweep_keys == ["rules.x"]
    e = M.sweep_effects(r.games, r.sweep_keys, 2).set_index("value")
    assert e.loc[1, "win_0"] == 1.0 and e.loc[2, "win_0"] == 0.0 and e.loc[2, "win_1"] == 0.5
    assert e.loc[1, "length"] == 5.0 and e.loc[2, "length"] == 10.0
    assert e.loc[2, "draw"] == 0.5
    pp = M.per_point(r.games, r.points, 2)
    assert pp["games"].tolist() == [2, 2] and pp["sweep:rules.x"].tolist() == [1, 2]


@pytest.mark.parametrize("k, n, p", [(15, 20, 0.5), (3, 10, 1 / 3), (40, 100, 1 / 3), (0, 5, 0.25), (4900, 9800, 0.52)])
def test_binomial_p_matches_scipy(k: int, n: int, p: float) -> None:
    from scipy import stats

    assert binomial_p(k, n, p) == pytest.approx(stats.binomtest(k, n, p).pvalue, rel=1e-9)
