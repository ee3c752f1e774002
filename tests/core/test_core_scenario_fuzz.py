"""Fuzzing scenario files with hypothesis: any input either loads or raises ScenarioError (an
InputError the CLI turns into exit code 2) - never another exception."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.core.errors import ScenarioError
from sim.core.registry import Registry
from sim.core.scenario import scenario_from_dict

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 2000), st.floats(allow_nan=True), st.text(max_size=8),
    st.sampled_from(["race", "random", "mcts", "serial", "process", "dask"]),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)
keys = st.sampled_from(["game", "games", "seed", "backend", "workers", "out", "name", "rules", "seats", "sweep", "bogus"])
good_seat = st.fixed_dictionaries(
    {"agent": st.sampled_from(["random", "mcts", "ismcts"])},
    optional={"iterations": st.integers(1, 50), "handicap": st.integers(0, 5), "exploration": st.floats(0, 10),
              "name": st.text(max_size=5)},
)
good = st.fixed_dictionaries(
    {"game": st.just("race"), "seats": st.lists(good_seat, min_size=2, max_size=3)},
    optional={
        "games": st.integers(1, 100), "seed": st.integers(0, 2**32), "workers": st.integers(0, 8),
        "backend": st.sampled_from(["serial", "process", "dask"]),
        "rules": st.fixed_dictionaries({}, optional={"target": st.integers(1, 1000), "coin": st.booleans()}),
        "sweep": st.dictionaries(st.sampled_from(["rules.target", "seats.0.iterations", "seats.1.handicap"]),
                                 st.lists(st.integers(1, 5), min_size=1, max_size=3), min_size=1, max_size=2),
    },
)


@st.composite
def mutated(draw: st.DrawFn) -> dict:
    """A valid scenario with one key somewhere replaced, added or removed."""
    raw = draw(good)
    where = draw(st.sampled_from(["top", "rules", "seat", "sweep"]))
    if where == "top":
        raw[draw(keys)] = draw(values)
    elif where == "rules":
        raw.setdefault("rules", {})[draw(st.sampled_from(["target", "coin", "other"]))] = draw(values)
    elif where == "seat":
        raw["seats"][0][draw(st.sampled_from(["agent", "iterations", "handicap", "exploration", "x"]))] = draw(values)
    else:
        raw["sweep"] = {draw(st.sampled_from(["rules.target", "seats.9.iterations", "seed", "x.y", "seats.0"])): draw(values)}
    return raw


scenario = st.one_of(good, mutated(), st.dictionaries(keys, values, max_size=5))


REGISTRY = Registry({"race": "toy_game:GAME"})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=scenario)
def test_any_scenario_loads_or_raises_scenario_error(raw: dict) -> None:
    registry = REGISTRY
    try:
        sc = scenario_from_dict(raw, registry, source="fuzz.toml")
    except ScenarioError as e:
        assert "fuzz.toml" in str(e)
        return
    # what loads is fully valid: a config a state can start from, points that validate
    sc.points(registry)
    assert registry.get(sc.game).new_initial_state(sc.config()) is not None
