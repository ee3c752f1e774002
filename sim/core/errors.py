"""Error types shared by every engine.

``InputError`` and its subclasses mean *the user's input is wrong* (a scenario or layout file, a
command-line value, a replay file): the CLI prints the message alone and exits with code 2.
``WorkError`` means the work failed although the input was right (the disk is full): the CLI prints
the message alone and exits with code 1. ``IllegalActionError`` means an agent or a test asked a
state for a move the rules forbid.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Iterable


class InputError(ValueError):
    """Bad user input. The message names the source (file), the key, and what is allowed."""

    def __init__(self, message: str, *, source: str | Path | None = None, key: str | None = None) -> None:
        self.source = str(source) if source is not None else None
        self.key = key
        #: the message without the file and key prefix (to re-raise with another source or key)
        self.message = message
        parts = []
        if self.source:
            parts.append(self.source)
        if key:
            parts.append(f"key '{key}'")
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class ScenarioError(InputError):
    """A scenario or layout file is malformed or holds a value the game does not allow."""


class ReplayError(InputError):
    """A replay file is truncated, foreign or of an unsupported version."""


class WorkError(Exception):
    """The work failed for a reason outside the user's input (the disk is full, a store cannot be
    written): the CLI prints the message alone and exits with code 1. The message names the file,
    says what was kept and what to do."""


#: OS errors that come from the machine (a full disk or quota, an I/O failure, a read-only file
#: system): the CLI prints one line and exits 1 instead of a traceback, whichever command met them
MACHINE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS})


class IllegalActionError(ValueError):
    """An action the rules do not allow in this state.

    The message names the action, the seat and the state's notation; the state is unchanged.
    """

    def __init__(self, action: object, seat: int, notation: str, reason: str = "") -> None:
        self.action = action
        self.seat = seat
        self.notation = notation
        #: the rule's reason alone (no state notation, which may hold what a seat must not see)
        self.reason = reason
        why = f" ({reason})" if reason else ""
        super().__init__(f"illegal action {action} by seat {seat}{why} in state {notation!r}")


def allowed(values: Iterable[object]) -> str:
    """Format a list of allowed values for an error message: ``'a', 'b' or 'c'``."""
    items = [repr(v) for v in values]
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]
