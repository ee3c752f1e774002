"""The project's game registry: one line per game (name -> "module:attribute")."""

from __future__ import annotations

from sim.core.registry import Registry

REGISTRY = Registry(
    {
        "druids": "sim.druids.game:GAME",
        "rocks": "sim.rocks.game:GAME",
        "sozoikum": "sim.sozoikum.game:GAME",
        "sun": "sim.sun.game:GAME",
    }
)


def get_game(name: str):  # noqa: ANN201 - returns sim.core.game.Game
    """The registered game ``name`` (raises InputError for an unknown name)."""
    return REGISTRY.get(name)


def game_names() -> list[str]:
    """All registered game names."""
    return REGISTRY.names()
