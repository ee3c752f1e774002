"""RuleOptions: a game's rule options as one frozen, typed object, validated once per rule set."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from sim.core.errors import ScenarioError
from sim.core.options import Option, RuleOptions

OPTIONS = (
    Option("target", int, 10, "total that wins", min=1, max=1000),
    Option("coin", bool, False, "a coin may add 1"),
    Option("modes", list, ["a", "b"], "modes on offer", item_type=str),
)


@dataclass(frozen=True)
class Opts(RuleOptions, options=OPTIONS):
    target: int
    coin: bool
    modes: tuple[str, ...]


def test_defaults_filled_in_and_lists_held_as_tuples() -> None:
    o = Opts.from_rules({"target": 12})
    assert (o.target, o.coin, o.modes) == (12, False, ("a", "b"))
    assert o.as_rules() == {"target": 12, "coin": False, "modes": ["a", "b"]}
    assert Opts.from_rules(o.as_rules()) == o and hash(Opts.from_rules(o.as_rules())) == hash(o)


def test_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Opts.from_rules({}).target = 3  # type: ignore[misc]


@pytest.mark.parametrize("rules, key", [({"target": 0}, "rules.target"), ({"colour": 1}, "rules.colour"),
                                        ({"coin": 1}, "rules.coin"), ({"modes": [1]}, "rules.modes")])
def test_bad_values_name_the_key(rules: dict, key: str) -> None:
    with pytest.raises(ScenarioError) as e:
        Opts.from_rules(rules)
    assert e.value.key == key


def test_a_valid_set_is_cached_but_an_equal_looking_bad_one_is_not() -> None:
    assert Opts.from_rules({"coin": True}) is Opts.from_rules({"coin": True})
    # True == 1 and hash(True) == hash(1): the cache must still refuse an integer for a boolean
    with pytest.raises(ScenarioError):
        Opts.from_rules({"coin": 1})


def test_fields_must_name_the_options_in_order() -> None:
    with pytest.raises(TypeError, match="must name the options"):
        @dataclass(frozen=True)
        class Wrong(RuleOptions, options=OPTIONS):
            coin: bool
            target: int
            modes: tuple[str, ...]
