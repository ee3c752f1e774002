"""Knizia's *Stonehenge* (Blatz 1994, also *Linea*): the druid game's rules. No I/O.

Board
    A triangle whose sides are split into 5 segments has 21 grid points; without its 3 corners
    18 remain (:data:`POINTS`, named ``a``..``r``). The board's lines are the maximal runs of
    points along the grid's three directions; :func:`sim.druids.geometry.derive_lines` builds them from the
    coordinates (15 lines ``A``..``O``, five per direction, lengths 2, 3, 4, 4, 5; every point on
    exactly 3 lines)::

              a   b                 row 1
            c   d   e               row 2
          f   g   h   i             row 3
        j   k   l   m   n           row 4
          o   p   q   r             row 5

    Direction 0 runs along the rows (A..E = rows 1..5), direction 1 parallel to the left side
    (F = a c f j ... J = n r), direction 2 parallel to the right side (K = b e i n ... O = j o);
    ``docs/rules-druids.md`` has the full table.

Pieces
    Each seat has 9 druid stones valued 1, 1, 2, 2, 3, 3, 4, 5, 6 and 8 megaliths.

Turn
    The seat to move places one stone (:class:`Place`) on an empty point. At the end of the turn it
    claims (automatically: a claim is free, so delaying one is never useful) every unclaimed line it
    dominates, one megalith per line, until its megaliths run out:

    * a full line is dominated by the higher total; on equal totals the tie loser is the seat that
      placed last on the line (``tie_loser = "last_placer"``, the rule text) or first
      (``"first_placer"``);
    * early domination (``early_domination``): a line that is not full is dominated when the
      opponent cannot beat the current total even by putting their best remaining stones on every
      empty space (at most as many stones as they still hold). ``"tie_rule"`` (default) counts an
      equal best total as not beating when the tie rule would make the opponent lose that tie (this
      is what the rule text's worked example needs: 6 against 1 + 3 + 2); ``"strict"`` requires
      the opponent's best total to be strictly lower; ``"off"`` claims full lines only.

End
    A game ends at the end of the turn in which a seat places its 8th megalith; that seat wins.
    After the 18th stone the board is full; if the last placer then has fewer than 8 megaliths, the
    other seat still gets its turn, which holds no placement, only claims. Every full line has a
    dominator, so with 15 lines one seat always reaches 8: a game never ends otherwise (the
    fallback "most megaliths, equal is a draw" exists only defensively).

Face-down variant (``face_down = true``)
    Stones are placed face down; a seat sees its own values, not the opponent's. A stone is turned
    face up as soon as any line through it is full. No early claims (a line is decided when full).

Match play (``match_games = n``)
    One state plays n games in sequence; seat 0 starts game 0 and the first player alternates.
    Each game the loser notes its remaining megaliths (8 - placed); the lower match total wins,
    equal totals draw. Because the winner of a game always places exactly 8, a seat's total
    megaliths over the match is ``8 n - noted``, so :meth:`DruidsState.outcome` reports total
    megaliths placed as the score (higher is better, same order as the noted totals).

Notation
    ``druids|tie_loser=last_placer|early_domination=tie_rule|face_down=0|match_games=1|done=|moves=a6b3``
    ``done`` lists the claims of finished earlier games of the match (``;`` between games, ``.``
    between claims, each claim ``<line><seat><e|f><ply>``); ``moves`` the current game's stones
    as point letter + value. The board and all derived facts are replayed from the moves.
    :meth:`DruidsState.to_notation` writes it, :func:`sim.druids.notation.parse_notation` reads it.

Modules: the board's geometry is :mod:`sim.druids.geometry`, the pieces and hand codes
:mod:`sim.druids.pieces`, the action :mod:`sim.druids.actions`, the rule options
:mod:`sim.druids.options`; this module holds the observation and the state (the endings are ``endings.py``'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any

from sim.core.errors import IllegalActionError, InputError
from sim.core.game import TERMINAL, Action, Outcome, State
from sim.druids.actions import ACTIONS, LEGAL_ROWS, Place
from sim.druids.geometry import LINE_LENGTH, LINE_NAMES, LINES, NUM_LINES, NUM_POINTS, POINT_LINES, POINT_NAMES
from sim.druids.options import EARLY_TIE_RULE, DruidsOptions
from sim.druids.pieces import FULL_HAND, HAND_BEST, HAND_SIZE, HAND_VALUES, MAX_VALUE, MEGALITHS, STONES, WEIGHT, hand_counts
from sim.druids.endings import DruidsEnd


# --------------------------------------------------------------------------------------------
# actions and observations
# --------------------------------------------------------------------------------------------


Claim = tuple[int, int, bool, int]
"""A placed megalith: (line, seat, early, ply); ``early`` when the line was not full, ``ply`` the
number of stones on the board in that game when it was claimed."""

HIDDEN = 0
"""Value shown in an observation for a stone whose face the observer cannot see."""


@dataclass(frozen=True, slots=True)
class DruidsObservation:
    """What one seat knows.

    Attributes:
        seat: the observer.
        options: the rule options (public).
        records: claims of the finished earlier games of the match (public).
        to_move: the seat to move, or TERMINAL.
        order: points of the current game in placement order; owners alternate from
            ``first = len(records) % 2`` (for a terminal match: the last game's first player).
        values: per entry of ``order``, the stone's value, or HIDDEN (0) for an opponent stone
            still face down.
        hand: the observer's unplaced stones as a sorted tuple.
        claims: claims of the current game, in order.
        first: the seat that placed the first stone of the current game.
    """

    seat: int
    options: DruidsOptions
    records: tuple[tuple[Claim, ...], ...]
    to_move: int
    order: tuple[int, ...]
    values: tuple[int, ...]
    hand: tuple[int, ...]
    claims: tuple[Claim, ...]
    first: int

    def owners(self) -> list[int]:
        """Owner of each point (-1 empty)."""
        own = [-1] * NUM_POINTS
        for i, p in enumerate(self.order):
            own[p] = (self.first + i) & 1
        return own

    def opponent_pool(self) -> tuple[int, ...]:
        """Values the opponent may still have hidden (face-down on the board or in hand), sorted."""
        opp = 1 - self.seat
        pool = list(STONES)
        for i, v in enumerate(self.values):
            if (self.first + i) & 1 == opp and v != HIDDEN:
                pool.remove(v)
        return tuple(sorted(pool))


# --------------------------------------------------------------------------------------------
# the state
# --------------------------------------------------------------------------------------------

_chain = chain.from_iterable


class DruidsState(State):
    """A position of the druid game (or of a match of several games). See the module docstring.

    Build one with ``sim.druids.game.GAME.new_initial_state(config)``, ``DruidsState(options)`` or
    :func:`sim.druids.notation.parse_notation`.
    """

    __slots__ = (
        "num_players", "options",
        "_tie_last", "_early", "_records", "_first", "_player", "_owner", "_value", "_shown",
        "_tot", "_empty", "_firstp", "_lastp", "_claim", "_claims", "_meg", "_hand", "_moves",
        "_hist", "_open", "_empties",
    )

    def __init__(self, options: DruidsOptions) -> None:
        """A fresh match (game 0, seat 0 to move) under validated ``options``
        (:meth:`DruidsOptions.from_rules`).

        Raises:
            TypeError: ``options`` is not a :class:`DruidsOptions`.
        """
        if not isinstance(options, DruidsOptions):
            raise TypeError(f"DruidsState needs DruidsOptions, got {type(options).__name__}")
        self.num_players = 2
        self.options = options
        # read once for the claim loop, the hot path
        self._tie_last = options.tie_last
        self._early = options.early_level
        self._records: list[tuple[Claim, ...]] = []
        self._hist: list[tuple[int, Place]] = []
        self._reset_board(0)

    def _reset_board(self, first: int) -> None:
        self._first = first
        self._player = first
        self._owner = [-1] * NUM_POINTS
        self._value = [0] * NUM_POINTS
        self._shown = [not self.options.face_down] * NUM_POINTS
        self._tot = [[0] * NUM_LINES, [0] * NUM_LINES]
        self._empty = list(LINE_LENGTH)
        self._firstp = [-1] * NUM_LINES
        self._lastp = [-1] * NUM_LINES
        self._claim = [-1] * NUM_LINES
        self._claims: list[Claim] = []
        self._meg = [0, 0]
        self._hand = [FULL_HAND, FULL_HAND]
        self._moves: list[tuple[int, int]] = []
        self._open = list(range(NUM_LINES))
        self._empties = list(range(NUM_POINTS))

    # --- turn structure -----------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to move, or TERMINAL."""
        return self._player

    def is_terminal(self) -> bool:
        """True when the game (the match) is over."""
        return self._player == TERMINAL

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every (empty point, distinct value in hand) pair of the seat to move, point-major.

        Another seat, or a finished game, has none.
        """
        p = self._player
        if p < 0 or (seat is not None and seat != p):
            return []
        # one C-level concatenation of precomputed per-point rows: no per-action Python work
        return list(_chain(map(LEGAL_ROWS[self._hand[p]].__getitem__, self._empties)))

    def apply_action(self, action: Any) -> None:
        """Place a stone, then claim for the mover and end the turn (and the game, the match).

        Raises:
            IllegalActionError: not a Place, the game is over, the point is taken or off the board,
                or the mover holds no stone of that value. The state is unchanged.
        """
        seat = self._player
        if action.__class__ is not Place:
            raise self._illegal(action, "not a Place action")
        if seat < 0:
            raise self._illegal(action, "the game is over")
        p = action.point
        v = action.value
        if not 0 <= p < NUM_POINTS:
            raise self._illegal(action, "no such point")
        if self._owner[p] != -1:
            raise self._illegal(action, f"point {POINT_NAMES[p]} is taken")
        if not (1 <= v <= MAX_VALUE and v in HAND_VALUES[self._hand[seat]]):
            raise self._illegal(action, f"seat {seat} holds no stone of value {v}")
        self._hist.append((seat, action))
        self._place(p, v, seat)
        self._end_turn(seat)

    # --- mechanics ----------------------------------------------------------------------------
    def _place(self, p: int, v: int, seat: int) -> None:
        self._owner[p] = seat
        self._value[p] = v
        self._hand[seat] -= WEIGHT[v]
        self._moves.append((p, v))
        self._empties.remove(p)
        tot = self._tot[seat]
        empty = self._empty
        firstp = self._firstp
        lastp = self._lastp
        for L in POINT_LINES[p]:
            tot[L] += v
            e = empty[L] = empty[L] - 1
            if firstp[L] < 0:
                firstp[L] = seat
            lastp[L] = seat
            if not e and self.options.face_down:
                shown = self._shown
                for q in LINES[L]:
                    shown[q] = True

    def _claim_for(self, seat: int) -> None:
        """Claim, for ``seat``, every open line it dominates (until its megaliths run out)."""
        meg = self._meg
        if meg[seat] >= MEGALITHS:
            return
        opp = 1 - seat
        mine = self._tot[seat]
        theirs = self._tot[opp]
        empty = self._empty
        early = self._early
        tl = self._lastp if self._tie_last else self._firstp
        opp_hand = self._hand[opp]
        best = HAND_BEST[opp_hand]
        won: list[tuple[int, bool]] | None = None
        for L in self._open:
            m = mine[L]
            if not m:
                continue
            e = empty[L]
            o = theirs[L]
            if e:
                if not early:
                    continue
                ob = o + best[e]
                if ob < m or (
                    ob == m
                    and early == EARLY_TIE_RULE
                    # the opponent cannot fill the line alone (so this seat adds), or the tie the
                    # opponent would reach by filling it goes against them
                    and (HAND_SIZE[opp_hand] < e or self._tie_last or tl[L] == opp)
                ):
                    won = won or []
                    won.append((L, True))
            elif m > o or (m == o and tl[L] == opp):
                won = won or []
                won.append((L, False))
        if won is None:
            return
        ply = len(self._moves)
        claim = self._claim
        for L, is_early in won:
            if meg[seat] >= MEGALITHS:
                break
            claim[L] = seat
            meg[seat] += 1
            self._open.remove(L)
            self._claims.append((L, seat, is_early, ply))

    def _end_turn(self, seat: int) -> None:
        self._claim_for(seat)
        if self._meg[seat] >= MEGALITHS:
            self._end_game()
        elif not self._empties:
            # board full: the other seat's turn holds no stone, only its claims
            self._claim_for(1 - seat)
            self._end_game()
        else:
            self._player = 1 - seat

    def _end_game(self) -> None:
        self._records.append(tuple(self._claims))
        if len(self._records) < self.options.match_games:
            self._reset_board(len(self._records) & 1)
        else:
            self._player = TERMINAL

    # --- end ----------------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """None while running; else winners and per-seat megaliths placed (summed over a match).

        A single game: the seat with 8 megaliths wins (termination ``"eight_megaliths"``). A match:
        the higher total wins, equal totals draw (``"match"``).
        """
        if self._player != TERMINAL:
            return None
        totals = [0, 0]
        for rec in self._records:
            m = record_megaliths(rec)
            totals[0] += m[0]
            totals[1] += m[1]
        if self.options.match_games == 1:
            w = record_winner(self._records[0])
            term = DruidsEnd.EIGHT_MEGALITHS if max(totals) >= MEGALITHS else DruidsEnd.BOARD_FULL
        else:
            w = 0 if totals[0] > totals[1] else 1 if totals[1] > totals[0] else None
            term = DruidsEnd.MATCH
        return Outcome(term, () if w is None else (w,), (float(totals[0]), float(totals[1])))

    def provisional_scores(self) -> tuple[float, float]:
        """Megaliths placed so far per seat (summed over a match's finished games): who leads now."""
        m0, m1 = self._meg
        for rec in self._board_records():
            a, b = record_megaliths(rec)
            m0 += a
            m1 += b
        return (float(m0), float(m1))

    # --- information --------------------------------------------------------------------------
    def _board_records(self) -> list[tuple[Claim, ...]]:
        """Records of games before the one on the board."""
        return self._records[:-1] if self._player == TERMINAL else self._records

    def observation(self, seat: int) -> DruidsObservation:
        """What ``seat`` knows: everything except the opponent's face-down values and hand."""
        first = self._first
        if self.options.face_down:
            shown = self._shown
            vals = tuple(
                v if shown[p] or (first + i) & 1 == seat else HIDDEN for i, (p, v) in enumerate(self._moves)
            )
        else:
            vals = tuple(v for _, v in self._moves)
        hand = hand_counts(self._hand[seat])
        return DruidsObservation(
            seat=seat,
            options=self.options,
            records=tuple(self._board_records()),
            to_move=self._player,
            order=tuple(p for p, _ in self._moves),
            values=vals,
            hand=tuple(v for v in range(1, MAX_VALUE + 1) for _ in range(hand[v])),
            claims=tuple(self._claims),
            first=first,
        )

    def clone(self) -> "DruidsState":
        """An independent copy."""
        c = DruidsState.__new__(DruidsState)
        c.num_players = 2
        c.options = self.options
        c._tie_last = self._tie_last
        c._early = self._early
        c._records = self._records[:]
        c._first = self._first
        c._player = self._player
        c._owner = self._owner[:]
        c._value = self._value[:]
        c._shown = self._shown[:]
        c._tot = [self._tot[0][:], self._tot[1][:]]
        c._empty = self._empty[:]
        c._firstp = self._firstp[:]
        c._lastp = self._lastp[:]
        c._claim = self._claim[:]
        c._claims = self._claims[:]
        c._meg = self._meg[:]
        c._hand = self._hand[:]
        c._moves = self._moves[:]
        c._hist = self._hist[:]
        c._open = self._open[:]
        c._empties = self._empties[:]
        return c

    def history(self) -> list[tuple[int, Action]]:
        """Every placement of the match so far as (seat, Place). Claims are automatic, not actions."""
        return list(self._hist)

    def length(self) -> int:
        """Stones placed over the whole match."""
        return len(self._hist)

    def to_notation(self) -> str:
        """The compact text of the module docstring; ``from_notation`` rebuilds an equal state."""
        done = ";".join(".".join(_claim_str(c) for c in rec) for rec in self._board_records())
        moves = "".join(f"{POINT_NAMES[p]}{v}" for p, v in self._moves)
        o = self.options
        return (
            f"druids|tie_loser={o.tie_loser}|early_domination={o.early_domination}"
            f"|face_down={int(o.face_down)}|match_games={o.match_games}|done={done}|moves={moves}"
        )

    # --- public read-only views (agents, details, tests) --------------------------------------
    @property
    def first_player(self) -> int:
        """Seat that placed (or places) the first stone of the game on the board."""
        return self._first

    def owner(self, point: int) -> int:
        """Owner of ``point`` (-1 empty)."""
        return self._owner[point]

    def value(self, point: int) -> int:
        """True value of the stone on ``point`` (0 empty), face down or not."""
        return self._value[point]

    def is_face_up(self, point: int) -> bool:
        """Whether the stone on ``point`` is visible to both seats."""
        return self._shown[point]

    def line_total(self, line: int, seat: int) -> int:
        """Sum of ``seat``'s stones on ``line``."""
        return self._tot[seat][line]

    def line_empty(self, line: int) -> int:
        """Empty spaces on ``line``."""
        return self._empty[line]

    def line_owner(self, line: int) -> int:
        """Seat whose megalith stands at ``line`` (-1 none)."""
        return self._claim[line]

    def megaliths(self, seat: int) -> int:
        """Megaliths ``seat`` has placed in the game on the board."""
        return self._meg[seat]

    def hand(self, seat: int) -> tuple[int, ...]:
        """``seat``'s unplaced stones, sorted ascending."""
        c = hand_counts(self._hand[seat])
        return tuple(v for v in range(1, MAX_VALUE + 1) for _ in range(c[v]))

    def claims(self) -> tuple[Claim, ...]:
        """Claims of the game on the board, in order."""
        return tuple(self._claims)

    def records(self) -> tuple[tuple[Claim, ...], ...]:
        """Claims of every finished game of the match (the last one included once it ended)."""
        return tuple(self._records)

    def moves(self) -> tuple[tuple[int, int], ...]:
        """(point, value) of the game on the board, in order."""
        return tuple(self._moves)

    # --- construction from parts (notation, determinization, tests) ---------------------------
    @classmethod
    def from_parts(
        cls,
        options: DruidsOptions,
        records: Any,
        moves: Any,
        *,
        history: list[tuple[int, Place]] | None = None,
    ) -> "DruidsState":
        """A state from the rule options, finished games' claims and the current game's moves.

        ``history`` (optional) is the match history before the current game; by default only the
        current game's moves appear in :meth:`history`.

        Raises:
            InputError: a record or move is inconsistent with the rules.
        """
        s = cls(options)
        recs = [tuple(tuple(c) for c in rec) for rec in records]
        if len(recs) >= options.match_games:
            raise InputError(f"{len(recs)} finished games but the match has {options.match_games}")
        for rec in recs:
            check_record(rec)
        n_done = len(recs)
        s._records = list(recs)
        s._reset_board(n_done & 1)
        if history:
            s._hist = list(history)
        for i, (p, v) in enumerate(moves):
            if s._player == TERMINAL or len(s._records) != n_done:
                raise InputError(f"move {i + 1} comes after the end of the game")
            try:
                s.apply_action(ACTIONS[p][v] if 0 <= p < NUM_POINTS and 0 <= v <= MAX_VALUE else Place(p, v))
            except IllegalActionError as e:
                raise InputError(f"move {i + 1} is illegal: {e}") from None
        if s._player != TERMINAL and len(s._records) != n_done:
            # the last move ended a game of an unfinished match: that game belongs in the records
            raise InputError("the moves end a game; it belongs in 'done'")
        return s


def _claim_str(c: Claim) -> str:
    """A claim as the notation writes it: ``<line><seat><e|f><ply>``."""
    L, seat, early, ply = c
    return f"{LINE_NAMES[L]}{seat}{'e' if early else 'f'}{ply}"


def check_record(rec: tuple[Claim, ...]) -> None:
    """Raise InputError unless ``rec`` is a plausible finished game: distinct lines, plies in
    order within 1..18, exactly one seat with 8 megaliths."""
    lines = [c[0] for c in rec]
    if len(set(lines)) != len(lines):
        raise InputError(f"a finished game claims a line twice: {rec}")
    plies = [c[3] for c in rec]
    if any(not 1 <= p <= NUM_POINTS for p in plies) or plies != sorted(plies):
        raise InputError(f"claim plies out of order or range: {rec}")
    meg = record_megaliths(rec)
    if max(meg) != MEGALITHS or meg[0] == meg[1]:
        raise InputError(f"a finished game needs exactly one seat with {MEGALITHS} megaliths: {rec}")


def record_megaliths(rec: tuple[Claim, ...]) -> tuple[int, int]:
    """Megaliths each seat placed in a finished game."""
    m = [0, 0]
    for _, seat, _, _ in rec:
        m[seat] += 1
    return (m[0], m[1])


def record_winner(rec: tuple[Claim, ...]) -> int | None:
    """The winner of a finished game: the seat with 8 megaliths, else the one with more (the
    defensive fallback: cannot happen under these rules), None when equal."""
    m = record_megaliths(rec)
    if m[0] == m[1]:
        return None
    return 0 if m[0] > m[1] else 1
