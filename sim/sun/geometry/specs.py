"""Physical parameters of *Stonehenge and the Sun*: stone shapes, the table, the ball, the simulation.

Plain frozen dataclasses with the defaults of docs/sun-physics.md (SI units: metres, kilograms,
seconds; angles in degrees only where a name says ``_deg``). Everything that reads a layout, the
ring geometry (``sim.sun.geometry.ring``), the rules and the PyBullet table share these; ``sim.sun.table.layout``
loads and validates them from TOML.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

TAU = 2.0 * math.pi
#: Fidelity presets (docs/sun-physics.md): simulation rate (Hz), solver iterations, stones start
#: asleep, and whether a stone stood alone on the base is settled by the engine (see
#: :attr:`PhysicsSpec.settle_lone_stands`).
PRESETS: dict[str, dict[str, Any]] = {
    "fast": {"hz": 240, "iterations": 15, "sleeping": True, "settle_lone_stands": False},
    "reference": {"hz": 1000, "iterations": 50, "sleeping": False, "settle_lone_stands": True},
}

SHAPE_NAMES = ("pillar", "block", "slab")


# --------------------------------------------------------------------------------------------
# Parameter dataclasses (defaults: docs/sun-physics.md)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShapeSpec:
    """One stone shape. Lengths in metres, density in kg/m^3.

    ``width`` is along the ring, ``depth`` radial, ``height`` vertical when standing.
    """

    name: str
    width: float
    depth: float
    height: float
    count: int
    density: float = 700.0

    @property
    def mass(self) -> float:
        """Mass in kg."""
        return self.width * self.depth * self.height * self.density

    @property
    def lintel_length(self) -> float:
        """Length (m) when laid flat as a gate: the standing height."""
        return self.height

    @property
    def lintel_thickness(self) -> float:
        """Vertical thickness (m) when laid flat: the smaller cross-section side."""
        return min(self.width, self.depth)

    @property
    def lintel_depth(self) -> float:
        """Radial depth (m) when laid flat: the larger cross-section side."""
        return max(self.width, self.depth)


DEFAULT_SHAPES: dict[str, ShapeSpec] = {
    "pillar": ShapeSpec("pillar", 0.020, 0.015, 0.070, 8),
    "block": ShapeSpec("block", 0.030, 0.015, 0.050, 16),
    "slab": ShapeSpec("slab", 0.012, 0.015, 0.065, 8),
}


@dataclass(frozen=True)
class TableSpec:
    """The base and the ring. Lengths in metres, angles in degrees.

    Attributes:
        base_radius: radius of the wooden disc.
        base_thickness: thickness of the disc (its top face is z = 0).
        ring_radius: radius at which standing stones have their centre.
        hand_span: least release distance outside the base edge.
        pass_clearance: margin added to the ball for a gap or gate to be passable.
        gate_min_overlap: least overlap of each gate end on its support.
        topple_tilt_deg: a stone tilted more than this from where it stood is knocked over.
        min_clearance: least gap between neighbouring standing stones in a layout file.
    """

    base_radius: float = 0.15
    base_thickness: float = 0.02
    ring_radius: float = 0.13
    hand_span: float = 0.20
    pass_clearance: float = 0.004
    gate_min_overlap: float = 0.008
    topple_tilt_deg: float = 30.0
    min_clearance: float = 0.0005


@dataclass(frozen=True)
class BallSpec:
    """The steel ball on its string. Metres and kilograms.

    Attributes:
        diameter: ball diameter.
        mass: ball mass.
        string_length: pivot to ball centre.
        rest_clearance: gap between the ball's bottom and the base top when hanging at rest.
    """

    diameter: float = 0.035
    mass: float = 0.176
    string_length: float = 2.0
    rest_clearance: float = 0.010

    @property
    def radius(self) -> float:
        """Ball radius (m)."""
        return 0.5 * self.diameter

    @property
    def pivot_z(self) -> float:
        """Height of the pivot above the base top (m)."""
        return self.rest_clearance + self.radius + self.string_length

    def centre_z_at(self, horizontal_m: float) -> float:
        """Height (m) of the ball's centre when it is ``horizontal_m`` from the point under the pivot.

        Raises:
            ValueError: if the distance is not shorter than the string.
        """
        if not 0.0 <= horizontal_m < self.string_length:
            raise ValueError(f"horizontal distance {horizontal_m} m must be in [0, string length)")
        return self.pivot_z - math.sqrt(self.string_length**2 - horizontal_m**2)

    def drift_per_push_s(self, release_radius_m: float, ring_radius_m: float, gravity: float) -> float:
        """Sideways drift (m) where the ball crosses the ring (``ring_radius_m`` from the centre)
        per m/s of sideways push at a release ``release_radius_m`` from the centre (s).

        The ball released at distance ``A`` with a sideways velocity ``v`` moves on an ellipse
        ``x = A cos(w t)``, ``y = (v / w) sin(w t)`` (``w = sqrt(gravity / string_length)``); it
        crosses the ring radius ``R`` where ``sin(w t) = sqrt(1 - (R/A)^2)``.
        """
        w = math.sqrt(gravity / self.string_length)
        return math.sqrt(max(0.0, 1.0 - (ring_radius_m / release_radius_m) ** 2)) / w


@dataclass(frozen=True)
class PhysicsSpec:
    """Simulation parameters.

    Attributes:
        preset: ``"fast"`` or ``"reference"`` (see :data:`PRESETS`).
        gravity: m/s^2.
        friction_wood_wood, friction_steel_wood: pair friction coefficients; each body gets the
            square root because Bullet multiplies the two bodies' values.
        restitution: pair restitution (same square-root rule).
        contact_threshold: contact-breaking threshold in m. Bullet's default 2 cm exceeds ring gaps;
            the prototype's 5 mm (docs/sun-physics.md) still lets a clean pass through a 44 mm gap (4.5 mm each side) join
            the ring's simulation island and wake every stone (124 ms instead of 20 ms per pass),
            so the default is 2 mm (the ball moves 3.3 mm per step at 240 Hz; contacts still hold).
        settle_time_limit_s: longest settling after a pass or placement.
        rest_linear_mps, rest_angular_rps: a stone is at rest below both speeds.
        max_swing_s: longest simulated swing before the catch is forced.
        energy_tolerance: relative growth of the ball's energy that flags a pass invalid.
    """

    preset: str = "fast"
    gravity: float = 9.81
    friction_wood_wood: float = 0.5
    friction_steel_wood: float = 0.35
    restitution: float = 0.3
    contact_threshold: float = 0.002
    settle_time_limit_s: float = 3.0
    rest_linear_mps: float = 0.001
    rest_angular_rps: float = 0.05
    max_swing_s: float = 2.5
    energy_tolerance: float = 0.02

    @property
    def hz(self) -> int:
        """Simulation rate of the preset (steps per second)."""
        return int(PRESETS[self.preset]["hz"])

    @property
    def dt(self) -> float:
        """Time step (s)."""
        return 1.0 / self.hz

    @property
    def iterations(self) -> int:
        """Solver iterations of the preset."""
        return int(PRESETS[self.preset]["iterations"])

    @property
    def sleeping(self) -> bool:
        """Whether stones start asleep (Bullet deactivation) in this preset."""
        return bool(PRESETS[self.preset]["sleeping"])

    @property
    def settle_lone_stands(self) -> bool:
        """Whether a stone stood on the base with nothing within contact reach of it is settled by
        the engine (True) or stands where it was put, at rest on the base (False, the fast preset).

        Such a stone can neither fall nor touch another: an upright box whose footprint lies on the
        flat base stands. Settling it cost 48 steps of about 16 us each, more than half of a game's
        placement steps; it moved the stone 14-23 um, sank it 12-15 um into the base and left it
        tilted 0.03-0.04 degrees (docs/sun-physics.md, "Placement"), far below the placement
        noise (millimetres)."""
        return bool(PRESETS[self.preset]["settle_lone_stands"])
