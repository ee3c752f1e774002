"""Refactors change no result: one seeded study per game must store exactly what it stored before.

Each study below is run through the real CLI (``stonelab run``, serial backend) and its store is
reduced to a digest of every table's rows, sorted, without the columns that hold wall-clock time or
the software version, and without the meta rows that name paths. ``digests.json`` holds the digests
measured on commit 4001ad5 (before the play-loop, plug-in and file-split refactor of issue 14).

A change that is *meant* to change results (a rule fix, new agent behaviour) regenerates the file
with ``python tests/golden/test_golden_stores.py --write`` and says so in its commit message; a
refactor must leave it alone.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path

import pytest

from sim.core.testing import store_results

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = Path(__file__).with_name("digests.json")

#: (scenario, games, seed) per game: small, but every game reaches its end and its detail tables.
STUDIES: dict[str, tuple[str, int, int]] = {
    "druids": ("scenarios/druids/classic.toml", 6, 3),
    "rocks": ("scenarios/rocks/classic-3p.toml", 6, 3),
    "sozoikum": ("scenarios/sozoikum/classic-4p.toml", 6, 3),
    "sun": ("scenarios/sun/classic-2p.toml", 2, 3),
}

def store_digest(db: Path) -> str:
    """SHA-256 of a store's results (:func:`sim.core.testing.store_results`: every table's rows,
    sorted, volatile columns and meta rows dropped)."""
    h = hashlib.sha256()
    for t, (cols, rows) in store_results(db).items():
        h.update(json.dumps([t, cols, rows], sort_keys=True, default=repr).encode())
    return h.hexdigest()


def run_study(game: str, out: Path) -> str:
    """Run the game's golden study into ``out`` through the CLI and return its store's digest."""
    from sim.cli import main

    scenario, games, seed = STUDIES[game]
    rc = main(["run", str(ROOT / scenario), "--games", str(games), "--seed", str(seed), "--backend", "serial",
               "--out", str(out), "--no-report"])
    assert rc == 0, f"stonelab run {scenario} exited {rc}"
    return store_digest(out / "results.sqlite")


@pytest.mark.parametrize("game", sorted(STUDIES))
def test_seeded_study_stores_what_it_stored_before(game: str, tmp_path: Path) -> None:
    expected = json.loads(DIGESTS.read_text())[game]
    assert run_study(game, tmp_path / game) == expected, (
        f"the seeded {game} study stores different results than on commit 4001ad5; if the change is meant to "
        "change results, regenerate tests/golden/digests.json (see this file's docstring)")


def test_digest_sees_a_changed_result(tmp_path: Path) -> None:
    """The digest is not blind: changing one stored score changes it; a wall time does not."""
    out = tmp_path / "druids"
    before = run_study("druids", out)
    db = out / "results.sqlite"
    con = sqlite3.connect(db)
    con.execute("UPDATE games SET wall_s = wall_s + 1.0")
    con.commit()
    assert store_digest(db) == before
    con.execute("UPDATE seats SET score = score + 1 WHERE game_index = 0 AND seat = 0")
    con.commit()
    con.close()
    assert store_digest(db) != before


if __name__ == "__main__":  # regenerate: python tests/golden/test_golden_stores.py --write
    import tempfile

    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as d:
        found = {g: run_study(g, Path(d) / g) for g in sorted(STUDIES)}
    print(json.dumps(found, indent=2))
    if "--write" in sys.argv:
        DIGESTS.write_text(json.dumps(found, indent=2) + "\n")
