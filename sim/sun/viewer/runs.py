"""Replays a run writes for designers: the first game's replay file and a shareable 3-D viewer.

Called by ``stonelab run`` after a study (before the report, which links what is written here).
Games whose plug-in does not declare ``replays_3d`` (everything but the Sun) write nothing.

Layout inside a run folder::

    replays/game-<i>.npz        the replay file of game i (sweep point p > 0: game-p<p>-<i>.npz)
    replays/viewer/             static viser viewer of the first game: index.html (serve it with
                                `stonelab replay serve RUN/replays/viewer`), standalone.html (opens
                                directly)

(one folder for both: a run folder with ``replay/`` beside ``replays/`` read as a typo.)

Every other game's replay is re-simulated exactly from its seed on demand:
``stonelab replay view RUN --game N`` or ``stonelab replay export RUN --game N --out DIR``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from sim.core.outputs import check_replaceable, remove_stale_temp
from sim.core.store import Store
from sim.games import has_3d_replays
from sim.sun.viewer.replay import from_store, save_replay

REPLAYS_DIR = "replays"
#: the viewer's folder inside :data:`REPLAYS_DIR`
VIEWER_NAME = "viewer"
#: the viewer's folder inside a run folder
VIEWER_DIR = f"{REPLAYS_DIR}/{VIEWER_NAME}"


def replay_name(game_index: int, point: int = 0) -> str:
    """File name of a game's replay inside ``RUN/replays/``."""
    return f"game-{game_index}.npz" if point == 0 else f"game-p{point}-{game_index}.npz"


@dataclass
class RunReplays:
    """What :func:`export_run_replays` wrote."""

    files: list[Path]
    viewer: Path | None


def has_replays(run_dir: str | Path) -> bool:
    """Whether the run's game keeps 3-D replays (its plug-in declares ``replays_3d``)."""
    with Store.open(run_dir) as store:
        game = store.meta().get("game")
    return has_3d_replays(game)


def check_viewer_folder(run_dir: str | Path) -> None:
    """``RUN/replays/viewer`` is missing or holds only what the viewer export writes: it is replaced
    whole by :func:`export_run_replays`, so files someone put there would be lost.

    Raises:
        InputError: it holds other files (named).
    """
    # start-up: the 3-D viewer's export adds 14 ms to every command's start-up (CPU, python -X importtime)
    from sim.sun.viewer.viser_app import EXPORT_CLIENT, EXPORT_INDEX, EXPORT_RECORDING, EXPORT_STANDALONE

    own = {EXPORT_INDEX, EXPORT_RECORDING, EXPORT_STANDALONE, EXPORT_CLIENT, "replay.json"}
    check_replaceable(Path(run_dir) / VIEWER_DIR, lambda f: f.name in own, "the run's replay viewer")


def export_run_replays(run_dir: str | Path) -> RunReplays | None:
    """Write the first game's replay and its static viewer; None for games without replays.

    Uses the frames the run kept (scenario ``[record] frames``); without any, game 0 is re-simulated
    exactly from its seed. The viewer folder is written under a temporary name and renamed.

    Raises:
        InputError: not a run folder, or ``replays/viewer`` holds files the export does not write.
        ReplayError: the store's frames are unreadable.
    """
    run = Path(run_dir)
    if not has_replays(run):
        return None
    # start-up: the 3-D viewer's export adds 14 ms to every command's start-up (CPU, python -X importtime)
    from sim.sun.viewer.viser_app import export_static

    out = run / REPLAYS_DIR
    final = out / VIEWER_NAME
    check_viewer_folder(run)
    replay = from_store(run, None, 0, resimulate=True)
    index = int(replay.meta.get("game_index", 0))
    out.mkdir(parents=True, exist_ok=True)
    path = save_replay(replay, out / replay_name(index))
    remove_stale_temp(out, (f".{VIEWER_NAME}.tmp-",))  # a killed run's (its pid is gone)
    tmp = out / f".{VIEWER_NAME}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        export_static(replay, tmp)
        if final.exists():
            shutil.rmtree(final)
        tmp.rename(final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return RunReplays(files=[path], viewer=final)
