"""A study of the toy game run in a child process and killed (SIGKILL) part-way, for the tests
that show a study resumes to exactly what an uninterrupted one stores."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sim.core.store import Store

HERE = Path(__file__).parent

_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
from sim.core.registry import Registry
from sim.core.runner import run_study
from sim.core.scenario import load_scenario
reg = Registry({{"race": "toy_game:GAME"}})
sc = load_scenario({path!r}, reg).with_overrides(reg, out={out!r})
if {name!r} is not None:
    sc = sc.__class__(**{{**sc.__dict__, "name": {name!r}}})
run_study(sc, reg, progress=False)
"""


def launch(scenario: Path, out: Path, name: str | None = None) -> subprocess.Popen:
    """Start ``run_study`` of the toy-game ``scenario`` into ``out`` in a child process (the
    scenario's name replaced by ``name`` when given)."""
    code = _SCRIPT.format(here=str(HERE), path=str(scenario), out=str(out), name=name)
    return subprocess.Popen([sys.executable, "-c", code])


def kill_once_stored(proc: subprocess.Popen, out: Path, games: int = 5, timeout_s: float = 60.0) -> int:
    """SIGKILL ``proc`` once its store in ``out`` holds ``games`` games (or after ``timeout_s``
    seconds); returns the games stored when it died."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        time.sleep(0.2)
        try:
            with Store.open(out) as st:
                if st.query("SELECT COUNT(*) FROM games")[0][0] >= games:
                    break
        except Exception:  # noqa: BLE001 - the store is not there yet
            continue
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with Store.open(out) as st:
        return int(st.query("SELECT COUNT(*) FROM games")[0][0])
