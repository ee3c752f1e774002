"""Stonehenge Rocks! as a replay: one frame per action of a seat (a move, a seating, the guard, the
end of a turn), the cards drawn folded into the step that drew them (docs/replay-format.md,
"Turn-based games"). Plain data, no I/O; the drawing is ``replay_board.js`` next to this file.

Hidden information: each seat's hand and the cards it draws; everything else (the venue, the
discard pile, hand and draw pile sizes) is public.
"""

from __future__ import annotations

from typing import Any, Sequence

from sim.core.game import CHANCE, Action, Game, GameConfig
from sim.replay.model import NO_SEAT, Frame, Frames, ReplayBook, replay_steps, seat_name
from sim.rocks.actions import SPACES, Draw, EndTurn, Move, MoveGuard, SeatBox, SeatTrilithon, card_text
from sim.rocks.rules import RocksState


def _setup(state: RocksState) -> dict[str, Any]:
    """The venue's counts for the drawing (the rules' options)."""
    r = state.options
    return {"spaces": SPACES, "box_seats": r.box_seats, "trilithons": r.trilithons, "fans": r.fans_per_player,
            "tshirts": r.tshirts_per_player, "target": r.target_points, "hand_size": r.hand_size,
            "points": {"box": r.box_points, "trilithon": r.trilithon_points, "tshirt": r.tshirt_points},
            "turn_name": "turn"}


def _board(s: RocksState) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The public position and each seat's hand."""
    n = s.num_players
    board = {
        "turn": s.turn, "to": s.to if not s.is_terminal() else -1, "guard": s.guard,
        "guard_moved": s.guard_moved, "fans": [list(f) for f in s.fans], "box": list(s.box), "tri": list(s.tri),
        "tri_id": list(s.tri_id), "shirts": list(s.shirts), "removed": list(s.removed),
        "points": [s.points(p) for p in range(n)], "hand_sizes": [len(h) for h in s.hands],
        "discard": s.disc_n, "draw": s.draw_n, "reshuffles": s.reshuffles,
    }
    return board, {p: {"hand": [card_text(c) for c in sorted(s.hands[p])]} for p in range(n)}


def _cards(cards: Sequence[int]) -> str:
    return ", ".join(card_text(c) for c in cards)


def _describe(before: RocksState, seat: int, a: Action, after: RocksState) -> tuple[str, dict[str, Any]]:
    """The action in words, and what the drawing marks (``{"from": space, "to": space}``...)."""
    who = seat_name(seat)
    if isinstance(a, Move):
        old, new = before.fans[seat], after.fans[seat]
        # where the fan went: the space that gained one (the pile when it passed 30)
        dest = next((k for k in range(1, SPACES + 1) if new[k] > old[k] - (1 if k == a.space else 0)), 0)
        src = "enters" if a.space == 0 else f"moves from space {a.space}"
        if dest:
            return f"{who} plays {a.card}: a fan {src} " + ("on" if a.space == 0 else "to") + f" space {dest}", {"from": a.space, "to": dest}
        shirt = after.shirts[seat] > before.shirts[seat]
        return (f"{who} plays {a.card}: a fan {src} past 30 to the souvenir stand, back to the pile"
                + (", and takes a T-shirt" if shirt else "; no T-shirt left for it")), {"from": a.space, "to": 0}
    if isinstance(a, SeatBox):
        return f"{who} plays {a.space}: its fan on space {a.space} takes a box seat", {"from": a.space, "box": True}
    if isinstance(a, SeatTrilithon):
        claimed = before.tri_id[seat] < 0
        return (f"{who} plays a trilithon card: its fan on space {a.space} climbs "
                + (f"trilithon {after.tri_id[seat]}, which it claims" if claimed else f"its trilithon {after.tri_id[seat]}"),
                {"from": a.space, "tri": after.tri_id[seat]})
    if isinstance(a, MoveGuard):
        return f"{who} plays {a.space}: the guard moves from space {before.guard} to space {a.space}", {"guard": a.space}
    if isinstance(a, EndTurn):
        text = f"{who} ends its turn"
        gone = before.fans[seat][before.guard] if not before.guard_moved else 0
        if gone:
            text += f"; the guard sends its {gone} fan{'s' if gone > 1 else ''} on space {before.guard} back to the pile"
        out = after.outcome()
        if out is not None:
            text += (f"; with {after.points(seat)} points it wins" if out.winners else
                     f"; the turn cap ({after.options.max_turns} turns) is reached: a draw")
        return text, {"removed": before.guard if gone else 0}
    return f"{who}: {a}", {}


def frames(game: Game, config: GameConfig, history: Sequence[tuple[int, Action]], *,
           partial: bool = False) -> Frames:
    """One frame for the deal and the guard's card, then one per seat action (see the module
    docstring).

    Raises:
        IllegalActionError: the history does not apply.
        ValueError: the history does not end the game and ``partial`` is false (a game in progress,
            shown on the play page, is partial: its ``Frames.outcome`` is None).
    """
    first = game.new_initial_state(config)
    assert isinstance(first, RocksState)
    out: list[Frame] = []
    state: RocksState = first
    # the step being gathered: turn, seat, public words, the drawing's marks, cards drawn per seat,
    # the position after it (taken at once: the state moves on), whether the discard pile was reshuffled
    pending: list[Any] | None = None

    def flush() -> None:
        if pending is None:
            return
        turn, seat, text, last, drawn, snap, reshuffled = pending
        board, hidden = snap
        board["last"] = last
        for p, cards in drawn.items():
            if cards:
                text += f"; {seat_name(p)} draws {len(cards)} card{'s' if len(cards) > 1 else ''}" if seat >= 0 else ""
                hidden[p]["note"] = f"draws {_cards(cards)}"
        if reshuffled:
            text += "; the discard pile is reshuffled into the draw pile"
        out.append(Frame(turn, seat, text, board, hidden))

    for before, seat, action, after in replay_steps(game, config, history):
        assert isinstance(before, RocksState) and isinstance(after, RocksState)
        state = after
        if seat == CHANCE:
            assert isinstance(action, Draw)
            if pending is None:  # the deal and the guard's card, before the first decision
                pending = [0, NO_SEAT, "", {}, {}, None, False]
            got = [p for p in range(after.num_players) if len(after.hands[p]) > len(before.hands[p])]
            for p in got:
                pending[4].setdefault(p, []).append(action.card)
            if after.guard != before.guard:
                pending[2] = (f"the hands are dealt ({after.options.hand_size} cards each); the card "
                              f"{action.card} is turned: the guard stands on space {after.guard}; seat 0 begins")
                pending[3] = {"guard": after.guard}
            pending[5] = _board(after)
            pending[6] = pending[6] or after.reshuffles > before.reshuffles
            continue
        flush()
        text, last = _describe(before, seat, action, after)
        pending = [before.turn + 1, seat, text, last, {}, _board(after), False]
    flush()
    outcome = state.outcome()
    if outcome is None and not partial:
        raise ValueError("the history does not end the game")
    return Frames(out, outcome, _setup(first))


REPLAY = ReplayBook(frames=frames, board_js="replay_board.js", module=__name__)
