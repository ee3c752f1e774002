"""The Sun's uncertain inputs for ``stonelab sensitivity`` (``sim.core.sensitivity``).

:data:`DEFAULT_INPUTS` is the 8-input study used when a scenario's ``[sensitivity]`` section names
no inputs; :data:`INPUTS` also lists the inputs a scenario may add. Each entry: the dotted scenario
key, its range, a short label for plots and sentences, and where the range comes from. The ranges
and their sources are argued in docs/sensitivity.md; keep the two in step.

Every key is one a scenario can already set: the seats' sigma overrides (``sim/sun/game.py``
``SEAT_OPTIONS``), ``[physics]``, ``[table]``, ``[ball]`` and ``[shapes.<shape>]``.
"""

from __future__ import annotations

from typing import Any

INPUTS: dict[str, dict[str, Any]] = {
    "seats.*.sigma_aim_deg": {
        "range": [0.25, 4.0], "label": "aim noise",
        "source": "thrower.py skill table, expert (0.5) to child (4.0), widened below to 0.25"},
    "seats.*.sigma_release_m": {
        "range": [0.005, 0.06], "label": "release-distance noise",
        "source": "thrower.py skill table, expert (0.01) to child (0.06), widened below to 0.005"},
    "seats.*.sigma_push_mps": {
        "range": [0.0025, 0.04], "label": "sideways push noise",
        "source": "thrower.py skill table, expert (0.005) to child (0.04), widened below to 0.0025"},
    "seats.*.sigma_place_m": {
        "range": [0.00025, 0.0035], "label": "placement position noise",
        "source": "thrower.py skill table, expert (0.0005) to child (0.0035), widened below"},
    "seats.*.sigma_place_deg": {
        "range": [0.5, 8.0], "label": "placement yaw noise",
        "source": "thrower.py skill table, expert (1) to child (8), widened below to 0.5"},
    "physics.friction_wood_wood": {
        "range": [0.25, 0.6], "label": "wood-wood friction",
        "source": "handbook static coefficients for dry wood on wood (about 0.25-0.6); default 0.5"},
    "physics.friction_steel_wood": {
        "range": [0.2, 0.6], "label": "steel-wood friction",
        "source": "handbook coefficients for metal on wood (about 0.2-0.6); default 0.35"},
    "physics.restitution": {
        "range": [0.1, 0.6], "label": "restitution",
        "source": "no measurement for this set; range considered around the default 0.3"},
    "table.topple_tilt_deg": {
        "range": [15.0, 45.0], "label": "knocked-over tilt threshold",
        "source": "a judgment (RULES: 'knocked over'); 15 is just past a pillar's tipping angle, 45 leans on a neighbour"},
    "shapes.block.density": {
        "range": [450.0, 900.0], "label": "block density (mass)",
        "source": "air-dry wood densities, pine (about 450) to beech or oak (about 700-900); default 700"},
    "shapes.block.width": {
        "range": [0.028, 0.032], "label": "block width",
        "source": "+/- 2 mm manufacturing tolerance around the 30 mm default (assumed)"},
    "ball.mass": {
        "range": [0.15, 0.2], "label": "ball mass",
        "source": "+/- 13 % around 0.176 kg: a 35 mm steel ball is 0.176 kg (7850 kg/m3); hollow or other alloys differ"},
}

#: the 8 inputs of the default study (an 8-input Morris screening is what the Sun's speed is measured for)
DEFAULT_KEYS: tuple[str, ...] = (
    "seats.*.sigma_aim_deg", "seats.*.sigma_release_m", "seats.*.sigma_push_mps", "seats.*.sigma_place_m",
    "physics.friction_wood_wood", "physics.friction_steel_wood", "physics.restitution", "table.topple_tilt_deg",
)
DEFAULT_INPUTS: dict[str, dict[str, Any]] = {k: INPUTS[k] for k in DEFAULT_KEYS}


def label(key: str) -> str:
    """A short plain-language name of an input key (the key itself when unknown)."""
    return str(INPUTS[key]["label"]) if key in INPUTS else key
