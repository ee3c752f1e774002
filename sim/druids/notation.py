"""Knizia's *Stonehenge*: reading a notation back into a state (every field checked). No I/O.

The text's grammar is in the module docstring of :mod:`sim.druids.rules`; the writer is
:meth:`sim.druids.rules.DruidsState.to_notation`.
"""

from __future__ import annotations

import re

from sim.core.errors import InputError
from sim.druids.geometry import LINE_INDEX, POINT_INDEX
from sim.druids.options import EARLY_MODES, TIE_LOSERS, DruidsOptions
from sim.druids.rules import Claim, DruidsState

_NOTATION_RE = re.compile(
    r"druids\|tie_loser=(?P<tie>[a-z_]+)\|early_domination=(?P<early>[a-z_]+)\|face_down=(?P<face>[01])"
    r"\|match_games=(?P<match>\d{1,4})\|done=(?P<done>[A-Za-z0-9.;]*)\|moves=(?P<moves>(?:[a-r][1-6])*)"
)
_CLAIM_RE = re.compile(r"([A-O])([01])([ef])(\d{1,2})")


def parse_notation(text: str) -> DruidsState:
    """Parse :meth:`DruidsState.to_notation` output.

    Raises:
        InputError: malformed text, unknown option value, or moves/records the rules forbid.
    """
    if not isinstance(text, str):
        raise InputError(f"notation must be a string, got {type(text).__name__}")
    m = _NOTATION_RE.fullmatch(text.strip())
    if m is None:
        raise InputError(f"not a druids notation: {text!r}")
    tie, early = m["tie"], m["early"]
    if tie not in TIE_LOSERS:
        raise InputError(f"tie_loser {tie!r} not one of {TIE_LOSERS}", key="tie_loser")
    if early not in EARLY_MODES:
        raise InputError(f"early_domination {early!r} not one of {EARLY_MODES}", key="early_domination")
    match_games = int(m["match"])
    if match_games < 1:
        raise InputError("match_games must be >= 1", key="match_games")
    records: list[tuple[Claim, ...]] = []
    if m["done"]:
        for game_text in m["done"].split(";"):
            claims = []
            for ct in game_text.split("."):
                cm = _CLAIM_RE.fullmatch(ct)
                if cm is None:
                    raise InputError(f"bad claim {ct!r} in {text!r}", key="done")
                claims.append((LINE_INDEX[cm[1]], int(cm[2]), cm[3] == "e", int(cm[4])))
            records.append(tuple(claims))
    mv = m["moves"]
    moves = [(POINT_INDEX[mv[i]], int(mv[i + 1])) for i in range(0, len(mv), 2)]
    options = DruidsOptions.from_rules(
        {"tie_loser": tie, "early_domination": early, "face_down": m["face"] == "1", "match_games": match_games}
    )  # ScenarioError (an InputError) for a match longer than the option allows
    return DruidsState.from_parts(options, records, moves)
