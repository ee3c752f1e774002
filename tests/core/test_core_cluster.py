"""A study on a real Dask cluster (``dask scheduler`` and ``dask worker`` processes on 127.0.0.1):
every way the cluster fails ends in one ``error:`` line with the resume command (exit 1), a lost
worker costs only the games not stored yet, and a worker that plays otherwise than the client is
said (and refused with ``--strict``); sim/core/cluster.py."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from sim.core import mathpath
from cluster_procs import Cluster, kill, make_study, stonelab, stored, stored_games, wait_stored

pytestmark = pytest.mark.slow


def _one_error_line(err: str) -> str:
    """The last line of stderr, checked to be the one ``error:`` line and no traceback before it."""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert lines and lines[-1].startswith("error: "), err
    assert sum(ln.startswith("error: ") for ln in lines) == 1, err
    return lines[-1]


@pytest.fixture
def cluster(tmp_path: Path):
    c = Cluster(tmp_path)
    yield c
    c.stop()


def test_scheduler_killed_mid_run_is_one_line_with_the_resume_command(tmp_path: Path, cluster: Cluster) -> None:
    study = make_study(tmp_path / "study", 200, delay=0.002)
    for _ in range(2):
        cluster.add_worker(env={"PYTHONPATH": str(study.parent)})
    cluster.wait_workers(2)
    out = tmp_path / "run"
    p = stonelab(["run", str(study), "--address", cluster.address, "--out", str(out), "--no-report"], study.parent)
    assert wait_stored(out, 20, p) >= 20
    kill(cluster.scheduler)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 1, err
    line = _one_error_line(err)
    assert "lost the connection to the Dask scheduler" in line and "workers stop with it" in line
    assert line.endswith(f"to resume: stonelab run {study} --address {cluster.address} --out {out} --no-report")
    assert 20 <= stored(out) < 200  # kept for the resume


def test_worker_killed_past_the_allowed_failures(tmp_path: Path) -> None:
    c = Cluster(tmp_path, scheduler_env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"})
    try:
        study = make_study(tmp_path / "study", 40, delay=0.02)
        w = c.add_worker(env={"PYTHONPATH": str(study.parent)})
        c.wait_workers(1)
        out = tmp_path / "run"
        p = stonelab(["run", str(study), "--address", c.address, "--out", str(out), "--no-report"], study.parent)
        assert wait_stored(out, 1, p) >= 1
        kill(w)  # mid-batch: the scheduler allows 0 failures, so the batch is given up
        _, err = p.communicate(timeout=120)
    finally:
        c.stop()
    assert p.returncode == 1, err
    line = _one_error_line(err)
    assert "a Dask worker died while playing games" in line and "1 times" in line, line
    assert "allowed-failures is 0" in line and "to resume: stonelab run" in line


def test_no_workers_for_the_time_allowed(tmp_path: Path, cluster: Cluster) -> None:
    study = make_study(tmp_path / "study", 10)
    p = stonelab(["run", str(study), "--address", cluster.address, "--out", str(tmp_path / "run"), "--no-report"],
                 study.parent, env={"STONELAB_NO_WORKERS_S": "2"})
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1, err
    line = _one_error_line(err)
    assert f"the Dask scheduler at {cluster.address} had no workers for 2 s" in line, line
    assert "waiting up to 2 s" in err and "to resume: stonelab run" in line


def test_workers_without_the_outside_agent_module(tmp_path: Path, cluster: Cluster) -> None:
    study = make_study(tmp_path / "study", 10)
    cluster.add_worker()  # started elsewhere: slowagent is not on its path
    cluster.wait_workers(1)
    p = stonelab(["run", str(study), "--address", cluster.address, "--out", str(tmp_path / "run"), "--no-report"],
                 study.parent)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 1, err
    line = _one_error_line(err)
    assert "the Dask workers cannot import the module 'slowagent', which this process imports" in line, line
    assert str(study.parent / "slowagent.py") in line and "to resume: stonelab run" in line


def test_a_lost_worker_costs_only_games_not_stored(tmp_path: Path, cluster: Cluster) -> None:
    """40 games on two workers, one killed (no nanny: a lost machine) once 20 are stored: every game
    played twice is one that was not stored yet (a stored batch's result is released, so the
    scheduler has nothing of it to recompute)."""
    study = make_study(tmp_path / "study", 40, delay=0.01)
    log = tmp_path / "plays.log"
    workers = [cluster.add_worker(env={"PYTHONPATH": str(study.parent), "PLAYS_LOG": str(log)}) for _ in range(2)]
    cluster.wait_workers(2)
    out = tmp_path / "run"
    p = stonelab(["run", str(study), "--address", cluster.address, "--out", str(out), "--no-report"], study.parent)
    assert wait_stored(out, 20, p) >= 20
    before = stored_games(out)
    kill(workers[0])
    _, err = p.communicate(timeout=180)
    assert p.returncode == 0, err
    assert stored(out) == 40
    plays = Counter(int(line.split()[1]) for line in log.read_text().splitlines())
    twice = {g for g, n in plays.items() if n > 1}
    assert set(plays) == set(range(40))
    assert not twice & before, f"games stored before the kill were played again: {sorted(twice & before)}"
    assert sum(plays.values()) - 40 == sum(plays[g] - 1 for g in twice)


@pytest.mark.skipif(not mathpath.applies(), reason="the maths path is pinned only on Linux/glibc/x86-64")
@pytest.mark.parametrize("strict", [False, True])
def test_a_late_worker_with_another_maths_path_is_caught(tmp_path: Path, cluster: Cluster, strict: bool) -> None:
    """The first worker is started pinned as the docs say; a second joins later without the
    settings: its games are stored with their provenance and said at once and at the end, or
    refused with --strict."""
    study = make_study(tmp_path / "study", 200, delay=0.01)  # 8 batches: the late worker gets some
    pinned = mathpath.pinned_environ({})
    cluster.add_worker(env={"PYTHONPATH": str(study.parent), **pinned})
    cluster.wait_workers(1)
    out = tmp_path / "run"
    p = stonelab(["run", str(study), "--address", cluster.address, "--out", str(out), "--no-report",
                  *(["--strict"] if strict else [])], study.parent)
    assert wait_stored(out, 5, p) >= 5
    cluster.add_worker(env={"PYTHONPATH": str(study.parent), "GLIBC_TUNABLES": None, "OPENBLAS_CORETYPE": None})
    _, err = p.communicate(timeout=180)
    from sim.core.store import Store

    with Store.open(out) as st:
        paths = dict(st.query("SELECT math_path, COUNT(*) FROM games GROUP BY math_path"))
    if strict:
        assert p.returncode == 1, err
        line = _one_error_line(err)
        assert line.startswith("error: --strict: game") and "instead of pinned" in line, line
        assert set(paths) == {"pinned"}
    else:
        assert p.returncode == 0, err
        assert "was played with maths path native instead of pinned" in err, err
        assert "the games of this study were played in 2 ways" in err, err
        assert set(paths) == {"pinned", "native"} and sum(paths.values()) == 200


def test_the_scenario_travels_once_per_point_and_batches_name_it(tmp_path: Path, registry, monkeypatch) -> None:
    """Each sweep point's scenario is submitted once, as a task of its own; every batch names it by
    its future (not a pickled copy per batch), and the store equals a serial run's."""
    import os

    from distributed import Future

    from sim.core import cluster as cl
    from sim.core.runner import run_study
    from sim.core.scenario import Scenario, load_scenario
    from sim.core.testing import store_results
    from toy_game import RANDOM_VS_MCTS

    here = Path(__file__).parent
    monkeypatch.setenv("PYTHONPATH", str(here) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = tmp_path / "s.toml"
    p.write_text(RANDOM_VS_MCTS.format(games=20, iters=5) + '[sweep]\n"rules.target" = [12, 15, 18]\n')
    sent: list[tuple[str, list[type]]] = []
    real = cl.DaskSession.__enter__

    def spy(self):  # noqa: ANN001, ANN202 - records what each submit carries, then submits it
        out = real(self)
        submit = self.client.submit

        def recording(fn, *args, **kw):  # noqa: ANN001, ANN202
            sent.append((fn.__name__, [type(a) for a in args]))
            return submit(fn, *args, **kw)

        self.client.submit = recording
        return out

    monkeypatch.setattr(cl.DaskSession, "__enter__", spy)
    runs = {}
    for backend in ("serial", "dask"):
        sc = load_scenario(p, registry).with_overrides(registry, backend=backend, workers=2,
                                                       out=str(tmp_path / backend))
        run_study(sc, registry, progress=False)
        runs[backend] = store_results(tmp_path / backend)
    assert runs["dask"] == runs["serial"]
    scenarios = [args for name, args in sent if name == "_scenario_value"]
    batches = [args for name, args in sent if name == "play_batch"]
    assert len(scenarios) == 3 and all(args == [Scenario] for args in scenarios)
    assert len(batches) > 3 and all(args[1] is Future and Scenario not in args for args in batches)
