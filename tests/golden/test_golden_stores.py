"""Refactors change no result: one seeded study per game must store exactly what it stored before.

Each study below is run through the real CLI (``stonelab run``, serial backend) and its store is
reduced to a digest of every table's rows, sorted, without the columns that hold wall-clock time or
the software version, and without the meta rows that name paths. ``digests.json`` holds the digests.

The Sun's physics is chaotic, so its digest holds on any x86-64 CPU only because the ``stonelab``
command pins the maths libraries' code path (``sim.core.mathpath``, docs/reproducibility.md). Its
study therefore runs as a real ``python -m sim.cli`` subprocess, once in the default environment
and once under a second libm/BLAS dispatch setting, which is what another CPU would choose; a
companion test proves that without the pinning the two settings store different digests.

Bit for bit holds for one set of versions: ``digests.json`` records, under ``_environment``, the
Python, glibc (libm), numpy, scipy and pybullet versions the Sun's digest was measured with; where
they differ (another Linux distribution, the newest versions CI also tries) the Sun's bit-for-bit
check is skipped with the reason, and the statistical check (slow) is what holds.

A change that is *meant* to change results (a rule fix, new agent behaviour) regenerates the file
with ``python tests/golden/test_golden_stores.py --write`` (it runs every study with the pinned
code path) and says so in its commit message; a refactor must leave it alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":  # run as a script: this checkout's code, not an installed copy
    sys.path.insert(0, str(ROOT))

from sim.core import mathpath  # noqa: E402
from sim.core.testing import store_results  # noqa: E402
DIGESTS = Path(__file__).with_name("digests.json")

#: (scenario, games, seed) per game: small, but every game reaches its end and its detail tables.
STUDIES: dict[str, tuple[str, int, int]] = {
    "druids": ("scenarios/druids/classic.toml", 6, 3),
    "rocks": ("scenarios/rocks/classic-3p.toml", 6, 3),
    "sozoikum": ("scenarios/sozoikum/classic-4p.toml", 6, 3),
    "sun": ("scenarios/sun/classic-2p.toml", 2, 3),
}
#: games whose results depend on the maths libraries' code path (chaotic physics): run in a subprocess
PATH_SENSITIVE = ("sun",)
#: a second dispatch setting, as another CPU would choose it: glibc's generic libm (no FMA/AVX2) and
#: OpenBLAS's Core2 kernels, which stored other bits than this machine's native ones (measured);
#: both only take features away, so they run on any x86-64-v2 CPU
OTHER_PATH = {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA", "OPENBLAS_CORETYPE": "Core2"}
#: what chooses the code path, cleared for the "default environment" run
_PATH_VARS = ("GLIBC_TUNABLES", "OPENBLAS_CORETYPE", "STONELAB_NATIVE_MATH", "NPY_DISABLE_CPU_FEATURES")

def store_digest(db: Path) -> str:
    """SHA-256 of a store's results (:func:`sim.core.testing.store_results`: every table's rows,
    sorted, volatile columns and meta rows dropped)."""
    h = hashlib.sha256()
    for t, (cols, rows) in store_results(db).items():
        h.update(json.dumps([t, cols, rows], sort_keys=True, default=repr).encode())
    return h.hexdigest()


def _argv(game: str, out: Path, games: int | None = None) -> list[str]:
    scenario, n, seed = STUDIES[game]
    return ["run", str(ROOT / scenario), "--games", str(games or n), "--seed", str(seed), "--backend", "serial",
            "--out", str(out), "--no-report"]


def run_study(game: str, out: Path) -> str:
    """Run the game's golden study into ``out`` through the CLI in this process and return its digest."""
    from sim.cli import main

    rc = main(_argv(game, out))
    assert rc == 0, f"stonelab run {STUDIES[game][0]} exited {rc}"
    return store_digest(out / "results.sqlite")


def run_study_command(game: str, out: Path, env: dict[str, str] | None = None, games: int | None = None) -> str:
    """Run the game's golden study (or ``games`` games of it) as ``python -m sim.cli run ...`` (a new
    process, so the command's pinning of the maths code path applies) with ``env`` added to the
    environment minus what chooses the code path; return its store's digest."""
    base = {k: v for k, v in os.environ.items() if k not in _PATH_VARS}
    base["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [base.get("PYTHONPATH")])])
    proc = subprocess.run([sys.executable, "-m", "sim.cli", *_argv(game, out, games)], cwd=ROOT, env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"stonelab run {STUDIES[game][0]} exited {proc.returncode}: {proc.stderr[-2000:]}"
    assert "could not pin" not in proc.stderr, proc.stderr[-2000:]
    return store_digest(out / "results.sqlite")


def environment() -> dict[str, str]:
    """What the Sun's bits depend on besides the code and the CPU (docs/reproducibility.md)."""
    import platform
    from importlib import metadata

    env = {"python": ".".join(platform.python_version_tuple()[:2]),
           "glibc": (os.confstr("CS_GNU_LIBC_VERSION") or "none") if hasattr(os, "confstr") else "none"}
    for package in ("numpy", "scipy", "pybullet"):
        env[package] = metadata.version(package)
    return env


def _native_paths_differ() -> bool:
    """Whether this CPU's native libm path differs from the generic one (FMA and AVX2 present)."""
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return False
    return {"fma", "avx2"} <= set(flags.split(":", 1)[1].split())


@pytest.mark.parametrize("game", sorted(set(STUDIES) - set(PATH_SENSITIVE)))
def test_seeded_study_stores_what_it_stored_before(game: str, tmp_path: Path) -> None:
    expected = json.loads(DIGESTS.read_text())[game]
    assert run_study(game, tmp_path / game) == expected, (
        f"the seeded {game} study stores different results than recorded; if the change is meant to "
        "change results, regenerate tests/golden/digests.json (see this file's docstring)")


@pytest.mark.skipif(not mathpath.applies(), reason="the maths code path is pinned on Linux/glibc/x86-64 only")
@pytest.mark.parametrize("game", PATH_SENSITIVE)
def test_seeded_study_stores_the_same_on_two_maths_code_paths(game: str, tmp_path: Path) -> None:
    """What a newcomer's CPU would choose, tried on this one: the default environment and a second
    libm/BLAS dispatch setting both store the recorded digest, because the command pins one path."""
    recorded = json.loads(DIGESTS.read_text())
    here = environment()
    if recorded.get("_environment") != here:
        pytest.skip(f"the {game} digest was recorded with {recorded.get('_environment')}, here {here}: bit for bit "
                    "holds for the same versions only; test_another_code_path_gives_the_same_distribution (slow) "
                    "is the check that holds here (docs/reproducibility.md)")
    expected = recorded[game]
    found = {"default environment": run_study_command(game, tmp_path / "default"),
             f"{OTHER_PATH}": run_study_command(game, tmp_path / "other", OTHER_PATH)}
    wrong = {k: v[:12] for k, v in found.items() if v != expected}
    assert not wrong, (
        f"the seeded {game} study stores other results than recorded ({expected[:12]}...) under {wrong}; "
        "if both differ and the change is meant to change results, regenerate tests/golden/digests.json "
        "(see this file's docstring); if only one differs, the maths code path is not pinned "
        "(sim/core/mathpath.py, docs/reproducibility.md)")


@pytest.mark.slow  # two more Sun studies in subprocesses; the proof that the test above can fail
@pytest.mark.skipif(not _native_paths_differ(), reason="this CPU has no FMA/AVX2 libm path to tell apart")
def test_without_pinning_the_two_code_paths_store_different_sun_results(tmp_path: Path) -> None:
    """The test above can fail: with the pinning switched off (STONELAB_NATIVE_MATH=1) the two
    dispatch settings store different Sun results on a CPU with FMA and AVX2."""
    off = {"STONELAB_NATIVE_MATH": "1"}
    native = run_study_command("sun", tmp_path / "native", off)
    other = run_study_command("sun", tmp_path / "other", {**off, **OTHER_PATH})
    assert native != other


@pytest.mark.slow  # two 40-game Sun studies, about a minute
@pytest.mark.skipif(not mathpath.applies(), reason="the second dispatch setting is for Linux/glibc/x86-64")
def test_another_code_path_gives_the_same_distribution(tmp_path: Path) -> None:
    """What holds across CPUs without the pinning: the same distribution. The Sun's study on this
    CPU's pinned path and, pinning off, on a second dispatch setting store different games, and
    `stonelab compare` finds no headline metric different (Holm-corrected, 5 %)."""
    from analysis.compare import compare_runs

    games = 40
    pinned = run_study_command("sun", tmp_path / "pinned", games=games)
    other = run_study_command("sun", tmp_path / "other", {"STONELAB_NATIVE_MATH": "1", **OTHER_PATH}, games=games)
    assert pinned != other  # OTHER_PATH is a code path of its own (Core2 BLAS kernels) on any CPU
    rows = compare_runs(tmp_path / "pinned", tmp_path / "other").rows
    assert len(rows) >= 5
    flagged = rows[rows["significant"]]
    assert flagged.empty, f"compare flags {flagged[['group', 'metric', 'p_holm']].to_dict('records')}"


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

    mathpath.pin()  # the in-process studies too take the pinned code path (this may re-exec the script)
    with tempfile.TemporaryDirectory() as d:
        found: dict[str, object] = {g: (run_study_command if g in PATH_SENSITIVE else run_study)(g, Path(d) / g)
                                    for g in sorted(STUDIES)}
    found["_environment"] = environment()
    print(json.dumps(found, indent=2))
    if "--write" in sys.argv:
        DIGESTS.write_text(json.dumps(found, indent=2) + "\n")
