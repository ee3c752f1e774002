"""*Stonehenge and the Sun* for a person at the table (``stonelab play``): the ring as the rules see
it, as data and as text, and the moves typed in the game's notation. No I/O, no physics here: the
pass a person chooses runs in the game's PyBullet table like any agent's.

The listed moves are the rules' candidates (stands at a few angles per gap, stacks, gates, marker
moves, passes at a few aims and two releases); any other valid action may be typed, e.g.
``Stand(pillar at 123.5 deg)`` or ``Pass(aim 47 deg, release 0.3 m)`` (short: ``pass 47 0.3``),
and the rules judge it. The game has no hidden information. The passes so far are listed with
the stones they cost and why.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

from sim.core.errors import InputError
from sim.sun.actions import Draw, Gate, MoveMarker, Pass, Stack, Stand
from sim.sun.position import FIELD, GATE, OUT
from sim.sun.players.thrower import PlaceNoise, ThrowNoise
from sim.sun.rules.state import SunObservation
from sim.sun.seat_drawing import table_drawing

_NUM = r"(-?\d{1,4}(?:\.\d{1,6})?)"
#: the short forms, read with their spaces (one space between words, a comma as a space):
#: ``pass 47 0.3`` is aim 47, release 0.3; without its spaces it would read as aim 470.3
_SHORT_FORMS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Any]], ...] = tuple(
    (re.compile(p), f) for p, f in (
        (rf"stand ([a-z_0-9]+) {_NUM}(?: ?deg)?", lambda m: Stand(m[1], float(m[2]))),
        (rf"pass {_NUM}(?: ?deg)? {_NUM}(?: ?m)?", lambda m: Pass(float(m[1]), float(m[2]))),
    )
)
#: the listed forms, read with every space removed
_FORMS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Any]], ...] = tuple(
    (re.compile(p), f) for p, f in (
        (rf"stand\(([a-z_0-9]+)at{_NUM}(?:deg)?\)", lambda m: Stand(m[1], float(m[2]))),
        (rf"stand([a-z]+?){_NUM}", lambda m: Stand(m[1], float(m[2]))),
        (r"stack\(([a-z_0-9]+)on#?(\d{1,3})\)", lambda m: Stack(m[1], int(m[2]))),
        (r"gate\(#?(\d{1,3})over#?(\d{1,3})-#?(\d{1,3})\)", lambda m: Gate(int(m[1]), int(m[2]), int(m[3]))),
        (r"movemarker\((ccw|cw)(?:,marker(\d))?\)", lambda m: MoveMarker(m[1], int(m[2] or 0))),
        (rf"pass\(aim{_NUM}(?:deg)?,release{_NUM}m?\)", lambda m: Pass(float(m[1]), float(m[2]))),
        (rf"pass{_NUM},{_NUM}", lambda m: Pass(float(m[1]), float(m[2]))),
    )
)


#: what the seat to act does in each of its phases (docs/rules-sun.md)
_PHASE_WORDS = {"place": "stand, stack or gate a stone", "marker": "move a marker to a gap beside the stone just stood",
                "pass": "pass the ball: aim (deg) and release (m outside the base edge)",
                "over": "the game is over"}


#: how to type a move beside the listed ones, by phase
_HINTS = {"place": "besides the listed stands, any angle may be typed: 'Stand(pillar at 123.5 deg)' or "
                   "'stand pillar 123.5'",
          "pass": "besides the listed passes, any aim and release may be typed: 'pass 47 0.3' "
                  "(aim in deg, release in m outside the base edge)"}


def _cause(text: str) -> str:
    """A stored penalty cause ``22:block:fell_from_support`` as ``#22 block fell from support``."""
    stone, _, rest = text.partition(":")
    shape, _, why = rest.partition(":")
    return f"#{stone} {shape} {why.replace('_', ' ')}".strip()


def _count(n: int, word: str) -> str:
    """``_count(1, 'stone') -> '1 stone'``, ``_count(3, 'stone') -> '3 stones'`` (the view's counts)."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _mm(width_m: float) -> str:
    return "open" if not math.isfinite(width_m) else f"{1000 * width_m:.0f} mm"


def _deg(rad: float) -> float:
    return math.degrees(rad) % 360.0


class SunSeat:
    """The :class:`sim.core.human.SeatView` of Stonehenge and the Sun."""

    #: scenario tables a person's game sets: every frame of the table is kept in the store, since a
    #: person's choices cannot be re-simulated (``stonelab replay view RUN --game N`` shows it in 3-D)
    play_sections = {"record": {"frames": "all"}}
    #: the 3-D page of each pass, for the play page (``TurnPages(labels, seed, game_index)``)
    turn_pages = "sim.sun.viewer.play_turns:TurnPages"

    def parse(self, text: str) -> Any:
        """A placement, marker move or pass as listed (any case, spaces ignored), or the short
        ``stand pillar 123.5`` and ``pass 47 0.3`` (aim in degrees, release in metres; the short
        forms are read with their spaces, a comma counting as one).

        Raises:
            InputError: none of the forms.
        """
        spaced = " ".join(text.lower().replace(",", " ").split())
        for pattern, make in _SHORT_FORMS:
            m = pattern.fullmatch(spaced)
            if m is not None:
                return make(m)
        t = "".join(text.lower().split())
        for pattern, make in _FORMS:
            m = pattern.fullmatch(t)
            if m is not None:
                return make(m)
        raise InputError(f"{text.strip()[:40]!r} is not a move: write e.g. 'Stand(pillar at 30 deg)', "
                         "'Stack(block on #3)', 'Gate(#4 over #1-#2)', 'MoveMarker(cw)', "
                         "'Pass(aim 45 deg, release 0.300 m)' or 'pass 45 0.3'")

    def step_text(self, seat: int, action: Any, observation: SunObservation) -> str:
        """The action as listed; the chance steps in words (the stone drawn, the hand's noise)."""
        if isinstance(action, PlaceNoise):
            return f"the stone is put down ({action})"
        if isinstance(action, ThrowNoise):
            return f"the ball swings ({action})"
        if isinstance(action, Draw):
            return f"the stone drawn: {action}"
        return str(action)

    def view(self, obs: SunObservation) -> dict[str, Any]:
        """The ring (positions by angle, gaps passable or not, gates), each seat's markers, mark
        areas and penalties, the stones in the field, the passes so far and the text view."""
        st = obs.state
        ring = st.ring()
        g = st.geom
        positions = [{"stone": p.id, "shape": st.shapes[p.id], "angle_deg": round(_deg(p.angle), 2),
                      "top": None if p.top < 0 else {"stone": p.top, "shape": st.shapes[p.top]}}
                     for p in ring.pos]
        gaps = [] if ring.empty else [
            {"between": [ring.pos[i].id, ring.pos[(i + 1) % ring.n].id],
             "width_mm": round(1000 * ring.width[i], 1) if math.isfinite(ring.width[i]) else None,
             "passable": bool(ring.passable(i, g)), "under_gate": ring.under[i] is not None}
            for i in range(ring.n)]
        seats = [{"seat": s, "markers_deg": [round(_deg(a), 2) for a in st.markers[s]],
                  "mark_areas": st.mark_areas(s, ring), "penalties": st.penalties()[s]}
                 for s in range(st.num_players)]
        field = [st.shapes[i] for i in st.field_stones()]
        gates = [{"stone": i, "shape": st.shapes[i]} for i, r in enumerate(st.role) if r == GATE]
        passes = [{"seat": p["seat"], "aim_deg": p["aim_deg"], "release_m": p["release_m"],
                   "penalties": p["penalties"], "causes": p["causes"]} for p in st.passes]
        out = {"game": "sun", "seat": st.seat, "phase": st.phase, "turn": st.turn, "positions": positions,
               "gaps": gaps, "gates": gates, "seats": seats, "field": field, "passes": passes,
               "text": self.text(obs)}
        if st.phase == "pass":
            out["form"] = self.pass_form(obs)
        # the table drawn, with the moves of the seat to act as ghosts to click (sim.sun.seat_drawing)
        out["drawing"] = table_drawing(st, obs.seat)
        return out

    @staticmethod
    def pass_form(obs: SunObservation) -> dict[str, Any]:
        """The pass as two number fields for the play page (``form``: each field's name, label, range
        and first value; ``move``: the typed move they make, ``{aim}`` and ``{release}`` filled in).
        The first aim is the middle of the seat's first arc of aims that cross its mark area (none:
        0 deg), the first release a hand span; the rules judge whatever is sent."""
        st = obs.state
        g = st.geom
        arcs = st.pass_arcs(seat=st.seat)
        aim = 0.0
        if arcs:
            a, b = arcs[0]
            aim = _deg(a + ((b - a) % (2 * math.pi)) / 2)
        return {"title": "Pass the ball", "move": "pass {aim} {release}", "fields": [
            {"name": "aim", "label": "aim (deg, 0 = +x, counter-clockwise)", "min": 0, "max": 360, "step": 0.1,
             "value": round(aim, 1)},
            {"name": "release", "label": "release (m outside the base edge)", "min": round(g.min_release, 3),
             "max": round(g.max_release, 3), "step": 0.001, "value": round(g.min_release, 3)}]}

    def text(self, obs: SunObservation) -> str:
        """The ring as lines of text."""
        st = obs.state
        ring = st.ring()
        g = st.geom
        pen = st.penalties()
        out = [f"turn {st.turn + 1}, seat {st.seat} to act: {_PHASE_WORDS.get(st.phase, st.phase)}; "
               "fewest penalty stones wins"]
        hint = _HINTS.get(st.phase)
        if hint:
            out.append(hint)
        out += ["",
               "the ring, counter-clockwise (angles on the base, 0 deg = +x):"]
        if ring.empty:
            out.append("the ring is empty")
        # from 0 deg round, as a person walks the table (the ring keeps its own order)
        for i in sorted(range(ring.n), key=lambda k: _deg(ring.pos[k].angle)):
            p = ring.pos[i]
            top = f" with {st.shapes[p.top]} #{p.top} on top" if p.top >= 0 else ""
            out.append(f"#{p.id} {st.shapes[p.id]} at {_deg(p.angle):.1f} deg{top}")
            if ring.n > 1 or i == 0:
                nxt = ring.pos[(i + 1) % ring.n]
                gate = " under a gate" if ring.under[i] is not None else ""
                ok = "passable" if ring.passable(i, g) else "NOT passable"
                out.append(f"    gap to #{nxt.id}: {_mm(ring.width[i])}{gate}, {ok}")
        gates = [f"#{i} {st.shapes[i]}" for i, r in enumerate(st.role) if r == GATE]
        if gates:
            out.append(f"gates: {', '.join(gates)}")
        out.append("")
        for s in range(st.num_players):
            marks = ", ".join(f"{_deg(a):.1f} deg" for a in st.markers[s])
            out.append(f"seat {s}: marker at {marks}; {_count(pen[s], 'penalty stone')}")
        field = [st.shapes[i] for i, r in enumerate(st.role) if r == FIELD]
        out.append(f"field: {_count(len(field), 'stone')} ({', '.join(sorted(set(field)))})" if field else "field: empty")
        lost = sum(1 for r in st.role if r == OUT)
        if st.passes:
            out.append("")
            out.append(f"passes so far ({_count(lost, 'stone')} lost):")
            for ps in st.passes[-6:]:
                why = ", ".join(_cause(c) for c in ps["causes"].split(";")) if ps["causes"] else "nothing fell"
                out.append(f"  seat {ps['seat']}: aim {ps['aim_deg']:.1f} deg, release {ps['release_m']:.3f} m: "
                           f"{_count(ps['penalties'], 'penalty stone')} ({why})")
        return "\n".join(out)


#: the one instance the plug-in names
SEAT = SunSeat()
