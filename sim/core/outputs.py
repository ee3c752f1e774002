"""Checks of output paths given on the command line, made before any work is done.

A command that simulates for minutes and then cannot write its result wastes the user's time;
these checks turn a path that cannot work (a file where a folder is wanted, a folder where a file
is wanted, a parent that is a file, no write permission) into an :class:`InputError` naming the
option, before anything is computed or written. Nothing is created by the checks;
:func:`write_atomically` then writes a result whole or not at all.
"""

from __future__ import annotations

import os
import shutil
import unicodedata
from pathlib import Path
from typing import Callable

from sim.core.errors import InputError


def _nearest_existing(path: Path) -> Path:
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _check_parent(path: Path, key: str, what: str) -> None:
    anchor = _nearest_existing(path.parent)
    if not anchor.is_dir():
        raise InputError(f"cannot write {what} there: {anchor} is a file, not a folder", source=path, key=key)
    if not os.access(anchor, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {what} there: no permission to write in {anchor}", source=path, key=key)


def check_output_file(path: str | Path, key: str, suffixes: tuple[str, ...] = ()) -> Path:
    """``path`` can be written as a file (its missing parent folders can be made).

    Args:
        path: the file to write.
        key: the option that gave it, for the message (e.g. ``"--out"``).
        suffixes: allowed endings (e.g. ``(".png", ".svg")``), any if empty.

    Raises:
        InputError: a folder, a wrong ending, or a parent that cannot be made or written.
    """
    p = Path(path)
    if p.is_dir():
        raise InputError("is a folder; give a file name", source=p, key=key)
    if suffixes and p.suffix.lower() not in suffixes:
        ends = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else suffixes[0]
        raise InputError(f"the file name must end in {ends}", source=p, key=key)
    _check_parent(p, key, "a file")
    if p.exists() and not os.access(p, os.W_OK):
        raise InputError("cannot write the file: no permission", source=p, key=key)
    return p


def check_output_dir(path: str | Path, key: str) -> Path:
    """``path`` is a folder, or can be made as one.

    Raises:
        InputError: a file, or a parent that cannot be made or written.
    """
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise InputError("is a file; give a folder", source=p, key=key)
        if not os.access(p, os.W_OK | os.X_OK):
            raise InputError("cannot write in this folder: no permission", source=p, key=key)
        return p
    _check_parent(p, key, "a folder")
    return p


def write_atomically(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Write a whole file or nothing: ``write(side_file)`` fills ``.<name>.part-<pid>`` beside
    ``path``, which is then renamed over ``path`` (a reader never sees half a file; a failure leaves
    the old file, if any, and no side file). Creates the parent folder. A side file of this target
    left by a writer that was killed (its pid has ended) is removed first.

    Raises:
        OSError: the file cannot be written (the side file is removed).
    """
    target = Path(path)
    prefix = f".{target.name}.part-"
    tmp = target.with_name(f"{prefix}{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temp(target.parent, (prefix,))
        write(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists now (one of another user counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)  # signal 0: only the existence and permission checks
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def remove_stale_temp(base: str | Path, prefixes: tuple[str, ...]) -> list[Path]:
    """Remove the temporary folders or files ``<prefix><pid>`` in ``base`` whose writer has died.

    A writer that is killed (SIGKILL, a power cut) cannot clean up its ``.report.tmp-<pid>``; the
    next writer removes it. Only names of exactly that form (the prefix, then the digits of a pid
    that is not running and is not this process) are touched; nothing else in ``base`` is.

    Returns:
        The paths removed (a folder that cannot be removed is left and not listed).
    """
    folder = Path(base)
    removed: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for p in entries:
        for prefix in prefixes:
            rest = p.name[len(prefix):] if p.name.startswith(prefix) else ""
            if not (rest.isascii() and rest.isdigit()):
                continue
            pid = int(rest)
            if pid == os.getpid() or pid_alive(pid):
                break
            try:
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                else:
                    p.unlink()
            except OSError:
                break
            removed.append(p)
            break
    return removed


def check_replaceable(folder: str | Path, own: Callable[[Path], bool], what: str) -> None:
    """``folder`` is missing, or holds only files that ``own`` says the writer of ``what`` wrote.

    A command that rewrites a whole folder (a run's ``report/``) swaps in a new one and deletes
    the old; a file someone put there (notes beside the plots) would be deleted with it.

    Raises:
        InputError: the folder is a file, or holds an entry ``own`` refuses (named in the message).
    """
    p = Path(folder)
    if not p.exists() and not p.is_symlink():
        return
    if p.is_symlink() or not p.is_dir():
        raise InputError(f"is not a folder that {what} wrote; move it away, since {what} replaces it", source=p)
    foreign = sorted(e.name for e in p.iterdir() if e.is_symlink() or not e.is_file() or not own(e))
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise InputError(f"holds files that {what} does not write ({shown}); move them out of this folder, since "
                         f"{what} replaces it whole", source=p)


#: the default run folders: ``runs/<game>/<scenario name>`` (scenario names repeat across games:
#: every game has a "classic")
RUNS_DIR = "runs"
#: a run name becomes a folder name, with ``-sensitivity`` or ``-tournament`` appended for those
#: studies; file systems allow 255 bytes per name, so a name may have 200 (UTF-8)
MAX_NAME_BYTES = 200
#: a folder path given in a scenario: 255 bytes per part (the usual file-system limit)
MAX_PART_BYTES = 255


def default_run_folder(game: str, name: str, suffix: str = "") -> str:
    """``runs/<game>/<name><suffix>``: where a study of ``game`` named ``name`` is written
    unless the scenario's ``out`` or ``--out`` says otherwise."""
    return str(Path(RUNS_DIR) / game / f"{name}{suffix}")


def _bad_chars(text: str) -> str | None:
    """What in ``text`` cannot be in a file name or be printed safely, or None."""
    for ch in text:
        if ch == "\0":
            return "a NUL byte"
        if "\udc80" <= ch <= "\udcff":  # how Python keeps a file name's byte that is not UTF-8
            return f"the byte {ord(ch) - 0xDC00:#04x}, which is not UTF-8"
        if unicodedata.category(ch) in ("Cc", "Cs"):
            return f"the control character {ch!r}"
    return None


def folder_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a run's folder name (one part of a path), or None if it can.

    Refused: an empty name, ``.`` or ``..``, path separators, NUL and other control characters,
    bytes that are not UTF-8 (from a file name), more than :data:`MAX_NAME_BYTES` bytes.
    """
    if name in ("", ".", "..") or "/" in name or "\\" in name:
        return "one folder name: no '/' or '\\', not '.' or '..'"
    bad = _bad_chars(name)
    if bad:
        return f"it holds {bad}"
    size = len(name.encode("utf-8"))
    if size > MAX_NAME_BYTES:
        return f"{size} bytes long; at most {MAX_NAME_BYTES} (UTF-8)"
    return None


def folder_path_problem(path: str) -> str | None:
    """Why ``path`` (a scenario's ``out``) cannot be a folder path, or None if it can: NUL and
    control characters, bytes that are not UTF-8, or a part longer than :data:`MAX_PART_BYTES`."""
    bad = _bad_chars(path)
    if bad:
        return f"it holds {bad}"
    for part in Path(path).parts:
        size = len(part.encode("utf-8"))
        if size > MAX_PART_BYTES:
            return f"the part {part[:20]!r}... is {size} bytes long; at most {MAX_PART_BYTES} (UTF-8)"
    return None


def path_text(path: str | Path) -> str:
    """``path`` as text that can be stored and printed: a byte that is not UTF-8 (Python keeps one
    from a file name as a lone surrogate, which SQLite and JSON files refuse) becomes ``\\xff``."""
    return os.fsencode(str(path)).decode("utf-8", "backslashreplace")
