"""Seats and players apart: differing seats rotate through every cyclic seat order,
equally often, on shared seed streams; the store records who sat where; ``seat_order = "fixed"``
switches it off (docs/scenarios.md, "Seat order")."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from sim.core.errors import InputError, ScenarioError
from sim.core.runner import run_study
from sim.core.scenario import load_scenario
from sim.core.seats import rotations
from toy_game import RANDOM_VS_MCTS

#: two random agents told apart only by name: with common random numbers the two games of a block
#: are the same game with the players swapped
TWO_RANDOM = """
game = "race"
games = {games}
seed = 5
backend = "serial"
{extra}
[rules]
target = 15
coin = true
{seats}
"""


def _scenario(tmp_path: Path, registry, text: str, name: str = "s"):
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return load_scenario(p, registry).with_overrides(registry, out=str(tmp_path / name))


def _seats(*names: str) -> str:
    return "".join(f'[[seats]]\nagent = "random"\nname = "{n}"\n' for n in names)


def test_rotations_are_cyclic_and_the_tournament_uses_them() -> None:
    assert rotations((0, 1, 2)) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert rotations("ab") == [("a", "b"), ("b", "a")]


def test_differing_seats_rotate_equally_often_and_the_store_says_who_sat_where(tmp_path: Path, registry) -> None:
    sc = _scenario(tmp_path, registry, RANDOM_VS_MCTS.format(games=6, iters=5))
    assert sc.seat_orders == ((0, 1), (1, 0))
    assert [(sc.seating(i).players, sc.seating(i).stream_index) for i in range(4)] == [
        ((0, 1), 0), ((1, 0), 0), ((0, 1), 1), ((1, 0), 1)]
    run_study(sc, registry, progress=False)
    con = sqlite3.connect(tmp_path / "s" / "results.sqlite")
    rows = con.execute("SELECT game_index, seat, player, agent FROM seats ORDER BY game_index, seat").fetchall()
    con.close()
    for gi, seat, player, agent in rows:
        assert player == sc.seating(gi).players[seat]
        assert agent == ("random" if player == 0 else "mcts")
    assert Counter((p, s) for _, s, p, _ in rows) == {(0, 0): 3, (0, 1): 3, (1, 0): 3, (1, 1): 3}


def test_the_orders_of_a_block_meet_the_same_chance(tmp_path: Path, registry) -> None:
    # seat s's agent draws from stream 1 + s whoever sits there, chance from stream 0: two random
    # players swapped play the very same game, so seat results repeat within each block
    sc = _scenario(tmp_path, registry, TWO_RANDOM.format(games=8, extra="", seats=_seats("ann", "bob")))
    assert len(sc.seat_orders) == 2
    run_study(sc, registry, progress=False)
    con = sqlite3.connect(tmp_path / "s" / "results.sqlite")
    games = con.execute("SELECT game_index, scores_json, winners_json, length FROM games ORDER BY game_index").fetchall()
    labels = con.execute("SELECT game_index, label FROM seats WHERE seat = 0 ORDER BY game_index").fetchall()
    con.close()
    for b in range(4):
        assert games[2 * b][1:] == games[2 * b + 1][1:]
        assert [labels[2 * b][1], labels[2 * b + 1][1]] == ["ann", "bob"]
    assert len({g[1:] for g in games}) > 1  # the blocks differ from each other


def test_three_differing_seats_play_three_cyclic_orders(tmp_path: Path, registry) -> None:
    sc = _scenario(tmp_path, registry, TWO_RANDOM.format(games=6, extra="", seats=_seats("a", "b", "c")))
    assert [sc.seating(i).players for i in range(3)] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert [s.name for s in sc.seating(1).seats] == ["b", "c", "a"]


def test_same_seats_or_fixed_order_play_one_order(tmp_path: Path, registry) -> None:
    same = _scenario(tmp_path, registry, TWO_RANDOM.format(games=3, extra="", seats=_seats("x", "x")), "same")
    assert same.seat_orders == ((0, 1),) and same.seating(2).stream_index == 2
    fixed = _scenario(tmp_path, registry, TWO_RANDOM.format(games=3, extra='seat_order = "fixed"',
                                                            seats=_seats("a", "b")), "fixed")
    assert fixed.seat_orders == ((0, 1),) and fixed.seating(1).players == (0, 1)


def test_a_bad_seat_order_is_refused_naming_the_key(tmp_path: Path, registry) -> None:
    with pytest.raises(ScenarioError, match="'rotate' or 'fixed'") as e:
        _scenario(tmp_path, registry, TWO_RANDOM.format(games=2, extra='seat_order = "random"', seats=_seats("a", "b")))
    assert e.value.key == "seat_order"
    text = TWO_RANDOM.format(games=2, extra='seat_order = "fixed"', seats="") + '[tournament]\nagents = ["random", "mcts"]\n'
    with pytest.raises(ScenarioError, match="rotation") as e:
        _scenario(tmp_path, registry, text, "t")
    assert e.value.key == "seat_order"


def test_a_store_of_the_old_schema_is_not_resumed(tmp_path: Path, registry) -> None:
    sc = _scenario(tmp_path, registry, RANDOM_VS_MCTS.format(games=2, iters=5))
    run_study(sc, registry, progress=False)
    con = sqlite3.connect(tmp_path / "s" / "results.sqlite")
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="schema 1"):
        run_study(sc.with_overrides(registry, games=4), registry, progress=False)
    assert run_study(sc.with_overrides(registry, games=4), registry, force=True, progress=False).played == 4
