"""Knizia's *Stonehenge*: the rule options (scenario table ``[rules]``) and :class:`DruidsOptions`,
their validated, frozen form that the rules, the agents and the notation read. No I/O.

``docs/rules-druids.md`` explains each option.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.options import Option, RuleOptions

#: who loses a tie on a full line
TIE_LOSERS: tuple[str, ...] = ("last_placer", "first_placer")
#: when a line that is not full may be claimed
EARLY_MODES: tuple[str, ...] = ("tie_rule", "strict", "off")

OPTIONS: tuple[Option, ...] = (
    Option(
        "tie_loser",
        str,
        "last_placer",
        "who loses a full line on equal totals: the seat that placed last on it (the rule text) or first",
        choices=TIE_LOSERS,
    ),
    Option(
        "early_domination",
        str,
        "tie_rule",
        "claiming before a line is full: 'tie_rule' (opponent's best equal total loses if the tie rule "
        "goes against them; the rule text's example), 'strict' (best total must be lower), 'off'",
        choices=EARLY_MODES,
    ),
    Option("face_down", bool, False, "variant: stones face down until a line through them is full; no early claims"),
    Option("match_games", int, 1, "games in a match (loser notes its remaining megaliths; lowest total wins)", min=1, max=99),
)

#: early-claim levels of :attr:`DruidsOptions.early_level`
EARLY_OFF, EARLY_TIE_RULE, EARLY_STRICT = 0, 1, 2


@dataclass(frozen=True)
class DruidsOptions(RuleOptions, options=OPTIONS):
    """The validated rule options of a druid game or match (build with :meth:`from_rules`)."""

    tie_loser: str
    early_domination: str
    face_down: bool
    match_games: int

    @property
    def tie_last(self) -> bool:
        """Whether the seat that placed last on a full line loses a tie on it (else the first)."""
        return self.tie_loser == "last_placer"

    @property
    def early_level(self) -> int:
        """How lines that are not full are claimed: :data:`EARLY_OFF`, :data:`EARLY_TIE_RULE` or
        :data:`EARLY_STRICT`. The face-down variant has no early claims whatever the option says."""
        if self.face_down:
            return EARLY_OFF
        return {"tie_rule": EARLY_TIE_RULE, "strict": EARLY_STRICT, "off": EARLY_OFF}[self.early_domination]
