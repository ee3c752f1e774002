"""*Stonehenge Rocks!* for a person at the table (``stonelab play``): the venue one seat sees, as
data and as text, and the moves typed in the game's notation. No I/O.

Everything is computed from the seat's :class:`~sim.rocks.rules.RocksObservation`: the other
hands and the draw pile are shown by their sizes only, and a card drawn is never named in the log.
"""

from __future__ import annotations

import re
from typing import Any

from sim.core.errors import InputError
from sim.rocks.actions import END_TURN, SPACES, Draw, Move, MoveGuard, SeatBox, SeatTrilithon, card_text
from sim.rocks.rules import PHASE_NAMES, RocksObservation

#: the typed forms, as the moves are listed (``str`` of each action); numbers of up to 3 digits
#: (the engine says what is wrong with an out-of-range one)
_FORMS: tuple[tuple[re.Pattern[str], Any], ...] = (
    (re.compile(r"enter\s+by\s+(\d{1,3})"), lambda m: Move(0, int(m[1]))),
    (re.compile(r"move\s+(\d{1,3})\s+by\s+(\d{1,3})"), lambda m: Move(int(m[1]), int(m[2]))),
    (re.compile(r"box\s+seat\s+from\s+(\d{1,3})"), lambda m: SeatBox(int(m[1]))),
    (re.compile(r"trilithon\s+seat\s+from\s+(\d{1,3})"), lambda m: SeatTrilithon(int(m[1]))),
    (re.compile(r"guard\s+to\s+(\d{1,3})"), lambda m: MoveGuard(int(m[1]))),
    (re.compile(r"end\s+turn|end|pass"), lambda m: END_TURN),
)
_SHAPES = "'enter by 5', 'move 3 by 7', 'box seat from 12', 'trilithon seat from 4', 'guard to 9' or 'end turn'"


def _cards(counts: tuple[int, ...]) -> str:
    """A count-per-card tuple as ``3 7x2 T``."""
    parts = [card_text(c) + (f"x{k}" if k > 1 else "") for c, k in enumerate(counts) if k]
    return " ".join(parts) or "none"


#: a seat's letter on the festival spaces (a number there would read as a count)
LETTERS = "ABCDE"
#: what the seat to act may do next, by phase (docs/rules-rocks.md)
_PHASE_WORDS = {
    "start": "start of the turn: move or seat fans, move the guard, or end the turn",
    "moved": "a fan has moved: move more, move the guard, or end the turn",
    "seated": "a fan is seated: move the guard or end the turn",
    "guarded": "the guard has moved: end the turn",
    "deal": "the cards are dealt", "guard": "the guard's card is turned", "refill": "hands are drawn back up",
    "won": "the game is won", "capped": "the turn cap is reached: a draw",
}


class RocksSeat:
    """The :class:`sim.core.human.SeatView` of Stonehenge Rocks!."""

    def parse(self, text: str) -> Any:
        """One of the forms the moves are listed in (any case, any spacing); ``end`` and ``pass``
        also end the turn.

        Raises:
            InputError: none of the forms.
        """
        t = " ".join(text.strip().lower().split())
        for pattern, make in _FORMS:
            m = pattern.fullmatch(t)
            if m is not None:
                return make(m)
        raise InputError(f"{text.strip()[:40]!r} is not a move: write {_SHAPES}")

    def step_text(self, seat: int, action: Any, observation: RocksObservation) -> str:
        """The action as listed; a card drawn is not named (only its drawer could see it)."""
        if isinstance(action, Draw):
            return "a card is drawn"
        return str(action)

    def view(self, obs: RocksObservation) -> dict[str, Any]:
        """The festival spaces with each seat's fans and the guard, each seat's pile, box seats,
        trilithon, T-shirts and points, the seat's own hand, the discard pile and the text view."""
        n = obs.num_players
        seats = [{"seat": s, "pile": obs.fans[s][0], "box": obs.box[s], "trilithon": obs.tri[s],
                  "trilithon_id": obs.tri_id[s], "tshirts": obs.shirts[s], "points": obs.points(s),
                  "hand_size": obs.hand_sizes[s], "removed": obs.removed[s]} for s in range(n)]
        spaces = [{"space": k, "fans": [obs.fans[s][k] for s in range(n)], "guard": obs.guard == k}
                  for k in range(1, SPACES + 1)]
        return {"game": "rocks", "seat": obs.seat, "to_move": obs.to, "turn": obs.turn,
                "phase": PHASE_NAMES[obs.phase], "guard": obs.guard, "spaces": spaces, "seats": seats,
                "hand": [card_text(c) for c in obs.hand], "discard": _cards(obs.discard),
                "draw_size": obs.draw_size, "target_points": obs.options.target_points, "text": self.text(obs)}

    def text(self, obs: RocksObservation) -> str:
        """The venue as lines of text: the 30 spaces (a seat's fans as its letter, with a count
        when more than one; ``G`` the guard), then per seat its pile, seats and points, then the
        seat's hand."""
        n = obs.num_players
        me = obs.seat
        phase = PHASE_NAMES[obs.phase]
        actor = "you" if obs.to == me else f"seat {obs.to} ({LETTERS[obs.to]})"
        out = [f"you are seat {me} ({LETTERS[me]}); {obs.options.target_points} points win",
               f"turn {obs.turn + 1}, {actor} to act: {_PHASE_WORDS.get(phase, phase)}", ""]
        row = []
        for k in range(1, SPACES + 1):
            here = [LETTERS[s] + (str(obs.fans[s][k]) if obs.fans[s][k] > 1 else "") for s in range(n) if obs.fans[s][k]]
            if obs.guard == k:
                here.append("G")
            row.append(f"{k:>2}[{' '.join(here)}]")
        width = max(len(c) for c in row)
        for i in range(0, SPACES, 10):
            out.append(" ".join(c.ljust(width) for c in row[i:i + 10]).rstrip())
        out.append(f"(a space lists the seats with fans there, {LETTERS[0]}2 = two fans of seat 0; G: the guard)")
        out.append("")
        for s in range(n):
            who = " (you)" if s == me else ""
            tri = f"trilithon {obs.tri_id[s]}: {obs.tri[s]} fans" if obs.tri_id[s] >= 0 else "no trilithon"
            out.append(f"{LETTERS[s]} = seat {s}{who}: {obs.points(s)} points; {obs.hand_sizes[s]} cards in hand")
            out.append(f"    pile {obs.fans[s][0]} fans, box seats {obs.box[s]}, {tri}, T-shirts {obs.shirts[s]}")
        out.append("")
        out.append(f"your hand: {' '.join(card_text(c) for c in obs.hand) or 'empty'}   (T: trilithon card)")
        out.append(f"discard pile: {_cards(obs.discard)}")
        out.append(f"draw pile: {obs.draw_size} cards")
        return "\n".join(out)


#: the one instance the plug-in names
SEAT = RocksSeat()
