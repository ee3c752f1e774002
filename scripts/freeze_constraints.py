"""Write ``constraints.txt``: the exact versions of the project's dependencies, as installed here.

Run it in the virtual environment that passed CI (``python scripts/freeze_constraints.py``); it
reads ``pyproject.toml`` (the dependencies and the ``test`` and ``dashboard`` extras), follows each requirement
through the installed packages' own metadata (their extras and environment markers included), and
writes one ``name==version`` line per package, sorted, with a header saying where and when. The
README's install commands and ``.ci/run`` use the file (docs/reproducibility.md: refresh it).

``--diff`` writes nothing and prints, on one line, each package whose installed version differs
from the file's (``name old->new``), or ``none``: what ``.ci/run``'s newest-versions pass reports.

Exits 1 naming the package if a requirement is not installed here.
"""

from __future__ import annotations

import datetime
import platform
import sys
import tomllib
from importlib import metadata
from pathlib import Path

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # pip always brings a copy
    from pip._vendor.packaging.requirements import Requirement  # type: ignore[no-redef]
    from pip._vendor.packaging.utils import canonicalize_name  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "constraints.txt"
EXTRAS = ("test", "dashboard")


def closure(requirements: list[str]) -> dict[str, str]:
    """Canonical name -> installed version of every package ``requirements`` pull in here.

    Raises:
        metadata.PackageNotFoundError: a required package is not installed.
    """
    found: dict[str, str] = {}
    todo: list[tuple[Requirement, str]] = [(Requirement(r), "") for r in requirements]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(req.name)
        key = (name, frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        dist = metadata.distribution(req.name)
        found[name] = dist.version
        for sub in dist.requires or []:
            sub_req = Requirement(sub)
            if sub_req.marker is None:
                todo.append((sub_req, ""))
            else:  # a requirement of one of the extras asked for, or an unconditional one with a marker
                for e in ("", *req.extras):
                    if sub_req.marker.evaluate({"extra": e}):
                        todo.append((sub_req, e))
                        break
    return found


def read_constraints(path: Path = OUT) -> dict[str, str]:
    """Canonical name -> version of each ``name==version`` line of a constraints file."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        name, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep:
            out[canonicalize_name(name)] = version.strip()
    return out


def main(argv: list[str]) -> int:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in EXTRAS:
        reqs += project["optional-dependencies"][extra]
    try:
        pins = closure(reqs)
    except metadata.PackageNotFoundError as e:
        sys.stderr.write(f"error: {e} is required by pyproject.toml but not installed in {sys.prefix}\n")
        return 1
    pins.pop(canonicalize_name(project["name"]), None)
    if "--diff" in argv:
        tested = read_constraints()
        moved = [f"{n} {tested.get(n, '(new)')}->{v}" for n, v in sorted(pins.items()) if tested.get(n) != v]
        print(" ".join(moved) or "none")
        return 0
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    head = (f"# The tested versions of stonehenge-lab's dependencies (and its [test] and [dashboard] extras), exact.\n"
            f"# Written by scripts/freeze_constraints.py on {stamp} from Python {platform.python_version()} "
            f"on {platform.machine()}; used as 'pip install -c constraints.txt ...' (README, .ci/run).\n"
            "# Refresh: see docs/reproducibility.md.\n")
    OUT.write_text(head + "".join(f"{n}=={v}\n" for n, v in sorted(pins.items())))
    print(f"{OUT}: {len(pins)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
