"""What the Sun's 3-D replays bring to the generic commands: the module the plug-in's ``replays_3d``
names (the contract: ``sim.replay.model.Replays3D``, docs/game-interface.md).

``stonelab replay view|export`` of a 3-D replay's source (a replay file, a pose recording, a game
record, or a run of the Sun) calls :func:`view` and :func:`export`; the viewer's other commands
(``app``: serve, video, info, convert) join ``stonelab replay``; ``stonelab run`` writes the first
game's replay and its static viewer with :func:`export_run_replays` (announced when
:func:`has_replays`), after :func:`check_viewer_folder` said, before any game, that the folder it
replaces holds nothing else. The names are the viewer's own (``sim.sun.viewer``), gathered here so
that no generic command names the Sun's viewer.
"""

from __future__ import annotations

from sim.sun.viewer.cli import app, export, view
from sim.sun.viewer.runs import check_viewer_folder, export_run_replays, has_replays

__all__ = ["app", "check_viewer_folder", "export", "export_run_replays", "has_replays", "view"]
