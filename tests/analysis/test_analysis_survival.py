"""Stone survival: the Kaplan-Meier estimator against a hand computation, and the Sun's stone
lives read from a small hand-made store."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sim.sun.report.section import stone_lives
from analysis.load import load_run
from analysis.metrics import kaplan_meier
from analysis.synthetic import result, write_store


def test_kaplan_meier_by_hand() -> None:
    # durations 1, 2, 2+, 3, 4+ (+ = censored)
    km = kaplan_meier([1, 2, 2, 3, 4], [1, 1, 0, 1, 0])
    assert km["t"].tolist() == [0, 1, 2, 3]
    assert km["at_risk"].tolist() == [5, 5, 4, 2]
    # S(1) = 4/5; S(2) = 4/5 * 3/4; S(3) = 0.6 * 1/2
    assert km["survival"].tolist() == pytest.approx([1.0, 0.8, 0.6, 0.3])
    # Greenwood: sum d/(n(n-d)) = 1/20 at t=1; log-log interval S^exp(+-1.96 sqrt(v)/|ln S|)
    se = math.sqrt(1 / 20) / abs(math.log(0.8))
    assert km.loc[1, "lo"] == pytest.approx(0.8 ** math.exp(1.96 * se))
    assert km.loc[1, "hi"] == pytest.approx(0.8 ** math.exp(-1.96 * se))
    assert km.loc[1, "lo"] == pytest.approx(0.2038, abs=1e-4) and km.loc[1, "hi"] == pytest.approx(0.9692, abs=1e-4)
    assert (km["lo"] <= km["survival"]).all() and (km["survival"] <= km["hi"]).all()
    assert kaplan_meier([], []).shape[0] == 1
    with pytest.raises(ValueError):
        kaplan_meier([1, 2], [1])


def test_stone_lives_from_a_hand_made_sun_store(tmp_path: Path) -> None:
    from sim.games import get_game

    spec = get_game("sun").spec

    def place(turn: int, stone: int, shape: str, standing: int = 1) -> dict:
        return {"seat": turn % 2, "turn": turn, "kind": "stand", "stone": stone, "shape": shape, "standing": standing}

    def pas(turn: int, causes: str = "") -> dict:
        return {"seat": turn % 2, "turn": turn, "penalties": causes.count(":") // 2, "causes": causes}

    # game 0: stone 1 stood at turn 0 and lost at turn 3; stone 2 stood at turn 1 (a failed try at 0
    # does not count), still up when the game ended after turn 4
    g0 = result(0, [1], rows={
        "placements": [place(0, 1, "block"), place(0, 2, "slab", standing=0), place(1, 2, "slab")],
        "passes": [pas(0), pas(1), pas(2), pas(3, "1:block:toppled"), pas(4)],
    })
    write_store(tmp_path / "run", spec, [g0])
    lives = stone_lives(load_run(tmp_path / "run")).sort_values("stone")
    assert lives[["stone", "placed_turn", "turns", "lost"]].values.tolist() == [[1, 0, 3, 1], [2, 1, 3, 0]]
