"""The rich console every command prints its human-readable output through.

Lines a user may copy (a path, a ``stonelab replay view ...`` command) must survive a pipe, a log
file or a narrow terminal intact, so the console never word-wraps printed text (``soft_wrap``):
the terminal folds a long line visually, while the text stays one line. Word wrapping also
re-flowed a bold user path: ``sun pass my-ring.toml`` printed ``My-ring.toml``. Tables still fit
the width. User text put into markup goes through :func:`escape`, so a ``[`` in a file name is
printed, not parsed.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape as _escape


class _Console(Console):
    """A rich console that lets a closed pipe reach the ``stonelab`` entry point.

    Rich's own handler exits with status 1 and no word, so ``stonelab games | head -1`` looked like
    a failure; :func:`sim.cli.main` ends such a command quietly with the status other Unix tools get.
    """

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError("the output pipe was closed")


def console(stderr: bool = False) -> Console:
    """A console for command output (stdout, or stderr if ``stderr``) that never wraps text."""
    return _Console(soft_wrap=True, stderr=stderr)


def fit_labels(labels: list[str], room: int) -> tuple[list[str], bool]:
    """Table cells for agent labels in a column ``room`` characters wide: the labels themselves
    when every one fits, else each label's agent name (the part before ``(``), and ``False``, so
    that the caller prints the full labels below the table. A label folded inside its cell
    (``greedy(tshirt_wei`` / ``ght=10.0,``) is no longer a name one can copy."""
    if max(map(len, labels), default=0) <= max(room, 5):
        return list(labels), True
    return [lab.split("(")[0] or lab for lab in labels], False


def escape(value: Any) -> str:
    """``str(value)`` safe to put into rich markup (a path, a name the user typed)."""
    return _escape(str(value))


def quiet_broken_pipe() -> int:
    """End a command whose output pipe was closed (``stonelab replay info RUN | head -1``) quietly,
    as Unix tools do; returns 141 (128 + SIGPIPE, the status a shell shows for them)."""
    # stdout's buffer still holds output for the closed pipe; the interpreter would flush it at
    # exit and print "Exception ignored ... BrokenPipeError", so point stdout at /dev/null
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a real file (a test's capture)
        pass
    return 128 + 13
