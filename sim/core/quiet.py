"""Import a C extension that prints a banner when it loads, without the banner.

pybullet's C module prints ``pybullet build time: <date>`` when it is first imported (to standard
error, measured with pybullet 3.2.7; the file descriptors, not Python's ``sys.stderr``). From a pool
or Dask worker that line landed in the middle of the progress bar and before error lines.
``contextlib.redirect_stderr`` cannot catch it: :func:`silence_import_banner` installs an import
hook that loads the module with descriptors 1 and 2 pointed at ``/dev/null`` and C's buffers
flushed before they are restored. An import error is still raised (as a Python exception, after
the descriptors are back).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any, Iterator, Sequence

__all__ = ["quiet_fds", "silence_import_banner"]


@contextlib.contextmanager
def quiet_fds(fds: Sequence[int] = (1, 2)) -> Iterator[None]:
    """Within the block, whatever is written to the file descriptors ``fds`` (standard output and
    error: C's ``printf`` and ``fprintf(stderr)`` included) is dropped."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved: list[tuple[int, int]] = []
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            for fd in fds:
                try:
                    saved.append((fd, os.dup(fd)))
                except OSError:  # not open: nothing to protect
                    continue
                os.dup2(null, fd)
        finally:
            os.close(null)
        yield
    finally:
        with contextlib.suppress(Exception):
            # start-up: ctypes adds 5 ms to every worker's start-up (CPU, python -X importtime)
            import ctypes

            ctypes.CDLL(None).fflush(None)  # C's buffers (a pipe is fully buffered) into /dev/null now
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)


class _QuietLoader(importlib.abc.Loader):
    """A module's own loader, run with descriptor 1 silenced."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        with quiet_fds():
            return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        with quiet_fds():
            self._inner.exec_module(module)


class _QuietFinder(importlib.abc.MetaPathFinder):
    """Finds the named modules as the other finders do, and loads them with :class:`_QuietLoader`."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, fullname: str, path: Any = None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _QuietLoader(spec.loader)
                return spec
        return None


def silence_import_banner(*names: str) -> None:
    """Make the first import of each module in ``names`` print nothing to standard output (once per
    process; a module already imported is left as it is)."""
    if any(isinstance(f, _QuietFinder) and set(names) <= f.names for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _QuietFinder(names))
