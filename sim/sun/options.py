"""The rule options of *Stonehenge and the Sun* and :class:`SunRules`, their validated, typed, read-only form. No I/O.

docs/rules-sun.md explains each option and what the rules decided beyond the rule text. A scenario's
``[rules]`` table is checked against :data:`RULE_OPTIONS` by the game (``sim.sun.game``); a state
holds its options as one :class:`SunRules` and reads them as attributes (``state.rules.mode``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.core.options import Option, RuleOptions

__all__ = ["RULE_DEFAULTS", "RULE_OPTIONS", "SunRules"]

#: Rule options (scenario table ``[rules]``).
RULE_OPTIONS: tuple[Option, ...] = (
    Option("mode", str, "standard", "standard: one marker per player; orbit: two opposite markers, "
           "the pass goes through both mark areas", choices=("standard", "orbit")),
    Option("field", str, "open", "open: the player picks the shape; random: a stone is drawn at random",
           choices=("open", "random")),
    Option("placement_fall", str, "retry", "a placed stone that does not stand: retry (back to where it "
           "came from, choose again) or penalty (it becomes the player's penalty)", choices=("retry", "penalty")),
    Option("max_place_attempts", int, 4, "failed placements in one turn after which the stone in hand "
           "becomes a penalty (bounds the game)", min=1, max=100),
    Option("free_first_turn", str, "every_seat", "whose first turn has no marker move: every seat's own "
           "first turn, or only the game's first turn", choices=("every_seat", "first_only")),
    Option("marker_change", str, "new_stone", "what 'change your mark area' requires after a stand or stack: "
           "new_stone: the new area must have the stone just stood as one of its ends (after a stack beside "
           "your own area you may keep that area, now bounded by the stack); new_gap: it must also be a "
           "different gap from the area at the start of the turn (stacks then need a passable gap on the "
           "stack's other side)", choices=("new_stone", "new_gap")),
    Option("level_tolerance", float, 0.002, "largest height difference (m) of a gate's two supports",
           min=0.0, max=0.05),
)
RULE_DEFAULTS: dict[str, Any] = {o.name: o.default for o in RULE_OPTIONS}


@dataclass(frozen=True)
class SunRules(RuleOptions, options=RULE_OPTIONS):
    """The rule options of one game, validated (:data:`RULE_OPTIONS` holds each one's meaning,
    default and allowed values): ``SunRules.from_rules(table)``, read as attributes, as the other
    games read theirs (:class:`sim.core.options.RuleOptions`)."""

    mode: str
    field: str
    placement_fall: str
    max_place_attempts: int
    free_first_turn: str
    marker_change: str
    level_tolerance: float
