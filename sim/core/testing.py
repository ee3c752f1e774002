"""The generic invariant check every game passes (after OpenSpiel's ``random_sim_test``).

:func:`random_sim_test` plays a seeded random game and checks at every step: legal actions apply,
an illegal action raises :class:`IllegalActionError` and leaves the state unchanged, ``clone()`` is
equal and independent, the notation round-trips, observations are reproduced by
``Game.determinize``, returns stay in [0, 1] and sum to 1 at the end. It is used by
``tests/test_generic_games.py`` and by each game's own tests.

:func:`store_results` reads what two runs of one seeded study must share (every stored row but
timings, the software version, what played each game and where the study ran): the backend, resume and golden tests
compare it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from sim.core.errors import IllegalActionError
from sim.core.game import SIMULTANEOUS, Game, GameConfig, State
from sim.core.play import StepCapReached, play_random


class InvariantError(AssertionError):
    """A game broke an interface invariant; the message names the step and the notation."""


@dataclass(frozen=True)
class _Foreign:
    """An action no game accepts."""

    def __str__(self) -> str:
        return "Foreign()"


def _fail(step: int, state: State, what: str) -> InvariantError:
    return InvariantError(f"step {step}: {what}; state {state.to_notation()!r}")


def random_sim_test(
    game: Game,
    config: GameConfig,
    seed: int,
    *,
    max_steps: int = 100_000,
    check_every: int = 1,
) -> State:
    """Play one random game from ``config`` with ``seed`` and check invariants.

    Args:
        check_every: run the expensive checks (clone, notation, determinize) every k-th step.

    Returns:
        The terminal state.

    Raises:
        InvariantError: an invariant failed (the message says which, and where).
    """
    rng = np.random.default_rng(seed)

    def check(state: State, step: int) -> None:
        for s in _to_act(state):
            if not state.legal_actions(s):
                raise _fail(step, state, f"seat {s} to move has no legal action")
        if step % check_every == 0:
            _check_state(game, state, step, rng)

    try:
        # every seat picks uniformly with the one stream, and chance draws from it too
        played = play_random(game, config, rng, max_steps=max_steps, before_step=check)
    except StepCapReached:
        raise InvariantError(f"game did not end within {max_steps} steps") from None
    state, step = played.state, played.steps
    out = state.outcome()
    if out is None:
        raise _fail(step, state, "terminal state has no outcome")
    r = state.returns()
    if len(r) != state.num_players or any(not 0.0 <= x <= 1.0 for x in r) or abs(sum(r) - 1.0) > 1e-9:
        raise _fail(step, state, f"terminal returns {r} not in [0, 1] summing to 1")
    if len(out.scores) != state.num_players or any(w not in range(state.num_players) for w in out.winners):
        raise _fail(step, state, f"outcome {out} does not fit {state.num_players} seats")
    return state


def _to_act(state: State) -> list[int]:
    """The seats asked for an action now: the seat to move, or every seat of a simultaneous step."""
    p = state.current_player()
    return [p] if p >= 0 else list(state.simultaneous_seats()) if p == SIMULTANEOUS else []


def _check_state(game: Game, state: State, step: int, rng: np.random.Generator) -> None:
    notation = state.to_notation()
    # clone: equal and independent
    twin = state.clone()
    if twin.to_notation() != notation or twin != state:
        raise _fail(step, state, "clone() differs from the state")
    if check := (not state.is_terminal() and state.current_player() >= 0):
        legal = twin.legal_actions()
        if legal:
            twin.apply_action(legal[0])
            if state.to_notation() != notation:
                raise _fail(step, state, "applying an action to a clone changed the original")
    # notation round trip
    back = game.from_notation(notation)
    if back.to_notation() != notation:
        raise _fail(step, state, f"notation does not round-trip: got {back.to_notation()!r}")
    # returns bounded while running too
    r = state.returns()
    if any(not 0.0 <= x <= 1.0 for x in r):
        raise _fail(step, state, f"returns {r} out of [0, 1]")
    if state.is_terminal():
        return
    for s in _to_act(state):
        obs = state.observation(s)
        det = game.determinize(obs, rng)
        if det.observation(s) != obs:
            raise _fail(step, state, f"determinize(observation({s})) does not reproduce the observation")
        if sorted(map(str, det.legal_actions(s))) != sorted(map(str, state.legal_actions(s))):
            raise _fail(step, state, f"determinized state offers seat {s} other legal actions")
    if check:
        # an action no game accepts must raise IllegalActionError and change nothing
        try:
            state.apply_action(_Foreign())
        except IllegalActionError:
            pass
        else:
            raise _fail(step, state, "a foreign action was accepted")
        if state.to_notation() != notation:
            raise _fail(step, state, "a rejected action changed the state")


#: columns that measure time on this machine, name the software version or say what played the game
#: (its maths path and code fingerprint, which differ between machines by design): not results
VOLATILE_COLUMNS = frozenset({"wall_s", "physics_wall_s", "version", "math_path", "code_fingerprint"})
#: meta rows that depend on where the study ran, not on what it computed
VOLATILE_META = frozenset({"source", "scenario_json", "version"})


class StoredTable(NamedTuple):
    """One table of a store as :func:`store_results` reads it."""

    columns: list[str]
    rows: list[list[Any]]


def store_results(db: str | Path) -> dict[str, StoredTable]:
    """Every table of a store (``results.sqlite`` or its run folder), opened read-only: its columns
    and its rows sorted by ``repr``, without :data:`VOLATILE_COLUMNS` and the
    :data:`VOLATILE_META` rows of ``meta``. Tables are in name order.

    Raises:
        sqlite3.Error: no readable store there.
    """
    path = Path(db)
    if path.is_dir():
        path = path / "results.sqlite"
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out: dict[str, StoredTable] = {}
        for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
            cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")') if r[1] not in VOLATILE_COLUMNS]
            rows = [list(r) for r in con.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{t}"')]
            if t == "meta":
                rows = [r for r in rows if r[0] not in VOLATILE_META]
            rows.sort(key=repr)
            out[t] = StoredTable(cols, rows)
        return out
    finally:
        con.close()
