"""``stonelab play --tui``: the game in the terminal, on plain standard input and output.

Before each of the person's decisions the position is printed as the game's text view, then the
legal moves numbered; a line read is a move's number or a move typed in the game's notation. A
refused move prints the rule's reason and asks again. The other seats' steps are printed as they
happen, as the person's seat may see them. No cursor control, so a test (or a script) can drive it
through a pipe; text from files (labels) goes through :func:`sim.core.console.plain`.
"""

from __future__ import annotations

from typing import Any, Sequence, TextIO

from sim.core.console import plain
from sim.core.game import Action, State
from sim.core.human import Abandoned, SeatView
from sim.play.session import Refused, resolve_choice
from sim.play.table import SeatLog

#: the longest input line read (a longer one is refused whole)
MAX_LINE = 200


class TerminalTable:
    """The terminal's :class:`~sim.core.human.Channel`: reads ``stdin``, writes ``stdout``."""

    def __init__(self, view: SeatView, seat: int, labels: Sequence[str], stdin: TextIO, stdout: TextIO) -> None:
        self.view = view
        self.seat = seat
        self.log = SeatLog(view, seat, [plain(x) for x in labels])
        self.stdin = stdin
        self.stdout = stdout
        self._state: State | None = None

    def say(self, text: str = "") -> None:
        """Print a line (flushed: a pipe's reader sees it at once)."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def observe(self, state: State, step: int) -> None:
        """``before_step`` of the play loop: print the steps applied since the last call."""
        self._state = state
        for entry in self.log.update(state):
            if entry["seat"] != self.seat:
                self.say("  " + SeatLog.line(entry))

    def choose(self, seat: int, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """Print the position and the numbered moves; read lines until one names a legal move.

        Raises:
            Abandoned: standard input ended first.
        """
        self.say("")
        self.say(self.view.view(observation)["text"])
        self.say("")
        self.say("your moves:")
        width = len(str(len(legal_actions)))
        for i, a in enumerate(legal_actions, 1):
            self.say(f"  {i:>{width}}. {a}")
        while True:
            self.stdout.write(f"your move (1-{len(legal_actions)} or as written): ")
            self.stdout.flush()
            line = self.stdin.readline(MAX_LINE + 1)
            if not line:
                raise Abandoned("standard input ended")
            if len(line) > MAX_LINE and not line.endswith("\n"):
                self.stdin.readline()  # drop the rest of the over-long line
                self.say(f"refused: a move is one line of at most {MAX_LINE} characters")
                continue
            try:
                action = resolve_choice(line.strip(), legal_actions, self._state, seat, self.view)
            except Refused as e:
                self.say(f"refused: {plain(str(e))}")
                continue
            self.say(f"you play {action}")
            return action
