"""Knizia's *Stonehenge* as a replay: one frame per stone placed, with the megaliths it claimed
(docs/replay-format.md, "Turn-based games"). Plain data, no I/O; the drawing is
``replay_board.js`` next to this file.

Hidden information: in the face-down variant (``face_down = true``) a stone's value is hidden from
the opponent until a line through it is full, and so is each seat's hand; with stones face up both
are public (the hand is what is not on the board).
"""

from __future__ import annotations

from typing import Any, Sequence

from sim.core.game import Action, Game, GameConfig
from sim.druids.geometry import LINE_DIRECTION, LINE_NAMES, LINES, POINT_NAMES, POINTS, point_xy
from sim.druids.pieces import MEGALITHS, STONES
from sim.druids.rules import DruidsState
from sim.replay.model import NO_SEAT, Frame, Frames, ReplayBook, replay_steps, seat_name


def _setup(state: DruidsState) -> dict[str, Any]:
    """The board's shape for the drawing: points (unit spacing, apex up), lines, the rules."""
    return {
        "points": [[round(x, 4), round(y, 4)] for x, y in (point_xy(p) for p in range(len(POINTS)))],
        "point_names": POINT_NAMES,
        "lines": [list(pts) for pts in LINES],
        "line_names": LINE_NAMES,
        "line_direction": list(LINE_DIRECTION),
        "megaliths": MEGALITHS,
        "stones": list(STONES),
        "face_down": state.options.face_down,
        "match_games": state.options.match_games, "turn_name": "stone",
    }


def _claim_words(claims: Sequence[tuple[int, int, bool, int]]) -> str:
    """``claims line C (full) and line K (early)``."""
    parts = [f"line {LINE_NAMES[L]} ({'early' if early else 'full'})" for L, _, early, _ in claims]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _position(stones: list[tuple[int, int, int]], shown: list[bool], claims: Sequence[tuple[int, int, bool, int]],
              state: DruidsState, game_no: int, over: bool) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The public board and each seat's hidden part of one game's position.

    ``stones``: (point, seat, value) in placement order; ``shown``: per point, face up.
    """
    face_down = state.options.face_down
    owner_of = [-1] * len(LINES)
    meg = [0, 0]
    for L, s, _, _ in claims:
        owner_of[L] = s
        meg[s] += 1
    public = [[p, s, v if (shown[p] or not face_down) else 0] for p, s, v in stones]
    hidden: dict[int, dict[str, Any]] = {}
    left = [sorted(STONES), sorted(STONES)]
    for _, s, v in stones:
        left[s].remove(v)
    board: dict[str, Any] = {
        "game": game_no, "stones": public, "line_owner": owner_of, "megaliths": meg,
        "claims": [[L, s, bool(e)] for L, s, e, _ in claims], "to_move": -1 if over else state.current_player(),
        "match": list(state.provisional_scores()), "hand_sizes": [len(left[0]), len(left[1])],
    }
    if face_down:
        for s in (0, 1):
            hidden[s] = {"hand": left[s], "stones": [[p, v] for p, o, v in stones if o == s and not shown[p]]}
    else:
        board["hands"] = left
    return board, hidden


def frames(game: Game, config: GameConfig, history: Sequence[tuple[int, Action]], *,
           partial: bool = False) -> Frames:
    """One frame before the first stone, then one per stone placed (see the module docstring).

    Raises:
        IllegalActionError: the history does not apply.
        ValueError: the history does not end the game and ``partial`` is false (a game in progress,
            shown on the play page, is partial: its ``Frames.outcome`` is None).
    """
    first = game.new_initial_state(config)
    assert isinstance(first, DruidsState)
    board, hidden = _position([], [False] * len(POINTS), [], first, 0, False)
    out = [Frame(0, NO_SEAT, f"the board is empty; {seat_name(first.current_player())} places first", board, hidden)]
    state: DruidsState = first
    ply = 0
    for before, seat, action, after in replay_steps(game, config, history):
        assert isinstance(before, DruidsState) and isinstance(after, DruidsState)
        state = after
        ply += 1
        p, v = action.point, action.value
        game_no = len(before.records())
        ended = len(after.records()) > game_no or after.is_terminal()
        if len(after.records()) > game_no and not after.is_terminal():
            # a game of a match ended and the board was reset: show the board as it ended
            stones = [(q, (before.first_player + i) & 1, w) for i, (q, w) in enumerate(before.moves())] + [(p, seat, v)]
            taken = {q for q, _, _ in stones}
            full = [all(q in taken for q in pts) for pts in LINES]
            shown = [not before.options.face_down or any(full[L] for L, pts in enumerate(LINES) if q in pts)
                     for q in range(len(POINTS))]
            claims = after.records()[-1]
            board, hidden = _position(stones, shown, claims, after, game_no, True)
            new_claims = claims[len(before.claims()):]
        else:
            stones = [(q, (after.first_player + i) & 1, w) for i, (q, w) in enumerate(after.moves())]
            shown = [after.is_face_up(q) for q in range(len(POINTS))]
            board, hidden = _position(stones, shown, after.claims(), after, game_no, after.is_terminal())
            new_claims = after.claims()[len(before.claims()):]
        board["last"] = p
        visible = not after.options.face_down or shown[p]
        text = f"{seat_name(seat)} places a {v} on {POINT_NAMES[p]}" if visible else \
            f"{seat_name(seat)} places a stone face down on {POINT_NAMES[p]}"
        if not visible:
            hidden.setdefault(seat, {})["note"] = f"its value: {v}"
        for s in (seat, 1 - seat):
            mine = [c for c in new_claims if c[1] == s]
            if mine:
                text += f"; {seat_name(s)} claims {_claim_words(mine)}"
        if ended:
            rec = after.records()[game_no]
            m = [sum(1 for c in rec if c[1] == s) for s in (0, 1)]
            won = 0 if m[0] > m[1] else 1
            text += f". {seat_name(won)} has placed {m[won]} megaliths and wins" + \
                (f" game {game_no + 1} of the match" if after.options.match_games > 1 else " the game")
        out.append(Frame(ply, seat, text, board, hidden))
    outcome = state.outcome()
    if outcome is None and not partial:
        raise ValueError("the history does not end the game")
    return Frames(out, outcome, _setup(first))


def words_now(made: Frames) -> list[str]:
    """Each step's words (``made.frames[1:]``) with the value of a stone placed face down that is
    face up by the last frame of its game (the board's public ``stones``: a value of 0 is still
    face down): "seat 1 places a stone face down on f" becomes "seat 1 places a 5 on f (face down;
    turned up since)". Nothing else changes, and a value still face down is never said."""
    last_of: dict[int, Frame] = {}
    for f in made.frames:
        last_of[int(f.board.get("game", 0))] = f
    out = []
    for f in made.frames[1:]:
        text = f.text
        p = f.board.get("last")
        if isinstance(p, int) and " places a stone face down on " in text:
            shown = {q: v for q, _, v in last_of[int(f.board.get("game", 0))].board.get("stones", [])}
            v = shown.get(p, 0)
            if v:
                text = text.replace(f" places a stone face down on {POINT_NAMES[p]}",
                                    f" places a {v} on {POINT_NAMES[p]} (face down; turned up since)", 1)
        out.append(text)
    return out


REPLAY = ReplayBook(frames=frames, board_js="replay_board.js", module=__name__, words_now=words_now)
