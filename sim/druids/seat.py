"""The druid game for a person at the table (``stonelab play``): the position one seat sees, as
data and as text, and the moves typed in the game's notation. No I/O.

Everything is computed from the seat's :class:`~sim.druids.rules.DruidsObservation`, so the
opponent's face-down stones (the ``face_down`` variant) stay hidden.
"""

from __future__ import annotations

import re
from typing import Any

from sim.core.errors import InputError
from sim.core.game import TERMINAL
from sim.druids.actions import ACTIONS, Place
from sim.druids.geometry import LINE_NAMES, LINES, NUM_POINTS, POINT_INDEX, POINT_NAMES, point_xy
from sim.druids.pieces import MAX_VALUE, MEGALITHS
from sim.druids.rules import HIDDEN, DruidsObservation

#: a typed placement: ``Place(c=3)`` as the moves are listed, or the short ``c3``, ``c=3``, ``c 3``
_PLACE = re.compile(r"(?:place\s*\(\s*)?([a-z])\s*[=:\s]?\s*(\d{1,2})\s*\)?")
#: the grid's rows, top to bottom (lines A..E run along the rows)
_ROWS: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(LINES[r], key=lambda p: point_xy(p)[0])) for r in range(5))
#: a seat's stone mark in the text view
MARKS = ("●", "○")


def _placed(obs: DruidsObservation) -> dict[int, tuple[int, int]]:
    """point -> (owner, value or HIDDEN) of the stones on the board."""
    return {p: ((obs.first + i) & 1, obs.values[i]) for i, p in enumerate(obs.order)}


class DruidsSeat:
    """The :class:`sim.core.human.SeatView` of the druid game."""

    def parse(self, text: str) -> Place:
        """``Place(c=3)``, ``c3``, ``c=3`` or ``c 3`` (any case): a stone of value 3 on point c.

        Raises:
            InputError: not a placement on a point a..r with a value 1..6.
        """
        m = _PLACE.fullmatch(text.strip().lower())
        if m is None or m[1] not in POINT_INDEX or not 1 <= int(m[2]) <= MAX_VALUE:
            raise InputError(f"{text.strip()[:40]!r} is not a move: write a point a..r and a stone value 1..{MAX_VALUE}, "
                             "e.g. 'Place(c=3)' or 'c3'")
        return ACTIONS[POINT_INDEX[m[1]]][int(m[2])]

    def step_text(self, seat: int, action: Any, observation: DruidsObservation) -> str:
        """The placement; the value of the opponent's stone is ``?`` in the face-down variant (the
        board shows it once a line through it is full)."""
        if isinstance(action, Place) and seat != observation.seat and observation.options.face_down:
            return f"Place({POINT_NAMES[action.point]}=?)"
        return str(action)

    def view(self, obs: DruidsObservation) -> dict[str, Any]:
        """The board, the lines with their totals and megaliths, the hands and the text view."""
        placed = _placed(obs)
        claims = {c[0]: c[1] for c in obs.claims}
        meg = [sum(1 for c in obs.claims if c[1] == s) for s in (0, 1)]
        lines = []
        for L, pts in enumerate(LINES):
            totals: list[int | None] = [0, 0]
            for p in pts:
                if p in placed:
                    owner, v = placed[p]
                    t = totals[owner]
                    totals[owner] = None if v == HIDDEN or t is None else t + v
            lines.append({"name": LINE_NAMES[L], "points": "".join(POINT_NAMES[p] for p in pts),
                          "totals": totals, "empty": sum(1 for p in pts if p not in placed),
                          "megalith": claims.get(L)})
        points = [{"name": POINT_NAMES[p], "xy": list(point_xy(p)),
                   "owner": placed[p][0] if p in placed else None,
                   "value": (None if placed[p][1] == HIDDEN else placed[p][1]) if p in placed else None}
                  for p in range(NUM_POINTS)]
        return {"game": "druids", "seat": obs.seat, "to_move": obs.to_move, "points": points, "lines": lines,
                "hand": list(obs.hand), "megaliths": meg, "megaliths_to_win": MEGALITHS,
                "face_down": bool(obs.options.face_down), "text": self.text(obs)}

    def text(self, obs: DruidsObservation) -> str:
        """The triangle of points (a stone as its value and its seat's mark, ``?`` face down), the
        lines and who holds their megaliths, and the seat's hand."""
        placed = _placed(obs)
        me = obs.seat
        out = [f"you are seat {me} ({MARKS[me]}); the opponent is seat {1 - me} ({MARKS[1 - me]})", ""]
        for row in _ROWS:
            cells = []
            for p in row:
                if p in placed:
                    owner, v = placed[p]
                    cells.append(f"{POINT_NAMES[p]} {'?' if v == HIDDEN else v}{MARKS[owner]}")
                else:
                    cells.append(f"{POINT_NAMES[p]} · ")
            # cells 8 characters apart: each row of the triangle is half a cell in from the one below
            out.append(" " * (4 * (5 - len(row))) + "    ".join(cells))
        out.append("")
        claims = {c[0]: c[1] for c in obs.claims}
        for L, pts in enumerate(LINES):
            sums = []
            for s in (0, 1):
                vals = [placed[p][1] for p in pts if p in placed and placed[p][0] == s]
                sums.append("?" if HIDDEN in vals else str(sum(vals)))
            empty = sum(1 for p in pts if p not in placed)
            who = ("megalith: yours" if claims.get(L) == me else "megalith: the opponent's" if L in claims
                   else f"{empty} empty")
            out.append(f"line {LINE_NAMES[L]} ({' '.join(POINT_NAMES[p] for p in pts)}): "
                       f"you {sums[me]}, opponent {sums[1 - me]}; {who}")
        meg = [sum(1 for c in obs.claims if c[1] == s) for s in (0, 1)]
        out.append("")
        out.append(f"megaliths: you {meg[me]}, opponent {meg[1 - me]} (first to {MEGALITHS} wins)")
        out.append(f"your stones: {' '.join(str(v) for v in obs.hand) or 'none'}")
        if obs.to_move == TERMINAL:
            out.append("the game is over")
        return "\n".join(out)


SEAT = DruidsSeat()
