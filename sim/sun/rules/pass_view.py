"""What the rules see at a pass, as JSON for the replay viewer (docs/replay-format.md, "The rules' view").

A replay shows bodies moving; a designer also wants to see what the rules decide on: each seat's
marker and mark area, which gaps of the ring a ball can pass, where the pass was aimed and
released, and which stones became penalties and why. :func:`pass_view` reads these off the rules'
own objects (the state's :class:`~sim.sun.geometry.ring.Ring`, ``Ring.passable``, ``mark_areas``,
``pass_arcs``, the pending ``Pass`` and the thrower's noise) at the moment the ball is thrown, so
the viewer draws the rules' answers and never computes its own. :func:`geometry_view` is the
table's geometry the viewer needs (ring radius, the string's suspension point and length).

The game layer (``sim.sun.game``) calls these while it records a game; nothing here changes the
state. No I/O. Units: metres; angles in degrees counter-clockwise from +x seen from above
(the replay file's convention), gap widths in millimetres.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from sim.sun.actions import Pass
from sim.sun.position import OUT
from sim.sun.players.thrower import ThrowNoise
from sim.sun.geometry.ring import Geometry, Ring
from sim.sun.geometry.specs import TAU

#: The kinds of penalty the views name: the rules' and the table's causes (docs/rules-sun.md).
#: ``fell`` is a placed stone that did not stand and was lost (``placement_fall`` or too many
#: attempts); the others are the causes a pass (or a placement's settling) records.
CAUSES: tuple[str, ...] = ("toppled", "pushed_off", "fell_from_support", "left the table", "fell")


def _deg(rad: float) -> float:
    return round(math.degrees(rad), 4)


def geometry_view(g: Geometry) -> dict[str, float | list[float]]:
    """The table's geometry as a replay header's ``table`` keys (metres): the ring's radius, the
    string's suspension point and length, the least passable width and gate height."""
    b, t = g.ball, g.table
    return {"base_radius": t.base_radius, "base_thickness": t.base_thickness, "ring_radius": t.ring_radius,
            "pivot": [0.0, 0.0, b.pivot_z], "string_length": b.string_length, "ball_radius": b.radius,
            "pass_width": g.pass_width, "gate_clear_z": g.gate_clear_z}


def ring_view(ring: Ring, g: Geometry) -> dict[str, Any]:
    """The ring's positions and gaps as the rules see them.

    Each gap: the bottom stones it lies between (``between``, counter-clockwise), its clear opening
    (``start_deg`` in [0, 360) and ``span_deg``, negative when the stones overlap), its clear width
    (``width_mm``; None when the gap is wider than a half turn, always wide enough), the underside
    height of a gate over it (``under_m``, None without a gate) and ``passable`` (``Ring.passable``).
    """
    gaps = []
    for i in range(ring.n):
        w = ring.width[i]
        u = ring.under[i]
        gaps.append({"between": list(ring.keys[i]), "start_deg": _deg(ring.start[i] % TAU),
                     "span_deg": _deg(ring.end[i] - ring.start[i]),
                     "width_mm": round(w * 1000.0, 3) if math.isfinite(w) else None,
                     "under_m": None if u is None else round(u, 6), "passable": bool(ring.passable(i, g))})
    positions = [{"stone": p.id, "top": p.top if p.top >= 0 else None, "angle_deg": _deg(p.angle)} for p in ring.pos]
    return {"empty": ring.empty, "positions": positions, "gaps": gaps}


def pass_view(state: Any, noise: ThrowNoise) -> dict[str, Any]:
    """The rules' view of the pass about to be thrown: ``state`` is a Sun state in its ``swing``
    phase (the pass pending), ``noise`` the thrower's errors drawn for it.

    Returns a JSON-friendly dict: ``seat`` (the mover), ``ring`` (:func:`ring_view`), ``markers``
    (per seat, per marker: ``angle_deg`` and ``gap``, the index of its mark area in ``ring.gaps``,
    None on an empty ring), ``marker_moved`` and ``forced_move`` (the rules' flags of this turn),
    ``pass`` (the aim and release as chosen, the noise, the release point the choice names, and
    ``arcs_deg``: the release azimuths the rules allow, each ``[start, end]``) and an empty
    ``penalties`` list for the caller to fill once the pass is judged (:func:`penalties_of_pass`).

    Raises:
        ValueError: no pass is pending (not the swing phase).
    """
    a = state.pending
    if not isinstance(a, Pass):
        raise ValueError("the rules' view of a pass needs the pass pending (the swing phase)")
    ring: Ring = state.ring()
    g: Geometry = state.geom
    markers = []
    for seat in range(state.num_players):
        areas = state.mark_areas(seat, ring)
        markers.append([{"angle_deg": _deg(m % TAU), "gap": areas[k]} for k, m in enumerate(state.markers[seat])])
    rho = g.table.base_radius + a.release
    aim = math.radians(a.aim)
    z = g.ball.centre_z_at(rho) if rho < g.ball.string_length else g.ball.pivot_z
    arcs = [[_deg(s), _deg(e)] for s, e in state.pass_arcs(ring, state.seat)]
    return {
        "seat": state.seat, "turn": state.turn, "ring": ring_view(ring, g), "markers": markers,
        "marker_moved": bool(state.moved), "forced_move": bool(state.forced),
        "pass": {"aim_deg": a.aim, "release_m": a.release,
                 "noise": {"aim_deg": noise.aim, "release_m": noise.release, "push_x_mps": noise.push_x,
                           "push_y_mps": noise.push_y},
                 "release_point": [round(rho * math.cos(aim), 6), round(rho * math.sin(aim), 6), round(z, 6)],
                 "arcs_deg": arcs},
        "penalties": [],
    }


def lost_stones(state: Any) -> set[int]:
    """The stones that are penalties now (of any seat), as the rules count them."""
    return {i for i in state.owner if state.role[i] == OUT}


def penalties_of_pass(causes: str) -> list[dict[str, Any]]:
    """The penalties the rules stored for a pass: its ``causes`` field (``"id:shape:cause;..."``,
    the passes table's column) as ``{"stone", "shape", "cause", "step": "pass"}`` dicts.

    Raises:
        ValueError: a malformed entry.
    """
    out = []
    for item in filter(None, causes.split(";")):
        sid, shape, cause = item.split(":", 2)
        out.append({"stone": int(sid), "shape": shape, "cause": cause, "step": "pass"})
    return out


def penalties_of_placement(shapes: Sequence[str], out_before: set[int], out_after: set[int], placed: int,
                           placed_cause: str, knocked: Mapping[int, str]) -> list[dict[str, Any]]:
    """The stones a placement step cost its seat, with why, as the rules decided them: the stone in
    hand when it is lost (``placed``, with the placements table's cause, e.g. ``fell``), a stone
    the table reports knocked over while the new one settled (its ``knocked`` cause), and any
    other (a stone whose support was knocked away: ``fell_from_support``, the rules' name).

    ``out_before`` and ``out_after``: the stones that were penalties before and after the step.
    """
    new = sorted(out_after - out_before)
    return [{"stone": i, "shape": shapes[i], "step": "place",
             "cause": (placed_cause or "fell") if i == placed else knocked.get(i, "fell_from_support")} for i in new]
