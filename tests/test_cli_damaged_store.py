"""A store with one damaged page is named as damaged by every command that reads it (report,
export, compare, replay), exit 2, and nothing is written from it: SQLite's quick_check runs when a
store is opened (sim/core/store.py), so a page in a table the command does not read counts too."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("store") / "good"
    assert main(["run", str(ROOT / "scenarios" / "druids" / "classic.toml"), "--games", "100", "--backend", "serial",
                 "--out", str(run), "--no-report"]) == 0
    con = sqlite3.connect(run / "results.sqlite")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the main file
    con.close()
    return run


def _damaged(good: Path, tmp: Path, page: int) -> Path:
    run = tmp / f"page{page}"
    shutil.copytree(good, run)
    with open(run / "results.sqlite", "r+b") as f:
        f.seek(4096 * (page - 1))
        f.write(b"\xde\xad\xbe\xef" * 1024)  # the whole page, its header too
    return run


def _pages(good: Path) -> int:
    con = sqlite3.connect(f"file:{good / 'results.sqlite'}?mode=ro", uri=True)
    try:
        return int(con.execute("PRAGMA page_count").fetchone()[0])
    finally:
        con.close()


def test_every_damaged_page_stops_the_export_and_writes_nothing(good: Path, tmp_path: Path, capsys) -> None:
    n = _pages(good)
    assert n > 10
    for page in range(2, n + 1):  # page 1 holds the schema: SQLite itself refuses that one
        run = _damaged(good, tmp_path, page)
        out = tmp_path / f"page{page}.csv"
        assert main(["export", str(run), "--out", str(out)]) == 2, f"page {page}"
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "the results store is damaged" in err and str(run) in err, err
        assert "Traceback" not in err and not out.exists(), f"page {page}"


@pytest.mark.parametrize("table", ["games", "seats", "druids_claims"])
def test_report_and_compare_name_the_damaged_store(good: Path, tmp_path: Path, capsys, table: str) -> None:
    con = sqlite3.connect(f"file:{good / 'results.sqlite'}?mode=ro", uri=True)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    con.close()
    run = _damaged(good, tmp_path, int(root))
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and f"{run / 'results.sqlite'}: the results store is damaged" in err, err
    assert not (run / "report").exists()
    html = tmp_path / "c.html"
    for a, b in ((good, run), (run, good)):
        assert main(["compare", str(a), str(b), "--html", str(html)]) == 2
        err = capsys.readouterr().err
        assert f"{run / 'results.sqlite'}: the results store is damaged" in err and "RUN_A" not in err, err
        assert not html.exists()
    assert main(["replay", "export", str(run), "--game", "0", "--out", str(tmp_path / "g.html")]) == 2
    assert "the results store is damaged" in capsys.readouterr().err
