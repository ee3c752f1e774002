"""The typed forms the README, docs/ and the pages' hints show are the forms the parsers read, and
moves a person can play: each example is read by its game's seat view into the move it
names, the Sun's typed pass is one the rules accept for its release (it was read as aim 470.1 deg,
and 0.12 m is under a hand span), and every example is played in a live game of the engine, typed
through the play page's own path (``resolve_choice``) at a position where it is legal.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.core.game import State
from sim.core.play import play
from sim.core.scenario import load_scenario
from sim.games import REGISTRY
from sim.play.session import Refused, resolve_choice, seat_view

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")

#: every typed example the README shows for `stonelab play`, with its game and the move it names
EXAMPLES = [
    ("druids", "Place(c=3)", "Place(c=3)"),
    ("druids", "c3", "Place(c=3)"),
    ("rocks", "move 4 by 10", None),
    ("sozoikum", "Bid(3)", "Bid(3)"),
    ("sun", "Stand(pillar at 123.5 deg)", "Stand(pillar at 123.50 deg)"),
    ("sun", "pass 47 0.3", "Pass(aim 47.00 deg, release 0.300 m)"),
]


def test_the_readme_shows_these_examples_and_no_other() -> None:
    play = README[README.index("stonelab play scenarios/druids/classic.toml"):README.index("## Scenarios")]
    shown = set(re.findall(r"`((?:Place|Bid|Stand|Pass|move|pass|c\d)[^`]*)`", play))
    assert shown == {text for _, text, _ in EXAMPLES}, shown


@pytest.mark.parametrize("game, text, named", EXAMPLES)
def test_each_example_reads_as_the_move_it_names(game: str, text: str, named: str | None) -> None:
    action = seat_view(REGISTRY, game).parse(text)
    if named is not None:
        assert str(action) == named
    # the move as listed reads back as itself
    assert seat_view(REGISTRY, game).parse(str(action)) == action


def test_the_suns_hints_read_as_legal_releases() -> None:
    """Every short form in the Sun's hints (the page shows them) reads as the move it spells out,
    and a pass's release is one the rules allow (from a hand span to the longest reach)."""
    from sim.sun import seat as sun_seat
    from sim.sun.rules import SunState

    seat = seat_view(REGISTRY, "sun")
    forms = re.findall(r"'([^']+)'", " ".join(sun_seat._HINTS.values()))
    assert "pass 47 0.3" in forms and "stand pillar 123.5" in forms, forms
    geom = SunState.new(2).geom  # the table's geometry: the bounds the rules check a release against
    for text in forms:
        action = seat.parse(text)
        numbers = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]
        if type(action).__name__ == "Pass":
            assert (action.aim, action.release) == tuple(numbers), text
            assert geom.min_release <= action.release <= geom.max_release, text
        else:
            assert action.angle == numbers[0], text


@pytest.mark.parametrize("typed, aim, release", [("pass 47 0.12", 47.0, 0.12), ("pass 200 0.25", 200.0, 0.25),
                                                 ("pass 200, 0.25", 200.0, 0.25), ("PASS  47   0.3 ", 47.0, 0.3),
                                                 ("pass 47 deg 0.3 m", 47.0, 0.3), ("pass47,0.3", 47.0, 0.3)])
def test_the_suns_short_pass_keeps_its_numbers_apart(typed: str, aim: float, release: float) -> None:
    action = seat_view(REGISTRY, "sun").parse(typed)
    assert (action.aim, action.release) == (aim, release)


#: the text a seat view is asked to parse to get its hint (its refusal names the forms it reads)
_NOT_A_MOVE = "not a move at all"


def _hints(game: str) -> list[str]:
    """The forms a game's page shows when a typed text is no move (its parser's refusal, which the
    page shows as it is), and the Sun's phase hints."""
    try:
        seat_view(REGISTRY, game).parse(_NOT_A_MOVE)
    except Exception as e:  # noqa: BLE001 - any parser's refusal
        out = [t for t in re.findall(r"'([^']+)'", str(e)) if t != _NOT_A_MOVE]
    else:
        raise AssertionError(f"{game} reads {_NOT_A_MOVE!r} as a move")
    if game == "sun":
        from sim.sun import seat as sun_seat

        out += re.findall(r"'([^']+)'", " ".join(sun_seat._HINTS.values()))
    return out


def _docs_examples() -> dict[str, set[str]]:
    """The typed moves docs/howto.md shows in its "Play a game" section, by the game they belong to
    (docs/howto.md's examples are druids' unless they name another game's forms)."""
    text = (ROOT / "docs" / "howto.md").read_text(encoding="utf-8")
    play_part = text[text.index("stonelab play scenarios/druids/classic.toml --seat 1"):text.index("## Sharing a replay")]
    shown = set(re.findall(r"`((?:Place|Bid|Stand|Pass|move|pass|c\d)[^`]*)`", play_part))
    out: dict[str, set[str]] = {}
    for t in shown:
        game = "sun" if t.startswith(("Stand", "Pass", "pass")) else "rocks" if t.startswith("move") else "druids"
        out.setdefault(game, set()).add(t)
    return out


#: per game, the scenarios whose games are searched for a position where each example is legal
#: (Sozoikum's bids, passes and set-up are in its auction variant); the Sun's games are the rules'
#: own on their scripted table (no PyBullet: a gate over two given stones needs many games)
_SCENARIOS = {"druids": ["druids/classic.toml"], "rocks": ["rocks/greedy-vs-random.toml"],
              "sozoikum": ["sozoikum/bluff.toml", "sozoikum/auction.toml"], "sun": []}


def _every_example(game: str) -> set[str]:
    readme = {text for g, text, _ in EXAMPLES if g == game}
    return readme | set(_hints(game)) | _docs_examples().get(game, set())


def _play_examples(game: str, wanted: set[str], budget_s: float) -> dict[str, tuple[str, str]]:
    """Play games of the game's scenarios (random agents, the engine's chance) in which, at each
    decision, the first example still unplayed that the play page would accept there (typed,
    ``resolve_choice``: listed, or taken by the rules) is played instead of a random move.
    Returns, per example played, (the move played, the move its parser reads)."""
    view = seat_view(REGISTRY, game)
    g = REGISTRY.get(game)
    todo = set(wanted)
    played: dict[str, tuple[str, str]] = {}
    t0 = time.monotonic()
    for scenario in _SCENARIOS[game]:
        sc = load_scenario(ROOT / "scenarios" / scenario, REGISTRY)
        config = sc.config(sc.seating(0).seats)
        for seed in range(40):
            if not todo or time.monotonic() - t0 > budget_s:
                break
            rng = np.random.default_rng(seed)
            now: dict[str, State] = {}

            class Typist:
                def __init__(self, seat: int) -> None:
                    self.seat = seat

                def act(self, observation: Any, legal: Any) -> Any:
                    for text in sorted(todo):
                        try:
                            action = resolve_choice(text, legal, now["state"], self.seat, view)
                        except Refused:
                            continue
                        todo.discard(text)
                        played[text] = (str(action), str(view.parse(text)))
                        return action
                    return legal[int(rng.integers(len(legal)))]

            def before(state: State, step: int) -> None:
                now["state"] = state

            play(g, config, [Typist(i) for i in range(config.num_players)], rng, before_step=before)
    if game == "sun":
        from sim.sun.rules.state import SunState

        for seed in range(200):
            if not todo or time.monotonic() - t0 > budget_s:
                break
            rng = np.random.default_rng(seed)
            st = SunState.new(2)
            while not st.is_terminal():
                if st.current_player() < 0:
                    st.apply_action(st.sample_chance(rng))
                    continue
                legal = st.legal_actions()
                action = None
                for text in sorted(todo):
                    try:
                        action = resolve_choice(text, legal, st, st.current_player(), view)
                    except Refused:
                        continue
                    todo.discard(text)
                    played[text] = (str(action), str(view.parse(text)))
                    break
                st.apply_action(action if action is not None else legal[int(rng.integers(len(legal)))])
    return played


@pytest.mark.parametrize("game", ["druids", "rocks", "sozoikum", "sun"])
def test_every_typed_example_is_played_in_a_live_game(game: str) -> None:
    wanted = _every_example(game)
    assert len(wanted) >= 2, wanted
    t0 = time.monotonic()
    played = _play_examples(game, wanted, budget_s=120.0)
    assert set(played) == wanted, f"never legal in the games tried: {sorted(wanted - set(played))}"
    for text, (move, read) in played.items():
        assert move == read, (text, move, read)  # the move played is the one the text names
    print(f"{game}: {len(played)} typed examples played in {time.monotonic() - t0:.1f} s")
