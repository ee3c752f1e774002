"""Fixtures of the replay tests: small studies of the three turn-based games (serial backend); the
browser is tests/conftest.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.cli import main

#: a small study per game: the scenario text (rules chosen so that hidden information occurs)
STUDIES = {
    "druids": """
name = "druids-replay"
game = "druids"
games = 3
seed = 3
backend = "serial"
[rules]
face_down = true
[[seats]]
agent = "random"
[[seats]]
agent = "greedy"
""",
    "rocks": """
name = "rocks-replay"
game = "rocks"
games = 2
seed = 2
backend = "serial"
[rules]
target_points = 10
[[seats]]
agent = "greedy"
[[seats]]
agent = "random"
[[seats]]
agent = "greedy"
""",
    "sozoikum": """
name = "sozoikum-replay"
game = "sozoikum"
games = 2
seed = 5
backend = "serial"
[rules]
gathering_rules = ["bluff"]
[[seats]]
agent = "greedy"
[[seats]]
agent = "greedy"
[[seats]]
agent = "random"
""",
}


def make_run(root: Path, game: str, *, report: bool = False) -> Path:
    """Run the small study of ``game`` into ``root/<game>`` (the CLI, as a user would) and return
    the run folder."""
    root.mkdir(parents=True, exist_ok=True)
    sc = root / f"{game}.toml"
    sc.write_text(STUDIES[game], encoding="utf-8")
    out = root / game
    args = ["run", str(sc), "--out", str(out)] + ([] if report else ["--no-report"])
    assert main(args) == 0
    return out


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One small run folder per turn-based game (made once per session)."""
    root = tmp_path_factory.mktemp("replay-runs")
    return {g: make_run(root, g) for g in STUDIES}
