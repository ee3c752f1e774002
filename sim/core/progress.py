"""One progress display for every long job: a run's games, a video's frames, a stability sweep.

On a terminal (stderr is a TTY) it is a rich bar with a count and an estimated time left; anywhere
else (a pipe, a log file, CI) it is a plain line to stderr when the job starts, at every 10 %, and
at least every 30 s while the job runs (a timer thread: a game or a batch of games may take longer
than that), with the elapsed time and the time left, so a log stays short but shows the job is
alive. It never writes to stdout, which may carry JSON. :func:`announce` names a step that follows
(writing the report, recording a replay), so that no step runs silently.

The time left
    By default the units left over the rate so far. That misleads when units finish in batches on
    several workers: a study's first line came after 1 min 59 s with one game of 100 done and read
    "about 3 h 16 min left" for a job that took 7 min (the elapsed time held the worker pool's
    start and the games in flight; the count held one game). A runner therefore passes
    ``estimate``: :class:`PoolForecast` plans the batches left onto the workers from each finished
    game's own wall time.
"""

from __future__ import annotations

import heapq
import sys
import threading
import time
from typing import Any, Callable, Sequence

from sim.core.console import escape, plain

#: seconds between plain lines when no 10 % step was crossed
PLAIN_EVERY_S = 30.0


def _clock(seconds: float) -> str:
    """``seconds`` as ``1 h 02 min``, ``3 min 05 s`` or ``12 s``."""
    s = int(round(max(seconds, 0.0)))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"


def announce(label: str, step: str, enabled: bool = True) -> None:
    """Print ``label: step...`` to stderr (a step after the counted work, e.g. writing the report)."""
    if enabled:
        print(f"{label}: {step}...", file=sys.stderr, flush=True)


class Progress:
    """Count finished units of work (games, frames, passes) towards ``total``.

    Args:
        total: units in the whole job (at least 1 is assumed).
        label: what is running (the run name, ``video``, ...), printed first on each line.
        unit: the plural noun of a unit (``games``, ``frames``, ``passes``).
        enabled: False: count silently (``--json`` output, tests).
        quiet_s: plain lines only once the job has run this long (s): a job of a few seconds
            leaves no trace in a log (and no start line is printed); the terminal bar is shown from
            the start.
        done_before: units done before this job started (a resumed run): counted, but they do not
            set the pace.
        estimate: ``estimate(now)``, the seconds left at clock time ``now`` (None: not known yet),
            instead of the rate so far (e.g. :meth:`PoolForecast.eta_s`).
        every_s: the longest silence between plain lines (s).
        clock: the monotonic clock in seconds (tests pass a fake one).
        timer: start the thread that prints a line after ``every_s`` s of silence (tests that
            drive :meth:`tick` themselves turn it off).
    """

    def __init__(self, total: int, label: str, enabled: bool = True, unit: str = "games",
                 quiet_s: float = 0.0, *, done_before: int = 0, estimate: Callable[[float], float | None] | None = None,
                 every_s: float = PLAIN_EVERY_S,
                 clock: Callable[[], float] = time.monotonic, timer: bool = True) -> None:
        self.total = max(int(total), 1)
        self.done = int(done_before)
        self.enabled = enabled
        self.label = label
        self.unit = unit
        self.quiet_s = quiet_s
        self._estimate = estimate
        self.every_s = every_s
        self._now = clock
        self._bar: Any = None
        self._t0 = clock()
        self._last_t = self._t0  # when the last plain line was printed
        self._last_decile = self.done * 10 // self.total
        self._first = self.done  # units already done when counting started (a resumed run): not in the rate
        self._lock = threading.Lock()  # the timer thread and the caller print and read the counts
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if enabled and sys.stderr.isatty():
            # start-up: rich.progress adds 10 ms to every command's start-up, and a bar shows only on a terminal (CPU, python -X importtime)
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn(unit), TextColumn("{task.fields[left]}"), transient=False,
            )
            self._bar.start()

            # the description column is markup, and the label may be a scenario's name
            self._task = self._bar.add_task(escape(label), total=self.total, completed=self.done, left="")
        elif enabled:
            if quiet_s <= 0:
                self._line(self._t0)  # the job has started: 0 %
            if timer and every_s > 0:
                self._thread = threading.Thread(target=self._beat, name="stonelab-progress", daemon=True)
                self._thread.start()

    def eta_s(self, now: float | None = None) -> float | None:
        """Estimated seconds left at ``now`` (default: the clock's now; None before the first unit):
        the ``estimate`` given, else the units left over the rate so far."""
        now = self._now() if now is None else now
        if self._estimate is not None:
            return self._estimate(now)
        ran = self.done - self._first
        if ran <= 0:
            return None
        rate = ran / max(now - self._t0, 1e-9)
        return (self.total - self.done) / rate

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more finished units."""
        with self._lock:
            now = self._now()
            self.done += n
            if not self.enabled:
                return
            if self._bar is not None:
                eta = self.eta_s(now)
                self._bar.update(self._task, advance=n,
                                 left=f"about {_clock(eta)} left" if eta is not None and self.done < self.total else "")
                return
            decile = self.done * 10 // self.total
            if now - self._t0 < self.quiet_s:
                return
            if decile > self._last_decile or now - self._last_t >= self.every_s or self.done >= self.total:
                self._line(now)

    def tick(self) -> None:
        """Print a plain line if none was printed for ``every_s`` s (what the timer thread calls)."""
        with self._lock:
            now = self._now()
            if self._bar is None and self.enabled and self.done < self.total and now - self._t0 >= self.quiet_s \
                    and now - self._last_t >= self.every_s:
                self._line(now)

    def _beat(self) -> None:
        # wake a few times per interval, so that a line is at most a little late
        while not self._stop.wait(min(self.every_s / 4.0, 1.0)):
            self.tick()

    def _line(self, now: float) -> None:
        """One plain line (caller holds the lock, or is the constructor)."""
        self._last_decile, self._last_t = self.done * 10 // self.total, now
        pct = 100.0 * self.done / self.total
        eta = self.eta_s(now)
        left = f", about {_clock(eta)} left" if eta is not None and self.done < self.total else ""
        print(f"{plain(self.label)}: {self.done}/{self.total} {self.unit} ({pct:.0f} %), {_clock(now - self._t0)}"
              f"{left}", file=sys.stderr, flush=True)

    def close(self) -> None:
        """Stop the timer thread and the bar."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PoolForecast:
    """The time left of a job of batches on a pool of ``workers`` that starts them in order (a
    ``ProcessPoolExecutor``; the serial backend is a pool of one).

    A batch's results arrive together when it ends; the worker that ran it then starts the next
    batch. The first batches started when the pool did, which is known once the first batch ends:
    its end less the wall time its games took. The forecast runs every unfinished batch at the mean
    wall time per finished game: the running ones from their start, the waiting ones on whichever
    worker is free first; the time left is the last end less now (a pool's start-up and the games
    in flight thus count, which the rate so far missed; module docstring).

    Args:
        sizes: games per batch, in the order they were submitted.
        workers: the pool's workers.
    """

    def __init__(self, sizes: Sequence[int], workers: int) -> None:
        self.sizes = [int(n) for n in sizes]
        self.workers = max(int(workers), 1)
        self._left = list(self.sizes)  # games not finished, per batch
        self._work = [0.0] * len(self.sizes)  # wall time of the finished games, per batch (s)
        self._start: dict[int, float] = {}  # start time of a batch known to have started
        self._next = min(self.workers, len(self.sizes))  # the first batch not started yet
        self._pool_t: float | None = None  # when the pool started (known after the first batch ends)
        self._games = 0
        self._total_work = 0.0
        self._lock = threading.Lock()  # a progress timer thread reads while the runner writes

    def game_done(self, batch: int, work_s: float, now: float) -> None:
        """Game of ``batch`` finished at clock time ``now``, after ``work_s`` s of wall time."""
        with self._lock:
            self._games += 1
            self._total_work += work_s
            self._work[batch] += work_s
            self._left[batch] -= 1
            if self._left[batch] > 0:
                return
            if self._pool_t is None:
                self._pool_t = now - self._work[batch]
                for k in range(min(self.workers, len(self.sizes))):
                    self._start.setdefault(k, self._pool_t)
            self._start.setdefault(batch, now - self._work[batch])
            if self._next < len(self.sizes):  # the freed worker takes the next batch
                self._start[self._next] = now
                self._next += 1

    def eta_s(self, now: float) -> float | None:
        """Seconds left at clock time ``now`` (None until a batch has ended)."""
        with self._lock:
            if self._pool_t is None or self._games == 0:
                return None
            per = self._total_work / self._games
            ends = [max(now, t + self._left[k] * per) for k, t in self._start.items() if self._left[k] > 0]
            free = sorted(ends) + [now] * max(self.workers - len(ends), 0)
            last = max(ends, default=now)
            heapq.heapify(free)
            for k in range(self._next, len(self.sizes)):
                if self._left[k] > 0:
                    t = heapq.heappop(free) + self._left[k] * per
                    heapq.heappush(free, t)
                    last = max(last, t)
            return max(last - now, 0.0)
