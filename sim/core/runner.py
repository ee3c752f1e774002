"""The scenario runner: plays a study's games on a backend and commits each to the store.

Backends share one interface, :func:`iter_results`: submit games, receive results as they
complete. ``serial`` plays in this process; ``process`` (the default) uses a spawn pool sized to
the machine; ``dask`` uses ``dask.distributed`` (a LocalCluster, or ``address`` of a running
scheduler, which is how a study outgrows one machine). A game's result depends only on the root
seed and its index (``sim.core.seeding``), so every backend and worker count stores the same
results; only wall times differ.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from sim import __version__
from sim.core.errors import InputError
from sim.core.game import Game
from sim.core.play import play, seat_agents
from sim.core.registry import Registry, load_game
from sim.core.scenario import Scenario, SweepPoint
from sim.core.seeding import game_streams
from sim.core.progress import Progress
from sim.core.store import STORE_NAME, GameResult, LOCK_NAME, Store, lock_run_folder, reading

#: more worker processes than this many per core only add memory and start-up time (each worker
#: imports the engines; in a user trial 300 workers on 2 cores took 7 GB and 110 s for a study that
#: needs 0.8 s); such a count is refused as a typing error
MAX_WORKERS_PER_CORE = 4
#: seconds between a worker's checks that the process that started it is still there
WATCHDOG_S = 0.5

__all__ = ["Progress", "RunInfo", "Task", "Terminated", "check_workers", "iter_results", "play_game", "run_study",
           "sigterm_as_interrupt"]


class Terminated(KeyboardInterrupt):
    """The run received SIGTERM: it stops like Ctrl-C (finished games stay stored), exit code 143."""


@dataclass(frozen=True)
class Task:
    """A batch of games of one sweep point (picklable: sent to workers)."""

    game_path: str
    scenario: Scenario
    point: int
    values: Mapping[str, Any]
    indices: tuple[int, ...]


def play_game(game: Game, scenario: Scenario, point: int, values: Mapping[str, Any], game_index: int) -> GameResult:
    """Play game ``game_index`` of a (sweep-resolved) scenario from its seed streams.

    Raises:
        StepCapReached: the game did not end within ``sim.core.play.MAX_STEPS`` steps.
    """
    config = dataclasses.replace(scenario.config(), game_index=game_index)
    streams = game_streams(scenario.seed, game_index, config.num_players)
    agents = seat_agents(game, scenario.seats, config, streams)
    t0 = time.perf_counter()
    played = play(game, config, agents, streams.chance, label=f"game {game_index} of {scenario.name}")
    state, leads = played.state, played.leads
    out = state.outcome()
    assert out is not None
    details = game.details(state)
    wall = time.perf_counter() - t0
    return GameResult(
        point=point,
        game_index=game_index,
        seed=scenario.seed,
        sweep=dict(values),
        agents=[s.agent for s in scenario.seats],
        labels=[s.label() for s in scenario.seats],
        scores=[float(x) for x in out.scores],
        winners=sorted(int(w) for w in out.winners),
        returns=[float(x) for x in out.returns()],
        length=state.length(),
        termination=out.termination,
        wall_s=wall,
        version=__version__,
        columns=details.columns,
        rows=details.rows,
        leads=leads,
    )


def run_task(task: Task) -> list[GameResult]:
    """Play a batch of games (the unit of work a worker receives)."""
    game = load_game(task.game_path)
    return [play_game(game, task.scenario, task.point, task.values, i) for i in task.indices]


def _worker_init(parent_pid: int | None = None) -> None:
    """Set up a pool worker: one BLAS thread, and end when the process that started it ends."""
    # one BLAS thread per worker: the pool already uses every core
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    # Ctrl-C reaches the whole process group; the driver stops the workers itself (``_stop_pool``),
    # so a worker that took it would only print a traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent_pid)


def watch_parent(parent_pid: int | None = None, interval_s: float = WATCHDOG_S) -> threading.Thread:
    """Start a daemon thread that ends this process (``os._exit(1)``) once its parent has gone.

    A pool worker whose driver was killed (SIGKILL cannot be caught, so the driver cannot stop its
    workers) would otherwise live on, blocked on the pipes it shares with its siblings, and keep a
    core busy. An orphan is re-parented (to init or a subreaper), so ``os.getppid()`` changes: this
    is portable over POSIX systems, needs no signal set-up, and catches the driver's death within
    ``interval_s`` seconds.

    Args:
        parent_pid: the pid of the process to outlive (default: this process's parent now).
        interval_s: seconds between checks.
    """
    parent = os.getppid() if parent_pid is None else parent_pid

    def watch() -> None:
        while True:
            time.sleep(interval_s)
            if os.getppid() != parent:
                os._exit(1)  # the parent is gone: no one reads our results; skip cleanup handlers

    t = threading.Thread(target=watch, name="stonelab-parent-watchdog", daemon=True)
    t.start()
    return t


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (a KeyboardInterrupt) in the main thread.

    So ``kill PID`` stops a run the way Ctrl-C does: the games stored so far stay, the workers
    are stopped, and the command can be given again to resume. Outside the main thread (where
    Python cannot set signal handlers) the block does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise Terminated()

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def check_workers(requested: int, *, key: str = "workers", source: str | None = None) -> tuple[int, str | None]:
    """The worker count to use for ``requested`` (0: one per core) and a warning, if any.

    Returns:
        ``(workers, warning)``: ``warning`` is a sentence when more workers than cores are asked
        for (they share the cores: no faster, more memory), else None.

    Raises:
        InputError: more than :data:`MAX_WORKERS_PER_CORE` workers per core (e.g. ``--workers 300``
            on 2 cores), a count that only exhausts memory; the message names ``key``.
    """
    cores = os.cpu_count() or 1
    if requested <= 0:
        return cores, None
    limit = MAX_WORKERS_PER_CORE * cores
    if requested > limit:
        raise InputError(
            f"got {requested} worker processes on {cores} cores; allowed: 0 (one per core) to {limit} "
            f"({MAX_WORKERS_PER_CORE} per core)", key=key, source=source)
    if requested > cores:
        return requested, (f"warning: {requested} workers on {cores} cores: they take turns on the cores, "
                           "so the run is no faster and uses more memory")
    return requested, None


def iter_results(
    tasks: Sequence[Task], backend: str, workers: int, address: str | None = None
) -> Iterator[GameResult]:
    """Run ``tasks`` on ``backend`` and yield each game's result as its batch completes.

    Raises:
        InputError: unknown backend, or a Dask scheduler that cannot be reached.
    """
    if not tasks:
        return
    if backend == "serial":
        for t in tasks:
            yield from run_task(t)
    elif backend == "process":
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_worker_init,
                                   initargs=(os.getpid(),))
        finished = False
        try:
            pending = {pool.submit(run_task, t) for t in tasks}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield from f.result()
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                _stop_pool(pool)
    elif backend == "dask":
        yield from _iter_dask(tasks, workers, address)
    else:
        raise InputError(f"unknown backend {backend!r}; allowed: 'serial', 'process' or 'dask'", key="backend")


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now (Ctrl-C, SIGTERM, an error): drop queued batches and end busy workers.

    ``shutdown(wait=True)`` would wait for every running batch (up to 25 games each) to finish,
    and so would the interpreter at exit; the games they play would be lost anyway, since nothing
    reads their results once the driver stops.
    """
    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public handle before 3.14
    # taken before shutdown, which drops the pool's reference to it
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(5)
    # Let the pool's manager thread see the ended workers and close its wakeup pipe now: left
    # running, it can close that pipe while the interpreter's exit hook writes to it (a race in
    # Python 3.11's concurrent.futures: the hook checks that the pipe is open, then writes,
    # without the lock the thread closes it under), which printed an OSError traceback after
    # Ctrl-C or SIGTERM. A join can time out on a loaded machine, so the hook's wake-up of this
    # pool is also made to ignore a closed pipe.
    # (Until this was found, the manager was looked up after shutdown(), which had already dropped
    # the pool's reference to it: the join never ran.)
    if manager is not None:
        with contextlib.suppress(Exception):
            manager.join(10)
        _quiet_exit_wakeup(manager)


class _QuietWakeup:
    """A pool manager's wake-up pipe as the interpreter's exit hook sees it: writing to a pipe that
    the manager thread has closed meanwhile is ignored (see :func:`_stop_pool`)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def wakeup(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._inner.wakeup()


def _quiet_exit_wakeup(manager: Any) -> None:
    """Wrap the exit hook's entry for ``manager`` (``concurrent.futures.process._threads_wakeups``,
    private: left alone if a Python version lays it out otherwise) in :class:`_QuietWakeup`."""
    import concurrent.futures.process as cfp

    wakeups = getattr(cfp, "_threads_wakeups", None)
    if wakeups is None:
        return
    with contextlib.suppress(Exception):
        inner = wakeups.get(manager)
        if inner is not None and not isinstance(inner, _QuietWakeup):
            wakeups[manager] = _QuietWakeup(inner)


def _iter_dask(tasks: Sequence[Task], workers: int, address: str | None) -> Iterator[GameResult]:
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    try:
        if address:
            try:
                client = Client(address, timeout="10s")
            except OSError as e:
                raise InputError(f"cannot reach the Dask scheduler at {address!r}: {e}", key="--address") from None
            _warn_other_maths_path(client)
        else:  # local workers inherit this process's environment, and with it its maths code path
            cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
            )
            client = Client(cluster)
        try:
            futures = client.map(run_task, tasks, pure=False)
            for fut in as_completed(futures):
                yield from fut.result()
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _warn_other_maths_path(client: Any) -> None:
    """Warn on stderr if a remote cluster's workers started with another maths code path than this
    process (``sim.core.mathpath``): someone else started them, so the ``stonelab`` command's
    pinning did not reach them, and a Sun game played there stores other bits."""
    from sim.core import mathpath

    if not mathpath.applies() or mathpath.opted_out():
        return
    try:
        workers = client.run(mathpath.worker_settings)
    except Exception as e:  # a worker without this package, or gone: the games would fail anyway
        sys.stderr.write(f"stonelab: warning: could not read the Dask workers' maths settings: {type(e).__name__}: {e}\n")
        return
    message = mathpath.worker_differences(mathpath.worker_settings(), workers)
    if message:
        sys.stderr.write(f"stonelab: {message}\n")


@dataclass
class RunInfo:
    """What a finished (or resumed) run did."""

    out: Path
    total: int
    skipped: int
    played: int
    wall_s: float


def run_study(
    scenario: Scenario,
    registry: Registry,
    *,
    force: bool = False,
    address: str | None = None,
    progress: bool = True,
    on_result: Callable[[GameResult], None] | None = None,
) -> RunInfo:
    """Run every game of every sweep point that the store does not hold yet.

    Raises:
        InputError: the run folder belongs to another scenario (and not ``force``), cannot be
            written, another run is writing to it (:class:`sim.core.store.FolderBusy`), too many
            workers are asked for (:func:`check_workers`), or the backend refuses the study before a
            game is stored; a store this call created is then removed again (and its folder, if this
            call made it and it is empty).
    """
    points: list[SweepPoint] = scenario.points(registry)
    game = registry.get(scenario.game)
    out = Path(scenario.out)
    workers = scenario.workers or os.cpu_count() or 1
    if scenario.backend != "serial" and not address:
        workers, warning = check_workers(scenario.workers, source=scenario.source)
        if warning and progress:
            print(warning, file=sys.stderr, flush=True)
    made_dir = not out.exists()
    with lock_run_folder(out):
        try:
            return _run_locked(scenario, registry, points, game, out, made_dir, workers, force, address, progress,
                               on_result)
        except InputError:
            if made_dir and out.is_dir() and [p.name for p in out.iterdir()] == [LOCK_NAME]:
                _remove_store(out, made_dir)  # refused before a store was made: take back the folder too
            raise


def _run_locked(scenario: Scenario, registry: Registry, points: list[SweepPoint], game: Game, out: Path,
                made_dir: bool, workers: int, force: bool, address: str | None, progress: bool,
                on_result: Callable[[GameResult], None] | None) -> RunInfo:
    """:func:`run_study` once it holds the run folder's lock."""
    fresh = force or not (out / STORE_NAME).exists()
    stored = 0
    meta = {
        "name": scenario.name,
        "game": scenario.game,
        "fingerprint": scenario.fingerprint(),
        "scenario_json": _json(scenario.raw),
        "source": scenario.source,
        "seed": str(scenario.seed),
        "games": str(scenario.games),
        "version": __version__,
    }
    store = Store.create(out, game.spec, meta, force=force)
    t0 = time.perf_counter()
    try:
        with reading(store.path):  # a resumed store with a damaged page fails here, named, not mid-run
            store.set_points((p.index, p.values) for p in points)
            done = store.done()
        todo = [(p, i) for p in points for i in range(scenario.games) if (p.index, i) not in done]
        total = len(points) * scenario.games
        tasks = _batches(registry.path(scenario.game), todo, workers)
        bar = Progress(total, scenario.name, enabled=progress)
        bar.skip(total - len(todo))
        try:
            for r in iter_results(tasks, scenario.backend, workers, address):
                store.add(r)
                stored += 1
                if on_result:
                    on_result(r)
                bar.advance()
        finally:
            bar.close()
    except InputError:
        store.close()
        if fresh and stored == 0:
            _remove_store(out, made_dir)
        raise
    finally:
        store.close()
    return RunInfo(out=out, total=total, skipped=total - len(todo), played=len(todo), wall_s=time.perf_counter() - t0)


def _remove_store(out: Path, made_dir: bool) -> None:
    """Take back an empty store (bad input found before any game was stored): nothing half-written."""
    for suffix in ("", "-wal", "-shm"):
        (out / (STORE_NAME + suffix)).unlink(missing_ok=True)
    if made_dir:
        (out / LOCK_NAME).unlink(missing_ok=True)
        try:
            out.rmdir()
        except OSError:
            pass  # something else was put there meanwhile: leave it


def _batches(game_path: str, todo: list[tuple[SweepPoint, int]], workers: int) -> list[Task]:
    # Several games per task amortise inter-process overhead for fast games; at least ~4 tasks per
    # worker keep the pool balanced, and at most 25 games per task bound what a kill can lose.
    size = max(1, min(25, len(todo) // (workers * 4) or 1))
    tasks: list[Task] = []
    i = 0
    while i < len(todo):
        p = todo[i][0]
        idx: list[int] = []
        while i < len(todo) and todo[i][0].index == p.index and len(idx) < size:
            idx.append(todo[i][1])
            i += 1
        tasks.append(Task(game_path, p.scenario, p.index, dict(p.values), tuple(idx)))
    return tasks


def _json(raw: Mapping[str, Any]) -> str:
    import json

    return json.dumps(raw, sort_keys=True, default=str)
