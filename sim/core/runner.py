"""The scenario runner: plays a study's games on a backend and commits each to the store.

Backends share one interface, :func:`iter_results`: submit games, receive results as they
complete. ``serial`` plays in this process; ``process`` (the default) uses a spawn pool sized to
the machine; ``dask`` uses ``dask.distributed`` (a LocalCluster, or ``address`` of a running
scheduler, which is how a study outgrows one machine). A game's result depends only on the root
seed and its index (``sim.core.seeding``), so every backend and worker count stores the same
results; only wall times differ.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from sim import __version__
from sim.core.agents import make_agent
from sim.core.errors import InputError
from sim.core.game import CHANCE, SIMULTANEOUS, Game
from sim.core.registry import Registry, load_game
from sim.core.scenario import Scenario, SweepPoint
from sim.core.seeding import game_streams
from sim.core.store import STORE_NAME, GameResult, Store

MAX_STEPS = 10_000_000  # a guard against a game that never ends; no real game comes near it


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
        RuntimeError: the game did not end within MAX_STEPS steps.
    """
    config = dataclasses.replace(scenario.config(), game_index=game_index)
    n = config.num_players
    streams = game_streams(scenario.seed, game_index, n)
    agents = [
        make_agent(game, seat.agent, seat.params, seat=i, rng=streams.seats[i], config=config)
        for i, seat in enumerate(scenario.seats)
    ]
    t0 = time.perf_counter()
    state = game.new_initial_state(config)
    chance = streams.chance
    leads: list[list[int]] = []
    leader = -2
    moves = 0
    for _ in range(MAX_STEPS):
        p = state.current_player()
        if p >= 0:
            state.apply_action(agents[p].act(state.observation(p), state.legal_actions(p)))
        elif p == CHANCE:
            state.apply_action(state.sample_chance(chance))
            continue
        elif p == SIMULTANEOUS:
            state.apply_actions(
                {s: agents[s].act(state.observation(s), state.legal_actions(s)) for s in state.simultaneous_seats()}
            )
        else:
            break
        moves += 1
        scores = state.provisional_scores()
        if scores is not None:
            now = _leader(scores)
            if now != leader:
                leads.append([moves, now])
                leader = now
    else:
        raise RuntimeError(f"game {game_index} of {scenario.name} did not end within {MAX_STEPS} steps")
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


def _leader(scores: tuple[float, ...]) -> int:
    """The seat with the highest score, or -1 when several share it."""
    best = max(scores)
    top = [i for i, s in enumerate(scores) if s == best]
    return top[0] if len(top) == 1 else -1


def run_task(task: Task) -> list[GameResult]:
    """Play a batch of games (the unit of work a worker receives)."""
    game = load_game(task.game_path)
    return [play_game(game, task.scenario, task.point, task.values, i) for i in task.indices]


def _worker_init() -> None:
    # one BLAS thread per worker: the pool already uses every core
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")


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
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_worker_init) as pool:
            pending = {pool.submit(run_task, t) for t in tasks}
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        yield from f.result()
            finally:
                for f in pending:
                    f.cancel()
    elif backend == "dask":
        yield from _iter_dask(tasks, workers, address)
    else:
        raise InputError(f"unknown backend {backend!r}; allowed: 'serial', 'process' or 'dask'", key="backend")


def _iter_dask(tasks: Sequence[Task], workers: int, address: str | None) -> Iterator[GameResult]:
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    try:
        if address:
            try:
                client = Client(address, timeout="10s")
            except OSError as e:
                raise InputError(f"cannot reach the Dask scheduler at {address!r}: {e}", key="--address") from None
        else:
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


class Progress:
    """A rich bar on a terminal; elsewhere a plain line every 10 % or 30 s (to stderr)."""

    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.enabled = enabled
        self.label = label
        self._bar: Any = None
        self._last_t = time.monotonic()
        self._last_decile = 0
        self._t0 = time.monotonic()
        if enabled and sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TimeRemainingColumn

            self._bar = RichProgress(
                "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(label, total=total)

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more finished games."""
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, advance=n)
            return
        decile = self.done * 10 // self.total
        now = time.monotonic()
        if decile > self._last_decile or now - self._last_t >= 30 or self.done == self.total:
            self._last_decile, self._last_t = decile, now
            pct = 100.0 * self.done / self.total
            print(f"{self.label}: {self.done}/{self.total} games ({pct:.0f} %), {now - self._t0:.1f} s", file=sys.stderr, flush=True)

    def close(self) -> None:
        """Stop the bar."""
        if self._bar is not None:
            self._bar.stop()


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
            written, or the backend refuses the study before a game is stored; a store this call
            created is then removed again (and its folder, if this call made it and it is empty).
    """
    points: list[SweepPoint] = scenario.points(registry)
    game = registry.get(scenario.game)
    out = Path(scenario.out)
    made_dir = not out.exists()
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
        store.set_points((p.index, p.values) for p in points)
        done = store.done()
        workers = scenario.workers or os.cpu_count() or 1
        todo = [(p, i) for p in points for i in range(scenario.games) if (p.index, i) not in done]
        total = len(points) * scenario.games
        tasks = _batches(registry.path(scenario.game), todo, workers)
        bar = Progress(total, scenario.name, enabled=progress)
        bar.advance(total - len(todo)) if total - len(todo) else None
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
