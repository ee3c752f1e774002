"""A replay that plays a stored game again checks it against the store and, when it ends
otherwise, says so and what played the stored game (its provenance), instead of showing another game."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from sim.cli import main
from sim.core.errors import ReplayError

ROOT = Path(__file__).resolve().parents[2]


def _tamper(run: Path, game_index: int, scores: str) -> None:
    con = sqlite3.connect(run / "results.sqlite")
    with con:
        con.execute("UPDATE games SET scores_json = ?, math_path = 'other (OPENBLAS_CORETYPE=Atom)' "
                    "WHERE game_index = ?", (scores, game_index))
    con.close()


def test_a_turn_based_game_that_ends_otherwise_names_what_played_it(tmp_path: Path, runs: dict[str, Path],
                                                                   capsys) -> None:
    run = tmp_path / "copy"
    shutil.copytree(runs["druids"], run)
    _tamper(run, 0, "[1.0, 2.0]")
    assert main(["replay", "export", str(run), "--game", "0", "--out", str(tmp_path / "g.html")]) == 2
    err = capsys.readouterr().err
    assert "does not end as stored (scores" in err and "maths path other (OPENBLAS_CORETYPE=Atom)" in err, err
    assert not (tmp_path / "g.html").exists()


@pytest.mark.slow
def test_the_suns_replay_from_the_store_is_checked(tmp_path: Path, capsys) -> None:
    """The Sun's 3-D replay of a game whose frames were not kept plays it again (from_store): one
    that ends otherwise than stored is refused, named, instead of shown."""
    from sim.sun.viewer.replay import from_store

    run = tmp_path / "run"
    assert main(["run", str(ROOT / "scenarios" / "sun" / "classic-2p.toml"), "--games", "2", "--backend", "serial",
                 "--out", str(run), "--no-report"]) == 0
    assert from_store(run, 1).meta["resimulated"]  # as stored: shown
    _tamper(run, 1, "[6.0, 3.0]")
    with pytest.raises(ReplayError, match=r"game 1 played again does not end as stored \(scores .* instead of "
                                          r"\[6\.0, 3\.0\]\).*maths path other \(OPENBLAS_CORETYPE=Atom\)"):
        from_store(run, 1)
    capsys.readouterr()
    assert main(["replay", "export", str(run), "--game", "1", "--out", str(tmp_path / "g.html")]) == 2
    assert "does not end as stored" in capsys.readouterr().err
