"""Issue 13, "Processes and files" and "Tracebacks": damaged stores, limits on counts and angles,
inputs that are not regular files, file endings, and lines a user copies (in-process, seconds).

The cases with real processes (kill, two runs into one folder) are in
tests/core/test_core_processes.py.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from cli_scenarios import druids_scenario

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "scenarios" / "sun" / "layouts" / "even-ring.toml"

DRUIDS = druids_scenario(4)


def bad(capsys, argv: list[str], *needles: str, code: int = 2) -> str:  # noqa: ANN001
    """Run ``stonelab argv``; assert the exit code, one ``error:`` line holding every needle, no traceback."""
    rc = main(argv)
    cap = capsys.readouterr()
    assert rc == code, (rc, cap.out, cap.err)
    assert "Traceback" not in cap.err + cap.out
    errors = [line for line in cap.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, cap.err
    for n in needles:
        assert n in errors[0], (n, errors[0])
    return errors[0]


@pytest.fixture
def druids_file(tmp_path: Path) -> Path:
    p = tmp_path / "study.toml"
    p.write_text(DRUIDS, encoding="utf-8")
    return p


@pytest.fixture
def druids_run(tmp_path: Path, druids_file: Path, capsys) -> Path:  # noqa: ANN001
    out = tmp_path / "run"
    assert main(["run", str(druids_file), "--out", str(out), "--no-report", "--json"]) == 0
    capsys.readouterr()
    return out


# --- command-line values are blamed on the option, within sane limits ----------------------------
def test_games_override_blames_the_option_not_the_file(capsys, druids_file: Path, tmp_path: Path) -> None:
    err = bad(capsys, ["run", str(druids_file), "--games", "1000000000000", "--out", str(tmp_path / "r")],
              "key '--games'", "got 1000000000000", "10000000")
    assert str(druids_file) not in err  # the file is fine; the option is not
    assert not (tmp_path / "r").exists()


def test_absurd_worker_counts_are_refused(capsys, druids_file: Path, tmp_path: Path) -> None:
    from sim.core.runner import MAX_WORKERS_PER_CORE

    limit = MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)
    for n in (limit + 1, 300 if limit < 300 else limit * 2):
        bad(capsys, ["run", str(druids_file), "--backend", "process", "--workers", str(n),
                     "--out", str(tmp_path / "r")], "key '--workers'", f"got {n}", f"to {limit}")
    assert not (tmp_path / "r").exists()


def test_more_workers_than_cores_warns() -> None:
    from sim.core.runner import check_workers

    cores = os.cpu_count() or 1
    assert check_workers(0) == (cores, None)  # 0: one per core
    assert check_workers(cores) == (cores, None)
    n, warning = check_workers(cores + 1)
    assert n == cores + 1 and warning is not None and f"on {cores} cores" in warning


def test_duplicate_sweep_values_are_refused(capsys, tmp_path: Path) -> None:
    p = tmp_path / "sweep.toml"
    p.write_text(DRUIDS + '\n[sweep]\n"seats.1.cost" = [0.03, 0.05, 0.03]\n', encoding="utf-8")
    bad(capsys, ["validate", str(p)], "key 'sweep.seats.1.cost'", "0.03", "listed twice")
    p.write_text(DRUIDS + '\n[sweep]\n"seats.1.cost" = [0.03, 0.05]\n', encoding="utf-8")
    assert main(["validate", str(p)]) == 0  # distinct values still pass


# --- the results store: damaged, empty, incomplete -------------------------------------------------
def test_empty_store_is_named_damaged_and_force_moves_it_aside(capsys, druids_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    store = out / "results.sqlite"
    store.write_bytes(b"")
    err = bad(capsys, ["run", str(druids_file), "--out", str(out), "--no-report"], str(store), "damaged", "empty")
    assert "another scenario" not in err  # the old advice, whose --force deleted the file
    assert [p.name for p in out.iterdir() if p.name != ".stonelab.lock"] == ["results.sqlite"]
    # --force keeps the damaged file under another name, says so, and runs afresh
    assert main(["run", str(druids_file), "--out", str(out), "--no-report", "--json"]) == 2
    capsys.readouterr()
    assert main(["run", str(druids_file), "--out", str(out), "--no-report", "--json", "--force"]) == 0
    cap = capsys.readouterr()
    aside = [p for p in out.iterdir() if p.name.startswith("results.sqlite.damaged-")]
    assert len(aside) == 1 and aside[0].stat().st_size == 0
    assert aside[0].name in cap.err and "moved aside" in cap.err
    with sqlite3.connect(store) as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 4


def test_foreign_file_as_store_is_kept(capsys, druids_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.sqlite").write_text("my notes, not a database", encoding="utf-8")
    bad(capsys, ["run", str(druids_file), "--out", str(out), "--no-report"], "damaged or not a stonehenge-lab store",
        "deletes nothing")
    assert (out / "results.sqlite").read_text(encoding="utf-8") == "my notes, not a database"


def overwrite_text(store: Path, old: bytes) -> None:
    """Overwrite the last copy of ``old`` in the file with bytes that are not UTF-8 (a damaged page)."""
    data = bytearray(store.read_bytes())
    at = data.rfind(old)
    assert at > 0, old
    data[at:at + len(old)] = b"\xff" * len(old)
    store.write_bytes(bytes(data))


def test_store_with_an_overwritten_page(capsys, druids_run: Path) -> None:
    store = druids_run / "results.sqlite"
    overwrite_text(store, b'"random')
    for cmd in (["report", str(druids_run)], ["export", str(druids_run)]):
        bad(capsys, cmd, str(store), "damaged", "Could not decode to UTF-8")
    assert not (druids_run / "report").exists() and not (druids_run / "export").exists()


def test_store_missing_a_game_table_says_so(capsys, druids_run: Path) -> None:
    from sim.games import REGISTRY

    tables = [f"druids_{t}" for t in REGISTRY.get("druids").spec.detail_tables] or ["druids_games"]
    with sqlite3.connect(druids_run / "results.sqlite") as con:
        con.execute(f'DROP TABLE "{tables[0]}"')
    bad(capsys, ["report", str(druids_run)], "damaged", f"no table {tables[0]}")
    with sqlite3.connect(druids_run / "results.sqlite") as con:
        con.execute("DROP TABLE seats")
    bad(capsys, ["export", str(druids_run)], "damaged", "no table seats")


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_report_in_a_read_only_run_folder(capsys, druids_run: Path) -> None:
    os.chmod(druids_run, 0o555)
    try:
        bad(capsys, ["report", str(druids_run)], str(druids_run), "cannot write the report", "Permission denied")
    finally:
        os.chmod(druids_run, 0o755)
    assert not [p for p in druids_run.iterdir() if p.name.startswith(".report")]


# --- export: the file ending is the format -----------------------------------------------------------
def test_export_ending_must_match_the_format(capsys, druids_run: Path, tmp_path: Path) -> None:
    bad(capsys, ["export", str(druids_run), "--format", "csv", "--out", str(tmp_path / "x.parquet")],
        "key '--out'", ".parquet", "format is csv", "--format parquet")
    bad(capsys, ["export", str(druids_run), "--format", "parquet", "--out", str(tmp_path / "x")],
        "key '--out'", "no ending", ".parquet")
    assert not (tmp_path / "x.parquet").exists() and not (tmp_path / "x").exists()
    # without --format the ending chooses it: a real Parquet file (magic bytes PAR1)
    assert main(["export", str(druids_run), "--out", str(tmp_path / "g.parquet")]) == 0
    data = (tmp_path / "g.parquet").read_bytes()
    assert data[:4] == b"PAR1" and data[-4:] == b"PAR1"


# --- inputs that are not regular files ----------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.timeout(60)
def test_a_fifo_is_refused_not_read(capsys, tmp_path: Path) -> None:
    fifo = tmp_path / "ring.toml"
    os.mkfifo(fifo)
    # before the fix the layout's open() blocked forever (no writer): the timeout above would fail it
    bad(capsys, ["sun", "pass", str(fifo), "--aim", "0"], str(fifo), "named pipe", "layout file")
    bad(capsys, ["stability", str(fifo)], "named pipe", "layout file")
    bad(capsys, ["validate", str(fifo)], "named pipe", "scenario file")
    bad(capsys, ["replay", "info", str(fifo)], "named pipe", "replay file")


# --- sun pass and stability: numbers out of range -----------------------------------------------------
@pytest.mark.parametrize("aim", ["1e308", "-1e308", "361", "inf", "nan"])
def test_aim_must_be_an_angle(capsys, aim: str) -> None:
    bad(capsys, ["sun", "pass", str(LAYOUT), f"--aim={aim}"], "key '--aim'", "from -360 to 360")


def test_negative_aim_is_normalised(capsys) -> None:
    import json

    assert main(["sun", "pass", str(LAYOUT), "--aim=-90", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["aim_deg"] == pytest.approx(270.0)


def test_release_message_stays_short(capsys) -> None:
    err = bad(capsys, ["sun", "pass", str(LAYOUT), "--aim", "0", "--release", "1e308"], "key 'release'", "1e+308",
              "allowed: from")
    assert len(err) < 300 and "0" * 30 not in err


def test_stability_trials_have_a_limit(capsys) -> None:
    from sim.sun.table.stability import MAX_TRIALS

    bad(capsys, ["stability", str(LAYOUT), "--trials", "1000000000"], "key '--trials'", f"{MAX_TRIALS:,}")


def test_pose_recording_with_bodies_not_a_list(capsys, tmp_path: Path) -> None:
    import json

    rec = tmp_path / "poses.json"
    base = {"format": "stonelab.sun.poses", "version": 1, "rate_hz": 30.0, "frames": [[0.0, []]]}
    for bodies, needles in (("abc", ["key 'bodies'", "not a string"]), ([1], ["key 'bodies[0]'", "not a number"]),
                            (None, ["key 'bodies'", "not null"])):
        rec.write_text(json.dumps({**base, "bodies": bodies}), encoding="utf-8")
        for cmd in ("info", "convert"):
            extra = ["--out", str(tmp_path / "c.npz")] if cmd == "convert" else []
            bad(capsys, ["replay", cmd, str(rec), *extra], str(rec), *needles)
    rec.write_text(json.dumps({**base, "bodies": [], "events": {"type": "release"}}), encoding="utf-8")
    bad(capsys, ["replay", "info", str(rec)], "key 'events'", "not an object")
    assert not (tmp_path / "c.npz").exists()


# --- what the user copies stays whole ----------------------------------------------------------------
def test_layout_name_is_printed_as_given(capsys, tmp_path: Path) -> None:
    for name in ("my-ring.toml", "ring[v2].toml"):  # markup ate "[v2]" before
        p = tmp_path / name
        shutil.copy(LAYOUT, p)
        assert main(["sun", "pass", str(p), "--aim", "10"]) == 0
        first = capsys.readouterr().out.splitlines()[0]
        assert first.startswith(f"{p} aim 10.0 deg"), first


def test_copyable_commands_are_one_line_when_piped(capsys) -> None:
    from sim.cli_tables import print_summary as _print_summary

    deep = "/" + "/".join(["a-rather-long-folder-name"] * 8)
    replay = f"{deep}/replays/game-0.npz"
    _print_summary({"scenario": "s", "game": "sun", "games": 1, "seed": 0, "draws": 0, "shared_wins": 0, "mean_length": 1.0,
                    "played": 1, "resumed_skipped": 0, "wall_s": 1.0, "out": deep, "report": f"{deep}/report.html",
                    "seats": [], "replays": [replay], "replay_viewer": f"{deep}/replay"})
    lines = capsys.readouterr().out.splitlines()
    # each path and command whole on a line of its own when together they pass 80 columns
    assert f"watch: stonelab replay view {replay}" in lines
    assert f"results: {deep}/results.sqlite" in lines and f"report: {deep}/report.html" in lines
    _print_summary({"scenario": "s", "game": "sun", "games": 1, "seed": 0, "draws": 0, "shared_wins": 0, "mean_length": 1.0,
                    "played": 1, "resumed_skipped": 0, "wall_s": 1.0, "out": "/r", "report": "/r/report.html",
                    "seats": [], "replays": ["/r/g.npz"]})
    # short ones share a line
    assert "results: /r/results.sqlite   report: /r/report.html" in capsys.readouterr().out.splitlines()


# --- the one progress display -------------------------------------------------------------------------
def test_plain_progress_lines_carry_the_time_left(capsys) -> None:
    from sim.core.progress import Progress

    bar = Progress(20, "video x.mp4", unit="frames")  # stderr is not a terminal here: plain lines
    for _ in range(20):
        bar.advance()
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 11  # the start, then one per 10 %, not one per frame
    assert lines[0] == "video x.mp4: 0/20 frames (0 %), 0 s"
    assert lines[1].startswith("video x.mp4: 2/20 frames (10 %)") and "left" in lines[1]
    assert lines[-1].startswith("video x.mp4: 20/20 frames (100 %)") and "left" not in lines[-1]
    quiet = Progress(20, "short job", quiet_s=60.0)
    for _ in range(20):
        quiet.advance()
    assert capsys.readouterr().err == ""  # a job shorter than quiet_s leaves no lines


def test_write_atomically_keeps_the_old_file_when_the_writer_fails(tmp_path) -> None:
    # every whole-file writer (report, export, compare page, replay, layout save, skill preset) goes
    # through it: a writer that fails half way leaves the old file as it was and no side file
    from sim.core.outputs import write_atomically

    f = tmp_path / "sub" / "out.txt"
    write_atomically(f, lambda t: t.write_text("old"))
    assert f.read_text() == "old"

    def half(t) -> None:
        t.write_text("new, half writ")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        write_atomically(f, half)
    assert f.read_text() == "old" and sorted(p.name for p in f.parent.iterdir()) == ["out.txt"]


# --- a run writes only where it may; nothing it did not write is replaced --------------------
def test_run_refuses_a_folder_of_other_files(capsys, druids_file: Path, tmp_path: Path) -> None:
    mine = tmp_path / "project"
    (mine / "report").mkdir(parents=True)
    (mine / "report" / "notes.txt").write_text("precious", encoding="utf-8")
    for cmd in ("run", "tournament"):
        for extra in ([], ["--force"]):  # --force starts a run folder afresh; it never takes a foreign folder
            bad(capsys, [cmd, str(druids_file), "--out", str(mine), *extra], str(mine), "holds other files",
                "report", "no stonelab run", "new or empty folder")
    assert (mine / "report" / "notes.txt").read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in mine.iterdir()) == ["report"]  # no store, no lock left
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["run", str(druids_file), "--out", str(empty), "--no-report", "--json"]) == 0  # an empty folder is fine
    capsys.readouterr()


def test_report_never_replaces_files_it_did_not_write(capsys, druids_run: Path, druids_file: Path) -> None:
    (druids_run / "report").mkdir()
    (druids_run / "report" / "report.html").write_text("<html></html>", encoding="utf-8")  # as a report leaves it
    notes = druids_run / "report" / "my-notes.txt"
    notes.write_text("precious", encoding="utf-8")
    bad(capsys, ["report", str(druids_run)], str(druids_run / "report"), "my-notes.txt", "move them out")
    # a resumed run checks before its games, not after them
    bad(capsys, ["run", str(druids_file), "--out", str(druids_run), "--games", "6"], "my-notes.txt")
    assert notes.read_text(encoding="utf-8") == "precious"
    with sqlite3.connect(druids_run / "results.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 4  # nothing played
    notes.unlink()
    assert main(["report", str(druids_run)]) == 0


def test_stale_report_temp_folders_are_cleaned(capsys, druids_run: Path) -> None:
    import subprocess

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid that was used and has ended
    stale = druids_run / f".report.tmp-{dead.pid}"
    (stale / "sub").mkdir(parents=True)
    (stale / "sub" / "a.png").write_bytes(b"x")
    live = druids_run / f".report.tmp-{os.getppid()}"  # a running process: its report is in progress
    live.mkdir()
    keep = [druids_run / ".report.tmp-notes", druids_run / f"report.tmp-{dead.pid}"]  # not our names
    for k in keep:
        k.mkdir()
    assert main(["report", str(druids_run)]) == 0
    capsys.readouterr()
    assert not stale.exists() and live.is_dir() and all(k.is_dir() for k in keep)


def test_report_warns_while_a_run_writes(capsys, druids_run: Path) -> None:
    from sim.core.store import lock_run_folder

    with lock_run_folder(druids_run):  # what a writing run holds
        assert main(["report", str(druids_run)]) == 0
        err = capsys.readouterr().err
        assert "warning: a run (pid" in err and "games stored so far" in err
        for cmd in (["export", str(druids_run), "--out", str(druids_run.parent / "g.csv")],
                    ["compare", str(druids_run), str(druids_run / "results.sqlite")]):
            assert main(cmd) == 0
            assert "warning: a run (pid" in capsys.readouterr().err
    assert main(["report", str(druids_run)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_export_does_not_overwrite_an_earlier_export(capsys, druids_run: Path, tmp_path: Path) -> None:
    assert main(["export", str(druids_run)]) == 0
    first = druids_run / "export" / "games.csv"
    capsys.readouterr()
    first.write_text("edited in a spreadsheet", encoding="utf-8")
    bad(capsys, ["export", str(druids_run)], str(first), "exists", "--force", "--out")
    assert first.read_text(encoding="utf-8") == "edited in a spreadsheet"
    assert main(["export", str(druids_run), "--force"]) == 0
    assert first.read_text(encoding="utf-8").startswith("point,")
    mine = tmp_path / "mine.csv"
    mine.write_text("old", encoding="utf-8")
    assert main(["export", str(druids_run), "--out", str(mine)]) == 0  # --out names the file: the user chose it
    assert mine.read_text(encoding="utf-8") != "old"


# --- pipes, locks, full disks -------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["games"], ["--help"], ["run", "--help"], ["validate", "FILE"], ["export", "RUN"]])
def test_output_into_a_closed_pipe_ends_quietly(argv: list[str], druids_run: Path, druids_file: Path,
                                                tmp_path: Path) -> None:
    import subprocess

    argv = [{"RUN": str(druids_run), "FILE": str(druids_file)}.get(a, a) for a in argv]
    if argv[0] == "export":
        argv += ["--out", str(tmp_path / "g.csv")]
    r, w = os.pipe()
    os.close(r)  # the reader has gone before the first byte, as in `stonelab games | head -0`
    try:
        proc = subprocess.run([sys.executable, "-m", "sim.cli", *argv], stdout=w, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=120, check=False)
    finally:
        os.close(w)
    assert proc.returncode == 141, proc.stderr.decode()  # 128 + SIGPIPE, as a shell shows for `yes | head -0`
    assert proc.stderr.decode() == ""


def test_store_locked_by_another_program(capsys, monkeypatch, druids_file: Path, druids_run: Path) -> None:
    import sim.core.store as store_mod

    monkeypatch.setattr(store_mod, "LOCK_TIMEOUT_S", 0.2)  # the wait is 5 s; the test need not sit through it
    other = sqlite3.connect(druids_run / "results.sqlite", isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")  # another program's write transaction, held open
        bad(capsys, ["run", str(druids_file), "--out", str(druids_run), "--games", "6", "--no-report"],
            str(druids_run / "results.sqlite"), "another program holds the results store locked", "0.2 s")
    finally:
        other.close()
    with sqlite3.connect(druids_run / "results.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 4  # kept, and resumable:
    assert main(["run", str(druids_file), "--out", str(druids_run), "--games", "6", "--no-report", "--json"]) == 0


def test_a_full_disk_while_storing_games_is_one_line(capsys, monkeypatch, druids_file: Path, tmp_path: Path) -> None:
    from sim.core.store import Store

    real = Store._add
    calls = []

    def full_after_two(self, r) -> None:  # noqa: ANN001 - SQLite's own error for a full disk
        calls.append(r.game_index)
        if len(calls) > 2:
            raise sqlite3.OperationalError("database or disk is full")
        real(self, r)

    monkeypatch.setattr(Store, "_add", full_after_two)
    out = tmp_path / "run"
    bad(capsys, ["run", str(druids_file), "--out", str(out)], str(out / "results.sqlite"), "the disk is full",
        "games stored before are kept", "resume", code=1)
    with sqlite3.connect(out / "results.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2
    assert not (out / "report").exists()  # the run stopped there
    calls.clear()
    monkeypatch.setattr(Store, "_add", lambda self, r: (_ for _ in ()).throw(
        sqlite3.OperationalError("database or disk is full")))
    fresh = tmp_path / "fresh"
    bad(capsys, ["run", str(druids_file), "--out", str(fresh)], "the disk is full", code=1)
    assert not fresh.exists()  # no game stored: nothing of the run is left


@pytest.fixture
def small_disk(tmp_path: Path):  # noqa: ANN201
    """A 192 KiB tmpfs (needs root and mount); the test is skipped where one cannot be mounted."""
    import subprocess

    d = tmp_path / "small"
    d.mkdir()
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root on Linux")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=192k", "tmpfs", str(d)], capture_output=True, check=False)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    try:
        yield d
    finally:
        if subprocess.run(["umount", str(d)], capture_output=True, check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(d)], check=False)  # still busy: detach it anyway


def test_a_really_full_disk(capsys, druids_file: Path, small_disk: Path) -> None:
    out = small_disk / "run"
    bad(capsys, ["run", str(druids_file), "--games", "400", "--out", str(out)], "the disk is full", code=1)
    con = sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True)
    try:
        stored = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finally:
        con.close()  # an open file keeps the tmpfs busy
    assert 0 < stored < 400
    # the next attempt on the full disk is one line too, whatever it meets first
    bad(capsys, ["run", str(druids_file), "--games", "400", "--out", str(small_disk / "other")], code=1)
    assert not (small_disk / "other").exists()


# --- grids have a size limit, counted before any point is made ----------------------------------
GREEDY_PAIR = DRUIDS.replace('agent = "random"', 'agent = "greedy"')


def _values(n: int) -> str:
    return ", ".join(f"{(i + 1) / (10 * n):.6f}" for i in range(n))


@pytest.mark.timeout(60)
def test_a_huge_sweep_is_refused_at_once(capsys, tmp_path: Path) -> None:
    import time

    from sim.core.scenario import MAX_SWEEP_POINTS

    p = tmp_path / "huge.toml"
    p.write_text(GREEDY_PAIR + f'\n[sweep]\n"seats.0.cost" = [{_values(1100)}]\n"seats.1.cost" = [{_values(1100)}]\n',
                 encoding="utf-8")
    for cmd in ("validate", "run"):
        t0 = time.perf_counter()
        bad(capsys, [cmd, str(p), "--out", str(tmp_path / "r")] if cmd == "run" else [cmd, str(p)],
            "key 'sweep'", "1100 x 1100 = 1,210,000 points", f"at most {MAX_SWEEP_POINTS:,}")
        assert time.perf_counter() - t0 < 10  # counted, not built (it used to grow memory for minutes)
    assert not (tmp_path / "r").exists()


@pytest.mark.timeout(120)
def test_a_large_allowed_sweep_validates_quickly(capsys, tmp_path: Path) -> None:
    import time

    p = tmp_path / "large.toml"
    for grid in (f'"seats.0.cost" = [{_values(100)}]\n"seats.1.cost" = [{_values(100)}]',
                 f'"seats.1.cost" = [{_values(10_000)}]'):
        p.write_text(GREEDY_PAIR + f"\n[sweep]\n{grid}\n", encoding="utf-8")
        t0 = time.process_time()
        assert main(["validate", str(p)]) == 0
        cpu = time.process_time() - t0
        assert "10000 sweep point(s)" in capsys.readouterr().out
        # about 1 s of CPU; every point used to copy the whole grid: the second took minutes
        assert cpu < 6.0, cpu


def test_tournament_seatings_are_counted_not_listed(capsys, tmp_path: Path) -> None:
    p = tmp_path / "t.toml"
    agents = ", ".join(f'{{ agent = "greedy", name = "g{i}", cost = {(i + 1) / 1000:.3f} }}' for i in range(200))
    p.write_text(f'game = "druids"\ngames = 1\n[tournament]\nplayers = 2\nagents = [{agents}]\n', encoding="utf-8")
    bad(capsys, ["validate", str(p)], "200 entrants", "39,800 seatings", "at most 10,000")


@pytest.mark.timeout(60)
def test_a_huge_sensitivity_plan_is_refused_at_once(capsys, tmp_path: Path) -> None:
    text = (ROOT / "scenarios" / "sun" / "sensitivity.toml").read_text(encoding="utf-8")
    p = tmp_path / "s.toml"
    p.write_text(text.replace("trajectories = 10 ", "trajectories = 90000 "), encoding="utf-8")
    bad(capsys, ["validate", str(p)], "key 'sensitivity.trajectories'", "810,000 sample points", "at most 10,000")
    bad(capsys, ["sensitivity", str(ROOT / "scenarios" / "sun" / "sensitivity.toml"), "--trajectories", "90000",
                 "--out", str(tmp_path / "r")], "key '--trajectories'", "810,000")
    assert not (tmp_path / "r").exists()


def test_write_atomically_removes_what_a_killed_writer_left(tmp_path) -> None:
    import subprocess

    from sim.core.outputs import write_atomically

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    f = tmp_path / "games.csv"
    stale = tmp_path / f".games.csv.part-{dead.pid}"
    stale.write_text("half a file")
    other = tmp_path / f".other.csv.part-{dead.pid}"  # another target's: not this writer's to remove
    other.write_text("x")
    write_atomically(f, lambda t: t.write_text("whole"))
    assert f.read_text() == "whole" and not stale.exists() and other.exists()


def test_readers_of_a_store_locked_by_another_program(capsys, monkeypatch, druids_run: Path, tmp_path: Path) -> None:
    import sim.core.store as store_mod

    monkeypatch.setattr(store_mod, "LOCK_TIMEOUT_S", 0.2)
    other = sqlite3.connect(druids_run / "results.sqlite", isolation_level=None)
    try:
        other.execute("PRAGMA journal_mode=DELETE")  # out of WAL mode, an exclusive lock also stops readers
        other.execute("BEGIN EXCLUSIVE")
        for cmd in (["report", str(druids_run)], ["export", str(druids_run), "--out", str(tmp_path / "g.csv")],
                    ["compare", str(druids_run), str(druids_run)]):
            err = bad(capsys, cmd, str(druids_run / "results.sqlite"), "another program holds the results store locked")
            assert "damaged" not in err  # a lock is not damage
    finally:
        other.close()
    assert not (druids_run / "report").exists() and not (tmp_path / "g.csv").exists()


@pytest.mark.skipif(sys.platform != "linux", reason="file names of raw bytes")
def test_report_and_compare_of_a_run_folder_named_with_a_non_utf8_byte(druids_run: Path, tmp_path: Path) -> None:
    import subprocess

    odd = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/run\xff"))
    shutil.copytree(druids_run, odd)
    page = tmp_path / "c.html"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8"}  # a UTF-8 terminal: strict output
    for argv in (["report", str(odd)], ["compare", str(druids_run), str(odd), "--html", str(page)]):
        p = subprocess.run([sys.executable, "-m", "sim.cli", *argv], capture_output=True, env=env, cwd=ROOT,
                           timeout=300, check=False)
        assert p.returncode == 0, p.stderr.decode(errors="replace")  # was UnicodeEncodeError
        assert b"run\xff" in p.stdout  # the path printed as the bytes it has, as ls prints it
    assert "run\\xff" in (odd / "report" / "report.html").read_text(encoding="utf-8")
    assert "run\\xff" in page.read_text(encoding="utf-8")
