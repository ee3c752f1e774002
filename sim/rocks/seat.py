"""*Stonehenge Rocks!* for a person at the table (``stonelab play``): the venue one seat sees, as
data and as text, and the moves typed in the game's notation. No I/O.

Everything is computed from the seat's :class:`~sim.rocks.rules.RocksObservation`: the other
hands and the draw pile are shown by their sizes only, and a card drawn is never named in the log.
"""

from __future__ import annotations

import re
from typing import Any

from sim.core.errors import InputError
from sim.rocks.rules import (
    END_TURN, PHASE_NAMES, SPACES, Draw, Move, MoveGuard, RocksObservation, SeatBox, SeatTrilithon,
    card_text,
)

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
                "draw_size": obs.draw_size, "target_points": obs.rules.target_points, "text": self.text(obs)}

    def text(self, obs: RocksObservation) -> str:
        """The venue as lines of text: the occupied spaces (fans as ``seat:count``, ``G`` the
        guard), then per seat its pile, seats and points, then the seat's hand."""
        n = obs.num_players
        me = obs.seat
        out = [f"you are seat {me}; turn {obs.turn + 1}, seat {obs.to} to act ({PHASE_NAMES[obs.phase]}); "
               f"{obs.rules.target_points} points win", ""]
        row = []
        for k in range(1, SPACES + 1):
            here = [f"{s}:{obs.fans[s][k]}" if obs.fans[s][k] > 1 else f"{s}"
                    for s in range(n) if obs.fans[s][k]]
            mark = "G" if obs.guard == k else ""
            cell = f"{k:>2}[{' '.join(here)}{(' ' if here and mark else '') + mark}]" if here or mark else f"{k:>2}[ ]"
            row.append(cell)
        for i in range(0, SPACES, 10):
            out.append("  ".join(row[i:i + 10]))
        out.append("  (a space shows the seats whose fans stand there, seat:count for more than one; G the guard)")
        out.append("")
        for s in range(n):
            who = "you" if s == me else f"seat {s}"
            tri = f"trilithon {obs.tri_id[s]}: {obs.tri[s]}" if obs.tri_id[s] >= 0 else "no trilithon"
            out.append(f"seat {s} ({who}): {obs.points(s)} points; pile {obs.fans[s][0]}, box seats {obs.box[s]}, "
                       f"{tri}, T-shirts {obs.shirts[s]}; {obs.hand_sizes[s]} cards in hand")
        out.append("")
        out.append(f"your hand: {' '.join(card_text(c) for c in obs.hand) or 'empty'}")
        out.append(f"discard pile: {_cards(obs.discard)}; draw pile: {obs.draw_size} cards")
        return "\n".join(out)


#: the one instance the plug-in names
SEAT = RocksSeat()
