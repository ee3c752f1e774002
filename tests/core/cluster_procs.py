"""A real Dask cluster on 127.0.0.1 for the cluster tests: a ``dask scheduler`` and ``dask worker``
processes started as a user starts them (docs/howto.md, "A study on a Dask cluster"), a slow
outside agent that logs every game it plays, and ``stonelab run`` as a real subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sim.core.store import Store

ROOT = Path(__file__).resolve().parents[2]
#: the outside agent the tests' scenario seats: random moves, a pause per move (so a batch runs
#: long enough to be killed in the middle), one line per game it plays in $PLAYS_LOG
AGENT = '''
import os, time

class SlowRandom:
    """Random legal moves, {delay} s each; logs each game it plays."""

    def __init__(self, rng, config):
        self.rng = rng
        if os.environ.get("PLAYS_LOG"):
            with open(os.environ["PLAYS_LOG"], "a") as fh:
                fh.write(f"{{os.getpid()}} {{config.game_index}}\\n")

    def act(self, observation, legal_actions):
        time.sleep({delay})
        return legal_actions[int(self.rng.integers(len(legal_actions)))]
'''

SCENARIO = '''
name = "cluster-test"
game = "druids"
games = {games}
seed = 5
backend = "dask"

[[seats]]
agent = "slowagent:SlowRandom"

[[seats]]
agent = "greedy"
'''


def make_study(folder: Path, games: int, delay: float = 0.01) -> Path:
    """Write the slow agent (``folder/slowagent.py``) and a druid scenario seating it; returns the scenario."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "slowagent.py").write_text(AGENT.format(delay=delay))
    path = folder / "study.toml"
    path.write_text(SCENARIO.format(games=games))
    return path


def _env(extra: dict[str, str | None] | None = None) -> dict[str, str]:
    """This environment without DASK_ settings, with ``extra`` (None: the variable removed)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


class Cluster:
    """A ``dask scheduler`` on 127.0.0.1 (a free port, no dashboard) and its workers; stop() ends them all."""

    def __init__(self, tmp: Path, scheduler_env: dict[str, str | None] | None = None) -> None:
        self.tmp = tmp
        self.file = tmp / "scheduler.json"
        self.scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(self.file)],
            env=_env(scheduler_env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.workers: list[subprocess.Popen] = []
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.file.exists():
                try:
                    self.address = json.loads(self.file.read_text())["address"]
                    break
                except (ValueError, KeyError):
                    pass
            time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError("the dask scheduler did not start in 30 s")

    def add_worker(self, env: dict[str, str | None] | None = None, cwd: Path | None = None) -> subprocess.Popen:
        """Start a ``dask worker`` (one thread, no nanny: the process killed is the worker itself)."""
        w = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--nthreads", "1", "--no-nanny",
             "--no-dashboard", "--host", "127.0.0.1"],
            env=_env(env), cwd=str(cwd or self.tmp), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.workers.append(w)
        return w

    def wait_workers(self, n: int, timeout_s: float = 30.0) -> None:
        from distributed import Client

        with Client(self.address, timeout="10s") as c:
            c.wait_for_workers(n, timeout=timeout_s)

    def stop(self) -> None:
        for p in [*self.workers, self.scheduler]:
            if p.poll() is None:
                p.kill()
        for p in [*self.workers, self.scheduler]:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                pass


def stonelab(args: list[str], cwd: Path, env: dict[str, str | None] | None = None) -> subprocess.Popen:
    """``python -m sim.cli ARGS`` (the real command: it pins the maths path) in ``cwd``."""
    return subprocess.Popen([sys.executable, "-m", "sim.cli", *args], cwd=str(cwd), env=_env(env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stored(out: Path) -> int:
    """Games in the store of ``out`` (0 while there is none)."""
    try:
        with Store.open(out) as st:
            return int(st.query("SELECT COUNT(*) FROM games")[0][0])
    except Exception:  # noqa: BLE001 - not there yet
        return 0


def stored_games(out: Path) -> set[int]:
    with Store.open(out) as st:
        return {int(r[0]) for r in st.query("SELECT game_index FROM games")}


def wait_stored(out: Path, n: int, proc: subprocess.Popen, timeout_s: float = 120.0) -> int:
    """Wait until ``out`` stores ``n`` games (or ``proc`` ended, or the time is up); returns the count."""
    deadline = time.time() + timeout_s
    while time.time() < deadline and proc.poll() is None:
        k = stored(out)
        if k >= n:
            return k
        time.sleep(0.05)
    return stored(out)


def kill(p: subprocess.Popen) -> None:
    os.kill(p.pid, signal.SIGKILL)
    p.wait(10)
