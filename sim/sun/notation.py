"""The Sun's notation reader: ``sun:`` + compact JSON, exact (``repr`` floats), back to a state. No I/O.

The notation holds the configuration that differs from the defaults (rule options, sections, seats),
the phase and turn, every stone (its role, what it rests on, its exact pose), the markers' exact
angles, the penalties and the pending action: everything needed to rebuild the state and continue bit
for bit (the table is stateless: it is handed the bodies at every call). The state's
``to_notation()`` writes it (``sim.sun.rules.state.SunState.to_notation``); :func:`parse_notation`
reads it, as every game's notation module does.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Sequence

from sim.core.errors import InputError
from sim.sun.actions import action_from_json
from sim.sun.endings import SunEnd
from sim.sun.position import FIELD, GATE, OUT, PHASES, ROLE_OF_LETTER, STACK, STAND
from sim.sun.rules.state import SunState

__all__ = ["parse_notation"]

#: ``build(num_players, rules, sections, seats)``: a new state of that configuration (with its table)
Build = Callable[[int, Mapping[str, Any], Mapping[str, Mapping[str, Any]], Sequence[Mapping[str, Any]]], SunState]


def _new_state(n: int, rules: Mapping[str, Any], sections: Mapping[str, Mapping[str, Any]],
               seats: Sequence[Mapping[str, Any]]) -> SunState:
    """A state of the rules alone (the scripted table): what :func:`parse_notation` builds by default."""
    return SunState.new(n, rules, sections=sections, seat_cfg=seats)


def parse_notation(text: str, *, build: Build = _new_state, defaults: Mapping[str, Any] | None = None) -> SunState:
    """Parse ``SunState.to_notation``. ``build(num_players, rules, sections, seats)`` returns a new
    state of the right configuration (the game's builds it on the PyBullet table), whose position is
    then overwritten; ``defaults`` are the configuration values the writer omitted (the state
    class's ``DEFAULTS``; by default :attr:`SunState.DEFAULTS`).

    Raises:
        InputError: malformed notation.
    """
    d = SunState.DEFAULTS if defaults is None else defaults
    if not isinstance(text, str) or not text.startswith("sun:"):
        raise InputError("a sun notation starts with 'sun:'")
    try:
        body = json.loads(text[4:])
        cfg = body["c"]
        n = int(cfg["n"])
        rules = {**d["rules"], **cfg.get("r", {})}
        sections = {k: {**v, **cfg.get("x", {}).get(k, {})} for k, v in d["sections"].items()}
        for k, v in cfg.get("x", {}).items():
            sections.setdefault(k, dict(v))
        seats_raw = cfg.get("s", [{} for _ in range(n)])
        seats = [{**d["seats"], **x} for x in seats_raw]
        made = build(n, rules, sections, seats)
        s = made.position
        if body["p"] not in PHASES:
            raise ValueError(f"unknown phase {body['p']!r}")
        s.phase = body["p"]
        s.turn = int(body["t"])
        s.seat = int(body["m"])
        s.attempts = int(body["a"])
        s.markers = [[float(a) for a in ms] for ms in body["k"]]
        s.played = [bool(x) for x in body["f"]]
        if len(s.markers) != n or len(s.played) != n or not 0 <= s.seat < n:
            raise ValueError("markers, seats and players disagree")
        s.role = [FIELD] * len(s.shapes)
        s.on, s.pose, s.owner = {}, {}, {}
        for e in body["st"]:
            i, r = int(e[0]), ROLE_OF_LETTER.get(e[1]) if isinstance(e[1], str) else None
            if not 0 <= i < len(s.role) or r not in (STAND, STACK, GATE, OUT):
                raise ValueError(f"bad stone entry {e!r}")
            s.role[i] = r
            if r == OUT:
                s.owner[i] = int(e[2])
            else:
                if e[2]:
                    s.on[i] = tuple(int(x) for x in e[2])
                pose = tuple(float(v) for v in e[3:])
                if len(pose) != 7:
                    raise ValueError(f"pose of #{i} needs 7 numbers")
                s.pose[i] = pose
        s.pending = action_from_json(body["q"]) if "q" in body else None
        s.drawn = int(body.get("d", -1))
        s.placed = int(body.get("pl", -1))
        s.area_before = [tuple(x) if x else None for x in body.get("b", [None] * n)]
        # SunEnd(...) raises ValueError for an unknown ending
        s.over = SunEnd(body["o"]) if body.get("o") else ""
        s.forced, s.moved = (bool(x) for x in body.get("fm", [0, 0]))
        made.cache.invalidate()
    except InputError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
        raise InputError(f"malformed sun notation: {e}") from None
    return made
