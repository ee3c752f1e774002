"""The rich console every command prints its human-readable output through, and the one place
user text is made safe to print.

Lines a user may copy (a path, a ``stonelab replay view ...`` command) must survive a pipe, a log
file or a narrow terminal intact, so the console never word-wraps printed text (``soft_wrap``):
the terminal folds a long line visually, while the text stays one line. Word wrapping also
re-flowed a bold user path: ``sun pass my-ring.toml`` printed ``My-ring.toml``. Tables still fit
the width.

Text from a file or a run (a seat label, a scenario name, a path, a sweep value) is not trusted
(docs/security.md): a label may hold an escape sequence that recolours or retitles the terminal,
a ``[link=...]`` that rich would render as a hyperlink, or a ``:emoji:`` code. Every such string
goes through :func:`escape` before it is put into rich markup (a table cell is markup too) and
through :func:`plain` before it is printed as plain text (``typer.echo``, ``sys.stderr``).
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from typing import Any

from rich.console import Console
from rich.markup import escape as _escape

#: C0 controls (tab and newline included), DEL, C1 controls, and the Unicode bidirectional and
#: line/paragraph separators that reorder or break what a terminal shows
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _show(m: re.Match[str]) -> str:
    c = ord(m.group(0))
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


class _Console(Console):
    """A rich console that lets a closed pipe reach the ``stonelab`` entry point.

    Rich's own handler exits with status 1 and no word, so ``stonelab games | head -1`` looked like
    a failure; :func:`sim.cli.main` ends such a command quietly with the status other Unix tools get.
    """

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError("the output pipe was closed")


def console(stderr: bool = False) -> Console:
    """A console for command output (stdout, or stderr if ``stderr``) that never wraps text and
    renders no ``:emoji:`` codes (a label's ``:x:`` stays text)."""
    return _Console(soft_wrap=True, stderr=stderr, emoji=False)


def wrap_prose(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    """``text`` (plain, one paragraph) as lines of at most ``width`` characters, broken between
    words only: a word longer than the width (a path, a command) stands whole on its own line,
    never cut. ``first`` starts the first line, ``indent`` the others."""
    return textwrap.wrap(text, width=max(width, 20), initial_indent=first, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


def print_prose(con: Console, text: str, indent: str = "", first: str = "") -> None:
    """Print a note, a legend or a finding (plain text, not markup) wrapped at ``con``'s width
    (the terminal's, or 80 columns when piped) by :func:`wrap_prose`: whole at 80 columns, no
    word cut. Lines a user copies (a path, a command) are printed with ``con.print`` instead."""
    for ln in wrap_prose(plain(text), con.width, indent, first):
        con.print(ln, markup=False, highlight=False, soft_wrap=True)


def fit_labels(labels: list[str], room: int) -> tuple[list[str], bool]:
    """Table cells for agent labels in a column ``room`` characters wide: the labels themselves
    when every one fits, else each label's agent name (the part before ``(``), and ``False``, so
    that the caller prints the full labels below the table. A label folded inside its cell
    (``greedy(tshirt_wei`` / ``ght=10.0,``) is no longer a name one can copy."""
    if max(map(len, labels), default=0) <= max(room, 5):
        return list(labels), True
    # a seat of a rotated study holds several players ("careful(...) / aggressive(...)"): each is named
    return [" / ".join(part.split("(")[0] or part for part in lab.split(" / ")) for lab in labels], False


def print_labelled_table(con: Console, heads: list[str], rows: list[list[str]], labels: list[str], label_head: str,
                         keys: list[str], border: int = 0, **table_kw: Any) -> None:
    """Print a table of ``rows`` (cells under ``heads``, right-aligned, never wrapped) with a
    ``label_head`` column of ``labels`` (agents, entrants) after the first, cut to names by
    :func:`fit_labels` when they would not fit ``con``'s width; then the full labels follow, one
    line each as ``key: label``. ``border`` counts the table's edge characters, ``table_kw`` goes
    to :class:`rich.table.Table`. Labels are escaped here."""
    # start-up: rich.table adds 6 ms to every command's start-up (CPU, python -X importtime)
    from rich.table import Table

    # a column is its widest cell plus two of padding and one of border
    others = sum(max([len(h), *(len(row[i]) for row in rows)]) + 3 for i, h in enumerate(heads)) + border
    cells, full = fit_labels(labels, con.width - others)
    t = Table(**table_kw)
    for i, h in enumerate(heads):
        t.add_column(h, justify="right", no_wrap=True)
        if i == 0:
            t.add_column(label_head, no_wrap=True)
    for cell, row in zip(cells, rows):
        t.add_row(row[0], escape(cell), *row[1:])
    con.print(t)
    if not full:
        for key, lab in zip(keys, labels):
            con.print(f"{key}: {escape(lab)}", highlight=False)

def plain(value: Any, keep_lines: bool = False) -> str:
    """``str(value)`` safe to print on a terminal as plain text: every control character (ESC,
    the other C0 and C1 controls, bidirectional overrides; tab and newline too unless
    ``keep_lines``) is shown as its ``\\xNN`` / ``\\uNNNN`` escape instead of acting."""
    return (_CONTROL_KEEP_LINES if keep_lines else _CONTROL).sub(_show, str(value))


def escape(value: Any) -> str:
    """``str(value)`` safe to put into rich markup (a path, a name the user typed, a label from a
    file): :func:`plain`, then rich's markup escape (a ``[`` is printed, not parsed)."""
    return _escape(plain(value))


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
