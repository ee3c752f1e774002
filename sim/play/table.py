"""The person's side of the table: what they are shown, and how their choice reaches the game.

:class:`SeatLog` turns the game's steps into the lines the person may read (the game's
:class:`~sim.core.human.SeatView` leaves out what their seat may not know). :class:`WebTable` is
the :class:`~sim.core.human.Channel` of the browser page: the game loop runs in its own thread and
waits in :meth:`WebTable.choose` on a queue that the page's requests feed (:meth:`WebTable.submit`,
from the server's threads); the page reads :meth:`WebTable.snapshot`. Everything shown is built in
the game thread from the seat's observation, under one lock.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from typing import TYPE_CHECKING, Any, Sequence

from sim.core.game import CHANCE, SIMULTANEOUS, TERMINAL, Action, State
from sim.core.human import Abandoned, SeatView
from sim.play.session import Refused, resolve_choice

if TYPE_CHECKING:
    from sim.play.board import SeatBoard

#: seconds the game thread waits on the queue before it looks whether the table was closed
POLL_S = 0.2
#: seconds a page's move request waits for the game's verdict
VERDICT_S = 10.0
#: the most log lines a snapshot carries (the latest; a long game's first ones are dropped)
MAX_LOG = 400
#: the most 3-D pages of passes kept in memory (the latest; each is about a megabyte)
MAX_TURN_PAGES = 40
#: seconds between two drawings of the board while the agents move (the person's turn and the end
#: are always drawn): the frames are rebuilt from the whole history each time
BOARD_EVERY_S = 0.3


def _one_per_seat(steps: Sequence[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """``steps`` with each simultaneous step (recorded as ``(SIMULTANEOUS, ((seat, action), ...))``)
    split into one step per seat, so each seat's action goes through ``step_text`` (which hides
    what the observer may not know); a simultaneous step recorded otherwise stays one step, shown
    without its content."""
    out: list[tuple[int, Any]] = []
    for s, a in steps:
        if s == SIMULTANEOUS and isinstance(a, tuple) and all(
                isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], int) for x in a):
            out.extend(a)
        else:
            out.append((s, a))
    return out


class SeatLog:
    """The steps of the game as the person in ``seat`` may read them, identical chance steps in a
    row counted together ("a card is drawn" x 5)."""

    def __init__(self, view: SeatView, seat: int, labels: Sequence[str]) -> None:
        self.view = view
        self.seat = seat
        self.labels = list(labels)
        self.entries: list[dict[str, Any]] = []
        self._seen = 0

    def who(self, seat: int) -> str:
        """``seat 1 (random)``, ``you`` or ``chance``."""
        if seat == CHANCE:
            return "chance"
        if seat == self.seat:
            return "you"
        return f"seat {seat} ({self.labels[seat]})"

    def update(self, state: State) -> list[dict[str, Any]]:
        """Add the steps applied since the last call; returns the entries added or changed."""
        hist = state.history()
        new = hist[self._seen:]
        self._seen = len(hist)
        if not new:
            return []
        obs = state.observation(self.seat)
        changed: list[dict[str, Any]] = []
        for s, a in _one_per_seat(new):
            text = self.view.step_text(s, a, obs) if s != SIMULTANEOUS else "every seat chose at once"
            last = self.entries[-1] if self.entries else None
            if last is not None and s == CHANCE and last["seat"] == "chance" and last["text"] == text:
                last["count"] += 1
                if last not in changed:
                    changed.append(last)
                continue
            entry = {"n": len(self.entries) + 1, "seat": "chance" if s == CHANCE else s, "who": self.who(s),
                     "text": text, "count": 1}
            self.entries.append(entry)
            changed.append(entry)
        return changed

    @staticmethod
    def line(entry: dict[str, Any]) -> str:
        """``seat 1 (random): Place(c=3)``, with `` (x5)`` for a repeated chance step."""
        times = f" (x{entry['count']})" if entry["count"] > 1 else ""
        return f"{entry['who']}: {entry['text']}{times}"


class WebTable:
    """The browser page's channel (see the module docstring).

    Args:
        view: the game's seat view.
        seat: the person's seat.
        labels: per seat, its label ("you" for the person).
        title: the game's title.
        game: the game's registry name.
        board: the game's replay drawing of the position (:class:`sim.play.board.SeatBoard`); None:
            the seat view's text alone.
        turn_pages: the 3-D page of each pass of a game with physics passes (the Sun:
            ``sim.sun.viewer.play_turns.TurnPages``: ``done(state)``, ``capture(state)``,
            ``page(captured, turn)``); None: none. The pages are made in a thread of their own and
            served from memory (``GET /turn/<turn>``).
    """

    def __init__(self, view: SeatView, seat: int, labels: Sequence[str], title: str, game: str,
                 board: "SeatBoard | None" = None, turn_pages: Any = None) -> None:
        self.view = view
        self.seat = seat
        self.labels = list(labels)
        self.title = title
        self.game = game
        self.log = SeatLog(view, seat, labels)
        self._cond = threading.Condition()
        self._inbox: queue.Queue[tuple[int, int, int | str]] = queue.Queue()
        self._tickets = itertools.count(1)
        self._verdicts: dict[int, dict[str, Any]] = {}
        self._decision = 0  # the number of the decision being asked (0: none)
        self._legal: list[Action] = []
        self._asked: Any = None  # the observation of the decision asked (while _legal is not empty)
        self._risks: dict[str, dict[str, Any]] = {}
        self._state: State | None = None
        self._view: dict[str, Any] = {}
        self._to_move = "?"
        self._refusal: str | None = None
        self._finished: dict[str, Any] | None = None
        self._closed = False
        self.board = board
        self._board: dict[str, Any] | None = None
        self._board_error: str | None = None
        self._board_at = -1.0
        self.turn_pages = turn_pages
        self._turns_seen: dict[int, int] = {}  # turn -> seat, every pass noticed
        self._turn_html: dict[int, bytes] = {}
        self._turn_failed: dict[int, str] = {}
        self._turn_jobs: queue.Queue[tuple[Any, int] | None] = queue.Queue()
        self._turn_worker: threading.Thread | None = None
        self.version = 0
        #: the version of the last snapshot served (the command ends once the end was seen)
        self.served = -1

    # --- the game thread ---------------------------------------------------------------------
    def observe(self, state: State, step: int) -> None:
        """``before_step`` of the play loop: what the person sees now."""
        with self._cond:
            self._state = state
            self.log.update(state)
            self._view = self.view.view(state.observation(self.seat))
            p = state.current_player()
            self._draw_board(state, p)
            self._note_passes(state)
            self._to_move = ("game over" if p == TERMINAL else "chance" if p == CHANCE
                             else "everyone at once" if p == SIMULTANEOUS else self.log.who(p))
            self._bump()

    def _draw_board(self, state: State, to_move: int) -> None:
        """The board of ``state`` for the page (see :mod:`sim.play.board`), drawn when the person is
        to decide, at the end, and otherwise at most every :data:`BOARD_EVERY_S` seconds."""
        if self.board is None or self._board_error is not None:
            return
        now = time.monotonic()
        mine = to_move == self.seat or to_move == TERMINAL or (
            to_move == SIMULTANEOUS and self.seat in state.simultaneous_seats())
        if not mine and self._board is not None and now - self._board_at < BOARD_EVERY_S:
            return
        try:
            self._board = self.board.frame(state)
        except Exception as e:  # noqa: BLE001 - the game goes on; the page falls back to the text view
            self._board_error = f"the board cannot be drawn ({type(e).__name__}: {e}); the position as text:"
            self._board = None
        self._board_at = now

    def _note_passes(self, state: State) -> None:
        """Queue the 3-D page of each pass not seen before (the recording is copied now, the page
        made in the pages' thread)."""
        if self.turn_pages is None:
            return
        new = [(t, s) for t, s in self.turn_pages.done(state) if t not in self._turns_seen]
        if not new:
            return
        captured = self.turn_pages.capture(state)
        for t, s in new:
            self._turns_seen[t] = s
            self._turn_jobs.put((captured, t))
        if self._turn_worker is None:
            self._turn_worker = threading.Thread(target=self._make_turn_pages, name="stonelab-play-3d", daemon=True)
            self._turn_worker.start()

    def _make_turn_pages(self) -> None:
        """The pages' thread: make each queued page, keep the latest :data:`MAX_TURN_PAGES`."""
        while True:
            job = self._turn_jobs.get()
            if job is None or self._closed:
                return
            captured, turn = job
            try:
                page = self.turn_pages.page(captured, turn)
            except Exception as e:  # noqa: BLE001 - the game goes on; the page says why there is no view
                with self._cond:
                    self._turn_failed[turn] = f"{type(e).__name__}: {e}"
                    self._bump()
                continue
            with self._cond:
                self._turn_html[turn] = page
                for old in sorted(self._turn_html)[:-MAX_TURN_PAGES]:
                    del self._turn_html[old]
                self._bump()

    def turn_page(self, turn: int) -> bytes | None:
        """The 3-D page of the pass of turn ``turn``, or None (not made, not yet, or dropped)."""
        with self._cond:
            return self._turn_html.get(turn)

    def choose(self, seat: int, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """Offer ``legal_actions`` on the page and wait for the person's choice (see
        :func:`sim.play.session.resolve_choice`); a refused one is said on the page and asked again.

        Raises:
            Abandoned: the table was closed (Ctrl-C, SIGTERM) before the person chose.
        """
        risks = self._risks_of(observation, legal_actions)
        with self._cond:
            self._decision += 1
            decision = self._decision
            self._legal = list(legal_actions)
            self._asked = observation
            self._risks = risks
            self._view = self.view.view(observation)
            self._refusal = None
            self._bump()
        while True:
            try:
                ticket, asked, choice = self._inbox.get(timeout=POLL_S)
            except queue.Empty:
                if self._closed:
                    raise Abandoned("the table was closed") from None
                continue
            with self._cond:
                if ticket < 0:  # close() wakes the game thread
                    raise Abandoned("the table was closed")
                if asked != decision:  # sent for a decision already taken (two clicks at once)
                    self._verdicts[ticket] = {"ok": False, "message": "that move was for an earlier position"}
                    self._cond.notify_all()
                    continue
                try:
                    action = resolve_choice(choice, self._legal, self._state, seat, self.view)
                except Refused as e:
                    self._refusal = str(e)
                    self._verdicts[ticket] = {"ok": False, "message": str(e)}
                    self._bump()
                    continue
                self._verdicts[ticket] = {"ok": True, "message": f"you play {action}"}
                self._legal = []
                self._refusal = None
                self._bump()
                return action

    def _risk(self, observation: Any, action: Action) -> dict[str, Any] | None:
        """The seat view's ``risk`` of ``action`` (a game whose view has one: the Sun's pass and
        stand), else None; a failure to measure it is no risk shown, never a stopped game."""
        risk = getattr(self.view, "risk", None)
        if risk is None:
            return None
        try:
            return risk(observation, action)
        except Exception:  # noqa: BLE001 - the page shows no warning rather than stopping the game
            return None

    def _risks_of(self, observation: Any, legal: Sequence[Action]) -> dict[str, dict[str, Any]]:
        """Each listed move's risk (:meth:`_risk`), by its text; moves without one are left out."""
        if getattr(self.view, "risk", None) is None:
            return {}
        out = {}
        for a in legal:
            r = self._risk(observation, a)
            if r is not None:
                out[str(a)] = r
        return out

    def finish(self, summary: str, stored: str) -> None:
        """The game ended and was stored (``summary``: the result in words; ``stored``: where)."""
        with self._cond:
            self._finished = {"summary": summary, "stored": stored}
            self._legal = []
            self._bump()

    def fail(self, message: str) -> None:
        """The game ended without being stored (``message`` says why)."""
        with self._cond:
            self._finished = {"summary": message, "stored": None}
            self._legal = []
            self._bump()

    def close(self) -> None:
        """End the wait of :meth:`choose` (it raises :class:`Abandoned`) and refuse further moves."""
        self._closed = True
        self._inbox.put((-1, 0, ""))
        self._turn_jobs.put(None)
        with self._cond:
            self._cond.notify_all()

    def _bump(self) -> None:
        self.version += 1
        self._cond.notify_all()

    # --- the server's threads ----------------------------------------------------------------
    def snapshot(self, after: int | None = None, wait_s: float = 0.0) -> dict[str, Any]:
        """What the page shows now (JSON-ready; nothing the person's seat may not know); with
        ``after``, first wait up to ``wait_s`` seconds for a version newer than ``after`` (the
        page's long poll: it sees the next position as soon as there is one)."""
        with self._cond:
            if after is not None and wait_s > 0:
                self._cond.wait_for(lambda: self.version > after or self._closed, timeout=wait_s)
            self.served = self.version
            asking = bool(self._legal) and self._finished is None
            return {
                "version": self.version, "game": self.game, "title": self.title, "seat": self.seat,
                "labels": self.labels, "to_move": self._to_move, "your_turn": asking,
                "decision": self._decision if asking else 0,
                "legal": [str(a) for a in self._legal] if asking else [],
                "risks": self._risks if asking else {},
                "refusal": self._refusal, "view": self._view, "board": self._board,
                "board_error": self._board_error,
                "turns_3d": [{"turn": t, "seat": s, "who": self.log.who(s),
                              "ready": t in self._turn_html, "failed": self._turn_failed.get(t)}
                             for t, s in sorted(self._turns_seen.items())],
                "log": self.log.entries[-MAX_LOG:], "finished": self._finished,
            }

    def read(self, text: str) -> dict[str, Any]:
        """What the page's typed ``text`` reads as, by the game's own parser (the short forms
        included: ``c3`` is ``Place(c=3)``): ``{"move": the listed move it is, or None,
        "read": the move as the parser read it, or None, "risk": what the move risks in the
        position asked (the seat view's ``risk``: the Sun's pass and stand), or None}``. The game is
        not asked anything."""
        try:
            action = self.view.parse(text)
        except Exception:  # noqa: BLE001 - any parser's refusal: the text reads as no move
            return {"move": None, "read": None, "risk": None}
        shown = str(action)
        with self._cond:
            legal = [str(a) for a in self._legal] if self._finished is None else []
            # measured under the lock: while a decision is asked the game thread waits and the
            # position does not change (choose() clears the list under this lock before it returns)
            risk = self._risks.get(shown) if shown in legal else (
                self._risk(self._asked, action) if legal and self._asked is not None else None)
        return {"move": shown if shown in legal else None, "read": shown, "risk": risk}

    def submit(self, decision: int, choice: int | str) -> dict[str, Any]:
        """A move from the page for decision number ``decision``: the game's verdict,
        ``{"ok": bool, "message": str}``, once the game thread has judged it.

        A move for another decision than the one asked (a page showing an old position), when no
        move is asked, or after the end, is refused without reaching the game.
        """
        with self._cond:
            if self._finished is not None or self._closed:
                return {"ok": False, "message": "the game is over"}
            if not self._legal:
                return {"ok": False, "message": "it is not your turn"}
            if decision != self._decision:
                return {"ok": False, "message": "the position has changed since this page asked; look again"}
            ticket = next(self._tickets)
            self._inbox.put((ticket, decision, choice))
            ok = self._cond.wait_for(lambda: ticket in self._verdicts or self._closed, timeout=VERDICT_S)
            if not ok or ticket not in self._verdicts:
                return {"ok": False, "message": "the game did not answer; try again"}
            return self._verdicts.pop(ticket)
