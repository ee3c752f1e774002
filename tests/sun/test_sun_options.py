"""The Sun's rule options: one declaration (``RULE_OPTIONS``), one typed read-only form (``SunRules``)."""

from __future__ import annotations

import dataclasses

import pytest

from sim.core.errors import ScenarioError
from sim.sun.options import RULE_DEFAULTS, RULE_OPTIONS, SunRules
from sim.sun.rules.state import SunState


def test_sun_rules_has_one_field_per_declared_option_and_their_defaults() -> None:
    assert [f.name for f in dataclasses.fields(SunRules)] == [o.name for o in RULE_OPTIONS]
    assert SunRules.from_rules().as_rules() == RULE_DEFAULTS


def test_rules_are_read_only_and_checked() -> None:
    r = SunRules.from_rules({"mode": "orbit"})
    assert (r.mode, r.field) == ("orbit", "open")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.mode = "standard"  # type: ignore[misc]
    with pytest.raises(ScenarioError, match="mode"):
        SunRules.from_rules({"mode": "sideways"})
    with pytest.raises(ScenarioError, match="zzz"):
        SunRules.from_rules({"zzz": 1})


def test_a_state_reads_its_options_as_attributes_and_writes_only_changed_ones() -> None:
    s = SunState.new(2, {"field": "random"})
    assert s.rules.field == "random" and s.rules.mode == "standard"
    assert '"r":{"field":"random"}' in s.to_notation()
