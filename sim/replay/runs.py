"""The replay pages ``stonelab run`` writes into a run folder of a turn-based game, and where.

Layout inside a run folder (beside the 3-D replays of the games that have those)::

    replays/game-<i>.html     the replay page of game i of sweep point 0 (one self-contained file)

:data:`RUN_REPLAY_GAMES` games are written (the first ones); any other is one command away:
``stonelab replay export RUN --game N --out FILE.html``. ``stonelab play`` writes the page of each game
a person played when it is stored. The report's Replays section links these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sim.core.outputs import write_atomically
from sim.core.registry import Registry
from sim.core.store import Store
from sim.games import REGISTRY
from sim.replay.source import page_for, run_game_name, run_replay

#: the folder of replays inside a run folder (shared with the 3-D replays)
REPLAYS_DIR = "replays"
#: how many of a study's first games get a replay page when the run finishes
RUN_REPLAY_GAMES = 3


@dataclass
class RunPages:
    """What :func:`export_run_pages` wrote: the pages (``viewer`` is the 3-D replays' static viewer
    folder, which a turn-based game has none of)."""

    files: list[Path] = field(default_factory=list)
    viewer: Path | None = None


def page_name(game_index: int, point: int = 0) -> str:
    """File name of a game's replay page inside ``RUN/replays/``."""
    return f"game-{game_index}.html" if point == 0 else f"game-p{point}-{game_index}.html"


def has_turn_replays(run_dir: str | Path, registry: Registry | None = None) -> bool:
    """Whether the run's game has turn-by-turn replays (its plug-in names a ``replay`` book).

    Raises:
        ReplayError: not a run folder.
    """
    plugin = (REGISTRY if registry is None else registry).find(run_game_name(run_dir))
    return plugin is not None and plugin.replay is not None


def stored_games(run_dir: str | Path, point: int = 0) -> list[int]:
    """The game indices stored for sweep point ``point``, ascending."""
    with Store.open(run_dir) as store:
        return [int(r[0]) for r in store.query("SELECT game_index FROM games WHERE point = ? ORDER BY game_index",
                                               (point,))]


def export_run_pages(run_dir: str | Path, count: int = RUN_REPLAY_GAMES, *, registry: Registry | None = None,
                     announce: Callable[[list[int]], None] | None = None) -> RunPages:
    """Write the replay pages of the run's first ``count`` games (sweep point 0); none for a game
    without turn-by-turn replays. ``announce(game_indices)`` is called once before the first.

    Raises:
        ReplayError: a game played again does not end as stored.
        OSError: a page cannot be written.
    """
    run = Path(run_dir)
    if not has_turn_replays(run, registry):
        return RunPages()
    written = []
    indices = stored_games(run)[:count]
    if announce is not None and indices:
        announce(indices)
    for index in indices:
        written.append(export_game_page(run, index, registry=registry))
    return RunPages(written)


def export_game_page(run_dir: str | Path, game_index: int, *, registry: Registry | None = None) -> Path:
    """Write the replay page of game ``game_index`` (sweep point 0) to ``RUN/replays/`` (a game a person
    played is played again from its move record, :mod:`sim.replay.played`); its path.

    Raises:
        ReplayError: the game has no turn-by-turn replays, or played again it does not end as stored.
        OSError: the page cannot be written.
    """
    run = Path(run_dir)
    text = page_for(run_replay(run, game_index, 0, registry=registry))
    return write_atomically(run / REPLAYS_DIR / page_name(game_index),
                            lambda tmp: tmp.write_text(text, encoding="utf-8"))
