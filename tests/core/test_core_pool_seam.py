"""The one seam of the runner that touches Python's private pool and thread details
(sim/core/runner.py, _PrivatePool): on this Python, every name it uses is there and does
what the stop of a pool needs, or the public way (Python 3.14's terminate_workers) exists. It fails
loudly on the first Python upgrade that moves them, instead of a Ctrl-C that hangs one run in four."""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest

from sim.core import runner


def _nap(s: float) -> float:
    time.sleep(s)
    return s


def test_this_python_is_one_the_seam_was_read_for() -> None:
    if hasattr(ProcessPoolExecutor, "terminate_workers"):
        return  # 3.14+: the stop uses the public method, the seam is not used
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert sys.version_info[:2] in runner._PrivatePool.TESTED, (
        f"Python {version} is not among the versions sim/core/runner.py's _PrivatePool was read for "
        f"{runner._PrivatePool.TESTED}: read concurrent/futures/process.py and threading.py of {version}, check "
        "what _stop_pool relies on, then add the version to _PrivatePool.TESTED")
    assert runner._PrivatePool.problem() is None, (
        f"Python {version} lacks what _stop_pool relies on: {runner._PrivatePool.problem()}")


@pytest.mark.skipif(hasattr(ProcessPoolExecutor, "terminate_workers"), reason="3.14+: the public method is used")
def test_the_stop_ends_busy_workers_at_once_and_releases_the_exit_hook() -> None:
    pool = ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn"))
    futures = [pool.submit(_nap, 30.0) for _ in range(4)]
    time.sleep(0.5)
    assert runner._PrivatePool.problem(pool) is None
    procs = runner._PrivatePool.processes(pool)
    manager = runner._PrivatePool.manager(pool)
    assert len(procs) == 2 and manager is not None and manager.is_alive()
    t0 = time.monotonic()
    runner._stop_pool(pool)
    assert time.monotonic() - t0 < 10  # not the 30 s a running batch takes
    assert all(not p.is_alive() for p in procs)
    import concurrent.futures.process as cfp

    entry = cfp._threads_wakeups.get(manager)  # type: ignore[attr-defined]
    assert entry is None or isinstance(entry, runner._QuietWakeup)
    assert all(f.done() for f in futures[2:])  # the queued ones were cancelled
