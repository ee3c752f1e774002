"""Every stored game says what played it (sim.core.provenance): maths path and code fingerprint,
compared batch by batch with the driver's own; mixing is said, and refused with ``strict``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sim.core import provenance
from sim.core.errors import WorkError
from sim.core.runner import run_study
from sim.core.scenario import load_scenario
from sim.core.store import Store
from sim.core.testing import VOLATILE_COLUMNS
from toy_game import RANDOM_VS_MCTS


def _scenario(tmp_path: Path, registry, games: int = 4):
    p = tmp_path / "s.toml"
    p.write_text(RANDOM_VS_MCTS.format(games=games, iters=5))
    return load_scenario(p, registry).with_overrides(registry, backend="serial", out=str(tmp_path / "run"))


def test_each_game_stores_the_provenance_of_the_process_that_played_it(tmp_path: Path, registry, capsys) -> None:
    sc = _scenario(tmp_path, registry)
    info = run_study(sc, registry, progress=False)
    here = provenance.here(provenance.task_modules("toy_game", [s.agent for s in sc.seats]))
    with Store.open(tmp_path / "run") as st:
        rows = st.query("SELECT math_path, code_fingerprint FROM games")
    assert rows == [(here.math_path, here.code)] * 4 and len(here.code) == 16
    assert info.provenance == {(here.math_path, here.code): 4}
    assert "played in" not in capsys.readouterr().err  # one way: nothing to say
    # the golden digests leave them out: they differ between machines by design
    assert {"math_path", "code_fingerprint"} <= VOLATILE_COLUMNS


def test_the_fingerprint_follows_the_code_of_an_outside_module(tmp_path: Path, monkeypatch) -> None:
    mod = tmp_path / "fp_agent_mod.py"
    mod.write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    a = provenance.code_fingerprint(["fp_agent_mod"])
    provenance._module_digest.cache_clear()
    mod.write_text("X = 2\n")
    b = provenance.code_fingerprint(["fp_agent_mod"])
    assert a != b and provenance.code_fingerprint() not in (a, b)
    assert provenance.task_modules("pkg.game:GAME", ["random", "my.agents:Greedy"]) == ("my.agents", "pkg.game")


def _play_otherwise(tmp_path: Path) -> None:
    """Mark every stored game as played by another maths path (what a worker set up otherwise stores)."""
    con = sqlite3.connect(tmp_path / "run" / "results.sqlite")
    with con:
        con.execute("UPDATE games SET math_path = 'other (OPENBLAS_CORETYPE=Atom)'")
    con.close()


def test_a_store_of_mixed_provenance_is_said_at_the_end_and_refused_with_strict(tmp_path: Path, registry,
                                                                                capsys) -> None:
    run_study(_scenario(tmp_path, registry, games=2), registry, progress=False)
    _play_otherwise(tmp_path)
    more = _scenario(tmp_path, registry, games=4)
    with pytest.raises(WorkError, match=r"--strict: the store already holds 2 games other \(OPENBLAS_CORETYPE=Atom"):
        run_study(more, registry, progress=False, strict=True)
    info = run_study(more, registry, progress=False)
    assert info.played == 2 and len(info.provenance) == 2
    assert "the games of this study were played in 2 ways: 2 games" in capsys.readouterr().err


def test_a_game_played_otherwise_is_said_once_or_refused(tmp_path: Path, registry, monkeypatch, capsys) -> None:
    """A batch from a worker with another maths path (made here by changing what this process
    reports between the driver's look and the games'): a warning per kind, or with strict an
    error before that game is stored."""
    sc = _scenario(tmp_path, registry, games=3)
    real = provenance.here

    def elsewhere(modules=()):  # noqa: ANN001, ANN202 - what the games report
        return provenance.Provenance("other (OPENBLAS_CORETYPE=Atom)", real(modules).code)

    import sim.core.runner as runner

    monkeypatch.setattr(provenance, "here", elsewhere)
    monkeypatch.setattr(runner, "_expected", lambda game, points: {p.index: real(provenance.task_modules(
        type(game).__module__, [s.agent for s in p.scenario.seats])) for p in points})
    with pytest.raises(WorkError, match=r"--strict: game 0 of sweep point 0 was played with maths path other \(OPENBLAS_CORETYPE=Atom\)"):
        run_study(sc, registry, progress=False, strict=True)
    assert not (tmp_path / "run" / "results.sqlite").exists()  # refused before it was stored (nothing was)
    run_study(sc, registry, progress=False)
    err = capsys.readouterr().err
    assert err.count("was played with maths path other (OPENBLAS_CORETYPE=Atom) instead of") == 1, err


def test_the_report_says_what_played_the_games_and_when_they_were_played_otherwise(tmp_path: Path) -> None:
    from sim.cli import main

    root = Path(__file__).resolve().parents[2]
    run = tmp_path / "druids"
    assert main(["run", str(root / "scenarios" / "druids" / "classic.toml"), "--games", "6", "--backend", "serial",
                 "--out", str(run), "--no-report"]) == 0
    con = sqlite3.connect(run / "results.sqlite")
    with con:
        con.execute("UPDATE games SET math_path = 'other (OPENBLAS_CORETYPE=Atom)' WHERE game_index < 2")
    con.close()
    assert main(["report", str(run)]) == 0
    page = (run / "report" / "report.html").read_text()
    assert "played by" in page and "2 games other (OPENBLAS_CORETYPE=Atom)/" in page
    assert "played in more than one way" in page
