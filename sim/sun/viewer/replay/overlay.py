"""The rules' view in a replay (``TurnEvent.rules``, docs/replay-format.md): checked on load, told in
words, and the colours and meanings the viewers draw it with.

The view is recorded from the rules' own objects (``sim.sun.rules.pass_view``); this module never
decides anything the rules decide. :func:`check_rules_view` refuses a malformed view (a replay
file is input like any other) before a viewer reads it; :func:`rules_lines` tells it in words for
the event panel; :data:`LEGEND` names every mark the viewers draw.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping

from sim.core.errors import ReplayError
from sim.sun.geometry.palette import AIM_COLOUR, BLOCKED_COLOUR, PASSABLE_COLOUR, SEAT_COLOURS

#: The string from its suspension point to the ball.
STRING_COLOUR = "#303030"
#: A penalty stone that toppled (and the colour of any penalty stone where no cause is known).
PENALTY_COLOUR = "#e02424"
#: Where the ball actually left the hand (the aim and release with the thrower's error).
RELEASE_COLOUR = "#f5f5f5"
#: A penalty stone, by the cause the rules recorded (any other cause: :data:`OTHER_PENALTY_COLOUR`).
CAUSE_COLOURS: dict[str, str] = {"toppled": PENALTY_COLOUR, "pushed_off": "#d946ef", "fell_from_support": "#7c3aed",
                                 "fell": "#f97316"}
OTHER_PENALTY_COLOUR = "#991b1b"
#: How the event panel and the labels name each cause.
CAUSE_WORDS: dict[str, str] = {"toppled": "toppled", "pushed_off": "pushed off", "fell_from_support":
                               "fell from its support", "fell": "did not stand when placed",
                               "left the table": "left the table"}


def seat_colour(seat: int) -> str:
    """The colour of ``seat``'s marker and mark area (sim/sun/geometry/palette.py, the report's seat colours)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def cause_colour(cause: str) -> str:
    """The colour a penalty stone of ``cause`` is drawn in."""
    return CAUSE_COLOURS.get(cause, OTHER_PENALTY_COLOUR)


def cause_words(cause: str) -> str:
    """``cause`` in words (``pushed_off`` -> ``pushed off``)."""
    return CAUSE_WORDS.get(cause, str(cause).replace("_", " "))


#: What each mark of the rules' view means, in drawing order: (key, colour or None, words). A
#: seat's entries are made per replay (:func:`legend`), the rest are fixed.
LEGEND: tuple[tuple[str, str, str], ...] = (
    ("passable", PASSABLE_COLOUR, "gap the ball can pass (band inside the ring)"),
    ("blocked", BLOCKED_COLOUR, "gap the ball cannot pass (too narrow, or a gate too low)"),
    ("aim", AIM_COLOUR, "line of the pass as aimed, from the release point chosen (the dot in the mover's "
                        "colour, on a drop line)"),
    ("release", RELEASE_COLOUR, "where the ball really left the hand (with the thrower's error)"),
    ("string", STRING_COLOUR, "the string, from its suspension point to the ball"),
    *((f"cause:{c}", col, f"penalty: {CAUSE_WORDS[c]}") for c, col in CAUSE_COLOURS.items()),
)


def legend(seats: Mapping[int, str]) -> list[tuple[str, str, str]]:
    """The legend of a replay: one entry per seat (``seats``: seat -> its player's label, may be
    empty) for its marker and mark area, then :data:`LEGEND`."""
    out = [(f"seat:{s}", seat_colour(s), f"seat {s}" + (f" ({label})" if label else "")
            + ": marker (pin) and mark area (band along the rim)") for s, label in sorted(seats.items())]
    return out + list(LEGEND)


# --------------------------------------------------------------------------------------------
# Checking a view read from a file
# --------------------------------------------------------------------------------------------


def _num(v: Any, what: str, where: str, source: str | Path | None, *, none_ok: bool = False) -> float | None:
    if v is None and none_ok:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ReplayError(f"{what} must be a finite number, not {v!r}", source=source, key=where)
    return float(v)


def _list(v: Any, what: str, where: str, source: str | Path | None) -> list[Any]:
    if not isinstance(v, list):
        raise ReplayError(f"{what} must be a list, not {type(v).__name__}", source=source, key=where)
    return v


def _dict(v: Any, what: str, where: str, source: str | Path | None) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise ReplayError(f"{what} must be an object, not {type(v).__name__}", source=source, key=where)
    return v


def check_rules_view(v: Any, where: str, source: str | Path | None = None) -> dict[str, Any] | None:
    """``v`` (a turn's ``rules``) checked to hold what the viewers read, or None for None.

    Raises:
        ReplayError: a key missing or of the wrong type, a number not finite, a gap index outside
            the ring (``where`` names the turn, e.g. ``turns[3].rules``).
    """
    if v is None:
        return None
    d = _dict(v, "the rules' view", where, source)
    seat = d.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise ReplayError(f"seat must be a seat number, not {seat!r}", source=source, key=f"{where}.seat")
    turn = d.get("turn", 0)
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise ReplayError(f"turn must be a turn number, not {turn!r}", source=source, key=f"{where}.turn")
    ring = _dict(d.get("ring"), "ring", f"{where}.ring", source)
    gaps = _list(ring.get("gaps", []), "gaps", f"{where}.ring.gaps", source)
    for i, g in enumerate(gaps):
        w = f"{where}.ring.gaps[{i}]"
        _dict(g, "a gap", w, source)
        _num(g.get("start_deg"), "start_deg", w, source)
        _num(g.get("span_deg"), "span_deg", w, source)
        _num(g.get("width_mm"), "width_mm", w, source, none_ok=True)
        _num(g.get("under_m"), "under_m", w, source, none_ok=True)
        if not isinstance(g.get("passable"), bool):
            raise ReplayError("passable must be true or false", source=source, key=w)
    markers = _list(d.get("markers"), "markers", f"{where}.markers", source)
    for s, ms in enumerate(markers):
        for k, m in enumerate(_list(ms, "a seat's markers", f"{where}.markers[{s}]", source)):
            w = f"{where}.markers[{s}][{k}]"
            _dict(m, "a marker", w, source)
            _num(m.get("angle_deg"), "angle_deg", w, source)
            gap = m.get("gap")
            if gap is not None and (isinstance(gap, bool) or not isinstance(gap, int) or not 0 <= gap < len(gaps)):
                raise ReplayError(f"gap must be an index of the ring's {len(gaps)} gaps or null, not {gap!r}",
                                  source=source, key=w)
    ps = d.get("pass")
    if ps is not None:
        _dict(ps, "pass", f"{where}.pass", source)
        _num(ps.get("aim_deg"), "aim_deg", f"{where}.pass", source)
        _num(ps.get("release_m"), "release_m", f"{where}.pass", source)
        rp = _list(ps.get("release_point"), "release_point", f"{where}.pass", source)
        if len(rp) != 3:
            raise ReplayError("release_point must be [x, y, z]", source=source, key=f"{where}.pass")
        for x in rp:
            _num(x, "release_point", f"{where}.pass", source)
        for k, arc in enumerate(_list(ps.get("arcs_deg", []), "arcs_deg", f"{where}.pass", source)):
            if not (isinstance(arc, list) and len(arc) == 2):
                raise ReplayError("each arc must be [start, end]", source=source, key=f"{where}.pass.arcs_deg[{k}]")
            for x in arc:
                _num(x, "an arc's end", f"{where}.pass.arcs_deg[{k}]", source)
        _dict(ps.get("noise", {}), "noise", f"{where}.pass.noise", source)
    for k, p in enumerate(_list(d.get("penalties", []), "penalties", f"{where}.penalties", source)):
        w = f"{where}.penalties[{k}]"
        _dict(p, "a penalty", w, source)
        sid = p.get("stone")
        if isinstance(sid, bool) or not isinstance(sid, int):
            raise ReplayError(f"stone must be a stone id, not {sid!r}", source=source, key=w)
        if not isinstance(p.get("cause"), str):
            raise ReplayError("cause must be a string", source=source, key=w)
    return dict(d)


# --------------------------------------------------------------------------------------------
# In words
# --------------------------------------------------------------------------------------------


def gap_words(g: Mapping[str, Any]) -> str:
    """A gap in words: ``41°–63°, 52 mm, passable``."""
    a = float(g["start_deg"])
    b = a + float(g["span_deg"])
    w = g.get("width_mm")
    width = "wider than a half turn" if w is None else f"{float(w):.0f} mm"
    gate = f", under a gate {float(g['under_m']) * 1000:.0f} mm up" if g.get("under_m") is not None else ""
    return f"{a % 360:.0f}°–{b % 360:.0f}°, {width}{gate}, {'passable' if g['passable'] else 'not passable'}"


def rules_lines(v: Mapping[str, Any]) -> list[str]:
    """The rules' view (checked by :func:`check_rules_view`) in a few plain-text lines, one fact each
    (the caller escapes them for markdown)."""
    ring = v["ring"]
    gaps = ring.get("gaps", [])
    lines = []
    if ring.get("empty") or not gaps:
        lines.append("the ring is empty: every line is open")
    else:
        n_ok = sum(1 for g in gaps if g["passable"])
        lines.append(f"the ring: {len(ring.get('positions', []))} positions, {n_ok} of {len(gaps)} gaps passable")
    for s, ms in enumerate(v["markers"]):
        for m in ms:
            gi = m.get("gap")
            area = gap_words(gaps[gi]) if gi is not None else "no gap (empty ring)"
            mover = " (to pass)" if s == v["seat"] else ""
            lines.append(f"seat {s}{mover}: marker at {float(m['angle_deg']):.0f}°, mark area {area}")
    ps = v.get("pass")
    if ps is not None:
        arcs = ", ".join(f"{float(a) % 360:.0f}°–{float(b) % 360:.0f}°" for a, b in ps.get("arcs_deg", []))
        lines.append(f"chosen: aim {float(ps['aim_deg']):.1f}°, release {float(ps['release_m']):.3f} m beyond the "
                     f"rim" + (f" (allowed aims {arcs.replace(', ', ' or ')})" if arcs else ""))
    return lines
