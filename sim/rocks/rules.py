"""Stonehenge Rocks! (Paul Peterson, for *Stonehenge: An Anthology Board Game*): the rules engine.

The rules as implemented are docs/rules-rocks.md; decisions beyond it are listed in
``docs/rules-rocks.md``. No I/O here.

State
    * the **deck**: 65 cards, numbers 1-30 twice (day and night do not matter here) and 5
      trilithon cards (card ``0``, written ``T``). The draw pile is an *unordered multiset*: every
      draw is an explicit chance node whose outcomes are the distinct cards left, with probability
      proportional to their count (the same distribution as drawing from a shuffled pile, and
      observations never depend on a deck order). The discard pile is public. When a draw is due
      and the draw pile is empty, the discard pile becomes the draw pile (a reshuffle).
    * per seat: fans in the pile (space ``0``, off the board) and on festival spaces 1-30, fans in
      box seats, fans on the seat's trilithon (and which trilithon, once claimed), T-shirts, the
      hand, and how many fans the guard removed (a statistic).
    * the security guard's space (1-30; ``0`` before setup).

Turn (the seat to move acts step by step; the phase says where it is)
    ``start``   Move (a fan with a number card, any number of times), or SeatBox / SeatTrilithon
                (one fan), or MoveGuard (after a pass), or EndTurn (a pass).
    ``moved``   more Move, MoveGuard or EndTurn.
    ``seated``  MoveGuard or EndTurn.
    ``guarded`` EndTurn.
    EndTurn: when the guard did not move this turn, the seat's fans on the guard's space go back
    to its pile; a seat with ``target_points`` or more wins; after ``max_turns`` turns the game is
    a draw (termination ``turn_cap``); else the seat draws back up to its hand size (chance
    nodes, phase ``refill``) and the next seat starts.

Setup: chance deals every hand (phase ``deal``), then turns one card for the guard (phase
``guard``; a trilithon card is shuffled back by default, so the outcomes are the number cards).

Actions are interned frozen dataclasses: :class:`Move`, :class:`SeatBox`, :class:`SeatTrilithon`,
:class:`MoveGuard`, :class:`EndTurn` and the chance outcome :class:`Draw`.

Modules: the deck and actions are in :mod:`sim.rocks.actions`, the options and :class:`RocksOptions`
in :mod:`sim.rocks.options`, the notation reader and ``build_position`` in :mod:`sim.rocks.notation`;
this module holds the phases, the observation and the state (and writes the notation; the endings are ``endings.py``'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from sim.core.errors import InputError
from sim.core.game import CHANCE, TERMINAL, Action, Outcome, State
from sim.rocks.actions import (
    DECK, DECK_SIZE, DRAWS, END_TURN, GUARD, MOVES, NUM_CARDS, SEAT_BOX, SEAT_TRI, SPACES, TRILITHON_CARD, Draw,
    EndTurn, Move, MoveGuard, SeatBox, SeatTrilithon, card_text,
)
from sim.rocks.options import RocksOptions
from sim.rocks.endings import RocksEnd

# --- phases ----------------------------------------------------------------------------------------
DEAL, GUARD_SETUP, START, MOVED, SEATED, GUARDED, REFILL, WON, CAPPED = range(9)
PHASE_NAMES = ("deal", "guard", "start", "moved", "seated", "guarded", "refill", "won", "capped")
PHASE_BY_NAME = {name: i for i, name in enumerate(PHASE_NAMES)}
CHANCE_PHASES = (DEAL, GUARD_SETUP, REFILL)


def seat_points(options: RocksOptions, box: int, tri: int, shirts: int) -> int:
    """The points of a seat with ``box`` fans in box seats, ``tri`` on its trilithon and ``shirts``
    T-shirts (the one scoring formula: states, observations and agents call it)."""
    return box * options.box_points + tri * options.trilithon_points + shirts * options.tshirt_points


# --- observation ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class RocksObservation:
    """What ``seat`` knows: its own hand, the board and the public discard pile.

    Other hands are known only by size and the draw pile only by size. ``unseen()`` is the
    multiset of cards the seat cannot see (other hands plus draw pile). Count tuples are indexed by
    card (0 = trilithon card); fan tuples by space (0 = the pile).
    """

    seat: int
    num_players: int
    options: RocksOptions
    phase: int
    to: int
    turn: int
    guard: int
    guard_moved: bool
    reshuffles: int
    fans: tuple[tuple[int, ...], ...]
    box: tuple[int, ...]
    tri: tuple[int, ...]
    tri_id: tuple[int, ...]
    shirts: tuple[int, ...]
    removed: tuple[int, ...]
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    discard: tuple[int, ...]
    out: tuple[int, ...]
    draw_size: int

    def points(self, seat: int) -> int:
        """Current points of ``seat``."""
        return seat_points(self.options, self.box[seat], self.tri[seat], self.shirts[seat])

    def unseen(self) -> list[int]:
        """Counts per card of the cards in other hands and the draw pile."""
        counts = list(DECK)
        for c in self.hand:
            counts[c] -= 1
        for c in range(NUM_CARDS):
            counts[c] -= self.discard[c] + self.out[c]
        return counts

    def __str__(self) -> str:
        return RocksState.from_observation(self, None).to_notation(mask_for=self.seat)


# --- state ---------------------------------------------------------------------------------------
class RocksState(State):
    """A position of Stonehenge Rocks! (see the module docstring)."""

    __slots__ = (
        "num_players", "options", "phase", "to", "turn", "guard", "guard_moved", "reshuffles",
        "fans", "occ", "box", "box_total", "tri", "tri_id", "tri_claimed", "shirts", "removed",
        "hands", "draw", "draw_n", "disc", "disc_n", "out", "_history",
    )

    def __init__(self, num_players: int, options: RocksOptions) -> None:
        """A fresh game before the deal (the first chance node deals seat 0's first card).

        Raises:
            InputError: the player count is outside 2-5 or the hands do not fit in the deck.
        """
        if not 2 <= num_players <= 5:
            raise InputError(f"Stonehenge Rocks! takes 2 to 5 players, got {num_players}")
        if num_players * options.hand_size >= DECK_SIZE - DECK[TRILITHON_CARD]:
            raise InputError(f"{num_players} hands of {options.hand_size} do not fit in the deck")
        n = num_players
        self.num_players = n
        self.options = options
        self.phase = DEAL
        self.to = 0
        self.turn = 0
        self.guard = 0
        self.guard_moved = False
        self.reshuffles = 0
        self.fans = [[options.fans_per_player] + [0] * SPACES for _ in range(n)]
        self.occ = [0] * NUM_CARDS
        self.box = [0] * n
        self.box_total = 0
        self.tri = [0] * n
        self.tri_id = [-1] * n
        self.tri_claimed = 0
        self.shirts = [0] * n
        self.removed = [0] * n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.draw = list(DECK)
        self.draw_n = DECK_SIZE
        self.disc = [0] * NUM_CARDS
        self.disc_n = 0
        self.out = [0] * NUM_CARDS
        self._history: list[tuple[int, Action]] = []

    # --- scoring ---------------------------------------------------------------------------
    def points(self, seat: int) -> int:
        """Current points of ``seat`` (box seats, trilithon, T-shirts)."""
        return seat_points(self.options, self.box[seat], self.tri[seat], self.shirts[seat])

    def provisional_scores(self) -> tuple[float, ...]:
        """Current points per seat (who is ahead now)."""
        return tuple(float(self.points(s)) for s in range(self.num_players))

    def points_by_source(self, seat: int) -> dict[str, int]:
        """``{"box": .., "trilithon": .., "tshirts": ..}`` points of ``seat``."""
        r = self.options
        return {
            "box": self.box[seat] * r.box_points,
            "trilithon": self.tri[seat] * r.trilithon_points,
            "tshirts": self.shirts[seat] * r.tshirt_points,
        }

    # --- turn structure --------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to act, CHANCE during deals and refills, TERMINAL at the end."""
        ph = self.phase
        if ph >= WON:
            return TERMINAL
        if ph == DEAL or ph == GUARD_SETUP or ph == REFILL:
            return CHANCE
        return self.to

    def is_terminal(self) -> bool:
        """True after a win or the turn cap."""
        return self.phase >= WON

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Legal actions of ``seat`` (default: the seat to move); chance outcomes at a chance node
        when ``seat`` is None or CHANCE; empty for a seat that is not to move."""
        ph = self.phase
        if ph >= WON:
            return []
        if ph == DEAL or ph == GUARD_SETUP or ph == REFILL:
            if seat is None or seat == CHANCE:
                return [a for a, _ in self.chance_outcomes()]
            return []
        p = self.to
        if seat is not None and seat != p:
            return []
        if ph == GUARDED:
            return [END_TURN]
        hand = self.hands[p]
        nums = sorted(set(hand))
        has_tri = bool(nums) and nums[0] == 0
        if has_tri:
            del nums[0]
        g = self.guard
        F = self.fans[p]
        out: list[Action] = []
        # order: seats, moves, guard, end turn (search agents break visit ties by this order)
        if ph != SEATED:
            spaces = [s for s in range(NUM_CARDS) if F[s] and s != g]
            if ph == START:
                r = self.options
                if self.box_total < r.box_seats:
                    out.extend([SEAT_BOX[c] for c in nums if F[c] and c != g])
                if has_tri and (self.tri_id[p] >= 0 or self.tri_claimed < r.trilithons):
                    out.extend([SEAT_TRI[s] for s in spaces if s])
            if nums:
                for s in spaces:
                    row = MOVES[s]
                    out.extend([row[c] for c in nums])
            if ph == START:
                if out and not self.options.allow_pass:
                    return out  # a seat that can move or seat must do so
        if self.options.guard_needs_fan:
            occ = self.occ
            out.extend([GUARD[c] for c in nums if c != g and occ[c]])
        else:
            out.extend([GUARD[c] for c in nums if c != g])
        out.append(END_TURN)
        return out

    def _can_act_with_fan(self) -> bool:
        """Whether the seat to move has a Move or a Seat action (for ``allow_pass = false``)."""
        return any(not isinstance(a, (MoveGuard, EndTurn)) for a in self.legal_actions())

    def apply_action(self, action: Action) -> None:
        """Apply a player action or a chance outcome.

        Raises:
            IllegalActionError: the action is not legal here; the state is unchanged.
        """
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise self._illegal(action, "not a Stonehenge Rocks! action")
        ph = self.phase
        seat = CHANCE if ph == DEAL or ph == GUARD_SETUP or ph == REFILL else self.to
        handler(self, action)
        self._history.append((seat, action))

    # --- player actions --------------------------------------------------------------------
    def _play_card(self, p: int, card: int) -> None:
        self.hands[p].remove(card)
        self.disc[card] += 1
        self.disc_n += 1

    def _check_turn(self, action: Action, phases: tuple[int, ...]) -> int:
        ph = self.phase
        if ph not in phases:
            what = "at a chance node" if ph in CHANCE_PHASES else "after the game ended" if ph >= WON else f"in phase {PHASE_NAMES[ph]}"
            raise self._illegal(action, f"not allowed {what}")
        return self.to

    def _do_move(self, a: Move) -> None:
        p = self._check_turn(a, (START, MOVED))
        s, c = a.space, a.card
        if not (0 <= s <= SPACES and 1 <= c <= SPACES):
            raise self._illegal(a, "no such space or number card")
        F = self.fans[p]
        if not F[s]:
            raise self._illegal(a, "no fan of this seat there" if s else "no fan left in the pile")
        if s == self.guard:
            raise self._illegal(a, "a fan on the guard's space cannot move")
        if c not in self.hands[p]:
            raise self._illegal(a, "card not in hand")
        self._play_card(p, c)
        F[s] -= 1
        if s:
            self.occ[s] -= 1
        dest = s + c if s else c + self.options.entry_offset
        if dest > SPACES:
            # souvenir stand: the fan goes back to the pile and takes a T-shirt while any are left
            F[0] += 1
            if self.shirts[p] < self.options.tshirts_per_player:
                self.shirts[p] += 1
        else:
            F[dest] += 1
            self.occ[dest] += 1
        self.phase = MOVED

    def _seat_checks(self, a: SeatBox | SeatTrilithon) -> int:
        p = self._check_turn(a, (START,))
        s = a.space
        if not 1 <= s <= SPACES:
            raise self._illegal(a, "only a fan in the festival area can be seated")
        if not self.fans[p][s]:
            raise self._illegal(a, "no fan of this seat there")
        if s == self.guard:
            raise self._illegal(a, "a fan on the guard's space cannot be seated")
        return p

    def _do_seat_box(self, a: SeatBox) -> None:
        p = self._seat_checks(a)
        s = a.space
        if s not in self.hands[p]:
            raise self._illegal(a, f"needs card {s} in hand")
        if self.box_total >= self.options.box_seats:
            raise self._illegal(a, "no free box seat")
        self._play_card(p, s)
        self.fans[p][s] -= 1
        self.occ[s] -= 1
        self.box[p] += 1
        self.box_total += 1
        self.phase = SEATED

    def _do_seat_tri(self, a: SeatTrilithon) -> None:
        p = self._seat_checks(a)
        if TRILITHON_CARD not in self.hands[p]:
            raise self._illegal(a, "needs a trilithon card in hand")
        if self.tri_id[p] < 0:
            if self.tri_claimed >= self.options.trilithons:
                raise self._illegal(a, "no free trilithon to claim")
            self.tri_claimed += 1
            self.tri_id[p] = self.tri_claimed  # trilithons are numbered 1.. in order of claim
        self._play_card(p, TRILITHON_CARD)
        s = a.space
        self.fans[p][s] -= 1
        self.occ[s] -= 1
        self.tri[p] += 1
        self.phase = SEATED

    def _do_guard(self, a: MoveGuard) -> None:
        p = self._check_turn(a, (START, MOVED, SEATED))
        s = a.space
        if not 1 <= s <= SPACES:
            raise self._illegal(a, "no such space")
        if s == self.guard:
            raise self._illegal(a, "the guard is already there")
        if s not in self.hands[p]:
            raise self._illegal(a, f"needs card {s} in hand")
        if self.options.guard_needs_fan and not self.occ[s]:
            raise self._illegal(a, "the guard may only go to a space holding a fan")
        if self.phase == START and not self.options.allow_pass and self._can_act_with_fan():
            raise self._illegal(a, "passing is not allowed while a fan can move or be seated")
        self._play_card(p, s)
        self.guard = s
        self.guard_moved = True
        self.phase = GUARDED

    def _do_end(self, a: EndTurn) -> None:
        p = self._check_turn(a, (START, MOVED, SEATED, GUARDED))
        if self.phase == START and not self.options.allow_pass and self._can_act_with_fan():
            raise self._illegal(a, "passing is not allowed while a fan can move or be seated")
        if not self.guard_moved:
            g = self.guard
            k = self.fans[p][g]
            if k:
                self.fans[p][g] = 0
                self.fans[p][0] += k
                self.occ[g] -= k
                self.removed[p] += k
        self.turn += 1
        if self.points(p) >= self.options.target_points:
            self.phase = WON
            return
        if self.turn >= self.options.max_turns:
            self.phase = CAPPED
            return
        self.phase = REFILL
        self._after_draw()

    # --- chance ----------------------------------------------------------------------------
    def _reshuffle(self) -> None:
        """The discard pile becomes the draw pile (a multiset: no order to shuffle)."""
        draw, disc = self.draw, self.disc
        for c in range(NUM_CARDS):
            draw[c] += disc[c]
            disc[c] = 0
        self.draw_n += self.disc_n
        self.disc_n = 0
        self.reshuffles += 1

    def _guard_outcome_excludes_trilithon(self) -> bool:
        return self.phase == GUARD_SETUP and self.options.guard_setup_trilithon == "reshuffle"

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """The distinct cards in the draw pile with probability proportional to their count."""
        if self.phase not in CHANCE_PHASES:
            return []
        counts = list(self.draw)
        if self._guard_outcome_excludes_trilithon():
            counts[TRILITHON_CARD] = 0
        total = sum(counts)
        return [(DRAWS[c], k / total) for c, k in enumerate(counts) if k]

    def sample_chance(self, rng: np.random.Generator) -> Action:
        """Draw one card with ``rng`` (same distribution as :meth:`chance_outcomes`)."""
        draw = self.draw
        total = self.draw_n
        start = 0
        if self._guard_outcome_excludes_trilithon():
            total -= draw[TRILITHON_CARD]
            start = 1
        r = int(rng.integers(total))
        for c in range(start, NUM_CARDS):
            r -= draw[c]
            if r < 0:
                return DRAWS[c]
        raise RuntimeError("draw pile counts are inconsistent")  # unreachable for valid states

    def _do_draw(self, a: Draw) -> None:
        ph = self.phase
        if ph not in CHANCE_PHASES:
            raise self._illegal(a, "a draw happens only at a chance node")
        c = a.card
        if not 0 <= c < NUM_CARDS or not self.draw[c]:
            raise self._illegal(a, "card not in the draw pile")
        if c == TRILITHON_CARD and self._guard_outcome_excludes_trilithon():
            raise self._illegal(a, "a trilithon card turned for the guard is shuffled back")
        self.draw[c] -= 1
        self.draw_n -= 1
        if ph == DEAL:
            for p in range(self.num_players):
                if len(self.hands[p]) < self.options.hand_size:
                    self.hands[p].append(c)
                    break
            if all(len(h) >= self.options.hand_size for h in self.hands):
                self.phase = GUARD_SETUP
            return
        if ph == GUARD_SETUP:
            if c == TRILITHON_CARD:  # option "discard": it goes to the discard pile; turn another
                self.disc[c] += 1
                self.disc_n += 1
                if not self.draw_n:
                    self._reshuffle()
                return
            if self.options.guard_card_to_discard:
                self.disc[c] += 1
                self.disc_n += 1
            else:
                self.out[c] += 1
            self.guard = c
            self.phase = START
            self.to = 0
            return
        self.hands[self.to].append(c)
        self._after_draw()

    def _after_draw(self) -> None:
        """In phase refill: stay at the chance node while the hand is short, else pass the turn."""
        if len(self.hands[self.to]) < self.options.hand_size:
            if not self.draw_n and self.disc_n:
                self._reshuffle()
            if self.draw_n:
                return
        self.to = (self.to + 1) % self.num_players
        self.phase = START
        self.guard_moved = False

    # --- end -------------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """``normal`` with the seat that reached the target, or ``turn_cap`` with no winner."""
        ph = self.phase
        if ph < WON:
            return None
        scores = tuple(float(self.points(s)) for s in range(self.num_players))
        if ph == WON:
            return Outcome(RocksEnd.NORMAL, (self.to,), scores)
        return Outcome(RocksEnd.TURN_CAP, (), scores)

    def returns(self) -> tuple[float, ...]:
        """1 to the winner, 1/n each at the turn cap, zeros while running."""
        n = self.num_players
        if self.phase == WON:
            return tuple(1.0 if s == self.to else 0.0 for s in range(n))
        if self.phase == CAPPED:
            return tuple(1.0 / n for _ in range(n))
        return tuple(0.0 for _ in range(n))

    # --- information -----------------------------------------------------------------------
    def observation(self, seat: int) -> RocksObservation:
        """Own hand, board, discard pile; other hands and the draw pile by size only."""
        if not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat} in a {self.num_players}-player game")
        return RocksObservation(
            seat=seat,
            num_players=self.num_players,
            options=self.options,
            phase=self.phase,
            to=self.to,
            turn=self.turn,
            guard=self.guard,
            guard_moved=self.guard_moved,
            reshuffles=self.reshuffles,
            fans=tuple(tuple(f) for f in self.fans),
            box=tuple(self.box),
            tri=tuple(self.tri),
            tri_id=tuple(self.tri_id),
            shirts=tuple(self.shirts),
            removed=tuple(self.removed),
            hand=tuple(sorted(self.hands[seat])),
            hand_sizes=tuple(len(h) for h in self.hands),
            discard=tuple(self.disc),
            out=tuple(self.out),
            draw_size=self.draw_n,
        )

    @classmethod
    def from_observation(cls, obs: RocksObservation, rng: np.random.Generator | None) -> "RocksState":
        """A state with the observation's public parts; hidden hands sampled from the unseen
        cards with ``rng`` (or left empty and the draw pile empty when ``rng`` is None: only for
        printing the masked notation)."""
        st = cls.__new__(cls)
        n = obs.num_players
        st.num_players = n
        st.options = obs.options
        st.phase, st.to, st.turn, st.guard = obs.phase, obs.to, obs.turn, obs.guard
        st.guard_moved, st.reshuffles = obs.guard_moved, obs.reshuffles
        st.fans = [list(f) for f in obs.fans]
        st.occ = [0] + [sum(f[s] for f in obs.fans) for s in range(1, NUM_CARDS)]
        st.box, st.tri, st.tri_id = list(obs.box), list(obs.tri), list(obs.tri_id)
        st.box_total = sum(obs.box)
        st.tri_claimed = sum(1 for t in obs.tri_id if t >= 0)
        st.shirts, st.removed = list(obs.shirts), list(obs.removed)
        st.disc = list(obs.discard)
        st.disc_n = sum(obs.discard)
        st.out = list(obs.out)
        st.hands = [[] for _ in range(n)]
        st.hands[obs.seat] = list(obs.hand)
        st.draw = [0] * NUM_CARDS
        st.draw_n = 0
        st._history = []
        if rng is not None:
            unseen = obs.unseen()
            pool = np.repeat(np.arange(NUM_CARDS), unseen)
            pool = pool[rng.permutation(len(pool))].tolist()
            i = 0
            for p in range(n):
                if p != obs.seat:
                    k = obs.hand_sizes[p]
                    st.hands[p] = pool[i : i + k]
                    i += k
            for c in pool[i:]:
                st.draw[c] += 1
            st.draw_n = len(pool) - i
        else:  # placeholders of the right sizes: only the masked notation reads them
            for p in range(n):
                if p != obs.seat:
                    st.hands[p] = [TRILITHON_CARD] * obs.hand_sizes[p]
            st.draw_n = obs.draw_size
        return st

    def clone(self) -> "RocksState":
        """An independent copy (options shared: they are read-only)."""
        st = RocksState.__new__(RocksState)
        st.num_players = self.num_players
        st.options = self.options
        st.phase, st.to, st.turn, st.guard = self.phase, self.to, self.turn, self.guard
        st.guard_moved, st.reshuffles = self.guard_moved, self.reshuffles
        st.fans = [f[:] for f in self.fans]
        st.occ = self.occ[:]
        st.box, st.box_total = self.box[:], self.box_total
        st.tri, st.tri_id, st.tri_claimed = self.tri[:], self.tri_id[:], self.tri_claimed
        st.shirts, st.removed = self.shirts[:], self.removed[:]
        st.hands = [h[:] for h in self.hands]
        st.draw, st.draw_n = self.draw[:], self.draw_n
        st.disc, st.disc_n = self.disc[:], self.disc_n
        st.out = self.out[:]
        st._history = self._history[:]
        return st

    def history(self) -> list[tuple[int, Action]]:
        """Every applied action as ``(seat or CHANCE, action)``."""
        return list(self._history)

    # --- notation --------------------------------------------------------------------------
    def to_notation(self, mask_for: int | None = None) -> str:
        """The whole state as one line of ``key=value`` fields (see :func:`sim.rocks.notation.parse_notation`).

        With ``mask_for`` a seat, other hands print as ``?size`` and the draw pile as ``?size``:
        the seat's view (not parseable back into a state).
        """
        n = self.num_players
        hands = []
        for p in range(n):
            if mask_for is not None and p != mask_for:
                hands.append(f"?{len(self.hands[p])}")
            else:
                hands.append(_fmt_cards(sorted(self.hands[p])))
        fields = [
            "rocks",
            f"n={n}",
            f"rules={_fmt_options(self.options)}",
            f"turn={self.turn}",
            f"to={self.to}",
            f"phase={PHASE_NAMES[self.phase]}",
            f"guard={self.guard}",
            f"guard_moved={int(self.guard_moved)}",
            f"reshuffles={self.reshuffles}",
            "fans=" + "/".join(_fmt_fans(f) for f in self.fans),
            "box=" + "/".join(map(str, self.box)),
            "tri=" + "/".join(f"{self.tri[p]}@{self.tri_id[p]}" if self.tri_id[p] >= 0 else "-" for p in range(n)),
            "shirts=" + "/".join(map(str, self.shirts)),
            "removed=" + "/".join(map(str, self.removed)),
            "hands=" + "/".join(hands),
            "draw=" + (f"?{self.draw_n}" if mask_for is not None else _fmt_counts(self.draw)),
            "discard=" + _fmt_counts(self.disc),
            "out=" + _fmt_counts(self.out),
        ]
        return " ".join(fields)

    # the State base compares notations; keep that, but be explicit for speed-insensitive callers
    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_notation() == self.to_notation()

    def __hash__(self) -> int:
        return hash(self.to_notation())


_HANDLERS: dict[type, Callable[[RocksState, Any], None]] = {
    Move: RocksState._do_move,
    SeatBox: RocksState._do_seat_box,
    SeatTrilithon: RocksState._do_seat_tri,
    MoveGuard: RocksState._do_guard,
    EndTurn: RocksState._do_end,
    Draw: RocksState._do_draw,
}


# --- notation helpers ----------------------------------------------------------------------------
def _fmt_options(options: RocksOptions) -> str:
    """``name:value,...`` for every option, in declaration order (booleans as ``true``/``false``)."""
    return ",".join(f"{k}:{('true' if v else 'false') if isinstance(v, bool) else v}" for k, v in options.as_rules().items())


def _fmt_counts(counts: list[int] | tuple[int, ...]) -> str:
    """A card multiset as ``Tx2.1.5x2``; ``-`` when empty."""
    toks = [(card_text(c) if k == 1 else f"{card_text(c)}x{k}") for c, k in enumerate(counts) if k]
    return ".".join(toks) if toks else "-"


def _fmt_cards(cards: list[int]) -> str:
    counts = [0] * NUM_CARDS
    for c in cards:
        counts[c] += 1
    return _fmt_counts(counts)


def _fmt_fans(f: list[int]) -> str:
    """``pile:space.spacexk...``, e.g. ``7:3.12x2`` (7 in the pile, one on 3, two on 12)."""
    on_board = [(str(s) if f[s] == 1 else f"{s}x{f[s]}") for s in range(1, NUM_CARDS) if f[s]]
    return f"{f[0]}:" + ".".join(on_board)
