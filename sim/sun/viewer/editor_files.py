"""The one folder the layout editor's page may save into and load from.

The browser page is not trusted with paths (see docs/security.md): ``stonelab sun edit`` fixes a
folder on the command line (the opened layout's folder, or ``--out``) and the page may only name a
file in it. :class:`LayoutFolder` turns such a name into a path, or refuses it:

- a name is a bare file name of letters, digits, ``_``, ``-`` and ``.``, at most 100 characters,
  not starting with a dot, ending in ``.toml`` (no separators, no ``..``, nothing absolute);
- nothing outside the folder is ever opened or written: a name whose resolved path leaves the
  folder (a symlink leading out) is refused, and no folder is created;
- Save never overwrites a file that this session did not open or write itself (``own``), and
  writes through a new temporary file in the folder renamed over the target;
- Load answers a missing, unreadable, special or symlinked-out file alike (``no layout file``),
  and an invalid layout without quoting the file, so the page learns nothing of what it may not open.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

from sim.core.errors import InputError

#: A file name the page may give.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,94}\.toml")
#: At most this many bytes are read from a file the page asks to load (a layout is a few KiB).
MAX_LAYOUT_BYTES = 1 << 20


class LayoutFolder:
    """The folder fixed on the command line, and the files of it this session may overwrite.

    Args:
        folder: an existing folder.
        own: files (in ``folder``) the session opened from the command line; Save may replace them.

    Raises:
        InputError: ``folder`` is not an existing folder.
    """

    def __init__(self, folder: str | Path, own: tuple[Path, ...] = ()) -> None:
        d = Path(folder)
        if not d.is_dir():
            raise InputError("the editor's folder is not an existing folder", source=d, key="--out")
        self.folder = d
        self._real = d.resolve()
        self._own = {p.resolve() for p in own}

    def name_of(self, value: object) -> str:
        """A checked file name from the page's name field.

        Raises:
            InputError: not a plain ``NAME.toml`` of the allowed characters.
        """
        name = value if isinstance(value, str) else None  # not stripped: exactly a safe name, or refused
        if name is not None and name in {p.name for p in self._own}:
            return name  # a file named on the command line: its name is the person's choice
        if not name or not NAME_RE.fullmatch(name) or ".." in name:
            raise InputError("give a file name only (letters, digits, _ - and ., ending in .toml, no folders); "
                             f"it is saved in {self.folder}", key="file name")
        return name

    def _inside(self, name: str) -> Path | None:
        """``folder/name`` if it resolves to a direct child of the folder, else None."""
        p = self.folder / name
        try:
            real = p.resolve()
        except (OSError, RuntimeError):  # a symlink loop
            return None
        return p if real.parent == self._real and real.name == name else None

    def save_target(self, value: object) -> Path:
        """Where Save may write the name ``value``.

        Raises:
            InputError: a bad name, a symlink, a name leading out of the folder, or an existing
                file this session did not open or write.
        """
        name = self.name_of(value)
        p = self.folder / name
        if p.is_symlink() or self._inside(name) is None:
            raise InputError(f"{name} is a link; the editor writes only plain files in {self.folder}",
                             key="file name")
        if os.path.lexists(p) and p.resolve() not in self._own:
            raise InputError(f"{name} already exists in {self.folder} and was not opened here: "
                             "choose another name (the editor never overwrites other files)", key="file name")
        return p

    def write(self, value: object, text: str) -> Path:
        """Write ``text`` to the name ``value`` (checked by :meth:`save_target`) whole: a new
        temporary file in the folder (exclusive, never a link) renamed over the target. The file
        becomes one this session may overwrite.

        Raises:
            InputError: a refused name, or the folder cannot be written.
        """
        target = self.save_target(value)
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=self.folder)
        except OSError as e:
            raise InputError(f"cannot write in {self.folder}: {e.strerror or e}", key="file name") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except OSError as e:
            Path(tmp).unlink(missing_ok=True)
            raise InputError(f"cannot write {target.name}: {e.strerror or e}", key="file name") from None
        self._own.add(target.resolve())
        return target

    def read(self, value: object) -> tuple[Path, str]:
        """The path and text of the layout file named ``value``, for Load.

        Raises:
            InputError: a bad name, or (one answer for all of them) a file that is missing, not a
                regular file, unreadable, too large, not UTF-8, or reached through a link out.
        """
        name = self.name_of(value)
        neutral = InputError(f"no layout file {name} in {self.folder}", key="file name")
        p = self._inside(name)
        if p is None:
            raise neutral
        try:
            # O_NOFOLLOW: the name was checked above, refuse a link swapped in since
            fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            raise neutral from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_LAYOUT_BYTES:
                raise neutral
            with os.fdopen(fd, "rb") as f:
                fd = -1
                data = f.read(MAX_LAYOUT_BYTES + 1)
        except OSError:
            raise neutral from None
        finally:
            if fd >= 0:
                os.close(fd)
        try:
            return p, data.decode("utf-8")
        except UnicodeDecodeError:
            raise neutral from None

    def names(self) -> list[str]:
        """The ``.toml`` files of the folder the page may load (sorted; links out left out)."""
        try:
            entries = sorted(os.listdir(self.folder))
        except OSError:
            return []
        return [n for n in entries if NAME_RE.fullmatch(n) and ".." not in n and self._inside(n) is not None
                and (self.folder / n).is_file()]

    def adopt(self, path: Path) -> None:
        """Let Save overwrite ``path`` (a file of the folder Load just opened)."""
        self._own.add(path.resolve())


def not_a_layout(name: str, folder: Path) -> InputError:
    """The page's answer for a file of the folder that is not a valid layout: its name and the
    command that explains it, not the reason (which quotes the file's keys and values)."""
    return InputError(f"{name} in {folder} is not a valid layout (`stonelab sun edit {folder / name}` "
                      "in a terminal says why)", key="file name")
