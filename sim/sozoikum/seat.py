"""Sozoikum for a person at the table (``stonelab play``): the round one seat sees, as data and as
text, and the moves typed in the game's notation. No I/O.

Everything is computed from the seat's :class:`~sim.sozoikum.rules.SozoikumObservation`: the
other seats' bluff fists stay hidden, and so do their fists and sealed bids in the log.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from sim.core.errors import InputError
from sim.sozoikum.actions import (
    CARDS, FIRE, Ally, Announce, Bid, BuildChoice, Challenge, Dumno, Fist, Pass, Pick, Place, PlayCard, Reply, Sealed,
    Setup, Tiger, Veto,
)
from sim.sozoikum.options import GATHERING_RULES
from sim.sozoikum.physics import ROLES
from sim.sozoikum.position import SozoikumObservation
from sim.sozoikum.rules import SozoikumState

_N = r"(\d{1,4})"
_S = r"s?(\d{1,4})"
#: the typed forms, as the moves are listed (``str`` of each action), matched without case or spaces
_FORMS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Any]], ...] = tuple(
    (re.compile(p), f) for p, f in (
        (r"setup\(cards=(on|off),rule=([a-z]+)\)", lambda m: Setup(m[1] == "on", m[2])),
        (r"play\(([a-z]+)\)", lambda m: PlayCard(m[1])),
        (rf"veto\(seat{_N}\)", lambda m: Veto(int(m[1]))),
        (rf"tiger\({_S}fromseat{_N}\)", lambda m: Tiger(int(m[2]), int(m[1]))),
        (rf"dumno\({_S}fromfire\)", lambda m: Dumno(FIRE, int(m[1]))),
        (rf"dumno\({_S}fromseat{_N}\)", lambda m: Dumno(int(m[2]), int(m[1]))),
        (rf"bid\({_N}\)", lambda m: Bid(int(m[1]))),
        (rf"ally\(\+?{_N}\)", lambda m: Ally(int(m[1]))),
        (r"accept", lambda m: Reply(True)),
        (r"refuse", lambda m: Reply(False)),
        (r"pass", lambda m: Pass()),
        (rf"sealed\({_N}\)", lambda m: Sealed(int(m[1]))),
        (rf"fist\({_N}\)", lambda m: Fist(int(m[1]))),
        (rf"announce\({_N}\)", lambda m: Announce(int(m[1]))),
        (r"challenge", lambda m: Challenge(True)),
        (r"nochallenge", lambda m: Challenge(False)),
        (rf"pick\({_S}\)", lambda m: Pick(int(m[1]))),
        (r"build", lambda m: BuildChoice(True)),
        (r"nobuild", lambda m: BuildChoice(False)),
        (rf"place\(([a-z0-9]+)={_S}\)", lambda m: Place(_role(m[1]), int(m[2]))),
    )
)


def _role(text: str) -> str:
    """A role as the rules spell it (``A1`` .. ``roof``) from its lower-case form."""
    for r in ROLES:
        if r.lower() == text:
            return r
    return text


def _stones(ids: tuple[int, ...]) -> str:
    return " ".join(f"s{i}" for i in ids) or "none"


class SozoikumSeat:
    """The :class:`sim.core.human.SeatView` of Sozoikum."""

    def parse(self, text: str) -> Any:
        """One of the forms the moves are listed in, e.g. ``Play(camp)``, ``Bid(3)``, ``Pick(s4)``,
        ``Place(A1=s3)`` (any case, spaces ignored).

        Raises:
            InputError: none of the forms.
        """
        t = "".join(text.lower().split())
        for pattern, make in _FORMS:
            m = pattern.fullmatch(t)
            if m is not None:
                return make(m)
        raise InputError(f"{text.strip()[:40]!r} is not a move: write it as the moves are listed, e.g. "
                         f"'Play({CARDS[0]})', 'Bid(3)', 'Pass', 'Pick(s4)', 'Place(A1=s3)', "
                         f"'Setup(cards=on, rule={GATHERING_RULES[0]})'")

    def step_text(self, seat: int, action: Any, observation: SozoikumObservation) -> str:
        """The action as listed; another seat's bluff fist and sealed bid are ``?``."""
        if seat != observation.seat and isinstance(action, Fist):
            return "Fist(?)"
        if seat != observation.seat and isinstance(action, Sealed):
            return "Sealed(?)"
        return str(action)

    def view(self, obs: SozoikumObservation) -> dict[str, Any]:
        """The round, the fire, each seat's stones, gems and cards, and the text view."""
        n = obs.num_players
        hidden = SozoikumState.HIDDEN
        seats = [{"seat": s, "stones": list(obs.reserve[s]), "gems": obs.gems[s], "oneshots": obs.oneshots[s],
                  "played": obs.played[s] if s < len(obs.played) else "-",
                  "fist": None if obs.fists[s] == hidden else obs.fists[s], "fist_hidden": obs.fists[s] == hidden,
                  "announced": obs.ann[s], "attempts": obs.attempts[s], "collapses": obs.collapses[s]}
                 for s in range(n)]
        return {"game": "sozoikum", "seat": obs.seat, "round": obs.round, "start": obs.start, "phase": obs.phase,
                "fire": list(obs.fire), "mine": obs.mine, "fresh": obs.fresh, "seats": seats,
                "rule": obs.rule, "cards_on": obs.cards_on, "text": self.text(obs)}

    def text(self, obs: SozoikumObservation) -> str:
        """The round as lines of text."""
        hidden = SozoikumState.HIDDEN
        out = [f"you are seat {obs.seat}; round {obs.round}, start seat {obs.start}, phase {obs.phase}"
               + (f", gathering by {obs.rule}" if obs.rule else "") + (", cards on" if obs.cards_on else ""), ""]
        out.append(f"fire: {_stones(obs.fire)}; mine: {obs.mine} gems; bag: {obs.fresh} new stones"
                   + (f" and {_stones(obs.back)}" if obs.back else ""))
        out.append("")
        for s in range(obs.num_players):
            who = " (you)" if s == obs.seat else ""
            fist = obs.fists[s]
            extra = []
            if s < len(obs.played) and obs.played[s] not in ("-", ""):
                extra.append(f"played {obs.played[s]}")
            if fist is not None:
                extra.append("fist ?" if fist == hidden else f"fist {fist}")
            if obs.ann[s] is not None:
                extra.append(f"announced {obs.ann[s]}")
            out.append(f"seat {s}{who}: stones {_stones(obs.reserve[s])}; {obs.gems[s]} gems; one-shot cards "
                       f"{obs.oneshots[s] or 'none'}; houses tried {obs.attempts[s]}, fallen {obs.collapses[s]}"
                       + (f"; {', '.join(extra)}" if extra else ""))
        if obs.log:
            out.append("")
            for rnd, s, ids, stood, _d, _seed in obs.log:
                out.append(f"round {rnd}: seat {s} built {_stones(ids)}: {'it stood' if stood else 'it fell'}")
        return "\n".join(out)


#: the one instance the plug-in names
SEAT = SozoikumSeat()
