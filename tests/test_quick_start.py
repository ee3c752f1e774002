"""CI installs like a newcomer: `.ci/run` runs the README's Quick start commands as written, with
the tested versions of constraints.txt, which pins every dependency pyproject.toml names."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    """The shell commands of the README's Quick start, in order."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_ci_runs_the_readme_commands_as_written() -> None:
    install, test = quick_start_commands()
    ci = (ROOT / ".ci" / "run").read_text()
    lines = [line.replace("time ", "") for line in ci.splitlines()]  # CI times each step
    assert any(line == test or line.startswith(f"{test} || ") for line in lines), f"{test!r} is not a line of .ci/run"
    pip, study = install.split(" && ")
    assert any(line.startswith(f"{pip} && {study}") for line in lines), install
    assert "-m venv" in ci and "constraints.txt" in pip and "constraints.txt" in test


def test_constraints_pin_every_dependency_exactly() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]}
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and version, f"constraints.txt: {line!r} is not name==version"
            pins[name] = version
    assert wanted <= set(pins), f"constraints.txt lacks {sorted(wanted - set(pins))}: run scripts/freeze_constraints.py"
