"""What played a game: the maths code path and a fingerprint of the code and package versions.

A seeded study stores the same bits wherever it runs only if every process that plays its games
runs the same code (this package's source, the game's and the agents' modules, the same numpy,
scipy, pybullet, pymunk and Python) on the same maths code path (:mod:`sim.core.mathpath`). A
Dask worker is started by someone else, may join a study late and may import another copy of
``sim``; so every batch of games reports the :class:`Provenance` of the process that played it,
each stored game keeps it (``games.math_path``, ``games.code_fingerprint``: docs/store.md), and the
runner compares it with its own (docs/reproducibility.md).

The fingerprint is the first 16 hex digits of a SHA-256 over the Python version, the versions of
:data:`PACKAGES`, and the bytes of every ``.py`` file of the ``sim`` package and of the modules
named (a game or an outside agent that lives outside ``sim``). It is computed once per process
(about 20 ms for ``sim``'s 150 files) and per outside module.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import platform
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Iterable, Mapping

from sim.core import mathpath

#: distributions whose versions decide what a game computes (the physics, the numbers, the random streams)
PACKAGES = ("numpy", "scipy", "pybullet", "pymunk")
#: what :attr:`Provenance.math_path` says when the pinning does not apply here (off Linux/glibc/x86-64)
NOT_PINNABLE = "native (no pinning on this platform)"

__all__ = ["NOT_PINNABLE", "PACKAGES", "Provenance", "code_fingerprint", "describe_counts", "math_path",
           "here", "task_modules"]


@dataclass(frozen=True)
class Provenance:
    """What played a game.

    Attributes:
        math_path: ``pinned``, ``native`` (``STONELAB_NATIVE_MATH=1`` or no pinning in effect),
            :data:`NOT_PINNABLE`, or ``other (...)`` naming the settings found.
        code: the code fingerprint (:func:`code_fingerprint`), 16 hex digits.
    """

    math_path: str
    code: str

    def differences(self, other: "Provenance") -> list[str]:
        """What differs from ``other`` in words (``maths path native instead of pinned``)."""
        out = []
        if self.math_path != other.math_path:
            out.append(f"maths path {self.math_path} instead of {other.math_path}")
        if self.code != other.code:
            out.append(f"code fingerprint {self.code} instead of {other.code} (another copy or version of the "
                       "code or of numpy, scipy, pybullet, pymunk or Python)")
        return out


@functools.lru_cache(maxsize=1)
def math_path() -> str:
    """The maths code path this process started with (:mod:`sim.core.mathpath`), in words."""
    if not mathpath.applies():
        return NOT_PINNABLE
    try:
        start = mathpath.start_environ()
    except OSError:
        return NOT_PINNABLE
    if mathpath.in_effect(start):
        return "pinned"
    settings = {k: v for k, v in mathpath.math_settings(start).items() if v}  # set but empty: as unset
    if not settings:
        return "native"
    return "other (" + ", ".join(f"{k}={v}" for k, v in settings.items()) + ")"


def _package_root() -> Path:
    return Path(__file__).resolve().parents[1]  # sim/


@functools.lru_cache(maxsize=1)
def _base_digest() -> bytes:
    """SHA-256 over the Python and package versions and the ``sim`` package's source (cached)."""
    h = hashlib.sha256()
    h.update(f"python {platform.python_implementation()} {sys.version_info[:3]}\n".encode())
    for name in PACKAGES:
        try:
            v = metadata.version(name)
        except metadata.PackageNotFoundError:
            v = "-"
        h.update(f"{name} {v}\n".encode())
    root = _package_root()
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" in f.parts:
            continue
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(f.read_bytes())
    return h.digest()


@functools.lru_cache(maxsize=64)
def _module_digest(module: str) -> bytes:
    """SHA-256 of a module's source file; empty for a module of ``sim`` (in the base digest) or one
    without a source file; ``missing`` when it cannot be found (the game would fail anyway)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return b"missing"
    origin = spec.origin if spec is not None else None
    if origin is None or not origin.endswith(".py"):
        return b"missing" if spec is None else b""
    path = Path(origin).resolve()
    root = _package_root()
    if root in path.parents:
        return b""
    return hashlib.sha256(path.read_bytes()).digest()


def code_fingerprint(modules: Iterable[str] = ()) -> str:
    """The code fingerprint of this process: Python and :data:`PACKAGES` versions, the ``sim``
    package's source, and the source files of ``modules`` that live outside it (a game plug-in's
    module, an outside agent's), as 16 hex digits."""
    h = hashlib.sha256(_base_digest())
    for m in sorted(set(modules)):
        d = _module_digest(m)
        if d:
            h.update(m.encode() + b"\0" + d)
    return h.hexdigest()[:16]


def task_modules(game_path: str, agents: Iterable[str]) -> tuple[str, ...]:
    """The modules whose source a study's games run besides ``sim``: the game's (``module:attr``)
    and each outside agent's (``module:Class``)."""
    mods = {game_path.partition(":")[0]}
    mods.update(a.partition(":")[0] for a in agents if ":" in a)
    return tuple(sorted(m for m in mods if m))


def here(modules: Iterable[str] = ()) -> Provenance:
    """The provenance of a game played in this process."""
    return Provenance(math_path(), code_fingerprint(modules))


def describe_counts(counts: Mapping[tuple[str | None, str | None], int]) -> str:
    """``counts`` (games per ``(math_path, code_fingerprint)``) in words, most games first:
    ``180 games pinned/1a2b..., 20 games native/1a2b...``; a game stored before provenance was
    recorded shows as ``unknown``."""
    parts = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
    return ", ".join(f"{n} game{'s' if n != 1 else ''} {m or 'unknown'}/{c or 'unknown'}" for (m, c), n in parts)
