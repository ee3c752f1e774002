"""How a command stops on a signal: SIGTERM and SIGHUP stop it the way Ctrl-C does.

A study, a search or a game being played catches ``KeyboardInterrupt``: Ctrl-C raises it, and
within :func:`sigterm_as_interrupt` so do ``kill PID`` and the terminal closed, as
:class:`Terminated`, whose ``signum`` gives the exit code (128 + the signal). Light on purpose
(signal, threading): every command's front end imports it at start-up, before the runner.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator

__all__ = ["EXIT_CTRL_C", "STOP_SIGNALS", "Terminated", "exit_code_of", "sigterm_as_interrupt"]


class Terminated(KeyboardInterrupt):
    """The run received SIGTERM or SIGHUP: it stops like Ctrl-C (finished games stay stored), exit
    code 128 + the signal (143, 129).

    Attributes:
        signum: the signal received.
    """

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = int(signum)


#: exit code of a command stopped by Ctrl-C (SIGINT): 128 + 2, as a shell reports it
EXIT_CTRL_C = 130


def exit_code_of(stop: KeyboardInterrupt) -> int:
    """The exit code a command gives when ``stop`` ended it: 128 + the signal for
    :class:`Terminated` (143 for SIGTERM, 129 for SIGHUP), else :data:`EXIT_CTRL_C` (Ctrl-C)."""
    return 128 + stop.signum if isinstance(stop, Terminated) else EXIT_CTRL_C


#: the signals that stop a run like Ctrl-C: ``kill PID``, and the terminal closed (SIGHUP)
STOP_SIGNALS = (signal.SIGTERM, *((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ()))


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` (a KeyboardInterrupt) in the main thread.

    So ``kill PID``, or closing the terminal a run was started from, stops a run the way Ctrl-C
    does: the games stored so far stay, the workers are stopped, and the command can be given again
    to resume. Outside the main thread (where Python cannot set signal handlers) the block does
    nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise Terminated(signum)

    old = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
