"""The project's game registry: one line per game (name -> "module:attribute" of its plug-in).

Each game's folder declares what it brings in ``sim/<game>/plugin.py`` (:class:`GamePlugin`);
this is the one place that lists the project's games. Games installed as their own packages join
through the entry-point group ``stonelab.games`` (docs/game-interface.md).
"""

from __future__ import annotations

from sim.core.game import Game
from sim.core.registry import Registry

REGISTRY = Registry(
    {
        "druids": "sim.druids.plugin:PLUGIN",
        "rocks": "sim.rocks.plugin:PLUGIN",
        "sozoikum": "sim.sozoikum.plugin:PLUGIN",
        "sun": "sim.sun.plugin:PLUGIN",
    },
    entry_points=True,
)


def get_game(name: str) -> Game:
    """The registered game ``name`` (raises InputError for an unknown name)."""
    return REGISTRY.get(name)


def game_names() -> list[str]:
    """All registered game names."""
    return REGISTRY.names()


def has_3d_replays(name: str | None) -> bool:
    """Whether the game ``name`` keeps 3-D replays (its plug-in's ``replays_3d``); False for None
    or a game not registered here, whose runs can still be read."""
    plugin = REGISTRY.find(name) if name else None
    return plugin is not None and plugin.replays_3d is not None
