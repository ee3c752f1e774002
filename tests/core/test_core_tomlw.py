"""The TOML writer against the standard library's reader: what it writes reads back equal."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from sim.core.tomlw import to_toml, toml_value

scalars = st.one_of(st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=False, allow_infinity=True), st.text(max_size=20))


@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), scalars, max_size=6))
def test_values_read_back_equal(d: dict) -> None:
    text = "\n".join(f"{k} = {toml_value(v)}" for k, v in d.items())
    assert tomllib.loads(text) == d


def test_a_scenario_reads_back_equal() -> None:
    d = {"name": 'a "quoted" name', "games": 3, "seed": 1.0, "flag": True,
         "rules": {"mode": "orbit", "x.y": [1, 2]}, "seats": [{"agent": "careful", "skill": "steady"}, {"agent": "r"}]}
    assert tomllib.loads(to_toml(d)) == d
