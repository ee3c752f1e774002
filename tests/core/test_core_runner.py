"""The runner and the store: same results on every backend, resume after a real SIGKILL."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sim.core.errors import InputError
from sim.core.runner import run_study
from sim.core.scenario import load_scenario
from sim.core.testing import store_results
from study_process import kill_once_stored, launch
from toy_game import RANDOM_VS_MCTS

HERE = Path(__file__).parent

SCENARIO = RANDOM_VS_MCTS + '[sweep]\n"rules.target" = [12, 15]\n'


def run(tmp_path: Path, registry, name: str, backend: str, workers: int, games: int = 12, iters: int = 30) -> dict:
    p = tmp_path / f"{name}.toml"
    p.write_text(SCENARIO.format(games=games, iters=iters))
    sc = load_scenario(p, registry).with_overrides(registry, backend=backend, workers=workers, out=str(tmp_path / name))
    sc = sc.__class__(**{**sc.__dict__, "name": "same"})  # one run name for all backends
    info = run_study(sc, registry, progress=False)
    assert info.played == 2 * games
    return store_results(tmp_path / name)


def test_backends_and_worker_counts_store_identical_results(tmp_path: Path, registry, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    serial = run(tmp_path, registry, "serial", "serial", 1)
    assert len(serial["games"].rows) == 24 and len(serial["race_moves"].rows) > 24
    assert run(tmp_path, registry, "process1", "process", 1) == serial
    assert run(tmp_path, registry, "process2", "process", 2) == serial
    assert run(tmp_path, registry, "dask2", "dask", 2) == serial


def test_other_scenario_refused_unless_forced(tmp_path: Path, registry) -> None:
    p = tmp_path / "a.toml"
    p.write_text(SCENARIO.format(games=3, iters=5))
    sc = load_scenario(p, registry).with_overrides(registry, out=str(tmp_path / "run"))
    run_study(sc, registry, progress=False)
    p.write_text(SCENARIO.format(games=3, iters=6))
    other = load_scenario(p, registry).with_overrides(registry, out=str(tmp_path / "run"))
    with pytest.raises(InputError, match="another scenario"):
        run_study(other, registry, progress=False)
    assert len(store_results(tmp_path / "run")["games"].rows) == 6  # untouched
    info = run_study(other, registry, force=True, progress=False)
    assert info.played == 6 and info.skipped == 0
    # more games later: only the new ones are played
    more = other.with_overrides(registry, games=5)
    assert run_study(more, registry, progress=False).played == 4


@pytest.mark.slow  # several seconds (the default suite stays a few minutes)
def test_sigkill_then_resume_equals_uninterrupted_run(tmp_path: Path, registry) -> None:
    scen = tmp_path / "k.toml"
    scen.write_text(SCENARIO.format(games=25, iters=400))
    killed = tmp_path / "killed"
    partial = kill_once_stored(launch(scen, killed, name="same"), killed)
    assert 5 <= partial < 50, partial
    assert launch(scen, killed, name="same").wait() == 0  # the same command again resumes
    full = tmp_path / "full"
    assert launch(scen, full, name="same").wait() == 0
    a, b = store_results(killed), store_results(full)
    assert len(a["games"].rows) == 50
    assert a == b


def test_dask_address_of_a_running_scheduler(tmp_path: Path, registry, monkeypatch, capsys) -> None:
    """`--address` sends the games to an existing scheduler (how a study outgrows one machine);
    its workers, started with this process's environment, take its maths code path: no warning."""
    from dask.distributed import LocalCluster

    monkeypatch.setenv("PYTHONPATH", str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    serial = run(tmp_path, registry, "serial", "serial", 1, games=4)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        p = tmp_path / "a.toml"
        p.write_text(SCENARIO.format(games=4, iters=30))
        sc = load_scenario(p, registry).with_overrides(registry, backend="dask", out=str(tmp_path / "remote"))
        sc = sc.__class__(**{**sc.__dict__, "name": "same"})
        run_study(sc, registry, address=cluster.scheduler_address, progress=False)
    assert store_results(tmp_path / "remote") == serial
    assert "maths" not in capsys.readouterr().err


@pytest.mark.slow  # waits for the 10 s connect timeout
def test_unreachable_dask_scheduler_is_bad_input(tmp_path: Path, registry) -> None:
    p = tmp_path / "a.toml"
    p.write_text(SCENARIO.format(games=1, iters=5))
    sc = load_scenario(p, registry).with_overrides(registry, backend="dask", out=str(tmp_path / "x"))
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        run_study(sc, registry, address="tcp://127.0.0.1:9", progress=False)


def test_force_replays_a_folder_of_the_same_scenario(tmp_path: Path, registry) -> None:
    p = tmp_path / "a.toml"
    p.write_text(SCENARIO.format(games=2, iters=5))
    sc = load_scenario(p, registry).with_overrides(registry, out=str(tmp_path / "run"))
    assert run_study(sc, registry, progress=False).played == 4
    assert run_study(sc, registry, progress=False).played == 0  # resume: nothing left
    assert run_study(sc, registry, force=True, progress=False).played == 4


def _slow_square(x: int) -> int:
    import time

    time.sleep(0.5)
    return x * x


def test_a_stopped_pool_leaves_the_exit_hook_nothing_to_trip_on() -> None:
    """The race behind the OSError traceback after Ctrl-C/SIGTERM (Python 3.11's exit hook writes
    to the pool manager's wake-up pipe after checking it is open, while the manager thread closes
    it): played out by hand, the pipe closed under an entry that still says open. The hook's
    wake-up of a pool stopped by the runner must not raise."""
    import concurrent.futures.process as cfp
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from sim.core.runner import _stop_pool

    pool = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"))
    pool.submit(_slow_square, 3)
    manager = pool._executor_manager_thread  # type: ignore[attr-defined]
    inner = cfp._threads_wakeups[manager]  # type: ignore[attr-defined]
    _stop_pool(pool)
    # the race's losing order: the thread closed the pipe, the hook saw it open
    inner._closed = False
    with pytest.raises(OSError):
        inner.wakeup()  # what the hook did before
    for _, wakeup in list(cfp._threads_wakeups.items()):  # type: ignore[attr-defined]
        wakeup.wakeup()  # what the hook does now: no error
    inner._closed = True
