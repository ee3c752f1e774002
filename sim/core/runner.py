"""The scenario runner: plays a study's games on a backend and commits each to the store.

Backends share one interface, :func:`iter_results`: submit games, receive results as they
complete. ``serial`` plays in this process; ``process`` (the default) uses a spawn pool sized to
the machine; ``dask`` uses ``dask.distributed`` (a LocalCluster, or ``address`` of a running
scheduler, which is how a study outgrows one machine). A game's result depends only on the root
seed and its index (``sim.core.seeding``; the index also decides the seat order,
``Scenario.seating``), so every backend and worker count stores the same results; only wall times
differ.
"""

from __future__ import annotations

import concurrent.futures.process as cfp
import contextlib
import dataclasses
import itertools
import json
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from sim import __version__
from sim.core import provenance
from sim.core.cluster import DaskSession
from sim.core.console import plain
from sim.core.errors import InputError, WorkError
from sim.core.game import Game, GameConfig, State
from sim.core.human import refuse_human_study
from sim.core.outputs import path_text
from sim.core.play import PlayedGame, play, seat_agents
from sim.core.progress import PoolForecast, Progress
from sim.core.registry import Registry, load_game
from sim.core.scenario import MAX_WORKERS_PER_CORE, Scenario, Seating, SweepPoint, workers_problem
from sim.core.seeding import game_streams
from sim.core.store import LOCK_NAME, STORE_NAME, GameResult, Store, check_run_folder, lock_run_folder, reading

#: seconds between a worker's checks that the process that started it is still there
WATCHDOG_S = 0.5

__all__ = ["MAX_WORKERS_PER_CORE", "Progress", "RunInfo", "Task", "check_workers", "iter_results", "game_result",
           "play_game", "play_seeded", "run_study", "study_meta"]


@dataclass(frozen=True)
class Task:
    """A batch of games of one sweep point (picklable: sent to workers)."""

    game_path: str
    scenario: Scenario
    point: int
    values: Mapping[str, Any]
    indices: tuple[int, ...]


def play_seeded(game: Game, scenario: Scenario, game_index: int) -> tuple[GameConfig, PlayedGame]:
    """Play game ``game_index`` of a (sweep-resolved) scenario from its seed streams, its players
    seated as :meth:`sim.core.scenario.Scenario.seating` says: the one way a study's game is played,
    so a replay that plays it again (``sim.replay``) gets the very game the store holds.

    Returns:
        the game's configuration (``game_index`` set) and the played game (its terminal state).

    Raises:
        StepCapReached: the game did not end within ``sim.core.play.MAX_STEPS`` steps.
        InputError: an agent of the scenario cannot be built.
    """
    seating = scenario.seating(game_index)
    config = dataclasses.replace(scenario.config(seating.seats), game_index=game_index)
    streams = game_streams(scenario.seed, seating.stream_index, config.num_players)
    agents = seat_agents(game, seating.seats, config, streams)
    return config, play(game, config, agents, streams.chance, label=f"game {game_index} of {scenario.name}")


def play_game(game: Game, scenario: Scenario, point: int, values: Mapping[str, Any], game_index: int) -> GameResult:
    """Play game ``game_index`` of a (sweep-resolved) scenario (:func:`play_seeded`) and say what the
    store keeps of it.

    Raises:
        StepCapReached: the game did not end within ``sim.core.play.MAX_STEPS`` steps.
    """
    seating = scenario.seating(game_index)
    t0 = time.perf_counter()
    _, played = play_seeded(game, scenario, game_index)
    return game_result(game, scenario, seating, played.state, played.leads, point=point, values=values,
                       game_index=game_index, wall_s=time.perf_counter() - t0)


def game_result(game: Game, scenario: Scenario, seating: Seating, state: State, leads: list[list[int]], *,
                point: int, values: Mapping[str, Any], game_index: int, wall_s: float) -> GameResult:
    """What the store keeps of a finished game ``game_index`` of ``scenario`` (one record for
    every place that plays a study's kind of game: the runner, ``stonelab play``).

    Raises:
        ValueError: ``state`` is not finished.
    """
    out = state.outcome()
    if out is None:
        raise ValueError(f"game {game_index} of {scenario.name} is not finished")
    details = game.details(state)
    made = provenance.here(provenance.task_modules(type(game).__module__, [s.agent for s in seating.seats]))
    return GameResult(
        point=point,
        game_index=game_index,
        seed=scenario.seed,
        sweep=dict(values),
        agents=[s.agent for s in seating.seats],
        labels=[s.label() for s in seating.seats],
        scores=[float(x) for x in out.scores],
        winners=sorted(int(w) for w in out.winners),
        returns=[float(x) for x in out.returns()],
        length=state.length(),
        termination=out.termination,
        wall_s=wall_s,
        version=__version__,
        columns=details.columns,
        rows=details.rows,
        leads=leads,
        players=list(seating.players),
        math_path=made.math_path,
        code_fingerprint=made.code,
    )


def run_task(task: Task) -> list[GameResult]:
    """Play a batch of games (the unit of work a worker receives)."""
    game = load_game(task.game_path)
    return [play_game(game, task.scenario, task.point, task.values, i) for i in task.indices]


def play_batch(game_path: str, scenario: Scenario, point: int, values: Mapping[str, Any],
               indices: Sequence[int]) -> list[GameResult]:
    """Play a batch on a Dask worker: :func:`run_task` with the scenario received on its own (it
    travels to the cluster once per sweep point, :mod:`sim.core.cluster`)."""
    return run_task(Task(game_path, scenario, point, values, tuple(indices)))


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
    problem = workers_problem(requested)  # the same check as the scenario's (validate refuses it too)
    if problem:
        raise InputError(problem, key=key, source=source)
    if requested > cores:
        return requested, (f"warning: {requested} workers on {cores} cores: they take turns on the cores, "
                           "so the run is no faster and uses more memory")
    return requested, None


def iter_results(
    tasks: Iterable[Task], backend: str, workers: int, address: str | None = None, *,
    session: DaskSession | None = None, slots: int | None = None,
) -> Iterator[GameResult]:
    """Run ``tasks`` on ``backend`` and yield each game's result as its batch completes.

    ``tasks`` may be a generator (the games are not listed one by one up front). ``session`` and
    ``slots``: an open Dask session and its worker threads (:class:`sim.core.cluster.DaskSession`);
    without them the ``dask`` backend opens one for these tasks.

    Raises:
        InputError: unknown backend, or a Dask scheduler that cannot be reached.
        ClusterError: the Dask cluster failed (:mod:`sim.core.cluster`).
    """
    it = iter(tasks)
    first = next(it, None)
    if first is None:
        return
    todo = itertools.chain([first], it)
    if backend == "serial":
        for t in todo:
            yield from run_task(t)
    elif backend == "process":
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_worker_init,
                                   initargs=(os.getpid(),))
        finished = False
        try:
            with _children_ignore_sigint():  # the pool starts a worker on each of the first submits
                pending = {pool.submit(run_task, t) for t in itertools.islice(todo, workers)}
            # all at once: submitting while results arrive can block on the pool's wake-up pipe
            # (Python 3.11's concurrent.futures), which hung a trial run
            pending |= {pool.submit(run_task, t) for t in todo}
            # as_completed takes the futures' locks once; wait(FIRST_COMPLETED) took all of them on
            # every call, and a Ctrl-C in the middle of that left some taken for good (Python 3.11's
            # _AcquireFutures), so the pool's manager thread, and the exit, hung (1 run in 3)
            for f in as_completed(pending):
                yield from f.result()
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                _stop_pool(pool)
    elif backend == "dask":
        if session is not None:
            yield from session.run(todo, slots or 1, play_batch)
        else:
            with DaskSession(address, workers) as own:
                yield from own.run(todo, own.wait_for_slots(announce=False), play_batch)
    else:
        raise InputError(f"unknown backend {backend!r}; allowed: 'serial', 'process' or 'dask'", key="backend")


@contextlib.contextmanager
def _children_ignore_sigint() -> Iterator[None]:
    """Within the block, processes started inherit SIGINT ignored (an ignored signal survives the
    exec of a spawned worker): Ctrl-C reaches the whole process group, and a worker still
    importing the engines, before :func:`_worker_init` ran, printed a KeyboardInterrupt traceback.
    The driver's own handler is back after the block (a few milliseconds)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now (Ctrl-C, SIGTERM, an error): drop queued batches and end busy workers.

    ``shutdown(wait=True)`` would wait for every running batch (up to 25 games each) to finish,
    and so would the interpreter at exit; the games they play would be lost anyway, since nothing
    reads their results once the driver stops. Python 3.14 has a public way
    (``terminate_workers``); before it there is none, so :class:`_PrivatePool` reaches into the
    pool, behind one seam checked by a test on every Python it runs on.
    """
    if hasattr(pool, "terminate_workers"):  # Python 3.14+: public, and it shuts the pool down too
        with contextlib.suppress(Exception):
            pool.terminate_workers()  # type: ignore[attr-defined]
        return
    private = _PrivatePool.usable()
    procs = _PrivatePool.processes(pool) if private else []
    # taken before shutdown, which drops the pool's reference to it
    manager = _PrivatePool.manager(pool) if private else None
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
            manager.join(5)
        _PrivatePool.quiet_exit_wakeup(manager)
        if manager.is_alive():
            _PrivatePool.forget_at_exit(manager)


class _PrivatePool:
    """The one place that touches Python's private ``concurrent.futures`` and ``threading`` details:
    a pool's worker processes and manager thread, the exit hook's table of wake-up
    pipes (``concurrent.futures.process._threads_wakeups``) and the threads the interpreter joins
    at exit (``threading._shutdown_locks``). Used only on the Python versions in :data:`TESTED`,
    where ``tests/core/test_core_pool_seam.py`` checks that every name is there and does what the
    stop needs; on another version before 3.14 the stop falls back to the public ``shutdown`` (a
    Ctrl-C may then wait for the running batches), and that test fails until the version is read
    and added here. From 3.14 the public ``terminate_workers`` is used instead.
    """

    #: the Python versions (major, minor) whose private details were read and tested
    TESTED: tuple[tuple[int, int], ...] = ((3, 11),)

    @staticmethod
    def problem(pool: ProcessPoolExecutor | None = None) -> str | None:
        """What this Python lacks of the private details (None: all there; ``pool``: its attributes too)."""
        missing = []
        if not hasattr(getattr(cfp, "_threads_wakeups", None), "get"):
            missing.append("concurrent.futures.process._threads_wakeups")
        if not hasattr(getattr(threading, "_shutdown_locks", None), "discard"):
            missing.append("threading._shutdown_locks")
        if getattr(threading, "_shutdown_locks_lock", None) is None:
            missing.append("threading._shutdown_locks_lock")
        if not hasattr(threading.current_thread(), "_tstate_lock"):
            missing.append("Thread._tstate_lock")
        if pool is not None:
            if not isinstance(getattr(pool, "_processes", None), dict):
                missing.append("ProcessPoolExecutor._processes")
            if not hasattr(pool, "_executor_manager_thread"):
                missing.append("ProcessPoolExecutor._executor_manager_thread")
        return ", ".join(missing) or None

    @classmethod
    def usable(cls) -> bool:
        """Whether this Python is one of :data:`TESTED` and has every private name."""
        return sys.version_info[:2] in cls.TESTED and cls.problem() is None

    @staticmethod
    def processes(pool: ProcessPoolExecutor) -> list[Any]:
        return list((getattr(pool, "_processes", None) or {}).values())

    @staticmethod
    def manager(pool: ProcessPoolExecutor) -> threading.Thread | None:
        return getattr(pool, "_executor_manager_thread", None)

    @staticmethod
    def forget_at_exit(thread: threading.Thread) -> None:
        """Let the interpreter exit without joining ``thread``, a pool manager that is stuck.

        A worker ended while it sent a result leaves half a message in the result pipe; the
        manager thread then waits for the rest for good, and the exit, which joins it (the pool's
        exit hook and ``threading``'s own), hung after Ctrl-C (1 run in 4 in a trial on 2 cores).
        The workers are gone and the driver reads nothing more, so nothing is lost.
        """
        with contextlib.suppress(Exception):
            cfp._threads_wakeups.pop(thread, None)  # type: ignore[attr-defined]
        with contextlib.suppress(Exception):
            lock = thread._tstate_lock  # type: ignore[attr-defined]
            with threading._shutdown_locks_lock:  # type: ignore[attr-defined]
                threading._shutdown_locks.discard(lock)  # type: ignore[attr-defined]

    @staticmethod
    def quiet_exit_wakeup(manager: Any) -> None:
        """Wrap the exit hook's entry for ``manager`` in :class:`_QuietWakeup` (see :func:`_stop_pool`)."""
        wakeups = getattr(cfp, "_threads_wakeups", None)
        if wakeups is None:
            return
        with contextlib.suppress(Exception):
            inner = wakeups.get(manager)
            if inner is not None and not isinstance(inner, _QuietWakeup):
                wakeups[manager] = _QuietWakeup(inner)


class _QuietWakeup:
    """A pool manager's wake-up pipe as the interpreter's exit hook sees it: writing to a pipe that
    the manager thread has closed meanwhile is ignored (see :func:`_stop_pool`)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def wakeup(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._inner.wakeup()


@dataclass
class RunInfo:
    """What a finished (or resumed) run did."""

    out: Path
    total: int
    skipped: int
    played: int
    wall_s: float
    #: the store's games per (maths path, code fingerprint) at the end (None: not recorded)
    provenance: dict[tuple[str | None, str | None], int] = dataclasses.field(default_factory=dict)


def run_study(
    scenario: Scenario,
    registry: Registry,
    *,
    force: bool = False,
    address: str | None = None,
    progress: bool = True,
    on_result: Callable[[GameResult], None] | None = None,
    strict: bool = False,
) -> RunInfo:
    """Run every game of every sweep point that the store does not hold yet.

    Each game is stored with what played it (:mod:`sim.core.provenance`), checked batch by batch
    against this process's own: a game played with another maths path or code is said on stderr
    when it first arrives and at the end (and, with ``strict``, refused).

    Args:
        address: a running Dask scheduler (its workers and threads size the batches; the
            scenario's ``workers`` then counts for nothing).
        strict: refuse to mix provenances: stop (:class:`~sim.core.errors.WorkError`) before storing
            a game played otherwise than this process would, or at the start when the store holds
            such games.

    Raises:
        ScenarioError: a seat is agent ``human`` (a person plays with ``stonelab play``).
        InputError: the run folder belongs to another scenario (and not ``force``), holds other
            files and no run (:func:`sim.core.store.check_run_folder`), cannot be written, another
            program holds its store locked (:class:`sim.core.store.StoreLocked`), another run is writing to it (:class:`sim.core.store.FolderBusy`), too many
            workers are asked for (:func:`check_workers`), or the backend refuses the study before a
            game is stored; a store this call created is then removed again (and its folder, if this
            call made it and it is empty).
        WorkError: the store cannot be written (a full disk), or ``strict`` and a game played
            otherwise; the games stored before are kept.
        ClusterError: the Dask cluster failed (:mod:`sim.core.cluster`); the games stored are kept.
    """
    points: list[SweepPoint] = scenario.points(registry)
    refuse_human_study(points, scenario.source)  # before a folder is made: no one would answer
    game = registry.get(scenario.game)
    out = Path(scenario.out)
    workers = scenario.workers or os.cpu_count() or 1
    if scenario.backend != "serial" and not address:
        workers, warning = check_workers(scenario.workers, source=scenario.source)
        if warning and progress:
            print(plain(warning), file=sys.stderr, flush=True)
    check_run_folder(out)  # never into a folder of other files: the report would replace theirs
    made_dir = not out.exists()
    with lock_run_folder(out):
        try:
            return _run_locked(scenario, registry, points, game, out, made_dir, workers, force, address, progress,
                               on_result, strict)
        except Exception:
            if made_dir and out.is_dir() and [p.name for p in out.iterdir()] == [LOCK_NAME]:
                _remove_store(out, made_dir)  # refused before a store was made: take back the folder too
            raise


def _expected(game: Game, points: Sequence[SweepPoint]) -> dict[int, provenance.Provenance]:
    """This process's provenance for each sweep point's games (its seats name the outside agents)."""
    return {p.index: provenance.here(provenance.task_modules(type(game).__module__,
                                                             [s.agent for s in p.scenario.seats]))
            for p in points}


def _run_locked(scenario: Scenario, registry: Registry, points: list[SweepPoint], game: Game, out: Path,
                made_dir: bool, workers: int, force: bool, address: str | None, progress: bool,
                on_result: Callable[[GameResult], None] | None, strict: bool) -> RunInfo:
    """:func:`run_study` once it holds the run folder's lock."""
    fresh = force or not (out / STORE_NAME).exists()
    stored = 0
    meta = study_meta(scenario)
    t0 = time.perf_counter()
    store: Store | None = None
    expected = _expected(game, points)
    mixed = _MixedProvenance(expected, strict)
    with contextlib.ExitStack() as stack:
        session: DaskSession | None = None
        slots = 1 if scenario.backend == "serial" else workers
        if scenario.backend == "dask":
            # the cluster first: its size decides the batches, and a scheduler that cannot be
            # reached leaves no store behind
            session = stack.enter_context(DaskSession(address, workers))
            slots = session.wait_for_slots(announce=progress)
            link = session.dashboard()
            if link and progress:
                print(f"stonelab: Dask dashboard: {link}", file=sys.stderr, flush=True)
        try:
            store = Store.create(out, game.spec, meta, force=force)
            with reading(store.path):  # a resumed store with a damaged page fails here, named, not mid-run
                store.set_points((p.index, p.values) for p in points)
                done = store.done()
                mixed.check_stored(store.provenance_counts())
            total = len(points) * scenario.games
            in_grid = {p.index for p in points}
            skipped = sum(1 for pt, i in done if pt in in_grid and i < scenario.games)
            n_todo = total - skipped
            # batches made from the grid, without a list of every game first (10 million games made
            # a list of 10 million tuples); a game's batch is remembered only while it is in flight
            batch_of: dict[tuple[int, int], int] = {}
            tasks = _numbered(_batches(registry.path(scenario.game), points, scenario.games, done, n_todo, slots),
                              batch_of)
            # the time left: the batches left planned onto the slots (a Dask cluster's worker
            # threads, as the scheduler counts them) at the games' own wall times (a game's result
            # arrives with its batch, long after it started: sim.core.progress)
            forecast = PoolForecast(_batch_sizes(points, scenario.games, done, n_todo, slots), slots)
            bar = Progress(total, scenario.name, enabled=progress, done_before=skipped, estimate=forecast.eta_s)
            try:
                for r in iter_results(tasks, scenario.backend, workers, address, session=session, slots=slots):
                    mixed.check(r)
                    store.add(r)
                    stored += 1
                    if on_result:
                        on_result(r)
                    forecast.game_done(batch_of.pop((r.point, r.game_index)), r.wall_s, time.monotonic())
                    bar.advance()
            finally:
                bar.close()
            with reading(store.path):
                mixed.report(store.provenance_counts())
        except Exception:
            # bad input, a locked store or a full disk before the first game: take back the empty
            # store this call made (nothing half-written); stored games are kept for a resume
            # (only a store this call made: a failure to open an existing one removes nothing)
            if store is not None:
                store.close()
                if fresh and stored == 0:
                    _remove_store(out, made_dir)
            raise
        finally:
            if store is not None:
                store.close()
    return RunInfo(out=out, total=total, skipped=skipped, played=total - skipped, wall_s=time.perf_counter() - t0,
                   provenance=mixed.counts)


class _MixedProvenance:
    """Checks each arriving game's provenance against this process's, says the first of each kind
    that differs, and at the end says when the store holds games of more than one."""

    def __init__(self, expected: Mapping[int, provenance.Provenance], strict: bool) -> None:
        self.expected = expected
        self.strict = strict
        self.warned: set[provenance.Provenance] = set()
        self.counts: dict[tuple[str | None, str | None], int] = {}

    def check_stored(self, counts: Mapping[tuple[str | None, str | None], int]) -> None:
        """With ``strict``: refuse a store that already holds games played otherwise.

        Raises:
            WorkError: it does (the message says how many and how they were played).
        """
        mine = {(e.math_path, e.code) for e in self.expected.values()}
        other = {k: n for k, n in counts.items() if k not in mine}
        if self.strict and other:
            raise WorkError(f"--strict: the store already holds {provenance.describe_counts(other)}, played otherwise "
                            f"than this process plays ({', '.join(f'{m}/{c}' for m, c in sorted(mine))}); "
                            "resume without --strict, or give --out for a new folder")

    def check(self, r: GameResult) -> None:
        """Check one arriving game.

        Raises:
            WorkError: ``strict`` and the game was played otherwise (it is not stored).
        """
        want = self.expected.get(r.point)
        got = provenance.Provenance(r.math_path, r.code_fingerprint)
        if want is None or got == want:
            return
        what = "; ".join(got.differences(want))
        if self.strict:
            raise WorkError(f"--strict: game {r.game_index} of sweep point {r.point} was played with {what}: a "
                            "worker runs another maths path or other code than this process; it was not stored. "
                            "Start every worker as docs/howto.md says ('A study on a Dask cluster'); the games "
                            "stored so far are kept")
        if got not in self.warned:
            self.warned.add(got)
            print(f"stonelab: warning: game {r.game_index} of sweep point {r.point} was played with {what}; it is "
                  "stored with its provenance, but the study is no longer bit for bit what this process would "
                  "store (docs/reproducibility.md; --strict refuses such games)", file=sys.stderr, flush=True)

    def report(self, counts: Mapping[tuple[str | None, str | None], int]) -> None:
        """At the end: one line when the store's games were played in more than one way."""
        self.counts = dict(counts)
        if len(counts) > 1:
            print(f"stonelab: warning: the games of this study were played in {len(counts)} ways: "
                  f"{provenance.describe_counts(counts)} (maths path/code fingerprint; docs/reproducibility.md)",
                  file=sys.stderr, flush=True)


def study_meta(scenario: Scenario) -> dict[str, str]:
    """The store's ``meta`` rows of a run of ``scenario`` (docs/store.md)."""
    return {
        "name": scenario.name,
        "game": scenario.game,
        "fingerprint": scenario.fingerprint(),
        "scenario_json": _json(scenario.raw),
        "source": path_text(scenario.source),  # a file name's non-UTF-8 byte cannot be stored as it is
        "seed": str(scenario.seed),
        "games": str(scenario.games),
        "version": __version__,
    }


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


def _batch_size(n_todo: int, slots: int) -> int:
    """Games per task: several amortise inter-process overhead for fast games; at least ~4 tasks
    per slot (a pool worker, or a Dask worker thread as the scheduler counts them) keep the slots
    balanced, and at most 25 games per task bound what a kill can lose."""
    return max(1, min(25, n_todo // (slots * 4) or 1))


def _batch_sizes(points: Sequence[SweepPoint], games: int, done: set[tuple[int, int]], n_todo: int,
                 workers: int) -> list[int]:
    """Games per task of :func:`_batches`, in its order, without making the tasks."""
    size = _batch_size(n_todo, workers)
    out: list[int] = []
    for p in points:
        left = games - sum(1 for i in range(games) if (p.index, i) in done) if done else games
        out.extend([size] * (left // size))
        if left % size:
            out.append(left % size)
    return out


def _numbered(tasks: Iterable[Task], batch_of: dict[tuple[int, int], int]) -> Iterator[Task]:
    """``tasks`` as they are, each game's task number written into ``batch_of`` as it is handed out."""
    for k, t in enumerate(tasks):
        for i in t.indices:
            batch_of[(t.point, i)] = k
        yield t


def _batches(game_path: str, points: Sequence[SweepPoint], games: int, done: set[tuple[int, int]], n_todo: int,
             workers: int) -> Iterator[Task]:
    """The games not ``done`` of every point, in batches of one point each, made lazily."""
    size = _batch_size(n_todo, workers)
    for p in points:
        idx: list[int] = []
        for i in range(games):
            if (p.index, i) in done:
                continue
            idx.append(i)
            if len(idx) == size:
                yield Task(game_path, p.scenario, p.index, dict(p.values), tuple(idx))
                idx = []
        if idx:
            yield Task(game_path, p.scenario, p.index, dict(p.values), tuple(idx))


def _json(raw: Mapping[str, Any]) -> str:
    return json.dumps(raw, sort_keys=True, default=str)
