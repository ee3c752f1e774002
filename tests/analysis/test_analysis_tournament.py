"""Bradley-Terry ratings on synthetic results: hand-checked two-player fits, a known strength
order recovered, the virtual-draw prior, and how a game splits into pairwise comparisons."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.bradley_terry import ELO_PER_NAT, Pairwise, fit_bradley_terry, pairwise
from analysis.metrics import comparisons


def games(rows: list[tuple[list[str], list[int]]]) -> pd.DataFrame:
    """A games frame as load_run gives it: entrant labels per seat and the winning seats."""
    return pd.DataFrame({"labels": [r[0] for r in rows], "winners": [r[1] for r in rows]})


def test_two_players_fit_p_equals_w_over_n() -> None:
    # 7 of 10 won by a: the maximum-likelihood p is 7/10 and var(b_a - b_b) = 1 / (n p q)
    pw = Pairwise(["a", "b"], np.array([[0.0, 7.0], [3.0, 0.0]]), np.array([[0.0, 10.0], [10.0, 0.0]]),
                  np.array([10, 10]))
    r = fit_bradley_terry(pw)
    assert r.prior == 0.0
    d = r.strength[0] - r.strength[1]
    assert 1 / (1 + math.exp(-d)) == pytest.approx(0.7, abs=1e-7)
    assert r.strength.sum() == pytest.approx(0.0, abs=1e-9)
    assert r.elo[0] - r.elo[1] == pytest.approx(400 * math.log10(7 / 3), abs=1e-4)
    se_d = math.sqrt(1 / (10 * 0.7 * 0.3))
    assert 2 * r.se[0] == pytest.approx(se_d, rel=1e-6)  # centred: b_a = d / 2
    assert r.elo_hi[0] - r.elo[0] == pytest.approx(1.959964 * se_d / 2 * ELO_PER_NAT, rel=1e-5)
    assert list(r.table()["entrant"]) == ["a", "b"]


def test_draws_count_half_a_win() -> None:
    # 10 games: a wins 6, 2 draws, b wins 2 -> a's score 7/10, the same fit as 7 wins of 10
    rows = [(["a", "b"], [0])] * 3 + [(["b", "a"], [1])] * 3 + [(["a", "b"], [])] * 2 + [(["b", "a"], [0])] * 2
    pw = pairwise(games(rows))
    assert pw.labels == ["a", "b"]
    assert pw.wins[0, 1] == 7.0 and pw.n[0, 1] == 10
    r = fit_bradley_terry(pw)
    assert 1 / (1 + math.exp(r.strength[1] - r.strength[0])) == pytest.approx(0.7, abs=1e-7)
    assert r.score[0] == pytest.approx(0.7)


def test_known_strength_order_is_recovered() -> None:
    rng = np.random.default_rng(7)
    true = np.array([-1.2, -0.3, 0.4, 1.1])  # nats
    labels = ["w", "x", "y", "z"]
    rows = []
    for i in range(4):
        for j in range(4):
            if i == j:
                continue
            p = 1 / (1 + math.exp(-(true[i] - true[j])))
            for _ in range(150):
                rows.append(([labels[i], labels[j]], [0] if rng.random() < p else [1]))
    r = fit_bradley_terry(pairwise(games(rows)))
    assert r.prior == 0.0 and r.connected
    assert [r.labels[i] for i in r.order()] == ["z", "y", "x", "w"]
    centred = true - true.mean()
    # each estimate within three standard errors of the truth (a 0.3 % miss per entrant)
    assert np.all(np.abs(r.strength - centred) < 3 * r.se), (r.strength, centred, r.se)
    # 600 games per entrant: a standard error well under a tenth of a nat
    assert np.all(r.se < 0.1)


def test_an_entrant_that_never_loses_gets_a_finite_rating_by_a_prior() -> None:
    rows = [(["a", "b"], [0])] * 5 + [(["b", "c"], [0])] * 3 + [(["c", "b"], [0])] * 2 + [(["a", "c"], [0])] * 4
    r = fit_bradley_terry(pairwise(games(rows)))
    assert r.prior == 1.0
    assert np.all(np.isfinite(r.strength)) and np.all(np.isfinite(r.se))
    assert [r.labels[i] for i in r.order()][0] == "a"
    # with the prior, a vs b is 5.5 of 6 and the fit stays below it
    assert r.strength[0] > r.strength[1]


def test_prior_explicit_and_bad_input() -> None:
    pw = Pairwise(["a", "b"], np.array([[0.0, 4.0], [0.0, 0.0]]), np.array([[0.0, 4.0], [4.0, 0.0]]), np.array([4, 4]))
    r = fit_bradley_terry(pw, prior=2.0)
    # 4 wins + 1 virtual of 6: p = 5/6
    assert 1 / (1 + math.exp(r.strength[1] - r.strength[0])) == pytest.approx(5 / 6, abs=1e-7)
    with pytest.raises(ValueError, match="prior"):
        fit_bradley_terry(pw, prior=-1.0)
    with pytest.raises(ValueError, match="must equal"):
        fit_bradley_terry(Pairwise(["a", "b"], np.array([[0.0, 4.0], [1.0, 0.0]]), pw.n, pw.games))


def test_entrants_without_games_are_unrated() -> None:
    pw = pairwise(games([(["a", "b"], [0]), (["b", "a"], [])]), entrants=["a", "b", "c"])
    r = fit_bradley_terry(pw)
    assert math.isnan(r.strength[2]) and r.games[2] == 0
    assert r.order()[-1] == 2


def test_multiplayer_comparisons_follow_win_share() -> None:
    # a sole winner beats both others; the two losers are not compared
    assert comparisons(["a", "b", "c"], [1]) == [("a", "b", 0.0), ("b", "c", 1.0)]
    # a draw: every pair half
    assert comparisons(["a", "b", "c"], []) == [("a", "b", 0.5), ("a", "c", 0.5), ("b", "c", 0.5)]
    # a win shared by a and c: half between them, both beat b
    assert comparisons(["a", "b", "c"], [0, 2]) == [("a", "b", 1.0), ("a", "c", 0.5), ("b", "c", 0.0)]
