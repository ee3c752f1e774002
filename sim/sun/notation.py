"""The Sun's notation: a state as ``sun:`` + compact JSON, exact (``repr`` floats), and back. No I/O.

The notation holds the configuration that differs from the defaults (rule options, sections, seats),
the phase and turn, every stone (its role, what it rests on, its exact pose), the markers' exact
angles, the penalties and the pending action: everything needed to rebuild the state and continue bit
for bit (the table is stateless: it is handed the bodies at every call). :func:`write` makes it,
:func:`read` parses it; ``SunState.to_notation`` and ``SunState.parse`` call them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping

from sim.core.errors import InputError
from sim.sun.actions import action_from_json, action_to_json
from sim.sun.endings import SunEnd
from sim.sun.position import BASE, FIELD, GATE, OUT, PHASES, TOP

if TYPE_CHECKING:
    from sim.sun.rules.state import SunState

__all__ = ["read", "write"]


def write(state: SunState) -> str:
    """``sun:`` + compact JSON: non-default config, phase, stones (role, support, exact pose),
    markers (exact angles), penalties."""
    d = state.DEFAULTS
    cfg: dict[str, Any] = {"n": state.num_players}
    rules = {k: v for k, v in state.rules.as_rules().items() if d["rules"].get(k, object()) != v}
    if rules:
        cfg["r"] = rules
    secs = {}
    for k, v in state.sections.items():
        dv = d["sections"].get(k, {})
        diff = {kk: vv for kk, vv in v.items() if dv.get(kk, object()) != vv}
        if diff:
            secs[k] = diff
    if secs:
        cfg["x"] = secs
    seats = [{k: v for k, v in c.items() if d["seats"].get(k, object()) != v} for c in state.seat_cfg]
    if any(seats):
        cfg["s"] = seats
    st = []
    for i, r in enumerate(state.role):
        if r == FIELD:
            continue
        if r == OUT:
            st.append([i, r, state.owner[i]])
        else:
            st.append([i, r, list(state.sup.get(i, ())), *state.pose[i]])
    body: dict[str, Any] = {
        "c": cfg, "p": state.phase, "t": state.turn, "m": state.seat, "a": state.attempts,
        "k": state.markers, "f": [int(x) for x in state.played], "st": st,
    }
    if state.pending is not None:
        body["q"] = action_to_json(state.pending)
    if state.drawn >= 0:
        body["d"] = state.drawn
    if state.placed >= 0:
        body["pl"] = state.placed
    if any(x is not None for x in state.area_before):
        body["b"] = [list(x) if x else None for x in state.area_before]
    if state.over:
        body["o"] = state.over
    if state.forced or state.moved:
        body["fm"] = [int(state.forced), int(state.moved)]
    return "sun:" + json.dumps(body, separators=(",", ":"))


def read(text: str, build: Any, defaults: Mapping[str, Any]) -> SunState:
    """Parse :func:`write`. ``build(num_players, rules, sections, seats)`` returns a new
    state of the right configuration (with its table), whose fields are then overwritten; ``defaults``
    are the configuration values :func:`write` omitted (the state class's ``DEFAULTS``).

    Raises:
        InputError: malformed notation.
    """
    if not isinstance(text, str) or not text.startswith("sun:"):
        raise InputError("a sun notation starts with 'sun:'")
    try:
        body = json.loads(text[4:])
        cfg = body["c"]
        d = defaults
        n = int(cfg["n"])
        rules = {**d["rules"], **cfg.get("r", {})}
        sections = {k: {**v, **cfg.get("x", {}).get(k, {})} for k, v in d["sections"].items()}
        for k, v in cfg.get("x", {}).items():
            sections.setdefault(k, dict(v))
        seats_raw = cfg.get("s", [{} for _ in range(n)])
        seats = [{**d["seats"], **x} for x in seats_raw]
        s: SunState = build(n, rules, sections, seats)
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
        s.sup, s.pose, s.owner = {}, {}, {}
        for e in body["st"]:
            i, r = int(e[0]), e[1]
            if not 0 <= i < len(s.role) or r not in (BASE, TOP, GATE, OUT):
                raise ValueError(f"bad stone entry {e!r}")
            s.role[i] = r
            if r == OUT:
                s.owner[i] = int(e[2])
            else:
                if e[2]:
                    s.sup[i] = tuple(int(x) for x in e[2])
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
        s.cache.invalidate()
    except InputError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
        raise InputError(f"malformed sun notation: {e}") from None
    return s
