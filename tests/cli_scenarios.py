"""The small druids study the CLI tests run: random against greedy, serial backend."""

from __future__ import annotations


def druids_scenario(games: int, seed: int = 4) -> str:
    """The scenario's TOML text with ``games`` games and root seed ``seed``."""
    return f"""
game = "druids"
games = {games}
seed = {seed}
backend = "serial"
[[seats]]
agent = "random"
[[seats]]
agent = "greedy"
"""
