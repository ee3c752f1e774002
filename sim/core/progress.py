"""One progress display for every long job: a run's games, a video's frames, a stability sweep.

On a terminal (stderr is a TTY) it is a rich bar with a count and an estimated time left; anywhere
else (a pipe, a log file, CI) it is a plain line to stderr at every 10 % or every 30 s, whichever
comes first, with the elapsed time and the time left, so a log stays short but shows the job is
alive. It never writes to stdout, which may carry JSON.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from sim.core.console import plain

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


class Progress:
    """Count finished units of work (games, frames, passes) towards ``total``.

    Args:
        total: units in the whole job (at least 1 is assumed).
        label: what is running (the run name, ``video``, ...), printed first on each line.
        unit: the plural noun of a unit (``games``, ``frames``, ``passes``).
        enabled: False: count silently (``--json`` output, tests).
        quiet_s: plain lines only once the job has run this long (s): a job of a few seconds
            leaves no trace in a log; the terminal bar is shown from the start.
    """

    def __init__(self, total: int, label: str, enabled: bool = True, unit: str = "games",
                 quiet_s: float = 0.0) -> None:
        self.total = max(int(total), 1)
        self.done = 0
        self.enabled = enabled
        self.label = label
        self.unit = unit
        self.quiet_s = quiet_s
        self._bar: Any = None
        self._t0 = time.monotonic()
        self._last_t = self._t0
        self._last_decile = 0
        self._first = 0  # units already done when counting started (a resumed run): not in the rate
        if enabled and sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn(unit), TimeRemainingColumn(), transient=False,
            )
            self._bar.start()
            from sim.core.console import escape

            # the description column is markup, and the label may be a scenario's name
            self._task = self._bar.add_task(escape(label), total=self.total)

    def skip(self, n: int) -> None:
        """Count ``n`` units done before this job started (a resumed run); they do not set the pace."""
        self.done += n
        self._first += n
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)

    def eta_s(self) -> float | None:
        """Estimated seconds left at the pace so far (None before the first unit)."""
        ran = self.done - self._first
        if ran <= 0:
            return None
        rate = ran / max(time.monotonic() - self._t0, 1e-9)
        return (self.total - self.done) / rate

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more finished units."""
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, advance=n)
            return
        decile = self.done * 10 // self.total
        now = time.monotonic()
        if now - self._t0 < self.quiet_s:
            return
        if decile > self._last_decile or now - self._last_t >= PLAIN_EVERY_S or self.done >= self.total:
            self._last_decile, self._last_t = decile, now
            pct = 100.0 * self.done / self.total
            eta = self.eta_s()
            left = f", about {_clock(eta)} left" if eta is not None and self.done < self.total else ""
            print(f"{plain(self.label)}: {self.done}/{self.total} {self.unit} ({pct:.0f} %), {_clock(now - self._t0)}"
                  f"{left}", file=sys.stderr, flush=True)

    def close(self) -> None:
        """Stop the bar (a plain display needs nothing)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
