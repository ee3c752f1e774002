"""The toy race as a turn-based replay: one frame per step, drawn by ``board.js`` beside this file.

It is what an outside game adds to get replay pages from ``stonelab run`` and ``stonelab replay``
(docs/game-interface.md, the plug-in's ``replay``): nothing else of the tool changes.
"""

from __future__ import annotations

from typing import Any, Sequence

from sim.core.game import Action, Game, GameConfig
from sim.replay.model import CHANCE, NO_SEAT, Frame, Frames, ReplayBook, replay_steps, seat_name


def frames(game: Game, config: GameConfig, history: Sequence[tuple[int, Action]], *,
           partial: bool = False) -> Frames:
    """The total before the first move, then after each move and coin.

    Raises:
        ValueError: the history does not end the race and ``partial`` is false.
    """
    state: Any = game.new_initial_state(config)
    out = [Frame(0, NO_SEAT, "the race starts at 0", {"total": 0})]
    for k, (_before, seat, action, after) in enumerate(replay_steps(game, config, history), start=1):
        n = getattr(action, "n", 0)
        text = f"the coin adds {n}" if seat == CHANCE else f"{seat_name(seat)} adds {n}"
        out.append(Frame(k, NO_SEAT if seat == CHANCE else seat, text, {"total": after.total}))
        state = after
    if not partial and state.outcome() is None:
        raise ValueError("the history does not end the race")
    return Frames(out, state.outcome(), {"target": state.target})


BOOK = ReplayBook(frames=frames, board_js="board.js", module=__name__)
