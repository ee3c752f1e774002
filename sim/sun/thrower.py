"""The thrower: how far a real hand strays from the pass or placement it intends (PHYSICS.md).

A :class:`Thrower` holds five standard deviations. Named skill levels (:data:`SKILLS`):

=========  =============  ===============  ==============  =============  ===============
level      sigma_aim_deg  sigma_release_m  sigma_push_mps  sigma_place_m  sigma_place_deg
=========  =============  ===============  ==============  =============  ===============
perfect    0              0                0               0              0
expert     0.5            0.01             0.005           0.0005         1.0
steady     1.0            0.02             0.01            0.001          2.0
casual     2.0            0.04             0.02            0.002          4.0
child      4.0            0.06             0.04            0.0035         8.0
=========  =============  ===============  ==============  =============  ===============

For scale: at the ring (0.13 m) one degree of aim is 2.3 mm; a sideways push of 0.01 m/s at release
turns the path into an ellipse about 4.5 mm wide (push / pendulum angular frequency); a normal
release meets the ring at about 0.78 m/s.

Noise is always drawn as standard normals scaled by the sigmas, in a fixed order and count, so two
throwers of different skill fed the same generator state see *common random numbers*: a study
comparing skills isolates the skill, not the luck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.core.errors import InputError, allowed


@dataclass(frozen=True)
class PassNoise:
    """The errors of one pass.

    Attributes:
        aim_rad: added to the intended aim azimuth (rad).
        release_m: added to the intended release distance (m).
        push_mps: horizontal velocity (x, y) given to the ball at release (m/s, world frame).
    """

    aim_rad: float = 0.0
    release_m: float = 0.0
    push_mps: tuple[float, float] = (0.0, 0.0)

    def as_dict(self) -> dict[str, float]:
        """JSON-friendly form with degrees for the aim."""
        return {"aim_deg": math.degrees(self.aim_rad), "release_m": self.release_m,
                "push_x_mps": self.push_mps[0], "push_y_mps": self.push_mps[1]}


@dataclass(frozen=True)
class PlaceNoise:
    """The errors of one placement.

    Attributes:
        along_m: tangential offset along the ring (m; for a gate: along its length).
        across_m: radial offset (m).
        yaw_rad: rotation about the vertical (rad).
    """

    along_m: float = 0.0
    across_m: float = 0.0
    yaw_rad: float = 0.0


ZERO_PASS = PassNoise()
ZERO_PLACE = PlaceNoise()


@dataclass(frozen=True)
class Thrower:
    """A skill level: standard deviations of the errors of a pass and of a placement.

    Attributes:
        name: the level's name (``"custom"`` for explicit numbers).
        sigma_aim_deg: aim azimuth error (degrees).
        sigma_release_m: release distance error (m).
        sigma_push_mps: horizontal push at release, per axis (m/s).
        sigma_place_m: placement position error, along and across the ring (m).
        sigma_place_deg: placement yaw error (degrees).
    """

    name: str = "custom"
    sigma_aim_deg: float = 0.0
    sigma_release_m: float = 0.0
    sigma_push_mps: float = 0.0
    sigma_place_m: float = 0.0
    sigma_place_deg: float = 0.0

    def __post_init__(self) -> None:
        for k in ("sigma_aim_deg", "sigma_release_m", "sigma_push_mps", "sigma_place_m", "sigma_place_deg"):
            v = getattr(self, k)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0.0):
                raise InputError(f"{k} must be a finite number >= 0, not {v!r}", key=k)

    def draw_pass(self, rng: np.random.Generator) -> PassNoise:
        """Draw the errors of one pass (always four normals, see module docstring)."""
        z = rng.standard_normal(4)
        return PassNoise(aim_rad=math.radians(self.sigma_aim_deg) * float(z[0]),
                         release_m=self.sigma_release_m * float(z[1]),
                         push_mps=(self.sigma_push_mps * float(z[2]), self.sigma_push_mps * float(z[3])))

    def draw_place(self, rng: np.random.Generator) -> PlaceNoise:
        """Draw the errors of one placement (always three normals)."""
        z = rng.standard_normal(3)
        return PlaceNoise(along_m=self.sigma_place_m * float(z[0]), across_m=self.sigma_place_m * float(z[1]),
                          yaw_rad=math.radians(self.sigma_place_deg) * float(z[2]))


SKILLS: dict[str, Thrower] = {
    "perfect": Thrower("perfect"),
    "expert": Thrower("expert", 0.5, 0.01, 0.005, 0.0005, 1.0),
    "steady": Thrower("steady", 1.0, 0.02, 0.01, 0.001, 2.0),
    "casual": Thrower("casual", 2.0, 0.04, 0.02, 0.002, 4.0),
    "child": Thrower("child", 4.0, 0.06, 0.04, 0.0035, 8.0),
}


def skill(name: str) -> Thrower:
    """The named skill level.

    Raises:
        InputError: for an unknown name (the message lists the levels).
    """
    try:
        return SKILLS[name]
    except KeyError:
        raise InputError(f"unknown skill {name!r}; allowed: {allowed(SKILLS)}", key="skill") from None
