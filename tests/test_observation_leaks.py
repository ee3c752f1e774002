"""Observations leak nothing and show a seat its own secrets, for every registered game.

For every game whose spec declares ``hidden_information``, on positions of seeded random games:

- **no leak**: re-dealing only what seat ``s`` cannot see (``Game.determinize`` of ``s``'s own
  observation: the other seats' hands, face-down stones, fists and the draw pile are redrawn) leaves
  ``s``'s observation unchanged, while some redraw does change what another seat sees (so the
  redraw really moved hidden information and the check is not vacuous);
- **own secrets seen**: re-dealing from another seat's point of view (which redraws ``s``'s hidden
  information) changes ``s``'s observation at some position.

Every game's observation is also a typed value (a dataclass), not a string. The checks are shown to
fail on a small hidden-card game with a leaky, a blind and a string observation, and on every
registered hidden-information game whose observation is made to carry the full state.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
import pytest

from sim.core.agents import RANDOM
from sim.core.errors import InputError
from sim.core.game import CHANCE, TERMINAL, Game, GameConfig, GameSpec, Outcome, State, Termination
from sim.core.play import play_random
from sim.games import REGISTRY, game_names, get_game



def _slow(name: str) -> bool:
    """Physics-backed games are expensive per step: their plug-in says so (``slow``)."""
    plugin = REGISTRY.find(name)
    return plugin is not None and plugin.slow

#: Redraws per seat and position.
REDRAWS = 3
#: Positions kept per random game (evenly spaced over the game).
POSITIONS = 20


def _hidden_games() -> list[str]:
    return [n for n in game_names() if get_game(n).spec.hidden_information]


def _configs(game: Game) -> Iterator[GameConfig]:
    """Every seat count with default rules, then every yes/no rule flipped at the fewest seats (the
    variants that hide more, such as the druids' face-down stones, are yes/no rules)."""
    spec = game.spec
    for n in range(spec.min_players, spec.max_players + 1):
        yield game.config(n)
    for opt in spec.options:
        if opt.type is bool:
            yield game.config(spec.min_players, **{opt.name: not opt.default})


def _positions(game: Game, config: GameConfig, seed: int) -> list[State]:
    """About POSITIONS copies of the states of one seeded random game, from start to end."""
    seen: list[State] = []
    play_random(game, config, np.random.default_rng(seed), before_step=lambda st, _step: seen.append(st.clone()))
    every = max(1, len(seen) // POSITIONS)
    return seen[::every] + [seen[-1]]


@dataclass
class Tally:
    """What the checks saw: (position, seat) pairs checked, and redraws from a seat's view that
    changed another seat's view."""

    checked: int = 0
    others_moved: int = 0


def check_position(game: Game, state: State, rng: np.random.Generator, tally: Tally) -> None:
    """Redraw the hidden information of ``state`` from every seat's point of view.

    Raises:
        AssertionError: a seat's observation changed although only other seats' hidden
            information was redrawn (the message names the seat and the position).
    """
    n = state.num_players
    views = [state.observation(s) for s in range(n)]
    for s in range(n):
        for _ in range(REDRAWS):
            redrawn = game.determinize(views[s], rng)
            assert redrawn.observation(s) == views[s], (
                f"seat {s}'s observation changed when only other seats' hidden information was redrawn; "
                f"position {state.to_notation()!r}, redrawn {redrawn.to_notation()!r}")
            moved = [o for o in range(n) if o != s and redrawn.observation(o) != views[o]]
            tally.others_moved += bool(moved)
        tally.checked += 1


def check_game(game: Game, configs: list[GameConfig], seeds: range) -> Tally:
    """:func:`check_position` on positions of seeded random games of every config.

    Raises:
        AssertionError: a leak (see :func:`check_position`), no redraw ever moved another seat's
            view (nothing hidden was found to redraw), or no seat ever saw its own redrawn secret.
    """
    tally = Tally()
    rng = np.random.default_rng(99)
    for config in configs:
        for seed in seeds:
            for state in _positions(game, config, seed):
                check_position(game, state, rng, tally)
    assert tally.checked > 0
    assert tally.others_moved > 0, (
        f"{game.spec.name}: redrawing from a seat's point of view never changed another seat's observation "
        f"in {tally.checked} positions x seats: nothing hidden was redrawn, or every seat sees it all")
    return tally


def check_own_secrets(game: Game, configs: list[GameConfig], seeds: range) -> int:
    """Count the positions where redrawing from seat ``o``'s view changes seat ``s``'s observation
    (``s`` != ``o``): ``s`` sees its own hidden information.

    Raises:
        AssertionError: no seat ever saw its own hidden information change.
    """
    rng = np.random.default_rng(7)
    seen = 0
    for config in configs:
        for seed in seeds:
            for state in _positions(game, config, seed):
                n = state.num_players
                for o in range(n):
                    redrawn = game.determinize(state.observation(o), rng)
                    seen += any(redrawn.observation(s) != state.observation(s) for s in range(n) if s != o)
    assert seen > 0, f"{game.spec.name}: no seat ever saw its own hidden information change when it was redrawn"
    return seen


def _is_typed(observation: Any) -> bool:
    return dataclasses.is_dataclass(observation) and not isinstance(observation, type)


def check_typed(game: Game) -> None:
    """The observation of every seat along a short random game is a dataclass instance.

    Raises:
        AssertionError: an observation is a string or another untyped value.
    """
    config = game.config(game.spec.min_players)
    for state in _positions(game, config, 5)[:4]:
        for s in range(state.num_players):
            obs = state.observation(s)
            assert _is_typed(obs), f"{game.spec.name}: observation of seat {s} is a {type(obs).__name__}, not a dataclass"


# --- the registered games -------------------------------------------------------------------------
def _hidden_params() -> list[Any]:
    return [pytest.param(n, id=n, marks=[pytest.mark.slow] if _slow(n) else []) for n in _hidden_games()]


@pytest.mark.parametrize("name", _hidden_params())
def test_redrawing_other_seats_secrets_leaves_an_observation_unchanged(name: str) -> None:
    game = get_game(name)
    check_game(game, list(_configs(game)), range(3))


@pytest.mark.parametrize("name", _hidden_params())
def test_a_seat_sees_its_own_hidden_information(name: str) -> None:
    game = get_game(name)
    check_own_secrets(game, list(_configs(game)), range(3))


def _typed_params() -> list[Any]:
    out = []
    for n in game_names():
        marks: list[Any] = [pytest.mark.slow] if _slow(n) else []
        out.append(pytest.param(n, id=n, marks=marks))
    return out


@pytest.mark.parametrize("name", _typed_params())
def test_every_observation_is_a_dataclass(name: str) -> None:
    check_typed(get_game(name))


def test_at_least_one_registered_game_hides_information() -> None:
    """Otherwise the leak checks above would run on nothing."""
    assert _hidden_games()


# --- the checks can fail --------------------------------------------------------------------------
@dataclass(frozen=True)
class _WithTruth:
    """An honest observation with the full state's notation appended: a leak of every secret."""

    seen: Any
    truth: str


class _LeakyGame:
    """A registered game whose states' observations carry the full notation (see fixture below)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.spec = game.spec

    def config(self, num_players: int, **rules: Any) -> GameConfig:
        return self.game.config(num_players, **rules)

    def new_initial_state(self, config: GameConfig) -> State:
        return self.game.new_initial_state(config)

    def determinize(self, observation: _WithTruth, rng: np.random.Generator) -> State:
        return self.game.determinize(observation.seen, rng)  # what an honest search would read


@pytest.mark.parametrize("name", _hidden_params())
def test_the_leak_check_fails_on_an_observation_that_carries_the_state(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game(name)
    config = game.config(game.spec.min_players)
    state_type = type(game.new_initial_state(config))
    honest = state_type.observation
    monkeypatch.setattr(state_type, "observation", lambda self, seat: _WithTruth(honest(self, seat), self.to_notation()))
    with pytest.raises(AssertionError, match="observation changed when only other seats"):
        check_game(_LeakyGame(game), list(_configs(game)), range(3))  # type: ignore[arg-type]


# A two-seat hidden-card game: chance deals each seat a card from 1..6 (without replacement), then
# seat 0 and seat 1 each say "stay" once; the higher card wins. Its observations are the subject.
CARDS = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class CardView:
    seat: int
    own: int  # 0 while not dealt
    dealt: int  # cards dealt so far (public)
    said: int  # "stay"s said so far (public)


class HighCardEnd(Termination):
    """How a game of high card ends."""

    SHOWN = "normal"  # both seats stayed: the higher card wins


class HighCard(State):
    def __init__(self, cards: tuple[int, ...] = (), said: int = 0) -> None:
        self.num_players = 2
        self.cards = cards
        self.said = said

    def current_player(self) -> int:
        return CHANCE if len(self.cards) < 2 else self.said if self.said < 2 else TERMINAL

    def legal_actions(self, seat: int | None = None) -> list[Any]:
        return ["stay"] if self.current_player() >= 0 and seat in (None, self.said) else []

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        left = [c for c in CARDS if c not in self.cards]
        return [(c, 1.0 / len(left)) for c in left]

    def apply_action(self, action: Any) -> None:
        if self.current_player() == CHANCE and action in dict(self.chance_outcomes()):
            self.cards += (action,)
        elif action in self.legal_actions():
            self.said += 1
        else:
            raise self._illegal(action)

    def outcome(self) -> Outcome | None:
        if not self.is_terminal():
            return None
        return Outcome(HighCardEnd.SHOWN, (int(self.cards[1] > self.cards[0]),), tuple(float(c) for c in self.cards))

    def observation(self, seat: int) -> Any:
        return CardView(seat, self.cards[seat] if len(self.cards) > seat else 0, len(self.cards), self.said)

    def clone(self) -> "HighCard":
        return type(self)(self.cards, self.said)

    def history(self) -> list[tuple[int, Any]]:
        return [(CHANCE, c) for c in self.cards] + [(s, "stay") for s in range(self.said)]

    def to_notation(self) -> str:
        return f"{self.cards}/{self.said}"


class HighCardGame(Game):
    spec = GameSpec("highcard", "High card", 2, 2, has_chance=True, hidden_information=True, terminations=HighCardEnd)
    agents = {"random": RANDOM}
    state_type: type[HighCard] = HighCard

    def new_initial_state(self, config: GameConfig) -> State:
        return self.state_type()

    def from_notation(self, text: str) -> State:
        raise InputError("not needed here")

    def determinize(self, observation: Any, rng: np.random.Generator) -> State:
        """The observer's card kept, the other dealt card drawn from the rest."""
        if not isinstance(observation, CardView):
            raise InputError(f"not a high-card observation: {type(observation).__name__}")
        mine = observation.own
        others = [c for c in CARDS if c != mine]
        cards = [mine if s == observation.seat else int(rng.choice(others)) for s in range(observation.dealt)]
        return self.state_type(tuple(cards), observation.said)


@dataclass(frozen=True)
class LeakyView(CardView):
    other: int  # the opponent's card: the leak


class LeakyHighCard(HighCard):
    """Shows the opponent's card too."""

    def observation(self, seat: int) -> Any:
        other = self.cards[1 - seat] if len(self.cards) > 1 - seat else 0
        return LeakyView(seat, self.cards[seat] if len(self.cards) > seat else 0, len(self.cards), self.said, other)


class BlindHighCard(HighCard):
    """Never shows a seat its own card."""

    def observation(self, seat: int) -> Any:
        return CardView(seat, 0, len(self.cards), self.said)


class StringHighCard(HighCard):
    def observation(self, seat: int) -> Any:
        return str(super().observation(seat))


def _card_game(state_type: type[HighCard]) -> HighCardGame:
    game = HighCardGame()
    game.state_type = state_type
    return game


def test_the_honest_card_game_passes_every_check() -> None:
    game = _card_game(HighCard)
    configs = [game.config(2)]
    tally = check_game(game, configs, range(4))
    assert tally.others_moved > 0 and check_own_secrets(game, configs, range(4)) > 0
    check_typed(game)


def test_the_checks_fail_on_a_leaky_observation() -> None:
    game = _card_game(LeakyHighCard)
    with pytest.raises(AssertionError, match="observation changed when only other seats"):
        check_game(game, [game.config(2)], range(4))


def test_the_checks_fail_on_an_observation_blind_to_its_own_card() -> None:
    game = _card_game(BlindHighCard)
    with pytest.raises(AssertionError, match="no seat ever saw its own hidden information change"):
        check_own_secrets(game, [game.config(2)], range(4))


def test_the_checks_fail_on_a_string_observation() -> None:
    game = _card_game(StringHighCard)
    with pytest.raises(AssertionError, match="not a dataclass"):
        check_typed(game)
