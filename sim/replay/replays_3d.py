"""What a game with 3-D replays brings to the generic commands, and where they find it.

A game whose runs keep 3-D replays (a physics game) names, in its plug-in's ``replays_3d``, a module
with the names of :class:`Replays3D`; ``stonelab run`` and ``stonelab replay`` call them and name
no game. A game without 3-D replays leaves ``replays_3d`` None (turn-based games bring a
:class:`~sim.replay.model.ReplayBook` instead, ``GamePlugin.replay``).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Protocol

from sim.core.errors import InputError, ReplayError
from sim.core.registry import GamePlugin, Registry


class Replays3D(Protocol):
    """The names a game's 3-D replay module holds (docs/game-interface.md, the plug-in's ``replays_3d``).

    Attributes:
        app: a ``typer.Typer`` of the viewer's commands; those other than ``view`` and ``export``
            join ``stonelab replay`` (e.g. ``serve``, ``video``, ``info``, ``convert``).
    """

    app: Any

    def view(self, file: Path, game: int | None, point: int, import_agents: bool, viewer: str, host: str,
             port: int, speed: float, loop: bool) -> None:
        """``stonelab replay view`` of a 3-D replay's source (a file, or a run of the game)."""

    def export(self, file: Path, game: int | None, point: int, import_agents: bool, out: Path, fps: float) -> None:
        """``stonelab replay export`` of a 3-D replay's source into the folder ``out``."""

    def has_replays(self, run_dir: str | Path) -> bool:
        """Whether the run's game keeps 3-D replays."""

    def export_run_replays(self, run_dir: str | Path) -> Any:
        """Write a run's first replay and its viewer (``files``, ``viewer``), or None."""

    def check_viewer_folder(self, run_dir: str | Path) -> None:
        """Raise ``InputError`` when the folder ``export_run_replays`` replaces holds other files."""


def replays_3d_of(plugin: GamePlugin) -> Replays3D:
    """The 3-D replay module ``plugin`` names.

    Raises:
        ValueError: the plug-in names none (ask :func:`games_with_3d_replays` first).
        ReplayError: it is not installed (a module of it is missing).
    """
    if plugin.replays_3d is None:
        raise ValueError(f"{plugin.game} declares no 3-D replays")
    try:
        module: Replays3D = importlib.import_module(plugin.replays_3d)  # type: ignore[assignment]
    except ModuleNotFoundError as e:
        raise ReplayError(f"the 3-D replay viewer is not installed ({e})") from None
    return module


def games_with_3d_replays(registry: Registry) -> list[GamePlugin]:
    """The plug-ins of ``registry`` that declare 3-D replays, in the registry's order (a plug-in that
    does not load is left out here: the commands that use it say why)."""
    out = []
    for name in registry.names():
        try:
            plugin = registry.plugin(name)
        except InputError:
            continue
        if plugin.replays_3d is not None:
            out.append(plugin)
    return out
