"""Checks of input files given by the user, made before a file is opened.

Opening a named pipe (FIFO) for reading blocks until some other process writes to it, so a FIFO
given as a layout or a scenario hung the command forever; a device or a socket is no better. Only
regular files (or symbolic links to them) are read.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from sim.core.errors import InputError

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def check_input_file(path: str | Path, what: str, error: type[InputError] = InputError, hint: str = "") -> Path:
    """``path`` is an existing regular file that can be read without blocking.

    Args:
        path: the file given by the user.
        what: what it should be, for the message (``"layout file"``).
        error: the InputError subclass to raise (ScenarioError, ReplayError, ...).
        hint: where such files are, appended to the message (``"scenarios/sun/layouts/*.toml"``).

    Raises:
        InputError: (of class ``error``) missing, a folder, or not a regular file; the message
            names the file.
    """
    p = Path(path)
    where = f" ({hint})" if hint else ""
    try:
        mode = os.stat(p).st_mode  # follows links: a link to a FIFO is a FIFO
    except FileNotFoundError:
        raise error(f"no such {what}{where}", source=p) from None
    except OSError as e:
        raise error(f"cannot read the {what}: {e.strerror or e}", source=p) from None
    except ValueError:  # a NUL byte (a TOML string may hold one): no file can be named so
        raise error(f"not a file name: it holds a NUL byte; give the path of a {what}{where}",
                    source=repr(str(p))) from None
    if stat.S_ISDIR(mode):
        raise error(f"is a folder; give a {what}{where}", source=p)
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise error(f"is {kind}, not a {what}; give a {what}{where}", source=p)
    return p


def read_toml(path: str | Path, what: str, error: type[InputError] = InputError, hint: str = "") -> dict[str, Any]:
    """Read a TOML file given by the user: checked first (:func:`check_input_file`), then parsed.

    Args:
        path: the file.
        what: what it should be, for the messages (``"layout file"``).
        error: the InputError subclass to raise.
        hint: where such files are (``"scenarios/sun/layouts/*.toml"``), appended to messages.

    Raises:
        InputError: (of class ``error``, naming the file) missing, a folder or not a regular file,
            not UTF-8 (a leading byte-order mark is accepted), not valid TOML, or unreadable.
    """
    p = check_input_file(path, what, error, hint)
    where = f" ({hint})" if hint else ""
    try:
        # utf-8-sig: a byte-order mark (Windows editors save one) is skipped, not "Invalid statement"
        return tomllib.loads(p.read_text(encoding="utf-8-sig"))
    except tomllib.TOMLDecodeError as exc:
        raise error(f"not valid TOML: {exc}", source=p) from None
    except UnicodeDecodeError:
        raise error(f"not a UTF-8 text file; a {what} is TOML{where}", source=p) from None
    except OSError as exc:
        raise error(f"cannot read the {what}: {exc.strerror or exc}", source=p) from None

