"""The typed forms the README and the pages' hints show are the forms the parsers read:
each example is read by its game's seat view into the move it names, and the Sun's typed pass is
one the rules accept for its release (it was read as aim 470.1 deg, and 0.12 m is under a hand span).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim.games import REGISTRY
from sim.play.session import seat_view

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
