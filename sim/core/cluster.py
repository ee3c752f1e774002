"""The runner's Dask backend: a session on a cluster (a LocalCluster, or a running scheduler's
``--address``), sized by the scheduler's workers, and every way a cluster fails said in one line.

What it guarantees (docs/howto.md, "A study on a Dask cluster"):

- **Sized by the cluster**: :attr:`DaskSession.slots` is the sum of the scheduler's workers'
  threads (waiting up to :func:`no_workers_s` seconds for the first worker), which the runner
  uses for the batch size and the time left; ``--workers`` counts local processes only.
- **Released as stored**: at most :data:`IN_FLIGHT_PER_SLOT` batches per slot are on the cluster at
  a time; a batch's future is released as soon as its games are handed to the store, so a lost
  worker makes the scheduler recompute only batches not yet stored, and the client's memory stays
  flat however many games a study has.
- **The scenario once**: each sweep point's scenario travels to the cluster once, as a task of its
  own that the batches name by key (not pickled into every batch; a task, not scattered data, so
  the scheduler can compute it again if the worker holding it is lost).
- **One line per failure** (:class:`ClusterError`, exit 1; the CLI adds the resume command): the
  scheduler lost, a batch whose worker died past the scheduler's allowed failures, no workers for
  :func:`no_workers_s` seconds, workers that cannot import a module this process imports.

Ctrl-C or SIGTERM cancels the batches not started; a batch a worker is playing runs to its end
(Dask cannot stop a running task), and its games are not stored.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import re
import sys
import time
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence


from sim.core import mathpath
from sim.core.errors import InputError, WorkError

if TYPE_CHECKING:
    from sim.core.scenario import Scenario
    from sim.core.store import GameResult

#: a batch of games as the runner makes it (``sim.core.runner.Task``: ``game_path``, ``scenario``,
#: ``point``, ``values``, ``indices``); not imported, so that the runner can import this module
Task = Any
#: what plays a batch on a worker: ``play(game_path, scenario, point, values, indices)``
#: (``sim.core.runner.play_batch``, a module-level function: it is pickled by reference)
PlayBatch = Callable[[str, "Scenario", int, Mapping[str, Any], Sequence[int]], "list[GameResult]"]

#: the environment variable that sets how long a cluster may have no workers (s) before the run stops
NO_WORKERS_ENV = "STONELAB_NO_WORKERS_S"
#: its default: long enough for workers being started by hand or by a batch system
NO_WORKERS_S = 120.0
#: seconds the client may be without its scheduler (reconnecting) before the run stops
SCHEDULER_LOST_S = 10.0
#: batches on the cluster at a time per worker thread: one running, one queued behind it
IN_FLIGHT_PER_SLOT = 2
#: seconds between checks that the cluster is alive while no batch finishes
POLL_S = 1.0

__all__ = ["ClusterError", "DaskSession", "NO_WORKERS_ENV", "no_workers_s"]


class ClusterError(WorkError):
    """The Dask cluster failed the run (the input was right): one line, exit 1, and the games
    stored so far are kept, so the same command resumes once the cluster is mended."""


def no_workers_s(environ: Mapping[str, str] | None = None) -> float:
    """Seconds a cluster may have no workers before the run stops (:data:`NO_WORKERS_ENV`).

    Raises:
        InputError: the variable is not a positive number of seconds.
    """
    raw = (os.environ if environ is None else environ).get(NO_WORKERS_ENV, "").strip()
    if not raw:
        return NO_WORKERS_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value != value:
        raise InputError(f"environment variable {NO_WORKERS_ENV}={raw!r}: give a positive number of seconds")
    return value


def _scenario_value(scenario: Scenario) -> Scenario:
    """A sweep point's scenario as a task's result, which the batches of that point name by key."""
    return scenario


@contextlib.contextmanager
def _quiet_distributed() -> Iterator[None]:
    """Within the block, distributed's own loggers print nothing below CRITICAL: a lost scheduler
    printed a ``distributed.client - ERROR`` block before the traceback; the run says it in one line."""
    loggers = [logging.getLogger(n) for n in ("distributed", "distributed.client", "distributed.comm",
                                              "distributed.core", "distributed.batched", "tornado")]
    old = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, lv in zip(loggers, old):
            lg.setLevel(lv)


def _span(indices: Sequence[int]) -> str:
    return f"game {indices[0]}" if len(indices) == 1 else f"games {indices[0]}..{indices[-1]}"


class DaskSession:
    """A Dask client for one study: a LocalCluster of ``workers`` processes, or the running
    scheduler at ``address``. Use as a context manager.

    Raises (on entering):
        InputError: the scheduler at ``address`` cannot be reached.
    """

    def __init__(self, address: str | None, workers: int) -> None:
        self.address = address
        self.workers = workers
        self.client: Any = None
        self._cluster: Any = None
        self._stack = contextlib.ExitStack()
        self._inflight: dict[Any, Task] = {}

    # --- opening and closing ---------------------------------------------------------------------
    def __enter__(self) -> "DaskSession":
        # start-up: dask.distributed costs 440 ms of start-up, paid only with the Dask backend (CPU, python -X importtime)
        from dask.distributed import Client, LocalCluster

        self._stack.enter_context(_quiet_distributed())
        try:
            if self.address:
                try:
                    self.client = Client(self.address, timeout="10s")
                except (OSError, TimeoutError) as e:
                    raise InputError(f"cannot reach the Dask scheduler at {self.address!r}: {e}",
                                     key="--address") from None
                except TypeError as e:
                    if "TLS" not in str(e):
                        raise
                    # distributed's own words for a tls:// address without this process's key
                    raise InputError(f"cannot reach the Dask scheduler at {self.address!r}: a TLS scheduler takes "
                                     "only a client with a certificate and key signed by its authority; set "
                                     "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT "
                                     "and DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY (docs/howto.md, 'A study on a "
                                     "Dask cluster')", key="--address") from None
            else:  # local workers inherit this process's environment, and with it its maths code path
                self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                             dashboard_address=None, silence_logs=logging.ERROR)
                self.client = Client(self._cluster)
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self.client is not None:
                if self._inflight and self.client.status == "running":
                    # Ctrl-C, SIGTERM or a failure: batches not started are dropped (a running one
                    # goes on: Dask cannot stop a task)
                    with contextlib.suppress(Exception):
                        self.client.cancel(list(self._inflight), force=True)
                self._inflight.clear()
                with contextlib.suppress(Exception):
                    self.client.close(timeout=5)
            if self._cluster is not None:
                with contextlib.suppress(Exception):
                    self._cluster.close(timeout=10)
        finally:
            self._stack.close()

    # --- what the cluster is ---------------------------------------------------------------------
    @property
    def where(self) -> str:
        """The scheduler in words, for messages."""
        return f"the Dask scheduler at {self.address}" if self.address else "the local Dask cluster"

    def dashboard(self) -> str | None:
        """The scheduler's dashboard address, or None when it serves none.

        A scheduler always runs its HTTP server (health and metrics), but the dashboard pages only
        where bokeh is installed: the page is asked for (2 s at most) before it is named. Without
        bokeh the scheduler still answers 200 at the dashboard's address, with a page that says
        "Dask needs bokeh" (distributed 2026.8.0, measured): that page is not a dashboard.
        """
        # start-up: urllib.request costs 31 ms of start-up, paid only when a dashboard is probed (CPU, python -X importtime)
        import urllib.error
        import urllib.request

        try:
            services = self.client.scheduler_info(n_workers=0).get("services", {})
            link = str(self.client.dashboard_link) if "dashboard" in services else ""
        except Exception:  # noqa: BLE001 - an older scheduler or a lost one: nothing to show
            return None
        if not link.startswith("http"):
            return None
        try:
            with urllib.request.urlopen(link, timeout=2) as page:  # noqa: S310 - the scheduler's own address
                head = page.read(64 * 1024).decode("utf-8", "replace")
                return link if page.status == 200 and "needs bokeh" not in head else None
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def _nthreads(self) -> dict[str, int]:
        return dict(self.client.nthreads())

    def wait_for_slots(self, announce: bool = True) -> int:
        """The cluster's worker threads (its slots), waiting up to :func:`no_workers_s` for the first worker.

        Raises:
            ClusterError: no worker joined in that time.
        """
        limit = no_workers_s()
        threads = self._nthreads()
        if not threads:
            if announce:
                print(f"stonelab: {self.where} has no workers yet; waiting up to {limit:g} s for one",
                      file=sys.stderr, flush=True)
            try:
                self.client.wait_for_workers(1, timeout=limit)
            except (TimeoutError, OSError):
                raise self._no_workers(limit) from None
            threads = self._nthreads()
        self._warn_other_maths_path()
        return max(1, sum(threads.values()))

    def _no_workers(self, limit: float) -> ClusterError:
        start = f" (dask worker {self.address})" if self.address else ""
        return ClusterError(f"{self.where} had no workers for {limit:g} s ({NO_WORKERS_ENV} sets how long to wait); "
                            f"start workers{start}; the games stored so far are kept")

    def _warn_other_maths_path(self) -> None:
        """Warn if the workers present now started with another maths code path than this process
        (``sim.core.mathpath``); each batch's provenance is checked as well, so a worker that joins
        later is caught by the runner."""
        if not self.address or not mathpath.applies() or mathpath.opted_out():
            return
        try:
            workers = self.client.run(mathpath.worker_settings)
        except Exception as e:  # noqa: BLE001 - a worker without this package: its batches fail, said then
            print(f"stonelab: warning: could not read the Dask workers' maths settings: {type(e).__name__}: {e}",
                  file=sys.stderr, flush=True)
            return
        message = mathpath.worker_differences(mathpath.worker_settings(), workers)
        if message:
            print(f"stonelab: {message}", file=sys.stderr, flush=True)

    # --- running ---------------------------------------------------------------------------------
    def run(self, tasks: Iterable[Task], slots: int, play: PlayBatch) -> Iterator[GameResult]:
        """Play ``tasks`` (made lazily) with ``play`` on the workers, at most ``slots`` x
        :data:`IN_FLIGHT_PER_SLOT` batches on the cluster at a time, yielding each game's result as
        its batch completes, then releasing the batch.

        Raises:
            ClusterError: see the module docstring.
        """
        # start-up: dask.distributed adds 415 ms, paid only with the Dask backend (CPU, python -X importtime)
        from distributed import wait
        from distributed.client import FuturesCancelledError

        client = self.client
        # batches on the cluster at a time: grows and shrinks with the workers (read at most once a second)
        window = max(2, IN_FLIGHT_PER_SLOT * slots)
        sized_at = time.monotonic()
        todo = iter(tasks)
        # point -> [its scenario's future, batches of the point on the cluster]
        refs: dict[int, list[Any]] = {}
        last_point: list[int | None] = [None]

        def submit_one() -> bool:
            t = next(todo, None)
            if t is None:
                return False
            ref = refs.get(t.point)
            if ref is None:
                ref = refs[t.point] = [client.submit(_scenario_value, t.scenario, pure=False), 0]
            ref[1] += 1
            last_point[0] = t.point
            fut = client.submit(play, t.game_path, ref[0], t.point, dict(t.values), list(t.indices), pure=False)
            self._inflight[fut] = t
            return True

        while len(self._inflight) < window and submit_one():
            pass
        limit = no_workers_s()
        idle_since: float | None = None
        lost_since: float | None = None
        while self._inflight:
            try:
                done, _ = wait(list(self._inflight), timeout=POLL_S, return_when="FIRST_COMPLETED")
            except FuturesCancelledError:
                raise self._lost() from None
            except TimeoutError:
                now = time.monotonic()
                if client.status != "running":
                    lost_since = lost_since or now
                    if now - lost_since >= SCHEDULER_LOST_S:
                        raise self._lost() from None
                    continue
                lost_since = None
                try:
                    threads = self._nthreads()
                    n = len(threads)
                except Exception:  # noqa: BLE001 - the scheduler went away between the two checks
                    lost_since = now
                    continue
                if n:
                    idle_since = None
                    window = max(2, IN_FLIGHT_PER_SLOT * sum(threads.values()))
                    while len(self._inflight) < window and submit_one():
                        pass
                else:
                    idle_since = idle_since or now
                    if now - idle_since >= limit:
                        raise self._no_workers(limit) from None
                continue
            idle_since = None
            for fut in done:
                t = self._inflight.pop(fut)
                results = self._result(fut, t)
                fut.release()
                ref = refs[t.point]
                ref[1] -= 1
                if ref[1] == 0 and t.point != last_point[0]:
                    refs.pop(t.point)[0].release()  # no batch of that point is left to come
                yield from results
                if time.monotonic() - sized_at >= POLL_S:
                    sized_at = time.monotonic()
                    with contextlib.suppress(Exception):  # a scheduler lost now is caught by the next wait
                        window = max(2, IN_FLIGHT_PER_SLOT * sum(self._nthreads().values()))
                while len(self._inflight) < window and submit_one():
                    pass
        for ref in refs.values():
            ref[0].release()

    def _lost(self) -> ClusterError:
        return ClusterError(f"lost the connection to {self.where}; the scheduler's workers stop with it, so start "
                            "the scheduler and its workers again (docs/howto.md, 'A study on a Dask cluster'); the "
                            "games stored so far are kept")

    def _result(self, fut: Any, task: Task) -> list[GameResult]:
        """A finished batch's results, or its failure as a :class:`ClusterError`.

        Raises:
            ClusterError: the scheduler lost, a worker killed past the allowed failures, a module missing.
            Exception: any other failure of the games themselves (a bug: its traceback is wanted).
        """
        # start-up: dask.distributed adds 415 ms, paid only with the Dask backend (CPU, python -X importtime)
        from distributed import KilledWorker

        what = f"{_span(task.indices)} of sweep point {task.point}"
        try:
            return fut.result()
        except KilledWorker as e:
            allowed = getattr(e, "allowed_failures", None)
            times = f"{allowed + 1} times" if isinstance(allowed, int) else "too often"
            raise ClusterError(
                f"a Dask worker died while playing {what}, {times} (the scheduler's "
                f"distributed.scheduler.allowed-failures is {allowed if allowed is not None else '?'}), so the "
                "scheduler gave the batch up: a game that crashes its worker or fills its memory, or workers "
                "being stopped; the games stored so far are kept") from None
        except CancelledError:
            raise self._lost() from None
        except InputError as e:
            missing = _missing_module(str(e))
            if missing and importlib.util.find_spec(missing) is not None:
                raise ClusterError(
                    f"the Dask workers cannot import the module {missing!r}, which this process imports (an "
                    f"outside agent of the scenario): install it on every worker, or start the workers with it on "
                    f"their PYTHONPATH, as this process has it ({_origin(missing)}); the games stored so far are "
                    "kept") from None
            raise


def _missing_module(message: str) -> str | None:
    """The module an outside agent's "module ... not found" message names (sim.core.agents), or None."""
    m = re.search(r"module '([^']+)' not found", message)
    return m.group(1) if m else None


def _origin(module: str) -> str:
    spec = importlib.util.find_spec(module)
    return str(spec.origin) if spec is not None and spec.origin else module
