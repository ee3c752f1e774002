"""One code path for the maths libraries, so that a seeded study stores the same bits on any x86-64 CPU.

A Sun pass is chaotic: one last bit of a ``sin`` moves which stones fall. Two libraries choose
their code by the CPU they find (measured; docs/reproducibility.md):

- glibc's libm picks an FMA/AVX2 build of ``sin``, ``cos``, ``exp``, ``atan2`` ... where the CPU has
  those instructions, and a generic one otherwise; the two round differently. ``GLIBC_TUNABLES``
  with ``glibc.cpu.hwcaps=-AVX2,-FMA,-AVX,-FMA4`` makes glibc take the generic build, which runs on
  every x86-64 CPU. glibc reads that variable once, when the process starts.
- OpenBLAS (in numpy and scipy wheels) picks a kernel per CPU for ``a @ b`` (the Sun's table
  uses it on 3-vectors). On a 12-game Sun study its kernels fell in three groups storing three
  digests: SkylakeX and Cooperlake (AVX-512); Haswell, Zen, Sandybridge and Nehalem; Core2.
  ``OPENBLAS_CORETYPE=Nehalem`` runs on every x86-64-v2 CPU, the least numpy 2.4 itself needs.
  OpenBLAS reads it when numpy is imported.

numpy's own SIMD dispatch (``NPY_DISABLE_CPU_FEATURES``) changed nothing measured, so it is left
alone.

The ``stonelab`` command calls :func:`pin` first thing: if the pinned settings were not in its
environment at exec (``/proc/self/environ``), it execs itself again with them added, so it, its
process-pool and local Dask workers (which inherit the environment) all take one path. A
remote Dask cluster's workers are started by someone else; :func:`worker_differences` finds the
ones that differ. ``STONELAB_NATIVE_MATH=1`` opts out. Nothing happens off Linux/glibc/x86-64.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path
from typing import Mapping

#: the environment variable that opts out of the pinning (``1``: every process keeps the CPU's
#: fastest code path; results are then reproducible only statistically across CPUs)
OPT_OUT = "STONELAB_NATIVE_MATH"
#: glibc's hardware-capability mask that selects libm's generic (SSE2) builds on any x86-64 CPU
HWCAPS = "-AVX2,-FMA,-AVX,-FMA4"
#: the OpenBLAS kernel every process uses (needs SSE4.2 and POPCNT: x86-64-v2)
BLAS_CORE = "Nehalem"
#: set to the process id just before the re-exec: the same id after it means "already tried"
_MARK = "_STONELAB_MATH_PINNED_PID"
_HWCAPS_KEY = "glibc.cpu.hwcaps"
_TRUE = ("1", "yes", "true")
_FALSE = ("", "0", "no", "false")


def applies() -> bool:
    """True where the pinning means something: Linux on x86-64 with glibc and a readable /proc."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):  # musl and others do not know the name
        return False
    return libc.startswith("glibc") and Path("/proc/self/environ").is_file()


def opted_out(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``STONELAB_NATIVE_MATH`` asks for the CPU's native code paths.

    Raises:
        ValueError: the variable holds something other than 1/yes/true or 0/no/false/empty.
    """
    value = (os.environ if environ is None else environ).get(OPT_OUT, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"environment variable {OPT_OUT}={value!r}: allowed 1 (native maths code paths) or 0 "
                     "(one pinned path, the default; docs/reproducibility.md)")


def _cpu_has_blas_core() -> bool:
    """Whether this CPU runs OpenBLAS's Nehalem kernels (a forced core it lacks would crash)."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            return {"sse4_2", "popcnt", "ssse3"} <= flags
    return False


def pinned_settings() -> dict[str, str]:
    """The variables (name -> value) every process of a study runs with on this machine.

    ``GLIBC_TUNABLES`` is given as the hwcaps item alone; :func:`pinned_environ` merges it with
    the caller's other tunables.
    """
    out = {"GLIBC_TUNABLES": f"{_HWCAPS_KEY}={HWCAPS}"}
    if _cpu_has_blas_core():
        out["OPENBLAS_CORETYPE"] = BLAS_CORE
    return out


def _tunable_items(value: str) -> list[str]:
    return [item for item in value.split(":") if item]


def hwcaps_of(environ: Mapping[str, str]) -> str | None:
    """The ``glibc.cpu.hwcaps`` value of an environment's ``GLIBC_TUNABLES`` (None: not set)."""
    found = None
    for item in _tunable_items(environ.get("GLIBC_TUNABLES", "")):
        key, _, val = item.partition("=")
        if key == _HWCAPS_KEY:
            found = val  # glibc applies the items in order: the last one counts
    return found


def math_settings(environ: Mapping[str, str]) -> dict[str, str | None]:
    """What in an environment chooses the maths code paths: the hwcaps mask and the BLAS core."""
    return {"glibc.cpu.hwcaps": hwcaps_of(environ), "OPENBLAS_CORETYPE": environ.get("OPENBLAS_CORETYPE")}


def pinned_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with the pinned settings: its other glibc tunables kept, any hwcaps item replaced."""
    env = dict(environ)
    pins = pinned_settings()
    items = [i for i in _tunable_items(env.get("GLIBC_TUNABLES", "")) if i.partition("=")[0] != _HWCAPS_KEY]
    env["GLIBC_TUNABLES"] = ":".join([*items, pins.pop("GLIBC_TUNABLES")])
    env.update(pins)
    return env


def start_environ() -> dict[str, str]:
    """This process's environment as it was at exec (what glibc and the loader saw).

    Raises:
        OSError: /proc/self/environ cannot be read.
    """
    raw = Path("/proc/self/environ").read_bytes()
    env: dict[str, str] = {}
    last = ""
    for entry in raw.split(b"\0"):
        if last == "GLIBC_TUNABLES" and entry.startswith(b"glibc."):
            # glibc's tunables parser ends each item of the exec-time string with a NUL in place
            # (glibc 2.36, measured), so /proc shows "GLIBC_TUNABLES=a=1", "b=2" for "a=1:b=2"
            env[last] += ":" + os.fsdecode(entry)
            continue
        key, sep, val = entry.partition(b"=")
        if sep:
            last = os.fsdecode(key)
            env[last] = os.fsdecode(val)
    return env


def in_effect(environ: Mapping[str, str]) -> bool:
    """Whether a process started with ``environ`` takes the pinned code paths."""
    return math_settings(environ) == math_settings(pinned_environ(environ))


def pin() -> None:
    """Make this process take the pinned code paths, re-executing it if they were not in effect at exec.

    Call it first in a program's entry point, before it reads stdin or starts anything: the
    re-exec (:func:`os.execve`, same process id) replaces the process with the same interpreter,
    interpreter options and arguments (``sys.orig_argv``), so exit codes, signals, stdin and the
    parent's view of the process stay as they were. No loop: the process id is marked in the
    environment before the exec, and a process that finds its own id there does not exec again.
    Nothing happens off Linux/glibc/x86-64 or when ``STONELAB_NATIVE_MATH=1``. When the
    interpreter cannot be executed again (an ``OSError`` such as ``PermissionError``), one warning
    line goes to stderr and the process goes on with the native path.

    Raises:
        ValueError: ``STONELAB_NATIVE_MATH`` holds a value that is not allowed.
    """
    if opted_out() or not applies():
        return
    mark = os.environ.pop(_MARK, None)  # children must not inherit it
    try:
        start = start_environ()
    except OSError:
        return
    if in_effect(start):
        return
    if mark == str(os.getpid()):
        sys.stderr.write("stonelab: warning: could not pin the maths code path (GLIBC_TUNABLES, OPENBLAS_CORETYPE); "
                         "results are reproducible only statistically on other CPUs (docs/reproducibility.md)\n")
        return
    env = pinned_environ(os.environ)
    env[_MARK] = str(os.getpid())
    argv = list(getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv])
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    try:
        os.execve(sys.executable, argv, env)
    except OSError as e:
        # the interpreter cannot be executed again (an unprivileged user's venv whose real
        # interpreter lies under a folder it cannot search: PermissionError): the study still
        # runs, on this CPU's native path, and each game's provenance says so (sim.core.provenance)
        sys.stderr.write(f"stonelab: warning: could not restart {sys.executable} with the pinned maths code path "
                         f"({e.strerror or type(e).__name__}); going on with this CPU's native path: results are "
                         "reproducible only statistically on other CPUs (docs/reproducibility.md)\n")


def worker_settings() -> dict[str, str | None]:
    """The maths settings a (Dask worker) process started with; run on the worker by ``client.run``."""
    try:
        return math_settings(start_environ())
    except OSError:
        return math_settings(os.environ)


def worker_differences(driver: Mapping[str, str | None], workers: Mapping[str, Mapping[str, str | None]]) -> str | None:
    """A warning naming the Dask workers whose maths settings differ from the driver's, or None.

    ``driver`` and each value of ``workers`` are :func:`math_settings` results; ``workers`` maps a
    worker's address to its settings.
    """
    differ = sorted(addr for addr, s in workers.items() if dict(s) != dict(driver))
    if not differ:
        return None
    shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
    want = " ".join(f"{k}={v}" for k, v in pinned_settings().items())
    return (f"warning: {len(differ)} of {len(workers)} Dask workers ({shown}) take another maths code path than "
            f"this process ({dict(workers[differ[0]])} against {dict(driver)}): the games they play are "
            "reproducible only statistically, not bit for bit (docs/reproducibility.md); start each worker as "
            f"'env {want} dask worker ADDRESS'")
