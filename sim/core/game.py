"""The shared game interface (OpenSpiel's semantics, python-chess's ergonomics).

Every game folder provides a :class:`Game` (its spec, its agents, how to make a state, parse a
notation and determinize an observation) and a :class:`State` subclass. The runner, the agents in
``sim.core.agents``/``sim.core.mcts`` and the generic test suite use nothing else.

Turn order is exposed through :meth:`State.current_player`, which returns a seat (0-based) or
one of :data:`CHANCE`, :data:`SIMULTANEOUS`, :data:`TERMINAL`.

Actions are small frozen dataclasses with a readable ``str()``; they must be hashable and equal
by value, because search trees key on them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Callable, Hashable, Mapping, Protocol, Sequence

import numpy as np

from sim.core.errors import IllegalActionError, ScenarioError
from sim.core.options import Option, validate_options

#: ``current_player()`` value of a chance node: call :meth:`State.sample_chance`.
CHANCE = -1
#: ``current_player()`` value of a simultaneous step: every seat in
#: :meth:`State.simultaneous_seats` submits one action, applied with :meth:`State.apply_actions`.
SIMULTANEOUS = -2
#: ``current_player()`` value of a finished game.
TERMINAL = -4

Action = Hashable
"""Any hashable value object; by convention a frozen dataclass with a readable ``__str__``."""


class Termination(StrEnum):
    """The base of a game's declared endings (after python-chess's ``Termination``).

    A game subclasses it with one member per way its games can end and names the subclass in
    :attr:`GameSpec.terminations`; every :attr:`Outcome.termination` it reports is one of the
    members' values, which the generic test suite checks. Members are strings (``StrEnum``), so
    the store holds the value unchanged::

        class RaceEnd(Termination):
            REACHED = "normal"     # a seat brought the total to N

    :meth:`meanings` says in words what each ending is, for reports (a subclass overrides it;
    functions in an enum body are not members).
    """

    @classmethod
    def meanings(cls) -> dict[str, str]:
        """``{value: what the ending means, in a phrase}``; empty unless the game says."""
        return {}


#: The three ways a finished game can end, as :func:`outcome_kind` names them: the one definition of
#: a draw and a shared win that the store, the export, reports, compare, sensitivity and tournament
#: use (docs/store.md).
OUTCOME_KINDS: tuple[str, ...] = ("sole", "shared", "draw")


def outcome_kind(winners: Sequence[int]) -> str:
    """How a game with ``winners`` ended: ``"sole"`` (one winner), ``"shared"`` (a *shared win*:
    two or more seats win together) or ``"draw"`` (no seat wins). A shared win is not a draw."""
    n = len(winners)
    return "draw" if n == 0 else ("sole" if n == 1 else "shared")


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        termination: why it ended: a member of the game's declared :attr:`GameSpec.terminations`
            (e.g. ``RocksEnd.TURN_CAP``). Members are strings, so the store holds their values.
        winners: the winning seats; several seats mean a shared win, an empty tuple a draw.
        scores: one number per seat in the game's own units (points, penalties, megaliths...).

    Raises:
        TypeError: ``termination`` is not a :class:`Termination` member (a bare string would
            let an undeclared ending reach the store unnoticed).
    """

    termination: Termination
    winners: tuple[int, ...]
    scores: tuple[float, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.termination, Termination):
            raise TypeError(f"Outcome.termination must be a Termination member (the game's declared ending enum), "
                            f"got {self.termination!r}")

    def returns(self) -> tuple[float, ...]:
        """Per-seat returns in [0, 1] summing to 1: a sole winner gets 1, a k-way shared win 1/k
        each, a draw (no winner) 1/n each."""
        n = len(self.scores)
        if not self.winners:
            return tuple(1.0 / n for _ in range(n))
        share = 1.0 / len(self.winners)
        return tuple(share if s in self.winners else 0.0 for s in range(n))

    @property
    def is_draw(self) -> bool:
        """True when no seat won (:func:`outcome_kind`; a shared win is not a draw)."""
        return outcome_kind(self.winners) == "draw"

    @property
    def is_shared(self) -> bool:
        """True when two or more seats won together (:func:`outcome_kind`)."""
        return outcome_kind(self.winners) == "shared"


@dataclass(frozen=True)
class Column:
    """A typed column of a per-game result table in the store (SQLite type affinity)."""

    name: str
    sqltype: str  # "INTEGER", "REAL" or "TEXT"
    doc: str = ""


@dataclass(frozen=True)
class GameConfig:
    """Everything a state needs to start: validated by the scenario loader.

    Attributes:
        num_players: number of seats.
        rules: the validated rule options (``[rules]`` of a scenario), defaults filled in.
        sections: validated extra scenario tables the game declares (e.g. ``physics``).
        seats: per seat, the validated seat options the game declares (e.g. a thrower's skill).
        game_index: the game's index in its study, set by the runner (None outside a study). Rules
            never depend on it; it lets a game decide per-game bookkeeping such as which games
            keep replay frames.
    """

    num_players: int
    rules: Mapping[str, Any] = field(default_factory=dict)
    sections: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    seats: tuple[Mapping[str, Any], ...] = ()
    game_index: int | None = None


class Agent(Protocol):
    """A policy for one seat. It sees an observation and the legal actions, never the state."""

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """Return one of ``legal_actions`` (or, for continuous games, any valid action)."""
        ...


def require_legal_actions(seat: int, legal_actions: Sequence[Action]) -> None:
    """The guard an :class:`Agent`'s ``act`` starts with: an agent asked to move with nothing to choose
    from is a bug of the caller (a terminal or chance state), said with the seat.

    Raises:
        ValueError: ``legal_actions`` is empty.
    """
    if not legal_actions:
        raise ValueError(f"seat {seat}: no legal action to choose from")


AgentFactory = Callable[..., Agent]
"""``factory(game=Game, seat=int, rng=np.random.Generator, config=GameConfig, **params) -> Agent``"""


@dataclass(frozen=True)
class AgentSpec:
    """A named agent a scenario seat can ask for, with its validated parameters."""

    name: str
    factory: AgentFactory = field(compare=False)
    options: tuple[Option, ...] = ()
    doc: str = ""
    #: a check of the validated parameters that needs the game: ``(game, params) -> (key, message)``
    #: of the first problem, or None; the scenario loader turns a problem into a ScenarioError
    check: Callable[["Game", Mapping[str, Any]], tuple[str, str] | None] | None = field(default=None, compare=False)

    def build(self, game: "Game", params: Mapping[str, Any], *, seat: int, rng: np.random.Generator,
              config: GameConfig, key: str | None = None) -> Agent:
        """This agent for ``seat`` with ``params`` validated (defaults filled in) and checked.

        ``key`` names the parameters in errors (default ``seats[<seat>]``).

        Raises:
            ScenarioError: a parameter is unknown or out of range, or the agent's check fails.
        """
        where = f"seats[{seat}]" if key is None else key
        checked = validate_options(params, self.options, prefix=where)
        problem = self.check(game, checked) if self.check else None
        if problem:
            raise ScenarioError(problem[1], key=f"{where}.{problem[0]}")
        return self.factory(game=game, seat=seat, rng=rng, config=config, **checked)


@dataclass(frozen=True)
class GameSpec:
    """Static facts about a game and the options a scenario may set.

    Attributes:
        name: registry name (``druids``, ``rocks``, ``sun``, ``sozoikum``).
        title: the published title.
        min_players, max_players: allowed seat counts.
        has_chance: whether chance nodes occur.
        hidden_information: whether observations hide something.
        simultaneous: whether simultaneous steps occur.
        options: the rule options (scenario table ``[rules]``).
        sections: further scenario tables the game accepts, each a tuple of options.
        seat_options: per-seat keys besides ``agent`` (e.g. ``skill``).
        result_columns: per-game columns stored in table ``<name>_games``.
        detail_tables: per-game row tables stored as ``<name>_<table>`` (e.g. the Sun's passes).
        check: a check of a whole validated config, for what one option alone cannot tell (e.g. the
            Sun's ring outside its base): ``config -> (key, message)`` of the first problem, or
            None; the scenario loader turns a problem into a ScenarioError naming the file.
        terminations: the declared ways a game ends (a :class:`Termination` subclass); every
            finished game's ``Outcome.termination`` is one of its values.
        score_unit: what a seat's final score (``Outcome.scores``) counts, as the report and
            ``stonelab compare`` word it, e.g. ``"points"`` or ``"penalty stones, fewer wins"``.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    has_chance: bool = False
    hidden_information: bool = False
    simultaneous: bool = False
    options: tuple[Option, ...] = ()
    sections: Mapping[str, tuple[Option, ...]] = field(default_factory=dict)
    seat_options: tuple[Option, ...] = ()
    result_columns: tuple[Column, ...] = ()
    detail_tables: Mapping[str, tuple[Column, ...]] = field(default_factory=dict)
    check: Callable[["GameConfig"], tuple[str, str] | None] | None = field(default=None, compare=False)
    terminations: type[Termination] = Termination
    score_unit: str = "points"

    def termination_values(self) -> frozenset[str]:
        """The declared termination strings (empty when the game declares none)."""
        return frozenset(t.value for t in self.terminations)

    def default_rules(self) -> dict[str, Any]:
        """The rule options with their defaults."""
        return {o.name: o.default for o in self.options}


@dataclass
class GameDetails:
    """What a finished game adds to the store beyond the common columns.

    ``columns`` fills the game's ``result_columns``; ``rows`` maps a detail-table name to its rows.
    """

    columns: dict[str, Any] = field(default_factory=dict)
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


class State(ABC):
    """A game position. Subclasses implement the abstract methods; the rest is shared.

    Contract checked by the generic test suite (tests/test_generic_games.py): legal actions apply
    without error, ``clone()`` is equal and independent, the notation round-trips, returns are in
    [0, 1], observations are consistent with :meth:`Game.determinize`, and the same seed replays
    the same game.
    """

    #: number of seats; set by subclasses
    num_players: int

    # --- turn structure -------------------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The seat to move, or CHANCE, SIMULTANEOUS or TERMINAL."""

    @abstractmethod
    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Legal actions of ``seat`` (default: the seat to move). Empty when it cannot act.

        At a chance node this lists nothing unless the game enumerates chance outcomes.
        """

    @abstractmethod
    def apply_action(self, action: Action) -> None:
        """Apply one action of the seat to move (or a chance outcome at a chance node).

        Raises:
            IllegalActionError: the action is not legal here; the state is unchanged.
        """

    def apply_actions(self, joint: Mapping[int, Action]) -> None:
        """Apply one action per seat at a SIMULTANEOUS step.

        Raises:
            IllegalActionError: a seat is missing, extra, or its action is illegal.
        """
        raise IllegalActionError(joint, SIMULTANEOUS, self.to_notation(), "no simultaneous steps in this game")

    def simultaneous_seats(self) -> tuple[int, ...]:
        """Seats that must act at a SIMULTANEOUS step (empty otherwise)."""
        return ()

    # --- chance ---------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """Discrete chance outcomes and their probabilities at a chance node (may be empty for
        continuous chance; then :meth:`sample_chance` is overridden)."""
        return []

    def sample_chance(self, rng: np.random.Generator) -> Action:
        """Draw one chance outcome with ``rng`` (the game's chance stream)."""
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise RuntimeError(f"{type(self).__name__} at a chance node lists no outcomes")
        if len(outcomes) == 1:
            return outcomes[0][0]
        probs = np.fromiter((p for _, p in outcomes), dtype=float, count=len(outcomes))
        i = int(rng.choice(len(outcomes), p=probs / probs.sum()))
        return outcomes[i][0]

    # --- end ------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        """True when the game is over."""
        return self.current_player() == TERMINAL

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The outcome of a finished game, None while it runs."""

    def returns(self) -> tuple[float, ...]:
        """Per-seat returns in [0, 1] (see :meth:`Outcome.returns`); zeros while running."""
        out = self.outcome()
        return out.returns() if out is not None else tuple(0.0 for _ in range(self.num_players))

    # --- information ----------------------------------------------------------------------
    @abstractmethod
    def observation(self, seat: int) -> Any:
        """What ``seat`` may know: an immutable, comparable value. Never leaks hidden information."""

    @abstractmethod
    def clone(self) -> "State":
        """An independent deep copy."""

    @abstractmethod
    def history(self) -> list[tuple[int, Action]]:
        """Every applied action so far as ``(seat or CHANCE, action)``, in order."""

    @abstractmethod
    def to_notation(self) -> str:
        """A compact text that :meth:`Game.from_notation` turns back into an equal state."""

    def provisional_scores(self) -> tuple[float, ...] | None:
        """Who is ahead now, per seat, higher is better (points, megaliths, minus penalties...).

        Used for Browne's drama and decisiveness measures (lead changes, when the final winner
        takes a lasting lead). Return None where the game has no meaningful running score.
        """
        return None

    def length(self) -> int:
        """Number of non-chance actions applied (the game's length in the store)."""
        return sum(1 for seat, _ in self.history() if seat != CHANCE)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and type(other) is type(self) and other.to_notation() == self.to_notation()

    def __hash__(self) -> int:
        return hash(self.to_notation())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.to_notation()!r}>"

    def _illegal(self, action: Action, reason: str = "", seat: int | None = None) -> IllegalActionError:
        """Build the error for an illegal action (raise it, after leaving the state unchanged)."""
        return IllegalActionError(action, self.current_player() if seat is None else seat, self.to_notation(), reason)


class Game(ABC):
    """A game as the registry serves it: spec, agents, and state constructors."""

    spec: GameSpec
    #: agent name -> spec; every game has at least "random"
    agents: Mapping[str, AgentSpec]

    @abstractmethod
    def new_initial_state(self, config: GameConfig) -> State:
        """The starting position for a validated config."""

    @abstractmethod
    def from_notation(self, text: str) -> State:
        """Parse :meth:`State.to_notation` output.

        Raises:
            InputError: the text is not a valid notation of this game.
        """

    @abstractmethod
    def determinize(self, observation: Any, rng: np.random.Generator) -> State:
        """A full state consistent with ``observation``, hidden parts sampled with ``rng``.

        For perfect-information games this is exact. Search agents (MCTS, ISMCTS) plan on it.
        """

    def details(self, state: State) -> GameDetails:
        """Per-game columns and detail rows for the store (override to fill result_columns)."""
        return GameDetails()

    def config(self, num_players: int, **rules: Any) -> GameConfig:
        """A config with default rules (overridden by ``rules``), for tests and notebooks.

        Raises:
            ScenarioError: a rule option is unknown or out of range.
        """
        return GameConfig(
            num_players=num_players,
            rules=validate_options(rules, self.spec.options, prefix="rules"),
            sections={name: validate_options({}, opts, prefix=name) for name, opts in self.spec.sections.items()},
            seats=tuple(validate_options({}, self.spec.seat_options) for _ in range(num_players)),
        )
