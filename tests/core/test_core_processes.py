"""Real `stonelab run` processes killed or run twice: no worker outlives its run, SIGTERM stops like
Ctrl-C (for every command that runs games: run, sensitivity, tournament, tune), and a second run into a
busy folder is refused.

Each test starts the real command in a subprocess on a study long enough to be killed midway.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# MCTS druids: about 0.1 s a game, so 300 games outlast every kill below
STUDY = """
name = "long"
game = "druids"
games = 300
seed = 3
backend = "{backend}"
workers = 2
[[seats]]
agent = "mcts"
iterations = 400
[[seats]]
agent = "greedy"
"""

#: What turns the study above into each command's study: `run` takes it as it is, `sensitivity`
#: samples two inputs (30 points of 300 games), `tournament` plays its two seats as entrants,
#: `tune` searches the MCTS seat's iterations (each trial a study of 300 games in trials/<id>/).
COMMAND_TAILS = {
    "run": "",
    "sensitivity": """
[sensitivity]
method = "morris"
trajectories = 10
[sensitivity.inputs]
"seats.0.iterations" = [200, 600]
"seats.0.exploration" = [0.5, 2.0]
""",
    "tournament": """
[tournament]
players = 2
""",
    "tune": """
[tune]
trials = 4
[tune.params]
"seats.0.iterations" = { low = 200, high = 600 }
[[tune.targets]]
metric = "first_player_edge"
value = 0.0
""",
}

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and /proc")


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (psutil if installed, else /proc)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        try:
            return {c.pid for c in psutil.Process(pid).children(recursive=True)}
        except psutil.NoSuchProcess:
            return set()
    parent: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            parent[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found.update(kids)
        todo.extend(kids)
    return found


def alive(pids: set[int]) -> set[int]:
    """The pids in ``pids`` still running (zombies, already dead but not reaped, do not count)."""
    out = set()
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(p)
    return out


def stored(out: Path) -> int:
    """Games stored in the run folder ``out`` (a search's: in its trials' stores too)."""
    n = 0
    for db in [out / "results.sqlite", *sorted(out.glob("trials/*/results.sqlite"))]:
        if not db.is_file():
            continue
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
                n += int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        except sqlite3.Error:
            pass
    return n


def start(scen: Path, out: Path, command: str = "run") -> subprocess.Popen:
    # its own process group, as a shell gives a command: Ctrl-C is SIGINT to the whole group; SIGINT as
    # Ctrl-C sends it even when this suite runs with SIGINT ignored (a background job of a non-interactive
    # shell), which the child would inherit
    return subprocess.Popen([sys.executable, "-m", "sim.cli", command, str(scen), "--out", str(out), "--no-report",
                             "--json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for_games(proc: subprocess.Popen, out: Path, n: int, timeout_s: float = 120.0) -> None:
    deadline = time.time() + timeout_s
    while stored(out) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "the run stored too few games in time"
        time.sleep(0.2)


def study(tmp_path: Path, backend: str, command: str = "run") -> Path:
    p = tmp_path / "long.toml"
    p.write_text(STUDY.format(backend=backend) + COMMAND_TAILS[command], encoding="utf-8")
    return p


def assert_all_gone(kids: set[int], within_s: float = 15.0) -> None:
    deadline = time.time() + within_s
    while alive(kids) and time.time() < deadline:
        time.sleep(0.2)
    left = alive(kids)
    for p in left:  # do not leave them to the next test
        os.kill(p, signal.SIGKILL)
    assert not left, f"worker processes outlived the run: {sorted(left)}"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("backend", ["process", "dask"])
def test_sigkill_leaves_no_workers_and_the_run_resumes(tmp_path: Path, backend: str) -> None:
    scen, out = study(tmp_path, backend), tmp_path / "run"
    proc = start(scen, out)
    wait_for_games(proc, out, 3)
    kids = descendants(proc.pid)
    assert len(kids) >= 2  # the two workers (and helpers) are there to be orphaned
    proc.kill()
    proc.communicate()
    assert_all_gone(kids)
    before = stored(out)
    assert 3 <= before < 300
    # the lock died with the run: the same command resumes at once (a few more games, then stop it)
    again = start(scen, out)
    wait_for_games(again, out, before + 2)
    again.send_signal(signal.SIGTERM)
    assert again.wait(60) == 143


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("how,code", [("SIGTERM", 143), ("Ctrl-C", 130)])
def test_sigterm_stops_like_ctrl_c(tmp_path: Path, how: str, code: int) -> None:
    scen, out = study(tmp_path, "process"), tmp_path / "run"
    proc = start(scen, out)
    wait_for_games(proc, out, 3)
    kids = descendants(proc.pid)
    t0 = time.time()
    if how == "SIGTERM":
        proc.send_signal(signal.SIGTERM)  # `kill PID`: the driver alone
    else:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C on a terminal: the driver and its workers
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert time.time() - t0 < 20  # busy workers are stopped, not waited for
    assert "interrupted: finished games are stored; run the same command again to resume" in err
    assert "Traceback" not in err
    assert_all_gone(kids)
    assert stored(out) >= 3
    # resume the first 30 games: the ones finished before SIGTERM are not played again
    with sqlite3.connect(out / "results.sqlite") as con:
        kept = con.execute("SELECT COUNT(*) FROM games WHERE game_index < 30").fetchone()[0]
    again = subprocess.run([sys.executable, "-m", "sim.cli", "run", str(scen), "--out", str(out), "--no-report",
                            "--json", "--games", "30", "--backend", "serial"],
                           cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr
    import json

    summary = json.loads(again.stdout)
    assert summary["resumed_skipped"] == kept and summary["played"] == 30 - kept


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_second_run_into_a_busy_folder_is_refused(tmp_path: Path) -> None:
    scen, out = study(tmp_path, "serial"), tmp_path / "run"
    first = start(scen, out)
    wait_for_games(first, out, 2)
    second = subprocess.run([sys.executable, "-m", "sim.cli", "run", str(scen), "--out", str(out), "--no-report"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert second.returncode == 2, second.stderr
    assert f"another stonelab run (pid {first.pid}) is writing to this folder" in second.stderr
    assert "Traceback" not in second.stderr and "IntegrityError" not in second.stderr
    assert first.poll() is None  # the first run is untouched and goes on
    n = stored(out)
    wait_for_games(first, out, n + 1)
    first.kill()
    first.communicate()
    # a killed run leaves no stuck lock: the folder is free again
    third = start(scen, out)
    wait_for_games(third, out, stored(out) + 1)
    third.send_signal(signal.SIGTERM)
    assert third.wait(60) == 143


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("command", sorted(COMMAND_TAILS))
def test_sigterm_stops_every_command_that_runs_games(tmp_path: Path, command: str) -> None:
    scen, out = study(tmp_path, "process", command), tmp_path / "run"
    proc = start(scen, out, command)
    wait_for_games(proc, out, 3)
    kids = descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    kept = "trials and games" if command == "tune" else "games"
    assert f"interrupted: finished {kept} are stored; run the same command again to resume" in err
    assert "Traceback" not in err
    assert_all_gone(kids)
    assert stored(out) >= 3
